"""Oracle data's throughput (games per core-hour) and the cost of an engine copy, here and on another revision.

What it measures, each in a child process with one thread for numpy (so CPU time is one core's):

* ``kortmiljo.train.oracle_data.play_chunk`` (the heuristic's games, every searched decision scored
  by one rollout per legal action, 5 % exploration, as ``collect`` runs it) with the heuristic as
  the policy and with a network (``pretrained``) in every seat and at pi's table mix
  (``pretrained@pi-table``: one seat at a heuristic table in 80 % of the games), played in chunks of
  10 games as ``collect`` plays them, on Sprøyte and Femkortskille: games per hour of CPU time
  (``time.process_time``);
* per game, a copy of a mid-game state: ``clone()`` (the exact copy, its generator copied), the
  copy a rollout starts from (``clone(rng=LazyGenerator(seed))`` where the revision has it, else
  ``clone()`` and then a fresh ``default_rng(seed)``, what the rollouts did before) and
  ``resample(seat, rng)``, in µs per call.

``--baseline REV`` runs the same measurements on ``REV`` (checked out with ``git worktree add`` into a
temporary folder, removed afterwards) in turns with this checkout's, repeat by repeat, so that both
see the same load; the table gives the medians over ``--repeats`` and their ratio (this checkout over
the baseline: above 1 is faster for games per hour, below 1 cheaper for µs). ``REV`` must contain
faac137 (``kortmiljo.agents`` and ``kortmiljo.train`` live in ``agents/`` and ``train/``); before it the
modules were top-level ``agents`` and ``train``, which this script does not load.

    python benchmarks/oracle_speed.py                       # this checkout only
    python benchmarks/oracle_speed.py --baseline HEAD~2     # before/after from one run
    python benchmarks/oracle_speed.py --games 100 --net-games 20 --repeats 3 --json out.json

A few hundred games in all per revision and repeat: a few minutes with ``--baseline``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIRST_USABLE = "faac137"  # agents/ and train/ install as kortmiljo.agents and kortmiljo.train from here on
GAMES = ("sproyte", "femkortskille")
# (label, policy, opponents' share): the heuristic, a network in every seat, and a network at pi's table
# mix (one seat at a heuristic table in 80 % of the games, as a pi step from a network plays)
POLICIES = (
    ("heuristic", "heuristic", 0.0),
    ("pretrained", "pretrained", 0.0),
    ("pretrained@pi-table", "pretrained", 0.8),
)


# ---- the child: measurements on the revision its PYTHONPATH names --------------------------------------
def _import_revision(root: str | None) -> None:
    """Load ``kortmiljo`` from ``root`` (a worktree), with ``kortmiljo.agents``/``.train`` from its
    ``agents/`` and ``train/`` (the editable install's finder would give this checkout's)."""
    if root is None:
        return
    sys.path.insert(0, root)
    import kortmiljo

    if not Path(kortmiljo.__file__).resolve().is_relative_to(Path(root).resolve()):
        raise SystemExit(f"kortmiljo was loaded from {kortmiljo.__file__}, not from {root}")
    kortmiljo.__path__.append(root)  # kortmiljo.agents -> ROOT/agents, kortmiljo.train -> ROOT/train
    import kortmiljo.agents
    import kortmiljo.train

    for mod in (kortmiljo.agents, kortmiljo.train):
        if not Path(mod.__file__).resolve().is_relative_to(Path(root).resolve()):
            raise SystemExit(f"{mod.__name__} was loaded from {mod.__file__}, not from {root}")


def _mid_game(game, steps: int = 12):
    """A state a few moves into a seeded episode, played by the heuristic (what search and rollouts copy)."""
    import numpy as np
    from kortmiljo.agents.registry import make_agent

    e = game.new_state()
    e.new_episode(np.random.default_rng(3))
    h = make_agent("heuristic", game, seed=0)
    for _ in range(steps):
        if e.terminal or e.truncated:
            break
        e.step(int(h.act(e.observation(e.current_player))))
    return e


def _copy_costs(game, number: int) -> dict[str, float]:
    import numpy as np

    from kortmiljo.core import engine as engine_module

    e = _mid_game(game)
    lazy = getattr(engine_module, "LazyGenerator", None)
    if lazy is not None:

        def rollout_copy():
            return e.clone(rng=lazy(12345))
    else:

        def rollout_copy():
            sim = e.clone()
            sim.rng = np.random.default_rng(12345)
            return sim

    seat = e.current_player
    sampler = np.random.default_rng(0)
    calls = {"clone_us": e.clone, "rollout_copy_us": rollout_copy, "resample_us": lambda: e.resample(seat, sampler)}
    out = {}
    for key, fn in calls.items():
        fn()
        t = time.process_time()
        timeit.timeit(fn, number=number)
        out[key] = (time.process_time() - t) / number * 1e6
    return out


def _oracle_rate(game, policy_name: str, games: int, seed: int, share: float) -> dict[str, float]:
    """Oracle data's rate, played in chunks of ``CHUNK_GAMES`` games as ``collect`` plays them."""
    from kortmiljo.agents.registry import make_agent
    from kortmiljo.agents.search import SearchPolicy
    from kortmiljo.train.expert_data import CHUNK_GAMES
    from kortmiljo.train.oracle_data import play_chunk

    stages = SearchPolicy(game, seed=0)
    cpu, decisions = 0.0, 0
    for j in range(0, games, CHUNK_GAMES):
        policy = make_agent(policy_name, game, seed=seed + j)
        table = {"opponents": make_agent("heuristic", game, seed=seed + j), "opponent_share": share} if share else {}
        t = time.process_time()
        data = play_chunk(game, policy, stages, min(CHUNK_GAMES, games - j), seed + j, 0.05, **table)
        cpu += time.process_time() - t
        decisions += int(len(data["action"]))
    return {"games_per_core_hour": games / cpu * 3600, "cpu_s": cpu, "decisions": decisions}


def child(args: argparse.Namespace) -> None:
    _import_revision(args.root)
    from kortmiljo.core.registry import load_game

    out: dict[str, dict[str, float]] = {}
    for name in args.games_list:
        game = load_game(name)
        for key, v in _copy_costs(game, args.copies).items():
            out[f"{name} {key}"] = {"value": v}
        for k, (label, policy, share) in enumerate(POLICIES):
            n = args.games if policy == "heuristic" else args.net_games
            # each measurement its own deals: a heuristic's caches (Femkortskille's) make a deal played
            # again in the same process several times cheaper
            r = _oracle_rate(game, policy, n, 1_000 + args.repeat + 100_000 * k, share)
            out[f"{name} oracle {label} games/core-h"] = {"value": r["games_per_core_hour"], **r}
    json.dump(out, sys.stdout)


# ---- the parent: turns, medians, the table ---------------------------------------------------------------
def run_child(root: str | None, args: argparse.Namespace, repeat: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, __file__, "--child", "--repeat", str(repeat), "--games", str(args.games)]
    cmd += ["--net-games", str(args.net_games), "--copies", str(args.copies), "--only", ",".join(args.games_list)]
    if root is not None:
        cmd += ["--root", root]
    got = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=root or REPO)
    if got.returncode != 0:
        raise SystemExit(f"the measurement on {root or 'this checkout'} failed:\n{got.stderr[-3000:]}")
    return json.loads(got.stdout)


def git(*a: str) -> str:
    return subprocess.run(["git", *a], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--baseline", metavar="REV", help="a git revision (at or after faac137) to compare with")
    p.add_argument("--repeats", type=int, default=3, help="runs of every measurement on each revision (medians)")
    p.add_argument("--games", type=int, default=120, help="games per run with the heuristic as policy")
    p.add_argument("--net-games", type=int, default=30, help="games per run with the network as policy")
    p.add_argument("--copies", type=int, default=3000, help="calls per run of each copy micro-benchmark")
    p.add_argument("--only", default=",".join(GAMES), help="comma-separated games (default: sproyte,femkortskille)")
    p.add_argument("--json", help="write the medians (and every run) here")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--root", help=argparse.SUPPRESS)
    p.add_argument("--repeat", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.games_list = [g for g in args.only.split(",") if g]
    if args.child:
        child(args)
        return

    worktree, base_label = None, None
    if args.baseline:
        sha = git("rev-parse", "--verify", f"{args.baseline}^{{commit}}")
        first = git("rev-parse", FIRST_USABLE)
        if subprocess.run(["git", "merge-base", "--is-ancestor", first, sha], cwd=REPO).returncode != 0:
            p.error(f"--baseline {args.baseline} ({sha[:9]}) is older than {FIRST_USABLE}, where agents/ and train/ "
                    "became kortmiljo.agents and kortmiljo.train; this script loads only those")  # fmt: skip
        worktree = tempfile.mkdtemp(prefix="oracle_speed_")
        git("worktree", "add", "--detach", worktree, sha)
        base_label = f"{args.baseline} ({sha[:9]})"
    head = git("rev-parse", "--short=9", "HEAD")
    dirty = " + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    runs: dict[str, list[dict]] = {"this": [], "baseline": []}
    try:
        t0 = time.time()
        for r in range(args.repeats):
            order = [("this", None), ("baseline", worktree)] if worktree else [("this", None)]
            if r % 2:
                order.reverse()  # neither revision always runs first
            for label, root in order:
                runs[label].append(run_child(root, args, r))
            print(f"repeat {r + 1}/{args.repeats} done ({time.time() - t0:.0f} s)", file=sys.stderr)
    finally:
        if worktree:
            subprocess.run(["git", "worktree", "remove", "--force", worktree], cwd=REPO, capture_output=True)

    def med(label: str, key: str) -> float:
        return statistics.median(run[key]["value"] for run in runs[label])

    keys = list(runs["this"][0])
    table = {k: {"this": med("this", k)} for k in keys}
    print(f"\nthis checkout: {head}{dirty}" + (f"; baseline: {base_label}" if base_label else ""))
    print(f"medians over {args.repeats} runs; CPU time (time.process_time), one numpy thread; "
          f"{args.games} games per run with the heuristic, {args.net_games} with the network\n")  # fmt: skip
    head_row = f"{'measurement':48} {'this':>12}"
    if worktree:
        head_row += f" {'baseline':>12} {'ratio':>7}"
    print(head_row)
    for k in keys:
        row = f"{k:48} {table[k]['this']:12,.1f}"
        if worktree:
            b = med("baseline", k)
            table[k].update(baseline=b, ratio=table[k]["this"] / b)
            row += f" {b:12,.1f} {table[k]['ratio']:7.2f}"
        print(row)
    if args.json:
        meta = {"this": head + dirty, "baseline": base_label, "repeats": args.repeats, "games": args.games,
                "net_games": args.net_games, "copies": args.copies}  # fmt: skip
        Path(args.json).write_text(json.dumps({"meta": meta, "medians": table, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
