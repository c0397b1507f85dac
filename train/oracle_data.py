"""Oracle teacher data: every action of a decision scored by one rollout in the *real* deal.

Search (``search_v0``) estimates each action's value by averaging heuristic rollouts over
worlds it samples from a belief: tens to hundreds of worlds per decision, about 10,000
decisions an hour of a core in Sprøyte, and its own noise is most of what a student learns
from it (``benchmarks/guided_search.py --consistency``). Here the averaging moves into the
student instead:

* the game is played by the heuristic in every seat (with ``explore``, a seat sometimes plays a
  random legal move, so the positions a student's own departures lead to are seen too);
* at every decision of a stage search would search, each legal action is applied to a clone of
  the **live** engine (the hidden cards as they really are) and played out once to the end of
  the episode by the heuristic, all actions with the same random stream (paired);
* ``q`` holds each action's score (the seat's reward from the decision on), NaN elsewhere; a
  decision of a stage search leaves to the heuristic (Sprøyte's exchange) is kept with no
  scores, so a student still learns to play the heuristic's move there. ``--all-stages`` scores
  those too, at about twice the cost per game; measured on Sprøyte's exchange (19,440 games, a
  fit from ``pretrained_v3``), the student gained nothing over the heuristic's exchange there:
  +0.248 against +0.243 with the exchange's scores dropped (docs/research/strength.md, pretrained_v4).

One such score is a noisy sample of the action's value given the observation, but an unbiased
one, drawn from the real distribution of hidden cards behind that observation (the belief search
can only approximate). A network regressing the scores' differences (``kortmiljo.train.distill --target
advantage``) therefore estimates what search with a perfect belief and unlimited worlds would
compute, from about fifty times as many decisions per core-hour as search gives. The scores
read hidden cards, so they are training targets only: the student sees the observation (and
``unseen``) alone, as any agent.

``--policy AGENT`` (default the heuristic) plays the games and the rollouts instead: with
``pretrained_v2`` the scores are *its* action values, and a student of them is one more step of
policy iteration (``pretrained_v3``). Where the configuration has a batched engine, a chunk's games
and rollouts are its lanes and each round's moves one ``act_batch`` call
(:mod:`kortmiljo.train.oracle_lanes`: Sprøyte's chunks about 3x faster with the heuristic and 6x with a
network). On the scalar path a heuristic steps engines directly (``act_seat``), and so does a network
for its heuristic advisor (:meth:`kortmiljo.agents.pretrained.MLPPolicy.act_seat`); any other agent
reads each seat's observation.

``--opponents AGENT --opponent-share P`` seats ``AGENT`` in every seat but one in a share ``P`` of
the games (the one seat, drawn per game, plays ``--policy``), and those games' rollouts keep that
table; only the one seat's decisions are recorded there. Its scores are then the action values of
``--policy`` at a table of ``AGENT``s. Why: v6 learned the values of a table of v5s, and search,
whose rollouts are the heuristic's, gains more on the heuristic than v6 does (docs/research/strength.md,
"pretrained_v6 in Sprøyte"); a student of both kinds of game is asked for both.

Chunks have :mod:`kortmiljo.train.expert_data`'s arrays and format (``action`` is the move played), so
:func:`kortmiljo.train.expert_data.load_chunks` and ``kortmiljo.train.distill`` read them. ``python -m
kortmiljo.train.oracle_data GAME --out DIR (--minutes M | --end E) [--start J --step K] [--explore 0.05]
[--policy AGENT] [--all-stages] [--opponents AGENT --opponent-share P]``; ``--end`` fixes the data to the game on any
machine, ``--minutes`` fixes the time (see :mod:`kortmiljo.train.expert_data`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from kortmiljo.agents.registry import make_agent
from kortmiljo.agents.search import SearchPolicy
from kortmiljo.train import oracle_lanes
from kortmiljo.train.expert_data import CHUNK_GAMES, add_stop_arguments, chunk_arrays, stop_of, write_chunks

from kortmiljo.core.engine import Engine, LazyGenerator
from kortmiljo.core.game import Game
from kortmiljo.core.registry import load_game
from kortmiljo.env.training import flat_observation

MAX_ROLLOUT_STEPS = 20_000  # a guard, as in search: no game gets there


def seat_player(policy):
    """``policy`` as ``f(engine, seat) -> action``: its engine-level ``act_seat`` where it has one (a
    heuristic's builds no observation), otherwise ``act`` on the seat's observation."""
    if hasattr(policy, "act_seat"):
        return policy.act_seat
    return lambda engine, seat: policy.act(engine.observation(seat))


def rollout(engine: Engine, seat: int, action: int, player, rng_seed: int) -> float:
    """``seat``'s reward from ``action`` to the end of the episode, every seat then played by ``player``:
    ``f(engine, seat) -> action``, one agent's (:func:`seat_player`) or a table's (``play_chunk``)."""
    # later deals: the same stream for every action (paired), built only if the rollout deals again;
    # the live engine's generator is not copied
    sim = engine.clone(rng=LazyGenerator(rng_seed))
    sim.step(action)
    total = float(sim.rewards[seat])
    steps = 0
    while not (sim.terminal or sim.truncated) and steps < MAX_ROLLOUT_STEPS:
        sim.step(player(sim, sim.current_player))
        total += float(sim.rewards[seat])
        steps += 1
    return total


def play_chunk(game: Game, policy, stages: SearchPolicy, games: int, seed: int, explore: float,
               opponents=None, opponent_share: float = 0.0, lanes: bool = True) -> dict:  # fmt: skip
    """``games`` games of ``policy`` in every seat (in a share ``opponent_share`` of them, ``opponents``
    in every seat but one, and only that seat recorded); the arrays of every recorded decision with an
    oracle score per action. Game ``g`` is dealt from ``default_rng((seed, g))`` and draws its table,
    streams and exploration from ``default_rng((seed, g, 1))``.

    Where the configuration has a batched engine and the agents decide from observations, the games
    and rollouts are played as its lanes (:mod:`kortmiljo.train.oracle_lanes`, the same chunk for a
    heuristic, several times faster); ``lanes=False`` plays them here, one at a time, on the scalar
    engine: the reference, and the path of the teaching configurations and of search as the policy."""
    rng = np.random.default_rng(seed)
    policy.seed(int(rng.integers(2**63)))
    if opponents is not None:
        opponents.seed(int(rng.integers(2**63)))
    if lanes and oracle_lanes.supported(game, policy, opponents):
        return oracle_lanes.play_chunk(game, policy, stages, games, seed, explore, opponents, opponent_share)
    player = seat_player(policy)
    other = None if opponents is None else seat_player(opponents)
    n, A = game.num_players, game.num_actions
    X, M, ACT, Q, S, ID, R = [], [], [], [], [], [], []
    for gi in range(games):
        e = game.new_state()
        e.new_episode(np.random.default_rng((seed, gi)))
        choice = np.random.default_rng((seed, gi, 1))
        table, hero = player, None  # hero: the one seat policy holds at a table of opponents
        if other is not None and choice.random() < opponent_share:
            hero = int(choice.integers(n))
            table = lambda sim, seat, hero=hero: player(sim, seat) if seat == hero else other(sim, seat)  # noqa: E731
        total = np.zeros(n)
        before, seats = [], []
        while not (e.terminal or e.truncated):
            p = e.current_player
            if hero is not None and p != hero:
                e.step(int(other(e, p)))
                total += np.asarray(e.rewards, dtype=np.float64)
                continue
            o = e.observation(p)
            legal = np.flatnonzero(o["action_mask"])
            a = int(player(e, p))
            if len(legal) > 1:
                q = np.full(A, np.nan, dtype=np.float32)
                if stages.stage_settings([int(x) for x in legal])[1]["search"]:
                    stream = int(choice.integers(2**63))
                    for b in legal:
                        q[b] = rollout(e, p, int(b), table, stream)
                X.append(flat_observation(o))
                M.append(o["action_mask"].astype(bool))
                Q.append(q)
                S.append(p)
                ID.append(gi)
                before.append(total[p])
                seats.append(p)
                if explore > 0 and choice.random() < explore:
                    a = int(choice.choice(legal))
                ACT.append(a)
            e.step(a)
            total += np.asarray(e.rewards, dtype=np.float64)
        R.extend(float(total[s] - b) for s, b in zip(seats, before, strict=True))
    return chunk_arrays(X, M, ACT, Q, R, S, ID, A)


def check_table(opponents: str | None, opponent_share: float) -> None:
    """Refuse a mixed table that cannot be played: a share outside [0, 1], or one without the other."""
    if not 0.0 <= opponent_share <= 1.0:
        raise ValueError(f"opponent_share must be in [0, 1], got {opponent_share}")
    if (opponents is None) != (opponent_share == 0.0):
        raise ValueError("give opponents and a share above 0 together (--opponents AGENT --opponent-share P), "
                         f"got opponents={opponents!r}, opponent_share={opponent_share}")  # fmt: skip


def collect(game_name: str, out: str | Path, minutes: float, start: int = 0, step: int = 1, explore: float = 0.05,
            max_chunks: int = 1_000_000, config: dict | None = None, policy: str = "heuristic",
            all_stages: bool = False, opponents: str | None = None, opponent_share: float = 0.0) -> int:  # fmt: skip
    """Write chunks ``start, start + step, ...`` into ``out`` until ``minutes`` run out (existing ones are
    skipped, so a collection resumes and several processes can share a folder); returns chunks written.
    ``all_stages``: score the decisions of every stage, also those search leaves to the heuristic.
    ``opponents``, ``opponent_share``: that share of the games at a table of ``opponents`` (see above)."""
    if not 0.0 <= explore <= 1.0:
        raise ValueError(f"explore must be in [0, 1], got {explore}")
    check_table(opponents, opponent_share)
    game = load_game(game_name, **(config or {}))
    for name in filter(None, (policy, opponents)):
        make_agent(name, game, seed=0)  # an unknown name is refused before anything is written
    flags = {"explore": explore, "policy": policy, **({"all_stages": True} if all_stages else {})}
    if opponents is not None:
        flags.update(opponents=opponents, opponent_share=opponent_share)
    meta = {"fingerprint": game.fingerprint(), "teacher": "oracle rollouts (train/oracle_data.py)", **flags}
    stages = SearchPolicy(game, seed=0)  # which stages search searches: those get labels
    if all_stages:
        stages = SearchPolicy(game, seed=0, stages={name: {"search": True} for name in stages.settings})

    def play(j: int) -> dict[str, np.ndarray]:
        them = make_agent(opponents, game, seed=j) if opponents is not None else None
        return play_chunk(game, make_agent(policy, game, seed=j), stages, CHUNK_GAMES, 7_000_001 * 13 + j, explore,
                          them, opponent_share)  # fmt: skip

    return write_chunks(Path(out), meta, minutes, range(start, max_chunks, step), play,
                        {"teacher": "oracle", **flags})  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m kortmiljo.train.oracle_data", description=__doc__.split("\n")[0])
    p.add_argument("game")
    p.add_argument("--out", required=True)
    add_stop_arguments(p)
    p.add_argument("--explore", type=float, default=0.05, help="share of labelled decisions played at random")
    p.add_argument("--policy", default="heuristic", help="the agent that plays every seat and every rollout")
    p.add_argument(
        "--all-stages",
        action="store_true",
        help="score every stage, also those search leaves to the heuristic (Sprøyte's exchange)",
    )
    p.add_argument("--opponents", help="the agent in every other seat of a share of the games (--opponent-share)")
    p.add_argument("--opponent-share", type=float, default=0.0, help="share of the games at a table of --opponents")
    a = p.parse_args(argv)
    minutes, end = stop_of(p, a, default_end=1_000_000)
    try:
        n = collect(a.game, a.out, minutes, a.start, a.step, a.explore, max_chunks=end, policy=a.policy,
                    all_stages=a.all_stages, opponents=a.opponents, opponent_share=a.opponent_share)  # fmt: skip
    except ValueError as err:
        p.error(str(err))
    print(f"{a.game}: wrote {n} chunks of {CHUNK_GAMES} games to {a.out}")


if __name__ == "__main__":
    main()
