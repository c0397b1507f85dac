"""Trick-taking logic shared by Sprøyte and Femkortskille.

Two families: *follow suit* (French cards, ace high, optional trump) and
*överstickstvång* (must beat every card in the trick if able; of equal cards the
later one counts higher). Functions take plain lists of card ints so engines stay
allocation-light.
"""

from __future__ import annotations

from collections.abc import Sequence

# French card ints are 13*suit + rank with rank 0 = ace; for trick strength the ace is high.
ACE_HIGH = tuple(12 if r == 0 else r - 1 for r in range(13))  # rank index → strength 0 (two) … 12 (ace)


def strength(card: int) -> int:
    """Ace-high strength of a French card within its suit: 2 → 0 … K → 11, A → 12."""
    return ACE_HIGH[card % 13]


def follow_suit_legal(hand: Sequence[int], led_suit: int | None) -> list[int]:
    """Cards of ``hand`` that may be played: the led suit if the hand has it, else anything."""
    if led_suit is None:
        return list(hand)
    same = [c for c in hand if c // 13 == led_suit]
    return same if same else list(hand)


def trick_winner_trump(trick: Sequence[int], trump: int | None) -> int:
    """Index in ``trick`` (play order) of the winning card: highest trump, else highest of the suit led."""
    best = 0
    for i in range(1, len(trick)):
        c, b = trick[i], trick[best]
        cs, bs = c // 13, b // 13
        if cs == bs:
            if ACE_HIGH[c % 13] > ACE_HIGH[b % 13]:
                best = i
        elif cs == trump:  # the first trump beats the best of the suit led
            best = i
    return best


def overstick_legal(hand_ranks: Sequence[int], highest: int | None) -> list[int]:
    """Indices into ``hand_ranks`` that may be played under överstickstvång.

    ``highest`` is the rank of the highest card already in the trick (None when
    leading). A card strictly higher is obligatory when the hand has one; otherwise
    any card may be played.
    """
    if highest is None:
        return list(range(len(hand_ranks)))
    higher = [i for i, r in enumerate(hand_ranks) if r > highest]
    return higher if higher else list(range(len(hand_ranks)))


def trick_winner_later_equal(ranks: Sequence[int]) -> int:
    """Index of the winning card when of two equal cards the later one counts higher."""
    best = 0
    for i in range(1, len(ranks)):
        if ranks[i] >= ranks[best]:
            best = i
    return best
