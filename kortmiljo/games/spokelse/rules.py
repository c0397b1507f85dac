"""The Spøkelse rules engine: the state of one round, or of a match, of a configured game.

:class:`SpokelseEngine` deals, steps, scores and observes one episode; it is the readable
reference the batched engine (:mod:`.batched`) is tested against, step for step. The rules,
every decision where the source is silent, the teaching variants, the observation and the
infos are described once, in docs/spokelse.md; the options and fixed tables are in :mod:`.game`.
"""

from __future__ import annotations

import copy
import sys

import numpy as np

from ...core.engine import CloneRng, Engine, LazyGenerator, winners_rewards
from .game import DISCARD, DRAW, LOC_DISCARD, LOC_STOCK, SWAP0, TAKE, UNKNOWN, Phase
from .render import render, table

PHASE_NAMES = {p: p.name.lower() for p in Phase}  # what a record notes with each move


class SpokelseEngine(Engine):
    NAME = "spokelse"

    # ---- episode --------------------------------------------------------------
    def _start(self, deck, dealer):
        n = self.num_players
        self.totals = [0.0] * n
        self.round_no = 0
        self.last_sums: list[float] | None = None
        self._deal(deck, dealer)

    def _deal(self, deck: list[int], dealer: int) -> None:
        n, k = self.num_players, self.num_slots
        dealt = (1 + k) * n
        self.dealer = dealer
        self.round_no += 1
        self.turn = 0  # turns completed in this round (the max_turns variant)
        # the step after which max_steps cuts the episode (history holds every step of the episode)
        self._cut_at = sys.maxsize if self.max_steps is None else len(self.history) + self.max_steps
        order = [(dealer + 1 + i) % n for i in range(n)]  # forhånd first
        received: list[list[int]] = [[] for _ in range(n)]
        for i in range(dealt):
            received[order[i % n]].append(deck[i])
        self.ghost = [r[0] for r in received]
        self.slots = [r[1:] for r in received]
        self.discard = [deck[dealt]]
        self.stock = deck[dealt + 1 :][::-1]  # top of stock = end of list (pop)
        self.hand = -1
        self.hand_from_stock = False
        self.phase = Phase.DRAW
        self.current_player = order[0]
        # knowledge: owner_known[s][i] — s knows its slot i; public[s][i] — everyone does
        self.owner_known = [[i < 2 for i in range(k)] for _ in range(n)]
        self.public = [[False] * k for _ in range(n)]
        self.swapped = [[False] * k for _ in range(n)]
        self.discarded_by: list[list[int]] = [[] for _ in range(n)]
        self._unseen = np.tile(self._in_deck, (n, 1))
        for s in range(n):
            for i in range(min(2, k)):
                self._unseen[s, self.slots[s][i]] = 0
        self._unseen[:, self.discard[0]] = 0
        self.last_sums = None
        self._obs = np.zeros((n, self.layout.size), dtype=np.float32)
        self._ev: list[list[float]] = [[0.0, 0] for _ in range(n)]
        self._refresh()

    # ---- moves ----------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self.phase == Phase.OVER or self.truncated:
            return []
        return list(self._legal[(self.phase, self.hand_from_stock)])

    def legal_mask(self) -> np.ndarray:
        if self.phase == Phase.OVER or self.truncated:
            return np.zeros(7, dtype=np.int8)
        return self._masks[(self.phase, self.hand_from_stock)].copy()

    def is_legal(self, action: int) -> bool:
        return (
            self.phase != Phase.OVER
            and not self.truncated
            and action in self._legal[(self.phase, self.hand_from_stock)]
        )

    def _apply(self, action: int) -> None:
        # The per-seat observation buffers are updated in place here (no re-encoding per
        # step); ``encode`` is the from-scratch reference and a property test keeps the two equal.
        s, n, O = self.current_player, self.num_players, self._obs
        if action == DRAW or action == TAKE:
            if action == DRAW:
                card = self.hand = self.stock.pop()
                self.hand_from_stock = True
                O[:, self.o_stock] = len(self.stock) / self.stock_start
                O[s, self.o_hand + UNKNOWN] = 0.0
                O[s, self.o_hand + card] = 1.0
                O[:, self.o_from_stock] = 1.0
                self._see(s, card)
            else:
                card = self.hand = self.discard.pop()
                self.hand_from_stock = False
                O[:, self.o_hand + UNKNOWN] = 0.0
                O[:, self.o_hand + card] = 1.0
                O[:, self.o_top + card] = 0.0
                O[:, self.o_pile + card] = 0.0
                if self.discard:
                    O[:, self.o_top + self.discard[-1]] = 1.0
            self.phase = Phase.PLACE
            O[:, self.o_phase] = 0.0
            O[:, self.o_phase + 1] = 1.0
            if len(self.history) >= self._cut_at:  # max_steps: cut the episode, the state stays as it is
                self.truncated = True
            return
        card = self.hand
        if action == DISCARD:
            out = card
        else:
            i = action - SWAP0
            out = self.slots[s][i]
            before = [self._slot_view(v, s, i) for v in range(n)]
            self.slots[s][i] = card
            self.owner_known[s][i] = True
            self.public[s][i] = not self.hand_from_stock
            self.swapped[s][i] = True
            for v in range(n):
                self._show_slot(v, s, i, before[v], self._slot_view(v, s, i))
                O[v, self.o_owner + ((s - v) % n) * 4 + i] = 1.0
                O[v, self.o_swapped + ((s - v) % n) * 4 + i] = 1.0
        if self.discard:
            O[:, self.o_top + self.discard[-1]] = 0.0
        self.discard.append(out)
        self.discarded_by[s].append(out)
        O[:, self.o_top + out] = 1.0
        O[:, self.o_pile + out] = 1.0
        for v in range(n):
            O[v, self.o_by + ((s - v) % n) * 52 + out] = 1.0
            self._see(v, out)
            O[v, self.o_hand + card] = 0.0
            O[v, self.o_hand + UNKNOWN] = 1.0
        O[:, self.o_from_stock] = 0.0
        self.hand = -1
        self.hand_from_stock = False
        self.phase = Phase.DRAW
        O[:, self.o_phase + 1] = 0.0
        O[:, self.o_phase] = 1.0
        self.turn += 1
        if self.max_turns is not None:
            O[:, self.o_turns] = (self.max_turns - self.turn) / self.max_turns
        if self.stock and (self.max_turns is None or self.turn < self.max_turns):
            self.current_player = nxt = (s + 1) % n
            for v in range(n):
                O[v, self.o_to_move + (s - v) % n] = 0.0
                O[v, self.o_to_move + (nxt - v) % n] = 1.0
            if len(self.history) >= self._cut_at:
                self.truncated = True
        else:
            self._end_round()

    def _see(self, viewer: int, card: int) -> None:
        """``viewer`` can now locate ``card``: update ``unseen`` and the expected-value feature."""
        if self._unseen[viewer, card]:
            self._unseen[viewer, card] = 0
            self._ev[viewer][0] -= self._points_list[card]
            self._ev[viewer][1] -= 1
            total, count = self._ev[viewer]
            self._obs[viewer, self.o_ev] = total / (13.0 * count) if count else 0.0

    def _slot_view(self, viewer: int, seat: int, i: int) -> int:
        return self.slots[seat][i] if self.knows_slot(viewer, seat, i) else UNKNOWN

    def _show_slot(self, viewer: int, seat: int, i: int, old: int, new: int) -> None:
        if old == new:
            return
        rel = (seat - viewer) % self.num_players
        if rel == 0:
            base, pbase, kbase = self.o_own, self.o_own_pts, self.o_own_known
        else:
            base = self.o_opp + (rel - 1) * 212
            pbase, kbase = self.o_opp_pts + (rel - 1) * 4, self.o_opp_known + (rel - 1) * 4
        O = self._obs[viewer]
        O[base + 53 * i + old] = 0.0
        O[base + 53 * i + new] = 1.0
        known = new != UNKNOWN
        O[kbase + i] = 1.0 if known else 0.0
        O[pbase + i] = self._points_list[new] / 13.0 if known else 0.0

    def _refresh(self) -> None:
        """Rebuild every seat's observation buffer and expected-value sums from scratch."""
        for v in range(self.num_players):
            u = self._unseen[v]
            self._ev[v] = [float(self.points @ u), int(u.sum())]
            self._obs[v] = self.encode(v)

    def round_sums(self) -> list[float]:
        p = self._points_list
        return [p[self.ghost[s]] + sum(p[c] for c in self.slots[s]) for s in range(self.num_players)]

    def _end_round(self) -> None:
        n = self.num_players
        sums = self.round_sums()
        self.last_sums = sums
        self._unseen[:] = 0  # everything is revealed
        for s in range(n):
            self.totals[s] += sums[s]
        in_match = self.match_to is not None
        if in_match and max(self.totals) < self.match_to:
            dealer = (self.dealer + 1) % n
            self._deal(self.next_deck(dealer), dealer)
            return
        scores = self.totals if in_match else sums
        self.phase = Phase.OVER
        self.terminal = True
        self._refresh()
        if self.config["reward"] == "win":
            low = min(scores)
            self.rewards = winners_rewards(n, [s for s in range(n) if scores[s] == low])
        else:
            total = sum(scores)
            self.rewards = [(total - x) / (n - 1) - x for x in scores]

    # ---- what a seat knows (the public knowledge interface: agents read this, not the arrays) ------
    def knows_slot(self, viewer: int, seat: int, i: int) -> bool:
        return self.public[seat][i] or (seat == viewer and self.owner_known[seat][i]) or self.phase == Phase.OVER

    def slot_as_seen(self, viewer: int, seat: int, i: int) -> int:
        """The card in ``seat``'s slot ``i`` if ``viewer`` knows it, else -1."""
        return self.slots[seat][i] if self.knows_slot(viewer, seat, i) else -1

    def hand_as_seen(self, viewer: int) -> int:
        """The card the seat on move holds if ``viewer`` can see it (its own draw, or any take), else -1."""
        if self.hand >= 0 and (viewer == self.current_player or not self.hand_from_stock):
            return self.hand
        return -1

    def refresh_views(self, observations: bool = True) -> None:
        """Rebuild every seat's ``unseen`` (and, with ``observations``, its observation buffer) from
        the knowledge flags, after cards were moved in a copy (a search world)."""
        for s in range(self.num_players):
            self._unseen[s] = self.reference_unseen(s)
        if observations:
            self._refresh()

    # ---- views ----------------------------------------------------------------
    def moment(self):
        return PHASE_NAMES[self.phase], None

    def observe(self, seat: int) -> np.ndarray:
        return self._obs[seat].copy()

    def encode(self, seat: int) -> np.ndarray:
        """The observation of ``seat`` encoded from scratch (reference for the incremental buffers)."""
        n = self.num_players
        obs = np.zeros(self.layout.size, dtype=np.float32)
        ones: list[int] = []
        pts = self._points_list
        over = self.phase == Phase.OVER
        for rel in range(n):
            s = (seat + rel) % n
            slots, pub = self.slots[s], self.public[s]
            mine = self.owner_known[s] if rel == 0 else pub
            if rel == 0:
                base, pbase, kbase = self.o_own, self.o_own_pts, self.o_own_known
            else:
                base = self.o_opp + (rel - 1) * 212
                pbase = self.o_opp_pts + (rel - 1) * 4
                kbase = self.o_opp_known + (rel - 1) * 4
            for i in range(self.num_slots):
                if self.owner_known[s][i]:
                    ones.append(self.o_owner + rel * 4 + i)
                if self.swapped[s][i]:
                    ones.append(self.o_swapped + rel * 4 + i)
                if mine[i] or over:
                    c = slots[i]
                    ones.append(base + 53 * i + c)
                    ones.append(kbase + i)
                    obs[pbase + i] = pts[c] / 13.0
                else:
                    ones.append(base + 53 * i + UNKNOWN)
            by = self.o_by + rel * 52
            ones.extend(by + c for c in self.discarded_by[s])
            obs[self.o_totals + rel] = self.totals[s] / self.match_to if self.match_to else 0.0
            if self.last_sums is not None and over:
                obs[self.o_sums + rel] = self.last_sums[s] / 65.0
        if self.hand >= 0 and (seat == self.current_player or not self.hand_from_stock):
            ones.append(self.o_hand + self.hand)  # a card taken from the pile is public
        else:
            ones.append(self.o_hand + UNKNOWN)
        if self.hand >= 0:
            obs[self.o_from_stock] = float(self.hand_from_stock)
        if not over:
            ones.append(self.o_to_move + (self.current_player - seat) % n)
        if self.discard:
            ones.append(self.o_top + self.discard[-1])
            ones.extend(self.o_pile + c for c in self.discard)
        ones.append(self.o_phase + int(self.phase))
        ones.append(self.o_dealer + (seat - self.dealer) % n)
        obs[ones] = 1.0
        obs[self.o_stock] = len(self.stock) / self.stock_start
        if self.max_turns is not None:
            obs[self.o_turns] = (self.max_turns - self.turn) / self.max_turns
        u = self._unseen[seat]
        k = int(u.sum())
        obs[self.o_ev] = float(self.points @ u) / (13.0 * k) if k else 0.0
        return obs

    def unseen(self, seat: int) -> np.ndarray:
        return self._unseen[seat].copy()

    def reference_unseen(self, seat: int) -> np.ndarray:
        """``unseen`` recomputed from the state's knowledge flags (no incremental updates)."""
        u = self._in_deck.copy()
        if self.phase == Phase.OVER:
            return np.zeros(52, dtype=np.int8)
        for s in range(self.num_players):
            for i in range(self.num_slots):
                if self.knows_slot(seat, s, i):
                    u[self.slots[s][i]] = 0
        u[self.discard] = 0
        if self.hand >= 0 and (seat == self.current_player or not self.hand_from_stock):
            u[self.hand] = 0
        return u

    def locations(self) -> np.ndarray:
        loc = np.full(52, -1, dtype=np.int16)
        for s in range(self.num_players):
            loc[self.ghost[s]] = 10 * s
            for i, c in enumerate(self.slots[s]):
                loc[c] = 10 * s + 1 + i
        if self.hand >= 0:
            loc[self.hand] = 10 * self.current_player + 5
        loc[self.discard] = LOC_DISCARD
        loc[self.stock] = LOC_STOCK
        return loc

    def info(self, seat: int) -> dict:
        sums = self.last_sums or self.round_sums()
        out = {"round_points": sums[seat], "match_points": self.totals[seat] if self.match_to else sums[seat]}
        if self.truncated:
            out["truncated_by"] = "max_steps"
        return out

    # the env's info before the episode ends: every key of the result, with a neutral value
    INFO_NEUTRAL = {"round_points": 0.0, "match_points": 0.0, "truncated_by": ""}

    def env_info(self, seat: int) -> dict:
        """The AEC env's info: :data:`INFO_NEUTRAL` during play, the result fields at the end (as
        floats), ``truncated_by`` the cap's name or ``""`` (docs/spokelse.md, Infos)."""
        if not (self.terminal or self.truncated):
            return dict(self.INFO_NEUTRAL)
        res = self.info(seat)
        return {
            "round_points": float(res["round_points"]),
            "match_points": float(res["match_points"]),
            "truncated_by": res.get("truncated_by", ""),
        }

    def render(self, viewer: int | None = None) -> str:
        return render(self, viewer)

    def table(self, viewer: int | None = None) -> dict:
        return table(self, viewer)

    # ---- search support ---------------------------------------------------------
    def clone(self, rng: CloneRng = "copy") -> SpokelseEngine:
        new = copy.copy(self)
        new.ghost = self.ghost[:]
        new.slots = [s[:] for s in self.slots]
        new.discard = self.discard[:]
        new.stock = self.stock[:]
        new.owner_known = [k[:] for k in self.owner_known]
        new.public = [p[:] for p in self.public]
        new.swapped = [w[:] for w in self.swapped]
        new.discarded_by = [d[:] for d in self.discarded_by]
        new._unseen = self._unseen.copy()
        new._obs = self._obs.copy()
        new._ev = [ev[:] for ev in self._ev]
        new.totals = self.totals[:]
        new.rewards = self.rewards[:]
        new.history = self.history[:]
        new.deal_log, new._later = self.deal_log[:], self._later[:]
        self.clone_rng(new, rng)
        return new

    def resample(self, seat: int, rng: np.random.Generator) -> SpokelseEngine:
        """Redeal the cards ``seat`` cannot locate among their places. Suits and ranks are
        unconstrained in Spøkelse, so any permutation is consistent with what it saw."""
        # later deals of a match must not reveal (or advance) the real ones: a stream of the copy's own,
        # built only if a deal draws from it
        new = self.clone(rng=LazyGenerator(int(rng.integers(2**63))) if hasattr(self, "rng") else "copy")
        if self.phase == Phase.OVER:
            return new
        places: list[tuple[str, int, int]] = []  # (kind, seat, index)
        for s in range(self.num_players):
            places.append(("ghost", s, 0))
            for i in range(self.num_slots):
                if not self.knows_slot(seat, s, i):
                    places.append(("slot", s, i))
        hidden_hand = self.hand >= 0 and seat != self.current_player and self.hand_from_stock
        if hidden_hand:
            places.append(("hand", 0, 0))
        cards = [
            self.ghost[s] if k == "ghost" else self.slots[s][i] if k == "slot" else self.hand for k, s, i in places
        ]
        cards += self.stock
        cards.sort()  # canonical: the redeal depends on what ``seat`` knows and ``rng`` only
        perm = [cards[j] for j in rng.permutation(len(cards))]
        for (k, s, i), c in zip(places, perm, strict=False):  # the rest of perm is the stock
            if k == "ghost":
                new.ghost[s] = c
            elif k == "slot":
                new.slots[s][i] = c
            else:
                new.hand = c
        new.stock = perm[len(places) :]
        new.refresh_views()  # other seats' knowledge follows the new cards
        return new
