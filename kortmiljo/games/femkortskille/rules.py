"""The Femkortskille rules engine: the state of one episode (deals until a pot is won) of a configured game.

:class:`FemkortskilleEngine` deals, runs the bidding circle, the variants' extra phases and the
tricks, settles the pot and observes, and ``resample`` redeals what a seat cannot locate; it is
the readable reference the batched engine (:mod:`.batched`) is tested against, step for step.
The rules, every decision where the source is silent or ambiguous, the variants, the
observation and the infos are described once, in docs/femkortskille.md; the options and the
action table are in :mod:`.game`.
"""

from __future__ import annotations

import copy

import numpy as np

from ...core.cards import KILLE, KILLE_RANKS
from ...core.engine import CloneRng, Engine, LazyGenerator
from ...core.tricks import overstick_legal, trick_winner_later_equal
from .game import (
    KILLE_RANK,
    KNOCK,
    LOC_DISCARDED,
    LOC_HAND,
    LOC_PLAYED,
    LOC_STOCK,
    LOW_RANKS,
    LURA,
    MAX_DISCARDS,
    MAX_RAISES,
    NUM_RANKS,
    NUM_STATUS,
    PASS,
    PLAY0,
    Phase,
    Status,
)
from .render import render, table

PHASE_NAMES = {p: p.name.lower() for p in Phase}  # what a record notes with each move


class FemkortskilleEngine(Engine):
    NAME = "femkortskille"

    def __init__(self, game=None, **options):
        super().__init__(game, **options)
        self._carry = 0  # the pot the last finished episode left (payments_stay)
        self.phase = Phase.OVER
        self._legal: list[int] | None = []
        self._mask: np.ndarray | None = None

    # ---- sessions and episodes ------------------------------------------------
    def new_session(self) -> None:
        """Forget what carries between episodes (the payments_stay pot): the next episode starts afresh."""
        self._carry = 0

    def check_episode(self, deck=None, dealer=None, later_decks=None, carry=None):
        if deck is not None:
            self._check_deck(deck)
        return super().check_episode(deck, dealer, later_decks, carry)

    def carry_in(self):
        return {"pot": self.pot_carried} if self.payments_stay else None

    def check_carry(self, carry):
        if not self.payments_stay:
            return super().check_carry(carry)
        pot = carry.get("pot") if isinstance(carry, dict) and set(carry) == {"pot"} else None
        if isinstance(pot, bool) or not isinstance(pot, (int, float)) or not 0 <= pot < float("inf"):
            raise ValueError(f"carry must be {{'pot': chips}}, chips a number >= 0 (the pot carried in); got {carry!r}")
        return {"pot": pot}

    def set_carry(self, carry):
        self._carry = carry["pot"]

    def _check_deck(self, deck) -> None:
        """Refuse a third copy of a rank before any state changes (``Deck.parse_deck`` counts
        the copies of a rank under the wrong key once a rank appears a third time)."""
        if isinstance(deck, (str, bytes)) or not isinstance(deck, (list, tuple)):
            return  # parse_deck explains what a deck must be
        counts = [0] * NUM_RANKS
        for code in deck:
            counts[self.deck.parse(code) >> 1] += 1  # unknown codes raise here
        if self.deck is not KILLE:
            outside = [KILLE_RANKS[r] for r, k in enumerate(counts) if k and not self._in_deck[2 * r]]
            if outside:
                raise ValueError(
                    f"deck has cards outside this variant's deck: {', '.join(outside)}; "
                    f"the deck is two copies of each of {', '.join(self.config['ranks'])}"
                )
        extra = [f"{KILLE_RANKS[r]} ({k} copies)" for r, k in enumerate(counts) if k > 2]
        if extra:
            missing = [KILLE_RANKS[r] for r, k in enumerate(counts) if k < 2 and self._in_deck[2 * r]]
            raise ValueError(
                f"deck has duplicate cards: {', '.join(extra)}; missing: {', '.join(missing) or 'none'}; "
                f"the {self.deck.name} deck has two copies of each of its {len(self.deck) // 2} ranks"
            )

    def _start(self, deck, dealer):
        n = self.num_players
        self.pot = self._carry if self.payments_stay else 0
        self.pot_carried = self.pot
        self.net: list[float] = [0] * n
        self.deals = 0
        self.winner = -1
        self.pot_won = 0
        self._ante()
        self._deal(deck, dealer)

    def shuffled_deck(self) -> list[int]:
        # the kille deck's cards are 0..41, so this equals Engine.shuffled_deck, without the lookups
        if self.deck is KILLE:
            return self.rng.permutation(42).tolist()
        return super().shuffled_deck()

    def _ante(self) -> None:
        for s in range(self.num_players):
            self.net[s] -= self.ante
        self.pot += self.ante * self.num_players

    def _deal(self, deck: list[int], dealer: int) -> None:
        n = self.num_players
        self.deals += 1
        self.deal_start = len(self.history)
        self.deal_deck = list(deck)
        self.dealer = dealer
        self.forhand = fh = (dealer + 1) % n
        self.order = order = [(fh + i) % n for i in range(n)]
        hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(self.hand_size * n):
            hands[order[i % n]].append(deck[i])
        self.hands = hands
        self.initial = [h[:] for h in hands]
        self.stock = self.deal_deck[self.hand_size * n :]
        self.stock_pos = 0
        self.status = [int(Status.TO_SPEAK)] * n
        self.stake = [0] * n
        self.knocked = [False] * n
        self.circle_i = 0
        self.any_knock = False
        self.waiting: list[int] = []
        self.wait_i = 0
        self.skit = [self.skituppslag and all(c >> 1 < LOW_RANKS for c in h) for h in hands]
        self.shown: list[int] = []
        # auktion
        self.bid = [0] * n
        self.highest_bet = 0
        # poker
        self.discards: list[list[int]] = [[] for _ in range(n)]
        self.exch_i = 0
        self.pending = 0
        self.round_bet = [0] * n
        self.level = 0
        self.raises = 0
        self.need = [False] * n
        self.active: list[int] = []
        # tricks
        self.in_play: list[int] = []
        self.next_in_play = [-1] * n
        self.leader = -1
        self.trick_seats: list[int] = []
        self.trick_ranks: list[int] = []
        self.highest = -1
        self._winning = -1
        self.trick_no = 0
        self.played: list[list[int]] = [[] for _ in range(n)]  # physical cards, in play order
        self.tricks_won = [0] * n
        self.cap = [KILLE_RANK] * n  # highest rank each seat can still hold (from failed överstick)
        self.phase = Phase.BID
        self.current_player = fh
        # knowledge: copies of each rank each seat can locate
        self._kn = [[0] * NUM_RANKS for _ in range(n)]
        self._unseen = np.tile(self._in_deck, (n, 1))
        for s in range(n):
            for c in hands[s]:
                self._learn(s, c >> 1)
        self._legal = self._mask = None
        self._reset_pub()

    def _reset_pub(self) -> None:
        n = self.num_players
        p = self._pub = np.zeros(self._pub_size, dtype=np.float32)
        for s in range(n):
            p[self.P_status + NUM_STATUS * s + self.status[s]] = 1.0
            for c in self.hands[s]:
                p[self.P_hand + NUM_RANKS * s + (c >> 1)] += 1.0
        p[self.P_dealer + self.dealer] = 1.0
        p[self.P_deal] = self.deals / self.max_deals
        p[self.P_phase + int(self.phase)] = 1.0
        p[self.P_carried] = self.pot_carried
        self._pub_stock()
        self._pub_chips()

    def _pub_chips(self) -> None:
        p = self._pub
        for s in range(self.num_players):
            p[self.P_net + s] = self.net[s]
            p[self.P_stake + s] = self.stake[s]
        p[self.P_pot] = self.pot

    def _pub_stock(self) -> None:
        self._pub[self.P_stock] = (len(self.stock) - self.stock_pos) / 42.0

    def _set_phase(self, phase: Phase) -> None:
        p = self._pub
        p[self.P_phase + int(self.phase)] = 0.0
        p[self.P_phase + int(phase)] = 1.0
        self.phase = phase

    def _set_status(self, s: int, st: int) -> None:
        p, base = self._pub, self.P_status + NUM_STATUS * s
        p[base + self.status[s]] = 0.0
        p[base + st] = 1.0
        self.status[s] = st

    def _learn(self, s: int, r: int) -> None:
        k = self._kn[s][r] + 1
        self._kn[s][r] = k
        self._unseen[s, 2 * r + 2 - k] = 0  # the high bit clears first, so unseen copies fill the low bit

    def _give(self, s: int, card: int) -> None:
        self.hands[s].append(card)
        self._learn(s, card >> 1)
        self._pub[self.P_hand + NUM_RANKS * s + (card >> 1)] += 1.0

    def _take(self, s: int, r: int) -> int:
        """Remove one card of rank ``r`` from ``s``'s hand and return it."""
        hand = self.hands[s]
        for i, c in enumerate(hand):
            if c >> 1 == r:
                del hand[i]
                self._pub[self.P_hand + NUM_RANKS * s + r] -= 1.0
                return c
        raise AssertionError("rank not in hand")  # unreachable: legality checked first

    # ---- legal actions ------------------------------------------------------------
    def _compute_legal(self) -> list[int]:
        ph, s = self.phase, self.current_player
        if ph is Phase.PLAY:
            ranks = [c >> 1 for c in self.hands[s]]
            ok = overstick_legal(ranks, self.highest if self.trick_ranks else None)
            legal = sorted({PLAY0 + ranks[i] for i in ok})
        elif ph is Phase.BID:
            if self.skit[s]:
                legal = [self.A_SHOW]
            elif self.auktion:
                legal = [PASS, *range(self.A_BET1 + max(self.highest_bet, 1) - 1, self.A_BET1 + self.max_bet)]
            elif self.any_knock:
                legal = [KNOCK, PASS]
            else:
                legal = [KNOCK, PASS, LURA]
        elif ph is Phase.DECIDE:
            legal = [KNOCK, PASS]
        elif ph is Phase.EXCHANGE:
            legal = []
            if self.pending < MAX_DISCARDS and len(self.stock) - self.stock_pos > self.pending:
                legal = sorted({self.A_DISCARD0 + (c >> 1) for c in self.hands[s]})
            legal.append(self.A_DONE)
        elif ph is Phase.BETTING:
            if self.level == 0:
                legal = [self.A_CHECK, self.A_PBET]
            elif self.raises < MAX_RAISES:
                legal = [self.A_CALL, self.A_RAISE, self.A_FOLD]
            else:
                legal = [self.A_CALL, self.A_FOLD]
        else:
            legal = []
        self._legal = legal
        return legal

    def legal_actions(self) -> list[int]:
        legal = self._legal if self._legal is not None else self._compute_legal()
        return legal[:]

    def legal_mask(self) -> np.ndarray:
        if self._mask is None:
            mask = np.zeros(len(self.action_names), dtype=np.int8)
            mask[self._legal if self._legal is not None else self._compute_legal()] = 1
            self._mask = mask
        return self._mask.copy()

    def is_legal(self, action: int) -> bool:
        return action in (self._legal if self._legal is not None else self._compute_legal())

    # ---- moves ----------------------------------------------------------------
    def _apply(self, action: int) -> None:
        self._legal = self._mask = None
        ph, s = self.phase, self.current_player
        if ph is Phase.PLAY:
            self._play(s, action - PLAY0)
        elif ph is Phase.BID:
            self._bid(s, action)
        elif ph is Phase.DECIDE:
            if action == KNOCK:
                self._knock(s)
            else:
                self._set_status(s, Status.PASSED)
            self.wait_i += 1
            if self.wait_i < len(self.waiting):
                self.current_player = self.waiting[self.wait_i]
            else:
                self._after_bidding()
        elif ph is Phase.EXCHANGE:
            self._exchange(s, action)
        else:
            self._bet(s, action)

    def _stake(self, s: int, chips: int) -> None:
        self.net[s] -= chips
        self.stake[s] += chips
        self.pot += chips
        p = self._pub
        p[self.P_net + s] = self.net[s]
        p[self.P_stake + s] = self.stake[s]
        p[self.P_pot] = self.pot

    def _knock(self, s: int) -> None:
        self._set_status(s, Status.KNOCKED)
        self.knocked[s] = True
        self.any_knock = True
        if self.knock_stake:
            self._stake(s, self.knock_stake)

    def _bid(self, s: int, action: int) -> None:
        if action == KNOCK:
            self._knock(s)
        elif action == PASS:
            self._set_status(s, Status.PASSED)
        elif action == LURA:
            self._set_status(s, Status.WAITING)
        elif action == self.A_SHOW:
            self._set_status(s, Status.SHOWED)
            self.shown = self.hands[s][:]
            for c in self.shown:
                r = c >> 1
                self._pub[self.P_shown + r] += 1.0
                for o in range(self.num_players):
                    if o != s:
                        self._learn(o, r)
            self._win_at_once(s)
            return
        else:  # bet:k
            k = action - self.A_BET1 + 1
            self.bid[s] = k
            self.highest_bet = k
            self._pub[self.P_abet + s] = k
            self._pub[self.P_hbet] = k
            self._stake(s, k)
            self._knock(s)
        self.circle_i += 1
        if self.circle_i < self.num_players:
            self.current_player = self.order[self.circle_i]
            return
        self.waiting = [w for w in self.order if self.status[w] == Status.WAITING]
        if self.waiting:
            self.wait_i = 0
            self._set_phase(Phase.DECIDE)
            self.current_player = self.waiting[0]
        else:
            self._after_bidding()

    def _after_bidding(self) -> None:
        knockers = [s for s in self.order if self.status[s] == Status.KNOCKED]
        if not knockers:
            self._void_deal()
            return
        if len(knockers) == 1:
            self._win_at_once(knockers[0])
            return
        stock = self.stock
        for s in knockers:
            for _ in range(self.extra_cards):
                self._give(s, stock[self.stock_pos])
                self.stock_pos += 1
        self._pub_stock()
        self.active = knockers
        if self.poker:
            self.exch_i = 0
            self.pending = 0
            self._set_phase(Phase.EXCHANGE)
            self.current_player = knockers[0]
        else:
            self._start_play(knockers)

    def _exchange(self, s: int, action: int) -> None:
        if action != self.A_DONE:
            r = action - self.A_DISCARD0
            card = self._take(s, r)
            self.discards[s].append(card)
            self.pending += 1
            self._pub[self.P_exch + s] = self.pending
            self._pub[self.P_odisc + NUM_RANKS * s + r] += 1.0
            return
        for _ in range(self.pending):
            self._give(s, self.stock[self.stock_pos])
            self.stock_pos += 1
        self._pub_stock()
        self.pending = 0
        self.exch_i += 1
        if self.exch_i < len(self.active):
            self.current_player = self.active[self.exch_i]
            return
        self.level = self.raises = 0
        self.need = [s in self.active for s in range(self.num_players)]
        self._set_phase(Phase.BETTING)
        self.current_player = self.active[0]

    def _bet(self, s: int, action: int) -> None:
        n, p = self.num_players, self._pub
        self.need[s] = False
        if action == self.A_FOLD:
            self._set_status(s, Status.FOLDED)
            self.active = [a for a in self.active if a != s]
            if len(self.active) == 1:
                self._win_at_once(self.active[0])
                return
        elif action != self.A_CHECK:
            if action == self.A_PBET or action == self.A_RAISE:
                if action == self.A_RAISE:
                    self.raises += 1
                    p[self.P_raises] = self.raises
                self.level += self.ante
                p[self.P_level] = self.level
                for a in self.active:
                    self.need[a] = a != s
            chips = self.level - self.round_bet[s]
            self.round_bet[s] = self.level
            p[self.P_rbet + s] = self.level
            self._stake(s, chips)
        for i in range(1, n):
            nxt = (s + i) % n
            if self.need[nxt]:
                self.current_player = nxt
                return
        self._start_play(self.active)

    def _start_play(self, players: list[int]) -> None:
        self.in_play = players
        for i, s in enumerate(players):
            # seats in seat order from forhånd, so the next clockwise player wraps around the list
            self.next_in_play[s] = players[(i + 1) % len(players)]
        self._set_phase(Phase.PLAY)
        self._set_leader(players[0])
        self.current_player = players[0]

    def _set_leader(self, s: int) -> None:
        p = self._pub
        if self.leader >= 0:
            p[self.P_leader + self.leader] = 0.0
        p[self.P_leader + s] = 1.0
        self.leader = s

    def _play(self, s: int, r: int) -> None:
        p = self._pub
        card = self._take(s, r)
        self.played[s].append(card)
        p[self.P_played + NUM_RANKS * s + r] += 1.0
        p[self.P_trick + NUM_RANKS * s + r] = 1.0
        for o in range(self.num_players):
            if o != s:
                self._learn(o, r)
        highest = self.highest
        if self.trick_ranks:
            if r <= highest and highest < self.cap[s]:
                self.cap[s] = highest  # it could not beat the trick, so it holds nothing higher
            if r >= highest:
                p[self.P_high + highest] = 0.0
                p[self.P_winning + self._winning] = 0.0
        if r >= highest:  # of equal cards the later one counts higher
            p[self.P_high + r] = 1.0
            p[self.P_winning + s] = 1.0
            self.highest = r
            self._winning = s
        self.trick_seats.append(s)
        self.trick_ranks.append(r)
        if len(self.trick_ranks) < len(self.in_play):
            self.current_player = self.next_in_play[s]
            return
        w = self.trick_seats[trick_winner_later_equal(self.trick_ranks)]
        for seat, rank in zip(self.trick_seats, self.trick_ranks, strict=True):
            p[self.P_trick + NUM_RANKS * seat + rank] = 0.0
        p[self.P_high + self.highest] = 0.0
        p[self.P_winning + self._winning] = 0.0
        self.trick_seats = []
        self.trick_ranks = []
        self.highest = -1
        self.tricks_won[w] += 1
        p[self.P_won + w] = self.tricks_won[w]
        self.trick_no += 1
        if self.trick_no == self.tricks:
            self._settle(w)
        else:
            self._set_leader(w)
            self.current_player = w

    # ---- the end of a deal ------------------------------------------------------------
    def _settle(self, w: int) -> None:
        """The fifth-trick winner takes the pot after the other knockers pay in what it held."""
        held = self.pot
        for s in self.in_play:
            if s != w:
                self.net[s] -= held
                self.pot += held
        take = held if self.payments_stay else self.pot
        self._win(w, take)

    def _win_at_once(self, w: int) -> None:
        self._win(w, self.pot)

    def _win(self, w: int, take: float) -> None:
        self.net[w] += take
        self.pot -= take
        self.winner = w
        self.pot_won = take
        self._end(truncated=False)

    def _void_deal(self) -> None:
        if self.deals >= self.max_deals:
            share = self.pot / self.num_players
            for s in range(self.num_players):
                self.net[s] += share
            self.pot = 0
            self._end(truncated=True)
            return
        if self.ante_on_redeal:
            self._ante()
        dealer = (self.dealer + 1) % self.num_players
        self._deal(self.next_deck(dealer), dealer)

    def _end(self, truncated: bool) -> None:
        self.terminal = not truncated
        self.truncated = truncated
        self._set_phase(Phase.OVER)
        self._pub_chips()
        self.rewards = [float(x) for x in self.net]
        self._carry = self.pot
        self._legal = []
        self._mask = None

    # ---- views ----------------------------------------------------------------
    def observe(self, seat: int) -> np.ndarray:
        obs = self._pub.take(self._gather[seat])
        if self.phase is not Phase.OVER:
            obs[self.P_to_move + (self.current_player - seat) % self.num_players] = 1.0
        return obs

    def unseen(self, seat: int) -> np.ndarray:
        return self._unseen[seat].copy()

    def moment(self):
        return PHASE_NAMES[self.phase], (self.trick_no if self.phase is Phase.PLAY else None)

    def known_cards(self, seat: int) -> list[int]:
        """The cards ``seat`` can locate: its hand and discards, every card played, shown hands."""
        out = [*self.hands[seat], *self.discards[seat]]
        for s in range(self.num_players):
            out += self.played[s]
            if s != seat and self.status[s] == Status.SHOWED:
                out += self.hands[s]
        return out

    def known_counts(self, seat: int) -> list[int]:
        """Copies of each rank ``seat`` can locate, recomputed from the state (no incremental updates)."""
        kn = [0] * NUM_RANKS
        for c in self.hands[seat]:
            kn[c >> 1] += 1
        for c in self.discards[seat]:
            kn[c >> 1] += 1
        for s in range(self.num_players):
            for c in self.played[s]:
                kn[c >> 1] += 1
            if s != seat and self.status[s] == Status.SHOWED:
                for c in self.hands[s]:
                    kn[c >> 1] += 1
        return kn

    def reference_unseen(self, seat: int) -> np.ndarray:
        """``unseen`` recomputed from the state."""
        u = np.zeros(42, dtype=np.int8)
        for r, k in enumerate(self.known_counts(seat)):
            u[2 * r] = k < 2 and self._in_deck[2 * r]
            u[2 * r + 1] = k < 1 and self._in_deck[2 * r]
        return u

    def locations(self) -> np.ndarray:
        loc = np.full(42, -1, dtype=np.int16)
        for s in range(self.num_players):
            loc[self.hands[s]] = LOC_HAND + s
            loc[self.played[s]] = LOC_PLAYED + s
            loc[self.discards[s]] = LOC_DISCARDED + s
        loc[self.stock[self.stock_pos :]] = LOC_STOCK
        return loc

    def info(self, seat: int) -> dict:
        out = {
            "chips": float(self.net[seat]),
            "pot": float(self.pot),
            "knocked": bool(self.knocked[seat]),
            "pot_won": float(self.pot_won),
            "winner": f"player_{self.winner}" if self.winner >= 0 else None,
            "deals": self.deals,
        }
        if self.truncated:
            out["truncated_by"] = "max_deals"
        return out

    # the env's info before the episode ends: every key of the result, with a neutral value
    # (``winner`` is "" until the end, then the winner's seat name, or None if nobody won; its
    # twin ``winner_id`` is an int at every step: the seat, or -1)
    INFO_NEUTRAL = {
        "chips": 0.0,
        "pot": 0.0,
        "knocked": False,
        "pot_won": 0.0,
        "winner": "",
        "winner_id": -1,
        "deals": 0,
        "truncated_by": "",
    }

    def env_info(self, seat: int) -> dict:
        """The AEC env's info: :data:`INFO_NEUTRAL` during play, the result fields at the end with
        ``winner_id`` (the winner's seat, -1 for none), ``truncated_by`` the cap's name or ``""``
        (docs/femkortskille.md, Infos)."""
        if not (self.terminal or self.truncated):
            return dict(self.INFO_NEUTRAL)
        out = self.info(seat)
        out["winner_id"] = int(self.winner) if self.winner >= 0 else -1
        out["deals"] = int(out["deals"])
        out.setdefault("truncated_by", "")
        return {k: out[k] for k in self.INFO_NEUTRAL}

    def render(self, viewer: int | None = None) -> str:
        return render(self, viewer)

    def table(self, viewer: int | None = None) -> dict:
        return table(self, viewer)

    # ---- search support ---------------------------------------------------------
    def clone(self, rng: CloneRng = "copy") -> FemkortskilleEngine:
        new = copy.copy(self)
        for name in ("net", "status", "stake", "knocked", "skit", "shown", "bid", "round_bet", "need", "active",
                     "in_play", "next_in_play", "trick_seats", "trick_ranks", "tricks_won", "cap", "order",
                     "waiting", "stock", "deal_deck", "rewards", "history", "deal_log", "_later"):  # fmt: skip
            setattr(new, name, getattr(self, name)[:])
        for name in ("hands", "initial", "discards", "played", "_kn"):
            setattr(new, name, [x[:] for x in getattr(self, name)])
        new._unseen = self._unseen.copy()
        new._pub = self._pub.copy()
        new._legal = None if self._legal is None else self._legal[:]
        new._mask = None
        self.clone_rng(new, rng)
        return new

    def resample(self, seat: int, rng: np.random.Generator) -> FemkortskilleEngine:
        """Redeal the cards ``seat`` cannot locate among their places (other hands, other
        discards, the stock), consistent with what ``seat`` saw: failed överstick caps and,
        with skituppslag, no unshown three-low-card deal. Places are filled from the most
        constrained up, each from the cards it may hold, which always succeeds because the
        caps are nested (a consistent, not an exactly uniform, draw)."""
        n = self.num_players
        places: list[tuple[int, list[int]]] = []  # (cap, cards there now)
        for s in range(n):
            if s == seat or self.status[s] == Status.SHOWED:
                continue
            if self.hands[s]:
                places.append((self.cap[s], self.hands[s]))
            if self.discards[s]:
                places.append((KILLE_RANK, self.discards[s]))
        if self.stock_pos < len(self.stock):
            places.append((KILLE_RANK, self.stock[self.stock_pos :]))
        places.sort(key=lambda pc: pc[0])
        hidden = [c for _, cards in places for c in cards]
        checks = [
            s
            for s in range(n)
            if self.skituppslag and s != seat and self.status[s] not in (Status.TO_SPEAK, Status.SHOWED)
        ]
        hidden.sort()  # canonical: the redeal depends on what ``seat`` knows and ``rng`` only
        for _ in range(100):
            pool = hidden[:]
            perm: dict[int, int] = {}
            for cap, cards in places:
                for c in cards:
                    eligible = [i for i, x in enumerate(pool) if x >> 1 <= cap]
                    perm[c] = pool.pop(eligible[int(rng.integers(len(eligible)))])
            if all(not all(perm.get(c, c) >> 1 < LOW_RANKS for c in self.initial[s]) for s in checks):
                break
        else:  # no consistent draw found: the true deal is one
            return self.clone(rng=LazyGenerator(int(rng.integers(2**63))))
        new = self.clone(rng=LazyGenerator(int(rng.integers(2**63))))  # redeals must not reveal the real ones
        m = perm.get
        new.hands = [[m(c, c) for c in h] for h in self.hands]
        new.discards = [[m(c, c) for c in d] for d in self.discards]
        new.initial = [[m(c, c) for c in h] for h in self.initial]
        new.stock = [m(c, c) for c in self.stock]
        new.deal_deck = [m(c, c) for c in self.deal_deck]
        p = new._pub
        for s in range(n):
            if s == seat:
                continue
            base = self.P_hand + NUM_RANKS * s
            p[base : base + NUM_RANKS] = 0.0
            for c in new.hands[s]:
                p[base + (c >> 1)] += 1.0
            if self.poker:
                base = self.P_odisc + NUM_RANKS * s
                p[base : base + NUM_RANKS] = 0.0
                for c in new.discards[s]:
                    p[base + (c >> 1)] += 1.0
            new._kn[s] = new.known_counts(s)
            new._unseen[s] = new.reference_unseen(s)
        new.skit = [self.skituppslag and all(c >> 1 < LOW_RANKS for c in h) for h in new.initial]
        new._legal = new._mask = None  # the legal actions follow the new hands
        return new
