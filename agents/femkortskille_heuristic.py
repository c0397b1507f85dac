"""``heuristic_v0`` for Femkortskille: a scripted player that uses only its own observation.

Everything it knows comes from the observation dict, decoded with the engine template's
``layout``: its hand, every seat's bidding status, the pot, the trick, the phase, the
mask, and ``unseen`` (the cards it cannot locate, which are the pool the other hands and
the stock come from).

How it thinks:

* **Tricks.** Only the fifth trick counts, and in it everybody's last card is forced, so
  the goal is to end with the highest last card. It always plays the lowest legal card:
  the lowest card that beats the trick when överstickstvång obliges it, otherwise its
  lowest card (also when leading). Its top cards are thereby kept for the fifth trick.
* **Winning chances.** ``p_win(hand, k)`` is estimated by Monte Carlo: the unknown cards
  (from ``unseen``) are dealt to k opposing knockers (five cards each; at bidding time
  their first three must hold a card of rank 12 or higher, since they chose to knock) and
  to its own missing cards; the five tricks are then played out with everybody playing
  the lowest legal card, from a random position in the trick order. The draws use a
  random stream seeded by the question itself, so the answer is deterministic and is
  cached (at bidding time it depends only on the three cards and k).
* **Bidding.** It waits (``lura``) whenever that is legal: waiting costs nothing and it
  decides later with more information (the dealer decides last of all). To knock or
  pass it compares the expected chip gain of knocking with passing (0): the players who
  can still knock are assumed to do so with probability 0.4 each; alone it wins the pot
  outright; against k knockers it wins the pot plus k payments with chance ``p_win``, and
  otherwise pays the pot (``payments_stay``: it wins only the pot). Knock stakes and
  auction bets are counted as chips put in. In ``auktion`` it scores every legal bet the
  same way and picks the best (or passes).
* **Poker.** In the exchange it discards its cards below the 10, lowest first, at most three
  (as far as the stock allows): a fresh card is more likely to help the fifth trick than a
  low one, and measured against discarding fewer or more this threshold did best. In the
  betting round it bets with a strong hand (``p_win`` > 0.6) and raises with > 0.7, calls
  when the expected gain of calling is positive, and otherwise checks or folds.
* **Forced moves.** A single legal action (``show`` with a skituppslag, the last card) is
  taken at once.

For search (``agents/search.py``): ``act_seat`` makes the same decision from the engine
(the tricks without building the observation), and ``world_weight`` weighs a resampled
world by how likely the other players' bids and trick cards are under this play (knockers
hold high cards; everybody plays the lowest card it may).
"""

from __future__ import annotations

import random
from functools import lru_cache
from math import exp

import numpy as np

from kortmiljo.core.engine import Engine
from kortmiljo.core.game import Game

from .base import Heuristic, lowest_legal, row

GAME = "femkortskille"

KNOCK, PASS, LURA, PLAY0 = 0, 1, 2, 3
PHASE_BID, PHASE_DECIDE, PHASE_EXCHANGE, PHASE_BETTING, PHASE_PLAY = 0, 1, 2, 3, 4
ST_TO_SPEAK, ST_KNOCKED, ST_PASSED, ST_WAITING, ST_SHOWED, ST_FOLDED = range(6)

KNOCK_PROB = 0.4  # chance that a player who can still knock does
KNOCKER_MIN_TOP = 12  # rank "10": an opposing knocker's three cards hold at least this
SAMPLES = 160  # Monte Carlo deals per estimate
BET_P, RAISE_P = 0.6, 0.7
# belief for search (``world_weight``): the chance that a player knocks rather than passes
# given the highest of its three dealt cards, a logistic fit to heuristic_v0 self-play
# (four players, default rules): 0.14 with a 12 on top, 0.55 with a husu, 0.93 with a kuku
KNOCK_CENTER, KNOCK_SLOPE = 14.5, 0.75
PLAY_MISMATCH = 0.1  # weight of a world per trick card unlike the lowest legal one
NUM_RANKS = 21
DISCARD_BELOW = 12  # poker: discard cards below the "10"
MAX_DISCARDS = 3


def trick_winner(hands: list[list[int]]) -> int:
    """Index of the fifth-trick winner when every hand (ascending ranks, five each) plays its
    lowest legal card and hand 0 leads the first trick."""
    m = len(hands)
    lead = 0
    for _ in range(5):
        high, win = -1, lead
        for j in range(m):
            i = lead + j
            if i >= m:
                i -= m
            h = hands[i]
            idx = 0
            if j:
                for x, r in enumerate(h):
                    if r > high:
                        idx = x
                        break
            c = h.pop(idx)
            if c >= high:
                high, win = c, i
        lead = win
    return lead


def _seed(*parts) -> int:
    s = 1469598103934665603
    for p in parts:
        for x in p if isinstance(p, tuple) else (p,):
            s = ((s ^ (int(x) + 1)) * 1099511628211) & 0xFFFFFFFFFFFF
    return s


@lru_cache(maxsize=65536)
def p_win(
    mine: tuple[int, ...], draws: int, pool: tuple[int, ...], k: int, min_top: int, samples: int = SAMPLES
) -> float:
    """Chance to win the fifth trick against ``k`` knockers.

    ``mine``: own ranks kept; ``draws``: own cards still to come from the pool; ``pool``: the
    ranks this seat cannot locate (with repeats); opponents get five pool cards each, and with
    ``min_top`` > 0 their first three hold at least one card of that rank or higher.
    """
    if k == 0:
        return 1.0
    rnd = random.Random(_seed(mine, draws, pool, k, min_top, samples))
    cards = list(pool)
    need = draws + 5 * k
    if need > len(cards):
        return 0.5
    wins = 0
    for _ in range(samples):
        for _try in range(4):
            deal = rnd.sample(cards, need)
            if not min_top or all(max(deal[draws + 5 * j : draws + 5 * j + 3]) >= min_top for j in range(k)):
                break
        hands = [sorted(deal[draws + 5 * j : draws + 5 * j + 5]) for j in range(k)]
        pos = rnd.randrange(k + 1)
        hands.insert(pos, sorted(mine + tuple(deal[:draws])))
        if trick_winner(hands) == pos:
            wins += 1
    return wins / samples


class FemkortskilleHeuristic(Heuristic):
    """A scripted Femkortskille player: lowest legal card in tricks, Monte Carlo chances for bids."""

    name = "heuristic_v0"

    knock_prob = KNOCK_PROB
    min_top = KNOCKER_MIN_TOP

    # search_v0 in Femkortskille (agents/search.py says why): only the tricks are searched, with
    # weighted worlds and a one-standard-error gate; bids, exchange and betting are this heuristic's
    search_settings = {
        "play": {"worlds": 32, "step_budget": 4_000, "max_worlds": 400, "confidence": 1.0, "sample_cost": 10},
        "*": {"search": False},
    }
    stages = {
        "play": "play",
        "knock": "bid",
        "pass": "bid",
        "lura": "bid",
        "show": "bid",
        "bet:": "bid",  # auktion bets (poker's plain "bet" is a betting-round action)
        "discard": "exchange",
        "done": "exchange",
        "check": "betting",
        "bet": "betting",
        "call": "betting",
        "raise": "betting",
        "fold": "betting",
    }

    def __init__(self, game: Game, seed: int | None = None, samples: int = SAMPLES):
        super().__init__(game, seed)
        e = self.game
        if e.name != GAME:
            raise ValueError(f"FemkortskilleHeuristic plays {GAME}, not {e.name}")
        self.n = e.num_players
        L = e.layout
        self._seg = {s.name: L[s.name] for s in L.segments}
        self.samples = samples
        self.cfg = dict(e.config)
        self.payments_stay = bool(self.cfg.get("payments_stay"))
        self.knock_stake = int(self.cfg.get("knock_stake", 0))
        self.ante = int(self.cfg.get("ante", 1))
        names = e.action_names
        idx = {a: i for i, a in enumerate(names)}
        self.A_BET1 = idx.get("bet:1", -1)
        self.max_bet = int(self.cfg.get("max_bet", 5)) if self.A_BET1 >= 0 else 0
        self.A_DISCARD0 = idx.get("discard:blaren", -1)
        self.A_DONE = idx.get("done", -1)
        self.A_CHECK, self.A_PBET = idx.get("check", -1), idx.get("bet", -1)
        self.A_CALL, self.A_RAISE, self.A_FOLD = idx.get("call", -1), idx.get("raise", -1), idx.get("fold", -1)

    # ---- decoding --------------------------------------------------------------------
    def _get(self, obs: np.ndarray, name: str) -> np.ndarray:
        return obs[self._seg[name]]

    @staticmethod
    def _ranks(counts: np.ndarray) -> list[int]:
        out: list[int] = []
        for r in np.flatnonzero(counts):
            out += [int(r)] * int(round(counts[r]))
        return out

    @staticmethod
    def _pool(unseen: np.ndarray) -> tuple[int, ...]:
        u = np.asarray(unseen, dtype=np.int64)
        per_rank = u[0::2] + u[1::2]
        return tuple(r for r in range(21) for _ in range(int(per_rank[r])))

    # ---- the policy ------------------------------------------------------------------
    def act(self, obs: dict[str, np.ndarray], engine: Engine | None = None) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) == 0:
            raise ValueError("no legal action in the observation's action_mask")
        if len(legal) == 1:
            return int(legal[0])
        o = obs["observation"]
        phase = int(np.argmax(self._get(o, "phase")))
        legal_set = set(int(a) for a in legal)
        if phase == PHASE_PLAY:
            return int(legal[0])  # play:<rank> indices rise with the rank: the lowest legal card
        hand = tuple(sorted(self._ranks(self._get(o, "hand"))))
        pool = self._pool(obs["unseen"])
        status = self._get(o, "status").reshape(self.n, 6).argmax(axis=1)
        pot = float(self._get(o, "pot")[0])
        if phase in (PHASE_BID, PHASE_DECIDE):
            return self._bid(legal_set, hand, pool, status, pot, o)
        if phase == PHASE_EXCHANGE:
            return self._exchange(legal_set, hand, o)
        if phase == PHASE_BETTING:
            return self._betting(legal_set, hand, pool, status, pot, o)
        return int(legal[0])

    def act_batch(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """:meth:`act` for a batch (the native vector env's opponents): trick play and forced
        moves, most of the decisions, are the lowest legal index for all rows at once; bids,
        the exchange and betting go through :meth:`act` row by row."""
        acts = lowest_legal(obs["action_mask"])
        forced = np.asarray(obs["action_mask"]).astype(bool).sum(axis=1) == 1
        phase = np.asarray(obs["observation"])[:, self._seg["phase"]].argmax(axis=1)
        for i in np.flatnonzero(~forced & (phase != PHASE_PLAY)).tolist():
            acts[i] = self.act(row(obs, i))
        return acts

    def act_seat(self, engine: Engine, seat: int) -> int:
        """The same decision as :meth:`act` for the seat on move, read from ``engine``: in the
        tricks (the lowest legal card) and for a single legal action without building the
        observation (what search rollouts call; a test checks it equals :meth:`act`)."""
        if seat != engine.current_player or engine.terminal or engine.truncated:
            raise ValueError("act_seat decides for the seat on move only")
        legal = engine.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        if int(engine.phase) == PHASE_PLAY:
            return int(min(legal))
        return self.act(engine.observation(seat))

    def world_weight(self, world: Engine, seat: int) -> float:
        """How likely the other players' bids are, given the cards a resampled ``world`` dealt
        them (search weighs its worlds by it): players knock with high cards (see
        ``KNOCK_CENTER``), so a uniform redeal makes knockers look weaker and passers
        stronger than they are. Reads nothing but the resampled copy."""
        lik = 1.0
        for s, st in enumerate(world.status):
            if s == seat or st not in (ST_KNOCKED, ST_PASSED, ST_FOLDED) or not world.initial[s]:
                continue
            top = max(c >> 1 for c in world.initial[s])
            p = 1.0 / (1.0 + exp(-KNOCK_SLOPE * (top - KNOCK_CENTER)))
            lik *= 1.0 - p if st == ST_PASSED else p
        return lik * self._play_likelihood(world, seat)

    @staticmethod
    def _play_likelihood(world: Engine, seat: int) -> float:
        """``PLAY_MISMATCH`` for every card another player has played in this deal's tricks
        that is not the lowest legal card of the hand the world gives it (that hand is its
        hand now plus the cards it played since): players keep their high cards for the
        fifth trick. Uses only the plays, which every seat sees."""
        m = len(world.in_play)
        plays = [(s, a - PLAY0) for s, a in world.history[world.deal_start :] if PLAY0 <= a < PLAY0 + NUM_RANKS]
        if not plays or m == 0:
            return 1.0
        before = []  # the highest rank in the trick before each play (-1: it led)
        highest = -1
        for i, (_, r) in enumerate(plays):
            if i % m == 0:
                highest = -1
            before.append(highest)
            highest = max(highest, r)
        hands = {s: [c >> 1 for c in world.hands[s]] for s in world.in_play}
        lik = 1.0
        for i in range(len(plays) - 1, -1, -1):
            s, r = plays[i]
            h = hands[s]
            h.append(r)
            if s == seat:
                continue
            above = [x for x in h if x > before[i]] if before[i] >= 0 else h
            if r != min(above or h):
                lik *= PLAY_MISMATCH
        return lik

    def _ev(self, hand: tuple[int, ...], pool: tuple[int, ...], status: np.ndarray, pot: float, cost: float) -> float:
        """Expected chip gain of knocking (putting ``cost`` chips in) over passing."""
        others = status[1:]
        k0 = int(np.sum(others == ST_KNOCKED))
        m = int(np.sum((others == ST_TO_SPEAK) | (others == ST_WAITING)))
        draws = 5 - len(hand)
        ev = 0.0
        for j in range(m + 1):
            prob = _binom(m, j, self.knock_prob)
            k = k0 + j
            stake_in = cost + j * (self.knock_stake + (1 if self.A_BET1 >= 0 else 0))
            end_pot = pot + stake_in
            if k == 0:
                gain = end_pot - cost
            else:
                p = p_win(hand, draws, pool, min(k, 7), self.min_top, self.samples)
                win = end_pot if self.payments_stay else end_pot * (1 + k)
                gain = p * win - (1 - p) * end_pot - cost
            ev += prob * gain
        return ev

    def _bid(self, legal: set[int], hand, pool, status, pot, o) -> int:
        if LURA in legal:
            return LURA
        options: list[tuple[float, int]] = [(0.0, PASS)] if PASS in legal else []
        if KNOCK in legal:
            options.append((self._ev(hand, pool, status, pot, self.knock_stake), KNOCK))
        if self.A_BET1 >= 0:
            for k in range(1, self.max_bet + 1):
                a = self.A_BET1 + k - 1
                if a in legal:
                    options.append((self._ev(hand, pool, status, pot, k + self.knock_stake), a))
        return max(options, key=lambda t: (t[0], -t[1]))[1]

    def _active_opponents(self, status: np.ndarray) -> int:
        return int(np.sum(status[1:] == ST_KNOCKED))

    def _exchange(self, legal: set[int], hand, o) -> int:
        pending = int(round(float(self._get(o, "exchanged")[0])))
        a = self.A_DISCARD0 + hand[0]
        if pending < MAX_DISCARDS and hand[0] < DISCARD_BELOW and a in legal:
            return a
        return self.A_DONE

    def _betting(self, legal: set[int], hand, pool, status, pot, o) -> int:
        k = max(1, self._active_opponents(status))
        p = p_win(hand, 0, pool, min(k, 7), 0, self.samples)
        level = float(self._get(o, "bet_level")[0])
        mine = float(self._get(o, "round_bet")[0])
        if self.A_CHECK in legal:
            return self.A_PBET if p > BET_P else self.A_CHECK
        if self.A_RAISE in legal and p > RAISE_P:
            return self.A_RAISE
        to_call = level - mine
        end_pot = pot + to_call
        win = end_pot if self.payments_stay else end_pot * (1 + k)
        ev_call = p * win - (1 - p) * end_pot - to_call
        return self.A_CALL if ev_call > 0 else self.A_FOLD


def _binom(m: int, j: int, q: float) -> float:
    from math import comb

    return comb(m, j) * q**j * (1 - q) ** (m - j)


AGENTS = {"heuristic_v0": FemkortskilleHeuristic}  # found by kortmiljo.agents.registry
