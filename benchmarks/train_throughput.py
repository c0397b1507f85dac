"""Training throughput: MaskablePPO env-steps/s on the native vector env vs ``DummyVecEnv``.

Rows, measured in one run with the training CLI's defaults (256-256 network and its training
passes, :class:`kortmiljo.train.policy.KortmiljoMaskablePolicy`; PPO ``n_epochs=4``, ``batch_size=512``,
rollouts of 2048 learner decisions) on one torch thread, opponents drawn per episode from
random and heuristic:

* ``DummyVecEnv(8)`` of scalar :class:`SingleSeatEnv` views (what ``--vec dummy`` builds);
* :class:`BatchedSingleSeatVecEnv` with ``--lanes`` lanes (``n_steps = 2048 / lanes``, the same
  samples per update).

Each row: one warm-up update, then ``--updates`` rollout+update cycles timed (learner
decisions per CPU second of this process, PPO updates included: on a machine shared with
other work, wall-clock rates swing with the neighbours' load), median of ``--repeats``; also the
collection-only rate (rollout without the update) and the seconds of PPO update per
rollout. The update is the same work in every row, so it caps the speed-up any env can
give (printed as the ceiling). Rows alternate so drifting load on a shared machine hits
them alike.

``--net 64,64`` measures at SB3's default network instead of the CLI's 256-256.
``--train-precision`` is the CLI's option, ``auto`` by default (bfloat16 hidden layers in batched
rollout steps and updates where the CPU has native bfloat16, else float32), for every row.

Usage: ``python benchmarks/train_throughput.py [--game spokelse] [--updates 3] [--repeats 3] [--net 64,64]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kortmiljo import Game, load_game  # noqa: E402


def make_venv(kind: str, game: Game, lanes: int, seed: int):
    from kortmiljo.agents.registry import make_agent
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from kortmiljo.env.training import SingleSeatEnv
    from kortmiljo.env.vector import BatchedSingleSeatVecEnv

    opponents = [make_agent(n, game, seed=seed + i) for i, n in enumerate(("random", "heuristic"))]
    if kind == "dummy":
        fns = [lambda i=i: SingleSeatEnv(game, opponents=opponents, seed=seed * 1000 + i) for i in range(lanes)]
        return VecMonitor(DummyVecEnv(fns))
    return VecMonitor(BatchedSingleSeatVecEnv(game, num_envs=lanes, opponents=opponents, seed=seed * 1000))


class _Timer:
    """Callback that splits the time of ``learn`` into collection and update, and runs the
    update on ``update_threads`` torch threads (as the training CLI does)."""

    def __init__(self, update_threads: int = 1):
        import torch
        from stable_baselines3.common.callbacks import BaseCallback

        outer = self

        class CB(BaseCallback):
            def _on_rollout_start(self) -> None:
                torch.set_num_threads(1)
                outer.t_roll = outer.clock()

            def _on_rollout_end(self) -> None:
                outer.collect_s += outer.clock() - outer.t_roll
                torch.set_num_threads(update_threads)

            def _on_step(self) -> bool:
                return True

        self.cb = CB()
        self.collect_s = 0.0
        self.t_roll = 0.0
        self.clock = time.process_time


def measure(
    kind: str,
    lanes: int,
    game: Game,
    updates: int,
    rollout: int,
    net: list[int],
    update_threads: int = 1,
    train_precision: str = "fp32",
) -> tuple[float, float, float]:
    """(decisions per CPU second, per CPU second of collection alone, per wall-clock second)."""
    import torch
    from kortmiljo.train.policy import KortmiljoMaskablePolicy
    from sb3_contrib import MaskablePPO

    venv = make_venv(kind, game, lanes, seed=1)
    n_steps = max(1, rollout // lanes)
    model = MaskablePPO(
        KortmiljoMaskablePolicy, venv, n_steps=n_steps, batch_size=512, n_epochs=4, gamma=0.995, seed=0, device="cpu",
        verbose=0, policy_kwargs={"net_arch": {"pi": net, "vf": net}},
    )  # fmt: skip
    model.policy.train_dtype = torch.bfloat16 if train_precision == "bf16" else None
    model.learn(total_timesteps=n_steps * lanes)  # warm-up: first rollout and update
    timer = _Timer(update_threads)
    steps0 = model.num_timesteps
    t0, w0 = time.process_time(), time.perf_counter()
    model.learn(total_timesteps=updates * n_steps * lanes, reset_num_timesteps=False, callback=timer.cb)
    dt, wall = time.process_time() - t0, time.perf_counter() - w0
    torch.set_num_threads(1)
    steps = model.num_timesteps - steps0
    venv.close()
    return steps / dt, steps / max(timer.collect_s, 1e-9), steps / wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="spokelse")
    ap.add_argument("--updates", type=int, default=3, help="timed PPO updates per measurement")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rollout", type=int, default=2048, help="learner decisions per PPO update")
    ap.add_argument("--lanes", default="64,256,1024", help="lane counts of the native rows")
    ap.add_argument(
        "--net",
        default="256,256",
        help="hidden layers of the policy and value networks (256,256: the training CLI's default; 64,64: SB3's)",
    )
    ap.add_argument(
        "--update-threads",
        type=int,
        default=1,
        help="torch threads in the PPO update (the CLI's default uses up to 4 cores); with more than one, "
        "compare the wall-clock column (CPU seconds count every thread)",
    )
    from kortmiljo.train.cli import add_option
    from kortmiljo.train.policy import resolve_train_precision

    add_option(ap, "train_precision")  # the CLI's option, for every row
    ap.add_argument("--json", default="results/train_throughput.json")
    args = ap.parse_args(argv)
    game = load_game(args.game)
    net = [int(x) for x in args.net.split(",") if x]
    args.train_precision = resolve_train_precision(args.train_precision)

    import torch

    torch.set_num_threads(1)
    rows = [("DummyVecEnv(8) of SingleSeatEnv", "dummy", 8)]
    rows += [(f"native BatchedSingleSeatVecEnv({k})", "native", k) for k in map(int, args.lanes.split(","))]
    got: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _, _ in rows}
    for _ in range(args.repeats):
        for name, kind, lanes in rows:
            got[name].append(
                measure(
                    kind,
                    lanes,
                    game,
                    args.updates,
                    args.rollout,
                    net,
                    args.update_threads,
                    args.train_precision,
                )  # fmt: skip
            )
    base = statistics.median(x[0] for x in got[rows[0][0]])
    base_wall = statistics.median(x[2] for x in got[rows[0][0]])
    title = (
        f"MaskablePPO {args.net} on {args.game}, update on {args.update_threads} thread(s) in {args.train_precision}"
    )
    print(title)
    print(f"{'':44} {'env-steps/s':>12} {'collect-only':>13} {'vs dummy':>9} {'update s':>9} {'wall-clock':>11}")
    out = []
    updates = []
    for name, kind, lanes in rows:
        sps = statistics.median(x[0] for x in got[name])
        col = statistics.median(x[1] for x in got[name])
        wall = statistics.median(x[2] for x in got[name])
        upd = args.rollout / sps - args.rollout / col  # CPU seconds of PPO update per rollout
        updates.append(upd)
        print(f"{name:44} {sps:12,.0f} {col:13,.0f} {sps / base:8.2f}× {upd:9.3f} {wall:8,.0f} {wall / base_wall:.2f}×")
        out.append(
            {
                "row": name,
                "kind": kind,
                "lanes": lanes,
                "env_steps_per_s": sps,
                "collect_steps_per_s": col,
                "update_s": upd,
                "wall_env_steps_per_s": wall,
            }
        )
    # Amdahl: the PPO update (same work in every row) caps what any env speed can give
    ceiling = args.rollout / statistics.median(updates)
    print(f"\nceiling with an env that costs nothing: {ceiling:,.0f} env-steps/s = {ceiling / base:.2f}× the dummy row")
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    tmp = f"{args.json}.tmp{os.getpid()}"  # atomic: a killed run never leaves half a file
    with open(tmp, "w") as f:
        json.dump(
            {
                "game": args.game,
                "net": net,
                "update_threads": args.update_threads,
                "train_precision": args.train_precision,
                "updates": args.updates,
                "repeats": args.repeats,
                "ceiling": ceiling,
                "rows": out,
            },
            f,
            indent=2,
        )
    os.replace(tmp, args.json)
    print(f"\nwritten to {args.json}")
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
