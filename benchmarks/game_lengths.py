"""Game lengths of random and heuristic play: the measurements behind the safety caps.

Spøkelse's ``max_steps`` (agent steps per round) and Sprøyte's ``max_deals`` (deals per match)
end episodes that the rules let run for ever (two seats that always take the discard pile; a
match of deals that give nobody a point). Their defaults must sit far beyond every game that
ends by the rules, so this script measures how long games are: for each configuration and each
agent kind (``random``, ``heuristic``; every seat plays the same kind) it plays ``--episodes``
episodes with the caps disabled and prints the percentiles p50 / p99 / p99.9 / max of

* Spøkelse: agent steps per round (what ``max_steps`` counts), steps and rounds per episode;
* Sprøyte: deals per match (what ``max_deals`` counts) and per ``match_to + 1``, steps per deal
  and per episode;

and the cap each configuration suggests: 20 × the p99.9 (the larger of the two agent kinds),
rounded up to a round number (1, 2 or 5 × 10^k). The deals of a match grow with ``match_to``, so
Sprøyte's default is a factor × ``(match_to + 1)`` (the + 1 covers the short matches, whose few
deals vary most): the largest 20 × p99.9 / (match_to + 1), rounded up. The games run on the
batched engines, which equal the scalar ones step for step (``tests/differential``), with
``act_batch`` for the seats on move.

Usage: ``python benchmarks/game_lengths.py [--episodes 2000] [--lanes 256] [--only spokelse]
[--seed 0]``
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # agents/ lives beside the package

from kortmiljo.agents.registry import make_agent  # noqa: E402

from kortmiljo import load_game  # noqa: E402

AGENTS = ("random", "heuristic")
SAFETY = 20  # the suggested cap: this many times the p99.9
QUANTILES = (50, 99, 99.9)

# (label, game, configuration): the main configurations, the caps disabled
CONFIGS: list[tuple[str, str, dict]] = [
    *[(f"Spøkelse {n}p", "spokelse", {"num_players": n, "max_steps": None}) for n in (2, 3, 4, 5)],
    *[
        (f"Spøkelse {n}p match_to=21", "spokelse", {"num_players": n, "match_to": 21, "max_steps": None})
        for n in (2, 5)
    ],
    *[
        (f"Sprøyte {v} match_to={m}", "sproyte", {"variant": v, "match_to": m, "max_deals": None})
        for v in ("vanlig", "variasjon", "tretten")
        for m in (1, 10, 50)
    ],
]


def round_up(x: float) -> int:
    """The smallest of 1, 2, 5 × 10^k that is at least ``x``."""
    k = 10 ** max(0, math.floor(math.log10(max(x, 1))))
    return next(m * k for m in (1, 2, 5, 10) if m * k >= x)


def play(game: str, config: dict, agent: str, episodes: int, lanes: int, seed: int) -> dict[str, np.ndarray]:
    """Every round (deal) and episode of the first ``episodes / lanes`` episodes of each lane. Each lane
    stops at its quota: stopping at a total count would leave the longest episodes unfinished."""
    g = load_game(game, **config)
    be = g.new_batched(lanes, seed=seed)
    policy = make_agent(agent, g, seed=seed + 1)
    # per lane, changes at every new deal: Spøkelse counts rounds from 1, Sprøyte deals from 0
    deal_no, first = (be.round_no, 1) if game == "spokelse" else (be.deal_no, 0)
    quota = math.ceil(episodes / lanes)
    finished = np.zeros(lanes, dtype=np.int64)
    round_steps = np.zeros(lanes, dtype=np.int64)
    ep_steps = np.zeros(lanes, dtype=np.int64)
    rounds: list[np.ndarray] = []
    ends: list[tuple[np.ndarray, np.ndarray]] = []  # (steps, deals) of finished episodes
    actions = np.zeros(lanes, dtype=np.int64)
    while (active := finished < quota).any():
        L = np.flatnonzero(active)
        before = deal_no.copy()
        obs = {"observation": be.observe(None, L), "action_mask": be.legal_mask()[L], "unseen": be.unseen(None, L)}
        actions[L] = policy.act_batch(obs)
        be.step(actions, active)
        if be.truncated.any():
            raise RuntimeError(f"{game} {config}: an episode was truncated (lengths are measured uncapped)")
        round_steps[L] += 1
        ep_steps[L] += 1
        new_deal = be.terminal | (deal_no != before)
        if new_deal.any():
            rounds.append(round_steps[new_deal])
            round_steps[new_deal] = 0
        t = be.terminal
        if t.any():
            ends.append((ep_steps[t], before[t] + 1 - first))
            ep_steps[t] = 0
            finished[t] += 1
    steps, deals = (np.concatenate(x) for x in zip(*ends, strict=True))
    return {"round_steps": np.concatenate(rounds), "episode_steps": steps, "deals": deals}


def stats(x: np.ndarray) -> str:
    q = np.percentile(x, QUANTILES)
    return " ".join(f"{v:>8.1f}" for v in q) + f" {x.max():>8.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=2000, help="episodes per configuration and agent kind")
    ap.add_argument("--lanes", type=int, default=256, help="lanes of the batched engine")
    ap.add_argument("--only", default="", help="substring filter on the configurations' labels")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    header = f"{'configuration':<32} {'agent':<10} {'measure':<18} {'p50':>8} {'p99':>8} {'p99.9':>8} {'max':>8}"
    print(header)
    print("-" * len(header))
    caps: dict[str, list[tuple[str, int]]] = {"max_steps": [], "max_deals": []}
    factors: list[tuple[str, float]] = []  # Sprøyte: 20 × p99.9 deals / (match_to + 1)
    for label, game, config in CONFIGS:
        if args.only and args.only.lower() not in label.lower():
            continue
        t0 = time.perf_counter()
        p999: dict[str, list[float]] = {}
        for agent in AGENTS:
            res = play(game, config, agent, args.episodes, args.lanes, args.seed)
            rows = [("steps/round" if game == "spokelse" else "steps/deal", res["round_steps"])]
            if config.get("match_to") is not None:
                rows.append(("steps/episode", res["episode_steps"]))
                rows.append(("rounds/match" if game == "spokelse" else "deals/match", res["deals"]))
            if game == "sproyte":
                rows.append(("deals/(match_to+1)", res["deals"] / (config["match_to"] + 1)))
            for name, x in rows:
                print(f"{label:<32} {agent:<10} {name:<18} {stats(x)}")
                p999.setdefault(name, []).append(float(np.percentile(x, 99.9)))
        if game == "spokelse":
            caps["max_steps"].append((label, round_up(SAFETY * max(p999["steps/round"]))))
        else:
            caps["max_deals"].append((label, round_up(SAFETY * max(p999["deals/match"]))))
            factors.append((label, SAFETY * max(p999["deals/(match_to+1)"])))
        print(f"{'':<32} ({time.perf_counter() - t0:.0f} s)")
    print(f"\nsuggested caps ({SAFETY} × p99.9, rounded up to 1, 2 or 5 × 10^k):")
    for cap, items in caps.items():
        for label, value in items:
            print(f"  {cap:<10} {value:>8}  {label}")
    if caps["max_steps"]:
        print(f"  max_steps default: {max(v for _, v in caps['max_steps'])} (the largest)")
    for label, value in factors:
        print(f"  max_deals / (match_to + 1) {value:>6.1f}  {label}")
    if factors:
        top = max(v for _, v in factors)
        print(f"  max_deals default: {round_up(top)} × (match_to + 1) (the largest factor, {top:.1f}, rounded up)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
