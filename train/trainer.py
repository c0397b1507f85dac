"""One training run with MaskablePPO: ``Trainer(TrainConfig(game=..., ...)).run()`` returns the report.

Pipeline, every step optional: (1) behaviour cloning of a teacher (:mod:`kortmiljo.train.bc`), (2) PPO
against an opponent pool of baselines (``opponents``) and frozen snapshots of the learner
(added every ``snapshot_every`` updates, chosen with ``self_play_prob``), sampled per episode
and seat, with periodic duplicate-deal evaluation (:mod:`kortmiljo.train.evaluation`) that keeps the best
model. The per-update bookkeeping is :mod:`kortmiljo.train.callbacks`, the files :mod:`kortmiljo.train.checkpoints`.

Everything that can be checked is checked before any work and before any file is written, and
refused with a one-line :class:`~kortmiljo.train.config.TrainError`: the options, the game and its
options, every agent name, the ``init`` model (its fingerprint included), the checkpoint a
resume continues from, and that the run directory (and the teacher-data cache) can be written.

``resume=True`` continues the run in ``out`` with the options saved in its ``args.json``;
``out`` itself, the budget (when given) and how this machine runs it come from the request, so a
copied or moved run directory resumes where it is now. A finished run is left as it is unless
the budget grew. Snapshot opponents sample with seeds derived from the run's seed and the
snapshot's timestep (:func:`snapshot_seed`), so a run is the same in every process.
"""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import time
import zlib
from typing import Any

from kortmiljo.agents.registry import available_agents, make_agent
from kortmiljo.train.bc import run_bc_phase
from kortmiljo.train.checkpoints import RunDirectory, append_csv, atomic_save, check_writable, read_json, write_json
from kortmiljo.train.config import TrainConfig, TrainError
from kortmiljo.train.evaluation import duplicate_eval
from kortmiljo.train.init_model import check_init_model, copy_weights
from kortmiljo.train.teacher_data import load_cached

from kortmiljo import __version__, load_game
from kortmiljo.env.training import observation_size, privileged_size

NOTE = ("in-loop evaluations are small and the best is selected on them (optimistic); publish figures from "
        "`kortmiljo eval` on >= 4000 duplicate games")  # fmt: skip


def default_update_threads() -> int:
    """Cores this process may use, at most 4: a PPO update on 512-sample minibatches of a 256-256
    network runs 1.7x faster on 2 threads than on 1 (benchmarks/train_throughput.py), while
    collecting rollouts (one small forward pass per step) is fastest on one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def snapshot_seed(seed: int, name: str) -> int:
    """The sampling seed of a learner snapshot: the same in every process (unlike ``hash``)."""
    return zlib.crc32(f"{seed}:{name}".encode())


class Trainer:
    """One run of the SB3 backend (see the module docstring)."""

    def __init__(self, config: TrainConfig):
        if not isinstance(config, TrainConfig) or config.BACKEND != TrainConfig.BACKEND:
            raise TrainError(f"Trainer runs a TrainConfig; {type(config).__name__} runs with its own backend")
        self.config = config
        self.log = (lambda *a, **k: None) if config.quiet else (lambda *a, **k: print(*a, **k, flush=True))
        self.state: dict[str, Any] = {"phase": "start", "elapsed_s": 0.0, "updates": 0, "best": None, "evals": [],
                                      "snapshots": [], "phases": {}, "bc": None}  # fmt: skip
        self.t_start = time.time()
        self.bc_data = None
        self.pool = None

    # ---- timing -----------------------------------------------------------------------------
    def elapsed(self) -> float:
        return self.state["elapsed_s"] + (time.time() - self.t_start)

    def time_left(self) -> float:
        return math.inf if self.config.minutes is None else self.config.minutes * 60 - self.elapsed()

    # ---- before any work: everything checked, nothing written -------------------------------------
    def resolve(self) -> None:
        """The effective config (the saved one on resume), the game, the agents, the files to continue from."""
        c = self.config
        c.validate()
        if c.resume and c.out is None:
            raise TrainError("--resume needs --out DIR (the run to continue)")
        self.run_dir = RunDirectory(c.out or c.default_out())
        self.saved_state = None
        saved = self.run_dir.read_args(type(c)) if c.resume else None
        if saved is not None:
            c = c.resumed(saved)
            c.validate()
            self.saved_state = self.run_dir.read_state()
        self.config = c = dataclasses.replace(c, out=str(self.run_dir.path))
        if c.resume and self.saved_state is None:
            self.log(f"no checkpoint in {self.run_dir.ckpt}; starting a new run")
        try:
            self.game = load_game(c.game, **c.game_options)
        except ValueError as err:
            raise TrainError(str(err)) from None
        self.include_unseen = not c.no_unseen
        self.actor_size = observation_size(self.game, self.include_unseen)
        self.privileged_size = privileged_size(self.game) if c.privileged_critic else 0
        self._resolve_agents()
        self.init_path = check_init_model(c.init, self.game) if c.init and self.saved_state is None else None

    def _resolve_agents(self) -> None:
        c = self.config
        defaults = [n for n in ("random", "heuristic") if n in available_agents(self.game.name)]
        self.opponent_names = list(c.opponents or defaults)
        self.eval_names = list(c.eval_opponents or defaults)
        self.bc_opponent_names = list(c.bc_opponents or self.opponent_names)
        if c.select_by is not None and c.select_by not in self.eval_names:
            names = ",".join(self.eval_names)
            raise TrainError(f"--select-by {c.select_by} is not one of the eval opponents ({names})")
        self.select_by = c.select_by or (self.eval_names[-1] if self.eval_names else None)
        checks = [("--opponents", self.opponent_names), ("--eval-opponents", self.eval_names)]
        if c.bc_teacher:
            checks += [("--bc-teacher", [c.bc_teacher]), ("--bc-opponents", self.bc_opponent_names)]
        for flag, names in checks:
            for name in names:
                try:
                    self.make_agent(name, seed=0)
                except (ValueError, ImportError) as err:
                    raise TrainError(f"{flag}: {err}") from None

    def finished(self) -> bool:
        """A resumed run that is done and whose budget did not grow."""
        st, c = self.saved_state, self.config
        if st is None or st["phase"] != "done":
            return False
        return st["timesteps"] >= c.target_timesteps or (c.minutes is not None and c.minutes * 60 <= st["elapsed_s"])

    def check_outputs(self) -> None:
        check_writable(self.run_dir.path, "--out")
        if self.config.bc_teacher and (self.saved_state or {}).get("phase", "start") == "start":
            check_writable(self.config.cache, "--cache")

    # ---- agents, envs, model ------------------------------------------------------------------------
    def make_agent(self, name: str, seed: int):
        return make_agent(name, self.game, seed=seed)

    def make_pool(self, seed: int):
        from kortmiljo.train.pool import OpponentPool

        baselines = [self.make_agent(n, seed=seed + i) for i, n in enumerate(self.opponent_names)]
        c = self.config
        return OpponentPool(self.game, baselines, c.self_play_prob, c.pool_size, self.include_unseen,
                            self.privileged_size)  # fmt: skip

    def build(self) -> None:
        """The vector env and the model: fresh, from ``init``, or from the checkpoint (nothing written)."""
        import torch
        from kortmiljo.train.envs import build_vec_env
        from kortmiljo.train.policy import resolve_train_precision

        c = self.config
        torch.set_num_threads(c.threads)
        self.update_threads = c.update_threads or default_update_threads()
        self.train_precision = resolve_train_precision(c.train_precision)
        try:
            self.venv, self.vec_kind, self.pool = build_vec_env(c, self.game, self.make_pool)
        except ValueError as err:
            raise TrainError(str(err)) from None
        try:
            if self.saved_state is not None:
                self.model = self.run_dir.load_model(self.saved_state, self.venv)
                self.restore(self.saved_state)
            else:
                self.model = self.new_model()
                if self.init_path is not None:
                    self.load_init()
        except BaseException:
            self.venv.close()
            raise

    def new_model(self):
        from kortmiljo.train.policy import AsymmetricMaskablePolicy, KortmiljoMaskablePolicy
        from sb3_contrib import MaskablePPO

        c = self.config
        policy: Any = KortmiljoMaskablePolicy
        kwargs: dict[str, Any] = {"net_arch": {"pi": list(c.net), "vf": list(c.net)}}
        if self.privileged_size:
            policy, kwargs["actor_dim"] = AsymmetricMaskablePolicy, self.actor_size
        return MaskablePPO(
            policy, self.venv, learning_rate=c.lr, n_steps=c.n_steps, batch_size=c.batch_size, n_epochs=c.n_epochs,
            gamma=c.gamma, gae_lambda=c.gae_lambda, clip_range=c.clip, ent_coef=c.ent_coef, vf_coef=c.vf_coef,
            max_grad_norm=c.max_grad_norm, target_kl=c.target_kl, policy_kwargs=kwargs,
            tensorboard_log=str(self.run_dir.tb), seed=c.seed, device="cpu", verbose=0,
        )  # fmt: skip

    def load_init(self) -> None:
        fresh = copy_weights(self.model.policy, self.init_path, self.game, self.config.net)
        if fresh:  # e.g. a plain model as the actor of a privileged critic
            self.log(f"--init: value network starts fresh ({fresh} tensors of another shape)")
        self.log(f"initialised from {self.init_path}")

    def restore(self, st: dict) -> None:
        """The trainer's state, the pool's snapshots and the envs' RNGs from the checkpoint."""
        from kortmiljo.agents.trained import clone_policy

        for k in ("phase", "elapsed_s", "updates", "best", "evals", "phases", "bc", "snapshots"):
            self.state[k] = st.get(k, self.state[k])
        if self.state["phase"] == "done":  # the budget grew: train on
            self.state["phase"] = "ppo"
        for name in st["snapshots"]:
            self._pool_add(clone_policy(self.model.policy, self.run_dir.load_snapshot(name)), name)
        rngs = st.get("env_rngs")
        if rngs and len(rngs) == self.config.n_envs:
            for i, s in enumerate(rngs):
                self.venv.env_method("set_rng_state", s, indices=[i])
        self.log(
            f"resumed {self.run_dir.path} at {self.model.num_timesteps} timesteps, {self.state['elapsed_s']:.0f} s "
            f"spent, phase {self.state['phase']}, {len(st['snapshots'])} snapshots in the pool"
        )

    def _pool_add(self, net: Any, name: str) -> None:
        seed = snapshot_seed(self.config.seed, name)
        if self.pool is not None:
            self.pool.add_snapshot(net, name, seed)
        else:  # subproc: every env process has its own pool
            self.venv.env_method("opponents_call", "add_snapshot", net, name, seed)

    def add_snapshot(self, name: str) -> None:
        from kortmiljo.agents.trained import clone_policy

        net = clone_policy(self.model.policy)
        self._pool_add(net, name)
        self.run_dir.save_snapshot(name, net.state_dict())
        self.state["snapshots"] = (self.state["snapshots"] + [name])[-self.config.pool_size :]

    def current_policy(self, deterministic: bool = True):
        from kortmiljo.agents.trained import PPOPolicy

        return PPOPolicy(self.game, self.model.policy, seed=0, deterministic=deterministic,
                         include_unseen=self.include_unseen, name="learner",
                         privileged_size=self.privileged_size)  # fmt: skip

    def model_config(self) -> dict:
        """``config.json``: what a loader checks (the game's fingerprint first) before using the model."""
        g = self.game
        return {
            "format": "kortmiljo-ppo/1", "game": g.name, "env_config": g.config, "fingerprint": g.fingerprint(),
            "obs_size": self.actor_size, "privileged_size": self.privileged_size, "action_count": g.num_actions,
            "action_names": list(g.action_names), "include_unseen": self.include_unseen,
            "kortmiljo_version": __version__, "algo": "MaskablePPO", "net": list(self.config.net),
        }  # fmt: skip

    # ---- evaluation and checkpoints -----------------------------------------------------------------
    def evaluate(self, label: str) -> dict:
        t = time.time()
        row: dict[str, Any] = {"timesteps": int(self.model.num_timesteps), "wall_s": round(self.elapsed(), 1),
                               "label": label}  # fmt: skip
        learner = self.current_policy()
        results = {}
        for i, name in enumerate(self.eval_names):
            opp = self.make_agent(name, seed=10_000 + i)
            r = duplicate_eval(self.game, learner, opp, self.config.eval_deals, seed=self.config.seed * 31 + 12_345)
            results[name] = r
            row[f"{name}_mean"], row[f"{name}_ci95"] = round(r["mean_reward"], 4), round(r["ci95"], 4)
            row[f"{name}_games"] = r["games"]
            self.model.logger.record(f"eval/{name}_mean_reward", r["mean_reward"])
        self.model.policy.set_training_mode(False)
        row["eval_s"] = round(time.time() - t, 1)
        append_csv(self.run_dir.eval_csv, row)
        self.state["evals"].append(row)
        text = ", ".join(f"vs {n} {r['mean_reward']:+.3f} ± {r['ci95']:.3f}" for n, r in results.items())
        self.log(f"[eval {label} @ {row['timesteps']} steps, {row['wall_s']:.0f} s] {text}  ({row['eval_s']} s)")
        if self.select_by in results:
            score, best = results[self.select_by]["mean_reward"], self.state["best"]
            if best is None or score > best["score"]:
                self.state["best"] = {"score": score, "ci95": results[self.select_by]["ci95"],
                                      "timesteps": row["timesteps"], "label": label, "by": self.select_by}  # fmt: skip
                atomic_save(self.run_dir.best_model_zip, lambda tmp: self.model.save(str(tmp)))
                self.log(f"  new best vs {self.select_by}: {score:+.3f}")
        return results

    def checkpoint(self) -> None:
        st = {**self.state, "elapsed_s": self.elapsed(), "env_rngs": self.venv.env_method("rng_state"),
              "pool_counts": self.pool.counts if self.pool is not None else {}}  # fmt: skip
        self.run_dir.write_checkpoint(self.model, st, self.model_config())

    # ---- the run -------------------------------------------------------------------------------------
    def run(self) -> dict:
        """Check, build, train, evaluate, write the run directory; the report (also ``report.json``)."""
        self.resolve()
        if self.finished():
            st = self.saved_state
            self.log(f"{self.run_dir.path} is finished ({st['timesteps']} timesteps); nothing to do "
                     "(a larger --timesteps or --minutes trains on)")  # fmt: skip
            return read_json(self.run_dir.report_json) if self.run_dir.report_json.exists() else {}
        self.check_outputs()
        self.build()
        self.start_files()
        c = self.config
        try:
            if self.state["phase"] == "start":
                if c.bc_teacher:
                    run_bc_phase(self)
                    if self.eval_names:
                        self.evaluate("after-bc")
                elif c.init and self.eval_names:
                    self.evaluate("init")
                self.state["phase"] = "ppo"
                self.checkpoint()
            elif c.bc_teacher and c.bc_aux_coef > 0 and (self.state["bc"] or {}).get("cache"):
                self.bc_data = load_cached(self.state["bc"]["cache"])
            self.run_ppo()
        except KeyboardInterrupt:
            self.log("interrupted: writing a checkpoint (continue with --resume)")
            self.checkpoint()
            raise
        return self.finish()

    def start_files(self) -> None:
        import torch
        from stable_baselines3.common.logger import configure

        self.run_dir.path.mkdir(parents=True, exist_ok=True)
        write_json(self.run_dir.args_json, self.config.to_dict())
        # not saved with the model: a run resumed on another machine picks its own
        self.model.policy.train_dtype = torch.bfloat16 if self.train_precision == "bf16" else None
        write_json(self.run_dir.config_json, self.model_config())
        tb = self.run_dir.tb
        k = len(list(tb.glob("run_*"))) if tb.exists() else 0
        self.model.set_logger(configure(str(tb / f"run_{k}"), ["tensorboard"]))

    def run_ppo(self) -> None:
        import torch
        from kortmiljo.train.callbacks import TrainingCallback

        remaining = self.config.target_timesteps - self.model.num_timesteps
        if remaining <= 0 or self.time_left() <= 0:
            return
        cb = TrainingCallback(self, self.config.target_timesteps)
        t, steps0 = time.time(), self.model.num_timesteps
        try:
            self.model.learn(total_timesteps=remaining, callback=cb, reset_num_timesteps=False, tb_log_name="ppo",
                             use_masking=True)  # fmt: skip
        finally:
            cb.close()
            torch.set_num_threads(self.config.threads)  # the update's threads end with it
            ph = self.state["phases"]
            ph["ppo_s"] = round(ph.get("ppo_s", 0.0) + time.time() - t, 1)
            ph["ppo_steps"] = ph.get("ppo_steps", 0) + int(self.model.num_timesteps - steps0)

    def finish(self) -> dict:
        c, run, evals = self.config, self.run_dir, self.state["evals"]
        atomic_save(run.last_model_zip, lambda tmp: self.model.save(str(tmp)))
        stale = not evals or evals[-1]["timesteps"] != self.model.num_timesteps or evals[-1]["label"] == "after-bc"
        if self.eval_names and stale and (self.model.num_timesteps > 0 or not evals):
            self.evaluate("final")
        self.state["phase"] = "done"
        self.checkpoint()
        src = run.last_model_zip if c.keep_last or not run.best_model_zip.exists() else run.best_model_zip
        atomic_save(run.model_zip, lambda tmp: shutil.copyfile(src, tmp))
        ph, best = self.state["phases"], self.state["best"]
        model_is = "last"
        if src != run.last_model_zip:
            model_is = f"best vs {self.select_by} at {best['timesteps']} timesteps ({best['label']})"
        report = {
            "game": self.game.name, "env_config": self.game.config, "kortmiljo_version": __version__,
            "command": c.command_line(), "args": c.to_dict(), "model": str(run.model_zip), "model_is": model_is,
            "timesteps": int(self.model.num_timesteps), "updates": self.state["updates"],
            "wall_clock_s": round(self.elapsed(), 1), "phases": ph, "vec_env": self.vec_kind,
            "torch_threads": {"rollout": c.threads, "update": self.update_threads},
            "train_precision": self.train_precision, "n_envs": c.n_envs,
            "ppo_env_steps_per_s": round(ph.get("ppo_steps", 0) / ph["ppo_s"], 1) if ph.get("ppo_s") else None,
            "behaviour_cloning": self.state["bc"], "best": best, "evaluations": evals,
            "snapshots_in_pool": self.state["snapshots"], "opponents": self.opponent_names,
            "self_play_prob": c.self_play_prob, "note": NOTE,
        }  # fmt: skip
        write_json(run.report_json, report)
        try:
            from kortmiljo.train.report import plot_learning_curve

            plot_learning_curve(run.path)
        except Exception as err:  # a missing plot must not lose a finished run
            self.log(f"(no learning-curve plot: {err})")
        self.log(f"done: {report['timesteps']} timesteps in {report['wall_clock_s']:.0f} s; "
                 f"model {report['model']} ({report['model_is']})")  # fmt: skip
        self.venv.close()
        return report
