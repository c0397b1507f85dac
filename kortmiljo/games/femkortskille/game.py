"""The configured Femkortskille: options, deck, action table, observation layout and facts.

Rules and every decision: docs/femkortskille.md. The state of an episode is :mod:`.rules`.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from ...core.cards import KILLE, KILLE_RANKS, Deck
from ...core.errors import ConfigError
from ...core.game import Facts, Game
from ...core.layout import Layout
from ...core.options import Option, int_in, is_bool, optional, str_list

NUM_RANKS = 21
KILLE_RANK = 20
LOW_RANKS = 3  # blaren, blompotta, kransen: a hand of these is a skituppslag
HAND_SIZE = 3
EXTRA_CARDS = 2
TRICKS = 5
MAX_DISCARDS = 3
MAX_RAISES = 3

# the base action block, identical in every configuration
KNOCK, PASS, LURA, PLAY0 = 0, 1, 2, 3

# location codes returned by ``locations()``
LOC_HAND = 0  # + seat
LOC_PLAYED = 10  # + seat that played it
LOC_DISCARDED = 20  # + seat that discarded it (poker)
LOC_STOCK = 30


class Phase(IntEnum):
    BID = 0  # the circle: knock / pass / lura (show, bet:k)
    DECIDE = 1  # waiting players decide knock / pass
    EXCHANGE = 2  # poker: discard and draw
    BETTING = 3  # poker: check / bet / call / raise / fold
    PLAY = 4  # five tricks
    OVER = 5


class Status(IntEnum):
    TO_SPEAK = 0
    KNOCKED = 1
    PASSED = 2
    WAITING = 3
    SHOWED = 4
    FOLDED = 5


NUM_STATUS = len(Status)
NUM_PHASES = len(Phase)


def build_action_names(
    skituppslag: bool = False, auktion: bool = False, max_bet: int = 5, poker: bool = False
) -> tuple[str, ...]:
    """The action table of one configuration: the base block, then each variant's block in a fixed order."""
    names = ["knock", "pass", "lura", *(f"play:{r}" for r in KILLE_RANKS)]
    if skituppslag:
        names.append("show")
    if auktion:
        names += [f"bet:{k}" for k in range(1, max_bet + 1)]
    if poker:
        names += [f"discard:{r}" for r in KILLE_RANKS]
        names += ["done", "check", "bet", "call", "raise", "fold"]
    return tuple(names)


# The chip options' maxima keep every chip count of an episode exact in the float32 observation (below
# 2**24): at all of them the biggest pot is 8 players × 100 × 1,000 deals + 8 × (100 + 100 + 4 × 100),
# 804,800, and a winner's take at most 8 pots (see compute_facts).
MAX_ANTE = 100
MAX_KNOCK_STAKE = 100
MAX_BET = 100  # one action per bet value: the bound keeps the action table small
MAX_DEALS = 1000

OPTIONS = {
    "num_players": Option(4, int_in(3, 8), "an int from 3 to 8"),
    "ante": Option(1, int_in(1, MAX_ANTE), f"a positive int of at most {MAX_ANTE} (chips each player antes)"),
    "max_deals": Option(
        20, int_in(1, MAX_DEALS), f"a positive int of at most {MAX_DEALS:,} (deals per episode before truncation)"
    ),
    "ante_on_redeal": Option(False, is_bool, "True or False"),
    "skituppslag": Option(False, is_bool, "True or False"),
    "knock_stake": Option(
        0, int_in(0, MAX_KNOCK_STAKE), f"an int >= 0 and at most {MAX_KNOCK_STAKE} (chips added to the pot per knock)"
    ),
    "payments_stay": Option(False, is_bool, "True or False"),
    "auktion": Option(False, is_bool, "True or False"),
    "max_bet": Option(5, int_in(1, MAX_BET), f"a positive int of at most {MAX_BET} (the highest auktion bet)"),
    "poker": Option(False, is_bool, "True or False"),
    # teaching variants (OpenSpiel): a reduced deck, smaller hands, fewer tricks
    "ranks": Option(
        None,
        optional(str_list(NUM_RANKS)),
        'None (all 21 ranks) or a list of at most 21 distinct kille rank names such as ["1", "2", "kille"]',
    ),
    "hand_size": Option(HAND_SIZE, int_in(1, HAND_SIZE), "an int from 1 to 3 (cards dealt to each player)"),
    "extra_cards": Option(EXTRA_CARDS, int_in(0, EXTRA_CARDS), "an int from 0 to 2 (stock cards per knocker)"),
}


class FemkortskilleGame(Game):
    """Femkortskille with validated options: what every deal of this configuration shares."""

    def check(self, config: dict) -> None:
        # max_bet only caps the auktion's bets: without auktion a changed value would do nothing, silently
        if not config["auktion"] and config["max_bet"] != OPTIONS["max_bet"].default:
            raise ConfigError(
                f"femkortskille: max_bet={config['max_bet']!r} has no effect without auktion=True (it caps "
                "the auktion's bets); pass auktion=True as well, or leave max_bet out"
            )

    def setup(self) -> None:
        c = self.config
        self.hand_size = int(c["hand_size"])
        self.extra_cards = int(c["extra_cards"])
        self.tricks = self.hand_size + self.extra_cards
        self.deck = self._variant_deck(c["ranks"])
        self._in_deck = np.zeros(42, dtype=np.int8)
        self._in_deck[list(self.deck.cards)] = 1
        self.ante = int(c["ante"])
        self.max_deals = int(c["max_deals"])
        self.ante_on_redeal = bool(c["ante_on_redeal"])
        self.skituppslag = bool(c["skituppslag"])
        self.knock_stake = int(c["knock_stake"])
        self.payments_stay = bool(c["payments_stay"])
        self.auktion = bool(c["auktion"])
        self.max_bet = int(c["max_bet"])
        self.poker = bool(c["poker"])
        self.action_names = build_action_names(self.skituppslag, self.auktion, self.max_bet, self.poker)
        idx = {name: i for i, name in enumerate(self.action_names)}
        self.A_SHOW = idx.get("show", -1)
        self.A_BET1 = idx.get("bet:1", -1)
        self.A_DISCARD0 = idx.get("discard:blaren", -1)
        self.A_DONE = idx.get("done", -1)
        self.A_CHECK = idx.get("check", -1)
        self.A_PBET = idx.get("bet", -1)
        self.A_CALL = idx.get("call", -1)
        self.A_RAISE = idx.get("raise", -1)
        self.A_FOLD = idx.get("fold", -1)
        self._build_layout()

    def _variant_deck(self, ranks) -> Deck:
        """The 42-card kille deck, or the reduced deck of the ``ranks`` option (validated)."""
        n, need = self.num_players, (self.hand_size + self.extra_cards) * self.num_players
        if ranks is None:
            chosen = list(range(NUM_RANKS))
        else:
            chosen = []
            for name in ranks:
                try:
                    chosen.append(KILLE.parse(name) >> 1)
                except ValueError as err:
                    raise ConfigError(f"femkortskille: ranks: {err}") from None
            dupes = sorted({KILLE_RANKS[r] for r in chosen if chosen.count(r) > 1})
            if dupes:
                raise ConfigError(f"femkortskille: ranks names a rank twice: {', '.join(dupes)}")
        if 2 * len(chosen) < need:
            raise ConfigError(
                f"femkortskille: the deck has {2 * len(chosen)} cards; {n} players with hand_size={self.hand_size} "
                f"and extra_cards={self.extra_cards} need at least {need} (every player may knock)"
            )
        if ranks is None:
            return KILLE
        chosen.sort()
        names = tuple(KILLE_RANKS[r] for r in chosen)
        self.config["ranks"] = names  # canonical and order-free, so equal decks compare equal
        cards = tuple(2 * r + k for r in chosen for k in (0, 1))
        # the name must identify the card set: Deck caches its membership test by name
        return Deck(f"{len(cards)}-card kille ({' '.join(names)})", cards, 42, kille=True)

    # ---- layout ---------------------------------------------------------------
    def _build_layout(self) -> None:
        """Named segments, plus a gather table per observer.

        The engine keeps one absolute-seat buffer ``_pub`` (seat blocks in seat order, and
        each seat's private blocks in an area after the layout); ``observe(seat)`` is one
        ``take`` through ``_gather[seat]``, which rotates seat blocks to be relative to the
        observer and picks the observer's own private blocks.
        """
        n, L = self.num_players, Layout()
        segs: list[tuple[int, str, int]] = []  # offset, kind, block

        def add(name: str, kind: str, block: int, meaning: str) -> int:
            off = L.add(name, block * n if kind == "seat" else block, meaning)
            segs.append((off, kind, block))
            return off

        add("hand", "own", NUM_RANKS, "own hand: copies held of each rank (0–2), rank 0 = blaren … 20 = kille")
        add(
            "status",
            "seat",
            NUM_STATUS,
            "per relative seat (self first), one-hot: to speak, knocked, passed, waiting (lura), showed, folded",
        )
        add(
            "stake",
            "seat",
            1,
            "chips each seat has put in this deal besides antes: knock stakes, auktion bets, poker bets",
        )
        add("net", "seat", 1, "each seat's net chip change in this episode so far")
        add("pot", "global", 1, "chips in the pot now")
        add(
            "pot_carried",
            "global",
            1,
            "chips the pot held at the start of the episode (payments_stay carry-over, else 0)",
        )
        add("deal_number", "global", 1, "deals in this episode so far / max_deals")
        add("dealer", "seat", 1, "one-hot relative seat of the dealer (forhånd is the next one)")
        add(
            "phase",
            "global",
            NUM_PHASES,
            "one-hot: bidding circle, waiting players decide, poker exchange, poker betting, tricks, over",
        )
        add("to_move", "seat", 1, "one-hot relative seat on move (all 0 when the episode is over)")
        add("stock_size", "global", 1, "cards left in the stock / 42")
        add("trick", "seat", NUM_RANKS, "the current trick: one-hot rank each seat has played into it")
        add(
            "trick_highest",
            "global",
            NUM_RANKS,
            "one-hot rank of the highest card in the current trick (the card to beat)",
        )
        add("trick_winning", "seat", 1, "one-hot relative seat whose card wins the current trick so far")
        add("leader", "seat", 1, "one-hot relative seat that leads the current trick (set when the tricks begin)")
        add("played", "seat", NUM_RANKS, "every card each seat has played this deal, counts per rank")
        add("tricks_won", "seat", 1, "tricks each seat has won this deal")
        if self.skituppslag:
            add("shown", "global", NUM_RANKS, "skituppslag: the cards shown with `show`, counts per rank")
        if self.auktion:
            add("auction_bet", "seat", 1, "auktion: each seat's bet k (0 = none)")
            add("highest_bet", "global", 1, "auktion: the highest bet so far")
        if self.poker:
            add("exchanged", "seat", 1, "poker: cards each seat has discarded (and draws) in the exchange")
            add("own_discards", "own", NUM_RANKS, "poker: own discarded cards, counts per rank")
            add("round_bet", "seat", 1, "poker: chips each seat has put in during the betting round")
            add("bet_level", "global", 1, "poker: chips a seat must have put in the betting round to stay in")
            add("raises", "global", 1, "poker: raises so far in the betting round (at most 3)")
        self.layout = L
        size = L.size
        gather = np.empty((n, L.size), dtype=np.intp)
        abs_off: dict[str, int] = {}
        for seg, (off, kind, block) in zip(L.segments, segs, strict=True):
            if kind == "own":
                abs_off[seg.name] = size
                for seat in range(n):
                    gather[seat, off : off + block] = np.arange(size + seat * block, size + (seat + 1) * block)
                size += n * block
            elif kind == "seat":
                abs_off[seg.name] = off
                for seat in range(n):
                    for rel in range(n):
                        s = (seat + rel) % n
                        gather[seat, off + rel * block : off + (rel + 1) * block] = np.arange(
                            off + s * block, off + (s + 1) * block
                        )
            else:
                abs_off[seg.name] = off
                gather[:, off : off + block] = np.arange(off, off + block)
        self._gather = gather
        self._pub_size = size
        g = abs_off.get
        self.P_hand, self.P_status, self.P_stake, self.P_net = g("hand"), g("status"), g("stake"), g("net")
        self.P_pot, self.P_carried, self.P_deal, self.P_dealer = (
            g("pot"),
            g("pot_carried"),
            g("deal_number"),
            g("dealer"),
        )
        self.P_phase, self.P_to_move, self.P_stock = g("phase"), g("to_move"), g("stock_size")
        self.P_trick, self.P_high, self.P_winning, self.P_leader = (
            g("trick"),
            g("trick_highest"),
            g("trick_winning"),
            g("leader"),
        )
        self.P_played, self.P_won = g("played"), g("tricks_won")
        self.P_shown = g("shown", -1)
        self.P_abet, self.P_hbet = g("auction_bet", -1), g("highest_bet", -1)
        self.P_exch, self.P_odisc, self.P_rbet = g("exchanged", -1), g("own_discards", -1), g("round_bet", -1)
        self.P_level, self.P_raises = g("bet_level", -1), g("raises", -1)

    def deal_holders(self, dealer: int) -> list[str]:
        n = self.num_players
        dealt = self.hand_size * n  # one at a time from forhånd
        return [f"player_{(dealer + 1 + i % n) % n}" for i in range(dealt)] + ["stock"] * (len(self.deck) - dealt)

    def public_action_name(self, action: int) -> str:
        name = self.action_names[action]
        return "discard:?" if name.startswith("discard:") else name  # pokerkille discards go face down

    def compute_facts(self) -> Facts:
        c, n = self.config, self.num_players
        # the biggest pot a deal can hold, paid in by every other knocker
        stakes = c["knock_stake"] + (c["max_bet"] if c["auktion"] else 0) + (4 * c["ante"] if c["poker"] else 0)
        pot = n * c["ante"] * c["max_deals"] + n * stakes
        poker = (3 + 1) + (3 + 2) if self.poker else 0  # discards + done; check/bet, calls and raises
        per_knocker = self.extra_cards + (3 if self.poker else 0)  # poker: up to 3 discards redrawn
        return Facts(
            utility_bounds=(-float(2 * pot), float(n * pot)),
            zero_sum=not c["payments_stay"],
            max_decisions=2 * self.max_deals + poker + self.tricks,
            multi_deal=self.max_deals > 1,
            carry_over=bool(c["payments_stay"]),
            cards_per_deal=min(len(self.deck), self.hand_size * n + per_knocker * n),
        )
