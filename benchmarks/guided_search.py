"""Expert iteration's second stage, measured: search_v0 with a trained prior over actions.

``SearchPolicy(prior=STUDENT, prior_top=K)`` searches only the student's K most probable legal
actions and the heuristic's move, so its step budget buys more worlds per action (or, with fewer
actions, the decision costs less). This plays plain search and guided search against the
heuristic on the same duplicate deals (``agents.tournament.run_tournament``, one seat, the same
seed), and optionally head to head, and prints each one's mean reward with its 95 % interval
and its CPU milliseconds per searched decision.

``python benchmarks/guided_search.py sproyte [--prior pretrained] [--top 2] [--games 180] [--h2h 0] [--worlds N]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from agents.base import TimedPolicy as Timed  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from agents.tournament import run_tournament  # noqa: E402
from kortmiljo import load_game  # noqa: E402


def searchers(game, prior_spec: str, top: int, seed: int, worlds: int | None = None) -> tuple[Timed, Timed]:
    kw = {"worlds": worlds, "step_budget": None} if worlds else {}
    plain = Timed(make_agent("search", game, seed=seed, **kw), "search_v0")
    prior = make_agent(prior_spec, game, seed=seed)
    name = f"search+{prior_spec}@{top}"
    guided = Timed(make_agent("search", game, seed=seed, prior=prior, prior_top=top, **kw), name)
    return plain, guided


def vs(game, agent: Timed, other, games: int, seed: int) -> dict:
    r = run_tournament(game, [agent] + [other] * (game.num_players - 1), games, seed=seed, progress=False)
    row = r["agents"][agent.name]
    return {"mean": round(row["mean_reward"], 3), "ci95": [round(x, 3) for x in row["ci95"]], "games": r["games"],
            "ms_per_decision": round(agent.ms_per_decision(), 1)}  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game")
    p.add_argument("--prior", default="pretrained", help="the student (any agent spec with act_explained)")
    p.add_argument("--top", type=int, default=2, help="how many of the prior's actions are searched")
    p.add_argument("--games", type=int, default=180, help="games against the heuristic, each searcher")
    p.add_argument("--h2h", type=int, default=0, help="games of guided search against plain search")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--worlds", type=int, default=None, help="a fixed number of worlds (default: the game's settings)")
    a = p.parse_args(argv)
    g = load_game(a.game)
    out: dict = {"game": a.game, "prior": a.prior, "top": a.top, "seed": a.seed}
    for key, agent in zip(("search_v0", "guided"), searchers(g, a.prior, a.top, a.seed, a.worlds), strict=True):
        out[key] = vs(g, agent, "heuristic", a.games, a.seed)
        print(key, json.dumps(out[key]), flush=True)
    if a.h2h:
        plain, guided = searchers(g, a.prior, a.top, a.seed + 1, a.worlds)
        out["guided_vs_search"] = vs(g, guided, plain, a.h2h, a.seed)
        print("guided_vs_search", json.dumps(out["guided_vs_search"]), flush=True)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
