"""Environment throughput: random legal play, agent-steps/s and episodes/s, side by side.

Rows (each the median of ``--repeats`` runs of ``--seconds`` each):

* kortmiljo games, bare engine: ``legal_actions`` + ``observe`` + ``unseen`` + ``legal_mask``
  for the seat on move every step (what a learner needs), then ``step``;
* kortmiljo games through ``<game>_v0.env()``: the full AEC loop (``last()``, mask, ``step``);
* the same loop through ``RecordEpisode(<game>_v0.env())`` (:mod:`kortmiljo.records`: every
  episode recorded), measured in the same run as the plain ``env()`` row (see
  ``benchmarks/record_overhead.py`` for the two timed alternately);
* kortmiljo batched engines at B = 1, 64, 1024, 4096 lanes: ``legal_mask`` + ``observation`` +
  ``unseen`` of every lane's seat on move, a random legal action per lane, ``step`` (finished
  lanes auto-reset); agent-steps = lanes × steps, numpy on one core;
* PGX on the CPU as the batched anchor: ``leduc_holdem`` at B = 1024, ``jit(vmap)`` with
  auto-reset and the random legal action inside the jitted step, compile time excluded, XLA
  held to one thread (``pip install pgx 'jax[cpu]'``);
* what a user would pick instead, measured in the same run: PettingZoo ``leduc_holdem_v4``
  and ``texas_holdem_v4``, RLCard ``gin-rummy`` driven directly, OpenSpiel C++ ``skat``
  and ``bridge`` with the observation tensor fetched every step. Rows whose library is
  missing are skipped with a note (``pip install -e '.[bench]' open_spiel``).

Besides wall-clock rates, each row reports CPU-time rates (``time.process_time``, all threads):
on a machine shared with other work they are the steadier measure of one core's throughput.

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
    from kortmiljo import load_game

    e = load_game(game, **config).new_state()
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


# (game, config, label) rows of the batched engines, at each of BATCH_SIZES lanes
BATCHED_ROWS = [
    ("spokelse", {}, "Spøkelse 2p"),
    ("sproyte", {}, "Sprøyte vanlig"),
    ("sproyte", {"variant": "variasjon"}, "Sprøyte variasjon"),
    ("sproyte", {"variant": "tretten"}, "Sprøyte tretten"),
    ("femkortskille", {"num_players": 4}, "Femkortskille 4p"),
]
BATCH_SIZES = (1, 64, 1024, 4096)


def bench_batched(game: str, config: dict, lanes: int) -> Callable[[float], tuple[int, int]]:
    from kortmiljo import load_game

    be = load_game(game, **config).new_batched(lanes, seed=0)
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, int]:
        steps = episodes = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for _ in range(max(1, 1024 // lanes)):
                mask = be.legal_mask()
                be.observation()
                be.unseen()
                u = rng.random(mask.shape) * mask
                be.step(u.argmax(axis=1))
                episodes += int(be.terminal.sum())
                steps += lanes
        return steps, episodes

    return run


def bench_pgx(name: str, lanes: int) -> Callable[[float], tuple[int, int]]:
    # one XLA thread: the row measures one core, like the numpy rows
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(name)
    step = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def act_step(state, key):
        k1, k2 = jax.random.split(key)
        action = jax.random.categorical(k1, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
        state = step(state, action, jax.random.split(k2, lanes))
        return state, state.terminated.sum()

    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), lanes))
    key = jax.random.PRNGKey(1)
    state, _ = act_step(state, key)  # compile now: compile time is excluded
    jax.block_until_ready(state)
    box = {"state": state, "key": key}

    def run(seconds: float) -> tuple[int, int]:
        steps = 0
        done = []
        end = time.perf_counter() + seconds
        st, key = box["state"], box["key"]
        while time.perf_counter() < end:
            for _ in range(20):
                key, sub = jax.random.split(key)
                st, d = act_step(st, sub)
                done.append(d)
                steps += lanes
            jax.block_until_ready(st)
        box["state"], box["key"] = st, key
        return steps, int(sum(int(x) for x in done))

    return run


def bench_aec(make_env: Callable, mask_key: str = "action_mask") -> Callable[[float], tuple[int, int]]:
    env = make_env()
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, int]:
        steps = episodes = 0
        end = time.perf_counter() + seconds
        env.reset(seed=0)
        while time.perf_counter() < end:
            for _agent in env.agent_iter():
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
            from importlib import import_module

            from kortmiljo import game_def

            return bench_aec(lambda: import_module(f"kortmiljo.{game_def(g).env_name}").env(**c))

        out.append((f"{label}: env() AEC loop", "kortmiljo", make_aec))

        def make_recorded(g=game, c=config):
            from importlib import import_module

            from kortmiljo import game_def
            from kortmiljo.records import RecordEpisode

            return bench_aec(lambda: RecordEpisode(import_module(f"kortmiljo.{game_def(g).env_name}").env(**c)))

        out.append((f"{label}: env() with RecordEpisode", "kortmiljo", make_recorded))
    for game, config, label in BATCHED_ROWS:
        for b in BATCH_SIZES:
            out.append((f"{label}: batched B={b}", "kortmiljo", lambda g=game, c=config, b=b: bench_batched(g, c, b)))
    out.append(("PGX leduc_holdem CPU B=1024 (jit+vmap)", "anchor", lambda: bench_pgx("leduc_holdem", 1024)))

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
    sps, eps, cpu = [], [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        steps, episodes = run(seconds)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        sps.append(steps / dt)
        eps.append(episodes / dt)
        cpu.append(steps / max(dc, 1e-9))
    return {
        "steps_per_s": statistics.median(sps),
        "episodes_per_s": statistics.median(eps),
        "cpu_steps_per_s": statistics.median(cpu),
        "runs": len(sps),
    }


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
    print(f"{'row':44} {'agent-steps/s':>14} {'episodes/s':>11} {'per CPU-s':>12}")
    for name, kind, make in rows():
        if args.only and args.only.lower() not in name.lower():
            continue
        try:
            run = make()
        except (ImportError, ModuleNotFoundError, AttributeError, ValueError, RuntimeError) as err:
            print(f"{name:44} {'skipped':>14}  ({type(err).__name__}: {err})")
            continue
        r = measure(run, args.seconds, args.repeats)
        results.append({"row": name, "kind": kind, **r})
        print(
            f"{name:44} {r['steps_per_s']:14,.0f} {r['episodes_per_s']:11,.1f} {r['cpu_steps_per_s']:12,.0f}",
            flush=True,
        )
    leduc = next((r["steps_per_s"] for r in results if "PettingZoo leduc" in r["row"]), None)
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
    pgx_row = next((r for r in results if r["row"].startswith("PGX")), None)
    if pgx_row:
        print("\nbatched rows vs PGX leduc on the CPU (B=1024), by CPU time:")
        for r in results:
            if "batched" in r["row"]:
                print(f"  {r['row']:44} {r['cpu_steps_per_s'] / pgx_row['cpu_steps_per_s']:5.2f}× PGX leduc")
    meta = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "seconds": args.seconds,
        "repeats": args.repeats,
    }
    write_json_atomic(args.json, {"meta": meta, "rows": results})
    print(f"\nwritten to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
