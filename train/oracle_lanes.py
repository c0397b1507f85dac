"""Oracle data on a batched engine: a chunk's games and all their rollouts are lanes, one policy call a round.

:func:`kortmiljo.train.oracle_data.play_chunk` (the reference) plays one game at a time on the scalar
engine, and each rollout to its end before the next, a policy call per move. Here a chunk's games
are the first lanes of the game's batched engine (:mod:`kortmiljo.core.batched`), and every
decision to score becomes as many more lanes as it has legal actions:

* at such a decision the live lane is copied into free lanes (``copy_lanes``), each with the same
  random stream (paired), and each takes one legal action in the round's step;
* every round, the policy decides the seat on move of every lane it holds in one ``act_batch``
  call (the opponents of a mixed table in another), and one ``step`` moves them all;
* a rollout lane that ends scores its action and is free again. A live game whose decision finds
  too few free lanes waits a round; nothing it draws depends on when it goes on.

It records what the reference records, draw for draw: game ``g`` of a chunk is dealt from
``default_rng((seed, g))`` and draws its table, streams and exploration from ``default_rng((seed,
g, 1))`` in both. With a policy that decides each row on its own (the heuristics do, tie-breaks
included) the chunks are bit-identical (``tests/train/test_oracle_lanes.py``); a network's rows of
a batch can differ from batch-1 results in the last bits, so a near-tie can go the other way.

A batched engine is built once per process and configuration (:func:`engine_for`) and reused by
every chunk; games whose configuration has no batched engine (Femkortskille's teaching options)
use the reference.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from kortmiljo.train.expert_data import chunk_arrays

from kortmiljo.core.engine import LazyGenerator
from kortmiljo.core.game import Game
from kortmiljo.env.vector import native_supported

MAX_ROLLOUT_STEPS = 20_000  # a guard, as in search: no game gets there
# rollout lanes per game of a chunk (at least one decision's worth in all); a decision waits when they run out
LANES_PER_GAME = 96

FREE, LIVE, ROLLOUT, OVER = 0, 1, 2, 3

_engines: dict[tuple[str, int], Any] = {}


def supported(game: Game, *agents) -> bool:
    """Whether chunks of ``game`` can be played here: a batched engine for its configuration, and
    agents (None: no agent) that decide batches of observations (``act_batch``) from them alone
    (search reads the engine)."""
    return native_supported(game) is None and all(
        hasattr(a, "act_batch") and not getattr(a, "needs_engine", False) for a in agents if a is not None
    )


def engine_for(game: Game, games: int):
    """This process's batched engine for ``game`` and chunks of ``games`` games (built once)."""
    key = (json.dumps(game.fingerprint(), sort_keys=True, default=str), games)
    if key not in _engines:
        size = games + max(games * LANES_PER_GAME, game.num_actions)  # any one decision fits: none waits forever
        _engines[key] = game.new_batched(size, seed=0, autoreset=False)
    return _engines[key]


class _Chunk:
    """The bookkeeping of one chunk: per lane, what it is and what it scores; per game, its records."""

    def __init__(self, game: Game, games: int, seed: int, opponent_share: float, mixed: bool):
        self.engine = e = engine_for(game, games)
        B, n = e.num_envs, game.num_players
        self.kind = np.full(B, FREE, dtype=np.int8)
        self.game_of = np.zeros(B, dtype=np.int64)
        self.seat_of = np.zeros(B, dtype=np.int64)  # a rollout's scored seat
        self.action_of = np.zeros(B, dtype=np.int64)
        self.decision_of = np.zeros(B, dtype=np.int64)  # a rollout's decision, an index into self.q
        self.total = np.zeros(B)
        self.steps = np.zeros(B, dtype=np.int64)
        self.hero = np.full(games, -1, dtype=np.int64)  # the one seat policy holds at a mixed table, -1: all
        self.returns = np.zeros((games, n))
        self.choice = [np.random.default_rng((seed, g, 1)) for g in range(games)]
        live = np.arange(games)
        e.new_session(live)
        for g in range(games):
            e.rngs[g] = np.random.default_rng((seed, g))
        e.reset(lanes=live)
        for g in range(games):
            if mixed and self.choice[g].random() < opponent_share:
                self.hero[g] = int(self.choice[g].integers(n))
        self.kind[live] = LIVE
        self.game_of[live] = live
        # the records, in the order each game makes its decisions
        self.records: list[list[tuple]] = [[] for _ in range(games)]
        self.q: list[np.ndarray] = []


def play_chunk(game: Game, policy, stages, games: int, seed: int, explore: float, opponents=None,
               opponent_share: float = 0.0) -> dict:  # fmt: skip
    """``oracle_data.play_chunk``'s chunk (see the module docstring); the agents are seeded by the caller."""
    c = _Chunk(game, games, seed, opponent_share, opponents is not None)
    e = c.engine
    actions = np.zeros(e.num_envs, dtype=np.int64)
    while True:
        moving = np.flatnonzero((c.kind == LIVE) | (c.kind == ROLLOUT))
        if not len(moving):
            break
        mask = e.legal_mask()
        cp = e.current_player[moving]
        hero = c.hero[c.game_of[moving]]
        own = (hero < 0) | (cp == hero)
        views = {}
        for held, rows in enumerate((own, ~own)):  # the policy's lanes, then the opponents'
            L = moving[rows]
            if len(L):
                obs = {"observation": e.observe(None, L), "action_mask": mask[L], "unseen": e.unseen(None, L)}
                actions[L] = (opponents if held else policy).act_batch(obs)
                if not held:
                    views = {int(L[i]): (obs, i) for i in np.flatnonzero(c.kind[L] == LIVE).tolist()}
        step = np.zeros(e.num_envs, dtype=bool)
        step[moving] = True
        for lane, (obs, i) in views.items():
            step[lane] = _decide(c, game, stages, lane, obs, i, mask[lane], explore, actions, step)
        e.step(actions, step)
        _account(c, np.flatnonzero(step), e)
    return _arrays(c, game)


def _decide(c: _Chunk, game: Game, stages, lane: int, obs: dict, i: int, mask: np.ndarray, explore: float,
            actions: np.ndarray, step: np.ndarray) -> bool:  # fmt: skip
    """A live game's move of the policy: recorded where it is a choice, its rollouts started where its
    stage is scored; False when it must wait for free lanes (nothing drawn, nothing recorded)."""
    legal = np.flatnonzero(mask)
    if len(legal) < 2:
        return True
    scored = stages.stage_settings(legal.tolist())[1]["search"]
    free = np.flatnonzero(c.kind == FREE)
    if scored and len(free) < len(legal):
        return False
    g = int(c.game_of[lane])
    p = int(c.engine.current_player[lane])
    choice = c.choice[g]
    q = np.full(game.num_actions, np.nan, dtype=np.float32)
    if scored:
        stream = int(choice.integers(2**63))
        D = free[: len(legal)]
        c.engine.copy_lanes(lane, D, rngs=[LazyGenerator(stream) for _ in D])  # paired: one stream each
        c.kind[D] = ROLLOUT
        c.game_of[D] = g
        c.seat_of[D] = p
        c.action_of[D] = legal
        c.decision_of[D] = len(c.q)
        c.total[D] = 0.0
        c.steps[D] = 0
        actions[D] = legal
        step[D] = True
    x = np.concatenate([obs["observation"][i], obs["unseen"][i].astype(np.float32)])
    a = int(actions[lane])
    if explore > 0 and choice.random() < explore:
        a = int(choice.choice(legal))
        actions[lane] = a
    c.records[g].append((x, mask.astype(bool), a, len(c.q), p, c.returns[g, p]))
    c.q.append(q)
    return True


def _account(c: _Chunk, stepped: np.ndarray, e) -> None:
    """After a step: the live games' returns, the rollouts' totals, and the rollouts that ended."""
    done = e.done()
    live = stepped[c.kind[stepped] == LIVE]
    c.returns[c.game_of[live]] += e.rewards[live]
    c.kind[live[done[live]]] = OVER
    R = stepped[c.kind[stepped] == ROLLOUT]
    c.total[R] += e.rewards[R, c.seat_of[R]]
    c.steps[R] += 1
    for lane in R[done[R] | (c.steps[R] >= MAX_ROLLOUT_STEPS)].tolist():
        c.q[c.decision_of[lane]][c.action_of[lane]] = c.total[lane]
        c.kind[lane] = FREE


def _arrays(c: _Chunk, game: Game) -> dict:
    X, M, ACT, Q, R, S, ID = [], [], [], [], [], [], []
    for g, records in enumerate(c.records):
        for x, m, a, k, p, before in records:
            X.append(x)
            M.append(m)
            ACT.append(a)
            Q.append(c.q[k])
            S.append(p)
            R.append(float(c.returns[g, p] - before))
            ID.append(g)
    return chunk_arrays(X, M, ACT, Q, R, S, ID, game.num_actions)
