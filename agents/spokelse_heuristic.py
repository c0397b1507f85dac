"""``heuristic_v0`` for Spøkelse: an expected-value player that uses only its own observation.

How it thinks (all from the observation, decoded with the engine's layout):

* **Slot values.** A known own slot is worth its points; an unknown one (and the ghost) is
  worth ``u``, the mean points of the cards this seat cannot locate (the stock and every
  face-down card it has not seen are a uniform draw from exactly those cards; this is the
  observation's ``unseen_mean_points``, recomputed from ``unseen`` for the full distribution).
* **Placing a card** ``x``: each option is scored by how much it lowers the expected sum
  (swap into slot ``i``: ``v_i - x``; discard: 0) minus what the released card offers the
  next player (below). Ties prefer a *known* high card over an unknown slot of equal
  expected value: the gain is certain.
* **Draw or take.** Taking the discard top is worth its best placement (a taken card must be
  swapped in); drawing is worth the expected best placement of a card drawn uniformly from
  the unseen cards (discard allowed). Take only when it beats drawing *and* strictly lowers
  the expected sum: every take then either turns an unknown slot into a known one or lowers
  a known sum, so heuristics can never pass the pile back and forth forever.
* **What the pile offers.** A released card worth ``d`` is worth ``max(0, K - d)`` to the next
  player, with ``K`` its worst slot as far as we can tell (public cards, ``u`` for the rest)
  minus what a draw would give it. The cost enters with weight ``offer_weight`` (0.1): a
  measured choice, weight 1 lost 1.5 % of games to weight 0 in duplicate self-play (the
  opponent's hidden slots are mostly better than ``u``), 0.1 breaks near-ties at no cost.
* **Stock-out ending.** The round ends after the turn that draws the last stock card, so that
  turn offers nothing: drawing the last card is valued, and a last drawn card is placed,
  greedily for the own sum alone. (A win-probability endgame, a normal approximation of
  every seat's sum, measured neutral to slightly negative against this and was dropped.)
* **Late takes** (off in ``heuristic_v0``): ``late_take=(k, b)`` also takes when the take is
  within ``b`` points of drawing once at most ``k`` stock cards are left. Late in the round the
  unseen cards include the opponent's face-down slots, nearly all 8s, jacks and aces by then,
  so the mean unseen card overrates a draw. ``(5, 0.5)`` beats v0 by +0.0015 [+0.0012, +0.0017]
  per game (100,000 duplicate deals, ``benchmarks/spokelse_ceiling.py --rule-deals 100000 --seed
  1``): the best of some thirty rule changes tried, and a measure of how close v0 plays to the
  best that its view allows.
* **Variants.** ``num_slots`` (absent slots are never used), ``max_turns`` (the last turn
  offers nothing either), short decks and 2–5 players come from the observation as well.

Measured (duplicate deals): against ``random`` +0.98 per game (99 % of two-player games
won); in self-play the options above change nothing measurable (±0.002 per game).

Speed paths, both tested to decide exactly as :meth:`SpokelseHeuristic.act`:
:meth:`~SpokelseHeuristic.act_seat` reads the same view straight from an engine for one
seat, and :meth:`~SpokelseHeuristic.rollout_batch` plays many single-round positions to the
end at once in numpy (every seat by this heuristic), which is what makes ``search_v0``
affordable in Spøkelse. :meth:`~SpokelseHeuristic.sample_world` is the belief model the
search samples worlds with (a resample leaned towards players keeping their low cards).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kortmiljo.core.engine import Engine
from kortmiljo.core.game import Game
from kortmiljo.games.spokelse.game import DISCARD, DRAW, SWAP0, TAKE, Phase, card_points

from .base import Heuristic, lowest_legal

GAME = "spokelse"

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
    turns_left: int = 0  # the max_turns variant: turns left in the round counting this one (0: no cap)


class SpokelseHeuristic(Heuristic):
    """Expected-value Spøkelse player (see the module docstring)."""

    name = "heuristic_v0"

    # search_v0 in Spøkelse: deviate from this heuristic only on two standard errors of evidence
    # (agents/search.py says why)
    search_settings = {"*": {"worlds": 40, "step_budget": 12_000, "max_worlds": 400, "confidence": 2.0}}

    def __init__(
        self,
        game: Game,
        seed: int | None = None,
        offer_weight: float = 0.1,
        late_take: tuple[int, float] = (0, 0.0),
    ):
        super().__init__(game, seed)
        engine = self.game
        if engine.name != GAME:
            raise ValueError(f"SpokelseHeuristic plays {GAME}, not {engine.name}")
        self.n = engine.num_players
        self.points = card_points(engine.config["jack_points"])
        self._pts = self.points.tolist()
        self._rank_pts = self._pts[:13]
        self._rank_arr = self.points[:13].copy()
        self.stock_start = engine.stock_start
        self.k = engine.num_slots  # the num_slots variant: the observation keeps four, absent ones all 0
        self.max_turns = engine.max_turns or 0
        self.offer_weight = float(offer_weight)
        self.late_stock, self.late_bonus = int(late_take[0]), float(late_take[1])
        if self.late_stock < 0 or self.late_bonus < 0:
            raise ValueError(f"late_take needs stock cards >= 0 and points >= 0, got {late_take!r}")
        L = engine.layout
        names = ["own_slots", "opp_slots", "hand", "hand_from_stock", "discard_top", "stock_size", "phase"]
        if self.max_turns:
            names.append("turns_left")
        self._sl = {name: L[name] for name in names}

    # ---- views -------------------------------------------------------------------
    def view_from_obs(self, obs: dict[str, np.ndarray]) -> View:
        o = np.asarray(obs["observation"])
        sl = self._sl
        k = self.k
        own = o[sl["own_slots"]].reshape(4, 53)[:k].argmax(axis=1)
        opp = o[sl["opp_slots"]].reshape(self.n - 1, 4, 53)[:, :k].argmax(axis=2)
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
            turns_left=int(round(float(o[sl["turns_left"]][0]) * self.max_turns)) if self.max_turns else 0,
        )

    def view_from_engine(self, e, seat: int) -> View:
        """The same view as :meth:`view_from_obs`, read from a Spøkelse engine for ``seat``."""
        n = self.n
        k = e.num_slots
        own = [e.slot_as_seen(seat, seat, i) for i in range(k)]
        opp = [[e.slot_as_seen(seat, (seat + rel) % n, i) for i in range(k)] for rel in range(1, n)]
        return View(
            own=own,
            hand=e.hand_as_seen(seat),
            from_stock=e.hand >= 0 and e.hand_from_stock,
            top=e.discard[-1] if e.discard else -1,
            phase=int(e.phase),
            stock_left=len(e.stock),
            unseen=e.unseen(seat),
            opp=opp,
            turns_left=self.max_turns - e.turn if self.max_turns else 0,
        )

    # ---- acting --------------------------------------------------------------------
    def act(self, obs: dict[str, np.ndarray], engine: Engine | None = None) -> int:
        mask = obs["action_mask"]
        a = self.decide(self.view_from_obs(obs))
        if not mask[a]:  # cannot happen for a well-formed observation; stay legal regardless
            return int(np.flatnonzero(mask)[0])
        return a

    def act_batch(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """:meth:`act` for a batch of observations at once (what the native vector env's
        opponents use): the observations are decoded into a one-round :class:`_Batch` in
        which the mover is seat 0, and :meth:`_decide_rows` decides every row together (a
        test checks it equals ``act`` row by row)."""
        o = np.asarray(obs["observation"])
        mask = np.asarray(obs["action_mask"])
        B, n, k, sl = len(o), self.n, self.k, self._sl
        own = o[:, sl["own_slots"]].reshape(B, 4, 53)[:, :k].argmax(axis=2)
        opp = o[:, sl["opp_slots"]].reshape(B, n - 1, 4, 53)[:, :, :k].argmax(axis=3)
        st = _Batch()
        st.n, st.max_turns = n, self.max_turns
        st.slots = np.concatenate([own[:, None], opp], axis=1).astype(np.int64)
        st.slots[st.slots == 52] = -1
        known = st.slots >= 0
        st.owner_known, st.public = known.copy(), known  # row 0: what the mover knows; others: public
        st.unseen = np.zeros((B, n, 52), dtype=bool)
        st.unseen[:, 0] = np.asarray(obs["unseen"], dtype=bool)
        hand = o[:, sl["hand"]].argmax(axis=1)
        st.hand = np.where(hand < 52, hand, -1)
        st.from_stock = o[:, sl["hand_from_stock"]][:, 0] > 0.5
        top = o[:, sl["discard_top"]]
        st.pile = np.where(top.any(axis=1), top.argmax(axis=1), -1)[:, None]  # -1 as in decide()
        st.pile_len = np.ones(B, dtype=np.int64)
        st.stock_len = np.rint(o[:, sl["stock_size"]][:, 0] * self.stock_start).astype(np.int64)
        st.phase = o[:, sl["phase"]].argmax(axis=1)
        st.cur = np.zeros(B, dtype=np.int64)
        if self.max_turns:
            st.turn = self.max_turns - np.rint(o[:, sl["turns_left"]][:, 0] * self.max_turns).astype(np.int64)
        acts = self._decide_rows(st, np.arange(B))
        bad = ~mask[np.arange(B), acts].astype(bool)  # as act(): stay legal regardless
        if bad.any():
            acts[bad] = lowest_legal(mask[bad])
        return acts

    def act_seat(self, engine: Engine, seat: int) -> int:
        """Fast path for rollouts: the decision ``act`` would make for ``seat``'s observation."""
        return self.decide(self.view_from_engine(engine, seat))

    def decide(self, v: View) -> int:
        """The action for this view (the float arithmetic runs in a fixed order so that
        :meth:`rollout_batch` can reproduce it exactly)."""
        rp = self._rank_pts
        cnt = v.unseen.reshape(4, 13).sum(axis=0).tolist()
        m = sum(cnt) or 1  # the own ghost is unseen while the round runs, so m >= 1 in play
        dist = [(rp[r], c / m) for r, c in enumerate(cnt) if c]  # an unseen card's points: (value, probability)
        u = 0.0
        for p, q in dist:
            u += p * q
        pts = self._pts
        own_vals = [pts[c] if c >= 0 else u for c in v.own]
        known = [c >= 0 for c in v.own]
        k = self._offer_threshold(v, u, dist)
        # the round ends after this turn (the last stock card was drawn, or the turn cap): nothing is offered
        last = v.turns_left == 1 or (v.phase == Phase.PLACE and v.from_stock and v.stock_left == 0)
        w = 0.0 if last else self.offer_weight
        release = self._release(own_vals, known, dist, k, w)
        if v.phase == Phase.PLACE:
            return self._best_place(pts[v.hand], own_vals, known, release, w, k, v.from_stock)[1]

        t = pts[v.top]
        take_gain, take_act = self._best_place(t, own_vals, known, release, w, k, False)
        if own_vals[take_act - SWAP0] - t <= _EPS:
            return DRAW  # a take must strictly lower the expected sum (no endless passing)
        if v.stock_left == 1:  # drawing the last card ends the round: the drawn card offers nothing
            w = 0.0
            release = self._release(own_vals, known, dist, k, w)
        draw_val = 0.0
        for p, q in dist:
            draw_val += q * self._best_place(p, own_vals, known, release, w, k, True)[0]
        margin = -self.late_bonus if v.stock_left <= self.late_stock else 0.0
        return TAKE if take_gain > draw_val + margin + _EPS else DRAW

    @staticmethod
    def _release(own_vals, known, dist, k, w) -> list[float]:
        """Weighted value to the next player of the card each slot would release."""
        acc = 0.0
        for p, q in dist:
            if p < k:
                acc += q * (k - p)
        unknown = w * acc
        return [(w * (k - v) if v < k else 0.0) if kn else unknown for v, kn in zip(own_vals, known, strict=True)]

    @staticmethod
    def _best_place(x, own_vals, known, release, w, k, can_discard) -> tuple[float, int]:
        """(score, action) of the best way to place a card worth ``x`` points: the drop of the
        expected sum minus the weighted value of the released card to the next player."""
        best, act = -math.inf, SWAP0
        for i in range(len(own_vals)):
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
        acc = 0.0
        for p, q in dist:
            if p < worst:
                acc += q * (worst - p)
        return worst - acc

    # ---- a belief model for search ---------------------------------------------------------
    # How strongly the other players' face-down slots lean to low cards, by the share of the
    # stock left: calibrated on heuristic self-play, where those slots average 1.5 (start) to
    # 4.4 (mid round) points below the mean unseen card and the stock as much above it.
    _TILT_AT = (0.0, 0.2, 0.6, 0.8, 1.0)
    _TILT = (1.0, 0.7, 0.6, 0.5, 0.15)

    def sample_world(self, engine: Engine, seat: int, rng: np.random.Generator) -> Engine:
        """``engine.resample(seat, rng)``, then the cards in the other players' non-public slots
        and in the stock redealt between them with weights ``exp(-lambda * points)`` for the
        slots: players keep their low cards, so a uniform redeal puts good cards into the
        stock that are really in their hands (and makes drawing look better, and their sums
        worse, than they are). Reads nothing but the resampled copy and public flags."""
        world = engine.resample(seat, rng)
        if world.phase == Phase.OVER or not world.stock:
            return world
        places = [(o, i) for o in range(self.n) if o != seat for i in range(world.num_slots) if not world.public[o][i]]
        if not places:
            return world
        pool = sorted([world.slots[o][i] for o, i in places] + world.stock)
        lam = float(np.interp(len(world.stock) / self.stock_start, self._TILT_AT, self._TILT))
        keys = np.log(rng.random(len(pool))) * np.exp(lam * self.points[pool])  # Efraimidis–Spirakis
        order = np.argsort(-keys, kind="stable")
        chosen = [pool[j] for j in order[: len(places)]]
        rest = [pool[j] for j in order[len(places) :]]
        for (o, i), c in zip(places, [chosen[j] for j in rng.permutation(len(chosen))], strict=True):
            world.slots[o][i] = c
        world.stock = [rest[j] for j in rng.permutation(len(rest))]
        # every seat's knowledge follows the new cards; the observation buffers too where the world
        # is rolled out step by step on the engine (a match; batched rollouts read no observation)
        world.refresh_views(observations=world.match_to is not None)
        return world

    # ---- batched rollouts ---------------------------------------------------------------
    def rollout_batch(
        self, states: list[Engine], seat: int, first_actions: list[int], score: str = "reward"
    ) -> np.ndarray | None:
        """Play every ``states[j]`` to the end after ``first_actions[j]``, every seat by this
        heuristic, all at once; return ``seat``'s total reward from that action on, per row.

        The rules of one round (draw/take, swap/discard, the end after the last stock card,
        ``reward="win"`` or ``"points"``) are replayed on numpy arrays with a row axis, and the
        decisions are :meth:`decide` computed for all rows together in the same float order,
        so the results equal playing each state with :meth:`act_seat` on the engine (a test
        checks it). ``score="points"`` returns the points margin instead, the mean of the
        other seats' sums minus this seat's (what ``reward="points"`` pays), whatever the
        configured reward. Returns None for a match (``match_to``), where later rounds need
        the engine's dealing; callers then roll out one by one.
        """
        if not states:
            return np.zeros(0)
        if any(e.config["match_to"] is not None for e in states):
            return None
        st = _Batch.pack(states, self.n)
        actions = np.asarray(first_actions, dtype=np.int64)
        live = np.arange(len(states))
        if score not in ("reward", "points"):
            raise ValueError(f"score must be 'reward' or 'points', got {score!r}")
        win = score == "reward" and states[0].config["reward"] == "win"
        out = np.zeros(len(states))
        self.last_steps = 0  # row-steps played: what a search spends
        for _ in range(100_000):
            if live.size == 0:
                return out
            self.last_steps += live.size
            done = st.apply(live, actions, self.points, win, out, seat)
            live = live[~done]
            actions = self._decide_rows(st, live)
        raise RuntimeError("rollout_batch did not finish")  # heuristics always reach the end

    def _decide_rows(self, st: _Batch, R: np.ndarray) -> np.ndarray:
        """:meth:`decide` for the seat on move in each row of ``R``, vectorized."""
        if R.size == 0:
            return np.zeros(0, dtype=np.int64)
        pts, n = self.points, self.n
        s = st.cur[R]
        cnt = st.unseen[R, s].reshape(len(R), 4, 13).sum(axis=1)
        m = np.maximum(cnt.sum(axis=1), 1)
        q = cnt / m[:, None]
        P = np.broadcast_to(self._rank_arr, q.shape)
        u = _seq_sum(P * q)
        own = st.slots[R, s]
        kn = st.owner_known[R, s]
        ov = np.where(kn, pts[own], u[:, None])
        nxt = (s + 1) % n
        worst = np.where(st.public[R, nxt], pts[st.slots[R, nxt]], u[:, None]).max(axis=1)
        k = worst - _seq_sum(np.where((q > 0) & (P < worst[:, None]), q * (worst[:, None] - P), 0.0))
        place = st.phase[R] == Phase.PLACE
        fs = st.from_stock[R]
        sl = st.stock_len[R]
        turns_left = self.max_turns - st.turn[R] if self.max_turns else np.zeros(len(R), dtype=np.int64)
        w = np.where((turns_left == 1) | (place & fs & (sl == 0)), 0.0, self.offer_weight)
        rel = _release_rows(ov, kn, P, q, k, w)
        bonus = np.where(kn, 1e-6, 0.0)
        acts = np.full(len(R), DRAW, dtype=np.int64)

        x = pts[np.where(place, st.hand[R], 0)]
        _, a_place = _best_place_rows(x, ov, bonus, rel, w, k, fs)
        acts[place] = a_place[place]

        D = np.flatnonzero(~place)
        if D.size:
            top = st.pile[R[D], st.pile_len[R[D]] - 1]
            t = pts[top]
            gain, a_take = _best_place_rows(t, ov[D], bonus[D], rel[D], w[D], k[D], np.zeros(D.size, dtype=bool))
            improves = ov[D, a_take - SWAP0] - t > _EPS
            T = np.flatnonzero(improves)
            if T.size:
                DT = D[T]
                wd = np.where(sl[DT] == 1, 0.0, w[DT])
                reld = _release_rows(ov[DT], kn[DT], P[DT], q[DT], k[DT], wd)
                # best placement of every possible drawn rank at once: rows x ranks
                slot_axis = (ov[DT][:, None, :], bonus[DT][:, None, :], reld[:, None, :])
                best, _ = _best_place_rows(P[DT], *slot_axis, wd[:, None], k[DT][:, None], True)
                draw_val = _seq_sum(q[DT] * best)
                margin = np.where(sl[DT] <= self.late_stock, -self.late_bonus, 0.0)
                acts[DT] = np.where(gain[T] > draw_val + margin + _EPS, TAKE, DRAW)
        return acts


def _seq_sum(a: np.ndarray) -> np.ndarray:
    """Sum over the last axis strictly left to right, as the scalar loops add (cumsum is sequential)."""
    return np.cumsum(a, axis=-1)[..., -1]


def _release_rows(ov, kn, P, q, k, w) -> np.ndarray:
    """:meth:`SpokelseHeuristic._release` for rows."""
    acc = _seq_sum(np.where((q > 0) & (P < k[:, None]), q * (k[:, None] - P), 0.0))
    unknown = w * acc
    known_rel = np.where(ov < k[:, None], w[:, None] * (k[:, None] - ov), 0.0)
    return np.where(kn, known_rel, unknown[:, None])


def _best_place_rows(x, ov, bonus, rel, w, k, can_discard):
    """:meth:`SpokelseHeuristic._best_place` for rows (``x`` may carry an extra axis of
    candidate cards; the slot axis is last in ``ov``, ``bonus`` and ``rel``)."""
    x = np.asarray(x, dtype=np.float64)
    best = act = None
    for i in range(ov.shape[-1]):
        score = ov[..., i] - x - rel[..., i] + bonus[..., i]
        if best is None:
            best = score
            act = np.full(score.shape, SWAP0, dtype=np.int64)
        else:
            upd = score > best + _EPS
            best = np.where(upd, score, best)
            act = np.where(upd, SWAP0 + i, act)
    dscore = np.where(x < k, -w * (k - x), 0.0)
    upd = np.asarray(can_discard) & (dscore > best + _EPS)
    best = np.where(upd, dscore, best)
    act = np.where(upd, DISCARD, act)
    return best, act


class _Batch:
    """One round of Spøkelse for many rows, as arrays (only what rollouts need)."""

    @classmethod
    def pack(cls, states: list[Engine], n: int) -> _Batch:
        b = cls()
        B, k = len(states), states[0].num_slots
        b.slots = np.array([e.slots for e in states], dtype=np.int64).reshape(B, n, k)
        b.ghost = np.array([e.ghost for e in states], dtype=np.int64).reshape(B, n)
        b.owner_known = np.array([e.owner_known for e in states], dtype=bool).reshape(B, n, k)
        b.public = np.array([e.public for e in states], dtype=bool).reshape(B, n, k)
        b.turn = np.array([e.turn for e in states], dtype=np.int64)
        b.max_turns = states[0].max_turns or 0
        b.unseen = np.array([[e.unseen(v) for v in range(n)] for e in states], dtype=bool).reshape(B, n, 52)
        b.stock = np.zeros((B, 52), dtype=np.int64)
        b.pile = np.zeros((B, 53), dtype=np.int64)
        b.stock_len = np.array([len(e.stock) for e in states], dtype=np.int64)
        b.pile_len = np.array([len(e.discard) for e in states], dtype=np.int64)
        for j, e in enumerate(states):
            b.stock[j, : len(e.stock)] = e.stock
            b.pile[j, : len(e.discard)] = e.discard
        b.hand = np.array([e.hand for e in states], dtype=np.int64)
        b.from_stock = np.array([e.hand_from_stock for e in states], dtype=bool)
        b.phase = np.array([int(e.phase) for e in states], dtype=np.int64)
        b.cur = np.array([e.current_player for e in states], dtype=np.int64)
        b.n = n
        return b

    def rows(self, R: np.ndarray) -> _Batch:
        """A copy holding only rows ``R`` (to try actions on without touching this batch)."""
        b = _Batch()
        b.n, b.max_turns = self.n, self.max_turns
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray):
                setattr(b, name, value[R].copy())
        return b

    def apply(self, R: np.ndarray, a: np.ndarray, pts: np.ndarray, win: bool, out: np.ndarray, seat: int) -> np.ndarray:
        """Apply action ``a[i]`` in row ``R[i]``; rows whose round ends get ``seat``'s reward in
        ``out``. Returns the mask (over ``R``) of rows that ended."""
        s = self.cur[R]
        draw = a == DRAW
        take = a == TAKE
        place = ~(draw | take)
        Rd = R[draw]
        if Rd.size:
            self.stock_len[Rd] -= 1
            card = self.stock[Rd, self.stock_len[Rd]]
            self.hand[Rd] = card
            self.from_stock[Rd] = True
            self.unseen[Rd, s[draw], card] = False
            self.phase[Rd] = Phase.PLACE
        Rt = R[take]
        if Rt.size:
            self.pile_len[Rt] -= 1
            self.hand[Rt] = self.pile[Rt, self.pile_len[Rt]]
            self.from_stock[Rt] = False
            self.phase[Rt] = Phase.PLACE
        ended = np.zeros(len(R), dtype=bool)
        Rp = R[place]
        if Rp.size:
            sp, ap = s[place], a[place]
            card = self.hand[Rp]
            out_card = card.copy()
            sw = ap != DISCARD
            if sw.any():
                Rs, ss, i = Rp[sw], sp[sw], ap[sw] - SWAP0
                out_card[sw] = self.slots[Rs, ss, i]
                self.slots[Rs, ss, i] = card[sw]
                self.owner_known[Rs, ss, i] = True
                self.public[Rs, ss, i] = ~self.from_stock[Rs]
            self.pile[Rp, self.pile_len[Rp]] = out_card
            self.pile_len[Rp] += 1
            self.unseen[Rp, :, out_card] = False
            self.hand[Rp] = -1
            self.from_stock[Rp] = False
            self.phase[Rp] = Phase.DRAW
            self.turn[Rp] += 1
            over = self.stock_len[Rp] == 0
            if self.max_turns:
                over |= self.turn[Rp] >= self.max_turns
            self.cur[Rp[~over]] = (sp[~over] + 1) % self.n
            if over.any():
                E = Rp[over]
                self.phase[E] = Phase.OVER
                out[E] = self._final_reward(E, pts, win, seat)
                ended[np.flatnonzero(place)[over]] = True
        return ended

    def _final_reward(self, E: np.ndarray, pts: np.ndarray, win: bool, seat: int) -> np.ndarray:
        n = self.n
        p = pts[self.slots[E]]
        sums = pts[self.ghost[E]] + _seq_sum(p)
        mine = sums[:, seat]
        if win:
            low = sums.min(axis=1)
            nw = (sums == low[:, None]).sum(axis=1)
            is_w = mine == low
            r = np.where(is_w, 1.0 / nw, -1.0 / np.maximum(n - nw, 1))
            return np.where(nw == n, 0.0, r)
        total = _seq_sum(sums)
        return (total - mine) / (n - 1) - mine


AGENTS = {"heuristic_v0": SpokelseHeuristic}  # found by kortmiljo.agents.registry

__all__ = ["AGENTS", "GAME", "SpokelseHeuristic", "View"]
