"""Where an agent's margin over the heuristic comes from, measured move by move in the real deal.

An agent sits in one seat (rotating) against the heuristic in the others. Wherever it leaves the
heuristic's move at a stage search would search, both moves are played out once from the live
engine (the hidden cards as they are) by the heuristic in every seat, with the same random stream,
and the difference is that departure's **one-step gain**. It prints departures per game, the mean
gain of a departure and their sum per game with its standard error.

The sum is the margin that the agent's departures would earn were every later move the
heuristic's, and it tracks the game margin where departures are sparse: ``search_v0`` in Sprøyte
departs 2.6 times a game for +0.105 each, +0.273 ± 0.096 a game over 150 games (``--agent search
--games 150``, 9 minutes of a shared core), against its +0.36 ± 0.12 on duplicate deals. A
student that departs as often as search but gains little on each has learnt *where* search
departs, not *what* it sees there. No agent sees the hidden cards; only this measurement does.

``--baseline AGENT`` puts another agent where the heuristic is (the other seats, the move departed
from, the rollouts): ``--agent pretrained_v3 --baseline pretrained_v2`` is the one-step gain of
v3 over v2, the figure that policy iteration's next step (``kortmiljo.train.oracle_data --policy``) aims at.

``python benchmarks/oracle_gain.py sproyte --agent pretrained [--baseline heuristic] [--games 600] [--seed 0]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kortmiljo.agents.registry import make_agent  # noqa: E402
from kortmiljo.agents.search import SearchPolicy  # noqa: E402
from kortmiljo.train.oracle_data import rollout, seat_player  # noqa: E402

from kortmiljo import load_game  # noqa: E402


def oracle_gain(game, agent, games: int, seed: int = 0, baseline: str = "heuristic") -> dict:
    """Departures from ``baseline`` and their one-step gains (see the module docstring)."""
    base = make_agent(baseline, game, seed=seed)
    play = seat_player(base)
    stages = SearchPolicy(game, seed=0)
    needs_engine = getattr(agent, "needs_engine", False)
    rng = np.random.default_rng(seed)
    agent.seed(int(rng.integers(2**63)))
    e = game.new_state()
    gains, decisions = [], 0
    for gi in range(games):
        e.new_episode(rng)
        seat = gi % game.num_players
        while not (e.terminal or e.truncated):
            p = e.current_player
            if p != seat:
                e.step(int(play(e, p)))
                continue
            obs = e.observation(p)
            a = int(agent.act(obs, e) if needs_engine else agent.act(obs))
            h = int(play(e, p))
            legal = [int(x) for x in np.flatnonzero(obs["action_mask"])]
            decisions += len(legal) > 1
            if a != h and stages.stage_settings(legal)[1]["search"]:
                stream = int(rng.integers(2**63))
                gains.append(rollout(e, p, a, play, stream) - rollout(e, p, h, play, stream))
            e.step(a)
    g = np.asarray(gains, dtype=np.float64)
    se = float(g.std(ddof=1) * np.sqrt(len(g)) / games) if len(g) > 1 else 0.0
    return {
        "games": games,
        "decisions": decisions,
        "departures_per_game": round(len(g) / games, 3),
        "gain_per_departure": round(float(g.mean()), 4) if len(g) else 0.0,
        "gain_per_game": round(float(g.sum() / games), 4),
        "se_per_game": round(se, 4),
    }


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("game")
    p.add_argument("--agent", default="pretrained", help="an agent spec, as in --agents")
    p.add_argument("--baseline", default="heuristic", help="the agent departed from, in the other seats and rollouts")
    p.add_argument("--games", type=int, default=600)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    if a.games < 1:
        p.error(f"--games must be >= 1, got {a.games}")
    game = load_game(a.game)
    out = {
        "game": a.game,
        "agent": a.agent,
        "baseline": a.baseline,
        **oracle_gain(game, make_agent(a.agent, game, seed=a.seed), a.games, a.seed, a.baseline),
    }
    print(
        f"{a.game} {a.agent} over {a.baseline}: {out['departures_per_game']} departures a game, "
        f"{out['gain_per_departure']:+.3f} each; "
        f"one-step gain {out['gain_per_game']:+.3f} ± {out['se_per_game']:.3f} a game ({a.games} games)"
    )
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
