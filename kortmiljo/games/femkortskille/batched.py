"""Femkortskille for B games at once: the scalar engine's rules as numpy arrays with a batch axis.

:class:`BatchedFemkortskille` plays ``num_envs`` independent episodes (*lanes*) in lock step,
for every option of :class:`~.rules.FemkortskilleEngine` and 3 to 8 players. It is a speed
path, not a second definition of the rules (those are described in docs/femkortskille.md):
:mod:`.rules` stays the readable reference, and
``tests/differential/test_femkortskille_batched.py`` drives both engines with the same decks,
dealers and actions and requires identical masks, observations, ``unseen``, rewards, players
on move, terminations and truncations at every step, for every variant and player count.
The interface and conventions are those of :class:`~kortmiljo.games.spokelse.batched.BatchedSpokelse`.

State (``n`` players, ``S`` = the layout's size; every array has the lane axis first):

* the deal's deck order ``[B, 42]`` and a pointer into it (the stock is ``deck[3n:]``; the
  pointer passes the cards already drawn, so the stock left is ``42 - ptr`` cards);
* hands as copies per rank ``[B, n, 21]`` (the two copies of a rank are interchangeable for
  every rule, the mask, the observation and ``unseen``; the scalar engine's physical copies
  only matter to its ``locations()``/``resample``), with the ranks held as a bit set per seat
  for the masks; per seat the copies it can locate ``[B, n, 21]`` (``unseen`` is derived from
  these on demand, bit for bit as the scalar ``_learn`` sets it);
* chips as float64: exact while counts stay below 2**53 (the scalar engine keeps Python ints;
  only a run of settled ``payments_stay`` episodes, each multiplying the pot, could get there);
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

**Speed.** A step runs one vectorized handler per phase present (bidding, waiting players
deciding, poker exchange and betting, tricks); what the moves set off (the end of bidding,
extra cards, the start of tricks, void deals, pots won, ends of episodes) is queued and run
once per step for all its lanes, and one ``_deal`` deals every redeal and auto-reset of the
step. Writes and reads go through flat indices and ``take`` (multi-axis fancy indexing costs
several times more at these sizes). What remains per step at B = 1024 (4 players, random
play, CPU time): about a fifth is the lanes' own generators (``integers`` and ``permutation``
called once per lane and deal, the price of streams the scalar engine replays), a fifth the
tricks, the rest spread over bidding, dealing, the mask, the views and the ends of episodes.

Illegal actions: ``step`` checks every stepped lane first and raises
:class:`BatchedIllegalActionError` (a ``ValueError``) naming the first bad lane, its seat,
the action and the legal actions, before any lane is changed.
"""

from __future__ import annotations

import numpy as np

from ...core.batched import BatchedEngine, BatchedIllegalActionError, lane_rng
from .game import (
    EXTRA_CARDS,
    HAND_SIZE,
    KNOCK,
    LOW_RANKS,
    MAX_DISCARDS,
    MAX_RAISES,
    NUM_PHASES,
    NUM_RANKS,
    NUM_STATUS,
    PASS,
    PLAY0,
    TRICKS,
    Phase,
    Status,
)

__all__ = ["BatchedFemkortskille", "BatchedIllegalActionError", "lane_rng"]

DECK_SIZE = 42
R = NUM_RANKS
BID, DECIDE, EXCHANGE, BETTING, PLAY, OVER = (int(p) for p in Phase)
TO_SPEAK, KNOCKED, PASSED, WAITING, SHOWED, FOLDED = (int(s) for s in Status)
_BID_STATUS = np.array([KNOCKED, PASSED, WAITING])  # status after knock, pass, lura

# rows of the legal-mask table (PLAY and EXCHANGE add their hand-dependent columns per lane)
M_NONE, M_SHOW, M_KNOCK_PASS_LURA, M_KNOCK_PASS, M_DONE = 0, 1, 2, 3, 4
M_CHECK_BET, M_CALL_RAISE_FOLD, M_CALL_FOLD, M_AUKTION = 5, 6, 7, 8
_BASE_ROW = np.zeros(NUM_PHASES, dtype=np.int64)
_BASE_ROW[[BID, DECIDE, EXCHANGE, BETTING]] = [M_KNOCK_PASS_LURA, M_KNOCK_PASS, M_DONE, M_CHECK_BET]
_RANKS = np.arange(R)
# the two unseen bits of a rank by copies located (0, 1, 2), as one uint16 per rank: a take of the
# located counts viewed as int8 is the 42-wide unseen vector (bit 2r clears last, as in ``_learn``)
_UNSEEN_PAIR = np.array([[1, 1], [1, 0], [0, 0]], dtype=np.int8).view(np.uint16).reshape(3)


def _cat(parts: list[np.ndarray]) -> np.ndarray:
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


class BatchedFemkortskille(BatchedEngine):
    """``num_envs`` Femkortskille episodes as arrays (see the module docstring).

    ``seed``: seeds the lanes' generators (``lane_rng``); ``rngs``: one generator per lane
    instead (for callers that share a lane's stream with other draws, like the vector
    training env). ``autoreset``: deal finished lanes anew inside ``step``. Options are the
    scalar engine's, validated by it. The batch starts dealt: the constructor calls
    ``reset()``, so each lane's first episode is the first one of its stream.
    """

    NAME = "femkortskille"
    # per-lane state (setup's "state", the pot carried between episodes included; the flat *f arrays
    # are views of these, _all_n a constant), what copy_lanes copies
    LANE_STATE = tuple(
        "_deck _ptr _hand _kn _held _status _stake _round_bet _won _net _knocked _skit _need _active _pot "
        "_pot_carried carry _pot_won _deals _dealer _phase _cp _circle _any_knock _hbet _pending _level "
        "_raises _n_active _leader _trick_len _trick_rank _highest _winning _trick_no _winner "
        "_ended_truncated _obs rewards terminal truncated".split()
    )

    def setup(self) -> None:
        spec = self.game  # the configured game: layout, action table, stakes
        n, B, S = self.num_players, self.num_envs, self.obs_size
        self.ante, self.max_deals, self.ante_on_redeal = spec.ante, spec.max_deals, spec.ante_on_redeal
        self.skituppslag, self.knock_stake, self.payments_stay = spec.skituppslag, spec.knock_stake, spec.payments_stay
        self.auktion, self.max_bet, self.poker = spec.auktion, spec.max_bet, spec.poker
        self.A_SHOW, self.A_BET1, self.A_DISCARD0, self.A_DONE = spec.A_SHOW, spec.A_BET1, spec.A_DISCARD0, spec.A_DONE
        self.A_CHECK, self.A_PBET, self.A_CALL = spec.A_CHECK, spec.A_PBET, spec.A_CALL
        self.A_RAISE, self.A_FOLD = spec.A_RAISE, spec.A_FOLD

        # viewer-relative offsets of the layout's segments (-1 where the configuration has none)
        off = {s.name: s.offset for s in spec.layout.segments}
        g = off.get
        self.o_hand, self.o_status, self.o_stake, self.o_net = g("hand"), g("status"), g("stake"), g("net")
        self.o_pot, self.o_carried, self.o_deal = g("pot"), g("pot_carried"), g("deal_number")
        self.o_dealer, self.o_phase, self.o_to_move, self.o_stock = (
            g("dealer"),
            g("phase"),
            g("to_move"),
            g("stock_size"),
        )
        self.o_trick, self.o_high, self.o_winning = g("trick"), g("trick_highest"), g("trick_winning")
        self.o_leader, self.o_played, self.o_won = g("leader"), g("played"), g("tricks_won")
        self.o_shown, self.o_abet, self.o_hbet = g("shown", -1), g("auction_bet", -1), g("highest_bet", -1)
        self.o_exch, self.o_odisc, self.o_rbet = g("exchanged", -1), g("own_discards", -1), g("round_bet", -1)
        self.o_level, self.o_raises = g("bet_level", -1), g("raises", -1)

        seats = self._seats = np.arange(n)
        self._seats_r = seats * R
        self._rel = (seats[:, None] - seats[None, :]) % n  # [s, v]: where viewer v sees seat s (relative seat)
        self._seat_of_rel = (seats[:, None] + seats[None, :]) % n  # [v, rel] -> seat; also [forhånd, i] -> i-th seat
        self._after = (seats[:, None] + np.arange(1, n + 1)[None, :]) % n  # [s, i]: seats clockwise after s, s last
        self._rel_r_trick = self.o_trick + R * self._rel  # [s, v]: where v sees s's card of rank 0 in the trick
        self._vrow = seats * S  # offsets of the viewers' rows within a lane
        self._nS = n * S
        self._deal_template = self._build_deal_templates()
        self._winner_names = np.array([None, *(f"player_{s}" for s in range(n))], dtype=object)  # by seat + 1
        # [dealer, 3n]: deck positions of seat s's cards (s-major): deck[i], deck[i + n], deck[i + 2n]
        # with i = (s - forhånd) mod n, forhånd = dealer + 1
        i = (seats[None, :] - (seats[:, None] + 1)) % n  # [dealer, s]
        self._deal_pos = (i[:, :, None] + n * np.arange(HAND_SIZE)[None, None, :]).reshape(n, -1)
        self._mask_table = self._build_mask_table()
        self._handlers = (
            (PLAY, self._play),
            (BID, self._bid),
            (DECIDE, self._decide),
            (EXCHANGE, self._exchange),
            (BETTING, self._bet),
        )

        # state
        z = np.zeros
        self._deck = z((B, DECK_SIZE), dtype=np.int64)
        self._ptr = z(B, dtype=np.int64)
        self._hand = z((B, n, R), dtype=np.int8)
        self._kn = z((B, n, R), dtype=np.int8)
        self._held = z((B, n), dtype=np.int64)  # bit r set while the seat holds a card of rank r (for the mask)
        self._status = z((B, n), dtype=np.int64)
        self._stake = z((B, n), dtype=np.int64)
        self._round_bet = z((B, n), dtype=np.int64)
        self._won = z((B, n), dtype=np.int64)
        self._net = z((B, n), dtype=np.float64)
        self._knocked = z((B, n), dtype=bool)
        self._skit = z((B, n), dtype=bool)
        self._need = z((B, n), dtype=bool)
        self._active = z((B, n), dtype=bool)  # knockers still in (a poker fold leaves); they play the tricks
        self._pot = z(B, dtype=np.float64)
        self._pot_carried = z(B, dtype=np.float64)
        self.carry = z(B, dtype=np.float64)
        self._pot_won = z(B, dtype=np.float64)
        self._deals = z(B, dtype=np.int64)
        self._dealer = z(B, dtype=np.int64)
        self._phase = np.full(B, OVER, dtype=np.int64)
        self._cp = z(B, dtype=np.int64)
        self._circle = z(B, dtype=np.int64)
        self._any_knock = z(B, dtype=bool)
        self._hbet = z(B, dtype=np.int64)
        self._pending = z(B, dtype=np.int64)
        self._level = z(B, dtype=np.int64)
        self._raises = z(B, dtype=np.int64)
        self._n_active = z(B, dtype=np.int64)
        self._leader = np.full(B, -1, dtype=np.int64)
        self._trick_len = z(B, dtype=np.int64)
        self._trick_rank = np.full((B, n), -1, dtype=np.int64)  # the rank each seat put in the current trick
        self._highest = np.full(B, -1, dtype=np.int64)
        self._winning = np.full(B, -1, dtype=np.int64)
        self._trick_no = z(B, dtype=np.int64)
        self._winner = np.full(B, -1, dtype=np.int64)
        self._ended_truncated = z(B, dtype=bool)
        self._obs = z((B, n, S), dtype=np.float32)
        # flat views for scatters and gathers by computed index (cheaper than multi-axis fancy indexing)
        self._of = self._obs.reshape(-1)
        self._hf, self._knf, self._heldf = self._hand.reshape(-1), self._kn.reshape(-1), self._held.reshape(-1)
        self._stf, self._stakef, self._netf = self._status.reshape(-1), self._stake.reshape(-1), self._net.reshape(-1)
        self._rbf, self._wonf, self._trf = (
            self._round_bet.reshape(-1),
            self._won.reshape(-1),
            self._trick_rank.reshape(-1),
        )
        self._needf, self._activef, self._skitf = (
            self._need.reshape(-1),
            self._active.reshape(-1),
            self._skit.reshape(-1),
        )
        self._all_n = self._all * n
        self.rewards = z((B, n), dtype=np.float64)
        self.terminal = z(B, dtype=bool)
        self.truncated = z(B, dtype=bool)
        self._mask: np.ndarray | None = None
        self._final: dict | None = None
        self._clear_queues()

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
        rows = np.zeros((M_AUKTION + self.max_bet, self.num_actions), dtype=np.int8)
        if self.skituppslag:
            rows[M_SHOW, self.A_SHOW] = 1
        rows[M_KNOCK_PASS_LURA, [KNOCK, PASS, 2]] = 1
        rows[M_KNOCK_PASS, [KNOCK, PASS]] = 1
        if self.poker:
            rows[M_DONE, self.A_DONE] = 1
            rows[M_CHECK_BET, [self.A_CHECK, self.A_PBET]] = 1
            rows[M_CALL_RAISE_FOLD, [self.A_CALL, self.A_RAISE, self.A_FOLD]] = 1
            rows[M_CALL_FOLD, [self.A_CALL, self.A_FOLD]] = 1
        if self.auktion:
            for m in range(1, self.max_bet + 1):  # pass, and bet:m … bet:max_bet
                rows[M_AUKTION + m - 1, PASS] = 1
                rows[M_AUKTION + m - 1, self.A_BET1 + m - 1 : self.A_BET1 + self.max_bet] = 1
        return rows

    @classmethod
    def unsupported(cls, game) -> str | None:
        teaching = {"ranks": None, "hand_size": 3, "extra_cards": 2}
        odd = [k for k, default in teaching.items() if game.config[k] != default]
        if odd:
            return (
                f"the batched Femkortskille engine plays the full game; the teaching option(s) "
                f"{', '.join(odd)} are served by the scalar engine (kortmiljo.femkortskille_v0) only"
            )
        return None

    # ---- sessions ---------------------------------------------------------------------------
    def new_session(self, lanes=None) -> None:
        """Forget the pot carried between episodes (``payments_stay``) in ``lanes`` (all by default):
        their next episode starts with an empty pot, as after ``FemkortskilleEngine.new_session()``."""
        self.carry[self._lanes(lanes)] = 0.0

    def _draw(self, L: np.ndarray, dealers: bool, decks: bool) -> tuple[np.ndarray, np.ndarray]:
        """Dealers (``rng.integers(n)``) and then decks (``rng.permutation(42)``) from each lane's
        stream, in the order ``FemkortskilleEngine.new_episode`` and its redeals draw them."""
        k, n = len(L), self.num_players
        out_dealers = np.zeros(k, dtype=np.int64)
        out_decks = np.zeros((k, DECK_SIZE), dtype=np.int64)
        rngs = self.rngs
        for j, lane in enumerate(L.tolist()):
            rng = rngs[lane]
            if dealers:
                out_dealers[j] = rng.integers(n)
            if decks:
                out_decks[j] = rng.permutation(DECK_SIZE)
        return out_dealers, out_decks

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
            drawn_dealers, drawn_decks = self._draw(L, dealers is None, decks is None)
            dealers = drawn_dealers if dealers is None else dealers
            decks = drawn_decks if decks is None else decks
        self.rewards[L] = 0.0
        self.terminal[L] = False
        self.truncated[L] = False
        self._new_episode(L)
        self._deal(L, decks, dealers)

    def _new_episode(self, L: np.ndarray) -> None:
        """Episode state before its first deal: the carried pot (payments_stay), the antes."""
        self._pot_carried[L] = pot = self.carry[L] if self.payments_stay else 0.0
        self._net[L] = -float(self.ante)
        self._pot[L] = pot + self.ante * self.num_players
        self._deals[L] = 0
        self._winner[L] = -1
        self._pot_won[L] = 0.0
        self._ended_truncated[L] = False

    def _deal(self, L: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        n, k = self.num_players, len(L)
        self._mask = None
        deals = self._deals[L] + 1
        self._deals[L] = deals
        self._deck[L] = decks
        self._dealer[L] = dealers
        fh = (dealers + 1) % n
        pos = self._deal_pos.take(dealers, axis=0) + (np.arange(k) * DECK_SIZE)[:, None]
        ranks = (decks.reshape(-1).take(pos) >> 1).reshape(k, n, HAND_SIZE)
        h = np.zeros((k, n, R), dtype=np.int8)
        hf, rows = h.reshape(-1), np.arange(k * n).reshape(k, n) * R
        for j in range(HAND_SIZE):  # each (lane, seat) once per round: no repeated index
            hf[rows + ranks[:, :, j]] += 1
        self._hand[L] = h
        self._kn[L] = h
        bits = np.left_shift(1, ranks)
        self._held[L] = bits[:, :, 0] | bits[:, :, 1] | bits[:, :, 2]
        self._ptr[L] = HAND_SIZE * n
        self._status[L] = TO_SPEAK
        self._stake[L] = 0
        self._round_bet[L] = 0
        self._won[L] = 0
        self._knocked[L] = False
        self._skit[L] = (ranks < LOW_RANKS).all(axis=2) if self.skituppslag else False
        self._need[L] = False
        self._active[L] = False
        self._circle[L] = 0
        self._any_knock[L] = False
        self._hbet[L] = 0
        self._pending[L] = 0
        self._level[L] = 0
        self._raises[L] = 0
        self._n_active[L] = 0
        self._leader[L] = -1
        self._trick_len[L] = 0
        self._trick_rank[L] = -1
        self._highest[L] = -1
        self._winning[L] = -1
        self._trick_no[L] = 0
        self._phase[L] = BID
        self._cp[L] = fh
        # the observations: the dealer's template, each viewer's own hand, the deal number and chips
        blk = self._deal_template.take(dealers, axis=0)
        blk[:, :, self.o_hand : self.o_hand + R] = h
        blk[:, :, self.o_deal] = (deals / self.max_deals)[:, None]
        blk[:, :, self.o_carried] = self._pot_carried[L][:, None]
        blk[:, :, self.o_net : self.o_net + n] = self._net.take(L, axis=0)[:, self._seat_of_rel]
        blk[:, :, self.o_pot] = self._pot[L][:, None]
        self._obs[L] = blk

    # ---- legal actions ---------------------------------------------------------------------------
    def _compute_mask(self) -> np.ndarray:
        n, ph, cp = self.num_players, self._phase, self._cp
        row = _BASE_ROW.take(ph)
        bid = ph == BID
        if bid.any():
            if self.auktion:
                row[bid] = M_AUKTION + np.maximum(self._hbet[bid], 1) - 1
            else:
                row -= (bid & self._any_knock) * (M_KNOCK_PASS_LURA - M_KNOCK_PASS)
            if self.skituppslag:
                row[bid & self._skitf.take(self._all_n + cp)] = M_SHOW
        if self.poker:
            bet = np.flatnonzero((ph == BETTING) & (self._level > 0))
            if bet.size:
                row[bet] = np.where(self._raises[bet] < MAX_RAISES, M_CALL_RAISE_FOLD, M_CALL_FOLD)
        mask = self._mask_table.take(row, axis=0)
        play = ph == PLAY
        if play.any():  # as rank bit sets, for every lane (cheaper than selecting), zero where no trick is played
            held = self._heldf.take(self._all_n + cp) * play
            higher = held & -np.left_shift(1, self._highest + 1)  # ranks above the highest (all when leading)
            mask[:, PLAY0 : PLAY0 + R] = self._rank_columns(np.where(higher != 0, higher, held))
        if self.poker:
            E = np.flatnonzero(ph == EXCHANGE)
            if E.size:
                pend = self._pending[E]
                E = E[(pend < MAX_DISCARDS) & (DECK_SIZE - self._ptr[E] > pend)]
                held = self._rank_columns(self._heldf.take(E * n + cp.take(E)))
                mask.reshape(-1)[(E * self.num_actions + self.A_DISCARD0)[:, None] + _RANKS] = held
        return mask

    @staticmethod
    def _rank_columns(bits: np.ndarray) -> np.ndarray:
        """``[k]`` rank bit sets -> ``[k, 21]`` 0/1 columns."""
        return np.unpackbits(bits.astype("<i8").view(np.uint8).reshape(-1, 8), axis=1, count=R, bitorder="little")

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
        ok = (self._mask.reshape(-1).take(idx * self.num_actions + np.where(inrange, a, 0)) != 0) & inrange
        if not ok.all():
            bad = int(np.argmin(ok))
            self.raise_illegal(int(idx[bad]), a[bad])
        self.rewards.fill(0.0)
        over = self._phase == OVER  # lanes left over (autoreset=False) keep their flags
        np.greater(over, self._ended_truncated, out=self.terminal)
        np.logical_and(over, self._ended_truncated, out=self.truncated)
        self._final = None
        self._mask = None
        ph = self._phase.take(idx)
        counts = np.bincount(ph, minlength=NUM_PHASES)
        for p, handler in self._handlers:
            c = counts[p]
            if c == 0:
                continue
            if c == len(idx):
                handler(idx, a)
                break
            sel = ph == p
            handler(idx[sel], a[sel])
        self._transitions()

    # ---- helpers ---------------------------------------------------------------------------------------
    def _clear_queues(self) -> None:
        """Lanes whose deal moves on after the moves of a step, gathered so that each transition
        runs once per step: bidding over, tricks to start, void deals, pots won (lane, seat, chips)."""
        self._q_bidding: list[np.ndarray] = []
        self._q_play: list[np.ndarray] = []
        self._q_void: list[np.ndarray] = []
        self._q_win: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def _base(self, L: np.ndarray) -> np.ndarray:
        """``[k, n]`` flat offsets of every viewer's observation row in lanes ``L``."""
        return (L * self._nS)[:, None] + self._vrow

    def _relk(self, s: np.ndarray) -> np.ndarray:
        """``[k, n]``: seat ``s`` relative to each viewer."""
        return self._rel.take(s, axis=0)

    def _set_status(self, L: np.ndarray, s: np.ndarray, st, base: np.ndarray, relk: np.ndarray) -> None:
        ls = L * self.num_players + s
        pos = base + (relk * NUM_STATUS + self.o_status)
        Of = self._of
        Of[pos + self._stf.take(ls)[:, None]] = 0.0
        Of[pos + np.asarray(st)[..., None]] = 1.0
        self._stf[ls] = st

    def _set_phase(self, L: np.ndarray, phase: int, base: np.ndarray | None = None) -> None:
        base = self._base(L) if base is None else base
        Of = self._of
        Of[base + (self.o_phase + self._phase.take(L))[:, None]] = 0.0
        Of[base + (self.o_phase + phase)] = 1.0
        self._phase[L] = phase

    def _stake_chips(self, L: np.ndarray, s: np.ndarray, chips, base: np.ndarray, relk: np.ndarray) -> None:
        ls = L * self.num_players + s
        net = self._netf.take(ls) - chips
        stake = self._stakef.take(ls) + chips
        pot = self._pot.take(L) + chips
        self._netf[ls] = net
        self._stakef[ls] = stake
        self._pot[L] = pot
        Of = self._of
        Of[base + (relk + self.o_net)] = net[:, None]
        Of[base + (relk + self.o_stake)] = stake[:, None]
        Of[base + self.o_pot] = pot[:, None]

    def _knock(self, L: np.ndarray, s: np.ndarray, base: np.ndarray, relk: np.ndarray, bet=None) -> None:
        """Mark knockers (their status is set by the caller); stakes: an auktion bet plus knock_stake."""
        self._knocked.reshape(-1)[L * self.num_players + s] = True
        self._any_knock[L] = True
        chips = bet
        if self.knock_stake:
            chips = self.knock_stake if bet is None else bet + self.knock_stake
        if chips is not None:
            self._stake_chips(L, s, chips, base, relk)

    def _put_stock(self, L: np.ndarray) -> None:
        self._obs[L, :, self.o_stock] = ((DECK_SIZE - self._ptr[L]) / 42.0)[:, None]

    def _first_in_order(self, L: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The first seat from forhånd whose ``flags [B, n]`` is set: (seat, found)."""
        n = self.num_players
        order = self._seat_of_rel.take((self._dealer.take(L) + 1) % n, axis=0)  # [k, n]
        f = flags.reshape(-1).take((L * n)[:, None] + order)
        j = np.arange(len(L)) * n + f.argmax(axis=1)
        return order.reshape(-1).take(j), f.reshape(-1).take(j)

    def _next_in_order(self, L: np.ndarray, s: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The next seat after ``s`` in seat order from forhånd (no wrap) whose flag is set: (seat, found)."""
        n = self.num_players
        fh = (self._dealer.take(L) + 1) % n
        order = self._seat_of_rel.take(fh, axis=0)
        f = flags.reshape(-1).take((L * n)[:, None] + order) & (self._seats[None, :] > ((s - fh) % n)[:, None])
        j = np.arange(len(L)) * n + f.argmax(axis=1)
        return order.reshape(-1).take(j), f.reshape(-1).take(j)

    def _next_clockwise(self, L: np.ndarray, s: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The next seat clockwise after ``s`` (wrapping, ``s`` itself last) whose flag is set: (seat, found)."""
        n = self.num_players
        after = self._after.take(s, axis=0)
        f = flags.reshape(-1).take((L * n)[:, None] + after)
        j = np.arange(len(L)) * n + f.argmax(axis=1)
        return after.reshape(-1).take(j), f.reshape(-1).take(j)

    # ---- moves -------------------------------------------------------------------------------------
    def _bid(self, L: np.ndarray, a: np.ndarray) -> None:
        n = self.num_players
        s = self._cp.take(L)
        if self.skituppslag:
            show = a == self.A_SHOW
            if show.any():
                self._show(L[show], s[show])
                if show.all():
                    return
                keep = ~show
                L, a, s = L[keep], a[keep], s[keep]
        base, relk = self._base(L), self._relk(s)
        if self.auktion:
            bet = a != PASS
            self._set_status(L, s, np.where(bet, KNOCKED, PASSED), base, relk)
            if bet.any():
                K, k, bK, rK = L[bet], a[bet] - (self.A_BET1 - 1), base[bet], relk[bet]
                self._hbet[K] = k
                Of, k1 = self._of, k[:, None]
                Of[bK + (rK + self.o_abet)] = k1
                Of[bK + self.o_hbet] = k1
                self._knock(K, s[bet], bK, rK, bet=k)
        else:
            self._set_status(L, s, _BID_STATUS.take(a), base, relk)
            knock = a == KNOCK
            if knock.all():
                self._knock(L, s, base, relk)
            elif knock.any():
                self._knock(L[knock], s[knock], base[knock], relk[knock])
        circle = self._circle.take(L) + 1
        self._circle[L] = circle
        more = circle < n
        if more.all():
            self._cp[L] = (s + 1) % n
            return
        if more.any():
            self._cp[L[more]] = (s[more] + 1) % n
            L = L[~more]
        # the circle is over: players who waited decide in seat order from forhånd
        waiting = self._status == WAITING
        first, found = self._first_in_order(L, waiting)
        if found.all():
            self._set_phase(L, DECIDE)
            self._cp[L] = first
            return
        if found.any():
            D = L[found]
            self._set_phase(D, DECIDE)
            self._cp[D] = first[found]
            L = L[~found]
        self._q_bidding.append(L)

    def _show(self, L: np.ndarray, s: np.ndarray) -> None:
        """Skituppslag: the hand is shown to everyone and wins the pot at once."""
        relk = self._relk(s)
        self._set_status(L, s, SHOWED, self._base(L), relk)
        h = self._hand.reshape(-1, R).take(L * self.num_players + s, axis=0)  # the three dealt cards
        self._obs[L, :, self.o_shown : self.o_shown + R] += h[:, None, :]
        self._kn[L] += h[:, None, :] * (relk != 0)[:, :, None].astype(np.int8)  # everyone else learns them
        self._q_win.append((L, s, self._pot.take(L)))

    def _decide(self, L: np.ndarray, a: np.ndarray) -> None:
        s = self._cp.take(L)
        base, relk = self._base(L), self._relk(s)
        knock = a == KNOCK
        self._set_status(L, s, np.where(knock, KNOCKED, PASSED), base, relk)
        if knock.any():
            self._knock(L[knock], s[knock], base[knock], relk[knock])
        nxt, found = self._next_in_order(L, s, self._status == WAITING)
        if found.all():
            self._cp[L] = nxt
            return
        if found.any():
            self._cp[L[found]] = nxt[found]
        self._q_bidding.append(L[~found])

    def _after_bidding(self, L: np.ndarray) -> None:
        n = self.num_players
        knockers = self._status.take(L, axis=0) == KNOCKED  # [k, n]
        count = knockers.sum(axis=1)
        zero, one, go = count == 0, count == 1, count >= 2
        if zero.any():
            self._q_void.append(L[zero])
        if one.any():
            W = L[one]
            self._q_win.append((W, knockers[one].argmax(axis=1), self._pot.take(W)))
        if not go.any():
            return
        if not go.all():
            j = np.flatnonzero(go)
            G, knockers, count = L[j], knockers[j], count[j]
        else:
            G = L
        self._active[G] = knockers
        self._n_active[G] = count
        # each knocker in seat order from forhånd gets the next two stock cards: the one with m knockers
        # before it in that order gets stock cards 2m and 2m + 1 (computed for every seat, added for knockers)
        rel = (self._seats[None, :] - (self._dealer.take(G) + 1)[:, None]) % n  # [k, s]: place from forhånd
        before = (knockers[:, None, :] & (rel[:, None, :] < rel[:, :, None])).sum(axis=2)  # [k, s]
        ptr = self._ptr.take(G)
        first = (G * DECK_SIZE + ptr)[:, None] + EXTRA_CARDS * before
        ls = (G * n)[:, None] + self._seats
        base = self._base(G)
        deck, add, Of = self._deck.reshape(-1), knockers.astype(np.int8), self._of
        for c in range(EXTRA_CARDS):  # one card per (lane, seat) per round: no repeated index
            r = deck.take(first + c) >> 1
            idx = ls * R + r
            held = self._hf.take(idx) + add
            self._hf[idx] = held
            self._heldf[ls] |= add.astype(np.int64) << r
            self._knf[idx] += add
            Of[base + (self.o_hand + r)] = held  # each viewer's own hand
        self._ptr[G] = ptr + EXTRA_CARDS * count
        self._put_stock(G)
        if self.poker:
            self._set_phase(G, EXCHANGE, base)
            self._cp[G] = self._first_in_order(G, self._active)[0]
        else:
            self._q_play.append(G)

    def _exchange(self, L: np.ndarray, a: np.ndarray) -> None:
        n, S = self.num_players, self.obs_size
        s = self._cp.take(L)
        done = a == self.A_DONE
        Of = self._of
        if not done.all():
            keep = ~done
            D, sd, r = L[keep], s[keep], a[keep] - self.A_DISCARD0
            ls = D * n + sd
            hidx = ls * R + r
            left = self._hf.take(hidx) - 1
            self._hf[hidx] = left
            self._heldf[ls] &= ~((left == 0).astype(np.int64) << r)
            Of[ls * S + (self.o_hand + r)] = left
            Of[ls * S + (self.o_odisc + r)] += 1.0
            pend = self._pending.take(D) + 1
            self._pending[D] = pend
            Of[self._base(D) + (self._relk(sd) + self.o_exch)] = pend[:, None]
            if not done.any():
                return
            L, s = L[done], s[done]
        # done: draw as many as were discarded
        pend, ptr = self._pending.take(L), self._ptr.take(L)
        ls = L * n + s
        deck = self._deck.reshape(-1)
        for j in range(MAX_DISCARDS):
            m = pend > j
            if not m.any():
                break
            r = deck.take(L[m] * DECK_SIZE + ptr[m] + j) >> 1
            idx = ls[m] * R + r
            self._hf[idx] += 1
            self._knf[idx] += 1
            self._heldf[ls[m]] |= np.left_shift(1, r)
        self._obs[L, s, self.o_hand : self.o_hand + R] = self._hand.reshape(-1, R).take(ls, axis=0)
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
        n = self.num_players
        s = self._cp.take(L)
        self._needf[L * n + s] = False
        base, relk = self._base(L), self._relk(s)
        fold = a == self.A_FOLD
        if fold.any():
            fi = np.flatnonzero(fold)
            F, sf = L[fi], s[fi]
            self._set_status(F, sf, FOLDED, base[fi], relk[fi])
            self._activef[F * n + sf] = False
            left = self._n_active.take(F) - 1
            self._n_active[F] = left
            last = left == 1
            if last.any():  # one player left: it takes the pot at once
                W = F[last]
                self._q_win.append((W, self._active.take(W, axis=0).argmax(axis=1), self._pot.take(W)))
                keep = np.ones(len(L), dtype=bool)
                keep[fi[last]] = False
                L, a, s, base, relk = L[keep], a[keep], s[keep], base[keep], relk[keep]
        Of = self._of
        up = (a == self.A_PBET) | (a == self.A_RAISE)
        if up.any():
            U, su, bU = L[up], s[up], base[up]
            rz = a[up] == self.A_RAISE
            if rz.any():
                Z = U[rz]
                raises = self._raises.take(Z) + 1
                self._raises[Z] = raises
                Of[bU[rz] + self.o_raises] = raises[:, None]
            level = self._level.take(U) + self.ante
            self._level[U] = level
            Of[bU + self.o_level] = level[:, None]
            self._need[U] = self._active.take(U, axis=0) & (self._seats[None, :] != su[:, None])
        pay = up | (a == self.A_CALL)
        if pay.any():
            P, sp, bP, rP = L[pay], s[pay], base[pay], relk[pay]
            lsP = P * n + sp
            level = self._level.take(P)
            chips = level - self._rbf.take(lsP)
            self._rbf[lsP] = level
            Of[bP + (rP + self.o_rbet)] = level[:, None]
            self._stake_chips(P, sp, chips, bP, rP)
        nxt, found = self._next_clockwise(L, s, self._need)
        if found.any():
            self._cp[L[found]] = nxt[found]
        if not found.all():
            self._q_play.append(L[~found])

    def _start_play(self, L: np.ndarray) -> None:
        """Tricks among the active knockers; the first of them from forhånd leads."""
        self._set_phase(L, PLAY)
        first = self._first_in_order(L, self._active)[0]
        self._leader[L] = first
        self._of[self._base(L) + (self._relk(first) + self.o_leader)] = 1.0
        self._cp[L] = first

    def _play(self, L: np.ndarray, a: np.ndarray) -> None:
        n, S = self.num_players, self.obs_size
        s = self._cp.take(L)
        r = a - PLAY0
        Of = self._of
        ls = L * n + s
        hidx = ls * R + r
        left = self._hf.take(hidx) - 1
        self._hf[hidx] = left
        self._heldf[ls] &= ~((left == 0).astype(np.int64) << r)
        Of[ls * S + (self.o_hand + r)] = left
        base, relk = self._base(L), self._relk(s)
        r1 = r[:, None]
        t = base + (relk * R + r1)
        pidx = t + self.o_played
        Of[pidx] = Of.take(pidx) + 1.0
        Of[t + self.o_trick] = 1.0
        self._trf[ls] = r
        kidx = (L * (n * R) + r)[:, None] + self._seats_r  # every seat's located copies of rank r
        self._knf[kidx] = self._knf.take(kidx) + (relk != 0)  # all but the player learn the card
        hi = self._highest.take(L)
        beats = r >= hi  # of equal cards the later one counts higher
        X, rX, sX, hX, bX, relX = L, r, s, hi, base, relk
        if not beats.all():
            j = np.flatnonzero(beats)
            X, rX, sX, hX, bX, relX = L[j], r[j], s[j], hi[j], base[j], relk[j]
        if X.size:
            # clear the old highest card and winning seat (when leading they are clear: rewrite the new ones)
            had = hX >= 0
            old_r = np.where(had, hX, rX)
            old_w = np.where(had, self._winning.take(X), sX)
            Of[bX + (self.o_high + old_r)[:, None]] = 0.0
            Of[bX + (self._relk(old_w) + self.o_winning)] = 0.0
            Of[bX + (self.o_high + rX)[:, None]] = 1.0
            Of[bX + (relX + self.o_winning)] = 1.0
            self._highest[X] = rX
            self._winning[X] = sX
        tl = self._trick_len.take(L) + 1
        self._trick_len[L] = tl
        full = tl == self._n_active.take(L)
        if not full.all():
            C = L[~full]
            self._cp[C] = self._next_clockwise(C, s[~full], self._active)[0]
            if not full.any():
                return
            L, base = L[full], base[full]
        # the trick is complete: clear its cards, the highest one and the seat winning it; count it
        w = self._winning.take(L)
        relw = self._relk(w)
        tr = self._trick_rank.take(L, axis=0)  # [k, seat]; -1 for seats out of play (clear their rank 0: it is 0)
        Of[base[:, None, :] + (self._rel_r_trick + np.maximum(tr, 0)[:, :, None])] = 0.0
        Of[base + (self.o_high + self._highest.take(L))[:, None]] = 0.0
        Of[base + (relw + self.o_winning)] = 0.0
        self._trick_len[L] = 0
        self._trick_rank[L] = -1
        self._highest[L] = -1
        self._winning[L] = -1
        lw = L * n + w
        won = self._wonf.take(lw) + 1
        self._wonf[lw] = won
        Of[base + (relw + self.o_won)] = won[:, None]
        tn = self._trick_no.take(L) + 1
        self._trick_no[L] = tn
        last = tn == TRICKS
        if last.any():
            self._settle(L[last], w[last])
            if last.all():
                return
            go = ~last
            L, w, base, relw = L[go], w[go], base[go], relw[go]
        Of[base + (self._relk(self._leader.take(L)) + self.o_leader)] = 0.0
        Of[base + (relw + self.o_leader)] = 1.0
        self._leader[L] = w
        self._cp[L] = w

    # ---- the end of a deal ------------------------------------------------------------------------
    def _settle(self, L: np.ndarray, w: np.ndarray) -> None:
        """The fifth-trick winner takes the pot after the other knockers pay in what it held."""
        held = self._pot.take(L)
        payers = self._active.take(L, axis=0) & (self._seats[None, :] != w[:, None])
        self._net[L] -= held[:, None] * payers
        self._pot[L] = held * (1 + payers.sum(axis=1))  # integral chips: the same as paying in one by one
        self._q_win.append((L, w, held if self.payments_stay else self._pot.take(L)))

    def _transitions(self) -> None:
        """Run the transitions the moves of this step queued, each once for all its lanes: the end
        of bidding, the start of tricks, void deals (redeal or truncate), pots won, the ends of
        episodes and (auto-reset) new episodes; then one deal for every lane that needs one."""
        n = self.num_players
        if self._q_bidding:
            self._after_bidding(_cat(self._q_bidding))
        if self._q_play:
            self._start_play(_cat(self._q_play))
        ended, ended_trunc = [], []
        redeal = None
        if self._q_void:
            V = _cat(self._q_void)
            trunc = self._deals.take(V) >= self.max_deals
            if trunc.any():  # max_deals void deals: the pot is shared out
                T = V[trunc]
                self._net[T] += (self._pot.take(T) / n)[:, None]
                self._pot[T] = 0.0
                ended.append(T)
                ended_trunc.append(np.ones(len(T), dtype=bool))
                V = V[~trunc]
            if V.size:
                redeal = V
                if self.ante_on_redeal:
                    self._net[V] -= self.ante
                    self._pot[V] += self.ante * n
        if self._q_win:
            W = _cat([q[0] for q in self._q_win])
            w = _cat([q[1] for q in self._q_win])
            take = _cat([q[2] for q in self._q_win])
            self._net.reshape(-1)[W * n + w] += take
            self._pot[W] -= take
            self._winner[W] = w
            self._pot_won[W] = take
            ended.append(W)
            ended_trunc.append(np.zeros(len(W), dtype=bool))
        self._clear_queues()
        E = None
        if ended:
            E, tr = _cat(ended), _cat(ended_trunc)
            order = np.argsort(E)
            E, tr = E[order], tr[order]
            self._end(E, tr)
        new = E if E is not None and self.autoreset else None
        if redeal is None and new is None:
            return
        if new is not None:
            self._final = {
                "lanes": E,
                "seat": self._cp.take(E),
                "obs": self._obs.take(E, axis=0),
                "known": self._kn.take(E, axis=0),
                "info": self._info_of(E),
            }
            self._new_episode(E)
        if redeal is None:
            dealers, decks = self._draw(new, True, True)
            self._deal(new, decks, dealers)
            return
        _, decks = self._draw(redeal, False, True)
        dealers = (self._dealer.take(redeal) + 1) % n  # the next dealer deals again
        if new is not None:
            new_dealers, new_decks = self._draw(new, True, True)
            redeal = np.concatenate((redeal, new))
            decks = np.concatenate((decks, new_decks))
            dealers = np.concatenate((dealers, new_dealers))
        self._deal(redeal, decks, dealers)

    def _end(self, E: np.ndarray, truncated: np.ndarray) -> None:
        base, sor, Of = self._base(E), self._seat_of_rel, self._of
        self._set_phase(E, OVER, base)
        b3 = base[:, :, None] + self._seats  # [k, viewer, rel]
        Of[b3 + self.o_net] = self._net.take(E, axis=0)[:, sor]
        Of[b3 + self.o_stake] = self._stake.take(E, axis=0)[:, sor]
        Of[base + self.o_pot] = self._pot.take(E)[:, None]
        self.rewards[E] = self._net[E]
        self.carry[E] = self._pot[E]
        self._ended_truncated[E] = truncated
        self.terminal[E] = ~truncated
        self.truncated[E] = truncated

    # ---- views ----------------------------------------------------------------------------------
    def _rows(self, seats, lanes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if lanes is None:
            L = self._all
            seats = self._cp if seats is None else np.asarray(seats, dtype=np.int64)
        else:
            L = self._lanes(lanes)
            seats = self._cp.take(L) if seats is None else np.asarray(seats, dtype=np.int64)
        return L, seats, L * self.num_players + seats

    def observe(self, seats=None, lanes=None) -> np.ndarray:
        """``[k, S]`` float32 observations of ``seats`` (one seat per lane; default: the seats on
        move) in ``lanes`` (default all): a fresh array."""
        L, seats, rows = self._rows(seats, lanes)
        out = self._obs.reshape(-1, self.obs_size).take(rows, axis=0)
        live = np.flatnonzero(self._phase.take(L) != OVER)
        rel = (self._cp.take(L[live]) - seats[live]) % self.num_players
        out.reshape(-1)[live * self.obs_size + self.o_to_move + rel] = 1.0
        return out

    def observation(self) -> np.ndarray:
        """``[B, S]`` float32 observations of the seats on move (a fresh array)."""
        out = self._obs.reshape(-1, self.obs_size).take(self._all_n + self._cp, axis=0)
        out[:, self.o_to_move] = self._phase != OVER
        return out

    @staticmethod
    def _unseen_of(known: np.ndarray) -> np.ndarray:
        """``unseen`` bits from the copies located per rank: bit 2r is set while a copy of r is
        unseen, bit 2r + 1 while both are (the scalar ``_learn`` clears the high bit first)."""
        return _UNSEEN_PAIR.take(known).view(np.int8)

    def unseen(self, seats=None, lanes=None) -> np.ndarray:
        """``[k, 42]`` int8 ``unseen`` of ``seats`` (default: the seats on move) in ``lanes``."""
        rows = self._rows(seats, lanes)[2]
        return self._unseen_of(self._kn.reshape(-1, R).take(rows, axis=0))

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
        n = self.num_players

        def per_seat(x: np.ndarray) -> np.ndarray:
            return np.repeat(x[:, None], n, axis=1)

        return {
            "chips": self._net.take(L, axis=0),
            "pot": per_seat(self._pot.take(L)),
            "knocked": self._knocked.take(L, axis=0),
            "pot_won": per_seat(self._pot_won.take(L)),
            "winner": per_seat(self._winner_names.take(self._winner.take(L) + 1)),
            "deals": per_seat(self._deals.take(L)),
        }

    def info(self) -> dict[str, np.ndarray]:
        """The end-of-episode result fields per lane and seat, ``[B, n]`` each (valid where the
        episode is over), those of ``FemkortskilleEngine.info``: ``chips`` (net change), ``pot``,
        ``pot_won`` (float), ``knocked`` (bool), ``deals`` (int) and ``winner`` (an object array of
        agent names, None on truncation). After an auto-reset ``final_info()`` holds the ended ones."""
        return self._info_of(self._all)

    def lane_infos(self, lanes, seats) -> list[dict]:
        """The scalar engine's ``info(seat)`` per finished lane, ``truncated_by`` included where it was cut."""
        rows = super().lane_infos(lanes, seats)
        for lane, row in zip(lanes, rows, strict=True):
            if self.truncated[lane]:
                row["truncated_by"] = "max_deals"
        return rows

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
