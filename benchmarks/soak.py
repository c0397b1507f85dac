"""Soak run: many random steps through ``env()`` with invariants checked, memory watched.

Checks at every step: the action mask equals the engine's legal actions, observations
stay in the observation space's shape and dtype; every ``--check-every`` steps: every
card has exactly one location and ``unseen`` agrees with the engine's reference where the
engine provides one; at each episode end, zero-sum rewards (where the game is zero-sum).
Memory (RSS and tracemalloc's traced total) is reported after a warm-up and at the end.

Usage: ``python benchmarks/soak.py [--game spokelse] [--steps 1000000] [--config key=value …]``
"""

from __future__ import annotations

import argparse
import ast
import gc
import resource
import sys
import time
import tracemalloc

import numpy as np


def parse_config(items: list[str]) -> dict:
    out = {}
    for item in items:
        key, _, value = item.partition("=")
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value
    return out


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def soak(game: str, config: dict, steps: int, check_every: int, seed: int = 0) -> dict:
    from kortmiljo.env.modules import env_module_of

    env = env_module_of(game).env(**config)
    engine = env.unwrapped.engine
    zero_sum = not config.get("payments_stay", False) and config.get("reward", "") != "raw"
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done_steps = episodes = 0
    warm_at = min(steps // 10, 50_000)
    baseline = None
    t0 = time.perf_counter()
    finals: dict[str, float] = {}
    while done_steps < steps:
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                finals[agent] = rew
                env.step(None)
                continue
            mask = obs["action_mask"]
            legal = np.flatnonzero(mask)
            assert legal.tolist() == sorted(engine.legal_actions()), "mask differs from the legal actions"
            assert obs["observation"].dtype == np.float32 and obs["unseen"].dtype == np.int8
            if done_steps % check_every == 0:
                loc = engine.locations()
                assert (loc >= 0).all(), "a card has no location"
                ref = getattr(engine, "reference_unseen", None)
                if ref is not None:
                    seat = engine.current_player
                    assert np.array_equal(engine.unseen(seat), ref(seat)), "unseen differs from the reference"
            env.step(int(legal[rng.integers(len(legal))]))
            done_steps += 1
            if done_steps == warm_at:
                gc.collect()
                tracemalloc.start()
                baseline = (rss_mib(), tracemalloc.get_traced_memory()[0])
        if zero_sum and finals and not engine.truncated:
            assert abs(sum(finals.values())) < 1e-6, f"rewards not zero-sum: {finals}"
        finals.clear()
        episodes += 1
        env.reset()
    gc.collect()
    traced_end = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
    tracemalloc.stop()
    seconds = time.perf_counter() - t0
    rss0, traced0 = baseline or (rss_mib(), 0)
    return {
        "game": game,
        "config": config,
        "steps": done_steps,
        "episodes": episodes,
        "seconds": round(seconds, 1),
        "max_rss_mib_after_warmup": round(rss0, 1),
        "max_rss_mib_end": round(rss_mib(), 1),
        "traced_bytes_growth": traced_end - traced0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="spokelse")
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--check-every", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config", nargs="*", default=[], help="options as key=value")
    args = ap.parse_args(argv)
    r = soak(args.game, parse_config(args.config), args.steps, args.check_every, args.seed)
    for k, v in r.items():
        print(f"{k:26} {v}")
    ok = r["traced_bytes_growth"] < 1_000_000
    print("memory: no growth" if ok else "memory: GROWTH — investigate")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
