"""Spøkelse for B games at once: the scalar engine's rules as numpy arrays with a batch axis.

:class:`BatchedSpokelse` plays ``num_envs`` independent games (*lanes*) in lock step. It
is a speed path, not a second definition of the rules (those are described in
docs/spokelse.md): :mod:`.rules` stays the readable reference, and
``tests/differential/test_spokelse_batched.py`` drives both engines with the same decks,
dealers and actions and requires identical masks, observations, ``unseen``, rewards, players
on move and terminations at every step, for every option.

State (``n`` players, ``k`` slots, a deck of ``D`` cards, ``S`` = the layout's size; all
arrays have the lane axis first):

* the deal's deck order ``[B, D]`` and a stock pointer (the stock is ``deck[ptr:]``,
  drawn front first, exactly the scalar engine's stock order);
* the discard pile as a stack ``[B, D]`` with its length; ghosts ``[B, n]``, slots
  ``[B, n, k]``; the knowledge flags ``owner_known`` and ``public`` ``[B, n, k]``; the
  cards each seat has discarded this deal ``[B, n, 52]``;
* the card in hand, whether it came from the stock, the phase, the seat on move, the
  dealer, the turns of this round, match totals, the last round's sums;
* per seat ``unseen`` ``[B, n, 52]`` and the observation buffers ``[B, n, S]``, updated
  in place by each step (a handful of scatters), rebuilt only when a deal starts
  or a round ends (``encode_lanes`` is the from-scratch reference they are tested against).

Every option of the scalar engine is supported, the teaching variants included (``cards``:
a short deck, ``num_slots``, ``max_turns``).

Per step: ``legal_mask() -> [B, 7]``, ``observation() -> [B, S]`` and ``unseen() ->
[B, 52]`` for the seat on move (``observe(seats)``/``unseen(seats)`` for any seats),
``step(actions)`` with an optional lane mask, then ``rewards [B, n]`` (of this step),
``terminal [B]``, ``truncated [B]`` (a round cut at ``max_steps``) and ``current_player [B]``.

**Randomness (replayable by the scalar engine).** Lane ``i`` owns the generator
``lane_rng(seed, i)`` = ``np.random.default_rng(np.random.SeedSequence(seed,
spawn_key=(i,)))`` (the ``i``-th child of ``SeedSequence(seed).spawn``, whatever ``B``
is), or the generator passed in ``rngs[i]``. Every episode a lane starts from its own
stream uses that generator exactly as ``SpokelseEngine.new_episode(rng)`` uses its
``rng``: the first dealer by ``draw_dealer(rng)`` (unless dealers are given), the deck
by ``rng.permutation(D)`` of the deck's cards (unless decks are given; ``D`` = 52 but for
the short-deck variant), and each later deal of a match the same way. So
``SpokelseEngine(**options).new_episode(lane_rng(seed, i))`` followed by the lane's
actions replays lane ``i`` exactly, auto-resets included (each new episode is another
``new_episode`` call with the same generator).

**Auto-reset** (``autoreset=True``, the default): a lane whose game ends in ``step`` is
dealt a new episode from its stream at the end of that same call. ``rewards`` and
``terminal`` still describe the step just taken (the final rewards, ``True``), while the
lane's state, mask and observations are already those of the new episode (PGX's
convention). ``final_observation(seats)`` gives the observation and ``unseen`` that
those lanes had when their game ended, before the reset. With ``autoreset=False`` a
finished lane keeps its final state (mask all zeros) until ``reset(lanes=…)``.

Illegal actions: ``step`` checks every stepped lane first and raises
:class:`BatchedIllegalActionError` (a ``ValueError``) naming the first bad lane, its
seat, the action and the legal actions, before any lane is changed.
"""

from __future__ import annotations

import numpy as np

from ...core.batched import BatchedEngine, BatchedIllegalActionError, lane_rng
from .game import ACTION_NAMES, DISCARD, UNKNOWN, Phase

__all__ = ["BatchedSpokelse", "BatchedIllegalActionError", "lane_rng"]

NUM_ACTIONS = len(ACTION_NAMES)
DRAW_PHASE, PLACE_PHASE, OVER_PHASE = int(Phase.DRAW), int(Phase.PLACE), int(Phase.OVER)


class BatchedSpokelse(BatchedEngine):
    """``num_envs`` Spøkelse games as arrays (see the module docstring).

    ``seed``: seeds the lanes' generators (``lane_rng``); ``rngs``: one generator per lane
    instead (for callers that share a lane's stream with other draws, like the vector
    training env). ``autoreset``: deal finished lanes anew inside ``step``. Options are
    the scalar engine's (``num_players``, ``jack_points``, ``match_to``, ``reward``,
    ``max_steps`` and the teaching variants), validated by it. The batch starts dealt: the
    constructor calls ``reset()``, so each lane's first episode is the first one of its stream
    (pass ``seed`` to ``reset`` to start the streams afresh, e.g. before dealing stacked decks
    whose matches continue from the stream).

    ``max_steps`` cuts a lane as the scalar engine cuts its episode: ``truncated`` is True after
    the step that reached the cap (rewards 0, the state as it was), and with ``autoreset=False``
    until the lane is reset, its mask all zeros meanwhile.
    """

    NAME = "spokelse"
    # per-lane state (setup's "state"; _ev_tot and _ev_cnt are flat [B * n]; _unseen_flat and _of are
    # views, _rowbase a constant), what copy_lanes copies. _has_cut and _countdown need no copy: a
    # copy of a cut lane finds _has_cut already set, and _countdown bounds the steps of every live lane, src too
    LANE_STATE = tuple(
        "_deck _ptr _turn _cut _pile _plen _ghost _slots _owner_known _public _swapped _disc_by _hand "
        "_from_stock _phase _cp _dealer round_no totals last_sums _has_sums _unseen _ev_tot _ev_cnt _obs "
        "rewards terminal truncated".split()
    )

    def setup(self) -> None:
        spec = self.game  # the configured game: layout offsets, point table, deck
        n, B, S = self.num_players, self.num_envs, self.obs_size
        self.match_to = spec.match_to
        self.stock_start = spec.stock_start
        self.points = spec.points.copy()
        self.reward_kind = self.config["reward"]
        # teaching variants: a short deck of D cards, k slots per player, a turn cap
        self.cards = np.array(spec.deck.cards, dtype=np.int64)
        self.deck_size = D = len(self.cards)
        self.num_slots = k = spec.num_slots
        self.max_turns = spec.max_turns
        self.max_steps = spec.max_steps
        # steps before any lane can reach max_steps: the cap costs one int comparison per step
        self._countdown = self.max_steps or 0
        self.o_turns = getattr(spec, "o_turns", None)
        self._in_deck = spec._in_deck.copy()
        self._dealt = (1 + k) * n
        self._looked = min(2, k)  # slots each player looks at
        self._legal = np.zeros((6, NUM_ACTIONS), dtype=np.int8)
        self._legal[2 * DRAW_PHASE + 0, [0, 1]] = 1
        self._legal[2 * PLACE_PHASE + 1, [*range(2, 2 + k), DISCARD]] = 1
        self._legal[2 * PLACE_PHASE + 0, list(range(2, 2 + k))] = 1
        self._legal_bool = self._legal.astype(bool)

        # offsets of the layout's segments
        self.o_own, self.o_opp, self.o_hand = spec.o_own, spec.o_opp, spec.o_hand
        self.o_from_stock, self.o_top, self.o_pile, self.o_by = spec.o_from_stock, spec.o_top, spec.o_pile, spec.o_by
        self.o_stock, self.o_phase, self.o_ev = spec.o_stock, spec.o_phase, spec.o_ev
        self.o_sums, self.o_totals, self.o_dealer, self.o_to_move = (
            spec.o_sums,
            spec.o_totals,
            spec.o_dealer,
            spec.o_to_move,
        )

        # seat × viewer tables (index [s, v]): where viewer v sees seat s's things
        s_, v_ = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        rel = (s_ - v_) % n
        self._slot_base = np.where(rel == 0, spec.o_own, spec.o_opp + (rel - 1) * 4 * 53)
        self._known_base = np.where(rel == 0, spec.o_own_known, spec.o_opp_known + (rel - 1) * 4)
        self._pts_base = np.where(rel == 0, spec.o_own_pts, spec.o_opp_pts + (rel - 1) * 4)
        self._by_pos = spec.o_by + rel * 52
        self._to_move_pos = spec.o_to_move + rel
        self._dealer_pos = spec.o_dealer + (v_ - s_) % n  # [dealer, viewer]: (viewer - dealer) mod n
        self.o_owner, self.o_swapped = spec.o_owner, spec.o_swapped
        self._rel4 = 4 * rel  # [seat, viewer]: offset of seat's block in viewer's owner/swapped segments
        self._seat_of_rel = (v_ + s_) % n  # [viewer, rel] -> absolute seat (for the from-scratch encoder)
        self._v_row = np.arange(n)[None, :]
        self.o_own_pts, self.o_own_known = spec.o_own_pts, spec.o_own_known
        self.o_opp_pts, self.o_opp_known = spec.o_opp_pts, spec.o_opp_known
        assert self.o_opp == self.o_own + 212, "own and opponent slot segments must be adjacent"
        self._own01 = self.o_own + 53 * np.arange(self._looked)
        ks = np.arange(k)[None, :]
        self._reveal_pos = self.o_own + 212 * np.arange(n)[:, None] + 53 * ks  # [rel, slot]
        rel1 = np.maximum(np.arange(n)[:, None] - 1, 0)
        first = (np.arange(n) == 0)[:, None]
        self._reveal_pts = np.where(first, spec.o_own_pts + ks, spec.o_opp_pts + 4 * rel1 + ks)
        self._reveal_known = np.where(first, spec.o_own_known + ks, spec.o_opp_known + 4 * rel1 + ks)
        self._phase_over = np.array([0.0, 0.0, 1.0], dtype=np.float32)
        self._phase_draw = np.array([1.0, 0.0], dtype=np.float32)
        self._top_pile = np.array([self.o_top, self.o_pile])
        self._hand_top_pile = np.array([self.o_hand, self.o_top, self.o_pile])
        self._one_zero_zero = np.array([1.0, 0.0, 0.0], dtype=np.float32)
        self._points_total = float(self.points[self.cards].sum())
        self._deal_template = self._build_deal_templates()

        # state
        self._deck = np.zeros((B, D), dtype=np.int64)
        self._ptr = np.zeros(B, dtype=np.int64)
        self._turn = np.zeros(B, dtype=np.int64)  # turns completed this round (max_turns, max_steps)
        self._cut = np.zeros(B, dtype=bool)  # lanes cut by max_steps and kept until reset (autoreset=False)
        self._has_cut = False
        self._pile = np.zeros((B, D), dtype=np.int64)
        self._plen = np.zeros(B, dtype=np.int64)
        self._ghost = np.zeros((B, n), dtype=np.int64)
        self._slots = np.zeros((B, n, k), dtype=np.int64)
        self._owner_known = np.zeros((B, n, k), dtype=bool)
        self._public = np.zeros((B, n, k), dtype=bool)
        self._swapped = np.zeros((B, n, k), dtype=bool)
        self._disc_by = np.zeros((B, n, 52), dtype=np.int8)
        self._hand = np.full(B, -1, dtype=np.int64)
        self._from_stock = np.zeros(B, dtype=np.int64)
        self._phase = np.zeros(B, dtype=np.int64)
        self._cp = np.zeros(B, dtype=np.int64)
        self._dealer = np.zeros(B, dtype=np.int64)
        self.round_no = np.zeros(B, dtype=np.int64)
        self.totals = np.zeros((B, n), dtype=np.float64)
        self.last_sums = np.zeros((B, n), dtype=np.float64)
        self._has_sums = np.zeros(B, dtype=bool)
        self._unseen = np.zeros((B, n, 52), dtype=np.int8)
        self._unseen_flat = self._unseen.reshape(-1)
        self._ev_tot = np.zeros(B * n, dtype=np.float64)
        self._ev_cnt = np.zeros(B * n, dtype=np.int64)
        self._obs = np.zeros((B, n, S), dtype=np.float32)
        self._of = self._obs.reshape(-1)
        self._rowbase = (np.arange(B)[:, None] * n + np.arange(n)[None, :]) * S  # [B, n]
        self.rewards = np.zeros((B, n), dtype=np.float64)
        self.terminal = np.zeros(B, dtype=bool)
        self._final: dict[str, np.ndarray] | None = None

    def _build_deal_templates(self) -> np.ndarray:
        """``[dealer, viewer, S]``: every seat's observation right after a deal, less the cards."""
        n, S = self.num_players, self.obs_size
        T = np.zeros((n, n, S), dtype=np.float32)
        for d in range(n):
            for v in range(n):
                t = T[d, v]
                for i in range(self._looked, self.num_slots):
                    t[self.o_own + 53 * i + UNKNOWN] = 1.0
                for r in range(1, n):
                    for i in range(self.num_slots):
                        t[self.o_opp + (r - 1) * 212 + 53 * i + UNKNOWN] = 1.0
                t[self.o_own_known : self.o_own_known + self._looked] = 1.0
                for r in range(n):  # every seat knows its own peeked slots, and everyone knows that
                    t[self.o_owner + 4 * r : self.o_owner + 4 * r + self._looked] = 1.0
                t[self.o_hand + UNKNOWN] = 1.0
                t[self.o_stock] = (self.deck_size - self._dealt - 1) / self.stock_start
                if self.max_turns is not None:
                    t[self.o_turns] = self.max_turns / self.max_turns
                t[self.o_phase + DRAW_PHASE] = 1.0
                t[self.o_dealer + (v - d) % n] = 1.0
                t[self.o_to_move + ((d + 1) % n - v) % n] = 1.0
        return T

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

    # ---- episodes --------------------------------------------------------------------------------
    def reset(self, decks=None, dealers=None, lanes=None, seed: int | None = None) -> None:
        """Start new episodes in ``lanes`` (all by default).

        ``decks``: ``[k, D]`` card ints (a permutation of the deck's cards per row, top card first) or
        None to shuffle from each lane's stream; ``dealers``: ``[k]`` seats or None to draw
        them (``draw_dealer``) from the stream. ``seed`` re-seeds every lane first.
        """
        if seed is not None:
            self.seed(seed)
        L = self._lanes(lanes)
        k, n = len(L), self.num_players
        if k == 0:
            return
        if dealers is not None:
            dealers = np.asarray(dealers, dtype=np.int64).reshape(-1)
            if dealers.shape != (k,) or dealers.min() < 0 or dealers.max() >= n:
                raise ValueError(f"dealers must be {k} seats 0..{n - 1}, got {dealers!r}")
        if decks is not None:
            decks = np.asarray(decks)
            D = self.deck_size
            if decks.shape != (k, D) or not np.issubdtype(decks.dtype, np.integer):
                raise ValueError(f"decks must be an int array of shape ({k}, {D}), got {decks.dtype} {decks.shape}")
            bad = np.flatnonzero((np.sort(decks, axis=1) != self.cards).any(axis=1))
            if bad.size:
                raise ValueError(f"deck of lane {int(L[bad[0]])} is not a permutation of the deck's {D} cards")
            decks = decks.astype(np.int64)
        if dealers is None or decks is None:  # the scalar engine's order: dealer first, then the deck
            rngs = self.rngs
            if dealers is None and decks is None:
                D = self.deck_size
                perms = [x for lane in L.tolist() for x in (rngs[lane].permutation(52), rngs[lane].permutation(D))]
                dealers = self._dealers_from(np.array(perms[0::2]))
                decks = self.cards[np.array(perms[1::2])]
            elif dealers is None:
                dealers = self._dealers_from(np.array([rngs[lane].permutation(52) for lane in L.tolist()]))
            else:
                decks = self.cards[np.array([rngs[lane].permutation(self.deck_size) for lane in L.tolist()])]
        self.totals[L] = 0.0
        self.round_no[L] = 0
        self.rewards[L] = 0.0
        self.terminal[L] = False
        self.truncated[L] = False
        if self._has_cut:
            self._cut[L] = False
            self._has_cut = bool(self._cut.any())
        self._deal(L, decks, dealers)

    def _dealers_from(self, perms: np.ndarray) -> np.ndarray:
        """``SpokelseEngine.draw_dealer`` for each row of ``perms`` (the permutation it draws):
        seat j draws ``perm[-1 - j]``, the lowest rank deals; ties draw again, as there."""
        n = self.num_players
        ranks = perms[:, 51 - np.arange(n)] % 13
        dealers = ranks.argmin(axis=1)
        tied = np.flatnonzero((ranks == ranks.min(axis=1, keepdims=True)).sum(axis=1) > 1)
        for j in tied.tolist():  # rare: replay the scalar loop on the same cards
            cards = perms[j].tolist()
            contenders = list(range(n))
            while True:
                drawn = {s: cards.pop() % 13 for s in contenders}
                low = min(drawn.values())
                contenders = [s for s in contenders if drawn[s] == low]
                if len(contenders) == 1 or len(cards) < len(contenders):
                    dealers[j] = contenders[0]
                    break
        return dealers

    def _deal(self, L: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        n = self.num_players
        self._deck[L] = decks
        self._dealer[L] = dealers
        self.round_no[L] += 1
        # seat s receives deck[r + n*p], p = 0..4, with r = (s - dealer - 1) mod n
        r = (np.arange(n)[None, :] - dealers[:, None] - 1) % n
        ghost = np.take_along_axis(decks, r, axis=1)
        k = self.num_slots
        pos = r[:, :, None] + n * np.arange(1, 1 + k)[None, None, :]
        slots = np.take_along_axis(decks, pos.reshape(len(L), -1), axis=1).reshape(len(L), n, k)
        self._ghost[L] = ghost
        self._slots[L] = slots
        up = decks[:, self._dealt]
        self._pile[L, 0] = up
        self._plen[L] = 1
        self._ptr[L] = self._dealt + 1
        self._turn[L] = 0
        self._hand[L] = -1
        self._from_stock[L] = 0
        self._phase[L] = DRAW_PHASE
        self._cp[L] = (dealers + 1) % n
        self._owner_known[L] = np.arange(k) < 2
        self._public[L] = False
        self._swapped[L] = False
        self._disc_by[L] = 0
        self._has_sums[L] = False
        u = np.broadcast_to(self._in_deck, (len(L), n, 52)).copy()
        rows = np.arange(len(L))[:, None, None]
        u[rows, np.arange(n)[None, :, None], slots[:, :, : self._looked]] = 0
        u[np.arange(len(L))[:, None], :, up[:, None]] = 0
        self._unseen[L] = u
        self._encode_deal(L, slots, up, dealers)

    def _encode_deal(self, L: np.ndarray, slots: np.ndarray, up: np.ndarray, dealers: np.ndarray) -> None:
        """The observations of a fresh deal: the dealer's template plus the few dealt cards
        each seat can see (its slots 0 and 1, the up card); ``_encode`` is the reference."""
        n, O, Of = self.num_players, self._obs, self._of
        O[L] = self._deal_template[dealers]
        rb = self._rowbase[L]
        own = slots[:, :, : self._looked]  # viewer v's own slots 0 and 1 (those that exist): [k, n, 2]
        Of[rb[:, :, None] + self._own01 + own] = 1.0
        p = self.points[own]
        O[L, :, self.o_own_pts : self.o_own_pts + self._looked] = p / 13.0
        u1 = up[:, None]
        Of[rb + (u1 + self.o_top)] = 1.0
        Of[rb + (u1 + self.o_pile)] = 1.0
        # unseen: the deck less the looked-at slots and the up card (sums of halves: exact)
        tot = self._points_total - p.sum(axis=2) - self.points[up][:, None]
        cnt = self.deck_size - self._looked - 1
        O[L, :, self.o_ev] = tot / (13.0 * cnt)
        flat = (L[:, None] * n + self._v_row).ravel()
        self._ev_tot[flat] = tot.ravel()
        self._ev_cnt[flat] = cnt
        if self.match_to:
            O[L, :, self.o_totals : self.o_totals + n] = self.totals[L][:, self._seat_of_rel] / self.match_to

    def _reveal(self, E: np.ndarray) -> None:
        """The round is over: every slot is shown to everyone, sums are filled, nothing is on
        move and nothing is unseen (the in-place twin of the scalar engine's final refresh)."""
        n, O, Of = self.num_players, self._obs, self._of
        O[E, :, self.o_own : self.o_own + n * 212] = 0.0
        sl = self._slots[E][:, self._seat_of_rel]  # [k, viewer, rel, 4]
        rb = self._rowbase[E][:, :, None, None]
        Of[(rb + self._reveal_pos + sl).ravel()] = 1.0
        Of[(rb + self._reveal_pts).ravel()] = (self.points[sl] / 13.0).ravel()
        Of[(rb + self._reveal_known).ravel()] = 1.0
        O[E, :, self.o_phase : self.o_phase + 3] = self._phase_over
        O[E, :, self.o_to_move : self.o_to_move + n] = 0.0
        O[E, :, self.o_sums : self.o_sums + n] = self.last_sums[E][:, self._seat_of_rel] / 65.0
        if self.match_to:
            O[E, :, self.o_totals : self.o_totals + n] = self.totals[E][:, self._seat_of_rel] / self.match_to
        O[E, :, self.o_ev] = 0.0
        flat = (E[:, None] * n + self._v_row).ravel()
        self._ev_tot[flat] = 0.0
        self._ev_cnt[flat] = 0

    # ---- moves -------------------------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        """``[B, 7]`` int8 legal actions of the seat on move (all 0 where the game is over)."""
        mask = self._legal[2 * self._phase + self._from_stock]
        if self._has_cut:
            mask[self._cut] = 0
        return mask

    def legal_actions(self, lane: int) -> list[int]:
        if self._cut[lane]:
            return []
        return np.flatnonzero(self._legal[2 * self._phase[lane] + self._from_stock[lane]]).tolist()

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
        code = 2 * self._phase[idx] + self._from_stock[idx]
        inrange = (a >= 0) & (a < NUM_ACTIONS)
        ok = self._legal_bool[code, np.where(inrange, a, 0)] & inrange
        if self._has_cut:
            ok &= ~self._cut[idx]
        if not ok.all():
            self.raise_illegal(int(idx[np.argmin(ok)]), a[np.argmin(ok)])
        self.rewards.fill(0.0)
        np.equal(self._phase, OVER_PHASE, out=self.terminal)  # lanes left over (autoreset=False) stay terminal
        np.copyto(self.truncated, self._cut)  # and cut ones stay truncated
        self._final = None
        place = a >= 2
        if place.all():
            self._place(idx, a)
        elif not place.any():
            self._draw_or_take(idx, a)
        else:
            self._draw_or_take(idx[~place], a[~place])
            self._place(idx[place], a[place])
        if self.max_steps is not None:
            self._countdown -= 1  # no lane gains more than one step per call
            if self._countdown <= 0:
                self._apply_cap()

    def _apply_cap(self) -> None:
        """``max_steps``: cut the lanes whose round has reached the cap (rewards 0, the state stays),
        then count down to the first step at which another lane can reach it."""
        steps = 2 * self._turn + (self._phase == PLACE_PHASE)
        live = (self._phase != OVER_PHASE) & ~self._cut
        hit = live & (steps >= self.max_steps)
        if hit.any():
            C = np.flatnonzero(hit)
            self.truncated[C] = True
            if self.autoreset:
                self._keep_final(C)
                self.reset(lanes=C)
                self.truncated[C] = True
            else:
                self._cut[C] = True
                self._has_cut = True
        rest = live & ~hit
        self._countdown = self.max_steps - int(steps[rest].max()) if rest.any() else self.max_steps

    def _sel(self, L: np.ndarray):
        """``L`` as an index: a plain slice when it is the whole batch (basic indexing is cheaper)."""
        return slice(None) if L is self._all else L

    def _draw_or_take(self, D: np.ndarray, a: np.ndarray) -> None:
        draw = a == 0
        if draw.all():
            self._draw(D)
        elif not draw.any():
            self._take(D)
        else:
            self._draw(D[draw])
            self._take(D[~draw])
        X = self._sel(D)
        self._phase[X] = PLACE_PHASE
        self._obs[X, :, self.o_phase] = 0.0
        self._obs[X, :, self.o_phase + 1] = 1.0

    def _draw(self, L: np.ndarray) -> None:
        X = self._sel(L)
        p = self._ptr[X]
        card = self._deck[L, p]
        p = p + 1
        self._ptr[X] = p
        self._hand[X] = card
        self._from_stock[X] = 1
        s = self._cp[X].copy()
        self._obs[X, :, self.o_stock] = ((self.deck_size - p) / self.stock_start)[:, None]
        self._obs[X, :, self.o_from_stock] = 1.0
        rb = self._rowbase[L, s] + self.o_hand
        Of = self._of
        Of[rb + UNKNOWN] = 0.0
        Of[rb + card] = 1.0
        self._see(L * self.num_players + s, card)

    def _take(self, L: np.ndarray) -> None:
        X = self._sel(L)
        pl = self._plen[X] - 1
        self._plen[X] = pl
        card = self._pile[L, pl]
        self._hand[X] = card
        self._from_stock[X] = 0
        rb = self._rowbase[X]
        c = card[:, None]
        Of = self._of
        Of[rb + (self.o_hand + UNKNOWN)] = 0.0
        Of[rb[:, :, None] + (c[:, :, None] + self._hand_top_pile)] = (
            self._one_zero_zero
        )  # hand bit on; top and pile bits off
        has = pl > 0
        if has.any():  # the card below becomes the top
            nt = self._pile[L[has], pl[has] - 1]
            Of[rb[has] + (nt[:, None] + self.o_top)] = 1.0

    def _place(self, P: np.ndarray, a: np.ndarray) -> None:
        n = self.num_players
        Of = self._of
        X = self._sel(P)
        s = self._cp[X].copy()  # copies: with X a slice these would be views of state changed below
        card = self._hand[X].copy()
        sw = a != DISCARD
        if sw.all():
            out = self._swap(P, a, s, card)
        elif not sw.any():
            out = card
        else:
            out = card.copy()
            out[sw] = self._swap(P[sw], a[sw], s[sw], card[sw])
        rb = self._rowbase[X]  # [k, n]
        pl = self._plen[X].copy()
        oc = out[:, None]
        zeros = np.concatenate((self._pile[P, pl - 1][:, None] + self.o_top, card[:, None] + self.o_hand), axis=1)
        Of[(rb[:, :, None] + zeros[:, None, :]).ravel()] = 0.0  # old top (no-op on an empty pile), hand card
        self._pile[P, pl] = out
        self._plen[X] = pl + 1
        self._disc_by[P, s, out] = 1
        Of[rb[:, :, None] + (oc[:, :, None] + self._top_pile)] = 1.0
        Of[rb + (self._by_pos[s] + oc)] = 1.0
        O = self._obs
        O[X, :, self.o_hand + UNKNOWN] = 1.0
        O[X, :, self.o_from_stock] = 0.0
        O[X, :, self.o_phase : self.o_phase + 2] = self._phase_draw
        self._see((P * n)[:, None] + self._v_row, oc)
        self._hand[X] = -1
        self._from_stock[X] = 0
        self._phase[X] = DRAW_PHASE
        cont = self._ptr[X] < self.deck_size
        if self.max_turns is not None or self.max_steps is not None:
            turn = self._turn[X] + 1
            self._turn[X] = turn
            if self.max_turns is not None:
                O[X, :, self.o_turns] = ((self.max_turns - turn) / self.max_turns)[:, None]
                cont &= turn < self.max_turns
        if cont.all():
            self._pass_turn(X, s, rb)
        else:
            self._pass_turn(P[cont], s[cont], rb[cont])
            self._end_round(P[~cont])

    def _swap(self, P: np.ndarray, a: np.ndarray, s: np.ndarray, card: np.ndarray) -> np.ndarray:
        X = self._sel(P)
        i = a - 2
        old_card = self._slots[P, s, i]
        me = self._v_row == s[:, None]  # [k, n]: viewer is the mover
        taken = self._from_stock[X] == 0  # a card taken from the pile was face up
        knew = self._public[P, s, i][:, None] | (me & self._owner_known[P, s, i][:, None])
        knows = me | taken[:, None]
        rb = self._rowbase[X]
        i2 = i[:, None]
        base = rb + (self._slot_base[s] + 53 * i2)
        Of = self._of
        Of[base + np.where(knew, old_card[:, None], UNKNOWN)] = 0.0
        Of[base + np.where(knows, card[:, None], UNKNOWN)] = 1.0
        Of[rb + (self._known_base[s] + i2)] = knows
        Of[rb + (self._pts_base[s] + i2)] = np.where(knows, (self.points[card] / 13.0)[:, None], 0.0)
        self._slots[P, s, i] = card
        Of[rb + (self.o_owner + self._rel4[s] + i2)] = 1.0
        Of[rb + (self.o_swapped + self._rel4[s] + i2)] = 1.0
        self._owner_known[P, s, i] = True
        self._public[P, s, i] = taken
        self._swapped[P, s, i] = True
        return old_card

    def _pass_turn(self, C, s: np.ndarray, rb: np.ndarray) -> None:
        nxt = s + 1
        nxt[nxt == self.num_players] = 0
        self._cp[C] = nxt
        self._of[rb + self._to_move_pos[s]] = 0.0
        self._of[rb + self._to_move_pos[nxt]] = 1.0

    def _see(self, rows: np.ndarray, cards: np.ndarray) -> None:
        """Seats (flat ``lane * n + seat`` rows) can now locate ``cards``: ``unseen`` and the
        expected-value feature follow (rows × cards broadcast; each row at most once)."""
        rows, cards = np.broadcast_arrays(rows, cards)
        ui = rows * 52 + cards
        uf = self._unseen_flat
        m = uf[ui] == 1
        if not m.all():
            rows, cards, ui = rows[m], cards[m], ui[m]
        uf[ui] = 0
        tot = self._ev_tot[rows] - self.points[cards]
        cnt = self._ev_cnt[rows] - 1
        self._ev_tot[rows] = tot
        self._ev_cnt[rows] = cnt
        with np.errstate(divide="ignore", invalid="ignore"):
            ev = np.where(cnt > 0, tot / (13.0 * cnt), 0.0)
        self._of[rows * self.obs_size + self.o_ev] = ev

    def _end_round(self, E: np.ndarray) -> None:
        if E.size == 0:
            return
        n = self.num_players
        pts = self.points
        sums = pts[self._ghost[E]] + pts[self._slots[E]].sum(axis=2)
        self.last_sums[E] = sums
        totals = self.totals[E] + sums
        self.totals[E] = totals
        if self.match_to is not None:
            go = totals.max(axis=1) < self.match_to
            if go.any():  # the match goes on: the next deal comes from the lane's stream
                G = E[go]
                decks = self.cards[np.stack([self.rngs[lane].permutation(self.deck_size) for lane in G.tolist()])]
                self._deal(G, decks, (self._dealer[G] + 1) % n)
                E, totals, sums = E[~go], totals[~go], sums[~go]
                if E.size == 0:
                    return
        scores = totals if self.match_to is not None else sums
        self._phase[E] = OVER_PHASE
        self._unseen[E] = 0
        self._has_sums[E] = True
        if self.reward_kind == "win":
            win = scores == scores.min(axis=1, keepdims=True)
            w = win.sum(axis=1, keepdims=True)
            r = np.where(win, 1.0 / w, -1.0 / np.maximum(n - w, 1))
            r[(w == n)[:, 0]] = 0.0
        else:
            total = scores.sum(axis=1, keepdims=True)
            r = (total - scores) / (n - 1) - scores
        self.rewards[E] = r
        self.terminal[E] = True
        self._reveal(E)
        if self.autoreset:
            self._keep_final(E)
            self.reset(lanes=E)
            self.terminal[E] = True
            self.rewards[E] = r

    def _keep_final(self, E: np.ndarray) -> None:
        """Keep what lanes ``E`` show as their episodes end, for ``final_observation`` (lanes that end
        and lanes that are cut in one step together, in lane order)."""
        part = {"lanes": E, "seat": self._cp[E].copy(), "obs": self._obs[E].copy(), "unseen": self._unseen[E].copy()}
        if self._final is not None:
            both = {k: np.concatenate((self._final[k], v)) for k, v in part.items()}
            order = np.argsort(both["lanes"], kind="stable")
            part = {k: v[order] for k, v in both.items()}
        self._final = part

    # ---- the from-scratch encoder ----------------------------------------------------------------
    def encode_lanes(self, lanes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every seat's observation of ``lanes`` encoded from the state alone, ``[k, n, S]``, with
        the expected-value sums and counts ``[k, n]``: the vectorized twin of
        ``SpokelseEngine.encode``, the reference for the in-place updates (nothing is written)."""
        L = self._lanes(lanes)
        k, n, S = len(L), self.num_players, self.obs_size
        O = np.zeros((k, n, S), dtype=np.float32)
        Of = O.reshape(-1)
        rows = (np.arange(k)[:, None] * n + np.arange(n)[None, :]) * S  # [k, viewer]
        over = self._phase[L] == OVER_PHASE
        slots = self._slots[L]  # [k, s, 4]
        eye = np.eye(n, dtype=bool)[None, :, :, None]  # [1, viewer, seat, 1]
        know = self._public[L][:, None] | (eye & self._owner_known[L][:, None]) | over[:, None, None, None]
        sl = np.broadcast_to(slots[:, None], know.shape)  # [k, viewer, seat, 4]
        slot_base = self._slot_base.T[None, :, :, None]  # [1, viewer, seat, 1]
        r4 = rows[:, :, None, None]
        i4 = np.arange(self.num_slots)[None, None, None, :]
        Of[(r4 + slot_base + 53 * i4 + np.where(know, sl, UNKNOWN)).ravel()] = 1.0
        Of[(r4 + self._known_base.T[None, :, :, None] + i4).ravel()] = know.ravel()
        Of[(r4 + self._pts_base.T[None, :, :, None] + i4).ravel()] = np.where(know, self.points[sl] / 13.0, 0.0).ravel()
        # public slot facts: the owner knows it, the card was put there this round
        rel4 = self._rel4.T[None, :, :, None]  # [1, viewer, seat, 1]
        Of[(r4 + self.o_owner + rel4 + i4)[np.broadcast_to(self._owner_known[L][:, None], know.shape)]] = 1.0
        Of[(r4 + self.o_swapped + rel4 + i4)[np.broadcast_to(self._swapped[L][:, None], know.shape)]] = 1.0
        # discarded cards per relative seat, totals, final sums
        rel_seat = self._seat_of_rel  # [viewer, rel]
        O[:, :, self.o_by : self.o_by + n * 52] = self._disc_by[L][:, rel_seat].reshape(k, n, n * 52)
        if self.match_to:
            O[:, :, self.o_totals : self.o_totals + n] = self.totals[L][:, rel_seat] / self.match_to
        fin = self._has_sums[L] & over
        if fin.any():
            O[fin, :, self.o_sums : self.o_sums + n] = self.last_sums[L[fin]][:, rel_seat] / 65.0
        # hand
        hand, fs, cp = self._hand[L], self._from_stock[L], self._cp[L]
        held = hand >= 0
        vis = held[:, None] & ((self._v_row == cp[:, None]) | (fs == 0)[:, None])
        Of[(rows + self.o_hand + np.where(vis, hand[:, None], UNKNOWN)).ravel()] = 1.0
        O[:, :, self.o_from_stock] = np.where(held, fs, 0)[:, None]
        live = ~over
        if live.any():
            Of[(rows[live] + self._to_move_pos[cp[live]]).ravel()] = 1.0
        # discard pile
        plen = self._plen[L]
        pile = self._pile[L]
        has = plen > 0
        if has.any():
            top = pile[has, plen[has] - 1]
            Of[(rows[has] + self.o_top + top[:, None]).ravel()] = 1.0
        in_pile = np.arange(self.deck_size)[None, :] < plen[:, None]
        pm = np.zeros((k, 52), dtype=np.float32)
        pm[np.nonzero(in_pile)[0], pile[in_pile]] = 1.0
        O[:, :, self.o_pile : self.o_pile + 52] = pm[:, None, :]
        Of[(rows + self.o_phase + self._phase[L][:, None]).ravel()] = 1.0
        Of[(rows + self._dealer_pos[self._dealer[L]]).ravel()] = 1.0
        O[:, :, self.o_stock] = ((self.deck_size - self._ptr[L]) / self.stock_start)[:, None]
        if self.max_turns is not None:
            O[:, :, self.o_turns] = ((self.max_turns - self._turn[L]) / self.max_turns)[:, None]
        # expected value of an unseen card
        u = self._unseen[L]
        cnt = u.sum(axis=2, dtype=np.int64)
        tot = u @ self.points
        with np.errstate(divide="ignore", invalid="ignore"):
            O[:, :, self.o_ev] = np.where(cnt > 0, tot / (13.0 * cnt), 0.0)
        return O, tot, cnt

    # ---- views ----------------------------------------------------------------------------------
    def _gather(self, buf: np.ndarray, seats, lanes) -> np.ndarray:
        B, n = self.num_envs, self.num_players
        if lanes is None:
            seats = self._cp if seats is None else np.asarray(seats, dtype=np.int64)
            return np.take(buf.reshape(B * n, -1), self._all * n + seats, axis=0)
        L = self._lanes(lanes)
        seats = self._cp[L] if seats is None else np.asarray(seats, dtype=np.int64)
        return np.take(buf.reshape(B * n, -1), L * n + seats, axis=0)

    def observation(self) -> np.ndarray:
        """``[B, S]`` float32 observations of the seats on move (a fresh array)."""
        return np.take(
            self._obs.reshape(self.num_envs * self.num_players, -1), self._all * self.num_players + self._cp, axis=0
        )

    def unseen(self, seats=None, lanes=None) -> np.ndarray:
        """``[B, 52]`` int8 ``unseen`` of ``seats`` (default: the seats on move), optionally for ``lanes`` only."""
        return self._gather(self._unseen, seats, lanes)

    def observe(self, seats=None, lanes=None) -> np.ndarray:
        """``[B, S]`` observations of ``seats`` (one seat per lane; default: the seats on move)."""
        return self._gather(self._obs, seats, lanes)

    def observe_all(self) -> np.ndarray:
        """A copy of every seat's observation, ``[B, n, S]``."""
        return self._obs.copy()

    def unseen_all(self) -> np.ndarray:
        return self._unseen.copy()

    def privileged_features(self, seats: np.ndarray, lanes: np.ndarray) -> np.ndarray:
        """``[k, n * (slots + 1) + 2 * stock_start]`` float32 hidden state for an asymmetric critic,
        equal to :func:`kortmiljo.env.training.spokelse_privileged` for ``seats`` in ``lanes``: per
        relative seat the ghost's and every slot's points /13, then the stock in draw order (points
        /13) and a mask of its entries."""
        n, k, S, D = self.num_players, self.num_slots, self.stock_start, self.deck_size
        pts = self.points
        lanes = np.asarray(lanes, dtype=np.int64)
        out = np.zeros((len(lanes), n * (k + 1) + 2 * S), dtype=np.float32)
        for rel in range(n):
            s = (seats + rel) % n
            b = rel * (k + 1)
            out[:, b] = pts[self._ghost[lanes, s]] / 13.0
            out[:, b + 1 : b + 1 + k] = pts[self._slots[lanes, s]] / 13.0
        idx = self._ptr[lanes, None] + np.arange(S)[None, :]  # the stock is deck[ptr:], top first
        there = idx < D
        card = self._deck[lanes[:, None], np.minimum(idx, D - 1)]
        b = n * (k + 1)
        out[:, b : b + S] = np.where(there, pts[card] / 13.0, 0.0)
        out[:, b + S :] = there
        return out

    def final_observation(self, seats=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(lanes, obs [k, S], unseen [k, 52])``: what the lanes auto-reset by the last ``step``
        showed ``seats`` (a ``[B]`` array; default the last seat on move) when their game ended."""
        if self._final is None:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.obs_size), np.float32), np.zeros((0, 52), np.int8)
        L = self._final["lanes"]
        seats = self._final["seat"] if seats is None else np.asarray(seats, dtype=np.int64)[L]
        j = np.arange(len(L))
        return L, self._final["obs"][j, seats], self._final["unseen"][j, seats]

    def round_sums(self) -> np.ndarray:
        """``[B, n]`` slot + ghost sums of the current deal (final once the round is over)."""
        pts = self.points
        return pts[self._ghost] + pts[self._slots].sum(axis=2)

    def info(self) -> dict[str, np.ndarray]:
        """The end-of-episode result fields per lane and seat, ``[B, n]`` each (docs/spokelse.md, Infos:
        ``round_points`` and ``match_points``); valid for lanes whose game is over."""
        sums = np.where(self._has_sums[:, None], self.last_sums, self.round_sums())
        return {"round_points": sums, "match_points": self.totals.copy() if self.match_to else sums}

    def lane_infos(self, lanes, seats) -> list[dict]:
        """The scalar engine's ``info(seat)`` per finished lane, ``truncated_by`` included where it was cut."""
        rows = super().lane_infos(lanes, seats)
        for lane, row in zip(lanes, rows, strict=True):
            if self.truncated[lane]:
                row["truncated_by"] = "max_steps"
        return rows

    def lane_state(self, lane: int) -> dict:
        """One lane's state in the scalar engine's terms (lists), for tests and debugging."""
        n = self.num_players
        return {
            "ghost": self._ghost[lane].tolist(),
            "slots": self._slots[lane].tolist(),
            "discard": self._pile[lane, : self._plen[lane]].tolist(),
            "stock": self._deck[lane, self._ptr[lane] :][::-1].tolist(),
            "turn": int(self._turn[lane]),
            "hand": int(self._hand[lane]),
            "hand_from_stock": bool(self._from_stock[lane]),
            "phase": int(self._phase[lane]),
            "current_player": int(self._cp[lane]),
            "dealer": int(self._dealer[lane]),
            "owner_known": self._owner_known[lane].tolist(),
            "swapped": self._swapped[lane].tolist(),
            "public": self._public[lane].tolist(),
            "totals": self.totals[lane].tolist(),
            "round_no": int(self.round_no[lane]),
            "num_players": n,
        }
