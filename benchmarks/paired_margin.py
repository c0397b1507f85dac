"""Two agents' margins over the same opponents, compared deal by deal.

Each agent sits in one seat (rotating, as in ``kortmiljo eval``) against ``--opponent`` in all the
others, on the same duplicate deals: a tournament's deals depend only on its seed. The difference
of the two agents' per-deal means is then one sample per deal, so its interval is narrower than
the two margins' intervals combined, by how much the deals' luck moves both agents alike. This is
the issue's "beats the heuristic by as much as search does, on the same deals", with its interval.

``python benchmarks/paired_margin.py femkortskille --agents pretrained_v4 search --games 4000
--seeds 20 21 --workers 2`` (one process per agent and seed; search's take the time). ``--config
KEY=VALUE ...`` plays another configuration (``--config num_players=3``), as ``kortmiljo eval`` does.

A run depends only on its game, agent, opponent, games and seed, so ``--reuse FILE`` takes the runs
of a registry agent (``search``, not a weights file, whose contents a name does not fix) from an
earlier ``--out`` of the same game, opponent and games instead of playing them again: a new
candidate's comparison with search then costs the candidate's games alone. It is for a search
unchanged since that file was written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kortmiljo.agents.registry import make_agent  # noqa: E402
from kortmiljo.agents.stats import mean_ci  # noqa: E402
from kortmiljo.agents.tournament import atomic_write, run_tournament  # noqa: E402

from kortmiljo import load_game  # noqa: E402
from kortmiljo.core.options import parse_options  # noqa: E402


def margin(game: str, agent: str, opponent: str, games: int, seed: int, config: dict | None = None) -> dict:
    """``agent`` in one seat, ``opponent`` in the others: its per-deal means and the run's seconds."""
    g = load_game(game, **(config or {}))
    n = g.num_players
    r = run_tournament(g, [agent] + [opponent] * (n - 1), games, seed=seed, progress=False, per_deal=True)
    first = next(iter(r["agents"].values()))  # the agent is listed first
    return {
        "agent": agent,
        "seed": seed,
        "games": r["games"],
        "seconds": r["seconds"],
        "deal_means": first["deal_means"],
    }


def paired(a: list, b: list) -> dict:
    """Mean of a - b with its 95 % interval over the deals both finished, how many those are, and
    the correlation of a and b there (None where it is undefined)."""
    both = np.array([(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]).reshape(-1, 2)
    m, lo, hi = mean_ci(both[:, 0] - both[:, 1])
    corr = float(np.corrcoef(both.T)[0, 1]) if len(both) > 2 and both.std(axis=0).min() > 0 else None
    return {"mean": m, "ci95": [lo, hi], "deals": len(both), "correlation": corr}


def reusable(spec: str) -> bool:
    """Whether a run of ``spec`` may be reused: a registry name, not a file or module its name does not fix."""
    return not any(c in spec for c in "/\\:") and not spec.endswith((".npz", ".zip", ".py"))


def reusable_runs(path: str, game: str, opponent: str, games: int, config: dict | None = None) -> dict:
    """The reusable runs of an earlier ``--out``, keyed by (agent, seed); ValueError if it was another test."""
    try:
        old = json.loads(Path(path).read_text(encoding="utf-8"))
        setup = {k: old[k] for k in ("game", "opponent", "games")} | {"config": old.get("config") or {}}
        runs = {(r["agent"], r["seed"]): r for r in old["runs"] if reusable(r["agent"]) and r["deal_means"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"--reuse {path}: not a paired_margin --out file with per-deal runs ({e})") from None
    want = {"game": game, "opponent": opponent, "games": games, "config": config or {}}
    if setup != want:
        raise ValueError(f"--reuse {path} was made for {setup}, not for {want}")
    return runs


def compare(
    game: str,
    agents: tuple[str, str],
    opponent: str,
    games: int,
    seeds: list[int],
    workers: int,
    reuse: dict | None = None,
    config: dict | None = None,
) -> dict:
    """Both agents' margins over ``opponent`` on the deals of ``seeds``, and their paired difference A - B.
    ``reuse`` maps (agent, seed) to a run already played (:func:`reusable_runs`)."""
    reuse = reuse or {}
    keys = [(ag, s) for ag in agents for s in seeds]
    todo = [k for k in keys if k not in reuse]
    played = {}
    if todo:
        jobs = [(game, ag, opponent, games, s, config or {}) for ag, s in todo]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            played = dict(zip(todo, pool.map(margin, *zip(*jobs, strict=True)), strict=True))
    runs = [reuse[k] if k in reuse else played[k] for k in keys]
    k = len(seeds)
    by_agent = (runs[:k], runs[k:])  # in the order of the jobs: an agent may be compared with itself
    means = [[x for r in rs for x in r["deal_means"]] for rs in by_agent]
    out = {"game": game, "config": config or {}, "agents": list(agents), "opponent": opponent, "games": games,
           "seeds": seeds, "margins": []}  # fmt: skip
    for ag, rs, ms in zip(agents, by_agent, means, strict=True):
        m, lo, hi = mean_ci([x for x in ms if x is not None])
        secs = round(sum(r["seconds"] for r in rs), 1)
        out["margins"].append({"agent": ag, "mean": m, "ci95": [lo, hi], "seconds": secs})
    per_seed = {str(s): paired(ra["deal_means"], rb["deal_means"]) for s, ra, rb in zip(seeds, *by_agent, strict=True)}
    out["difference"] = {**paired(*means), "per_seed": per_seed}
    out["runs"] = runs  # every run's per-deal means: a deterministic agent's (search's) need not be played again
    out["reused"] = [list(k) for k in keys if k in reuse]
    return out


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("game")
    p.add_argument("--agents", nargs=2, required=True, metavar=("A", "B"), help="the two agents compared, A - B")
    p.add_argument("--opponent", default="heuristic", help="the agent in every other seat (default heuristic)")
    p.add_argument("--games", type=int, default=1200, help="games per agent and seed (default 1200)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--config", nargs="+", metavar="KEY=VALUE", help="game options, as kortmiljo eval --config")
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--reuse", metavar="FILE", help="take a registry agent's runs from this earlier --out")
    a = p.parse_args(argv)
    if a.games < 1 or a.workers < 1 or min(a.seeds) < 0:
        p.error("--games and --workers must be >= 1 and every seed >= 0")
    if len(set(a.seeds)) < len(a.seeds):
        p.error(f"--seeds must differ (a seed twice plays its deals twice), got {a.seeds}")
    try:  # an unknown game or agent fails here, before any process starts
        config = parse_options(a.config)
        game = load_game(a.game, **config)
        for spec in (*a.agents, a.opponent):
            make_agent(spec, game)
        reuse = reusable_runs(a.reuse, a.game, a.opponent, a.games, config) if a.reuse else None
    except ValueError as e:
        p.error(str(e))
    out = compare(a.game, tuple(a.agents), a.opponent, a.games, a.seeds, a.workers, reuse, config)
    if out["reused"]:
        print("reused from " + a.reuse + ": " + ", ".join(f"{ag} seed {s}" for ag, s in out["reused"]))
    for r in out["margins"]:
        lo, hi = r["ci95"]
        print(f"{r['agent']:>20} vs {a.opponent}: {r['mean']:+.3f} [{lo:+.3f}, {hi:+.3f}]  ({r['seconds']:.0f} s)")
    d = out["difference"]
    corr = "" if d["correlation"] is None else f" (per-deal correlation {d['correlation']:.2f})"
    print(
        f"{a.agents[0]} - {a.agents[1]}, paired over {d['deals']} deals: {d['mean']:+.3f} "
        f"[{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}]{corr}"
    )
    for s, r in d["per_seed"].items():
        print(f"  seed {s}: {r['mean']:+.3f} [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] ({r['deals']} deals)")
    if a.out:
        atomic_write(a.out, json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
