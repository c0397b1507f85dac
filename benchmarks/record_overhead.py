"""What recording costs: env() with and without ``RecordEpisode``, a tournament with and without ``--record``.

(a) For each built-in game in its default configuration: random legal play through the AEC loop
    of ``<game>_v0.env()`` (``last()``, mask, ``step``), bare, wrapped in
    :class:`kortmiljo.records.RecordEpisode` (which notes each move; the record is built when asked
    for), and wrapped with every record built (``on_end``: the ``all built`` column). They are
    timed alternately, ``--repeats`` times ``--seconds`` each, in one run; the table gives the
    median agent-steps/s of each (wall clock and CPU time) and their ratio.
(b) A duplicate-deal tournament (:func:`kortmiljo.agents.tournament.run_tournament`), by default Sprøyte
    heuristic vs heuristic vs random over ``--games`` games, without and with ``record=DIR`` (every
    game saved as a record file, the agents asked to explain their moves), alternately
    ``--repeats`` times; the median seconds of each and the ratio.

Usage: ``python benchmarks/record_overhead.py [--seconds 2] [--repeats 5] [--games 60]
[--tournament-repeats 3] [--tournament-game sproyte] [--agents heuristic heuristic random]
[--only spokelse] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import import_module

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from throughput import bench_aec  # noqa: E402  (this folder: the AEC loop of every throughput row)

from kortmiljo import game_def  # noqa: E402
from kortmiljo.core.files import atomic_write  # noqa: E402
from kortmiljo.records import RecordEpisode  # noqa: E402

GAMES = ("spokelse", "sproyte", "femkortskille")  # the built-in games, default configurations


def env_of(game: str) -> Callable:
    return import_module(f"kortmiljo.{game_def(game).env_name}").env


def bench_env(game: str, seconds: float, repeats: int) -> dict:
    """env() bare and with RecordEpisode, timed alternately; medians of each."""
    make = env_of(game)
    runs = {
        "env()": bench_aec(make),
        "RecordEpisode(env())": bench_aec(lambda: RecordEpisode(make())),  # records built when asked for
        "built": bench_aec(lambda: RecordEpisode(make(), on_end=lambda record: None)),  # every record built
    }
    samples: dict[str, dict[str, list[float]]] = {k: {"sps": [], "cpu": [], "eps": []} for k in runs}
    for run in runs.values():
        run(min(0.3, seconds))  # warm-up
    for _ in range(repeats):
        for name, run in runs.items():
            t0, c0 = time.perf_counter(), time.process_time()
            steps, episodes = run(seconds)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            samples[name]["sps"].append(steps / dt)
            samples[name]["cpu"].append(steps / max(dc, 1e-9))
            samples[name]["eps"].append(episodes / dt)
    out = {
        name: {
            "steps_per_s": statistics.median(s["sps"]),
            "cpu_steps_per_s": statistics.median(s["cpu"]),
            "episodes_per_s": statistics.median(s["eps"]),
        }
        for name, s in samples.items()
    }
    plain, rec = out["env()"], out["RecordEpisode(env())"]
    out["ratio"] = rec["steps_per_s"] / plain["steps_per_s"]
    out["cpu_ratio"] = rec["cpu_steps_per_s"] / plain["cpu_steps_per_s"]
    out["built_ratio"] = out["built"]["steps_per_s"] / plain["steps_per_s"]
    return out


def bench_tournament(game: str, agents: list[str], games: int, repeats: int, seed: int = 0) -> dict:
    """``run_tournament`` without and with ``record=DIR``, alternately; median seconds of each."""
    from kortmiljo.agents.tournament import run_tournament

    walls: dict[str, list[float]] = {"plain": [], "record": []}
    cpus: dict[str, list[float]] = {"plain": [], "record": []}
    files = 0
    root = tempfile.mkdtemp(prefix="record-overhead-")
    try:
        for r in range(repeats):
            for kind in ("plain", "record"):
                kwargs = {"record": os.path.join(root, f"run{r}")} if kind == "record" else {}
                t0, c0 = time.perf_counter(), time.process_time()
                run_tournament(game, agents, games, seed=seed, progress=False, **kwargs)
                walls[kind].append(time.perf_counter() - t0)
                cpus[kind].append(time.process_time() - c0)
                if kind == "record":
                    files = len(os.listdir(kwargs["record"]))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    plain, rec = statistics.median(walls["plain"]), statistics.median(walls["record"])
    cplain, crec = statistics.median(cpus["plain"]), statistics.median(cpus["record"])
    return {
        "game": game,
        "agents": agents,
        "games": games,
        "record_files": files,
        "plain_s": plain,
        "record_s": rec,
        "ratio": rec / plain,
        "plain_cpu_s": cplain,
        "record_cpu_s": crec,
        "cpu_ratio": crec / cplain,
        "per_game_ms": 1000 * (rec - plain) / max(files, 1),
        "runs": {"wall_s": walls, "cpu_s": cpus},
    }


def write_json_atomic(path: str, data: dict) -> None:
    atomic_write(path, json.dumps(data, indent=2))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="length of one timed env run")
    ap.add_argument("--repeats", type=int, default=5, help="env runs per variant; the median is reported")
    ap.add_argument("--only", default="", help="substring filter on the games of (a)")
    ap.add_argument("--games", type=int, default=60, help="tournament games (about; whole duplicate deals)")
    ap.add_argument("--tournament-repeats", type=int, default=3, help="tournaments per variant")
    ap.add_argument("--tournament-game", default="sproyte")
    ap.add_argument("--agents", nargs="+", default=["heuristic", "heuristic", "random"])
    ap.add_argument("--no-tournament", action="store_true", help="skip (b)")
    ap.add_argument("--json", default="", help="also write the results here (JSON)")
    args = ap.parse_args(argv)

    results: dict = {"env": {}, "tournament": None}
    print("(a) random legal play through the AEC loop, agent-steps/s (median of alternating runs)")
    head = f"{'game':16} {'env()':>12} {'+ RecordEpisode':>16} {'ratio':>7} {'all built':>10}"
    print(f"{head}   {'CPU: env()':>11} {'+ Record':>10} {'ratio':>7}")
    for game in GAMES:
        if args.only and args.only.lower() not in game:
            continue
        r = bench_env(game, args.seconds, args.repeats)
        results["env"][game] = r
        p, q = r["env()"], r["RecordEpisode(env())"]
        print(
            f"{game:16} {p['steps_per_s']:12,.0f} {q['steps_per_s']:16,.0f} {r['ratio']:7.3f} "
            f"{r['built_ratio']:10.3f}   "
            f"{p['cpu_steps_per_s']:11,.0f} {q['cpu_steps_per_s']:10,.0f} {r['cpu_ratio']:7.3f}",
            flush=True,
        )
    if not args.no_tournament:
        t = bench_tournament(args.tournament_game, args.agents, args.games, args.tournament_repeats)
        results["tournament"] = t
        print(
            f"\n(b) tournament {t['game']} {' vs '.join(t['agents'])}, {t['games']} games "
            f"({t['record_files']} record files), median of {args.tournament_repeats} alternating runs"
        )
        print(f"{'':16} {'plain':>10} {'--record':>10} {'ratio':>7}")
        print(f"{'wall s':16} {t['plain_s']:10.2f} {t['record_s']:10.2f} {t['ratio']:7.3f}")
        print(f"{'CPU s':16} {t['plain_cpu_s']:10.2f} {t['record_cpu_s']:10.2f} {t['cpu_ratio']:7.3f}")
        print(f"recording adds {t['per_game_ms']:.1f} ms per game (wall clock)")
    results["meta"] = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "seconds": args.seconds,
        "repeats": args.repeats,
        "tournament_repeats": args.tournament_repeats,
    }
    if args.json:
        write_json_atomic(args.json, results)
        print(f"\nwritten to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
