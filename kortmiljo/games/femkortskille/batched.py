"""Femkortskille for B games at once: the scalar engine's rules as numpy arrays with a batch axis.

:class:`BatchedFemkortskille` plays ``num_envs`` independent episodes (*lanes*) in lock step,
for every option of :class:`~.rules.FemkortskilleEngine` and 3 to 8 players. It is a speed
path, not a second definition of the rules: :mod:`.rules` stays the readable reference, and
``tests/differential/test_femkortskille_batched.py`` drives both engines with the same decks,
dealers and actions and requires identical masks, observations, ``unseen``, rewards, players
on move, terminations and truncations at every step, for every variant and player count.
The interface and conventions are those of :class:`~kortmiljo.games.spokelse.batched.BatchedSpokelse`.

State (``n`` players, ``S`` = the layout's size; every array has the lane axis first):

* the deal's deck order ``[B, 42]`` and a pointer into it (the stock is ``deck[3n:]``; the
  pointer passes the cards already drawn, so the stock left is ``42 - ptr`` cards);
* hands as copies per rank ``[B, n, 21]`` (the two copies of a rank are interchangeable for
  every rule, the mask, the observation and ``unseen``; the scalar engine's physical copies
  only matter to its ``locations()``/``resample``); per seat the copies it can locate
  ``[B, n, 21]`` (``unseen`` is derived from these on demand, as the scalar ``_learn`` does);
* per seat status, stakes, net chips, knocks, skituppslag hands, auction bets, poker round
  bets, "must still act" and "still in" flags, tricks won; per lane the pot, the pot carried
  in (``payments_stay``), deals played, dealer, phase, seat on move, bidding progress, poker
  exchange/betting counters, the current trick (length, highest rank, seat winning it,
  leader) and trick number;
* the observation buffers ``[B, n, S]`` (every seat's view, seats relative to it), updated in
  place by each step with a handful of scatters and rebuilt from a per-dealer template when a
  deal starts. ``to_move`` is filled in when an observation is read, as in the scalar
  ``observe``.

Per step: ``legal_mask() -> [B, A]`` (computed once per state), ``observation() -> [B, S]``
and ``unseen() -> [B, 42]`` for the seat on move (``observe(seats, lanes)``/``unseen(seats,
lanes)`` for any seats), ``step(actions, lanes=None)``, then ``rewards [B, n]`` (of this
step: each seat's net chip change over the episode on its last step, else 0),
``terminal [B]``, ``truncated [B]`` (``max_deals`` void deals) and ``current_player [B]``.

**Randomness (replayable by the scalar engine).** Lane ``i`` owns the generator
``lane_rng(seed, i)`` (the ``i``-th child of ``SeedSequence(seed)``, whatever ``B`` is) or
the generator passed in ``rngs[i]``, and uses it exactly as ``FemkortskilleEngine.new_episode(rng)``
uses its ``rng``: the first dealer by ``rng.integers(n)`` (unless dealers are given), the deck
by ``rng.permutation(42)`` (unless decks are given), and every redeal after a void deal by
``rng.permutation(42)``. So ``FemkortskilleEngine(**options)`` given
``new_episode(lane_rng(seed, i))`` for each of lane ``i``'s episodes, and the lane's actions,
replays lane ``i`` exactly, redeals and auto-resets included.

**The pot between episodes** (``payments_stay``): each lane carries the pot its last episode
left into its next one, as one scalar engine instance does; ``carry [B]`` holds it.
``new_session(lanes)`` empties it (what the AEC adapter's seeded ``reset`` does), and so does
``reset(seed=…)`` for every lane. Without ``payments_stay`` the carry is always 0.

**Auto-reset** (``autoreset=True``, the default): a lane whose episode ends in ``step`` is
dealt a new episode from its stream at the end of that same call. ``rewards``, ``terminal``
and ``truncated`` still describe the step just taken, while the lane's state, mask and
observations are already those of the new episode (PGX's convention);
``final_observation(seats)`` gives the observation and ``unseen`` the lanes had when their
episode ended, and ``final_info()`` the result fields. With ``autoreset=False`` a finished
lane keeps its final state (mask all zeros) until ``reset(lanes=…)``.

Illegal actions: ``step`` checks every stepped lane first and raises
:class:`BatchedIllegalActionError` (a ``ValueError``) naming the first bad lane, its seat,
the action and the legal actions, before any lane is changed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..spokelse.batched import BatchedIllegalActionError, lane_rng
from .rules import (
    EXTRA_CARDS,
    HAND_SIZE,
    KNOCK,
    LOW_RANKS,
    LURA,
    MAX_DISCARDS,
    MAX_RAISES,
    NUM_PHASES,
    NUM_RANKS,
    NUM_STATUS,
    PASS,
    PLAY0,
    TRICKS,
    FemkortskilleEngine,
    Phase,
    Status,
)

__all__ = ["BatchedFemkortskille", "BatchedIllegalActionError", "lane_rng"]

DECK_SIZE = 42
BID, DECIDE, EXCHANGE, BETTING, PLAY, OVER = (int(p) for p in Phase)
TO_SPEAK, KNOCKED, PASSED, WAITING, SHOWED, FOLDED = (int(s) for s in Status)

# rows of the legal-mask table (the hand-dependent columns of PLAY and EXCHANGE are filled per lane)
M_NONE, M_SHOW, M_KNOCK_PASS_LURA, M_KNOCK_PASS, M_DONE, M_CHECK_BET, M_CALL_RAISE_FOLD, M_CALL_FOLD, M_AUKTION = range(
    9
)
_BASE_ROW = np.array([0] * NUM_PHASES, dtype=np.int64)
_BASE_ROW[[BID, DECIDE, EXCHANGE, BETTING]] = [M_KNOCK_PASS_LURA, M_KNOCK_PASS, M_DONE, M_CHECK_BET]
_RANKS = np.arange(NUM_RANKS)
_PHASE_ONE_HOT = np.eye(NUM_PHASES, dtype=np.float32)


class BatchedFemkortskille:
    """``num_envs`` Femkortskille episodes as arrays (see the module docstring).

    ``seed``: seeds the lanes' generators (``lane_rng``); ``rngs``: one generator per lane
    instead (for callers that share a lane's stream with other draws, like the vector
    training env). ``autoreset``: deal finished lanes anew inside ``step``. Options are the
    scalar engine's, validated by it. The batch starts dealt: the constructor calls
    ``reset()``, so each lane's first episode is the first one of its stream.
    """

    NAME = "femkortskille"

    def __init__(
        self,
        num_envs: int = 1,
        seed: int | None = None,
        *,
        autoreset: bool = True,
        rngs: Sequence[np.random.Generator] | None = None,
        **options,
    ):
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self.spec = spec = FemkortskilleEngine(**options)  # validates the options; layout and action table
        self.config = dict(spec.config)
        self.num_players = n = spec.num_players
        self.num_envs = B = int(num_envs)
        self.autoreset = bool(autoreset)
        self.layout = L = spec.layout
        self.action_names = spec.action_names
        self.num_actions = len(spec.action_names)
        self.obs_size = S = L.size
        self.ante, self.max_deals, self.ante_on_redeal = spec.ante, spec.max_deals, spec.ante_on_redeal
        self.skituppslag, self.knock_stake, self.payments_stay = spec.skituppslag, spec.knock_stake, spec.payments_stay
        self.auktion, self.max_bet, self.poker = spec.auktion, spec.max_bet, spec.poker
        self.A_SHOW, self.A_BET1, self.A_DISCARD0, self.A_DONE = spec.A_SHOW, spec.A_BET1, spec.A_DISCARD0, spec.A_DONE
        self.A_CHECK, self.A_PBET, self.A_CALL = spec.A_CHECK, spec.A_PBET, spec.A_CALL
        self.A_RAISE, self.A_FOLD = spec.A_RAISE, spec.A_FOLD
        self.seed(seed, rngs)

        # viewer-relative offsets of the layout's segments (-1 where the configuration has none)
        def off(name: str) -> int:
            return next((s.offset for s in L.segments if s.name == name), -1)

        self.o_hand, self.o_status, self.o_stake, self.o_net = off("hand"), off("status"), off("stake"), off("net")
        self.o_pot, self.o_carried, self.o_deal, self.o_dealer = (
            off("pot"),
            off("pot_carried"),
            off("deal_number"),
            off("dealer"),
        )
        self.o_phase, self.o_to_move, self.o_stock = off("phase"), off("to_move"), off("stock_size")
        self.o_trick, self.o_high, self.o_winning, self.o_leader = (
            off("trick"),
            off("trick_highest"),
            off("trick_winning"),
            off("leader"),
        )
        self.o_played, self.o_won, self.o_shown = off("played"), off("tricks_won"), off("shown")
        self.o_abet, self.o_hbet = off("auction_bet"), off("highest_bet")
        self.o_exch, self.o_odisc, self.o_rbet = off("exchanged"), off("own_discards"), off("round_bet")
        self.o_level, self.o_raises = off("bet_level"), off("raises")

        # seat × viewer tables, index [s, v]: where viewer v sees seat s's block
        s_, v_ = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        rel = (s_ - v_) % n
        self._pos_status = self.o_status + NUM_STATUS * rel
        self._pos_stake, self._pos_net = self.o_stake + rel, self.o_net + rel
        self._pos_winning, self._pos_leader, self._pos_won = self.o_winning + rel, self.o_leader + rel, self.o_won + rel
        self._pos_trick, self._pos_played = self.o_trick + NUM_RANKS * rel, self.o_played + NUM_RANKS * rel
        self._pos_abet, self._pos_exch, self._pos_rbet = self.o_abet + rel, self.o_exch + rel, self.o_rbet + rel
        self._seat_of_rel = (v_ + s_) % n  # [viewer, rel] -> absolute seat
        self._order = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n  # [forhånd, i] -> i-th seat from forhånd
        self._after = (np.arange(n)[:, None] + np.arange(1, n + 1)[None, :]) % n  # [s, i] -> seats clockwise after s
        self._seats = np.arange(n)
        self._deal_template = self._build_deal_templates()
        self._mask_table = self._build_mask_table()

        # state
        z = np.zeros
        self._deck = z((B, DECK_SIZE), dtype=np.int64)
        self._ptr = z(B, dtype=np.int64)
        self._hand = z((B, n, NUM_RANKS), dtype=np.int8)
        self._kn = z((B, n, NUM_RANKS), dtype=np.int8)
        self._status = z((B, n), dtype=np.int64)
        self._stake = z((B, n), dtype=np.int64)
        self._net = z((B, n), dtype=np.float64)
        self._pot = z(B, dtype=np.float64)
        self._pot_carried = z(B, dtype=np.float64)
        self.carry = z(B, dtype=np.float64)
        self._deals = z(B, dtype=np.int64)
        self._dealer = z(B, dtype=np.int64)
        self._phase = np.full(B, OVER, dtype=np.int64)
        self._cp = z(B, dtype=np.int64)
        self._circle = z(B, dtype=np.int64)
        self._any_knock = z(B, dtype=bool)
        self._knocked = z((B, n), dtype=bool)
        self._skit = z((B, n), dtype=bool)
        self._hbet = z(B, dtype=np.int64)
        self._pending = z(B, dtype=np.int64)
        self._level = z(B, dtype=np.int64)
        self._raises = z(B, dtype=np.int64)
        self._round_bet = z((B, n), dtype=np.int64)
        self._need = z((B, n), dtype=bool)
        self._active = z((B, n), dtype=bool)  # knockers still in (poker: not folded); in play during tricks
        self._n_active = z(B, dtype=np.int64)
        self._leader = np.full(B, -1, dtype=np.int64)
        self._trick_len = z(B, dtype=np.int64)
        self._highest = np.full(B, -1, dtype=np.int64)
        self._winning = np.full(B, -1, dtype=np.int64)
        self._trick_no = z(B, dtype=np.int64)
        self._won = z((B, n), dtype=np.int64)
        self._winner = np.full(B, -1, dtype=np.int64)
        self._pot_won = z(B, dtype=np.float64)
        self._ended_truncated = z(B, dtype=bool)
        self._obs = z((B, n, S), dtype=np.float32)
        self._of = self._obs.reshape(-1)
        self._rowbase = (np.arange(B)[:, None] * n + np.arange(n)[None, :]) * S  # [B, n]
        self._all = np.arange(B)
        self.rewards = z((B, n), dtype=np.float64)
        self.terminal = z(B, dtype=bool)
        self.truncated = z(B, dtype=bool)
        self._mask: np.ndarray | None = None
        self._ended: list[np.ndarray] = []
        self._final: dict[str, np.ndarray] | None = None
        self.reset()

    def _build_deal_templates(self) -> np.ndarray:
        """``[dealer, viewer, S]``: every seat's observation right after a deal, less the hand and chips."""
        n, S = self.num_players, self.obs_size
        T = np.zeros((n, n, S), dtype=np.float32)
        for d in range(n):
            for v in range(n):
                t = T[d, v]
                t[self.o_status + NUM_STATUS * np.arange(n) + TO_SPEAK] = 1.0
                t[self.o_dealer + (d - v) % n] = 1.0
                t[self.o_phase + BID] = 1.0
                t[self.o_stock] = (DECK_SIZE - HAND_SIZE * n) / 42.0
        return T

    def _build_mask_table(self) -> np.ndarray:
        rows = np.zeros((M_AUKTION + max(self.max_bet, 1), self.num_actions), dtype=np.int8)
        if self.skituppslag:
            rows[M_SHOW, self.A_SHOW] = 1
        rows[M_KNOCK_PASS_LURA, [KNOCK, PASS, LURA]] = 1
        rows[M_KNOCK_PASS, [KNOCK, PASS]] = 1
        if self.poker:
            rows[M_DONE, self.A_DONE] = 1
            rows[M_CHECK_BET, [self.A_CHECK, self.A_PBET]] = 1
            rows[M_CALL_RAISE_FOLD, [self.A_CALL, self.A_RAISE, self.A_FOLD]] = 1
            rows[M_CALL_FOLD, [self.A_CALL, self.A_FOLD]] = 1
        if self.auktion:
            for m in range(1, self.max_bet + 1):  # PASS and bet:m … bet:max_bet
                rows[M_AUKTION + m - 1, PASS] = 1
                rows[M_AUKTION + m - 1, self.A_BET1 + m - 1 : self.A_BET1 + self.max_bet] = 1
        return rows

    # ---- randomness -----------------------------------------------------------------------
    def seed(self, seed: int | None = None, rngs: Sequence[np.random.Generator] | None = None) -> None:
        """Re-seed every lane's stream (``lane_rng(seed, i)``), or take the given generators."""
        if rngs is not None:
            if len(rngs) != self.num_envs:
                raise ValueError(f"rngs must hold one generator per lane ({self.num_envs}), got {len(rngs)}")
            self.rngs = list(rngs)
            self.seed_sequence = None
            return
        self.seed_sequence = np.random.SeedSequence(seed)
        self.rngs = [np.random.default_rng(c) for c in self.seed_sequence.spawn(self.num_envs)]

    def new_session(self, lanes=None) -> None:
        """Forget the pot carried between episodes (``payments_stay``) in ``lanes`` (all by default):
        their next episode starts with an empty pot, as after ``FemkortskilleEngine.new_session()``."""
        self.carry[self._lanes(lanes)] = 0.0

    # ---- properties ----------------------------------------------------------------------------
    @property
    def current_player(self) -> np.ndarray:
        return self._cp

    @property
    def phase(self) -> np.ndarray:
        return self._phase

    @property
    def dealer(self) -> np.ndarray:
        return self._dealer

    @property
    def pot(self) -> np.ndarray:
        return self._pot

    def _lanes(self, lanes) -> np.ndarray:
        if lanes is None:
            return self._all
        lanes = np.asarray(lanes)
        if lanes.dtype == bool:
            if lanes.shape != (self.num_envs,):
                raise ValueError(f"a lane mask must have shape ({self.num_envs},), got {lanes.shape}")
            return np.flatnonzero(lanes)
        lanes = lanes.astype(np.int64).reshape(-1)
        if lanes.size and (lanes.min() < 0 or lanes.max() >= self.num_envs):
            raise ValueError(f"lane indices must be 0..{self.num_envs - 1}")
        return lanes

    # ---- episodes --------------------------------------------------------------------------------
    def reset(self, decks=None, dealers=None, lanes=None, seed: int | None = None) -> None:
        """Start new episodes in ``lanes`` (all by default).

        ``decks``: ``[k, 42]`` card ints (a permutation of 0..41 per row, card = 2 * rank + copy,
        top card first) or None to shuffle from each lane's stream; ``dealers``: ``[k]`` seats or
        None to draw them from the stream. ``seed`` re-seeds every lane and starts every session
        afresh (``new_session``), as a seeded ``reset`` of the AEC environment does. With
        ``payments_stay`` the lanes' episodes start with the pot their last episode left.
        """
        if seed is not None:
            self.seed(seed)
            self.new_session()
        L = self._lanes(lanes)
        k, n = len(L), self.num_players
        if k == 0:
            return
        if dealers is not None:
            dealers = np.asarray(dealers)
            if (
                dealers.shape != (k,)
                or not np.issubdtype(dealers.dtype, np.integer)
                or dealers.min() < 0
                or dealers.max() >= n
            ):
                raise ValueError(f"dealers must be {k} seats 0..{n - 1}, got {dealers!r}")
            dealers = dealers.astype(np.int64)
        if decks is not None:
            decks = np.asarray(decks)
            if decks.shape != (k, DECK_SIZE) or not np.issubdtype(decks.dtype, np.integer):
                raise ValueError(
                    f"decks must be an int array of shape ({k}, {DECK_SIZE}), got {decks.dtype} {decks.shape}"
                )
            bad = np.flatnonzero((np.sort(decks, axis=1) != np.arange(DECK_SIZE)).any(axis=1))
            if bad.size:
                raise ValueError(f"deck of lane {int(L[bad[0]])} is not a permutation of the cards 0..41")
            decks = decks.astype(np.int64)
        if dealers is None or decks is None:  # the scalar engine's order: dealer first, then the deck
            rngs = self.rngs
            drawn_dealers, drawn_decks = [], []
            for lane in L.tolist():
                rng = rngs[lane]
                if dealers is None:
                    drawn_dealers.append(int(rng.integers(n)))
                if decks is None:
                    drawn_decks.append(rng.permutation(DECK_SIZE))
            if dealers is None:
                dealers = np.array(drawn_dealers, dtype=np.int64)
            if decks is None:
                decks = np.array(drawn_decks, dtype=np.int64)
        pot = self.carry[L] if self.payments_stay else np.zeros(k)
        self._pot_carried[L] = pot
        self._net[L] = -float(self.ante)
        self._pot[L] = pot + self.ante * n
        self._deals[L] = 0
        self._winner[L] = -1
        self._pot_won[L] = 0.0
        self.rewards[L] = 0.0
        self.terminal[L] = False
        self.truncated[L] = False
        self._ended_truncated[L] = False
        self._deal(L, decks, dealers)

    def _deal(self, L: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        n, k = self.num_players, len(L)
        self._mask = None
        self._deals[L] += 1
        self._deck[L] = decks
        self._dealer[L] = dealers
        fh = (dealers + 1) % n
        # seat s is dealt deck[i], deck[i + n], deck[i + 2n] with i = (s - forhånd) mod n
        i = (self._seats[None, :] - fh[:, None]) % n
        pos = (i[:, :, None] + n * np.arange(HAND_SIZE)[None, None, :]).reshape(k, -1)
        ranks = (np.take_along_axis(decks, pos, axis=1) >> 1).reshape(k, n, HAND_SIZE)
        h = np.zeros((k, n, NUM_RANKS), dtype=np.int8)
        kk, ss = np.arange(k)[:, None], self._seats[None, :]
        for j in range(HAND_SIZE):  # each (lane, seat) once per round: no repeated index
            h[kk, ss, ranks[:, :, j]] += 1
        self._hand[L] = h
        self._kn[L] = h
        self._ptr[L] = HAND_SIZE * n
        self._status[L] = TO_SPEAK
        self._stake[L] = 0
        self._knocked[L] = False
        self._circle[L] = 0
        self._any_knock[L] = False
        self._skit[L] = (ranks < LOW_RANKS).all(axis=2) if self.skituppslag else False
        self._hbet[L] = 0
        self._pending[L] = 0
        self._level[L] = 0
        self._raises[L] = 0
        self._round_bet[L] = 0
        self._need[L] = False
        self._active[L] = False
        self._n_active[L] = 0
        self._leader[L] = -1
        self._trick_len[L] = 0
        self._highest[L] = -1
        self._winning[L] = -1
        self._trick_no[L] = 0
        self._won[L] = 0
        self._phase[L] = BID
        self._cp[L] = fh
        # the observations: the dealer's template, each viewer's own hand, the chips
        O, sor = self._obs, self._seat_of_rel
        O[L] = self._deal_template[dealers]
        O[L, :, self.o_hand : self.o_hand + NUM_RANKS] = h
        O[L, :, self.o_deal] = (self._deals[L] / self.max_deals)[:, None]
        O[L, :, self.o_carried] = self._pot_carried[L][:, None]
        O[L, :, self.o_net : self.o_net + n] = self._net[L][:, sor]
        O[L, :, self.o_pot] = self._pot[L][:, None]

    # ---- legal actions ---------------------------------------------------------------------------
    def _compute_mask(self) -> np.ndarray:
        ph, cp = self._phase, self._cp
        row = _BASE_ROW[ph]
        bid = ph == BID
        if bid.any():
            if self.auktion:
                row[bid] = M_AUKTION + np.maximum(self._hbet[bid], 1) - 1
            else:
                row[bid & self._any_knock] = M_KNOCK_PASS
            if self.skituppslag:
                row[bid & self._skit[self._all, cp]] = M_SHOW
        if self.poker:
            bet = np.flatnonzero((ph == BETTING) & (self._level > 0))
            if bet.size:
                row[bet] = np.where(self._raises[bet] < MAX_RAISES, M_CALL_RAISE_FOLD, M_CALL_FOLD)
        mask = self._mask_table[row]
        P = np.flatnonzero(ph == PLAY)
        if P.size:
            held = self._hand[P, cp[P]] > 0
            higher = held & (_RANKS[None, :] > self._highest[P][:, None])  # highest = -1 when leading
            mask[P, PLAY0 : PLAY0 + NUM_RANKS] = np.where(higher.any(axis=1)[:, None], higher, held)
        if self.poker:
            E = np.flatnonzero(ph == EXCHANGE)
            if E.size:
                pend = self._pending[E]
                E = E[(pend < MAX_DISCARDS) & (DECK_SIZE - self._ptr[E] > pend)]
                mask[E, self.A_DISCARD0 : self.A_DISCARD0 + NUM_RANKS] = self._hand[E, cp[E]] > 0
        return mask

    def legal_mask(self) -> np.ndarray:
        """``[B, A]`` int8 legal actions of the seat on move (all 0 where the episode is over)."""
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask.copy()

    def legal_actions(self, lane: int) -> list[int]:
        if self._mask is None:
            self._mask = self._compute_mask()
        return np.flatnonzero(self._mask[lane]).tolist()

    def step(self, actions, lanes=None) -> None:
        """Apply ``actions[l]`` in every lane ``l`` of ``lanes`` (a bool mask or indices; all lanes
        by default; the other entries of ``actions`` are ignored)."""
        actions = np.asarray(actions)
        B = self.num_envs
        if actions.shape != (B,):
            raise ValueError(f"actions must have shape ({B},), got {actions.shape}")
        idx = self._lanes(lanes)
        a = actions[idx]
        if not np.issubdtype(a.dtype, np.integer):
            if a.size and not np.all(np.mod(a, 1) == 0):
                raise ValueError("actions must be integers")
            a = a.astype(np.int64)
        if self._mask is None:
            self._mask = self._compute_mask()
        inrange = (a >= 0) & (a < self.num_actions)
        ok = (self._mask[idx, np.where(inrange, a, 0)] != 0) & inrange
        if not ok.all():
            bad = int(np.argmin(ok))
            self._raise_illegal(int(idx[bad]), a[bad])
        self.rewards.fill(0.0)
        over = self._phase == OVER  # lanes left over (autoreset=False) keep their flags
        np.greater(over, self._ended_truncated, out=self.terminal)
        np.logical_and(over, self._ended_truncated, out=self.truncated)
        self._final = None
        self._mask = None
        self._ended = []
        ph = self._phase[idx]
        counts = np.bincount(ph, minlength=NUM_PHASES)
        handlers = (
            (PLAY, self._play),
            (BID, self._bid),
            (DECIDE, self._decide),
            (EXCHANGE, self._exchange),
            (BETTING, self._bet),
        )
        for p, handler in handlers:
            c = counts[p]
            if c == 0:
                continue
            if c == len(idx):
                handler(idx, a)
                break
            sel = ph == p
            handler(idx[sel], a[sel])
        if self._ended:
            self._finish(np.sort(np.concatenate(self._ended)))

    def _raise_illegal(self, lane: int, action) -> None:
        action = action.item() if hasattr(action, "item") else action
        names = [self.action_names[x] for x in self.legal_actions(lane)]
        label = self.action_names[action] if isinstance(action, int) and 0 <= action < self.num_actions else action
        raise BatchedIllegalActionError(lane, f"player_{int(self._cp[lane])}", label, names)

    # ---- observation writes ---------------------------------------------------------------------------
    def _put_seat(self, L: np.ndarray, pos: np.ndarray, value) -> None:
        """Every viewer's copy of a per-seat value: ``pos`` is ``[k, n]`` (a seat-table row per lane)."""
        v = np.asarray(value, dtype=np.float32)
        self._of[self._rowbase[L] + pos] = v[:, None] if v.ndim else v

    def _put_global(self, L: np.ndarray, offset: int, value) -> None:
        self._obs[L, :, offset] = np.asarray(value, dtype=np.float32)[:, None] if np.ndim(value) else value

    def _own_hand(self, L: np.ndarray, s: np.ndarray) -> None:
        """Rewrite the ``hand`` segment of seat ``s``'s own view from the state."""
        self._obs[L, s, self.o_hand : self.o_hand + NUM_RANKS] = self._hand[L, s]

    def _set_status(self, L: np.ndarray, s: np.ndarray, st) -> None:
        pos = self._pos_status[s]
        rb = self._rowbase[L]
        Of = self._of
        Of[rb + (pos + self._status[L, s][:, None])] = 0.0
        Of[rb + (pos + np.asarray(st)[..., None])] = 1.0
        self._status[L, s] = st

    def _set_phase(self, L: np.ndarray, phase: int) -> None:
        self._phase[L] = phase
        self._obs[L, :, self.o_phase : self.o_phase + NUM_PHASES] = _PHASE_ONE_HOT[phase]

    def _stake_chips(self, L: np.ndarray, s: np.ndarray, chips) -> None:
        net = self._net[L, s] - chips
        stake = self._stake[L, s] + chips
        pot = self._pot[L] + chips
        self._net[L, s] = net
        self._stake[L, s] = stake
        self._pot[L] = pot
        self._put_seat(L, self._pos_net[s], net)
        self._put_seat(L, self._pos_stake[s], stake)
        self._put_global(L, self.o_pot, pot)

    def _put_chips(self, L: np.ndarray) -> None:
        n, O, sor = self.num_players, self._obs, self._seat_of_rel
        O[L, :, self.o_net : self.o_net + n] = self._net[L][:, sor]
        O[L, :, self.o_stake : self.o_stake + n] = self._stake[L][:, sor]
        O[L, :, self.o_pot] = self._pot[L][:, None]

    def _put_stock(self, L: np.ndarray) -> None:
        self._obs[L, :, self.o_stock] = ((DECK_SIZE - self._ptr[L]) / 42.0)[:, None]

    def _first_in_order(self, L: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The first seat from forhånd whose ``flags [B, n]`` is set: ``(seat [k], found [k])``."""
        order = self._order[(self._dealer[L] + 1) % self.num_players]  # [k, n]
        f = flags[L[:, None], order]
        j = f.argmax(axis=1)
        ar = np.arange(len(L))
        return order[ar, j], f[ar, j]

    def _next_in_order(self, L: np.ndarray, s: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The next seat after ``s`` in seat order from forhånd (no wrap) whose flag is set."""
        n = self.num_players
        fh = (self._dealer[L] + 1) % n
        order = self._order[fh]
        f = flags[L[:, None], order] & (np.arange(n)[None, :] > ((s - fh) % n)[:, None])
        j = f.argmax(axis=1)
        ar = np.arange(len(L))
        return order[ar, j], f[ar, j]

    def _next_clockwise(self, L: np.ndarray, s: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The next seat clockwise after ``s`` (wrapping, ``s`` itself last) whose flag is set."""
        after = self._after[s]
        f = flags[L[:, None], after]
        j = f.argmax(axis=1)
        ar = np.arange(len(L))
        return after[ar, j], f[ar, j]

    # ---- moves -------------------------------------------------------------------------------------
    def _knock(self, L: np.ndarray, s: np.ndarray, chips: np.ndarray | None = None) -> None:
        self._set_status(L, s, KNOCKED)
        self._knocked[L, s] = True
        self._any_knock[L] = True
        if self.knock_stake:
            chips = self.knock_stake if chips is None else chips + self.knock_stake
        if chips is not None:
            self._stake_chips(L, s, chips)

    def _bid(self, L: np.ndarray, a: np.ndarray) -> None:
        s = self._cp[L]
        if self.skituppslag:
            show = a == self.A_SHOW
            if show.any():
                self._show(L[show], s[show])
                if show.all():
                    return
                L, a, s = L[~show], a[~show], s[~show]
        if self.auktion:
            bet = a != PASS
            if bet.any():
                K, k, sb = L[bet], a[bet] - self.A_BET1 + 1, s[bet]
                self._hbet[K] = k
                self._put_seat(K, self._pos_abet[sb], k)
                self._put_global(K, self.o_hbet, k)
                self._knock(K, sb, k)
            if not bet.all():
                self._set_status(L[~bet], s[~bet], PASSED)
        else:
            knock = a == KNOCK
            if knock.all():
                self._knock(L, s)
            else:
                if knock.any():
                    self._knock(L[knock], s[knock])
                rest = ~knock
                self._set_status(L[rest], s[rest], np.where(a[rest] == PASS, PASSED, WAITING))
        circle = self._circle[L] + 1
        self._circle[L] = circle
        more = circle < self.num_players
        if more.all():
            self._cp[L] = (s + 1) % self.num_players
            return
        if more.any():
            M = L[more]
            self._cp[M] = (s[more] + 1) % self.num_players
            L = L[~more]
        waiting = self._status == WAITING
        first, found = self._first_in_order(L, waiting)
        if found.any():
            D = L[found]
            self._set_phase(D, DECIDE)
            self._cp[D] = first[found]
        if not found.all():
            self._after_bidding(L[~found])

    def _show(self, L: np.ndarray, s: np.ndarray) -> None:
        """Skituppslag: the hand is shown to everyone and wins the pot at once."""
        self._set_status(L, s, SHOWED)
        h = self._hand[L, s]  # [k, 21]: the three dealt cards
        self._obs[L, :, self.o_shown : self.o_shown + NUM_RANKS] += h[:, None, :]
        others = self._seats[None, :] != s[:, None]  # [k, n]
        self._kn[L] += h[:, None, :] * others[:, :, None].astype(np.int8)
        self._win(L, s, self._pot[L].copy())

    def _decide(self, L: np.ndarray, a: np.ndarray) -> None:
        s = self._cp[L]
        knock = a == KNOCK
        if knock.any():
            self._knock(L[knock], s[knock])
        if not knock.all():
            self._set_status(L[~knock], s[~knock], PASSED)
        nxt, found = self._next_in_order(L, s, self._status == WAITING)
        if found.any():
            self._cp[L[found]] = nxt[found]
        if not found.all():
            self._after_bidding(L[~found])

    def _after_bidding(self, L: np.ndarray) -> None:
        n = self.num_players
        knockers = self._status[L] == KNOCKED  # [k, n]
        count = knockers.sum(axis=1)
        if (count == 0).any():
            self._void_deal(L[count == 0])
        if (count == 1).any():
            one = count == 1
            self._win(L[one], knockers[one].argmax(axis=1), self._pot[L[one]].copy())
        go = count >= 2
        if not go.any():
            return
        G, knockers = L[go], knockers[go]
        self._active[G] = knockers
        self._n_active[G] = count[go]
        # each knocker in seat order from forhånd gets the next two stock cards
        order = self._order[(self._dealer[G] + 1) % n]  # [k, n]
        in_order = np.take_along_axis(knockers, order, axis=1)
        rank_of = np.cumsum(in_order, axis=1) - 1
        li, j = np.nonzero(in_order)
        lanes, seats = G[li], order[li, j]
        first = self._ptr[lanes] + EXTRA_CARDS * rank_of[li, j]
        for c in range(EXTRA_CARDS):  # one card per (lane, seat) per round: no repeated index
            r = self._deck[lanes, first + c] >> 1
            self._hand[lanes, seats, r] += 1
            self._kn[lanes, seats, r] += 1
        self._obs[lanes, seats, self.o_hand : self.o_hand + NUM_RANKS] = self._hand[lanes, seats]
        self._ptr[G] += EXTRA_CARDS * count[go]
        self._put_stock(G)
        if self.poker:
            self._pending[G] = 0
            self._set_phase(G, EXCHANGE)
            self._cp[G] = self._first_in_order(G, self._active)[0]
        else:
            self._start_play(G)

    def _exchange(self, L: np.ndarray, a: np.ndarray) -> None:
        s = self._cp[L]
        done = a == self.A_DONE
        if not done.all():
            D, sd, r = L[~done], s[~done], a[~done] - self.A_DISCARD0
            self._hand[D, sd, r] -= 1
            own = (D * self.num_players + sd) * self.obs_size
            self._of[own + self.o_hand + r] = self._hand[D, sd, r]
            self._of[own + self.o_odisc + r] += 1.0
            pend = self._pending[D] + 1
            self._pending[D] = pend
            self._put_seat(D, self._pos_exch[sd], pend)
            if not done.any():
                return
            L, s = L[done], s[done]
        pend = self._pending[L]
        ptr = self._ptr[L]
        for j in range(MAX_DISCARDS):
            m = pend > j
            if not m.any():
                break
            Lj, sj = L[m], s[m]
            r = self._deck[Lj, ptr[m] + j] >> 1
            self._hand[Lj, sj, r] += 1
            self._kn[Lj, sj, r] += 1
        self._own_hand(L, s)
        self._ptr[L] = ptr + pend
        self._put_stock(L)
        self._pending[L] = 0
        nxt, found = self._next_in_order(L, s, self._active)
        if found.any():
            self._cp[L[found]] = nxt[found]
        if not found.all():
            G = L[~found]
            self._level[G] = 0
            self._raises[G] = 0
            self._need[G] = self._active[G]
            self._set_phase(G, BETTING)
            self._cp[G] = self._first_in_order(G, self._active)[0]

    def _bet(self, L: np.ndarray, a: np.ndarray) -> None:
        s = self._cp[L]
        self._need[L, s] = False
        fold = a == self.A_FOLD
        if fold.any():
            F, sf = L[fold], s[fold]
            self._set_status(F, sf, FOLDED)
            self._active[F, sf] = False
            left = self._n_active[F] - 1
            self._n_active[F] = left
            last = left == 1
            if last.any():
                W = F[last]
                self._win(W, self._active[W].argmax(axis=1), self._pot[W].copy())
                keep = ~np.isin(L, W)
                L, a, s = L[keep], a[keep], s[keep]
        up = (a == self.A_PBET) | (a == self.A_RAISE)
        if up.any():
            U, su = L[up], s[up]
            if self.A_RAISE >= 0:
                rz = U[a[up] == self.A_RAISE]
                if rz.size:
                    self._raises[rz] += 1
                    self._put_global(rz, self.o_raises, self._raises[rz])
            level = self._level[U] + self.ante
            self._level[U] = level
            self._put_global(U, self.o_level, level)
            self._need[U] = self._active[U] & (self._seats[None, :] != su[:, None])
        pay = up | (a == self.A_CALL)
        if pay.any():
            P, sp = L[pay], s[pay]
            level = self._level[P]
            chips = level - self._round_bet[P, sp]
            self._round_bet[P, sp] = level
            self._put_seat(P, self._pos_rbet[sp], level)
            self._stake_chips(P, sp, chips)
        nxt, found = self._next_clockwise(L, s, self._need)
        if found.any():
            self._cp[L[found]] = nxt[found]
        if not found.all():
            self._start_play(L[~found])

    def _start_play(self, L: np.ndarray) -> None:
        """Tricks among the active knockers; the first of them from forhånd leads."""
        self._set_phase(L, PLAY)
        first = self._first_in_order(L, self._active)[0]
        self._leader[L] = first
        self._put_seat(L, self._pos_leader[first], 1.0)
        self._cp[L] = first

    def _play(self, L: np.ndarray, a: np.ndarray) -> None:
        n = self.num_players
        s = self._cp[L]
        r = a - PLAY0
        Of, rb = self._of, self._rowbase[L]
        left = self._hand[L, s, r] - 1
        self._hand[L, s, r] = left
        Of[(L * n + s) * self.obs_size + self.o_hand + r] = left
        r1 = r[:, None]
        Of[rb + (self._pos_played[s] + r1)] += 1.0
        Of[rb + (self._pos_trick[s] + r1)] = 1.0
        self._kn[L[:, None], self._seats[None, :], r1] += (self._seats[None, :] != s[:, None]).astype(np.int8)
        hi = self._highest[L]
        beats = r >= hi  # of equal cards the later one counts higher
        if beats.all():
            old = hi >= 0
            if old.any():
                Of[(rb[old] + (self.o_high + hi[old])[:, None]).ravel()] = 0.0
                Of[(rb[old] + self._pos_winning[self._winning[L[old]]]).ravel()] = 0.0
            Of[rb + (self.o_high + r1)] = 1.0
            Of[rb + self._pos_winning[s]] = 1.0
            self._highest[L] = r
            self._winning[L] = s
        elif beats.any():
            X, rX, sX, hX = L[beats], r[beats], s[beats], hi[beats]
            rbX = rb[beats]
            old = hX >= 0
            if old.any():
                Of[(rbX[old] + (self.o_high + hX[old])[:, None]).ravel()] = 0.0
                Of[(rbX[old] + self._pos_winning[self._winning[X[old]]]).ravel()] = 0.0
            Of[rbX + (self.o_high + rX)[:, None]] = 1.0
            Of[rbX + self._pos_winning[sX]] = 1.0
            self._highest[X] = rX
            self._winning[X] = sX
        tl = self._trick_len[L] + 1
        self._trick_len[L] = tl
        full = tl == self._n_active[L]
        if not full.all():
            C = L[~full]
            self._cp[C] = self._next_clockwise(C, s[~full], self._active)[0]
            if not full.any():
                return
            L = L[full]
        # the trick is complete: clear it, count it for its winner
        O = self._obs
        w = self._winning[L]
        O[L, :, self.o_trick : self.o_trick + NUM_RANKS * n] = 0.0
        O[L, :, self.o_high : self.o_high + NUM_RANKS] = 0.0
        O[L, :, self.o_winning : self.o_winning + n] = 0.0
        self._trick_len[L] = 0
        self._highest[L] = -1
        self._winning[L] = -1
        won = self._won[L, w] + 1
        self._won[L, w] = won
        self._put_seat(L, self._pos_won[w], won)
        tn = self._trick_no[L] + 1
        self._trick_no[L] = tn
        last = tn == TRICKS
        if last.any():
            self._settle(L[last], w[last])
            if last.all():
                return
            L, w = L[~last], w[~last]
        self._put_seat(L, self._pos_leader[self._leader[L]], 0.0)
        self._put_seat(L, self._pos_leader[w], 1.0)
        self._leader[L] = w
        self._cp[L] = w

    # ---- the end of a deal ------------------------------------------------------------------------
    def _settle(self, L: np.ndarray, w: np.ndarray) -> None:
        """The fifth-trick winner takes the pot after the other knockers pay in what it held."""
        held = self._pot[L].copy()
        payers = self._active[L] & (self._seats[None, :] != w[:, None])
        self._net[L] -= held[:, None] * payers
        self._pot[L] = held * (1 + payers.sum(axis=1))
        self._win(L, w, held if self.payments_stay else self._pot[L].copy())

    def _win(self, L: np.ndarray, w: np.ndarray, take: np.ndarray) -> None:
        self._net[L, w] += take
        self._pot[L] -= take
        self._winner[L] = w
        self._pot_won[L] = take
        self._end(L, truncated=False)

    def _void_deal(self, L: np.ndarray) -> None:
        n = self.num_players
        trunc = self._deals[L] >= self.max_deals
        if trunc.any():
            T = L[trunc]
            self._net[T] += (self._pot[T] / n)[:, None]
            self._pot[T] = 0.0
            self._end(T, truncated=True)
            L = L[~trunc]
            if L.size == 0:
                return
        if self.ante_on_redeal:
            self._net[L] -= self.ante
            self._pot[L] += self.ante * n
        decks = np.array([self.rngs[lane].permutation(DECK_SIZE) for lane in L.tolist()], dtype=np.int64)
        self._deal(L, decks, (self._dealer[L] + 1) % n)

    def _end(self, L: np.ndarray, truncated: bool) -> None:
        self._set_phase(L, OVER)
        self._put_chips(L)
        self.rewards[L] = self._net[L]
        self.carry[L] = self._pot[L]
        self._ended_truncated[L] = truncated
        self._ended.append(L)

    def _finish(self, E: np.ndarray) -> None:
        """Flags for the lanes whose episode ended in this step; auto-reset them."""
        trunc = self._ended_truncated[E]
        self.terminal[E] = ~trunc
        self.truncated[E] = trunc
        if not self.autoreset:
            return
        self._final = {
            "lanes": E,
            "seat": self._cp[E].copy(),
            "obs": self._obs[E].copy(),
            "known": self._kn[E].copy(),
            "info": self._info_of(E),
        }
        r = self.rewards[E].copy()
        self.reset(lanes=E)
        self.terminal[E] = ~trunc
        self.truncated[E] = trunc
        self.rewards[E] = r

    # ---- views ----------------------------------------------------------------------------------
    @staticmethod
    def _unseen_of(known: np.ndarray) -> np.ndarray:
        """``unseen`` bits from located copies per rank: bit 2r is set while a copy of r is
        unseen, bit 2r + 1 while both are (the scalar ``_learn`` clears the high bit first)."""
        u = np.empty((*known.shape[:-1], DECK_SIZE), dtype=np.int8)
        np.less(known, 2, out=u[..., 0::2], casting="unsafe")
        np.less(known, 1, out=u[..., 1::2], casting="unsafe")
        return u

    def _gather_rows(self, seats, lanes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if lanes is None:
            L = self._all
            seats = self._cp if seats is None else np.asarray(seats, dtype=np.int64)
        else:
            L = self._lanes(lanes)
            seats = self._cp[L] if seats is None else np.asarray(seats, dtype=np.int64)
        return L, seats, L * self.num_players + seats

    def observe(self, seats=None, lanes=None) -> np.ndarray:
        """``[k, S]`` float32 observations of ``seats`` (one seat per lane; default: the seats on
        move) in ``lanes`` (default all): a fresh array."""
        L, seats, rows = self._gather_rows(seats, lanes)
        out = np.take(self._obs.reshape(-1, self.obs_size), rows, axis=0)
        live = self._phase[L] != OVER
        rel = (self._cp[L] - seats) % self.num_players
        if live.all():
            out[np.arange(len(L)), self.o_to_move + rel] = 1.0
        else:
            out[np.flatnonzero(live), self.o_to_move + rel[live]] = 1.0
        return out

    def observation(self) -> np.ndarray:
        """``[B, S]`` float32 observations of the seats on move (a fresh array)."""
        out = np.take(self._obs.reshape(-1, self.obs_size), self._all * self.num_players + self._cp, axis=0)
        out[:, self.o_to_move] = self._phase != OVER
        return out

    def unseen(self, seats=None, lanes=None) -> np.ndarray:
        """``[k, 42]`` int8 ``unseen`` of ``seats`` (default: the seats on move) in ``lanes``."""
        _, _, rows = self._gather_rows(seats, lanes)
        return self._unseen_of(np.take(self._kn.reshape(-1, NUM_RANKS), rows, axis=0))

    def observe_all(self) -> np.ndarray:
        """Every seat's observation, ``[B, n, S]`` (a copy)."""
        O = self._obs.copy()
        live = np.flatnonzero(self._phase != OVER)
        v = self._seats[None, :]
        O[live[:, None], v, self.o_to_move + (self._cp[live][:, None] - v) % self.num_players] = 1.0
        return O

    def unseen_all(self) -> np.ndarray:
        """Every seat's ``unseen``, ``[B, n, 42]``."""
        return self._unseen_of(self._kn)

    def final_observation(self, seats=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(lanes, obs [k, S], unseen [k, 42])``: what the lanes auto-reset by the last ``step``
        showed ``seats`` (a ``[B]`` array; default the last seat on move) when their episode ended."""
        if self._final is None:
            return (
                np.zeros(0, dtype=np.int64),
                np.zeros((0, self.obs_size), np.float32),
                np.zeros((0, DECK_SIZE), np.int8),
            )
        L = self._final["lanes"]
        seats = self._final["seat"] if seats is None else np.asarray(seats, dtype=np.int64)[L]
        j = np.arange(len(L))
        return L, self._final["obs"][j, seats], self._unseen_of(self._final["known"][j, seats])

    def _info_of(self, L: np.ndarray) -> dict[str, np.ndarray]:
        n, k = self.num_players, len(L)

        def per_seat(x: np.ndarray) -> np.ndarray:
            return np.broadcast_to(x[:, None], (k, n)).copy()

        return {
            "chips": self._net[L].copy(),
            "pot": per_seat(self._pot[L]),
            "knocked": self._knocked[L].copy(),
            "pot_won": per_seat(self._pot_won[L]),
            "winner": per_seat(self._winner[L]),
            "deals": per_seat(self._deals[L]),
        }

    def info(self) -> dict[str, np.ndarray]:
        """The end-of-episode result fields per lane and seat, ``[B, n]`` each (valid where the
        episode is over): ``chips`` (net change), ``pot``, ``knocked``, ``pot_won``, ``deals`` as
        in ``FemkortskilleEngine.info``, and ``winner`` as a seat number (-1 for none) where the
        scalar engine names the agent. After an auto-reset, ``final_info()`` holds the ended ones."""
        return self._info_of(self._all)

    def final_info(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """``(lanes, fields [k, n])``: ``info()`` of the lanes auto-reset by the last ``step``, as
        their episodes ended."""
        if self._final is None:
            return np.zeros(0, dtype=np.int64), self._info_of(np.zeros(0, dtype=np.int64))
        return self._final["lanes"], self._final["info"]

    def lane_state(self, lane: int) -> dict:
        """One lane's state in the scalar engine's terms, for tests and debugging (hands as ranks)."""
        n = self.num_players
        return {
            "hands": [np.repeat(_RANKS, self._hand[lane, s]).tolist() for s in range(n)],
            "stock": (self._deck[lane, self._ptr[lane] :] >> 1).tolist(),
            "status": self._status[lane].tolist(),
            "net": self._net[lane].tolist(),
            "pot": float(self._pot[lane]),
            "phase": int(self._phase[lane]),
            "current_player": int(self._cp[lane]),
            "dealer": int(self._dealer[lane]),
            "deals": int(self._deals[lane]),
            "active": np.flatnonzero(self._active[lane]).tolist(),
            "trick_no": int(self._trick_no[lane]),
            "tricks_won": self._won[lane].tolist(),
            "num_players": n,
        }
