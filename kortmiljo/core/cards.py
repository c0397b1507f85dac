"""Card codes, decks and rendering for the French 52-card and the kille 42-card decks.

Cards are small ints everywhere inside the engines, so that state is plain arrays.

* French: ``card = 13 * suit + rank`` with suits ``S H D C`` and ranks
  ``A 2 … 9 T J Q K`` (``AS`` = 0, ``KC`` = 51). This is also the index of the card in
  every 52-wide observation vector.
* Kille: ``card = 2 * rank + copy`` with rank 0 = blaren … 20 = kille. Both copies of
  a rank share one code (``"kuku"``), so the deck is a multiset of 21 names.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass

import numpy as np

SUITS = "SHDC"
RANKS = "A23456789TJQK"
SUIT_SYMBOLS = "♠♥♦♣"
FRENCH_CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)

KILLE_RANKS: tuple[str, ...] = (
    "blaren", "blompotta", "kransen",
    "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12",
    "vardshus", "kavall", "husu", "husar", "kuku", "kille",
)  # fmt: skip
KILLE_NAMES: tuple[str, ...] = (
    "Blaren", "Blompottan", "Kransen",
    "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12",
    "Värdshuset", "Kavallen", "Husun", "Husaren", "Kuku", "Killen",
)  # fmt: skip


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    """French rank index: 0 = ace … 12 = king (ace *low*; games re-rank as needed)."""
    return card % 13


_CARD_SETS: dict[str, frozenset[int]] = {}


def _describe(value: object) -> str:
    """What was given instead of a deck, in words."""
    kind = type(value).__name__
    if isinstance(value, Set):  # sets, frozensets, dict keys
        return f"a {kind}, whose order depends on the hash seed"
    if isinstance(value, Mapping):
        return f"a {kind}, a mapping rather than a list of cards"
    if isinstance(value, Iterator):
        return f"a {kind} (an iterator, which the check would use up)"
    text = repr(value)
    return f"{kind} {text[:60] + '…' if len(text) > 60 else text}"


@dataclass(frozen=True)
class Deck:
    """One deck kind: its cards (as ints), their codes, and how to render them.

    ``width`` is the length of card vectors (``unseen``, hand bits): 52 for every
    French deck, even the 48-card Sprøyte deck, and 42 for kille.
    """

    name: str
    cards: tuple[int, ...]
    width: int
    kille: bool = False

    def __len__(self) -> int:
        return len(self.cards)

    def code(self, card: int) -> str:
        return KILLE_RANKS[card // 2] if self.kille else FRENCH_CODES[card]

    def pretty(self, card: int) -> str:
        if self.kille:
            return KILLE_NAMES[card // 2]
        return RANKS[card % 13].replace("T", "10") + SUIT_SYMBOLS[card // 13]

    def parse(self, text: str) -> int:
        """One card code → int. Kille codes return the lower copy (the copy is chosen by ``parse_deck``)."""
        if not isinstance(text, str):
            raise ValueError(f"card code must be a string, got {text!r}")
        t = text.strip()
        if self.kille:
            low = t.lower().replace("ä", "a")
            if low in KILLE_RANKS:
                return 2 * KILLE_RANKS.index(low)
            raise ValueError(f"unknown kille card {text!r}; allowed: {', '.join(KILLE_RANKS)}")
        up = t.upper()
        if len(up) == 3 and up.startswith("10"):
            up = "T" + up[2]
        if len(up) == 2 and up[0] in RANKS and up[1] in SUITS:
            card = 13 * SUITS.index(up[1]) + RANKS.index(up[0])
            if card in self._card_set:
                return card
            raise ValueError(f"card {text!r} is not in the {self.name} deck")
        raise ValueError(
            f"unknown card code {text!r}; a code is a rank {' '.join(RANKS)} "
            f"followed by a suit {' '.join(SUITS)}, e.g. 8S, TH, QC"
        )

    @property
    def _card_set(self) -> frozenset[int]:
        return _CARD_SETS.setdefault(self.name, frozenset(self.cards))

    def parse_deck(self, codes: Sequence[str]) -> list[int]:
        """A stacked deck (top card first) → card ints; it must be a permutation of this deck.

        Only ordered sequences are taken (a list, a tuple, a 1-d numpy array): a set's or a
        dict's order depends on the hash seed, so the same call would deal differently from
        one run to the next; a one-shot iterator would be used up by the check before the deal.
        Kille copies are assigned in order of appearance (the first ``kuku`` is copy 0);
        no rule can tell the copies apart.
        """
        if isinstance(codes, (str, bytes)) or not (
            isinstance(codes, Sequence) or (isinstance(codes, np.ndarray) and codes.ndim == 1)
        ):
            raise ValueError(
                f"deck must be an ordered list of card codes (a list or a tuple), top card first, "
                f"e.g. ['8S', 'JH', ...]; got {_describe(codes)}"
            )
        out: list[int] = []
        copies: Counter[int] = Counter()
        dupes: list[str] = []
        for item in codes:
            card = self.parse(item)
            if self.kille:  # parse gives copy 0; later appearances of the rank take copy 1, 2, …
                copy, copies[card] = copies[card], copies[card] + 1
                if copy > 1:
                    dupes.append(self.code(card))
                    continue
                card += copy
            if card in out:
                dupes.append(self.code(card))
            out.append(card)
        if dupes:
            raise ValueError(f"deck has duplicate cards: {', '.join(sorted(set(dupes)))}")
        if len(out) != len(self.cards):
            have = set(out)
            missing = [self.code(c) for c in self.cards if c not in have]
            raise ValueError(
                f"deck has {len(out)} cards, the {self.name} deck needs {len(self.cards)}; "
                f"missing: {', '.join(missing)}"
            )
        return out


FRENCH = Deck("French 52-card", tuple(range(52)), 52)
FRENCH_NO_TWOS = Deck("48-card (no twos)", tuple(c for c in range(52) if c % 13 != 1), 52)
KILLE = Deck("kille 42-card", tuple(range(42)), 42, kille=True)


def cards_str(deck: Deck, cards: Sequence[int], pretty: bool = True) -> str:
    f = deck.pretty if pretty else deck.code
    return " ".join(f(c) for c in cards)
