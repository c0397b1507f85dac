"""Playing strength: the round robin random / heuristic / search / pretrained in every game.

For every available game in its default configuration, each pair of the reference agents
plays a duplicate-deal tournament (:func:`kortmiljo.agents.tournament.run_tournament`: every deal in
every seat rotation). The table gives, per pairing, each side's mean reward per game with
its 95 % confidence interval, the games played and the time; below it each agent's cost
per decision and decisions per second (wall clock and CPU time: on a shared machine the CPU
time is the steadier figure of what one core needs).

``pretrained`` (the newest shipped network of ``agents/weights``: v5 in Femkortskille, v7 in
Sprøyte) always sits in one seat with its opponent in all the others: against the heuristic on
the same deals as search against the heuristic (so the two margins compare directly), and head
to head against search (``--h2h-games``; search in every other seat makes these the slowest
games).

Results go to ``results/strength.json`` (written atomically). Sizes are per pairing:
``--games`` for random vs heuristic, ``--search-games`` for random vs search (search wins
those by far), and ``--duel-games`` for heuristic vs search, by default sized per game
(``DUEL_GAMES``) so that the margin of search over the heuristic shows beyond its 95 %
interval where it has one (Sprøyte, Femkortskille; in Spøkelse the two are at par, see
``agents/search.py``). Search costs tens of milliseconds per decision, so the defaults
take a good hour on one core; ``--games-only`` runs a subset, ``--agents`` fewer agents.

Usage: ``python benchmarks/strength.py [--games 200] [--search-games 24] [--duel-games N]
[--h2h-games N] [--seed 0] [--games-only spokelse ...] [--agents random heuristic ...]
[--out results/strength.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from itertools import combinations

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kortmiljo.agents.base import Policy  # noqa: E402
from kortmiljo.agents.registry import make_agent  # noqa: E402
from kortmiljo.agents.tournament import atomic_write, run_tournament  # noqa: E402

from kortmiljo import game_names, load_game  # noqa: E402

AGENTS = ("random", "heuristic", "search", "pretrained")
# heuristic vs search games per game: enough for the margin to clear its interval where
# search has one (measured: +0.36 ± 0.12 per game in Sprøyte over 180 games, +0.13 ± 0.07
# in Femkortskille over 4000, +0.27 ± 0.11 here at seed 0; Spøkelse is at par)
DUEL_GAMES = {"spokelse": 24, "sproyte": 180, "femkortskille": 2000}
# pretrained vs search, head to head (pretrained in one seat, search in the others)
H2H_GAMES = {"spokelse": 24, "sproyte": 120, "femkortskille": 400}
ONE_SEAT = ("search", "pretrained")  # the agent that sits in one seat, its opponent in the others


class Timed(Policy):
    """Delegates to a policy and times its decisions (those with more than one legal action)."""

    def __init__(self, inner: Policy, name: str):
        self.inner, self.name = inner, name
        self.needs_engine = inner.needs_engine
        self.decisions, self.wall, self.cpu = 0, 0.0, 0.0

    def act(self, obs, engine=None):
        if obs["action_mask"].sum() <= 1:
            return self.inner.act(obs, engine)
        w, c = time.perf_counter(), time.process_time()
        a = self.inner.act(obs, engine)
        self.wall += time.perf_counter() - w
        self.cpu += time.process_time() - c
        self.decisions += 1
        return a


def strength(
    games: list[str], n_games: int, n_search: int, seed: int, progress: bool, n_duel: int | None = None,
    n_h2h: int | None = None, agents: tuple[str, ...] = AGENTS,
) -> dict:  # fmt: skip
    out: dict = {
        "seed": seed,
        "games_per_pairing": n_games,
        "search_games_per_pairing": n_search,
        "duel_games_per_pairing": {g: n_duel or DUEL_GAMES.get(g, n_search) for g in games},
        "h2h_games_per_pairing": {g: n_h2h or H2H_GAMES.get(g, n_search) for g in games},
        "games": {},
    }
    t0 = time.perf_counter()
    for game in games:
        rows = []
        timers: dict[str, list[Timed]] = {}
        seats = load_game(game).num_players
        for a, b in combinations(agents, 2):
            lineup = [a, b]
            if b in ONE_SEAT:
                # one seat of b among a's, in every seat in turn: b's margin over a (with two agents
                # in a four-seat game each would hold two seats, and b would partly play itself)
                lineup = [a] * (seats - 1) + [b]
            if a == "random" and b in ("search", "heuristic"):
                n = n_search if b == "search" else n_games
            elif a == "search" and b == "pretrained":
                n = out["h2h_games_per_pairing"][game]
            elif a == "heuristic":
                n = out["duel_games_per_pairing"][game]  # search and pretrained on the same deals
            else:
                n = n_games
            pols = []
            for j, spec in enumerate(lineup):
                p = Timed(make_agent(spec, game, {}, seed=seed * 1009 + j), spec)
                pols.append(p)
                timers.setdefault(spec, []).append(p)
            r = run_tournament(game, pols, n, seed=seed, progress=progress)
            rows.append(
                {
                    "agents": list(r["agents"]),
                    "games": r["games"],
                    "seconds": r["seconds"],
                    "results": r["agents"],
                }
            )
            print(format_row(game, rows[-1]), flush=True)
        out["games"][game] = {"config": r["config"], "pairings": rows, "speed": {}}
        for spec, ts in timers.items():
            decisions = sum(t.decisions for t in ts)
            wall, cpu = sum(t.wall for t in ts), sum(t.cpu for t in ts)
            out["games"][game]["speed"][spec] = {
                "decisions": decisions,
                "ms_per_decision_wall": 1000 * wall / max(decisions, 1),
                "ms_per_decision_cpu": 1000 * cpu / max(decisions, 1),
                "decisions_per_second_cpu": decisions / cpu if cpu > 0 else None,
            }
    out["seconds"] = time.perf_counter() - t0
    return out


def format_row(game: str, row: dict) -> str:
    names = row["agents"]
    cells = []
    for name in names:
        r = row["results"][name]
        half = (r["ci95"][1] - r["ci95"][0]) / 2
        cells.append(f"{name} {r['mean_reward']:+.3f} ± {half:.3f} (wins {r['win_rate']:.2f})")
    pairing = " vs ".join(dict.fromkeys(n.split("#")[0] for n in names))
    return f"{game:14} {pairing:22} {row['games']:6d} games {row['seconds']:7.1f} s   " + "   ".join(cells)


def format_table(result: dict) -> str:
    lines = [f"{'game':14} {'pairing':22} {'games':>6}       {'time':>7}     mean reward per game ± 95% CI"]
    for game, g in result["games"].items():
        for row in g["pairings"]:
            lines.append(format_row(game, row))
        for spec, s in g["speed"].items():
            lines.append(
                f"{'':14} {spec}: {s['ms_per_decision_wall']:.3f} ms per decision wall, "
                f"{s['ms_per_decision_cpu']:.3f} ms CPU ({s['decisions_per_second_cpu'] or 0:,.0f} decisions/s), "
                f"over {s['decisions']} decisions"
            )
    lines.append(f"total {result['seconds']:.0f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=200, help="games per pairing without search (default 200)")
    p.add_argument("--search-games", type=int, default=24, help="games of random vs search (default 24)")
    p.add_argument(
        "--duel-games", type=int, default=None, help="games of heuristic vs search (default per game: DUEL_GAMES)"
    )
    p.add_argument(
        "--h2h-games", type=int, default=None, help="games of pretrained vs search (default per game: H2H_GAMES)"
    )
    p.add_argument("--agents", nargs="+", default=list(AGENTS), choices=AGENTS, help="the agents of the round robin")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--games-only", nargs="*", default=None, metavar="GAME", help="restrict to these games")
    p.add_argument("--out", default=os.path.join("results", "strength.json"))
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    games = [g for g in game_names() if args.games_only is None or g in args.games_only]
    agents = tuple(a for a in AGENTS if a in args.agents)
    result = strength(
        games, args.games, args.search_games, args.seed, not args.no_progress, args.duel_games, args.h2h_games, agents
    )
    print()
    print(format_table(result))
    atomic_write(args.out, json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
