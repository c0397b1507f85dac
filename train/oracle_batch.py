"""Oracle data with a network policy: a chunk's games and all their rollouts at once, one forward pass a round.

:func:`kortmiljo.train.oracle_data.play_chunk` plays one game at a time, and each rollout to its end
before the next: with a network as the policy, each of its moves is a forward pass at batch 1, about
two thirds of the time (53 µs a row, against 15 µs at batch 64 or more). Here every game of the chunk
is a generator that yields the network moves it needs and receives them:

* a live game yields its seat's move, then, at a decision to score, every legal action's rollout at
  once (:func:`rollouts`): the lanes advance in lockstep, each round yielding the moves of the lanes
  whose seat the network holds (seats at a table of ``opponents`` are played in place);
* :func:`play_chunk` runs the games round by round, answers every move of a round with one forward
  pass (:func:`decide`), and sends each game its share.

What it records is what ``oracle_data.play_chunk`` records, with two differences: each game draws from
its own generator (``default_rng((seed, game))``), since the games interleave; and the network's moves
come from rows of a batch, which can differ from batch-1 results in the last bits, so a near-tie can
go the other way. A chunk is played in one process, its rounds in a fixed order: the same seed gives
the same chunk whatever the worker count.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
from kortmiljo.agents.base import choose_from_logits
from kortmiljo.train.expert_data import chunk_arrays

from kortmiljo.core.engine import Engine, LazyGenerator
from kortmiljo.core.game import Game
from kortmiljo.env.training import flat_observation

MAX_ROLLOUT_STEPS = 20_000  # a guard, as in search: no game gets there

Request = tuple[Engine, int, Any]  # an engine, the seat to move, its observation where the game has it already
Lane = Generator[list[Request], list[int], Any]


def batchable(policy) -> bool:
    """Whether ``policy`` is a network this module can batch (:class:`kortmiljo.agents.pretrained.MLPPolicy`)."""
    return all(hasattr(policy, a) for a in ("masked_logits", "vector", "weights"))


def decide(policy, requests: list[Request]) -> list[int]:
    """The network's moves for ``requests``, in one forward pass (the advisor's moves read from the engines)."""
    num_actions = policy.game.num_actions
    rows, masks = [], []
    advisor = policy.advisor if getattr(policy.advisor, "act_seat", None) else None
    for engine, seat, obs in requests:
        obs = engine.observation(seat) if obs is None else obs
        advised = None
        if advisor is not None:
            advised = np.zeros(num_actions, dtype=np.float32)
            advised[int(advisor.act_seat(engine, seat))] = 1.0
        rows.append(policy.vector(obs, advised))
        masks.append(obs["action_mask"])
    logits = policy.masked_logits(np.stack(rows), np.stack(masks))
    return [int(a) for a in choose_from_logits(logits, policy.deterministic, policy.rng)]


def rollouts(sims: list[Engine], seat: int, net_seat, other) -> Lane:
    """``seat``'s reward in each of ``sims`` (each just after one legal action) to the end of its episode;
    a seat ``net_seat(seat)`` calls the network's is yielded, every other seat is played by ``other``."""
    totals = [float(s.rewards[seat]) for s in sims]
    steps = [0] * len(sims)
    active = list(range(len(sims)))
    while active:
        need = []
        for i in active:
            sim = sims[i]
            while not (sim.terminal or sim.truncated) and steps[i] < MAX_ROLLOUT_STEPS:
                p = sim.current_player
                if net_seat(p):
                    need.append(i)
                    break
                sim.step(other(sim, p))
                totals[i] += float(sim.rewards[seat])
                steps[i] += 1
        if not need:
            break
        moves = yield [(sims[i], sims[i].current_player, None) for i in need]
        for i, a in zip(need, moves, strict=True):
            sims[i].step(a)
            totals[i] += float(sims[i].rewards[seat])
            steps[i] += 1
        active = need
    return totals


def live_game(game: Game, stages, seed: int, gi: int, explore: float, other, opponent_share: float) -> Lane:
    """Game ``gi`` of a chunk: its recorded decisions as ``(X, M, ACT, Q, S, R)`` lists."""
    rng = np.random.default_rng((seed, gi))
    e = game.new_state()
    e.new_episode(rng)
    n, num_actions = game.num_players, game.num_actions
    hero = int(rng.integers(n)) if other is not None and rng.random() < opponent_share else None
    net_seat = (lambda p: True) if hero is None else (lambda p: p == hero)  # noqa: E731
    X, M, ACT, Q, S, before = [], [], [], [], [], []
    total = np.zeros(n)
    while not (e.terminal or e.truncated):
        p = e.current_player
        if not net_seat(p):
            e.step(int(other(e, p)))
            total += np.asarray(e.rewards, dtype=np.float64)
            continue
        o = e.observation(p)
        legal = np.flatnonzero(o["action_mask"])
        (a,) = yield [(e, p, o)]
        if len(legal) > 1:
            q = np.full(num_actions, np.nan, dtype=np.float32)
            if stages.stage_settings([int(x) for x in legal])[1]["search"]:
                stream = int(rng.integers(2**63))
                sims = []
                for b in legal:
                    sim = e.clone(rng=LazyGenerator(stream))  # paired: one stream for every action
                    sim.step(int(b))
                    sims.append(sim)
                q[legal] = yield from rollouts(sims, p, net_seat, other)
            X.append(flat_observation(o))
            M.append(o["action_mask"].astype(bool))
            Q.append(q)
            S.append(p)
            before.append(total[p])
            if explore > 0 and rng.random() < explore:
                a = int(rng.choice(legal))
            ACT.append(a)
        e.step(a)
        total += np.asarray(e.rewards, dtype=np.float64)
    return X, M, ACT, Q, S, [float(total[s] - b) for s, b in zip(S, before, strict=True)]


def play_chunk(game: Game, policy, stages, games: int, seed: int, explore: float, other=None,
               opponent_share: float = 0.0) -> dict:  # fmt: skip
    """``oracle_data.play_chunk`` for a network ``policy`` (:func:`batchable`, seeded by the caller), its
    games played at once; ``other``: the opponents as ``f(engine, seat) -> action``, or None."""
    lanes = [live_game(game, stages, seed, gi, explore, other, opponent_share) for gi in range(games)]
    results: list = [None] * games
    waiting = {}
    for gi, lane in enumerate(lanes):
        _advance(lane, gi, None, waiting, results)
    while waiting:
        order = sorted(waiting)
        requests = [r for gi in order for r in waiting[gi]]
        moves = decide(policy, requests)
        k = 0
        for gi in order:
            share = len(waiting[gi])
            _advance(lanes[gi], gi, moves[k : k + share], waiting, results)
            k += share
    X, M, ACT, Q, R, S, ID = [], [], [], [], [], [], []
    for gi, (x, m, act, q, s, r) in enumerate(results):
        X += x
        M += m
        ACT += act
        Q += q
        S += s
        R += r
        ID += [gi] * len(x)
    return chunk_arrays(X, M, ACT, Q, R, S, ID, game.num_actions)


def _advance(lane: Lane, gi: int, moves, waiting: dict, results: list) -> None:
    """Send ``moves`` to game ``gi``; note what it asks next, or its result when it ends."""
    try:
        waiting[gi] = lane.send(moves) if moves is not None else next(lane)
    except StopIteration as done:
        waiting.pop(gi, None)
        results[gi] = done.value
