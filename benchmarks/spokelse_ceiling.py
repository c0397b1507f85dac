"""How much room is there above the Spøkelse heuristic? Two diagnostics.

1. **Luck.** In ``heuristic_v0`` self-play, the final sums split into the four slots (what
   play controls) and the ghost (dealt, never seen, never moved). The script reports both,
   how often the seat with the lower slot sum still loses, and the win-rate gain per point
   of lower expected sum (the density of the total difference at 0, normal approximation),
   which turns "better by x points" into "better by about y reward per game".
2. **One-step improvement with perfect belief** (``--oracle-deals N``): a search that
   knows every hidden card except the order of the stock (which nobody knows) scores
   each legal action by heuristic rollouts on ``--worlds`` reshuffles of the stock and
   plays the best one. It cheats on purpose: it bounds what any search or distillation
   over heuristic rollouts (``search_v0``, a student of it) can gain, because those
   can only estimate the same action values from worse beliefs.

Usage: ``python benchmarks/spokelse_ceiling.py [--games 4000] [--oracle-deals 100 --worlds 64]``
(the oracle part costs about a second per game on one core).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from agents.search import SearchPolicy  # noqa: E402
from agents.spokelse_heuristic import SpokelseHeuristic  # noqa: E402
from agents.tournament import atomic_write, run_tournament  # noqa: E402
from kortmiljo.registry import engine_class  # noqa: E402


def luck(games: int, seed: int) -> dict:
    """Slot sums, ghosts and who wins them in heuristic self-play (two players)."""
    e = engine_class("spokelse")()
    h = SpokelseHeuristic(e)
    rng = np.random.default_rng(seed)
    slots, ghosts = np.zeros((games, 2)), np.zeros((games, 2))
    for g in range(games):
        e.new_episode(rng)
        while not e.terminal:
            e.step(h.act_seat(e, e.current_player))
        slots[g] = [h.points[e.slots[s]].sum() for s in range(2)]
        ghosts[g] = [h.points[e.ghost[s]] for s in range(2)]
    total = (slots + ghosts) @ [1.0, -1.0]
    slot_diff = slots @ [1.0, -1.0]
    decided = slot_diff != 0
    upset = np.mean(total[decided] * slot_diff[decided] < 0)  # the lower slot sum ends with the higher total
    density = 1.0 / (math.sqrt(2 * math.pi) * total.std())
    return {
        "games": games,
        "slot_sum_mean": float(slots.mean()),
        "slot_sum_sd": float(slots.std()),
        "ghost_mean": float(ghosts.mean()),
        "ghost_sd": float(ghosts.std()),
        "total_difference_sd": float(total.std()),
        "lower_slot_sum_loses": float(upset),
        # P(win) moves by density * x for x points lower expected sum; reward (+1/-1) twice that
        "reward_per_point": 2 * density,
    }


def _perfect_belief(engine, seat, rng):
    """The true state with only the stock reshuffled (the search's world sampler, replaced)."""
    world = engine.clone()
    world.stock = [world.stock[j] for j in rng.permutation(len(world.stock))]
    return world


def oracle(deals: int, worlds: int, seed: int) -> dict:
    E = engine_class("spokelse")
    # diagnostic only: search_v0 itself samples worlds from what the seat has seen
    s = SearchPolicy(E(), seed=1, worlds=worlds, step_budget=None, confidence=0.0, sample_world=_perfect_belief)
    s.name = "perfect_belief_search"
    r = run_tournament("spokelse", [s, SpokelseHeuristic(E(), seed=2)], 2 * deals, seed=seed, progress=False)
    me = r["agents"]["perfect_belief_search"]
    return {"deals": deals, "worlds": worlds, "games": r["games"], "mean_reward": me["mean_reward"],
            "ci95": me["ci95"], "seconds": r["seconds"]}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=4000, help="heuristic self-play games for the luck figures")
    ap.add_argument("--oracle-deals", type=int, default=0, help="duplicate deals for the perfect-belief search")
    ap.add_argument("--worlds", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default="results/spokelse_ceiling.json")
    args = ap.parse_args(argv)
    t = time.perf_counter()
    out = {"luck": luck(args.games, args.seed)}
    L = out["luck"]
    print(
        f"heuristic self-play, {L['games']} games: slots {L['slot_sum_mean']:.2f} ± {L['slot_sum_sd']:.2f} points "
        f"(sd), ghost {L['ghost_mean']:.2f} ± {L['ghost_sd']:.2f}; the lower slot sum loses "
        f"{100 * L['lower_slot_sum_loses']:.0f} % of the games it does not tie; one point lower expected sum "
        f"is worth about {L['reward_per_point']:+.3f} reward per game"
    )
    if args.oracle_deals:
        out["perfect_belief_search"] = O = oracle(args.oracle_deals, args.worlds, args.seed)
        print(
            f"perfect-belief one-step search ({O['worlds']} stock shuffles per decision) vs heuristic: "
            f"{O['mean_reward']:+.3f} [{O['ci95'][0]:+.3f}, {O['ci95'][1]:+.3f}] over {O['games']} games"
        )
    out["seconds"] = round(time.perf_counter() - t, 1)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    atomic_write(args.json, json.dumps(out, indent=1))
    print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
