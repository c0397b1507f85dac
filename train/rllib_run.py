"""The training run of ``kortmiljo train --backend rllib``: its directory, its checkpoints, its budget,
its evaluations and its report (the config and RLlib's algorithm are :mod:`kortmiljo.train.rllib_backend`).

* **Nothing written until the run can start.** The options, the game, ``--out`` (a new run needs a new
  or empty directory; ``--resume`` the run in it), the connection and the cluster's resources
  (:mod:`kortmiljo.train.rllib_cluster`) are checked first; a refused run leaves ``--out`` as it was.
* **Checkpoints that survive ``kill -9``.** RLlib saves into ``checkpoint.new/``, with the run's own
  ``state.json`` (iterations, env steps, seconds spent, the next snapshot to refresh); only then does
  it replace ``checkpoint/``. ``--resume --out DIR`` restores the last one and drops the rows of
  ``progress.csv`` and ``eval.csv`` written after it.
* **A budget that holds.** ``--minutes`` counts the time of earlier sessions of the run; an iteration
  starts only where one more, as long as the last, ends within the budget.
* **Evaluations.** Every ``--eval-every`` iterations and at the end, the learner (as the checkpoint's
  ``rllib:`` agent) plays ``--eval-deals`` duplicate deals against each ``--eval-opponents``
  (:func:`kortmiljo.train.evaluation.duplicate_eval`), into ``eval.csv`` and the report.
* **Throughput, apart.** Each row of ``progress.csv`` gives the iteration's wall time, the env steps
  it sampled, RLlib's sampling time and steps per second of sampling, and the learner's update time.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from kortmiljo.train import rllib_cluster
from kortmiljo.train.checkpoints import append_csv, check_writable, read_json, write_json
from kortmiljo.train.config import TrainError
from kortmiljo.train.rllib_backend import LEARNER, RLlibConfig, _metric, build_config, copy_learner_to, model_config

from kortmiljo import load_game
from kortmiljo.core.game import Game

STATE_FORMAT = 1


class RunDir:
    """The files of one RLlib run."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.ckpt, self.new, self.old = (self.path / n for n in ("checkpoint", "checkpoint.new", "checkpoint.old"))
        self.progress, self.eval = self.path / "progress.csv", self.path / "eval.csv"

    def holds_run(self) -> bool:
        return any((self.path / n).exists() for n in ("args.json", "checkpoint", "checkpoint.old", "progress.csv"))

    def recover(self) -> None:
        """After a kill between the two renames of :meth:`save`: the last complete checkpoint back in place."""
        if not self.ckpt.exists() and self.old.exists():
            self.old.rename(self.ckpt)
        shutil.rmtree(self.new, ignore_errors=True)
        shutil.rmtree(self.old, ignore_errors=True)

    def state(self) -> dict | None:
        path = self.ckpt / "state.json"
        if not path.exists():
            return None
        st = read_json(path)
        keys = ("format", "iteration", "env_steps", "elapsed_s", "next_snapshot")
        if not isinstance(st, dict) or any(k not in st for k in keys):
            raise TrainError(f"{path} is corrupt (it needs {', '.join(keys)}); the run cannot be resumed")
        return st

    def save(self, algo, state: dict) -> None:
        """RLlib's checkpoint and the run's state into ``checkpoint.new``, then in place of ``checkpoint``."""
        shutil.rmtree(self.new, ignore_errors=True)
        algo.save_to_path(str(self.new.resolve()))
        write_json(self.new / "state.json", state)
        if self.ckpt.exists():
            self.ckpt.rename(self.old)
        self.new.rename(self.ckpt)
        shutil.rmtree(self.old, ignore_errors=True)

    def cut_rows(self, iteration: int) -> None:
        """Drop the rows of ``progress.csv`` and ``eval.csv`` after ``iteration`` (written after the checkpoint)."""
        for path in (self.progress, self.eval):
            if path.exists():
                lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
                keep = lines[:1] + [ln for ln in lines[1:] if int(ln.split(",", 1)[0]) <= iteration]
                path.write_text("".join(keep), encoding="utf-8")


def prepare(config: RLlibConfig) -> tuple[RLlibConfig, RunDir, Game]:
    """The effective config (the saved one on ``--resume``), the run directory and the game;
    :class:`TrainError` where the run cannot start. Writes nothing."""
    from kortmiljo.agents.rllib_module import HAVE_RLLIB

    config.validate()
    if not HAVE_RLLIB:
        raise TrainError("--backend rllib needs Ray RLlib: pip install 'kortmiljo[rllib]'")
    if config.resume and config.out is None:
        raise TrainError("--resume needs --out DIR (the run to continue)")
    run = RunDir(config.out or config.default_out())
    c = config
    if config.resume:
        if not (run.path / "args.json").exists():
            raise TrainError(f"--resume: {run.path} holds no RLlib run (no args.json)")
        saved = RLlibConfig.from_dict(read_json(run.path / "args.json"))
        c = config.resumed(saved)
        c.validate()
        if not (run.ckpt / "state.json").exists() and not (run.old / "state.json").exists():
            raise TrainError(f"--resume: {run.path} has no finished checkpoint to continue from (the run stopped "
                             "before its first); delete it, or choose another --out")  # fmt: skip
    elif run.holds_run():
        raise TrainError(f"--out {run.path} already holds a run; continue it with --resume, or choose another --out")
    check_writable(run.path, "--out")
    try:
        game = load_game(c.game, **c.game_options)  # bad options fail here, before Ray starts
    except ValueError as err:
        raise TrainError(str(err)) from None
    return c, run, game


def run(config: RLlibConfig) -> dict:
    """Train from ``config``; the report (also ``report.json``). :class:`TrainError` before any work (and
    before anything is written) where it cannot run."""
    c, run_dir, game = prepare(config)
    eval_names = _eval_names(c, game)
    t0 = time.time()
    free = rllib_cluster.connect(c)
    rllib_cluster.check_resources(c, free)
    if c.resume:
        run_dir.recover()
    state = run_dir.state() if c.resume else None
    run_dir.path.mkdir(parents=True, exist_ok=True)
    write_json(run_dir.path / "config.json", model_config(game))
    write_json(run_dir.path / "args.json", {**c.to_dict(), "out": str(run_dir.path), "resume": False})
    algo = build_config(c, game).build_algo()
    if state is None:
        state = {"format": STATE_FORMAT, "iteration": 0, "env_steps": 0, "elapsed_s": 0.0, "next_snapshot": 0}
        for i in range(c.pool_size):
            copy_learner_to(algo, f"snapshot_{i}")
    else:
        algo.restore_from_path(str(run_dir.ckpt.resolve()))
        run_dir.cut_rows(state["iteration"])
    try:
        report = Loop(c, game, run_dir, algo, state, t0, eval_names).run()
    finally:
        algo.stop()
    return report


def _eval_names(c: RLlibConfig, game) -> list[str]:
    from kortmiljo.agents.registry import available_agents, make_agent

    names = list(c.eval_opponents or [n for n in ("random", "heuristic") if n in available_agents(game.name)])
    for name in names:
        try:
            make_agent(name, game, seed=0)
        except (ValueError, ImportError) as err:
            raise TrainError(f"--eval-opponents: {err}") from None
    return names


class Loop:
    """The iterations of one session of a run, from ``state`` on."""

    def __init__(self, c: RLlibConfig, game, run_dir: RunDir, algo, state: dict, t0: float, eval_names: list[str]):
        self.c, self.game, self.dir, self.algo, self.state = c, game, run_dir, algo, state
        self.t0, self.elapsed0, self.eval_names = t0, state["elapsed_s"], eval_names
        self.log = (lambda *a: None) if c.quiet else (lambda *a: print(*a, flush=True))
        self.evals: dict[str, dict] = {}
        self.rows: list[dict] = []  # this session's progress rows
        self.last_iteration_s = 0.0

    def elapsed(self) -> float:
        return self.elapsed0 + time.time() - self.t0

    def done(self) -> bool:
        c, st = self.c, self.state
        if c.iteration_budget is not None and st["iteration"] >= c.iteration_budget:
            return True
        if c.timesteps is not None and st["env_steps"] >= c.timesteps:
            return True
        return c.minutes is not None and self.elapsed() + self.last_iteration_s > 60 * c.minutes

    def run(self) -> dict:
        c, st = self.c, self.state
        while not self.done():
            self.iteration()
            if c.snapshot_every and st["iteration"] % c.snapshot_every == 0:
                copy_learner_to(self.algo, f"snapshot_{st['next_snapshot']}")
                st["next_snapshot"] = (st["next_snapshot"] + 1) % c.pool_size
            evaluate = c.eval_every and st["iteration"] % c.eval_every == 0
            if evaluate or (c.checkpoint_every and st["iteration"] % c.checkpoint_every == 0):
                self.save()
            if evaluate:
                self.evaluate()
        self.save()
        self.evaluate()
        return self.report()

    def iteration(self) -> None:
        t = time.time()
        result = self.algo.train()
        self.last_iteration_s = time.time() - t
        st = self.state
        sampled = int(_metric(result, "env_runners/num_env_steps_sampled", default=0) or 0)
        st["iteration"] += 1
        st["env_steps"] += sampled
        sample_s = _metric(result, "timers/env_runner_sampling_timer", default=None)
        learn_s = _metric(result, "timers/learner_update_timer", default=None)
        row = {
            "iteration": st["iteration"], "env_steps": st["env_steps"], "time_s": round(self.elapsed(), 2),
            "iteration_s": round(self.last_iteration_s, 3), "sampled": sampled,
            "sample_s": _round(sample_s), "sample_steps_per_s": _round(sampled / sample_s if sample_s else None, 1),
            "learner_s": _round(learn_s), "steps_per_s": round(sampled / self.last_iteration_s, 1),
            "episodes": _metric(result, "env_runners/num_episodes", default=""),
            "learner_return": _metric(result, f"env_runners/module_episode_returns_mean/{LEARNER}", default=""),
            "episode_len": _metric(result, "env_runners/episode_len_mean", default=""),
        }  # fmt: skip
        self.rows.append(row)
        append_csv(self.dir.progress, row)
        self.log(" ".join(f"{k}={v}" for k, v in row.items()))

    def save(self) -> None:
        self.state["elapsed_s"] = round(self.elapsed(), 1)
        self.dir.save(self.algo, self.state)

    def evaluate(self) -> None:
        """The checkpoint's learner against each eval opponent on the same duplicate deals."""
        from kortmiljo.agents.registry import make_agent
        from kortmiljo.agents.rllib_agent import load_rllib_policy
        from kortmiljo.train.evaluation import duplicate_eval

        st = self.state
        if self.evals and next(iter(self.evals.values()))["iteration"] == st["iteration"]:
            return
        learner = load_rllib_policy(self.dir.path, self.game, seed=self.c.seed)
        for name in self.eval_names:
            r = duplicate_eval(self.game, learner, make_agent(name, self.game, seed=self.c.seed), self.c.eval_deals,
                               seed=10_000 + self.c.seed)  # fmt: skip
            row = {"iteration": st["iteration"], "env_steps": st["env_steps"], "time_s": round(self.elapsed(), 1),
                   "opponent": name, "mean_reward": round(r["mean_reward"], 4), "ci95": round(r["ci95"], 4),
                   "deals": r["deals"], "games": r["games"]}  # fmt: skip
            self.evals[name] = row
            append_csv(self.dir.eval, row)
            self.log(f"eval vs {name}: {r['mean_reward']:+.3f} ± {r['ci95']:.3f} ({r['games']} games)")

    def report(self) -> dict:
        import ray

        c, st, rows = self.c, self.state, self.rows
        sample_s = sum(r["sample_s"] or 0 for r in rows)
        learn_s = sum(r["learner_s"] or 0 for r in rows)
        train_s = sum(r["iteration_s"] for r in rows)
        sampled = sum(r["sampled"] for r in rows)
        report = {
            "game": self.game.name, "env_config": self.game.config, "command": c.command_line(),
            "iterations": st["iteration"], "env_steps": st["env_steps"], "elapsed_s": round(self.elapsed(), 1),
            "budget_s": None if c.minutes is None else 60 * c.minutes,
            "this_session": {"iterations": len(rows), "train_s": round(train_s, 1),
                             "steps_per_s": round(sampled / train_s, 1) if train_s else None,
                             "sample_steps_per_s": round(sampled / sample_s, 1) if sample_s else None,
                             "learner_share": round(learn_s / train_s, 3) if train_s else None},
            "num_env_runners": c.num_env_runners, "num_learners": c.num_learners,
            "eval": self.evals, "illegal_actions": 0,  # the env raises IllegalActionError on any
            "checkpoint": str(self.dir.ckpt), "ray_version": ray.__version__,
        }  # fmt: skip
        write_json(self.dir.path / "report.json", report)
        self.log(json.dumps(report, indent=2, default=str))
        return report


def _round(x, digits: int = 3):
    return None if x is None else round(float(x), digits)
