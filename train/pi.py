"""The ``pi`` recipe: oracle policy iteration, from the heuristic (or ``--init WEIGHTS``) to a network.

``kortmiljo train GAME --recipe pi --minutes M`` (or ``--hours H``) runs steps until the budget is
spent. Each step, from the current policy (the game's heuristic at first):

1. **data** (:mod:`kortmiljo.train.oracle_data`): the current policy plays, and every legal action of
   each decision is scored by one paired rollout in the real deal. From the heuristic, every seat is
   the heuristic and recorded (``pretrained_v3``'s recipe); from a network, it holds one seat at a
   heuristic table in 80 % of the games and every seat in the rest (``--opponents heuristic
   --opponent-share 0.8``, the mix of Sprøyte's W2 and Femkortskille's v5, the two steps that kept
   search's margin over the heuristic; docs/research/strength.md). 5 % of the moves are random.
2. **fit** (:func:`kortmiljo.train.distill.fit`, ``--target advantage --advisor heuristic_v0
   --margin M --half``): a 256-256 ReLU student regresses each action's score over the heuristic's
   move; from a network it starts from that network's weights at learning rate 3e-4.
3. **gate**: the student and the current policy each play one seat against the heuristic in every
   other, on the same fresh duplicate deals (:func:`kortmiljo.agents.tournament.run_tournament`,
   ``per_deal``); the student is adopted iff the lower end of the 95 % interval of the per-deal
   difference (student − current) is above 0 (:func:`adopt`). A step that does not win its gate is
   reported and not adopted: the next step starts from the same policy, on new deals.

The budget is split by :func:`plan` before any work, from a cost model (:func:`costs_for`:
:data:`DEFAULT_COSTS`, or a game's own ``PI_COSTS``, measured on a reference 2-core machine) scaled by
this machine's and configuration's speed (:mod:`kortmiljo.train.pi_speed`: chunks of the heuristic
timed for a few seconds at the first run, then kept in ``--cache``/``pi_speed.json`` and in the run's
``state.json``), not from the clock: steps of about an hour each (one step below two hours), and in
each step a share for the gate and the rest for data and fit together. So the same command and seed do
the same work and give bit-identical weights on any run of one machine, and the run ends near its budget
(the progress bar's ETA is measured, not the model's).

A run directory holds::

    model.npz           the adopted policy (safe numpy weights; absent while no step won its gate)
    DIR/model.md        the model card: command line, steps, gates, margins
    report.json         each step's data size, time, gate result and margin against the heuristic
    learning_curve.png  each step's margin against the heuristic, adopted or not
    args.json           the run's options (--resume reuses them)
    state.json          the finished units of work (a data phase, a fit, a gate), written atomically
    data/step_NN/       each step's oracle chunks (a chunk on disk is never played again)
    steps/step_NN.npz   each step's student

A killed run continues with ``--resume --out DIR``: finished chunks, fits and gates are kept.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from kortmiljo.train import pi_speed
from kortmiljo.train.config import TrainConfig, TrainError

from kortmiljo.core.files import atomic_write

STATE_FORMAT = 1


# ---- the recipe's settings and its cost model ------------------------------------------------------


@dataclass(frozen=True)
class Costs:
    """Seconds of one core per unit of work, on the reference machine (see :data:`DEFAULT_COSTS`)."""

    chunk_heuristic: float  # one oracle chunk (10 games) played by the heuristic, every seat recorded
    chunk_network: float  # one chunk played by a network at the step's table mix
    decisions_heuristic: int  # decisions a chunk records (from the heuristic)
    decisions_network: int  # and from a network at the table mix
    fit_decision: float  # loading one decision (its advisor's move included) and one epoch over it
    gate_game: float  # one game of the gate (a network or the heuristic against heuristics)


# Seconds of one core on an idle 2-core machine: Sprøyte's, from the shipped steps' data (docs/models.md,
# docs/research/strength.md: v3 and W2). A game whose costs differ says so in its own module,
# kortmiljo.train.<game>_recipes (PI_COSTS; see game_setting); any other game uses these.
DEFAULT_COSTS = Costs(0.80, 0.94, 408, 188, 2.0e-4, 0.02)


@dataclass(frozen=True)
class Settings:
    """What a step does; the defaults are the studies' (docs/training.md, "The pi recipe")."""

    margin: float = 0.1  # the gain a student must expect to leave the heuristic's move (distill --margin)
    explore: float = 0.05  # share of recorded moves played at random
    opponent_share: float = 0.8  # from a network: share of games at a heuristic table
    epochs_first: int = 4  # a fit from scratch (the heuristic's data)
    epochs_next: int = 3  # a fit from the current network
    lr_first: float = 1e-3
    lr_next: float = 3e-4
    step_seconds: float = 3600.0  # about an hour a step; one step below two
    gate_share: float = 0.15  # of each step's budget
    min_chunks: int = 20  # a step with less data than this is not worth a gate: the budget is too small
    min_gate_games: int = 300
    max_gate_games: int = 6000


def game_setting(game: str, name: str, default):
    """A game's own value of a recipe setting: ``name`` in ``kortmiljo.train.<game>_recipes`` where that
    module exists and defines it (the per-game figures live with the game's name), else ``default``."""
    module_name = f"kortmiljo.train.{game}_recipes"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name:
            raise
        return default
    return getattr(module, name, default)


def settings_for(game: str) -> Settings:
    return Settings(margin=game_setting(game, "PI_MARGIN", Settings.margin))


def costs_for(game: str) -> Costs:
    return game_setting(game, "PI_COSTS", DEFAULT_COSTS)


def scaled(
    costs: Costs,
    chunk: float,
    decisions: float = 1.0,
    data: float = 1.0,
    fit: float | None = None,
    gate: float | None = None,
) -> Costs:
    """``costs`` where a heuristic chunk takes ``chunk`` times the reference's time on the scalar path and
    records ``decisions`` times its decisions (this machine, this configuration), and the data's chunks
    take ``data`` times the scalar path's (the batched lanes): chunks scale by ``chunk * data``, the
    decisions a chunk records by ``decisions``, a fit's cost per decision by ``fit`` and a gate game by
    ``gate`` where they were timed (:func:`~kortmiljo.train.pi_speed.measure_speed`), else by the
    machine's own slowness, roughly: ``chunk / decisions`` and ``chunk``."""
    fit = chunk / decisions if fit is None else fit
    gate = chunk if gate is None else gate
    return dataclasses.replace(
        costs, chunk_heuristic=costs.chunk_heuristic * chunk * data, chunk_network=costs.chunk_network * chunk * data,
        decisions_heuristic=max(1, round(costs.decisions_heuristic * decisions)),
        decisions_network=max(1, round(costs.decisions_network * decisions)),
        fit_decision=costs.fit_decision * fit, gate_game=costs.gate_game * gate,
    )  # fmt: skip


# ---- the budget split ------------------------------------------------------------------------------


def plan(budget_s: float, costs: Costs, settings: Settings, workers: int) -> list[dict]:
    """Each step's share of the budget: chunks per data phase for a heuristic and a network policy,
    epochs, and gate games. :class:`TrainError` where the budget does not hold one step."""
    n = max(1, int(budget_s // settings.step_seconds))
    step_s = budget_s / n
    steps = [_step_plan(step_s, costs, settings, workers, k) for k in range(n)]
    if steps[0]["chunks_heuristic"] < settings.min_chunks or steps[0]["gate_games"] < settings.min_gate_games:
        least = minimum_budget(costs, settings, workers)
        raise TrainError(f"a budget of {budget_s / 60:.1f} minutes is too small for one pi step "
                         f"(at least {math.ceil(least / 60)} minutes with --workers {workers})")  # fmt: skip
    return steps


def _step_plan(step_s: float, costs: Costs, s: Settings, workers: int, k: int) -> dict:
    gate_games = int(min(s.max_gate_games, s.gate_share * step_s * workers / (2 * costs.gate_game)))
    work_s = step_s - 2 * gate_games * costs.gate_game / workers
    out = {"step": k, "seconds": round(step_s, 1), "gate_games": gate_games}
    for kind, epochs in (("heuristic", s.epochs_first), ("network", s.epochs_next)):
        chunk = getattr(costs, f"chunk_{kind}") / workers
        fit = getattr(costs, f"decisions_{kind}") * costs.fit_decision * epochs / workers
        out[f"chunks_{kind}"] = max(0, int(work_s / (chunk + fit)))
        out[f"epochs_{kind}"] = epochs
    return out


def minimum_budget(costs: Costs, s: Settings, workers: int) -> float:
    """The least budget (seconds) whose one step holds ``min_chunks`` chunks and ``min_gate_games``."""
    chunk = (costs.chunk_heuristic + costs.decisions_heuristic * costs.fit_decision * s.epochs_first) / workers
    gate = 2 * s.min_gate_games * costs.gate_game / workers
    return max(s.min_chunks * chunk + gate, gate / s.gate_share)


# ---- the gate ------------------------------------------------------------------------------------


def adopt(ci95: tuple[float, float] | list[float]) -> bool:
    """The gate's rule: adopt the student iff the lower end of the 95 % interval of the per-deal
    difference (student − current, each against the heuristic) is above 0."""
    lo = ci95[0]
    return lo is not None and math.isfinite(lo) and lo > 0


def _margin_job(job: tuple) -> list:
    from kortmiljo.agents.tournament import run_tournament

    from kortmiljo.core.registry import load_game

    game_name, options, spec, games, seed = job
    g = load_game(game_name, **options)
    table = [spec] + ["heuristic"] * (g.num_players - 1)
    r = run_tournament(g, table, games, seed=seed, progress=False, per_deal=True)
    return next(iter(r["agents"].values()))["deal_means"]


def gate(game: str, options: dict, student: str, current: str, games: int, seed: int, workers: int, pool) -> dict:
    """The student and the current policy on the same fresh deals, each in one seat against the heuristic."""
    from kortmiljo.agents.stats import mean_ci

    parts = max(1, min(workers, games // 60))
    size = math.ceil(games / parts)
    jobs = [(game, options, spec, size, seed * 64 + p) for spec in (student, current) for p in range(parts)]
    runs = pool.map(_margin_job, jobs) if pool else list(map(_margin_job, jobs))
    a = [x for r in runs[:parts] for x in r]
    b = [x for r in runs[parts:] for x in r]
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    diff = mean_ci([x - y for x, y in pairs])
    student_m, current_m = mean_ci([x for x, _ in pairs]), mean_ci([y for _, y in pairs])
    out = {"deals": len(pairs), "seed": seed,
           "difference": {"mean": diff[0], "ci95": [diff[1], diff[2]]},
           "student_vs_heuristic": {"mean": student_m[0], "ci95": [student_m[1], student_m[2]]},
           "current_vs_heuristic": {"mean": current_m[0], "ci95": [current_m[1], current_m[2]]}}  # fmt: skip
    out["adopted"] = adopt(out["difference"]["ci95"])
    return out


# ---- one step's data and fit ----------------------------------------------------------------------


def _chunk_job(job: tuple) -> int:
    from kortmiljo.train import oracle_data

    game, options, folder, j, kwargs = job
    return oracle_data.collect(game, folder, math.inf, start=j, step=1, max_chunks=j + 1, config=options, **kwargs)


def first_chunk(seed: int, step: int) -> int:
    """Step ``step``'s first chunk number: its own deals, for each seed."""
    return 1_000_000 + seed * 100_000_000 + step * 100_000


def collect(run: PiRun, k: int, chunks: int, policy: str, pool) -> dict:
    """Step ``k``'s oracle chunks (those already on disk are kept); their totals."""
    from kortmiljo.train.expert_data import chunk_totals

    c, s = run.config, run.settings
    table = {} if policy == "heuristic" else {"opponents": "heuristic", "opponent_share": s.opponent_share}
    kwargs = {"explore": s.explore, "policy": policy, **table}
    folder = run.data_dir(k)
    start = first_chunk(c.seed, k)
    todo = [j for j in range(start, start + chunks) if not (folder / f"chunk_{j:05d}.npz").exists()]
    jobs = [(c.game, c.game_options, str(folder), j, kwargs) for j in todo]
    done = chunks - len(todo)
    run.progress.phase(f"step {k} data", chunks, done)
    for _ in pool.imap_unordered(_chunk_job, jobs) if pool else map(_chunk_job, jobs):
        run.progress.advance(run.chunk_cost(policy))
    return chunk_totals(folder)


def fit(run: PiRun, k: int, policy: str, epochs: int) -> dict:
    """Step ``k``'s student, written to ``steps/step_NN.npz``; the fit's report."""
    import torch
    from kortmiljo.agents.pretrained import save_weights
    from kortmiljo.train import distill
    from kortmiljo.train.expert_data import load_chunks

    c, s, game = run.config, run.settings, run.game
    hidden = list(c.net)
    init = None if policy == "heuristic" else distill.init_layers(policy, game, hidden, "relu", run.advisor)
    run.progress.phase(f"step {k} fit", 1, 0)
    before = torch.get_num_threads()
    torch.set_num_threads(run.workers)
    try:
        data, info = load_chunks([run.data_dir(k)], np.float16, distill.advice_columns(game, run.advisor))
        actor, critic, report = distill.fit(
            data, hidden, epochs, s.lr_first if init is None else s.lr_next, seed=c.seed, target="advantage",
            margin=s.margin, init=init, log=lambda _: None,
        )  # fmt: skip
    finally:
        torch.set_num_threads(before)
    if not (report["value_r2"] or 0) > 0:  # a critic no better than a constant would mislead
        critic = []
    source = {"recipe": "kortmiljo train --recipe pi (train/pi.py)", "step": k, "policy": run.rel(policy),
              "hidden": hidden, "epochs": epochs, "margin": s.margin, "advisor": run.advisor, "target": "advantage",
              "games": info["games"], "decisions": report["decisions"], "seed": c.seed,
              "command": c.command_line()}  # fmt: skip
    save_weights(run.step_file(k), game, actor, critic, activation="relu", source=source, advisor=run.advisor)
    run.progress.advance(info["decisions"] * run.costs.fit_decision * epochs / run.workers)
    return {"file": run.rel(str(run.step_file(k))), "epochs": epochs, "decisions": report["decisions"],
            "regret": report["history"][report["agreement_epoch"] - 1].get("regret")}  # fmt: skip


# ---- progress with a measured ETA -----------------------------------------------------------------


class Progress:
    """One line on stderr: the step and phase, work done, elapsed, and the time left, measured as this
    session's seconds per planned second of work times the planned work left."""

    def __init__(self, total: float, done: float, enabled: bool):
        self.total, self.done, self.enabled = total, done, enabled
        self.start_done, self.t0 = done, time.monotonic()
        self.label, self.units, self.unit = "", 0, 0

    def phase(self, label: str, units: int, done: int) -> None:
        self.label, self.units, self.unit = label, units, done
        self._show()

    def advance(self, planned_seconds: float) -> None:
        self.done = min(self.total, self.done + planned_seconds)
        self.unit += 1
        self._show()

    def eta(self) -> float | None:
        spent, worked = time.monotonic() - self.t0, self.done - self.start_done
        return None if worked <= 0 else spent / worked * max(0.0, self.total - self.done)

    def _show(self) -> None:
        if not self.enabled:
            return
        eta = self.eta()
        left = "ETA --:--" if eta is None else f"ETA {_clock(eta)}"
        pct = 100 * self.done / self.total if self.total else 100
        line = f"{self.label}: {self.unit}/{self.units} | {pct:5.1f}% | {_clock(time.monotonic() - self.t0)} | {left}"
        end = "\r" if sys.stderr.isatty() else "\n"
        print(line.ljust(70), end=end, file=sys.stderr, flush=True)


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


# ---- the run: resolve (nothing written), then steps, each unit recorded --------------------------


class PiRun:
    """A ``pi`` run in ``config.out``: :meth:`resolve` checks everything and writes nothing;
    :meth:`run` does the steps, recording each finished unit in ``state.json``."""

    def __init__(self, config: TrainConfig, settings: Settings | None = None, costs: Costs | None = None):
        self.config, self.settings, self.costs = config, settings, costs
        self.state: dict = {}

    # paths
    def data_dir(self, k: int) -> Path:
        return self.out / "data" / f"step_{k:02d}"

    def step_file(self, k: int) -> Path:
        return self.out / "steps" / f"step_{k:02d}.npz"

    def rel(self, path: str) -> str:
        return path if path == "heuristic" else os.path.relpath(path, self.out)

    def abs(self, path: str) -> str:
        return path if path == "heuristic" or os.path.isabs(path) else str(self.out / path)

    def chunk_cost(self, policy: str) -> float:
        kind = "heuristic" if policy == "heuristic" else "network"
        return getattr(self.costs, f"chunk_{kind}") / self.workers

    # checks
    def resolve(self) -> None:
        """The effective config (the saved one on resume), the game, the plan: :class:`TrainError` where
        the run cannot start, before anything is written."""
        c = self.config
        self.out = Path(c.out or c.default_out())
        check_out(self.out, c.resume)
        saved = resumed_config(self.out, c) if c.resume else None
        if saved is not None:
            c = saved
        self.config = c = dataclasses.replace(c, out=str(self.out))
        self.workers = c.workers or min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
        self.game = _load_game(c)
        from kortmiljo.agents.catalog import newest_heuristic

        self.advisor = newest_heuristic(self.game.name)  # the student's input and the scores' baseline
        self.settings = self.settings or settings_for(self.game.name)
        self.state = _read_state(self.out) if c.resume else {}
        self.budget = budget = budget_seconds(c)
        start = None if self.state else self._start_policy()  # --init checked before the machine is timed
        self.speed, self.new_speed = None, None
        if self.costs is None:
            self.speed = self._speed(budget)
            self.costs = scaled(costs_for(self.game.name), **self.speed)
        self.steps = plan(budget, self.costs, self.settings, self.workers)
        if not self.state:
            self.state = {"format": STATE_FORMAT, "current": start, "steps": [], "elapsed_s": 0.0, "speed": self.speed}

    def _speed(self, budget: float) -> dict:
        """The ratios to the reference the plan is made for (:func:`scaled`): the run's own on resume
        (the reference's for a run from before they were kept), else those kept in ``--cache`` for this
        game, configuration and worker count, else measured (:func:`~kortmiljo.train.pi_speed.measure_speed`;
        kept by :meth:`run` once the run starts). A budget too small for one step even on a machine 10 times the
        reference's speed is refused before anything is timed."""
        if self.state:
            return pi_speed.valid_speed(self.state.get("speed")) or pi_speed.valid_speed(pi_speed.REFERENCE)
        from kortmiljo.train.checkpoints import check_writable

        base = costs_for(self.game.name)
        fastest = minimum_budget(scaled(base, pi_speed.SPEED_BOUNDS[0]), self.settings, self.workers)
        if budget < fastest:
            least = minimum_budget(base, self.settings, self.workers)
            raise TrainError(f"a budget of {budget / 60:.1f} minutes is too small for one pi step (at least about "
                             f"{math.ceil(least / 60)} minutes with --workers {self.workers} on the cost model's "
                             "reference machine)")  # fmt: skip
        cache = Path(self.config.cache)
        check_writable(cache, "--cache")
        key = pi_speed.speed_key(self.game.name, self.config.game_options, self.workers)
        speed = pi_speed.valid_speed(pi_speed.known_speed(cache, key))
        if speed is None:
            entry = pi_speed.measure_speed(
                self.game.name, self.config.game_options, self.workers, base, Settings.explore, self.settings.margin
            )
            self.new_speed = (cache, key, entry)
            speed = pi_speed.valid_speed(entry)
        return speed

    def _start_policy(self) -> str:
        init = self.config.init
        if init is None:
            return "heuristic"
        from kortmiljo.train import distill

        try:
            distill.init_layers(init, self.game, list(self.config.net), "relu", self.advisor)
        except ValueError as err:
            raise TrainError(str(err) if str(err).startswith("--init") else f"--init {err}") from None
        return str(Path(init).resolve())

    # work
    def run(self) -> dict:
        self.resolve()
        c = self.config
        self.out.mkdir(parents=True, exist_ok=True)
        atomic_write(self.out / "args.json", json.dumps(c.to_dict(), indent=1))
        if self.new_speed:
            cache, key, entry = self.new_speed
            pi_speed.keep_speed(cache, key, entry)
            if not c.quiet:
                print(f"pi: a heuristic chunk here takes {entry['chunk']:g} times the cost model's reference time "
                      f"({entry['data']:g} of that as batched lanes) and records {entry['decisions']:g} times its "
                      f"decisions, a fit {entry['fit']:g} and a gate game {entry['gate']:g} times the reference's; "
                      "the budget is planned for that "
                      f"(kept in {cache / pi_speed.SPEED_FILE} for the next runs)", file=sys.stderr)  # fmt: skip
        self._save()
        self.progress = Progress(self._planned(), self._planned_done(), not (c.no_progress or c.quiet))
        self.t0, self.elapsed0 = time.monotonic(), self.state["elapsed_s"]
        pool = pi_speed.worker_pool(self.workers) if self.workers > 1 else None
        try:
            for k in range(len(self.steps)):
                self._step(k, pool)
        finally:
            if pool:
                pool.terminate()
        if self.progress.enabled:
            print(file=sys.stderr)
        from kortmiljo.train.report import write_pi_outputs

        return write_pi_outputs(self)

    def _step(self, k: int, pool) -> None:
        if k == len(self.state["steps"]):
            self.state["steps"].append({"step": k, "policy": self.rel(self.state["current"])})
            self._save()
        rec, p = self.state["steps"][k], self.steps[k]
        policy = self.abs(rec["policy"])
        kind = "heuristic" if policy == "heuristic" else "network"
        if "data" not in rec:
            t = time.monotonic()
            rec["data"] = {**collect(self, k, p[f"chunks_{kind}"], policy, pool),
                           "wall_seconds": round(time.monotonic() - t, 1)}  # fmt: skip
            if kind == "heuristic":
                self._learn_speed(rec["data"])
            self._save()
        if "fit" not in rec:
            t = time.monotonic()
            rec["fit"] = {**fit(self, k, policy, p[f"epochs_{kind}"]), "wall_seconds": round(time.monotonic() - t, 1)}
            self._save()
        if "gate" not in rec:
            t = time.monotonic()
            self.progress.phase(f"step {k} gate", 1, 0)
            seed = 2_000_000 + self.config.seed * 1000 + k
            g = gate(self.config.game, self.config.game_options, str(self.step_file(k)), policy, p["gate_games"],
                     seed, self.workers, pool)  # fmt: skip
            rec["gate"] = {**g, "wall_seconds": round(time.monotonic() - t, 1)}
            if g["adopted"]:
                self.state["current"] = str(self.step_file(k))
                atomic_write(self.out / "model.npz", self.step_file(k).read_bytes())
            self.progress.advance(2 * p["gate_games"] * self.costs.gate_game / self.workers)
            self._save()

    def _learn_speed(self, data: dict) -> None:
        """Where the heuristic's data ran off the planned ratios
        (:func:`~kortmiljo.train.pi_speed.observed_speed`), keep what it ran at for the next runs of this
        game, configuration and worker count; this run keeps its plan."""
        seen = None if self.speed is None else pi_speed.observed_speed(data, self.speed, costs_for(self.game.name))
        if seen is None:
            return
        data["speed_seen"] = seen
        key = pi_speed.speed_key(self.game.name, self.config.game_options, self.workers)
        entry = {**seen, "measured": time.strftime("%Y-%m-%d %H:%M"), "from": f"the data of {self.out}"}
        pi_speed.keep_speed(Path(self.config.cache), key, entry)
        if not self.config.quiet:
            kept = Path(self.config.cache) / pi_speed.SPEED_FILE
            print(f"\npi: this step's chunks took {seen['chunk'] * seen['data']:.2g} times the reference's time, "
                  f"planned {self.speed['chunk'] * self.speed['data']:.2g}; the next runs plan for that "
                  f"(kept in {kept})",
                  file=sys.stderr)  # fmt: skip

    def _save(self) -> None:
        self.state["elapsed_s"] = round(self.elapsed(), 1)
        state = {**self.state, "current": self.rel(self.state["current"])}
        atomic_write(self.out / "state.json", json.dumps(state, indent=1))

    def elapsed(self) -> float:
        if not hasattr(self, "t0"):
            return self.state.get("elapsed_s", 0.0)
        return self.elapsed0 + time.monotonic() - self.t0

    def _step_cost(self, p: dict, kind: str) -> float:
        data = p[f"chunks_{kind}"] * getattr(self.costs, f"chunk_{kind}")
        fit = p[f"chunks_{kind}"] * getattr(self.costs, f"decisions_{kind}") * self.costs.fit_decision
        return (data + fit * p[f"epochs_{kind}"] + 2 * p["gate_games"] * self.costs.gate_game) / self.workers

    def _planned(self) -> float:
        return sum(self._step_cost(p, "network" if k or self.config.init else "heuristic")
                   for k, p in enumerate(self.steps))  # fmt: skip

    def _planned_done(self) -> float:
        done = [r for r in self.state["steps"] if "gate" in r]
        kinds = ["heuristic" if r["policy"] == "heuristic" else "network" for r in done]
        return sum(self._step_cost(self.steps[r["step"]], kd) for r, kd in zip(done, kinds, strict=True))


def check_out(out: Path, resume: bool) -> None:
    """A new run needs a new (or empty) directory; a resumed one, the run in it."""
    from kortmiljo.train.checkpoints import check_writable

    check_writable(out, "--out")
    if resume and not (out / "args.json").is_file():
        raise TrainError(f"--resume: {out} holds no run to continue")
    if not resume and out.exists() and any(out.iterdir()):
        raise TrainError(f"--out {out} already holds files; continue its run with --resume, or choose a new directory")


def resumed_config(out: Path, c: TrainConfig) -> TrainConfig:
    """The saved run's config, with this session's progress and output options; a budget given now
    must be the saved one (the steps were planned from it)."""
    try:
        saved = TrainConfig.from_dict(json.loads((out / "args.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError) as err:
        raise TrainError(f"{out / 'args.json'}: cannot read the saved run ({err})") from None
    if saved.recipe != "pi":
        raise TrainError(f"{out} holds a {saved.recipe or 'ppo'} run, not a pi run")
    new = c.resumed(saved)
    if (new.minutes, new.hours) != (saved.minutes, saved.hours):
        raise TrainError("a pi run resumes with the budget it was planned with; leave out --minutes and --hours")
    return dataclasses.replace(new, workers=saved.workers)


def _read_state(out: Path) -> dict:
    path = out / "state.json"
    if not path.exists():
        return {}
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise TrainError(f"{path}: not a pi run's state ({err})") from None
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise TrainError(f"{path}: not a pi run's state (format {STATE_FORMAT})")
    state["current"] = state["current"] if state["current"] == "heuristic" else str(out / state["current"])
    return state


def _load_game(c: TrainConfig):
    from kortmiljo.agents.catalog import newest_heuristic

    from kortmiljo.core.registry import load_game

    try:
        game = load_game(c.game, **c.game_options)
    except ValueError as err:
        raise TrainError(str(err)) from None
    if newest_heuristic(game.name) is None:
        raise TrainError(f"{game.name} has no scripted heuristic, which the pi recipe plays, rolls out, advises "
                         "and gates against; train it with --recipe ppo")  # fmt: skip
    return game


def budget_seconds(c: TrainConfig) -> float:
    if c.hours is not None:
        return c.hours * 3600
    if c.minutes is not None:
        return c.minutes * 60
    raise TrainError("--recipe pi needs a budget: --minutes M or --hours H")


def run(config: TrainConfig, settings: Settings | None = None, costs: Costs | None = None) -> dict:
    """Run (or resume) a ``pi`` run; its report."""
    return PiRun(config, settings, costs).run()
