"""The configured Sprøyte: options, deck, action table, observation layout and facts.

Rules and every decision: docs/sproyte.md. The state of a deal is :mod:`.rules`.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from ...core.cards import FRENCH, FRENCH_CODES, FRENCH_NO_TWOS, SUITS
from ...core.errors import ConfigError
from ...core.game import Facts, Game
from ...core.layout import Layout
from ...core.options import Option, any_of, int_in, one_of, optional, seq_of

VARIANTS = ("vanlig", "variasjon", "tretten")
N = 3  # Sprøyte is a game for three

# The action table, the same for every configuration (indices are stable).
DISCARD0 = 0  # discard:XX = card index (0–51)
DONE = 52
TAKE_TALON = 53
KEEP = 54
PLAY0 = 55  # play:XX = 55 + card index (55–106)
ACTION_NAMES: tuple[str, ...] = (
    tuple(f"discard:{c}" for c in FRENCH_CODES)
    + ("done", "take_talon", "keep")
    + tuple(f"play:{c}" for c in FRENCH_CODES)
)
NUM_ACTIONS = len(ACTION_NAMES)

TRUMP, GRAND, NULLO = 0, 1, 2
CONTRACT_NAMES = ("trump", "grand", "nullo")
ROTATION = (3, 0, 1, 2)  # suit indices (S H D C = 0 1 2 3) of deals 1, 2, 3, 4: ♣ ♠ ♥ ♦
DEFAULT_QUOTA = {"vanlig": (5, 4, 3), "variasjon": (8, 5, 3), "tretten": (0, 0, 0)}
PAR = 4  # tricks that score nothing

# Location codes of ``locations()``.
LOC_HAND = 0  # + seat
LOC_OUT = 10  # + seat: discarded by that seat (or its old hand after a talon swap)
LOC_PILE = 20  # still in the exchange pile
LOC_TALON = 21
LOC_TABLE = 30  # + seat: in the trick on the table, played by that seat
LOC_WON = 40  # + seat: in a trick won by that seat
LOC_NOT_IN_DECK = 99  # the twos in vanlig

# Observation scales (so that every entry lies in [0, 1]).
MAX_TRICKS = 13
MAX_POINTS = MAX_TRICKS - PAR
MAX_PILE = 16
MAX_HAND = 13


class Phase(IntEnum):
    EXCHANGE = 0
    TALON = 1
    PLAY = 2
    OVER = 3


def deal_points(tricks: int, contract: int) -> int:
    """Points of one deal: tricks over four (trump, grand) or under four (nullo)."""
    return max(0, PAR - tricks) if contract == NULLO else max(0, tricks - PAR)


def contract_of_shown(card: int) -> tuple[int, int | None]:
    """``variasjon``: (contract, trump suit) from the shown card. 2–5 nullo, 6–10 trump, J–A grand."""
    r = card % 13  # 0 = ace, 1 = two … 9 = ten, 10 = jack, 11 = queen, 12 = king
    if 1 <= r <= 4:
        return NULLO, None
    if 5 <= r <= 9:
        return TRUMP, card // 13
    return GRAND, None


def _trump_ok(v) -> bool:
    return v is None or (isinstance(v, str) and len(v) == 1 and v.upper() in SUITS)


# ``max_deals="auto"`` allows ``DEALS_PER_POINT × (match_to + 1)`` deals: benchmarks/game_lengths.py
# measures random and heuristic matches at p99.9 below 2 × (match_to + 1) deals (the + 1 covers the
# short matches, whose few deals vary most), and 20× that, rounded up, is 50 per point.
DEALS_PER_POINT = 50
# The bounds of the match options: a target of 1,000 points (10 is the usual one; a deal gives 9 points
# at most, so such a match lasts hundreds of deals), and a deal cap as high as "auto" gives at that
# target, 50,050 deals. Neither sizes an allocation; they keep every match finite and its numbers small.
MAX_MATCH_TO = 1000
MAX_DEALS = DEALS_PER_POINT * (MAX_MATCH_TO + 1)
# A quota above 16, the largest exchange pile (variasjon: 52 − 3 × 12), changes nothing (every limit is
# capped by the cards left in the pile); the bound is the deck.
QUOTA_MAX = 52


OPTIONS = {
    "variant": Option("vanlig", one_of(*VARIANTS), '"vanlig" (default), "variasjon" or "tretten"'),
    "exchange_quota": Option(
        None,
        optional(seq_of(int_in(0, QUOTA_MAX), 3)),
        f"None (the variant's 5/4/3 or 8/5/3) or three non-negative ints of at most {QUOTA_MAX} "
        "(forhånd, middle, dealer)",
    ),
    "trump": Option(None, _trump_ok, 'None (rotating ♣ ♠ ♥ ♦ by deal) or a suit letter "S", "H", "D" or "C"'),
    "match_to": Option(
        None,
        optional(int_in(1, MAX_MATCH_TO)),
        f"None (one deal) or a positive int of at most {MAX_MATCH_TO:,}, the match's target (such as 10)",
    ),
    "reward": Option("relative", one_of("relative", "raw"), '"relative" (default) or "raw"'),
    # a safety cap, not a rule: a deal can give nobody a point, so a match need never end
    "max_deals": Option(
        "auto",
        optional(any_of(one_of("auto"), int_in(1, MAX_DEALS))),
        f'"auto" (default: {DEALS_PER_POINT} × (match_to + 1)), None (no cap) or a positive int of at most '
        f"{MAX_DEALS:,}: the deals of a match after which it is truncated (only with match_to)",
    ),
    "num_players": Option(3, one_of(3), "3 (Sprøyte is a game for three)"),
}


class SproyteGame(Game):
    """Sprøyte with validated options: what every deal of this configuration shares."""

    def check(self, config: dict) -> None:
        if config["variant"] == "tretten" and config["exchange_quota"] is not None:
            raise ConfigError(
                "sproyte: exchange_quota is not allowed with variant='tretten' (it has a talon, no exchange pile)"
            )
        if config["variant"] == "variasjon" and config["trump"] is not None:
            raise ConfigError(
                "sproyte: trump= is not allowed with variant='variasjon' (the shown card decides the trump)"
            )
        if config["match_to"] is None and config["max_deals"] != "auto":
            raise ConfigError(
                f"sproyte: max_deals={config['max_deals']!r} has no effect without match_to (one deal per "
                "episode); pass match_to=..., or leave max_deals out"
            )

    def setup(self) -> None:
        cfg = self.config
        self.variant = cfg["variant"]
        self.deck = FRENCH_NO_TWOS if self.variant == "vanlig" else FRENCH
        self.tretten = self.variant == "tretten"
        self.hand_size = 13 if self.tretten else 12
        self.num_tricks = self.hand_size
        self.quota = tuple(int(x) for x in (cfg["exchange_quota"] or DEFAULT_QUOTA[self.variant]))
        self.fixed_trump = SUITS.index(cfg["trump"].upper()) if cfg["trump"] is not None else None
        self.match_to = cfg["match_to"]
        md = cfg["max_deals"]
        if self.match_to is None:
            self.max_deals = None  # one deal: nothing to cap
        else:
            self.max_deals = DEALS_PER_POINT * (self.match_to + 1) if md == "auto" else md
        self.raw_reward = cfg["reward"] == "raw"
        self.action_names = ACTION_NAMES
        self._deck_mask = np.zeros(52, dtype=np.int8)
        self._deck_mask[list(self.deck.cards)] = 1
        self._build_layout()

    def _build_layout(self) -> None:
        L = Layout()
        self.o_hand = L.add("hand", 52, "own hand (card bits, index 13·suit + rank)")
        self.o_contract = L.add("contract", 3, "one-hot contract: trump, grand, nullo")
        self.o_trump = L.add("trump", 4, "one-hot trump suit S H D C (all 0 in grand and nullo)")
        self.o_shown = L.add("shown", 52, "the card shown after the cut (variasjon), one-hot; else 0")
        self.o_shown_holder = L.add(
            "shown_holder", 3, "relative seat whose draw reached the shown card at the pile bottom (variasjon), one-hot"
        )
        self.o_phase = L.add("phase", 4, "one-hot phase: exchange, talon offer, play, over")
        self.o_to_move = L.add("to_move", 3, "one-hot relative seat on move (0 = self; all 0 when over)")
        self.o_dealer = L.add("seat_from_dealer", 3, "one-hot (seat − dealer) mod 3: 0 dealer, 1 forhånd, 2 middle")
        self.o_pile = L.add("pile_left", 1, "cards left in the exchange pile / 16")
        self.o_ex_left = L.add("exchange_left", 1, "cards the seat on move may still discard now / 12 (exchange phase)")
        self.o_exchanged = L.add("exchanged", 3, "cards each relative seat has discarded (and drawn) this deal / 12")
        self.o_ex_done = L.add("exchange_done", 3, "1 for each relative seat that has finished its exchange")
        self.o_out = L.add("own_out", 52, "own cards out of play: own discards, or the old hand after taking the talon")
        self.o_talon_keep = L.add("talon_kept", 3, "1 for each relative seat that declined the talon (tretten)")
        self.o_talon_took = L.add("talon_taken", 3, "1 for the relative seat that took the talon (tretten)")
        self.o_trick = L.add("trick", 3 * 52, "current trick: for relative seats 0, 1, 2 the card it played (one-hot)")
        self.o_leader = L.add("leader", 3, "one-hot relative seat that leads the current trick (play phase)")
        self.o_last = L.add("last_trick", 3 * 52, "the previous completed trick, per relative seat (one-hot)")
        self.o_played = L.add("played", 3 * 52, "every card each relative seat has played this deal")
        self.o_voids = L.add("voids", 3 * 4, "relative seat × suit: 1 where that seat failed to follow that suit")
        self.o_tricks = L.add("tricks_won", 3, "tricks won this deal per relative seat / 13")
        self.o_points = L.add("deal_points", 3, "points per relative seat if the deal ended now / 9")
        self.o_match = L.add("match_points", 3, "match totals per relative seat / match_to (0 outside a match)")
        self.layout = L
        self.obs_size = L.size
        self._base = [s * L.size for s in range(N)]
        # flat offset, per observer, of the 52-wide block of subject seat s (relative seat order)
        self._blocks = [tuple(o * L.size + 52 * ((s - o) % N) for o in range(N)) for s in range(N)]

    def deal_holders(self, dealer: int) -> list[str]:
        order = [f"player_{(dealer + 1) % N}", f"player_{(dealer + 2) % N}", f"player_{dealer}"]
        if self.tretten:  # forhånd, middle, dealer, talon, one card at a time
            return [order[i & 3] if i & 3 < 3 else "talon" for i in range(len(self.deck))]
        dealt = N * self.hand_size
        return [order[i % N] for i in range(dealt)] + ["pile"] * (len(self.deck) - dealt)

    def public_action_name(self, action: int) -> str:
        name = self.action_names[action]
        return "discard:?" if name.startswith("discard:") else name  # discards go face down

    def compute_facts(self) -> Facts:
        c = self.config
        raw = c["reward"] == "raw"
        if c["match_to"] is not None:  # raw: the match totals, below match_to before the last deal's 9 at most
            bounds = (0.0, float(c["match_to"] - 1 + MAX_POINTS)) if raw else (-1.0, 1.0)
        else:
            bounds = (0.0, float(MAX_POINTS)) if raw else (-float(MAX_POINTS), float(MAX_POINTS))
        per_deal = 13 + 16 + 1 + 1  # plays, discards (the pile has at most 16 cards), done, talon
        if c["match_to"] is None:
            decisions = per_deal
        else:
            decisions = None if self.max_deals is None else self.max_deals * per_deal
        return Facts(
            utility_bounds=bounds,
            zero_sum=not raw,
            max_decisions=decisions,
            multi_deal=c["match_to"] is not None,
            cards_per_deal=len(self.deck),  # the exchange pile, the talon and the cut card (the bottom) all matter
        )
