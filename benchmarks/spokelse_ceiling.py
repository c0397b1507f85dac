"""How much room is there above the Spøkelse heuristic? Four diagnostics.

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

3. **The best rule change found** (``--rule-deals N``): the heuristic with late takes
   (``late_take=(5, 0.5)``, see :mod:`kortmiljo.agents.spokelse_heuristic`) against ``heuristic_v0`` on N
   duplicate deals, every game of them at once in numpy (the heuristics' batched decisions).
   Deterministic players agree on most deals, so even a tiny margin gets a tight interval.
4. **Full-information endgame** (``--endgame-deals N``): at every decision with at most k stock
   cards left (k = 1, 2, 4, 8), try each legal action on the true state, stock order included,
   play on with v0 for both seats and keep the best (v0's own move on ties). It cheats as far as
   possible, so it bounds what any endgame reasoning (win probabilities, search) can gain.

Usage: ``python benchmarks/spokelse_ceiling.py [--games 4000] [--oracle-deals 100 --worlds 64]
[--rule-deals 100000] [--endgame-deals 4000]`` (the oracle part costs about a second per game on
one core; the batched parts about a minute per 100,000 deals).
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

from kortmiljo.agents.search import SearchPolicy  # noqa: E402
from kortmiljo.agents.spokelse_heuristic import DISCARD, DRAW, SWAP0, TAKE, Phase, SpokelseHeuristic, _Batch  # noqa: E402
from kortmiljo.agents.tournament import atomic_write, run_tournament  # noqa: E402

from kortmiljo import load_game  # noqa: E402


def luck(games: int, seed: int) -> dict:
    """Slot sums, ghosts and who wins them in heuristic self-play (two players)."""
    e = load_game("spokelse").new_state()
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
    G = load_game("spokelse")
    # diagnostic only: search_v0 itself samples worlds from what the seat has seen
    s = SearchPolicy(G, seed=1, worlds=worlds, step_budget=None, confidence=0.0, sample_world=_perfect_belief)
    s.name = "perfect_belief_search"
    r = run_tournament("spokelse", [s, SpokelseHeuristic(G, seed=2)], 2 * deals, seed=seed, progress=False)
    me = r["agents"]["perfect_belief_search"]
    return {"deals": deals, "worlds": worlds, "games": r["games"], "mean_reward": me["mean_reward"],
            "ci95": me["ci95"], "seconds": r["seconds"]}  # fmt: skip


def _play(a: SpokelseHeuristic, b: SpokelseHeuristic, states: list, a_seat: int) -> np.ndarray:
    """``a`` in seat ``a_seat`` and ``b`` in the other seat play every state's round; ``a``'s rewards."""
    st = _Batch.pack(states, 2)
    live, out = np.arange(len(states)), np.zeros(len(states))
    while live.size:
        acts = np.empty(live.size, dtype=np.int64)
        mine = st.cur[live] == a_seat
        acts[mine] = a._decide_rows(st, live[mine])
        acts[~mine] = b._decide_rows(st, live[~mine])
        live = live[~st.apply(live, acts, a.points, True, out, a_seat)]
    return out


def duel(a: SpokelseHeuristic, b: SpokelseHeuristic, deals: int, seed: int, chunk: int = 20_000) -> dict:
    """``a`` against ``b`` on duplicate two-player deals (each in both seat orders), batched."""
    G = load_game("spokelse")
    rng = np.random.default_rng(seed)
    per_deal = []
    for start in range(0, deals, chunk):
        states = []
        for _ in range(min(chunk, deals - start)):
            e = G.new_state()
            e.new_episode(np.random.default_rng(rng.integers(2**63)))
            states.append(e)
        per_deal.append((_play(a, b, states, 0) + _play(a, b, states, 1)) / 2)
    r = np.concatenate(per_deal)
    half = 1.96 * r.std(ddof=1) / math.sqrt(len(r)) if len(r) > 1 else math.inf
    m = float(r.mean())
    return {"deals": deals, "games": 2 * deals, "mean_reward": m, "ci95": [m - half, m + half],
            "deals_that_differ": int(np.count_nonzero(r))}  # fmt: skip


class EndgameOracle(SpokelseHeuristic):
    """v0, except that with at most ``stock`` cards left it plays the action whose continuation
    (v0 for both seats) on the true state, stock order included, ends best for it."""

    name = "endgame_oracle"

    def __init__(self, engine, stock: int):
        super().__init__(engine)
        self.stock = stock

    def _decide_rows(self, st: _Batch, R: np.ndarray) -> np.ndarray:
        acts = super()._decide_rows(st, R)
        C = np.flatnonzero(st.stock_len[R] <= self.stock)
        if C.size == 0:
            return acts
        RC, seat = R[C], st.cur[R[C]]
        place = st.phase[RC] == Phase.PLACE
        legal = {DRAW: ~place, TAKE: ~place & (st.pile_len[RC] > 0), DISCARD: place & st.from_stock[RC]}
        legal |= {SWAP0 + i: place for i in range(st.slots.shape[2])}
        cands = sorted(legal)
        value = np.full((C.size, len(cands)), -np.inf)
        for j, a in enumerate(cands):
            rows = np.flatnonzero(legal[a])
            if rows.size:
                value[rows, j] = self._continue(st.rows(RC[rows]), a, seat[rows])
        mine = value[np.arange(C.size), np.searchsorted(cands, acts[C])]
        better = value.max(axis=1) > mine + 1e-9
        acts[C[better]] = np.asarray(cands)[value.argmax(axis=1)][better]
        return acts

    def _continue(self, b: _Batch, first: int, seat: np.ndarray) -> np.ndarray:
        """The mover's reward after ``first`` and v0 play for both seats to the end."""
        live, out, acts = np.arange(len(seat)), np.zeros(len(seat)), np.full(len(seat), first)
        while live.size:
            live = live[~b.apply(live, acts, self.points, True, out, 0)]
            acts = SpokelseHeuristic._decide_rows(self, b, live)
        return np.where(seat == 0, out, -out)  # two players, zero-sum


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=4000, help="heuristic self-play games for the luck figures")
    ap.add_argument("--oracle-deals", type=int, default=0, help="duplicate deals for the perfect-belief search")
    ap.add_argument("--worlds", type=int, default=64)
    ap.add_argument("--rule-deals", type=int, default=0, help="duplicate deals for late takes against v0")
    ap.add_argument("--endgame-deals", type=int, default=0, help="duplicate deals for the full-information endgame")
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
    G = load_game("spokelse")
    if args.rule_deals:
        out["late_take"] = R = duel(
            SpokelseHeuristic(G, late_take=(5, 0.5)), SpokelseHeuristic(G), args.rule_deals, args.seed
        )
        print(
            f"late takes (5 stock cards, 0.5 points) vs heuristic_v0: {R['mean_reward']:+.4f} "
            f"[{R['ci95'][0]:+.4f}, {R['ci95'][1]:+.4f}] over {R['games']} games "
            f"({R['deals_that_differ']} deals differ)"
        )
    if args.endgame_deals:
        out["endgame_oracle"] = {}
        for k in (1, 2, 4, 8):
            R = duel(EndgameOracle(G, k), SpokelseHeuristic(G), args.endgame_deals, args.seed)
            out["endgame_oracle"][k] = R
            print(
                f"full-information best action at <= {k} stock cards vs heuristic_v0: {R['mean_reward']:+.4f} "
                f"[{R['ci95'][0]:+.4f}, {R['ci95'][1]:+.4f}] over {R['games']} games"
            )
    out["seconds"] = round(time.perf_counter() - t, 1)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    atomic_write(args.json, json.dumps(out, indent=1))
    print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
