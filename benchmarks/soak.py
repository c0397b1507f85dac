"""Soak run: the conformance suite's stateful fuzz for many steps per game, memory watched.

Each game is fuzzed through its PettingZoo ``env()`` by the driver of the conformance suite
(``tests/conformance/fuzz.py``, not a copy of it): legal actions interleaved with refused ones
(illegal indices, out of range, floats, bools, ``None``, strings), refused resets (bad decks,
dealers, seeds and options), good resets, reads and renders. After every refused input the whole
state must be unchanged; every ``--check-every`` accepted actions every seat's view is checked
(the mask equals the legal actions, ``unseen`` is 0/1 inside the deck, observations match the
spaces, plus ``reference_unseen`` where the engine has one); every finished episode must respect
the game's facts (zero-sum, utility bounds, decisions per seat, final infos). Good resets are made
rare here so that long episodes reach their ends. The steps of a game are split over the
configurations in its descriptor's ``examples`` (or one ``--config``). Memory: the peak RSS
before and after the last 20,000 steps (a tenth of a short run), and the bytes allocated in
that stretch that are still alive at its end (tracemalloc, which slows Python down, traces only
that stretch); more than 1 MB of growth fails the run.

Usage::

    python benchmarks/soak.py                                   # every game, 10^6 steps each
    python benchmarks/soak.py --games spokelse toy --steps 200000
    python benchmarks/soak.py --games sproyte --config variant=tretten --check-every 1

Test-only games (``tests/<pkg>`` defining ``GAME``, such as ``toy``) are registered when named.
The fuzz driver lives with the conformance suite because it is test code (it asserts); it imports
neither pytest nor hypothesis, and this script puts the repository root on ``sys.path`` to reach
it, as it does for any checkout.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kortmiljo.core.options import parse_options  # noqa: E402
from kortmiljo.core.registry import game_def, games  # noqa: E402
from tests.conformance.fuzz import Fuzzer  # noqa: E402
from tests.conformance.games import register_test_games  # noqa: E402

SOAK_WEIGHTS = {"good_reset": 0.05}  # about one reset per 2,000 operations: long episodes finish
MEMORY_WINDOW = 20_000  # the last steps of a run, traced by tracemalloc
MEMORY_GROWTH_LIMIT = 1_000_000  # bytes still allocated at the end of that window (50 bytes a step)


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class ReferenceUnseen:
    """The engines' optional from-scratch ``reference_unseen``, compared on every seat."""

    def __init__(self, every: int):
        self.every, self.seen = max(1, every), 0

    def __call__(self, fuzzer: Fuzzer) -> None:
        self.seen += 1
        e = fuzzer.raw.engine
        ref = getattr(e, "reference_unseen", None)  # a game-specific extra, where a game has one
        if ref is None or self.seen % self.every:
            return
        for seat in range(e.num_players):
            assert np.array_equal(e.unseen(seat), ref(seat)), f"unseen of seat {seat} differs from the reference"


def soak(game: str, config: dict, steps: int, check_every: int, seed: int = 0) -> dict:
    """Fuzz one configuration for ``steps`` accepted actions; the counts, speed and memory."""
    definition = game_def(game)
    f = Fuzzer(definition, config, seed, check_every, SOAK_WEIGHTS)
    reference = ReferenceUnseen(check_every)
    warm_at = steps - min(MEMORY_WINDOW, steps // 10)  # tracemalloc slows Python down: trace the last stretch
    baseline = None
    t0 = time.perf_counter()
    while f.steps < steps:
        op = f.operate()
        if op == "act":
            reference(f)
        if baseline is None and f.steps >= warm_at:
            gc.collect()
            tracemalloc.start()
            baseline = (rss_mib(), tracemalloc.get_traced_memory()[0])
    gc.collect()
    traced_end = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
    tracemalloc.stop()
    seconds = time.perf_counter() - t0
    rss0, traced0 = baseline or (rss_mib(), 0)
    return {
        "game": game,
        "config": config,
        "steps": f.steps,
        "episodes": f.episodes,
        "operations": sum(v for k, v in f.counts.items() if not k.startswith("reset: ")),
        "refused_inputs": f.counts["bad_action"] + f.counts["bad_reset"] + f.counts["dead_action"],
        "seconds": round(seconds, 1),
        "steps_per_s": round(f.steps / seconds) if seconds else 0,
        "max_rss_mib_before_window": round(rss0, 1),
        "max_rss_mib_end": round(rss_mib(), 1),
        "traced_bytes_growth": traced_end - traced0,
    }


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=None, help="games to soak (default: every registered game)")
    ap.add_argument("--steps", type=int, default=1_000_000, help="accepted actions per game (default 10^6)")
    ap.add_argument("--check-every", type=int, default=10, help="check every seat's views every N actions")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config", nargs="+", default=None, metavar="KEY=VALUE", help="one configuration (one game)")
    return ap


def plan(names: list[str], steps: int, config: dict | None) -> list[tuple[str, dict, int]]:
    """(game, configuration, steps) runs: each game's steps split over its examples."""
    runs = []
    for name in names:
        configs = [config] if config is not None else [dict(c) for c in game_def(name).examples]
        share, extra = divmod(steps, len(configs))
        runs += [(name, c, share + (i < extra)) for i, c in enumerate(configs)]
    return runs


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    names = args.games or list(games())
    if any(n not in games() for n in names):
        register_test_games()  # a test-only game named on the command line
    unknown = [n for n in names if n not in games()]
    if unknown:
        print(f"soak: unknown game(s) {', '.join(unknown)}; games: {', '.join(games())}", file=sys.stderr)
        return 2
    config = parse_options(args.config) if args.config else None
    if config is not None and len(names) != 1:
        print("soak: --config needs exactly one game (--games NAME)", file=sys.stderr)
        return 2
    grew, failed = [], []
    for k, (name, cfg, steps) in enumerate(plan(names, args.steps, config)):
        print()
        try:
            r = soak(name, cfg, steps, args.check_every, args.seed + k)
        except AssertionError as err:  # a broken invariant: report it, soak the others
            print(f"FAILED {name} {cfg} (seed {args.seed + k}): {err}")
            failed.append(f"{name} {cfg}")
            continue
        for key, value in r.items():
            print(f"{key:26} {value}")
        if r["traced_bytes_growth"] >= MEMORY_GROWTH_LIMIT:
            grew.append(f"{name} {cfg}")
    print()
    print("memory: no growth" if not grew else f"memory: GROWTH in {'; '.join(grew)} — investigate")
    if failed:
        print(f"invariants: BROKEN in {'; '.join(failed)}")
    return 0 if not (grew or failed) else 1


if __name__ == "__main__":
    sys.exit(main())
