"""The Sprøyte rules engine: the state of one deal, or of a match, of a configured game.

:class:`SproyteEngine` deals, runs the exchange or talon offer and the tricks, scores and
observes one episode, in each of the three forms (``vanlig``, ``variasjon``, ``tretten``); it
is the readable reference the batched engine (:mod:`.batched`) is tested against, step for
step. The rules, every decision where the source is silent or loose, the observation and the
infos are described once, in docs/sproyte.md; the options and fixed tables are in :mod:`.game`.
"""

from __future__ import annotations

import copy
from bisect import insort
from collections.abc import Sequence

import numpy as np

from ...core.cards import SUITS
from ...core.engine import CloneRng, Engine, LazyGenerator, winners_rewards
from ...core.tricks import follow_suit_legal, trick_winner_trump
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
    N,
    Phase,
    contract_of_shown,
    deal_points,
)
from .render import render, table

PHASE_NAMES = {p: p.name.lower() for p in Phase}  # what a record notes with each move


class SproyteEngine(Engine):
    NAME = "sproyte"

    # ---- episode --------------------------------------------------------------
    def _start(self, deck, dealer):
        self.totals = [0] * N
        self.deal_no = 0
        self.final_points: list[int] | None = None
        self._deal(deck, dealer)

    def _deal(self, deck: list[int], dealer: int) -> None:
        self.dealer = dealer
        order = [(dealer + 1) % N, (dealer + 2) % N, dealer]  # forhånd, middle, dealer
        self.order = order
        self.deck_order = list(deck)
        self.deal_start = len(self.history)
        hands: list[list[int]] = [[], [], []]
        talon: list[int] = []
        if self.tretten:
            for i, c in enumerate(deck):
                k = i & 3
                (talon if k == 3 else hands[order[k]]).append(c)
            pile: list[int] = []
        else:
            dealt = N * self.hand_size
            for i in range(dealt):
                hands[order[i % N]].append(deck[i])
            pile = list(deck[dealt:])
        self.hands = [sorted(h) for h in hands]
        self.suit_count = [[0, 0, 0, 0] for _ in range(N)]
        for s in range(N):
            for c in self.hands[s]:
                self.suit_count[s][c // 13] += 1
        self.talon = talon
        self.pile = pile
        self.pile_pos = 0
        self.out: list[list[int]] = [[], [], []]
        # contract
        self.shown = -1
        self.shown_holder = -1
        if self.variant == "variasjon":
            self.shown = deck[-1]
            self.contract, trump = contract_of_shown(self.shown)
        else:
            self.contract = TRUMP
            trump = self.fixed_trump if self.fixed_trump is not None else ROTATION[self.deal_no % 4]
        self.trump = -1 if trump is None else trump
        self._trump_arg = trump  # for trick_winner_trump (None = no trump)
        # preparation phase
        self.prep_idx = 0  # index into ``order`` of the seat exchanging / offered the talon
        self.ex_carry = 0
        self.ex_count = [0, 0, 0]
        self.ex_done = [False, False, False]
        self.talon_keep = [False, False, False]
        self.talon_taker = -1
        # play
        self.trick: list[int] = []
        self.trick_seats: list[int] = []
        self.last_trick: list[int] = []
        self.last_seats: list[int] = []
        self.leader = order[0]
        self.led = -1
        self.tricks = [0, 0, 0]
        self.played: list[list[int]] = [[], [], []]
        self.won: list[list[int]] = [[], [], []]
        self.voids = [[False] * 4 for _ in range(N)]
        self.trick_no = 0
        self.current_player = order[0]
        if self.tretten:
            self.phase = Phase.TALON
            self.ex_limit = 0
        else:
            self.phase = Phase.EXCHANGE
            self.ex_limit = self._limit()
        # knowledge: incremental per seat
        u = np.repeat(self._deck_mask[None, :], N, axis=0)
        for s in range(N):
            u[s, self.hands[s]] = 0
        if self.shown >= 0:
            u[:, self.shown] = 0
        self._unseen = u
        self._uflat = u.reshape(-1)
        self._init_obs()
        self._legal: list[int] | None = None

    def _limit(self) -> int:
        """How many cards the seat now exchanging may discard in all."""
        s = self.order[self.prep_idx]
        allowance = self.quota[self.prep_idx] + self.ex_carry
        return max(0, min(allowance, len(self.pile) - self.pile_pos, len(self.hands[s]) + self.ex_count[s]))

    # ---- moves ----------------------------------------------------------------
    def _legal_list(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._compute_legal()
            self._legal = legal
        return legal

    def _compute_legal(self) -> list[int]:
        ph = self.phase
        s = self.current_player
        if ph == Phase.PLAY:
            led = self.led if self.trick else None
            return [PLAY0 + c for c in follow_suit_legal(self.hands[s], led)]
        if ph == Phase.EXCHANGE:
            if self.ex_count[s] < self.ex_limit:
                return [DISCARD0 + c for c in self.hands[s]] + [DONE]
            return [DONE]
        if ph == Phase.TALON:
            return [TAKE_TALON, KEEP]
        return []

    def legal_actions(self) -> list[int]:
        return list(self._legal_list())

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        legal = self._legal_list()
        if legal:
            mask[legal] = 1
        return mask

    def is_legal(self, action: int) -> bool:
        return action in self._legal_list()

    def _apply(self, action: int) -> None:
        s = self.current_player
        self._legal = None
        ph = self.phase
        if ph == Phase.PLAY:
            self._play(s, action - PLAY0)
        elif ph == Phase.EXCHANGE:
            if action == DONE:
                self._exchange_done(s)
            else:
                self._discard(s, action - DISCARD0)
        elif action == TAKE_TALON:
            self._take_talon(s)
        else:
            self._keep(s)

    def _discard(self, s: int, c: int) -> None:
        self.hands[s].remove(c)
        self.suit_count[s][c // 13] -= 1
        self.out[s].append(c)
        self.ex_count[s] += 1
        f, B, L = self._flat, self._base, self.obs_size
        f[B[s] + self.o_hand + c] = 0.0
        f[B[s] + self.o_out + c] = 1.0
        v = self.ex_count[s] / 12.0
        off = self.o_exchanged
        for o in range(N):
            f[o * L + off + (s - o) % N] = v

    def _exchange_done(self, s: int) -> None:
        k = self.ex_count[s]
        f, L = self._flat, self.obs_size
        if k:
            drawn = self.pile[self.pile_pos : self.pile_pos + k]
            self.pile_pos += k
            hand, sc = self.hands[s], self.suit_count[s]
            b = self._base[s] + self.o_hand
            ub = 52 * s
            uf = self._uflat
            for c in drawn:
                insort(hand, c)
                sc[c // 13] += 1
                f[b + c] = 1.0
                uf[ub + c] = 0
            if self.shown in drawn:
                self.shown_holder = s
                for o in range(N):
                    f[o * L + self.o_shown_holder + (s - o) % N] = 1.0
            v = (len(self.pile) - self.pile_pos) / MAX_PILE
            for o in range(N):
                f[o * L + self.o_pile] = v
        self.ex_done[s] = True
        for o in range(N):
            f[o * L + self.o_ex_done + (s - o) % N] = 1.0
        i = self.prep_idx
        self.ex_carry = self.quota[i] + self.ex_carry - k
        self.prep_idx = i + 1
        if self.prep_idx == N:
            self._start_play()
        else:
            self.current_player = self.order[self.prep_idx]
            self.ex_limit = self._limit()

    def _take_talon(self, s: int) -> None:
        old = self.hands[s]
        new = sorted(self.talon)
        self.out[s].extend(old)
        self.hands[s] = new
        self.talon = []
        self.talon_taker = s
        sc = [0, 0, 0, 0]
        for c in new:
            sc[c // 13] += 1
        self.suit_count[s] = sc
        f, L = self._flat, self.obs_size
        b = self._base[s]
        uf, ub = self._uflat, 52 * s
        for c in old:
            f[b + self.o_hand + c] = 0.0
            f[b + self.o_out + c] = 1.0
        for c in new:
            f[b + self.o_hand + c] = 1.0
            uf[ub + c] = 0
        for o in range(N):
            f[o * L + self.o_talon_took + (s - o) % N] = 1.0
        self._start_play()

    def _keep(self, s: int) -> None:
        self.talon_keep[s] = True
        f, L = self._flat, self.obs_size
        for o in range(N):
            f[o * L + self.o_talon_keep + (s - o) % N] = 1.0
        self.prep_idx += 1
        if self.prep_idx == N:
            self._start_play()
        else:
            self.current_player = self.order[self.prep_idx]

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        self.ex_limit = 0
        self.leader = self.order[0]
        self.current_player = self.leader

    def _play(self, s: int, c: int) -> None:
        self.hands[s].remove(c)
        suit = c // 13
        self.suit_count[s][suit] -= 1
        trick = self.trick
        f, L = self._flat, self.obs_size
        if trick:
            led = self.led
            if suit != led and not self.voids[s][led]:
                self.voids[s][led] = True
                off = self.o_voids + led
                for o in range(N):
                    f[o * L + off + 4 * ((s - o) % N)] = 1.0
        else:
            self.led = suit
        trick.append(c)
        self.trick_seats.append(s)
        self.played[s].append(c)
        uf = self._uflat
        uf[c] = 0
        uf[52 + c] = 0
        uf[104 + c] = 0
        f[s * L + self.o_hand + c] = 0.0
        ot, op = self.o_trick + c, self.o_played + c
        for b in self._blocks[s]:
            f[b + ot] = 1.0
            f[b + op] = 1.0
        if len(trick) < N:
            self.current_player = (s + 1) % N
            return
        w = self.trick_seats[trick_winner_trump(trick, self._trump_arg)]
        self.tricks[w] += 1
        self.won[w].extend(trick)
        # the trick segment has the same per-observer layout as last_trick: move it over whole
        ot, ol = self.o_trick, self.o_last
        obs = self._obs
        obs[:, ol : ol + 156] = obs[:, ot : ot + 156]
        obs[:, ot : ot + 156] = 0.0
        vt = self.tricks[w] / MAX_TRICKS
        vp = deal_points(self.tricks[w], self.contract) / MAX_POINTS
        for o in range(N):
            rw = o * L + (w - o) % N
            f[rw + self.o_tricks] = vt
            f[rw + self.o_points] = vp
        self.last_trick, self.last_seats = trick, self.trick_seats
        self.trick, self.trick_seats = [], []
        self.trick_no += 1
        self.leader = w
        self.current_player = w
        if self.trick_no == self.num_tricks:
            self._end_deal()

    def _end_deal(self) -> None:
        pts = [deal_points(t, self.contract) for t in self.tricks]
        self.final_points = pts
        for s in range(N):
            self.totals[s] += pts[s]
        if self.match_to is not None and max(self.totals) < self.match_to:
            if self.max_deals is None or self.deal_no + 1 < self.max_deals:
                self.deal_no += 1
                dealer = (self.dealer + 1) % N
                self._deal(self.next_deck(dealer), dealer)
                return
            # max_deals: the match is cut after its last deal, as that deal ended (rewards 0)
            self.phase = Phase.OVER
            self.truncated = True
            self._write_match_points()
            return
        self.phase = Phase.OVER
        self.terminal = True
        if self.match_to is not None:
            self._write_match_points()
            if self.raw_reward:
                self.rewards = [float(t) for t in self.totals]
            else:
                top = max(self.totals)
                self.rewards = winners_rewards(N, [s for s in range(N) if self.totals[s] == top])
        elif self.raw_reward:
            self.rewards = [float(p) for p in pts]
        else:
            total = sum(pts)
            self.rewards = [p - (total - p) / 2.0 for p in pts]

    # ---- observation ----------------------------------------------------------
    def _init_obs(self) -> None:
        """The per-seat observation buffers at the start of a deal."""
        L = self.obs_size
        self._obs = np.zeros((N, L), dtype=np.float32)
        self._flat = f = self._obs.reshape(-1)
        pile_v = (len(self.pile) - self.pile_pos) / MAX_PILE
        np0 = deal_points(0, self.contract) / MAX_POINTS
        for o in range(N):
            b = o * L
            for c in self.hands[o]:
                f[b + self.o_hand + c] = 1.0
            f[b + self.o_contract + self.contract] = 1.0
            if self.trump >= 0:
                f[b + self.o_trump + self.trump] = 1.0
            if self.shown >= 0:
                f[b + self.o_shown + self.shown] = 1.0
            f[b + self.o_dealer + (o - self.dealer) % N] = 1.0
            f[b + self.o_pile] = pile_v
            for r in range(N):
                f[b + self.o_points + r] = np0
        self._write_match_points()

    def _write_match_points(self) -> None:
        if self.match_to is None:
            return
        f, L = self._flat, self.obs_size
        for o in range(N):
            for s in range(N):
                f[o * L + self.o_match + (s - o) % N] = self.totals[s] / self.match_to

    def observe(self, seat: int) -> np.ndarray:
        out = self._obs[seat].copy()
        ph = self.phase
        out[self.o_phase + ph] = 1.0
        if ph != Phase.OVER:
            cur = self.current_player
            out[self.o_to_move + (cur - seat) % N] = 1.0
            if ph == Phase.PLAY:
                out[self.o_leader + (self.leader - seat) % N] = 1.0
            elif ph == Phase.EXCHANGE:
                out[self.o_ex_left] = (self.ex_limit - self.ex_count[cur]) / 12.0
        return out

    def observe_reference(self, seat: int) -> np.ndarray:
        """``observe`` rebuilt from the state lists alone (no incremental buffers); for tests."""
        obs = np.zeros(self.obs_size, dtype=np.float32)

        def rel(s: int) -> int:
            return (s - seat) % N

        obs[[self.o_hand + c for c in self.hands[seat]]] = 1.0
        obs[self.o_contract + self.contract] = 1.0
        if self.trump >= 0:
            obs[self.o_trump + self.trump] = 1.0
        if self.shown >= 0:
            obs[self.o_shown + self.shown] = 1.0
        if self.shown_holder >= 0:
            obs[self.o_shown_holder + rel(self.shown_holder)] = 1.0
        obs[self.o_phase + int(self.phase)] = 1.0
        over = self.phase == Phase.OVER
        if not over:
            obs[self.o_to_move + rel(self.current_player)] = 1.0
        obs[self.o_dealer + (seat - self.dealer) % N] = 1.0
        obs[self.o_pile] = (len(self.pile) - self.pile_pos) / MAX_PILE
        if self.phase == Phase.EXCHANGE:
            obs[self.o_ex_left] = (self.ex_limit - self.ex_count[self.current_player]) / 12.0
        for s in range(N):
            r = rel(s)
            obs[self.o_exchanged + r] = self.ex_count[s] / 12.0
            obs[self.o_ex_done + r] = float(self.ex_done[s])
            obs[self.o_talon_keep + r] = float(self.talon_keep[s])
            obs[self.o_talon_took + r] = float(self.talon_taker == s)
            for c in self.played[s]:
                obs[self.o_played + 52 * r + c] = 1.0
            for suit in range(4):
                obs[self.o_voids + 4 * r + suit] = float(self.voids[s][suit])
            obs[self.o_tricks + r] = self.tricks[s] / MAX_TRICKS
            obs[self.o_points + r] = deal_points(self.tricks[s], self.contract) / MAX_POINTS
            if self.match_to is not None:
                obs[self.o_match + r] = self.totals[s] / self.match_to
        for c in self.out[seat]:
            obs[self.o_out + c] = 1.0
        for s, c in zip(self.trick_seats, self.trick, strict=True):
            obs[self.o_trick + 52 * rel(s) + c] = 1.0
        for s, c in zip(self.last_seats, self.last_trick, strict=True):
            obs[self.o_last + 52 * rel(s) + c] = 1.0
        if self.phase == Phase.PLAY:
            obs[self.o_leader + rel(self.leader)] = 1.0
        return obs

    # ---- knowledge ------------------------------------------------------------
    def moment(self):
        return PHASE_NAMES[self.phase], (self.trick_no if self.phase is Phase.PLAY else None)

    def unseen(self, seat: int) -> np.ndarray:
        return self._unseen[seat].copy()

    def reference_unseen(self, seat: int) -> np.ndarray:
        """``unseen`` recomputed from where the cards are (no incremental updates)."""
        u = self._deck_mask.copy()
        u[self.hands[seat]] = 0
        u[self.out[seat]] = 0
        for s in range(N):
            u[self.played[s]] = 0
        if self.shown >= 0:
            u[self.shown] = 0
        return u

    def locations(self) -> np.ndarray:
        """Where every card is: seat s's hand ``s``, its discards / old hand ``10 + s``, the pile
        ``20``, the talon ``21``, on the table played by s ``30 + s``, in s's won tricks ``40 + s``,
        not in this variant's deck ``99``."""
        loc = np.full(52, LOC_NOT_IN_DECK, dtype=np.int16)
        for s in range(N):
            loc[self.hands[s]] = LOC_HAND + s
            loc[self.out[s]] = LOC_OUT + s
            loc[self.won[s]] = LOC_WON + s
        loc[self.pile[self.pile_pos :]] = LOC_PILE
        loc[self.talon] = LOC_TALON
        for s, c in zip(self.trick_seats, self.trick, strict=True):
            loc[c] = LOC_TABLE + s
        return loc

    # ---- results --------------------------------------------------------------
    def points_now(self) -> list[int]:
        return [deal_points(t, self.contract) for t in self.tricks]

    def info(self, seat: int) -> dict:
        pts = self.final_points if self.terminal and self.final_points is not None else self.points_now()
        out = {
            "tricks": int(self.tricks[seat]),
            "deal_points": int(pts[seat]),
            "match_points": int(self.totals[seat]) if self.match_to is not None else int(pts[seat]),
            "contract": CONTRACT_NAMES[self.contract],
            "trump": SUITS[self.trump] if self.trump >= 0 else None,
        }
        if self.truncated:
            out["truncated_by"] = "max_deals"
        return out

    # the env's info before the episode ends: every key of the result, with a neutral value. A
    # string field is "" until the end ("not known yet"; ``trump`` None at the end is the rules'
    # "no trump"); its ``_id`` twin is an int at every step, -1 for unknown or none
    INFO_NEUTRAL = {
        "tricks": 0,
        "deal_points": 0,
        "match_points": 0,
        "contract": "",
        "contract_id": -1,
        "trump": "",
        "trump_id": -1,
        "truncated_by": "",
    }

    def env_info(self, seat: int) -> dict:
        """The AEC env's info: :data:`INFO_NEUTRAL` during play, the result fields at the end with
        ``contract_id`` (index into ``CONTRACT_NAMES``) and ``trump_id`` (0-3 for S H D C, -1 for
        no trump), ``truncated_by`` the cap's name or ``""`` (docs/sproyte.md, Infos)."""
        if not (self.terminal or self.truncated):
            return dict(self.INFO_NEUTRAL)
        out = self.info(seat)
        out["contract_id"] = CONTRACT_NAMES.index(out["contract"])
        out["trump_id"] = SUITS.index(out["trump"]) if out["trump"] is not None else -1
        out.setdefault("truncated_by", "")
        return {k: out[k] for k in self.INFO_NEUTRAL}

    def render(self, viewer: int | None = None) -> str:
        return render(self, viewer)

    def table(self, viewer: int | None = None) -> dict:
        return table(self, viewer)

    # ---- copies ------------------------------------------------------------------
    _VIEWS = ("_flat", "_uflat")  # flat views of _obs and _unseen: rebuilt, never copied apart

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self._VIEWS}

    def __setstate__(self, state: dict) -> None:
        """Pickle and ``copy.deepcopy`` copy arrays apart; the views must point into the copy's own."""
        self.__dict__.update(state)
        if "_obs" in state:
            self._flat = self._obs.reshape(-1)
        if "_unseen" in state:
            self._uflat = self._unseen.reshape(-1)

    # ---- search support ---------------------------------------------------------
    def clone(self, rng: CloneRng = "copy") -> SproyteEngine:
        new = copy.copy(self)
        new.hands = [h[:] for h in self.hands]
        new.suit_count = [c[:] for c in self.suit_count]
        new.talon = self.talon[:]
        new.pile = self.pile[:]
        new.out = [o[:] for o in self.out]
        new.ex_count = self.ex_count[:]
        new.ex_done = self.ex_done[:]
        new.talon_keep = self.talon_keep[:]
        new.trick = self.trick[:]
        new.trick_seats = self.trick_seats[:]
        new.last_trick = self.last_trick[:]
        new.last_seats = self.last_seats[:]
        new.tricks = self.tricks[:]
        new.played = [p[:] for p in self.played]
        new.won = [w[:] for w in self.won]
        new.voids = [v[:] for v in self.voids]
        new.totals = self.totals[:]
        new.final_points = self.final_points[:] if self.final_points is not None else None
        new.order = self.order[:]
        new.deck_order = self.deck_order[:]
        new.rewards = self.rewards[:]
        new.history = self.history[:]
        new.deal_log, new._later = self.deal_log[:], self._later[:]
        new._unseen = self._unseen.copy()
        new._uflat = new._unseen.reshape(-1)
        new._obs = self._obs.copy()
        new._flat = new._obs.reshape(-1)
        new._legal = None
        self.clone_rng(new, rng)
        return new

    def resample(self, seat: int, rng: np.random.Generator) -> SproyteEngine:
        """A copy in which the cards ``seat`` cannot locate are redealt among their places.

        The places are the other seats' hands (which keep their sizes and may not get a
        suit their seat has shown void in), the other seats' discards, the cards left in
        the pile (the shown card keeps its place) and the talon. The copy's future deals
        are shuffled from ``rng``, so it reveals nothing about the real ones.
        """
        # a stream of the copy's own (built only if a later deal draws from it)
        new = self.clone(rng=LazyGenerator(int(rng.integers(2**63))) if hasattr(self, "rng") else "copy")
        hidden = self._unseen[seat]
        places: list[tuple[list[int], list[int], int]] = []  # (container, positions, allowed-suit bits)
        for s in range(N):
            if s == seat:
                continue
            allowed = sum(1 << suit for suit in range(4) if not self.voids[s][suit])
            places.append((new.hands[s], [i for i, c in enumerate(new.hands[s]) if hidden[c]], allowed))
            places.append((new.out[s], [i for i, c in enumerate(new.out[s]) if hidden[c]], 15))
        places.append((new.pile, [i for i in range(new.pile_pos, len(new.pile)) if hidden[new.pile[i]]], 15))
        places.append((new.talon, [i for i, c in enumerate(new.talon) if hidden[c]], 15))
        cards = [cont[i] for cont, pos, _ in places for i in pos]
        assignment = _constrained_deal(cards, [(len(pos), allowed) for _, pos, allowed in places], rng)
        for (cont, pos, _), got in zip(places, assignment, strict=True):
            for i, c in zip(pos, got, strict=True):
                cont[i] = c
        new.refresh_views()
        return new

    def refresh_views(self, seats: Sequence[int] = range(N)) -> None:
        """Rebuild what is derived from the cards' places (sorted hands, suit counts, the
        ``unseen`` and observation buffers) for ``seats``, after cards were moved by hand
        (:meth:`resample`, a search's belief model)."""
        for s in seats:
            self.hands[s].sort()
            sc = [0, 0, 0, 0]
            for c in self.hands[s]:
                sc[c // 13] += 1
            self.suit_count[s] = sc
            self._unseen[s] = self.reference_unseen(s)
        for s in seats:
            self._obs[s] = self.observe_reference(s)
            # the buffers hold only the incremental part; observe() adds the per-move fields
            self._obs[s, self.o_phase : self.o_phase + 4] = 0.0
            self._obs[s, self.o_to_move : self.o_to_move + 3] = 0.0
            self._obs[s, self.o_leader : self.o_leader + 3] = 0.0
            self._obs[s, self.o_ex_left] = 0.0


def _constrained_deal(cards: list[int], places: list[tuple[int, int]], rng: np.random.Generator) -> list[list[int]]:
    """Deal ``cards`` into places of the given (size, allowed-suit bits), uniformly at random
    card by card, never making the rest impossible (Hall's condition over the four suits)."""
    supply = [0, 0, 0, 0]
    for c in cards:
        supply[c // 13] += 1
    cap = [size for size, _ in places]
    allowed = [bits for _, bits in places]
    out: list[list[int]] = [[] for _ in places]
    cards = sorted(cards)  # canonical: the deal depends on what the seat knows and rng only
    order = [cards[i] for i in rng.permutation(len(cards))]

    # Hall's condition, kept incrementally: for every set S of suits, the cards of S still to
    # deal (need) must fit in the places that accept a suit of S (room)
    subsets = range(1, 16)
    need = [sum(supply[x] for x in range(4) if s >> x & 1) for s in range(16)]
    room = [sum(cap[p] for p in range(len(places)) if allowed[p] & s) for s in range(16)]
    with_suit = [[s for s in subsets if s >> x & 1] for x in range(4)]
    touching = [[s for s in subsets if allowed[p] & s] for p in range(len(places))]

    for c in order:
        suit = c // 13
        supply[suit] -= 1
        for s in with_suit[suit]:
            need[s] -= 1
        cands = [p for p in range(len(places)) if cap[p] > 0 and allowed[p] >> suit & 1]
        weights = np.array([cap[p] for p in cands], dtype=np.float64)
        while True:
            j = int(rng.choice(len(cands), p=weights / weights.sum()))
            p = cands[j]
            cap[p] -= 1
            for s in touching[p]:
                room[s] -= 1
            if all(need[s] <= room[s] for s in subsets):
                break
            cap[p] += 1
            for s in touching[p]:
                room[s] += 1
            weights[j] = 0.0
        out[p].append(c)
    return out
