"""How fast this machine plays a game's oracle chunks, against the reference machine of pi's cost model.

:mod:`kortmiljo.train.pi` plans a budget from a cost model measured on a reference 2-core machine
(:class:`~kortmiljo.train.pi.Costs`); this module gives the ratios it scales that model by
(:func:`kortmiljo.train.pi.scaled`): a heuristic chunk's time on the scalar path (the machine's speed),
the decisions a chunk records (more at a 6-player table), ``data``: how much faster the data is played
as lanes of the batched engine (:mod:`kortmiljo.train.oracle_lanes`) than on the scalar path, and the
fit's and the gate's own ratios, ``fit`` (a decision and epoch of the fit) and ``gate`` (a gate game),
each timed, since neither follows the heuristic's chunks (a 15-minute Sprøyte run planned its fit 5
times and its gate 4 times too slow from the chunk's ratio). An entry kept by an earlier version has no
``data`` and plans for 1 (the scalar path's speed), and no ``fit`` or ``gate``, for which it plans the
chunk's ratio (per decision) as before; its first data phase then runs off that plan and updates ``data``.
They are measured once (:func:`measure_speed`) and kept in
``--cache``/``pi_speed.json`` by game, configuration and worker count, so that the same command and seed
plan the same work on the same machine; where a run's own data then ran far off them
(:func:`observed_speed`), the ratios it ran at are kept for the next runs.
"""

from __future__ import annotations

import functools
import json
import multiprocessing as mp
import os
import tempfile
import time
from pathlib import Path

from kortmiljo.train.config import TrainError

from kortmiljo.core.files import atomic_write

SPEED_FILE = "pi_speed.json"
SPEED_SECONDS = 8.0  # each worker plays chunks this long to warm its caches up, then times them this long
SPEED_BOUNDS = (0.1, 50.0)  # a ratio outside these is refused (a 6-player table's chunks alone are about 5x)
REFERENCE = {"chunk": 1.0, "decisions": 1.0}
PHASES = ("fit", "gate")  # ratios of their own; an entry without them plans them from ``chunk`` (pi.scaled)
FIT_CHUNKS = 12  # of the lanes' timed chunks, kept to time a fit on
SPEED_TOLERANCE = 1.25  # a first step's data off its planned chunk time by more than this updates the kept ratios


BLAS_THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def worker_pool(workers: int):
    """``workers`` spawned processes, each with one BLAS thread: a network's numpy forward pass would
    otherwise start a BLAS thread per core in every worker, and ``workers`` processes on as many cores
    then fight over them (a 2-worker Sprøyte run on 2 cores played its network's data 3 times slower
    than planned, with each worker's BLAS thread at 40-50 % of a core). This process keeps its own."""
    saved = {k: os.environ.get(k) for k in BLAS_THREADS}
    os.environ.update(dict.fromkeys(BLAS_THREADS, "1"))
    try:
        return mp.get_context("spawn").Pool(workers)  # the workers start now, with this environment
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def speed_key(game: str, options: dict, workers: int) -> str:
    return json.dumps([game, dict(sorted(options.items())), workers], separators=(",", ":"))


def valid_speed(entry) -> dict | None:
    """``{"chunk": .., "decisions": .., "data": ..}`` from a kept entry (``data`` 1 where it has none), and
    ``fit`` and ``gate`` where it has them, or None."""
    if not isinstance(entry, dict):
        return None
    ratios = {k: entry.get(k, 1.0 if k == "data" else None) for k in (*REFERENCE, "data")}
    ratios.update({k: entry[k] for k in PHASES if k in entry})
    lo, hi = SPEED_BOUNDS
    if all(isinstance(r, (int, float)) and not isinstance(r, bool) and lo <= r <= hi for r in ratios.values()):
        return {k: float(r) for k, r in ratios.items()}
    return None


def known_speed(cache: Path, key: str) -> dict | None:
    """The ratios kept for ``key`` in ``cache/pi_speed.json``, or None."""
    try:
        known = json.loads((cache / SPEED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return valid_speed(known.get(key)) if isinstance(known, dict) else None


def measure_speed(game: str, options: dict, workers: int, ref, explore: float, margin: float = 0.1) -> dict:
    """This machine and configuration against ``ref``, the reference machine's
    :class:`~kortmiljo.train.pi.Costs`: ``workers`` processes at
    once each play chunks of the heuristic on fixed deals for :data:`SPEED_SECONDS` to warm up, then
    for as long again, timed, on the scalar path, then as many seconds on the batched lanes, then half as
    long the gate's games (the heuristic in every seat); then a fit of pi's first step (4 epochs,
    ``margin``, on ``workers`` threads) on :data:`FIT_CHUNKS` of the lanes' chunks. ``chunk`` is the
    ratio of the seconds of a core per scalar chunk, ``decisions`` of the decisions a chunk records, ``data``
    the lanes' seconds per chunk over the scalar path's, ``fit`` and ``gate`` the ratios of a decision-epoch's
    and a gate game's seconds of a core (nothing written but a temporary folder)."""
    with tempfile.TemporaryDirectory(prefix="pi_speed_") as folder:
        seconds, decisions, lanes, gate = _time_chunks(game, options, workers, explore, folder)
        fit = _time_fit(game, options, workers, folder, margin)
    entry = {"chunk": float(f"{seconds / ref.chunk_heuristic:.2g}"),
             "decisions": float(f"{decisions / ref.decisions_heuristic:.2g}"),
             "data": float(f"{lanes / seconds:.2g}"),
             "fit": float(f"{fit / ref.fit_decision:.2g}"),
             "gate": float(f"{gate / ref.gate_game:.2g}")}  # fmt: skip
    if valid_speed(entry) is None:
        raise TrainError(f"this machine played an oracle chunk in {seconds:.2f} s of a core ({decisions:.0f} "
                         f"decisions), {entry} times the reference's; outside {SPEED_BOUNDS}, so pi cannot "
                         "plan a budget here")  # fmt: skip
    return {**entry, "chunk_seconds": round(seconds, 4), "lanes_chunk_seconds": round(lanes, 4),
            "decisions_per_chunk": round(decisions, 1), "fit_decision_seconds": float(f"{fit:.3g}"),
            "gate_game_seconds": float(f"{gate:.3g}"),
            "measured": time.strftime("%Y-%m-%d %H:%M")}  # fmt: skip


def keep_speed(cache: Path, key: str, entry: dict) -> None:
    """Add ``entry`` under ``key`` to ``cache/pi_speed.json`` (atomically), for the next runs to plan alike."""
    path = cache / SPEED_FILE
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    known = {**(known if isinstance(known, dict) else {}), key: entry}
    cache.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(known, indent=1) + "\n")


def observed_speed(data: dict, planned: dict, ref, tolerance: float = SPEED_TOLERANCE) -> dict | None:
    """The ratios a heuristic data phase ran at (its decisions against the reference's, its chunks' seconds
    as ``data`` over the ``planned`` machine ratio ``chunk``), where its chunk time is off the plan by more
    than ``tolerance`` either way; else None. A heuristic whose caches fill over minutes (Femkortskille's)
    runs faster than its first seconds read, and a plan kept by a version without lanes reads 1 for ``data``."""
    ran = data["seconds"] / data["chunks"] / ref.chunk_heuristic  # the whole ratio: chunk * data
    decisions = data["decisions"] / data["chunks"] / ref.decisions_heuristic
    phases = {k: planned[k] for k in PHASES if k in planned}  # the fit and the gate: this phase says nothing of them
    seen = {"chunk": planned["chunk"], "decisions": float(f"{decisions:.2g}"),
            "data": float(f"{ran / planned['chunk']:.2g}"), **phases}  # fmt: skip
    off = seen["data"] / planned.get("data", 1.0)
    return seen if valid_speed(seen) and not 1 / tolerance <= off <= tolerance else None


def _speed_job(job: tuple) -> tuple[float, int, int, float, int, float, int]:
    """One worker's timing: (seconds, chunks, decisions) of the scalar chunks after its warm-up, then
    (seconds, chunks) of the lanes' chunks (after one to build the batched engine; its share of
    :data:`FIT_CHUNKS` of them written to ``folder``), then (seconds, games) of the gate's games."""
    from kortmiljo.agents.registry import make_agent
    from kortmiljo.agents.search import SearchPolicy
    from kortmiljo.agents.tournament import run_tournament
    from kortmiljo.train.expert_data import CHUNK_GAMES, write_chunk
    from kortmiljo.train.oracle_data import play_chunk

    from kortmiljo.core.registry import load_game

    game_name, options, w, budget, explore, folder, keep = job
    game = load_game(game_name, **options)
    stages = SearchPolicy(game, seed=0)

    def chunk(j: int, lanes: bool = False) -> int:
        return len(play(j, lanes)["action"])

    def play(j: int, lanes: bool) -> dict:
        policy = make_agent("heuristic", game, seed=j)
        return play_chunk(game, policy, stages, CHUNK_GAMES, 9_000_000 + j, explore, lanes=lanes)

    t, j = time.monotonic(), 1000 * w
    while time.monotonic() - t < budget:  # warm-up: a heuristic's caches fill in the first seconds
        chunk(j)
        j += 1
    t, chunks, decisions = time.monotonic(), 0, 0
    while time.monotonic() - t < budget:
        decisions += chunk(j + chunks)
        chunks += 1
    scalar = time.monotonic() - t
    chunk(j, lanes=True)  # its engine is built once; the lanes play the same deals (the caches are as warm)
    t, lane_chunks, kept = time.monotonic(), 0, []
    while time.monotonic() - t < budget:
        arrays = play(j + lane_chunks, True)
        if len(kept) < keep:
            kept.append(arrays)
        lane_chunks += 1
    lane_seconds = time.monotonic() - t
    for i, arrays in enumerate(kept):
        write_chunk(Path(folder) / f"chunk_{w:03d}{i:04d}.npz", arrays, {"seconds": 0.0, "games": CHUNK_GAMES})
    table = ["heuristic"] * game.num_players  # the gate's network seat costs less than a heuristic's
    t, games = time.monotonic(), 0
    while time.monotonic() - t < budget / 2:
        run_tournament(game, table, CHUNK_GAMES, seed=9_000_000 + j + games, progress=False, per_deal=True)
        games += CHUNK_GAMES
    return scalar, chunks, decisions, lane_seconds, lane_chunks, time.monotonic() - t, games


def _time_chunks(game: str, options: dict, workers: int, explore: float, folder: str) -> tuple[float, ...]:
    """Seconds of one core and decisions per scalar heuristic chunk, seconds per chunk on the lanes, and
    seconds per gate game, ``workers`` processes playing at once."""
    keep = [len(range(w, FIT_CHUNKS, workers)) for w in range(workers)]
    jobs = [(game, options, w, SPEED_SECONDS, explore, folder, keep[w]) for w in range(workers)]
    if workers > 1:
        with worker_pool(workers) as pool:
            runs = pool.map(_speed_job, jobs, chunksize=1)
    else:
        runs = [_speed_job(jobs[0])]
    chunks = sum(r[1] for r in runs)
    lanes = sum(r[3] for r in runs) / sum(r[4] for r in runs)
    gate = sum(r[5] for r in runs) / sum(r[6] for r in runs)
    return sum(r[0] for r in runs) / chunks, sum(r[2] for r in runs) / chunks, lanes, gate


def _time_fit(game_name: str, options: dict, workers: int, folder: str, margin: float) -> float:
    """Seconds of a core per decision and epoch of pi's first fit (loading with the advisor's moves, 4
    epochs of a 256-256 student on ``workers`` threads) over the chunks in ``folder``, after a fit of a
    few hundred decisions that warms torch up (the first fit of a process takes seconds more, which a
    real step's fit of millions of decisions does not feel)."""
    import numpy as np
    import torch
    from kortmiljo.agents.catalog import newest_heuristic
    from kortmiljo.train import distill
    from kortmiljo.train.expert_data import load_chunks

    from kortmiljo.core.registry import load_game

    game = load_game(game_name, **options)
    epochs, before = 4, torch.get_num_threads()
    torch.set_num_threads(workers)
    try:
        fit = functools.partial(distill.fit, hidden=[256, 256], epochs=epochs, lr=1e-3, seed=0, target="advantage",
                                margin=margin, log=lambda _: None)  # fmt: skip
        t = time.monotonic()
        data, info = load_chunks([folder], np.float16, distill.advice_columns(game, newest_heuristic(game.name)))
        loading = time.monotonic() - t
        fit({k: v[:400] for k, v in data.items()})  # the warm-up, untimed
        t = time.monotonic()
        fit(data)
        seconds = loading + time.monotonic() - t
    finally:
        torch.set_num_threads(before)
    return seconds * workers / (info["decisions"] * epochs)
