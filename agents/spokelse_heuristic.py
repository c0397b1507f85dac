"""``heuristic_v0`` for Spøkelse: an expected-value player that uses only its own observation.

How it thinks (all from the observation, decoded with the engine's layout):

* **Slot values.** A known own slot is worth its points; an unknown one (and the ghost) is
  worth ``u``, the mean points of the cards this seat cannot locate (the stock and every
  face-down card it has not seen are a uniform draw from exactly those cards).
* **Placing a card** ``x``: each option is scored by how much it lowers the expected sum
  (swap into slot ``i``: ``v_i - x``; discard: 0) minus what the released card offers the
  next player (see below). Ties prefer a *known* high card over an unknown slot.
* **Draw or take.** Taking the discard top is worth its best placement (a taken card must be
  swapped in); drawing is worth the expected best placement of a card drawn uniformly from
  the unseen cards (discard allowed). Take only when it beats drawing *and* strictly lowers
  the expected sum; so every take either turns an unknown slot into a known one or lowers a
  known sum, and two heuristics can never pass the pile back and forth forever.
* **What the pile offers.** A released card ``d`` is worth ``max(0, W - d - D)`` to the next
  player, where ``W`` is its worst slot as far as we can tell (public cards, ``u`` for the
  rest) and ``D`` what a draw would give it. That cost is weighted (full for two players,
  less with more, since only one of several opponents profits).
* **Stock-out ending.** The round ends after the turn that draws the last stock card. On that
  last turn nothing is offered any more, and the player chooses by the chance to end with the
  lowest sum (a normal approximation of every seat's sum), not by the mean: ahead it keeps
  safe, behind it gambles on unknown slots. When the stock holds one card the player either
  ends the round by drawing (when it estimates it is ahead) or, when behind, keeps the round
  alive with a take that improves its hand.

A fast path, :meth:`SpokelseHeuristic.act_seat`, builds the same view directly from an engine
for one seat (only what that seat can see). Search rollouts use it; a test checks that the
two views agree on many random states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kortmiljo.core.engine import Engine
from kortmiljo.games.spokelse.rules import DISCARD, DRAW, SWAP0, TAKE, Phase, card_points

from .base import Policy

_EPS = 1e-9


@dataclass
class View:
    """What one seat knows, decoded from its observation (or, equivalently, from the engine)."""

    own: list[int]  # own slot cards, -1 where not known
    hand: int  # card held (known to the mover), -1 if none
    from_stock: bool
    top: int  # discard top, -1 if the pile is empty
    phase: int
    stock_left: int
    unseen: np.ndarray  # int8 mask over the 52 cards
    opp: list[list[int]]  # per relative opponent seat 1..n-1: publicly known slot cards, -1 elsewhere


class SpokelseHeuristic(Policy):
    """Expected-value Spøkelse player (see the module docstring)."""

    name = "heuristic_v0"

    def __init__(self, engine: Engine, seed: int | None = None, offer_weight: float = 0.1, endgame: bool = True):
        super().__init__(engine, seed)
        if engine.NAME != "spokelse":
            raise ValueError(f"SpokelseHeuristic plays spokelse, not {engine.NAME}")
        self.n = engine.num_players
        self.points = card_points(engine.config["jack_points"])
        self._pts = self.points.tolist()
        self._rank_pts = self._pts[:13]
        self.stock_start = engine.stock_start
        self.offer_weight = float(offer_weight)
        self.endgame = endgame
        L = engine.layout
        self._sl = {name: L[name] for name in ("own_slots", "opp_slots", "hand", "hand_from_stock", "discard_top", "stock_size", "phase")}

    # ---- views -------------------------------------------------------------------
    def view_from_obs(self, obs: dict[str, np.ndarray]) -> View:
        o = np.asarray(obs["observation"])
        sl = self._sl
        own = o[sl["own_slots"]].reshape(4, 53).argmax(axis=1)
        opp = o[sl["opp_slots"]].reshape(self.n - 1, 4, 53).argmax(axis=2)
        hand = int(o[sl["hand"]].argmax())
        top = o[sl["discard_top"]]
        return View(
            own=[int(c) if c < 52 else -1 for c in own],
            hand=hand if hand < 52 else -1,
            from_stock=bool(o[sl["hand_from_stock"]][0] > 0.5),
            top=int(top.argmax()) if top.any() else -1,
            phase=int(o[sl["phase"]].argmax()),
            stock_left=int(round(float(o[sl["stock_size"]][0]) * self.stock_start)),
            unseen=np.asarray(obs["unseen"], dtype=np.int8),
            opp=[[int(c) if c < 52 else -1 for c in row] for row in opp],
        )

    def view_from_engine(self, e, seat: int) -> View:
        """The same view as :meth:`view_from_obs`, read from a Spøkelse engine for ``seat``."""
        n = self.n
        over = e.phase == Phase.OVER
        own = [c if (k or over) else -1 for c, k in zip(e.slots[seat], e.owner_known[seat])]
        opp = []
        for rel in range(1, n):
            s = (seat + rel) % n
            opp.append([c if (p or over) else -1 for c, p in zip(e.slots[s], e.public[s])])
        hand = e.hand if e.hand >= 0 and (seat == e.current_player or not e.hand_from_stock) else -1
        return View(
            own=own,
            hand=hand,
            from_stock=e.hand >= 0 and e.hand_from_stock,
            top=e.discard[-1] if e.discard else -1,
            phase=int(e.phase),
            stock_left=len(e.stock),
            unseen=e._unseen[seat],
            opp=opp,
        )

    # ---- acting --------------------------------------------------------------------
    def act(self, obs: dict[str, np.ndarray], engine: Engine | None = None) -> int:
        mask = obs["action_mask"]
        a = self.decide(self.view_from_obs(obs))
        if not mask[a]:  # cannot happen for a well-formed observation; stay legal regardless
            return int(np.flatnonzero(mask)[0])
        return a

    def act_seat(self, engine: Engine, seat: int) -> int:
        """Fast path for rollouts: the decision ``act`` would make for ``seat``'s observation."""
        return self.decide(self.view_from_engine(engine, seat))

    def decide(self, v: View) -> int:
        rp = self._rank_pts
        cnt = v.unseen.reshape(4, 13).sum(axis=0).tolist()
        m = sum(cnt)
        if m:
            dist = [(rp[r], c / m) for r, c in enumerate(cnt) if c]  # an unseen card's points: (value, probability)
            u = sum(p * q for p, q in dist)
        else:
            u = 6.5
            dist = [(u, 1.0)]
        pts = self._pts
        own_vals = [pts[c] if c >= 0 else u for c in v.own]
        known = [c >= 0 for c in v.own]
        w = self.offer_weight
        if v.phase == Phase.PLACE:
            x = pts[v.hand]
            if v.from_stock and v.stock_left == 0:  # this turn ends the round: nothing is offered
                if self.endgame:
                    return self._endgame_place(v, x, own_vals, known, u, dist)
                w = 0.0
        elif self.endgame and v.stock_left == 1:
            return self._endgame_draw(v, own_vals, known, u, dist)
        k = self._offer_threshold(v, u, dist)
        unknown_release = w * sum(q * (k - p) for p, q in dist if p < k)
        release = [(w * (k - own_vals[i]) if own_vals[i] < k else 0.0) if known[i] else unknown_release for i in range(4)]
        if v.phase == Phase.PLACE:
            return self._best_place(x, own_vals, known, release, w, k, v.from_stock)[1]

        # draw or take
        t = pts[v.top]
        take_gain, take_act = self._best_place(t, own_vals, known, release, w, k, False)
        if own_vals[take_act - SWAP0] - t <= _EPS:
            return DRAW  # a take must strictly lower the expected sum (no endless passing)
        draw_val = 0.0
        for p, q in dist:
            draw_val += q * self._best_place(p, own_vals, known, release, w, k, True)[0]
        return TAKE if take_gain > draw_val + _EPS else DRAW

    @staticmethod
    def _best_place(x, own_vals, known, release, w, k, can_discard) -> tuple[float, int]:
        """(score, action) of the best way to place a card worth ``x`` points: the drop of the
        expected sum minus the weighted value of the released card to the next player."""
        best, act = -math.inf, SWAP0
        for i in range(4):
            # a known slot wins ties against an unknown one (certain gain, same mean)
            score = own_vals[i] - x - release[i] + (1e-6 if known[i] else 0.0)
            if score > best + _EPS:
                best, act = score, SWAP0 + i
        if can_discard:
            score = -w * (k - x) if x < k else 0.0
            if score > best + _EPS:
                best, act = score, DISCARD
        return best, act

    def _offer_threshold(self, v: View, u: float, dist: list[tuple[float, float]]) -> float:
        """``K`` such that a card worth ``d`` on the pile is worth ``max(0, K - d)`` to the next
        player: its worst slot as far as we know (public cards, ``u`` for the rest) minus
        what drawing would give it."""
        pts = self._pts
        nxt = v.opp[0] if v.opp else []
        worst = max([pts[c] if c >= 0 else u for c in nxt] or [u])
        return worst - sum(q * (worst - p) for p, q in dist if p < worst)

    # ---- the last turn: play for the chance to have the lowest sum ----------------------
    def _sums(self, v: View, own_vals, known, u: float, var: float):
        """(mean, variance) of my sum and of each opponent's sum as I can estimate them."""
        pts = self._pts
        unk = sum(1 for k in known if not k) + 1  # + the ghost
        me = (sum(own_vals[i] for i in range(4) if known[i]) + unk * u, unk * var)
        opps = []
        for row in v.opp:
            ku = sum(1 for c in row if c < 0) + 1
            opps.append((sum(pts[c] for c in row if c >= 0) + ku * u, ku * var))
        return me, opps

    @staticmethod
    def _p_lowest(me_mean, me_var, opps) -> float:
        """P(my sum < every opponent's), treating the differences as independent normals."""
        p = 1.0
        for m, var in opps:
            s = math.sqrt(me_var + var + 1e-9)
            p *= 0.5 * (1.0 + math.erf((m - me_mean) / (s * math.sqrt(2.0))))
        return p

    def _place_outcomes(self, x, own_vals, known, u, var, can_discard):
        """Per option: (action, change of my mean, change of my variance)."""
        out = []
        for i in range(4):
            if known[i]:
                out.append((SWAP0 + i, x - own_vals[i], 0.0))
            else:
                out.append((SWAP0 + i, x - u, -var))
        if can_discard:
            out.append((DISCARD, 0.0, 0.0))
        return out

    def _endgame_place(self, v, x, own_vals, known, u, dist) -> int:
        var = sum(q * (p - u) ** 2 for p, q in dist)
        (mm, mv), opps = self._sums(v, own_vals, known, u, var)
        best, act = -1.0, DISCARD
        for a, dm, dv in self._place_outcomes(x, own_vals, known, u, var, True):
            p = self._p_lowest(mm + dm, mv + dv, opps)
            if p > best + 1e-12:
                best, act = p, a
        return act

    def _endgame_draw(self, v, own_vals, known, u, dist) -> int:
        """One stock card left: drawing it ends the round after this turn."""
        var = sum(q * (p - u) ** 2 for p, q in dist)
        (mm, mv), opps = self._sums(v, own_vals, known, u, var)
        # drawing: expected chance after placing the drawn card as well as possible
        p_draw = 0.0
        for p, q in dist:
            p_draw += q * max(self._p_lowest(mm + dm, mv + dv, opps) for _, dm, dv in self._place_outcomes(p, own_vals, known, u, var, True))
        # taking keeps the round alive; judge it by the chance after the take (the others then move)
        t = self._pts[v.top]
        _, dm, dv = min(self._place_outcomes(t, own_vals, known, u, var, False), key=lambda o: o[1])
        if dm < -_EPS:
            p_take = self._p_lowest(mm + dm, mv + dv, opps)
            if p_take > p_draw + 0.02:
                return TAKE
        return DRAW


__all__ = ["SpokelseHeuristic", "View"]
