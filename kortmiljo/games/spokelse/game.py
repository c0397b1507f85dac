"""The configured Spøkelse: options, deck, action table, observation layout and facts.

Rules and every decision: docs/spokelse.md. The state of a round is :mod:`.rules`.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from ...core.cards import FRENCH, RANKS, Deck
from ...core.errors import ConfigError
from ...core.game import Facts, Game
from ...core.layout import Layout
from ...core.options import Option, int_in, one_of, optional, str_list

DRAW, TAKE, SWAP0, DISCARD = 0, 1, 2, 6
ACTION_NAMES = ("draw", "take", "swap:0", "swap:1", "swap:2", "swap:3", "discard")
NUM_SLOTS = 4
UNKNOWN = 52  # the "unknown" position of a 53-wide card one-hot

# Location codes used by ``locations()``: seat s's ghost = 10*s, its slot i = 10*s+1+i,
# its hand = 10*s+5; the discard pile and the stock are shared.
LOC_STOCK, LOC_DISCARD = 100, 101


class Phase(IntEnum):
    DRAW = 0  # draw or take
    PLACE = 1  # swap or discard the card in hand
    OVER = 2


def card_points(jack_points: float) -> np.ndarray:
    """Points of each of the 52 cards (suits never matter)."""
    by_rank = {"A": 1, "8": 0, "T": 10, "J": jack_points, "Q": 12, "K": 13}
    per_rank = [float(by_rank.get(r, int(r) if r.isdigit() else 0)) for r in RANKS]
    return np.array(per_rank * 4, dtype=np.float64)


# The default of ``max_steps``: benchmarks/game_lengths.py measures random and heuristic rounds at
# p99.9 below 230 steps (2–5 players, with and without a match); 20× that, rounded up, is 5000.
MAX_STEPS = 5000
# The caps' own maxima: 20× the default step cap (as the tournament's guard of uncapped games), a turn
# being two steps; a match to 1,000 points lasts dozens of rounds, where 21 is the usual target.
MAX_MAX_STEPS = 100_000
MAX_MAX_TURNS = MAX_MAX_STEPS // 2
MAX_MATCH_TO = 1000

OPTIONS = {
    "num_players": Option(2, int_in(2, 5), "an int from 2 to 5"),
    "jack_points": Option(0.5, one_of(0.5, 11), "0.5 (default) or 11"),
    "match_to": Option(
        None,
        optional(int_in(1, MAX_MATCH_TO)),
        f"None (one round) or an int from 1 to {MAX_MATCH_TO:,}, the match's target total (such as 21)",
    ),
    "reward": Option("win", one_of("win", "points"), '"win" or "points"'),
    # a safety cap, not a rule: taking from the pile never ends a round (benchmarks/game_lengths.py)
    "max_steps": Option(
        MAX_STEPS,
        optional(int_in(1, MAX_MAX_STEPS)),
        f"None (no cap) or an int from 1 to {MAX_MAX_STEPS:,}, the agent steps per round after which the "
        f"episode is truncated (default {MAX_STEPS})",
    ),
    # teaching variants (OpenSpiel): a short deck, fewer slots, a turn cap
    "cards": Option(
        None,
        optional(str_list(52)),
        'None (the 52-card deck) or a list of at most 52 distinct card codes such as ["AS", "2S", "8S", ...]',
    ),
    "num_slots": Option(4, int_in(1, NUM_SLOTS), "an int from 1 to 4"),
    "max_turns": Option(
        None,
        optional(int_in(1, MAX_MAX_TURNS)),
        f"None (no cap) or an int from 1 to {MAX_MAX_TURNS:,}, the turns per round",
    ),
}


class SpokelseGame(Game):
    """Spøkelse with validated options: what every round of this configuration shares."""

    def setup(self) -> None:
        n = self.num_players
        self.num_slots = k = int(self.config["num_slots"])
        self.max_turns = self.config["max_turns"]
        self.max_steps = self.config["max_steps"]
        self.deck = self._variant_deck(self.config["cards"], n, k)
        self._in_deck = np.zeros(52, dtype=np.int8)
        self._in_deck[list(self.deck.cards)] = 1
        self.action_names = ACTION_NAMES
        self.points = card_points(self.config["jack_points"])
        self._points_list = self.points.tolist()
        self.match_to = self.config["match_to"]
        self.stock_start = len(self.deck) - (1 + k) * n - 1
        swaps = [SWAP0 + i for i in range(k)]
        self._legal = {
            (Phase.DRAW, False): [DRAW, TAKE],
            (Phase.PLACE, True): [*swaps, DISCARD],
            (Phase.PLACE, False): swaps,
        }
        self._masks = {key: np.isin(np.arange(7), v).astype(np.int8) for key, v in self._legal.items()}
        self._build_layout()

    def _variant_deck(self, cards, n: int, k: int) -> Deck:
        """The 52-card deck, or the short deck of the ``cards`` option (validated)."""
        if cards is None:
            return FRENCH
        ints = []
        for code in cards:
            try:
                ints.append(FRENCH.parse(code))
            except ValueError as err:
                raise ConfigError(f"spokelse: cards: {err}") from None
        dupes = sorted({FRENCH.code(c) for c in ints if ints.count(c) > 1})
        if dupes:
            raise ConfigError(f"spokelse: cards has duplicate cards: {', '.join(dupes)}")
        need = (1 + k) * n + 2
        if len(ints) < need:
            raise ConfigError(
                f"spokelse: cards has {len(ints)} cards; {n} players with {k} slots need at least {need} "
                f"({(1 + k) * n} dealt, the up card and one stock card)"
            )
        codes = tuple(FRENCH.code(c) for c in sorted(ints))
        self.config["cards"] = codes  # canonical and order-free, so equal decks compare equal
        # the name must identify the card set: Deck caches its membership test by name
        return Deck(f"{len(ints)}-card short ({' '.join(codes)})", tuple(sorted(ints)), 52)

    # ---- layout ---------------------------------------------------------------
    def _build_layout(self) -> None:
        """Named segments of the observation; the engine writes them by these offsets."""
        n, L = self.num_players, Layout()
        k = n - 1
        self.o_own = L.add("own_slots", 4 * 53, "own slots 0–3, each a 53-wide one-hot: card index, or 52 = not known")
        self.o_opp = L.add(
            "opp_slots",
            k * 4 * 53,
            "each opponent (relative seat 1…n-1) × 4 slots, one-hot as publicly known (52 = not known)",
        )
        self.o_own_pts = L.add("own_slot_points", 4, "points of each own slot /13, 0 where not known")
        self.o_own_known = L.add("own_slot_known", 4, "1 where the own slot's card is known")
        self.o_opp_pts = L.add("opp_slot_points", k * 4, "points of each opponent slot /13 where publicly known")
        self.o_opp_known = L.add("opp_slot_known", k * 4, "1 where the opponent slot's card is publicly known")
        self.o_hand = L.add(
            "hand",
            53,
            "card held by the seat on move, one-hot where this seat knows it (its own draw, or any take), else 52",
        )
        self.o_from_stock = L.add(
            "hand_from_stock",
            1,
            "1 if the seat on move holds a card drawn from the stock (discard is legal)",
        )
        self.o_top = L.add("discard_top", 52, "top card of the discard pile (one-hot)")
        self.o_pile = L.add("discard_pile", 52, "every card now in the discard pile")
        self.o_by = L.add(
            "discarded_by",
            n * 52,
            "cards each seat (relative, self first) has put on the discard pile this round",
        )
        self.o_stock = L.add("stock_size", 1, "cards left in the stock / initial stock size")
        self.o_phase = L.add("phase", 3, "one-hot: draw/take, place (swap/discard), round over")
        self.o_ev = L.add(
            "unseen_mean_points",
            1,
            "mean points /13 of the cards this seat cannot locate (expected value of an unknown card)",
        )
        self.o_sums = L.add("round_sums", n, "final round sums /65 per relative seat, filled when the round ends")
        self.o_totals = L.add(
            "match_totals",
            n,
            "match totals of the completed rounds / match_to per relative seat (0 outside a match)",
        )
        self.o_dealer = L.add("seat_from_dealer", n, "one-hot (seat − dealer) mod n")
        self.o_to_move = L.add("to_move", n, "one-hot relative seat on move (all 0 when the round is over)")
        self.o_owner = L.add(
            "owner_knows",
            n * 4,
            "per relative seat × slot: 1 where the slot's owner knows its card "
            "(its peeks and every card it put there); public",
        )
        self.o_swapped = L.add(
            "swapped_in",
            n * 4,
            "per relative seat × slot: 1 where the card was put there this round (from the stock or the pile); public",
        )
        if self.max_turns is not None:
            self.o_turns = L.add("turns_left", 1, "max_turns variant: turns left in this round / max_turns")
        self.layout = L

    def compute_facts(self) -> Facts:
        n, c = self.num_players, self.config
        if c["reward"] == "win":
            bounds = (-1.0, 1.0)
        else:
            top = 65.0 + (c["match_to"] or 0)
            bounds = (-top, top)
        decisions = self._round_decisions()
        if c["match_to"] is not None and decisions is not None:
            rounds = self._max_rounds()
            decisions = None if rounds is None else rounds * decisions
        cards = len(self.deck)
        if self.max_turns is not None:  # the deal, the up card and one card per turn
            cards = min(cards, (1 + self.num_slots) * n + 1 + self.max_turns)
        return Facts(
            utility_bounds=bounds,
            zero_sum=True,
            max_decisions=decisions,
            multi_deal=c["match_to"] is not None,
            cards_per_deal=cards,
        )

    def _round_decisions(self) -> int | None:
        """A bound on one seat's decisions in a round: a turn is two steps and the seats take turns;
        None without ``max_turns`` or ``max_steps`` (taking from the pile can go on for ever)."""
        n, bounds = self.num_players, []
        if self.max_turns is not None:
            bounds.append(2 * math.ceil(self.max_turns / n))
        if self.max_steps is not None:
            bounds.append(2 * math.ceil(math.ceil(self.max_steps / 2) / n))
        return min(bounds) if bounds else None

    def _max_rounds(self) -> int | None:
        """A bound on the rounds of a match: every round adds at least the points of the lowest cards
        that can be dealt to the seats' totals, so some total reaches ``match_to`` by this round; None
        where a round can add nothing (a short deck whose dealt cards can all be worth 0)."""
        n = self.num_players
        lowest = float(np.sort(self.points[list(self.deck.cards)])[: (1 + self.num_slots) * n].sum())
        return math.ceil(n * self.match_to / lowest) if lowest > 0 else None

    def deal_holders(self, dealer: int) -> list[str]:
        n, k = self.num_players, self.num_slots
        out = []
        for i in range((1 + k) * n):  # one at a time from forhånd: the first card is the ghost
            seat = (dealer + 1 + i % n) % n
            out.append(f"player_{seat} ghost" if i < n else f"player_{seat} slots")
        return out + ["discard"] + ["stock"] * (len(self.deck) - (1 + k) * n - 1)

    def draw_dealer(self, rng: np.random.Generator) -> int:
        """Each player draws a card; the lowest rank deals; tied players draw again."""
        cards = list(rng.permutation(52))
        contenders = list(range(self.num_players))
        while True:
            drawn = {s: int(cards.pop()) % 13 for s in contenders}
            low = min(drawn.values())
            contenders = [s for s in contenders if drawn[s] == low]
            if len(contenders) == 1 or len(cards) < len(contenders):
                return contenders[0]
