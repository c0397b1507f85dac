"""How fast this machine plays a game's oracle chunks, against the reference machine of pi's cost model.

:mod:`kortmiljo.train.pi` plans a budget from a cost model measured on a reference 2-core machine
(:class:`~kortmiljo.train.pi.Costs`); this module gives the two ratios it scales that model by
(:func:`kortmiljo.train.pi.scaled`): a heuristic chunk's time, and the decisions a chunk records (more at
a 6-player table). They are measured once (:func:`measure_speed`) and kept in
``--cache``/``pi_speed.json`` by game, configuration and worker count, so that the same command and seed
plan the same work on the same machine; where a run's own data then ran far off them
(:func:`observed_speed`), the ratios it ran at are kept for the next runs.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import time
from pathlib import Path

from kortmiljo.train.config import TrainError

from kortmiljo.core.files import atomic_write

SPEED_FILE = "pi_speed.json"
SPEED_SECONDS = 8.0  # each worker plays chunks this long to warm its caches up, then times them this long
SPEED_BOUNDS = (0.1, 50.0)  # a ratio outside these is refused (a 6-player table's chunks alone are about 5x)
REFERENCE = {"chunk": 1.0, "decisions": 1.0}
SPEED_TOLERANCE = 1.25  # a first step's data off its planned chunk time by more than this updates the kept ratios


def speed_key(game: str, options: dict, workers: int) -> str:
    return json.dumps([game, dict(sorted(options.items())), workers], separators=(",", ":"))


def valid_speed(entry) -> dict | None:
    """``{"chunk": .., "decisions": ..}`` from a kept entry, or None."""
    if not isinstance(entry, dict):
        return None
    ratios = [entry.get(k) for k in REFERENCE]
    lo, hi = SPEED_BOUNDS
    if all(isinstance(r, (int, float)) and not isinstance(r, bool) and lo <= r <= hi for r in ratios):
        return {k: float(r) for k, r in zip(REFERENCE, ratios, strict=True)}
    return None


def known_speed(cache: Path, key: str) -> dict | None:
    """The ratios kept for ``key`` in ``cache/pi_speed.json``, or None."""
    try:
        known = json.loads((cache / SPEED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return valid_speed(known.get(key)) if isinstance(known, dict) else None


def measure_speed(game: str, options: dict, workers: int, ref, explore: float) -> dict:
    """This machine and configuration against ``ref``, the reference machine's
    :class:`~kortmiljo.train.pi.Costs`: ``workers`` processes at
    once each play chunks of the heuristic on fixed deals for :data:`SPEED_SECONDS` to warm up, then
    for as long again, timed; ``chunk`` is the ratio of the seconds of a core per chunk, ``decisions`` of the
    decisions a chunk records (nothing written but a temporary folder)."""
    seconds, decisions = _time_chunks(game, options, workers, explore)
    entry = {"chunk": float(f"{seconds / ref.chunk_heuristic:.2g}"),
             "decisions": float(f"{decisions / ref.decisions_heuristic:.2g}")}  # fmt: skip
    if valid_speed(entry) is None:
        raise TrainError(f"this machine played an oracle chunk in {seconds:.2f} s of a core ({decisions:.0f} "
                         f"decisions), {entry} times the reference's; outside {SPEED_BOUNDS}, so pi cannot "
                         "plan a budget here")  # fmt: skip
    return {**entry, "chunk_seconds": round(seconds, 4), "decisions_per_chunk": round(decisions, 1),
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
    """The ratios a heuristic data phase ran at (its chunks' seconds and decisions against the reference's),
    where its chunk time is off the ``planned`` ratio by more than ``tolerance`` either way; else None. A
    heuristic whose caches fill over minutes (Femkortskille's) runs faster than its first seconds read."""
    seen = {"chunk": float(f"{data['seconds'] / data['chunks'] / ref.chunk_heuristic:.2g}"),
            "decisions": float(f"{data['decisions'] / data['chunks'] / ref.decisions_heuristic:.2g}")}  # fmt: skip
    off = seen["chunk"] / planned["chunk"]
    return seen if valid_speed(seen) and not 1 / tolerance <= off <= tolerance else None


def _speed_job(job: tuple) -> tuple[float, int, int]:
    """One worker's timing: (seconds, chunks, decisions) of the chunks after its warm-up."""
    from kortmiljo.agents.registry import make_agent
    from kortmiljo.agents.search import SearchPolicy
    from kortmiljo.train.expert_data import CHUNK_GAMES
    from kortmiljo.train.oracle_data import play_chunk

    from kortmiljo.core.registry import load_game

    game_name, options, w, budget, explore = job
    game = load_game(game_name, **options)
    stages = SearchPolicy(game, seed=0)

    def chunk(j: int) -> int:
        policy = make_agent("heuristic", game, seed=j)
        return len(play_chunk(game, policy, stages, CHUNK_GAMES, 9_000_000 + j, explore)["action"])

    t, j = time.monotonic(), 1000 * w
    while time.monotonic() - t < budget:  # warm-up: a heuristic's caches fill in the first seconds
        chunk(j)
        j += 1
    t, chunks, decisions = time.monotonic(), 0, 0
    while time.monotonic() - t < budget:
        decisions += chunk(j + chunks)
        chunks += 1
    return time.monotonic() - t, chunks, decisions


def _time_chunks(game: str, options: dict, workers: int, explore: float) -> tuple[float, float]:
    """Seconds of one core and decisions per heuristic chunk, ``workers`` processes playing at once."""
    jobs = [(game, options, w, SPEED_SECONDS, explore) for w in range(workers)]
    if workers > 1:
        with mp.get_context("spawn").Pool(workers) as pool:
            runs = pool.map(_speed_job, jobs, chunksize=1)
    else:
        runs = [_speed_job(jobs[0])]
    chunks = sum(r[1] for r in runs)
    return sum(r[0] for r in runs) / chunks, sum(r[2] for r in runs) / chunks
