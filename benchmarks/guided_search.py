"""Expert iteration's second stage, measured: search_v0 with a trained prior over actions.

``SearchPolicy(prior=STUDENT, prior_top=K)`` searches only the student's K most probable legal
actions and the heuristic's move, so its step budget buys more worlds per action (or, with fewer
actions, the decision costs less). This plays plain search and guided search against the
heuristic on the same duplicate deals (``kortmiljo.agents.tournament.run_tournament``, one seat, the same
seed), and optionally head to head, and prints each one's mean reward with its 95 % interval
and its CPU milliseconds per searched decision.

``--consistency N`` asks instead how learnable search's moves are: two searches with different
seeds decide the same N positions (heuristic self-play, decisions with a choice), and it prints
how often each departs from the heuristic and how often the second search repeats the first
one's departure. A departure the other seed does not repeat is noise that no student can learn.

``python benchmarks/guided_search.py sproyte [--prior pretrained] [--top 2] [--games 180] [--h2h 0] [--worlds N]``
``python benchmarks/guided_search.py sproyte --consistency 300``
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kortmiljo.agents.base import TimedPolicy as Timed  # noqa: E402
from kortmiljo.agents.registry import make_agent  # noqa: E402
from kortmiljo.agents.tournament import run_tournament  # noqa: E402

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


def consistency(game, n: int, seed: int = 0) -> dict:
    """Two differently seeded searches on the same ``n`` positions (see the module docstring)."""
    from agent_speed import positions

    heuristic = make_agent("heuristic", game, seed=seed)
    a, b = (make_agent("search", game, seed=seed + k) for k in (1, 2))
    same = departs = repeated = departs_b = 0
    for engine, obs in positions(game, n, seed=seed):
        h = int(heuristic.act(obs))
        x, y = int(a.act(obs, engine)), int(b.act(obs, engine))
        same += x == y
        departs += x != h
        departs_b += y != h
        repeated += x != h and y == x
    return {
        "positions": n,
        "searches_agree": round(same / n, 3),
        "departs_from_heuristic": round(departs / n, 3),
        "second_departs": round(departs_b / n, 3),
        "departure_repeated": round(repeated / max(departs, 1), 3),
    }


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game")
    p.add_argument("--prior", default="pretrained", help="the student (any agent spec with act_explained)")
    p.add_argument("--top", type=int, default=2, help="how many of the prior's actions are searched")
    p.add_argument("--games", type=int, default=180, help="games against the heuristic, each searcher")
    p.add_argument("--h2h", type=int, default=0, help="games of guided search against plain search")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--worlds", type=int, default=None, help="a fixed number of worlds (default: the game's settings)")
    p.add_argument("--consistency", type=int, default=0, help="only: do two seeds' searches agree, on N positions")
    a = p.parse_args(argv)
    g = load_game(a.game)
    if a.consistency:
        out = {"game": a.game, "seed": a.seed, **consistency(g, a.consistency, a.seed)}
        print(json.dumps(out))
        return out
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
