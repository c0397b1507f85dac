"""Toy poker for B deals at once, as numpy arrays: lane ``i`` replays ``ToyEngine.new_episode(lane_rng(seed, i))``.

Each lane draws from its own stream exactly as the scalar engine does (the dealer by
``rng.integers(2)`` unless given, then the deck by ``rng.permutation(6)`` unless given), so the
conformance suite's differential test can require equal masks, observations, ``unseen`` and
rewards at every step. With ``autoreset`` a lane whose deal ends is dealt anew from its stream at
the end of that ``step`` (``rewards`` and ``terminal`` still describe the step just taken).
"""

from __future__ import annotations

import numpy as np

from kortmiljo.core.batched import BatchedEngine

from .game import BET, BET_OUT, CALL, CHECK, CHECK_BET, CHECKED, FOLD, LEGAL, OPEN, OVER


class BatchedToy(BatchedEngine):
    NAME = "toy"

    def setup(self) -> None:
        g, B = self.game, self.num_envs
        self.ante, self.bet, self.scale = g.ante, g.bet, float(g.ante + g.bet)
        self.o_own, self.o_opp, self.o_staked = g.o_own, g.o_opp, g.o_staked
        self.o_stage, self.o_to_move, self.o_dealer = g.o_stage, g.o_to_move, g.o_dealer
        self._legal = np.zeros((5, self.num_actions), dtype=np.int8)  # [stage, action]
        for stage, actions in LEGAL.items():
            self._legal[stage, actions] = 1
        self.cards = np.zeros((B, 2), dtype=np.int64)
        self.staked = np.zeros((B, 2), dtype=np.int64)
        self.net = np.zeros((B, 2), dtype=np.float64)
        self.stage = np.zeros(B, dtype=np.int64)
        self.shown = np.zeros(B, dtype=bool)
        self.dealer = np.zeros(B, dtype=np.int64)
        self.current_player = np.zeros(B, dtype=np.int64)
        self.rewards = np.zeros((B, 2), dtype=np.float64)
        self.terminal = np.zeros(B, dtype=bool)

    # ---- episodes ---------------------------------------------------------------------------
    def reset(self, decks=None, dealers=None, lanes=None) -> None:
        """Deal ``lanes`` (all by default): ``decks [k, 6]`` card ints and ``dealers [k]``, or None
        to draw them from each lane's stream (the dealer first, as the scalar engine does)."""
        L = self._lanes(lanes)
        k = len(L)
        if dealers is not None:
            dealers = np.asarray(dealers).reshape(-1)
            seats = np.issubdtype(dealers.dtype, np.integer) and ((dealers == 0) | (dealers == 1)).all()
            if dealers.shape != (k,) or not seats:
                raise ValueError(f"dealers must be {k} seats 0..1, got {dealers!r}")
        if decks is not None:
            decks = np.asarray(decks)
            if decks.shape != (k, 6) or (np.sort(decks, axis=1) != np.arange(6)).any():
                raise ValueError(f"decks must be {k} permutations of the six cards, got {decks!r}")
        drawn_dealers, drawn_decks = np.zeros(k, dtype=np.int64), np.zeros((k, 6), dtype=np.int64)
        for j, lane in enumerate(L.tolist()):
            rng = self.rngs[lane]
            if dealers is None:
                drawn_dealers[j] = rng.integers(2)
            if decks is None:
                drawn_decks[j] = rng.permutation(6)
        dealers = drawn_dealers if dealers is None else dealers.astype(np.int64)
        decks = drawn_decks if decks is None else decks.astype(np.int64)
        first = 1 - dealers
        self.dealer[L] = dealers
        self.cards[L, first] = decks[:, 0]
        self.cards[L, dealers] = decks[:, 1]
        self.staked[L] = self.ante
        self.net[L] = 0.0
        self.stage[L] = OPEN
        self.shown[L] = False
        self.current_player[L] = first
        self.rewards[L] = 0.0
        self.terminal[L] = False

    # ---- moves ------------------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        return self._legal[self.stage]

    def legal_actions(self, lane: int) -> list[int]:
        return list(LEGAL[int(self.stage[lane])])

    def step(self, actions, lanes=None) -> None:
        """Apply ``actions[l]`` in each lane ``l`` of ``lanes`` (all by default); every stepped
        lane is checked before any changes."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        L = self._lanes(lanes)
        a = actions[L]
        ints = np.issubdtype(a.dtype, np.integer)
        for lane, x in zip(L.tolist(), a.tolist(), strict=True):
            if not (ints and 0 <= x < self.num_actions and self._legal[self.stage[lane], x]):
                self.raise_illegal(lane, actions[lane])
        self.rewards.fill(0.0)
        self.terminal = self.stage == OVER  # finished lanes kept without autoreset stay terminal
        s = self.current_player[L]
        stage = self.stage[L].copy()
        bet, call = a == BET, a == CALL
        self.staked[L[bet | call], s[bet | call]] += self.bet
        self.stage[L[bet & (stage == OPEN)]] = BET_OUT
        self.stage[L[bet & (stage == CHECKED)]] = CHECK_BET
        opened = (a == CHECK) & (stage == OPEN)
        self.stage[L[opened]] = CHECKED
        self.current_player[L[bet | opened]] = 1 - s[bet | opened]
        show = call | ((a == CHECK) & (stage == CHECKED))
        S = L[show]
        self.shown[S] = True
        winners = np.where(self.cards[S, 0] > self.cards[S, 1], 0, 1)
        self._end(S, winners)
        fold = a == FOLD
        self._end(L[fold], 1 - s[fold])

    def _end(self, E: np.ndarray, winners: np.ndarray) -> None:
        if E.size == 0:
            return
        won = self.staked[E, 1 - winners].astype(np.float64)
        net = np.where(np.arange(2)[None, :] == winners[:, None], won[:, None], -won[:, None])
        self.net[E] = net
        self.stage[E] = OVER
        self.terminal[E] = True
        if self.autoreset:
            self.reset(lanes=E)
            self.terminal[E] = True
        self.rewards[E] = net

    # ---- views -------------------------------------------------------------------------------
    def observe(self, seats=None, lanes=None) -> np.ndarray:
        """``[k, S]`` observations of ``seats`` (one per lane; default the seats on move) in ``lanes``."""
        L = self._lanes(lanes)
        seats = self.current_player[L] if seats is None else np.asarray(seats, dtype=np.int64).reshape(-1)
        other, rows = 1 - seats, np.arange(len(L))
        obs = np.zeros((len(L), self.obs_size), dtype=np.float32)
        obs[rows, self.o_own + self.cards[L, seats]] = 1.0
        shown = self.shown[L]
        obs[rows[shown], self.o_opp + self.cards[L[shown], other[shown]]] = 1.0
        obs[:, self.o_staked] = self.staked[L, seats] / self.scale
        obs[:, self.o_staked + 1] = self.staked[L, other] / self.scale
        obs[rows, self.o_stage + self.stage[L]] = 1.0
        live = self.stage[L] != OVER
        obs[rows[live], self.o_to_move + (self.current_player[L[live]] - seats[live]) % 2] = 1.0
        obs[rows, self.o_dealer + (seats - self.dealer[L]) % 2] = 1.0
        return obs

    def unseen(self, seats=None, lanes=None) -> np.ndarray:
        """``[k, 6]`` int8: 1 where the seat cannot locate the card."""
        L = self._lanes(lanes)
        seats = self.current_player[L] if seats is None else np.asarray(seats, dtype=np.int64).reshape(-1)
        rows = np.arange(len(L))
        u = np.ones((len(L), self.width), dtype=np.int8)
        u[rows, self.cards[L, seats]] = 0
        shown = self.shown[L]
        u[rows[shown], self.cards[L[shown], 1 - seats[shown]]] = 0
        return u

    def info(self) -> dict[str, np.ndarray]:
        return {"chips": self.net.copy(), "showdown": np.repeat(self.shown[:, None], 2, axis=1)}
