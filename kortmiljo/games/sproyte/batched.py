"""Sprøyte for B games at once: the scalar engine's rules as numpy arrays with a batch axis.

:class:`BatchedSproyte` plays ``num_envs`` independent games (*lanes*) in lock step, in
every form (``vanlig``, ``variasjon``, ``tretten``) and with every option of
:class:`~.rules.SproyteEngine` (``exchange_quota``, ``trump``, ``match_to``, ``reward``). It
is a speed path, not a second definition of the rules (those are described in
docs/sproyte.md): :mod:`.rules` stays the readable reference, and
``tests/differential/test_sproyte_batched.py`` drives both engines with the same decks,
dealers and actions and requires identical masks, observations, ``unseen``, card locations,
rewards, players on move and terminations at every step.

It follows the interface and conventions of :class:`~kortmiljo.games.spokelse.batched.BatchedSpokelse`
(the model for every batched engine; :mod:`kortmiljo.env.vector` drives them through that
protocol): the same constructor, ``lane_rng`` streams, ``reset``/``step``/``legal_mask``/
``observation``/``unseen``/``observe``/``final_observation``/``info`` and the same error.

State (``S`` = the layout's size; all arrays have the lane axis first):

* where every card is, ``loc [B, 52]`` in the scalar engine's location codes (``locations()``):
  a seat's hand is ``loc == seat``, so the legal mask of the seat on move is one comparison
  plus a suit filter; the deal's deck order ``[B, 52]`` (the exchange pile is
  ``deck[36 + pile_pos : 36 + pile_len]``, drawn front first as in the scalar engine);
* the preparation (phase, seat on move, the index of the seat exchanging or offered the
  talon, the carried allowance, per-seat exchange counts, the current limit), the contract,
  trump and shown card, the trick (cards in play order, its length, leader, suit led), the
  previous trick per seat (to clear its observation bits), tricks won, trick and deal
  numbers, match totals;
* per seat ``unseen [B, 3, 52]`` and the observation buffers ``[B, 3, S]``, updated in place
  by each step with a few flat scatters, exactly as the scalar engine updates its per-seat
  buffers, and written from scratch only when a deal starts. As in the scalar engine the
  buffers leave out the fields that depend on the moment (``phase``, ``to_move``, ``leader``,
  ``exchange_left``); ``observe``/``observation`` add them to the rows they gather.

Per step: ``legal_mask() -> [B, 107]``, ``observation() -> [B, S]`` and ``unseen() ->
[B, 52]`` for the seat on move (``observe(seats, lanes)``/``unseen(seats, lanes)`` for any
seats), ``step(actions)`` with an optional lane mask, then ``rewards [B, 3]`` (of this step),
``terminal [B]``, ``truncated [B]`` (a match cut at ``max_deals``) and ``current_player [B]``.

**Randomness (replayable by the scalar engine).** Lane ``i`` owns the generator
``lane_rng(seed, i)`` (the ``i``-th child of ``SeedSequence(seed).spawn``, whatever ``B``
is), or the generator passed in ``rngs[i]``. Every episode a lane starts from its own stream
uses that generator exactly as ``SproyteEngine.new_episode(rng)`` uses its ``rng``: the first
dealer by ``draw_dealer(rng)`` (``rng.integers(3)``; unless dealers are given), then the deck
by ``rng.permutation(len(deck))`` over the variant's cards (unless decks are given), and
each later deal of a match by another ``rng.permutation``. So
``SproyteEngine(**options).new_episode(lane_rng(seed, i))`` followed by the lane's actions
replays lane ``i`` exactly, auto-resets included (each new episode is another
``new_episode`` call with the same generator).

**Auto-reset** (``autoreset=True``, the default): a lane whose game ends in ``step`` is dealt
a new episode from its stream at the end of that same call. ``rewards`` and ``terminal``
still describe the step just taken (the final rewards, ``True``), while the lane's state,
mask and observations are already those of the new episode (PGX's convention).
``final_observation(seats)`` gives the observation and ``unseen`` those lanes had when their
game ended, and ``final_info()`` their result fields. With ``autoreset=False`` a finished
lane keeps its final state (mask all zeros) until ``reset(lanes=…)``.

Results: ``info()`` gives the numeric result fields ``[B, 3]`` (``tricks``, ``deal_points``,
``match_points``), ``contract``/``trump`` are per-lane codes, and ``lane_info(lane, seat)`` is
``SproyteEngine.info(seat)`` with the names (``"nullo"``, ``"H"``).

Speed: plain numpy (numba would be optional and is not needed for the target). At B = 1024 a
step with mask, observation and ``unseen`` costs about 1.2 µs per lane of one core; what
remains is mostly the observation gather (a fresh ``[B, S]`` float32 array), the scatters of
the trick play, and the per-lane generator draws of auto-reset (each lane's own stream).

Illegal actions: ``step`` checks every stepped lane first and raises
:class:`BatchedIllegalActionError` (a ``ValueError``) naming the first bad lane, its seat,
the action and the legal actions, before any lane is changed.
"""

from __future__ import annotations

import numpy as np

# one error class and one stream rule for every batched engine (callers catch one type)
from ...core.batched import BatchedEngine, BatchedIllegalActionError, lane_rng
from ...core.cards import SUITS
from ...core.tricks import ACE_HIGH
from .game import (
    CONTRACT_NAMES,
    DISCARD0,
    DONE,
    KEEP,
    LOC_HAND,
    LOC_NOT_IN_DECK,
    LOC_OUT,
    LOC_PILE,
    LOC_TABLE,
    LOC_TALON,
    LOC_WON,
    MAX_PILE,
    MAX_POINTS,
    MAX_TRICKS,
    NUM_ACTIONS,
    PLAY0,
    ROTATION,
    TAKE_TALON,
    TRUMP,
    Phase,
    contract_of_shown,
    deal_points,
)

__all__ = ["BatchedSproyte", "BatchedIllegalActionError", "lane_rng"]

N = 3
EXCHANGE, TALON, PLAY, OVER = int(Phase.EXCHANGE), int(Phase.TALON), int(Phase.PLAY), int(Phase.OVER)

REL = (np.arange(N)[:, None] - np.arange(N)[None, :]) % N  # [subject seat, viewer]: relative seat
SEAT_OF_REL = (np.arange(N)[:, None] + np.arange(N)[None, :]) % N  # [viewer, relative seat]: absolute seat
# suit filter by suit led; row 4 = nothing led (everything passes)
SUIT_FILTER = np.zeros((5, 52), dtype=bool)
for _s in range(4):
    SUIT_FILTER[_s, 13 * _s : 13 * _s + 13] = True
SUIT_FILTER[4] = True
STRENGTH = np.array([ACE_HIGH[c % 13] for c in range(52)], dtype=np.int64)  # 0 (two) … 12 (ace)
SHOWN_CONTRACT = np.array([contract_of_shown(c)[0] for c in range(52)], dtype=np.int64)
SHOWN_TRUMP = np.array([-1 if contract_of_shown(c)[1] is None else contract_of_shown(c)[1] for c in range(52)])
POINTS = np.array([[deal_points(t, k) for t in range(MAX_TRICKS + 1)] for k in range(3)], dtype=np.int64)
POINTS_OBS = POINTS / MAX_POINTS  # float64, rounded to float32 on store as in the scalar engine
TRICKS_OBS = np.arange(MAX_TRICKS + 1) / MAX_TRICKS


class BatchedSproyte(BatchedEngine):
    """``num_envs`` Sprøyte games as arrays (see the module docstring).

    ``seed``: seeds the lanes' generators (``lane_rng``); ``rngs``: one generator per lane
    instead. ``autoreset``: deal finished lanes anew inside ``step``. Options are the scalar
    engine's (``variant``, ``exchange_quota``, ``trump``, ``match_to``, ``reward``, ``max_deals``),
    validated by it. The batch starts dealt: the constructor calls ``reset()``.

    ``max_deals`` cuts a match as the scalar engine cuts it: after its last deal the lane is over
    (phase over, rewards 0) and ``truncated`` is True, not ``terminal``; with ``autoreset=False``
    until the lane is reset.
    """

    NAME = "sproyte"
    # per-lane state (setup's "state"; _uf, _of and _rows are views of _unseen and _obs, _rowbase and
    # _all3 constants), what copy_lanes copies
    LANE_STATE = tuple(
        "_deck _loc _dealer _phase _cp _prep _carry _ex_count _ex_limit _pile_pos _shown _shown_holder "
        "_contract _trump _talon_taker _trick _tlen _leader _led _last _tricks _trick_no deal_no totals "
        "final_points _unseen _obs rewards terminal truncated _cut".split()
    )

    def setup(self) -> None:
        spec = self.game  # the configured game: layout offsets, quotas, deck
        B, S = self.num_envs, self.obs_size
        self.variant = spec.variant
        self.tretten = spec.tretten
        self.hand_size = spec.hand_size
        self.num_tricks = spec.num_tricks
        self.cards = np.array(spec.deck.cards, dtype=np.int64)  # the variant's cards, index order
        self.deck_size = D = len(self.cards)
        self.pile_start = 0 if self.tretten else N * self.hand_size
        self.pile_len = 0 if self.tretten else D - self.pile_start
        self.quota = np.array(list(spec.quota) + [0], dtype=np.int64)  # padded: index 3 after the dealer
        self.fixed_trump = spec.fixed_trump
        self.match_to = spec.match_to
        self.max_deals = spec.max_deals
        self.raw_reward = spec.raw_reward

        for name in (
            "o_hand o_contract o_trump o_shown o_shown_holder o_phase o_to_move o_dealer o_pile o_ex_left "
            "o_exchanged o_ex_done o_out o_talon_keep o_talon_took o_trick o_leader o_last o_played o_voids "
            "o_tricks o_points o_match"
        ).split():
            setattr(self, name, getattr(spec, name))

        assert self.o_last == self.o_leader + N, "_complete_trick relies on leader bits just before last_trick"
        # who gets deck position i, as an offset from the dealer (1 forhånd, 2 middle, 3 ≡ 0 dealer);
        # -1: the pile (or in tretten the talon)
        off = np.full(D, -1, dtype=np.int64)
        if self.tretten:
            k = np.arange(D) & 3
            off[k < 3] = 1 + k[k < 3]
        else:
            off[: self.pile_start] = 1 + np.arange(self.pile_start) % N
        self._deal_off = off
        self._rest_code = LOC_TALON if self.tretten else LOC_PILE
        self._deck_mask = spec._deck_mask.astype(bool)
        # per [subject seat, viewer] flat offsets inside a viewer's row
        self._blk = 52 * REL  # a subject's 52-wide block in trick / last_trick / played
        self._trick_played = np.stack((self.o_trick + self._blk, self.o_played + self._blk), axis=2)  # [s, v, 2]
        self._void_base = self.o_voids + 4 * REL
        self._v52 = 52 * np.arange(N)

        # state
        self._deck = np.zeros((B, 52), dtype=np.int64)
        self._loc = np.full((B, 52), LOC_NOT_IN_DECK, dtype=np.int8)
        self._dealer = np.zeros(B, dtype=np.int64)
        self._phase = np.zeros(B, dtype=np.int64)
        self._cp = np.zeros(B, dtype=np.int64)
        self._prep = np.zeros(B, dtype=np.int64)
        self._carry = np.zeros(B, dtype=np.int64)
        self._ex_count = np.zeros((B, N), dtype=np.int64)
        self._ex_limit = np.zeros(B, dtype=np.int64)
        self._pile_pos = np.zeros(B, dtype=np.int64)
        self._shown = np.full(B, -1, dtype=np.int64)
        self._shown_holder = np.full(B, -1, dtype=np.int64)
        self._contract = np.zeros(B, dtype=np.int64)
        self._trump = np.full(B, -1, dtype=np.int64)
        self._talon_taker = np.full(B, -1, dtype=np.int64)
        self._trick = np.zeros((B, N), dtype=np.int64)  # cards of the current trick in play order
        self._tlen = np.zeros(B, dtype=np.int64)
        self._leader = np.zeros(B, dtype=np.int64)
        self._led = np.full(B, -1, dtype=np.int64)
        self._last = np.full((B, N), -1, dtype=np.int64)  # the previous trick, per seat
        self._tricks = np.zeros((B, N), dtype=np.int64)
        self._trick_no = np.zeros(B, dtype=np.int64)
        self.deal_no = np.zeros(B, dtype=np.int64)
        self.totals = np.zeros((B, N), dtype=np.int64)
        self.final_points = np.zeros((B, N), dtype=np.int64)
        self._unseen = np.zeros((B, N, 52), dtype=np.int8)
        self._uf = self._unseen.reshape(-1)
        self._obs = np.zeros((B, N, S), dtype=np.float32)
        self._of = self._obs.reshape(-1)
        self._rows = self._obs.reshape(B * N, S)
        self._rowbase = (np.arange(B)[:, None] * N + np.arange(N)[None, :]) * S  # [B, viewer]
        self._all3 = self._all * N
        self._mask: np.ndarray | None = None
        self.rewards = np.zeros((B, N), dtype=np.float64)
        self.terminal = np.zeros(B, dtype=bool)
        self._cut = np.zeros(B, dtype=bool)  # matches cut by max_deals, kept until reset (autoreset=False)
        self._final: dict | None = None

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
    def contract(self) -> np.ndarray:
        """``[B]`` contract codes (index into ``CONTRACT_NAMES``: trump, grand, nullo)."""
        return self._contract

    @property
    def trump(self) -> np.ndarray:
        """``[B]`` trump suit (0–3 = S H D C), -1 in grand and nullo."""
        return self._trump

    # ---- episodes --------------------------------------------------------------------------------
    def reset(self, decks=None, dealers=None, lanes=None, seed: int | None = None) -> None:
        """Start new episodes in ``lanes`` (all by default).

        ``decks``: ``[k, len(deck)]`` card ints (each row a permutation of the variant's cards:
        48 without the twos in ``vanlig``, else 52; top card first) or None to shuffle from each
        lane's stream; ``dealers``: ``[k]`` seats or None to draw them (``draw_dealer``) from the
        stream. ``seed`` re-seeds every lane first.
        """
        if seed is not None:
            self.seed(seed)
        L = self._lanes(lanes)
        k, D = len(L), self.deck_size
        if k == 0:
            return
        if dealers is not None:
            dealers = np.asarray(dealers, dtype=np.int64).reshape(-1)
            if dealers.shape != (k,) or dealers.min() < 0 or dealers.max() >= N:
                raise ValueError(f"dealers must be {k} seats 0..{N - 1}, got {dealers!r}")
        if decks is not None:
            decks = np.asarray(decks)
            if decks.shape != (k, D) or not np.issubdtype(decks.dtype, np.integer):
                raise ValueError(f"decks must be an int array of shape ({k}, {D}), got {decks.dtype} {decks.shape}")
            bad = np.flatnonzero((np.sort(decks, axis=1) != self.cards).any(axis=1))
            if bad.size:
                raise ValueError(
                    f"deck of lane {int(L[bad[0]])} is not a permutation of the {self.game.deck.name} deck's cards"
                )
            decks = decks.astype(np.int64)
        if dealers is None or decks is None:  # the scalar engine's order: dealer first, then the deck
            rngs = self.rngs
            drawn_dealers, perms = [], []
            for lane in L.tolist():
                r = rngs[lane]
                if dealers is None:
                    drawn_dealers.append(r.integers(N))
                if decks is None:
                    perms.append(r.permutation(D))
            if dealers is None:
                dealers = np.array(drawn_dealers, dtype=np.int64)
            if decks is None:
                decks = self.cards[np.array(perms)]
        self.totals[L] = 0
        self.deal_no[L] = 0
        self.rewards[L] = 0.0
        self.terminal[L] = False
        self.truncated[L] = False
        self._cut[L] = False
        self._deal(L, decks, dealers)

    def _deal(self, L: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        """Deal ``decks`` in ``lanes`` and write every seat's observation from scratch (the
        vectorized ``SproyteEngine._deal`` + ``_init_obs``)."""
        self._mask = None
        k, D, S = len(L), self.deck_size, self.obs_size
        rows = np.arange(k)
        self._deck[L, :D] = decks
        self._dealer[L] = dealers
        owner = np.where(self._deal_off >= 0, (dealers[:, None] + self._deal_off) % N, self._rest_code)
        loc = np.full((k, 52), LOC_NOT_IN_DECK, dtype=np.int8)
        loc[rows[:, None], decks] = owner
        self._loc[L] = loc
        if self.variant == "variasjon":
            shown = decks[:, D - 1]
            contract = SHOWN_CONTRACT[shown]
            trump = SHOWN_TRUMP[shown]
        else:
            shown = np.full(k, -1, dtype=np.int64)
            contract = np.full(k, TRUMP, dtype=np.int64)
            if self.fixed_trump is not None:
                trump = np.full(k, self.fixed_trump, dtype=np.int64)
            else:
                trump = np.array(ROTATION, dtype=np.int64)[self.deal_no[L] % 4]
        self._shown[L] = shown
        self._shown_holder[L] = -1
        self._contract[L] = contract
        self._trump[L] = trump
        fh = (dealers + 1) % N
        self._phase[L] = TALON if self.tretten else EXCHANGE
        self._cp[L] = fh
        self._leader[L] = fh
        self._prep[L] = 0
        self._carry[L] = 0
        self._ex_count[L] = 0
        self._pile_pos[L] = 0
        # forhånd's limit: its quota, capped by the pile and its hand (nothing carried yet)
        self._ex_limit[L] = 0 if self.tretten else max(0, min(int(self.quota[0]), self.pile_len, self.hand_size))
        self._talon_taker[L] = -1
        self._tlen[L] = 0
        self._led[L] = -1
        self._last[L] = -1
        self._tricks[L] = 0
        self._trick_no[L] = 0
        # knowledge: the variant's deck less the own hand and the shown card
        own = loc[:, None, :] == np.arange(N, dtype=np.int8)[None, :, None]  # [k, viewer, 52]
        u = self._deck_mask[None, None, :] & ~own
        has_shown = shown >= 0
        if has_shown.any():
            u[rows[has_shown], :, shown[has_shown]] = False
        self._unseen[L] = u
        # observations
        O = np.zeros((k, N, S), dtype=np.float32)
        O[:, :, self.o_hand : self.o_hand + 52] = own
        O[rows, :, self.o_contract + contract] = 1.0
        t = trump >= 0
        if t.any():
            O[rows[t], :, self.o_trump + trump[t]] = 1.0
        if has_shown.any():
            O[rows[has_shown], :, self.o_shown + shown[has_shown]] = 1.0
        v = np.arange(N)[None, :]
        O[rows[:, None], v, self.o_dealer + (v - dealers[:, None]) % N] = 1.0
        O[:, :, self.o_pile] = self.pile_len / MAX_PILE
        O[:, :, self.o_points : self.o_points + N] = POINTS_OBS[contract, 0][:, None, None]
        if self.match_to is not None:
            O[:, :, self.o_match : self.o_match + N] = self.totals[L][:, SEAT_OF_REL] / self.match_to
        self._obs[L] = O

    # ---- moves -------------------------------------------------------------------------------------
    def _compute_mask(self) -> np.ndarray:
        B = self.num_envs
        cp = self._cp
        hand = self._loc == cp.astype(np.int8)[:, None]  # [B, 52]: the hand of the seat on move
        ph = self._phase
        M = np.zeros((B, NUM_ACTIONS), dtype=np.int8)
        play = ph == PLAY
        if play.any():
            f = hand & SUIT_FILTER[np.where(self._tlen > 0, self._led, 4)]
            follow = f.any(axis=1) & play  # a void seat (or the leader) may play any card
            M[:, PLAY0:] = np.where(follow[:, None], f, hand & play[:, None])
        ex = ph == EXCHANGE
        if ex.any():
            can = ex & (self._ex_count[self._all, cp] < self._ex_limit)
            M[:, DISCARD0 : DISCARD0 + 52] = hand & can[:, None]
            M[:, DONE] = ex
        if self.tretten:
            tal = ph == TALON
            M[:, TAKE_TALON] = tal
            M[:, KEEP] = tal
        return M

    def legal_mask(self) -> np.ndarray:
        """``[B, 107]`` int8 legal actions of the seat on move (all 0 where the game is over)."""
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask.copy()

    def legal_actions(self, lane: int) -> list[int]:
        """The legal action indices of one lane's seat on move (for messages and tests)."""
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
        inrange = (a >= 0) & (a < NUM_ACTIONS)
        ok = self._mask[idx, np.where(inrange, a, 0)].astype(bool) & inrange
        if not ok.all():
            j = int(np.argmin(ok))
            self.raise_illegal(int(idx[j]), a[j])
        self._mask = None
        self.rewards.fill(0.0)
        np.equal(self._phase, OVER, out=self.terminal)  # lanes left over (autoreset=False) stay terminal
        if self.max_deals is not None:  # cut matches left over stay truncated, not terminal
            np.copyto(self.truncated, self._cut)
            np.greater(self.terminal, self._cut, out=self.terminal)
        self._final = None
        play = a >= PLAY0
        if play.all():
            self._play(idx, a - PLAY0)
            return
        if play.any():
            self._play(idx[play], a[play] - PLAY0)
        rest = ~play
        R, ar = idx[rest], a[rest]
        disc = ar < DONE
        if disc.all():
            self._discard(R, ar - DISCARD0)
            return
        if disc.any():
            self._discard(R[disc], ar[disc] - DISCARD0)
        for code, fn in ((DONE, self._exchange_done), (TAKE_TALON, self._take_talon), (KEEP, self._keep)):
            m = ar == code
            if m.any():
                fn(R[m])

    def _discard(self, X: np.ndarray, c: np.ndarray) -> None:
        s = self._cp[X]
        self._loc[X, c] = LOC_OUT + s
        n = self._ex_count[X, s] + 1
        self._ex_count[X, s] = n
        Of, S = self._of, self.obs_size
        own = (X * N + s) * S
        Of[own + (self.o_hand + c)] = 0.0
        Of[own + (self.o_out + c)] = 1.0
        Of[self._rowbase[X] + (self.o_exchanged + REL[s])] = (n / 12.0)[:, None]

    def _exchange_done(self, X: np.ndarray) -> None:
        s = self._cp[X]
        k = self._ex_count[X, s]
        pp = self._pile_pos[X]
        Of, S = self._of, self.obs_size
        j = np.arange(self.pile_len)[None, :]
        r, jj = np.nonzero((j >= pp[:, None]) & (j < (pp + k)[:, None]))
        if r.size:  # the k cards below the pile pointer go to the hand
            lanes, seats = X[r], s[r]
            cards = self._deck[lanes, self.pile_start + jj]
            self._loc[lanes, cards] = seats
            row = lanes * N + seats
            Of[row * S + (self.o_hand + cards)] = 1.0
            self._uf[row * 52 + cards] = 0
        pp = pp + k
        self._pile_pos[X] = pp
        rb = self._rowbase[X]
        if self.variant == "variasjon":  # the shown card is the pile's last: a draw reaching the bottom takes it
            got = (pp == self.pile_len) & (k > 0)
            if got.any():
                self._shown_holder[X[got]] = s[got]
                Of[rb[got] + (self.o_shown_holder + REL[s[got]])] = 1.0
        Of[rb + self.o_pile] = ((self.pile_len - pp) / MAX_PILE)[:, None]
        Of[rb + (self.o_ex_done + REL[s])] = 1.0
        i = self._prep[X]
        carry = self.quota[i] + self._carry[X] - k
        self._carry[X] = carry
        i = i + 1
        self._prep[X] = i
        fin = i == N
        if fin.any():
            self._start_play(X[fin])
        go = ~fin
        if go.any():
            G = X[go]
            self._cp[G] = (self._dealer[G] + 1 + i[go]) % N
            # the next seat has not exchanged yet: its hand plus discards is the full hand
            allowance = self.quota[i[go]] + carry[go]
            lim = np.minimum(np.minimum(allowance, self.pile_len - pp[go]), self.hand_size)
            self._ex_limit[G] = np.maximum(lim, 0)

    def _take_talon(self, T: np.ndarray) -> None:
        s = self._cp[T]
        lt = self._loc[T]
        s8 = s.astype(np.int8)[:, None]
        old = lt == s8
        tal = lt == LOC_TALON
        self._loc[T] = np.where(old, s8 + LOC_OUT, np.where(tal, s8, lt))
        # nothing is out before a take (tretten has no exchange): the old hand is the out segment
        self._obs[T, s, self.o_hand : self.o_hand + 52] = tal
        self._obs[T, s, self.o_out : self.o_out + 52] = old
        self._unseen[T, s] &= ~tal
        self._of[self._rowbase[T] + (self.o_talon_took + REL[s])] = 1.0
        self._talon_taker[T] = s
        self._start_play(T)

    def _keep(self, K: np.ndarray) -> None:
        s = self._cp[K]
        self._of[self._rowbase[K] + (self.o_talon_keep + REL[s])] = 1.0
        i = self._prep[K] + 1
        self._prep[K] = i
        fin = i == N
        if fin.any():
            self._start_play(K[fin])
        go = ~fin
        if go.any():
            G = K[go]
            self._cp[G] = (self._dealer[G] + 1 + i[go]) % N

    def _start_play(self, L: np.ndarray) -> None:
        self._phase[L] = PLAY
        self._ex_limit[L] = 0
        fh = (self._dealer[L] + 1) % N
        self._leader[L] = fh
        self._cp[L] = fh

    def _play(self, P: np.ndarray, c: np.ndarray) -> None:
        Of, S = self._of, self.obs_size
        s = self._cp[P]
        suit = c // 13
        pos = self._tlen[P]
        led = np.where(pos == 0, suit, self._led[P])
        self._led[P] = led
        rb = self._rowbase[P]  # [k, viewer]
        off = suit != led  # not following reveals a void in the suit led
        if off.any():
            Of[rb[off] + (self._void_base[s[off]] + led[off][:, None])] = 1.0
        self._loc[P, c] = LOC_TABLE + s
        row = P * N
        self._uf[(row * 52 + c)[:, None] + self._v52] = 0
        Of[(row + s) * S + (self.o_hand + c)] = 0.0
        Of[rb[:, :, None] + (self._trick_played[s] + c[:, None, None])] = 1.0
        self._trick[P, pos] = c
        pos = pos + 1
        full = pos == N
        if not full.any():
            self._tlen[P] = pos
            self._cp[P] = (s + 1) % N
            return
        part = ~full
        if part.any():
            Q = P[part]
            self._tlen[Q] = pos[part]
            self._cp[Q] = (s[part] + 1) % N
        self._complete_trick(P[full], rb[full])

    def _complete_trick(self, C: np.ndarray, rb: np.ndarray) -> None:
        Of = self._of
        tc = self._trick[C]  # [k, position]
        ld = self._leader[C]
        ts = tc // 13
        score = np.where(
            ts == self._trump[C][:, None], 100 + STRENGTH[tc], np.where(ts == self._led[C][:, None], STRENGTH[tc], -1)
        )
        w = (ld + score.argmax(axis=1)) % N
        t = self._tricks[C, w] + 1
        self._tricks[C, w] = t
        self._loc[C[:, None], tc] = (LOC_WON + w)[:, None]
        seats = (ld[:, None] + np.arange(N)) % N  # [k, position]
        rbv = rb[:, None, :]
        at = rbv + (self._blk[seats] + tc[:, :, None])  # [k, position, viewer]: the trick's cards, rows + blocks
        # the trick moves to last_trick: clear the old last trick and the trick, write the new last.
        # Before the first trick the old last cards are -1: that clears o_last - 1 (a leader bit, always 0
        # in the buffers) and the last bit of two 52-blocks of last_trick, all 0 then anyway.
        Of[rbv + (self.o_last + self._blk[None] + self._last[C][:, :, None])] = 0.0
        Of[at + self.o_trick] = 0.0
        Of[at + self.o_last] = 1.0
        self._last[C[:, None], seats] = tc
        rw = REL[w]  # [k, viewer]
        Of[rb + (self.o_tricks + rw)] = TRICKS_OBS[t][:, None]
        Of[rb + (self.o_points + rw)] = POINTS_OBS[self._contract[C], t][:, None]
        self._tlen[C] = 0
        tn = self._trick_no[C] + 1
        self._trick_no[C] = tn
        self._leader[C] = w
        self._cp[C] = w
        end = tn == self.num_tricks
        if end.any():
            self._end_deal(C if end.all() else C[end])

    def _end_deal(self, E: np.ndarray) -> None:
        pts = POINTS[self._contract[E][:, None], self._tricks[E]]  # [k, seat]
        self.final_points[E] = pts
        totals = self.totals[E] + pts
        self.totals[E] = totals
        cut = np.zeros(len(E), dtype=bool)  # max_deals: matches cut after this deal (rewards 0)
        if self.match_to is not None:
            go = totals.max(axis=1) < self.match_to
            if self.max_deals is not None:
                cut = go & (self.deal_no[E] + 1 >= self.max_deals)
                go &= ~cut
            if go.any():  # the match goes on: the next deal comes from the lane's stream
                G = E[go]
                self.deal_no[G] += 1
                decks = self.cards[np.array([self.rngs[lane].permutation(self.deck_size) for lane in G.tolist()])]
                self._deal(G, decks, (self._dealer[G] + 1) % N)
                over = ~go
                E, totals, pts, cut = E[over], totals[over], pts[over], cut[over]
                if E.size == 0:
                    return
        self._phase[E] = OVER
        if self.match_to is not None:
            self._obs[E, :, self.o_match : self.o_match + N] = totals[:, SEAT_OF_REL] / self.match_to
            if self.raw_reward:
                r = totals.astype(np.float64)
            else:
                win = totals == totals.max(axis=1, keepdims=True)
                nw = win.sum(axis=1, keepdims=True)
                r = np.where(win, 1.0 / nw, -1.0 / np.maximum(N - nw, 1))
                r[nw[:, 0] == N] = 0.0
            r[cut] = 0.0
        elif self.raw_reward:
            r = pts.astype(np.float64)
        else:
            r = pts - (pts.sum(axis=1, keepdims=True) - pts) / 2.0
        if self.autoreset:
            obs = self._obs[E]  # the game is over: no seat on move, no leader, no exchange allowance
            obs[:, :, self.o_phase + OVER] = 1.0
            self._final = {
                "lanes": E,
                "seat": self._cp[E].copy(),
                "obs": obs,
                "unseen": self._unseen[E].copy(),
                "info": {
                    "tricks": self._tricks[E].copy(),
                    "deal_points": pts,
                    "match_points": totals if self.match_to is not None else pts.copy(),
                },
            }
            self.reset(lanes=E)
        else:
            self._cut[E[cut]] = True
        self.rewards[E] = r
        self.terminal[E] = ~cut
        self.truncated[E] = cut

    # ---- views ----------------------------------------------------------------------------------
    def _dynamic(self, out: np.ndarray, L: np.ndarray, seats: np.ndarray) -> None:
        """Add the fields that depend on the moment (phase, seat on move, leader, exchange
        allowance) to ``out [k, S]``, rows of the buffers of ``seats`` in lanes ``L``, as the
        scalar ``observe`` adds them to its copy of the seat's buffer."""
        k, S = len(L), self.obs_size
        of = out.reshape(-1)
        base = np.arange(k) * S
        ph = self._phase[L]
        of[base + (self.o_phase + ph)] = 1.0
        cp = self._cp[L]
        pos = base + (self.o_to_move + (cp - seats) % N)
        live = ph != OVER
        of[pos if live.all() else pos[live]] = 1.0
        play = ph == PLAY
        pos = base + (self.o_leader + (self._leader[L] - seats) % N)
        of[pos if play.all() else pos[play]] = 1.0
        ex = ph == EXCHANGE
        if ex.any():
            Le = L[ex]
            of[base[ex] + self.o_ex_left] = (self._ex_limit[Le] - self._ex_count[Le, cp[ex]]) / 12.0

    def _gather(self, seats, lanes) -> tuple[np.ndarray, np.ndarray]:
        if lanes is None:
            L = self._all
            seats = self._cp if seats is None else np.asarray(seats, dtype=np.int64)
        else:
            L = self._lanes(lanes)
            seats = self._cp[L] if seats is None else np.asarray(seats, dtype=np.int64)
        return L, seats

    def observation(self) -> np.ndarray:
        """``[B, S]`` float32 observations of the seats on move (a fresh array)."""
        out = np.take(self._rows, self._all3 + self._cp, axis=0)
        self._dynamic(out, self._all, self._cp)
        return out

    def observe(self, seats=None, lanes=None) -> np.ndarray:
        """``[k, S]`` observations of ``seats`` (one seat per lane; default: the seats on move)."""
        L, seats = self._gather(seats, lanes)
        out = np.take(self._rows, L * N + seats, axis=0)
        self._dynamic(out, L, seats)
        return out

    def unseen(self, seats=None, lanes=None) -> np.ndarray:
        """``[k, 52]`` int8 ``unseen`` of ``seats`` (default: the seats on move), optionally for ``lanes`` only."""
        L, seats = self._gather(seats, lanes)
        return np.take(self._unseen.reshape(-1, 52), L * N + seats, axis=0)

    def observe_all(self) -> np.ndarray:
        """Every seat's observation, ``[B, 3, S]`` (a fresh array)."""
        B = self.num_envs
        lanes, seats = np.repeat(self._all, N), np.tile(np.arange(N), B)
        out = self._rows.copy()
        self._dynamic(out, lanes, seats)
        return out.reshape(B, N, -1)

    def unseen_all(self) -> np.ndarray:
        return self._unseen.copy()

    def final_observation(self, seats=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(lanes, obs [k, S], unseen [k, 52])``: what the lanes auto-reset by the last ``step``
        showed ``seats`` (a ``[B]`` array; default the last seat on move) when their game ended."""
        if self._final is None:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.obs_size), np.float32), np.zeros((0, 52), np.int8)
        L = self._final["lanes"]
        seats = self._final["seat"] if seats is None else np.asarray(seats, dtype=np.int64)[L]
        j = np.arange(len(L))
        return L, self._final["obs"][j, seats], self._final["unseen"][j, seats]

    def locations(self, lanes=None) -> np.ndarray:
        """``[k, 52]`` int16 card locations in the scalar engine's codes (``SproyteEngine.locations``)."""
        return self._loc[self._lanes(lanes)].astype(np.int16)

    # ---- results --------------------------------------------------------------------------------
    def _info(self, L: np.ndarray) -> dict[str, np.ndarray]:
        over = (self._phase[L] == OVER)[:, None]
        pts = np.where(over, self.final_points[L], POINTS[self._contract[L][:, None], self._tricks[L]])
        return {
            "tricks": self._tricks[L].copy(),
            "deal_points": pts,
            "match_points": self.totals[L].copy() if self.match_to is not None else pts.copy(),
        }

    def info(self) -> dict[str, np.ndarray]:
        """The numeric result fields of docs/sproyte.md (Infos) per lane and seat, ``[B, 3]`` each:
        ``tricks``, ``deal_points`` and ``match_points`` (of the current deal and match; final where the
        game is over). The contract and trump are per lane (``contract``, ``trump``; ``lane_info``
        gives the scalar engine's dict with their names)."""
        return self._info(self._all)

    def final_info(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """``(lanes, info)``: ``info()`` of the lanes auto-reset by the last ``step``, as it was
        when their game ended (``[k, 3]`` each)."""
        if self._final is None:
            return np.zeros(0, dtype=np.int64), {k: np.zeros((0, N), np.int64) for k in self._info(self._all[:0])}
        return self._final["lanes"], self._final["info"]

    def lane_infos(self, lanes, seats) -> list[dict]:
        return [self.lane_info(int(i), int(s)) for i, s in zip(lanes, seats, strict=True)]

    def lane_info(self, lane: int, seat: int) -> dict:
        """``SproyteEngine.info(seat)`` of one lane: the same keys and types (names for the
        contract and trump)."""
        res = self._info(np.array([lane]))
        t = int(self._trump[lane])
        out = {
            "tricks": int(res["tricks"][0, seat]),
            "deal_points": int(res["deal_points"][0, seat]),
            "match_points": int(res["match_points"][0, seat]),
            "contract": CONTRACT_NAMES[int(self._contract[lane])],
            "trump": SUITS[t] if t >= 0 else None,
        }
        if self.truncated[lane]:
            out["truncated_by"] = "max_deals"
        return out

    def lane_state(self, lane: int) -> dict:
        """One lane's state in the scalar engine's terms (lists), for tests and debugging."""
        loc = self._loc[lane]
        return {
            "hands": [np.flatnonzero(loc == LOC_HAND + s).tolist() for s in range(N)],
            "out": [np.flatnonzero(loc == LOC_OUT + s).tolist() for s in range(N)],
            "pile": self._deck[lane, self.pile_start + self._pile_pos[lane] : self.pile_start + self.pile_len].tolist(),
            "talon": np.flatnonzero(loc == LOC_TALON).tolist(),
            "trick": self._trick[lane, : self._tlen[lane]].tolist(),
            "phase": int(self._phase[lane]),
            "current_player": int(self._cp[lane]),
            "dealer": int(self._dealer[lane]),
            "leader": int(self._leader[lane]),
            "contract": CONTRACT_NAMES[int(self._contract[lane])],
            "trump": int(self._trump[lane]),
            "shown": int(self._shown[lane]),
            "ex_count": self._ex_count[lane].tolist(),
            "ex_limit": int(self._ex_limit[lane]),
            "tricks": self._tricks[lane].tolist(),
            "totals": self.totals[lane].tolist(),
            "deal_no": int(self.deal_no[lane]),
        }
