"""Decisions per second of every reference agent, side by side on the same positions.

For each game (default configuration), positions are collected from games of the heuristic
against itself (only decisions with more than one legal action count); every agent then
decides each position, and the time per decision is the median over ``--repeats`` passes
(search: one pass over fewer positions, ``--search-positions``; it takes a tenth of a second a
decision). The table gives decisions per second and how many times faster than ``search_v0``
each agent is: the issue's target for ``pretrained_v1`` is at least 100×.

``python benchmarks/agent_speed.py [--positions 400] [--search-positions 30] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
from kortmiljo.agents.registry import make_agent  # noqa: E402

from kortmiljo import game_names, load_game  # noqa: E402

AGENTS = ("random", "heuristic", "pretrained", "search")


def positions(game, n: int, seed: int = 0) -> list:
    """(engine copy, observation) of ``n`` decisions with a choice, from heuristic self-play."""
    rng = np.random.default_rng(seed)
    h = make_agent("heuristic", game, seed=seed)
    e = game.new_state()
    e.new_episode(rng)
    out = []
    while len(out) < n:
        if e.terminal or e.truncated:
            e.new_episode(rng)
            continue
        obs = e.observation(e.current_player)
        if obs["action_mask"].sum() > 1:
            out.append((e.clone(), obs))
        e.step(int(h.act(obs)))
    return out


def seconds_per_decision(agent, pos: list) -> float:
    t = time.perf_counter()
    for e, obs in pos:
        agent.act(obs, e if agent.needs_engine else None)
    return (time.perf_counter() - t) / len(pos)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=400)
    p.add_argument("--search-positions", type=int, default=30)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--games-only", nargs="*", default=None, metavar="GAME")
    a = p.parse_args(argv)
    print(f"{'game':14} {'agent':11} {'decisions/s':>12} {'ms/decision':>12} {'× search':>10}")
    for name in game_names():
        if a.games_only is not None and name not in a.games_only:
            continue
        game = load_game(name)
        pos = positions(game, a.positions)
        per: dict[str, float] = {}
        for spec in AGENTS:
            agent = make_agent(spec, game, seed=0)
            if spec == "search":
                per[spec] = seconds_per_decision(agent, pos[: a.search_positions])
            else:
                per[spec] = statistics.median(seconds_per_decision(agent, pos) for _ in range(a.repeats))
        for spec, s in per.items():
            print(f"{name:14} {spec:11} {1 / s:12,.0f} {1000 * s:12.3f} {per['search'] / s:10,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
