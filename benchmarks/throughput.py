"""Environment throughput: random legal play, agent-steps/s and episodes/s, side by side.

Rows (each the median of ``--repeats`` runs of ``--seconds`` each):

* kortmiljo games, bare engine: ``legal_actions`` + ``observe`` + ``unseen`` + ``legal_mask``
  for the seat on move every step (what a learner needs), then ``step``;
* kortmiljo games through ``<game>_v0.env()``: the full AEC loop (``last()``, mask, ``step``);
* what a user would pick instead, measured in the same run: PettingZoo ``leduc_holdem_v4``
  and ``texas_holdem_v4``, RLCard ``gin-rummy`` driven directly, OpenSpiel C++ ``skat``
  and ``bridge`` with the observation tensor fetched every step. Rows whose library is
  missing are skipped with a note (``pip install -e '.[bench]' open_spiel``).

Usage: ``python benchmarks/throughput.py [--seconds 2] [--repeats 5] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

# (game, config, label) rows for kortmiljo; games not yet importable are skipped
KORTMILJO_ROWS = [
    ("spokelse", {}, "Spøkelse 2p"),
    ("sproyte", {}, "Sprøyte vanlig"),
    ("sproyte", {"variant": "variasjon"}, "Sprøyte variasjon"),
    ("sproyte", {"variant": "tretten"}, "Sprøyte tretten"),
    ("femkortskille", {"num_players": 4}, "Femkortskille 4p"),
]


def bench_engine(game: str, config: dict) -> Callable[[float], tuple[int, int]]:
    from kortmiljo.registry import engine_class

    e = engine_class(game)(**config)
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, int]:
        steps = episodes = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            e.new_episode(rng)
            while not (e.terminal or e.truncated):
                seat = e.current_player
                legal = e.legal_actions()
                e.observe(seat)
                e.unseen(seat)
                e.legal_mask()
                e.step(legal[int(rng.integers(len(legal)))])
                steps += 1
            episodes += 1
        return steps, episodes

    return run


def bench_aec(make_env: Callable, mask_key: str = "action_mask") -> Callable[[float], tuple[int, int]]:
    env = make_env()
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, int]:
        steps = episodes = 0
        end = time.perf_counter() + seconds
        env.reset(seed=0)
        while time.perf_counter() < end:
            for agent in env.agent_iter():
                obs, rew, term, trunc, info = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs[mask_key])
                env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
            env.reset()
            episodes += 1
        return steps, episodes

    return run


def bench_rlcard_gin() -> Callable[[float], tuple[int, int]]:
    import rlcard

    env = rlcard.make("gin-rummy", config={"seed": 0})
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, int]:
        steps = episodes = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            state, pid = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"].keys())
                state, pid = env.step(legal[rng.integers(len(legal))])
                steps += 1
            episodes += 1
        return steps, episodes

    return run


def bench_openspiel(name: str) -> Callable[[float], tuple[int, int]]:
    import pyspiel

    # bridge's default scores every deal with a double-dummy solver; random play wants the raw game
    game = pyspiel.load_game("bridge(use_double_dummy_result=false)" if name == "bridge" else name)
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, int]:
        steps = episodes = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                    continue
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                steps += 1
            episodes += 1
        return steps, episodes

    return run


def rows() -> list[tuple[str, str, Callable[[], Callable]]]:
    out: list[tuple[str, str, Callable[[], Callable]]] = []
    for game, config, label in KORTMILJO_ROWS:
        out.append((f"{label}: engine + obs", "kortmiljo", lambda g=game, c=config: bench_engine(g, c)))

        def make_aec(g=game, c=config):
            from kortmiljo.registry import env_module

            return bench_aec(lambda: env_module(g).env(**c))

        out.append((f"{label}: env() AEC loop", "kortmiljo", make_aec))

    def pz(name):
        def make():
            from importlib import import_module

            mod = import_module(f"pettingzoo.classic.{name}")
            return bench_aec(mod.env)

        return make

    out.append(("PettingZoo leduc_holdem_v4", "anchor", pz("leduc_holdem_v4")))
    out.append(("PettingZoo texas_holdem_v4", "anchor", pz("texas_holdem_v4")))
    out.append(("RLCard gin-rummy (direct)", "anchor", bench_rlcard_gin))
    out.append(("OpenSpiel C++ skat + obs tensor", "anchor", lambda: bench_openspiel("skat")))
    out.append(("OpenSpiel C++ bridge + obs tensor", "anchor", lambda: bench_openspiel("bridge")))
    return out


def measure(run: Callable[[float], tuple[int, int]], seconds: float, repeats: int) -> dict:
    run(min(0.3, seconds))  # warm-up
    sps, eps = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        steps, episodes = run(seconds)
        dt = time.perf_counter() - t0
        sps.append(steps / dt)
        eps.append(episodes / dt)
    return {"steps_per_s": statistics.median(sps), "episodes_per_s": statistics.median(eps), "runs": len(sps)}


def write_json_atomic(path: str, data: dict) -> None:
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=2)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="length of one timed run")
    ap.add_argument("--repeats", type=int, default=5, help="runs per row; the median is reported")
    ap.add_argument("--only", default="", help="substring filter on row names")
    ap.add_argument("--json", default="results/throughput.json", help="where to write the results")
    args = ap.parse_args(argv)

    results = []
    print(f"{'row':44} {'agent-steps/s':>14} {'episodes/s':>11}")
    for name, kind, make in rows():
        if args.only and args.only.lower() not in name.lower():
            continue
        try:
            run = make()
        except (ImportError, ModuleNotFoundError, AttributeError, ValueError) as err:
            print(f"{name:44} {'skipped':>14}  ({type(err).__name__}: {err})")
            continue
        r = measure(run, args.seconds, args.repeats)
        results.append({"row": name, "kind": kind, **r})
        print(f"{name:44} {r['steps_per_s']:14,.0f} {r['episodes_per_s']:11,.1f}", flush=True)
    leduc = next((r["steps_per_s"] for r in results if "leduc" in r["row"]), None)
    skat = next((r["steps_per_s"] for r in results if "skat" in r["row"]), None)
    if leduc or skat:
        print("\nratios:")
        for r in results:
            if r["kind"] == "kortmiljo":
                parts = []
                if leduc:
                    parts.append(f"{r['steps_per_s'] / leduc:5.1f}× PettingZoo leduc")
                if skat:
                    parts.append(f"{r['steps_per_s'] / skat:5.2f}× OpenSpiel skat")
                print(f"  {r['row']:44} {'   '.join(parts)}")
    meta = {"python": sys.version.split()[0], "machine": platform.machine(), "cpus": os.cpu_count(), "seconds": args.seconds, "repeats": args.repeats}
    write_json_atomic(args.json, {"meta": meta, "rows": results})
    print(f"\nwritten to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
