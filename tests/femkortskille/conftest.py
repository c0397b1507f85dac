"""Stacked-deck helpers for Femkortskille tests."""

from __future__ import annotations

from collections import Counter

import numpy as np

from kortmiljo.core.cards import KILLE_RANKS
from kortmiljo.games.femkortskille import FemkortskilleEngine

# filler order for cards a test does not place: middle ranks first, so that an unplaced
# hand is never a skituppslag and never holds a kille by accident
FILLER = [r for r in KILLE_RANKS[3:19] for _ in range(2)] + [
    r for r in (*KILLE_RANKS[:3], "kuku", "kille") for _ in range(2)
]


def stacked(n: int, dealer: int, hands: dict[int, list[str]], stock: list[str] = ()) -> list[str]:
    """A 42-card deck that deals ``hands`` (seat -> three codes) and puts ``stock`` on top of the stock.

    Dealing goes one card at a time from forhånd (dealer + 1), so deck index k*n + j is the
    k-th card of the j-th seat from forhånd. Seats not in ``hands`` and the rest of the
    stock get the remaining cards in FILLER order.
    """
    order = [(dealer + 1 + i) % n for i in range(n)]
    deck: list[str | None] = [None] * 42
    for k in range(3):
        for j, seat in enumerate(order):
            if seat in hands:
                deck[k * n + j] = hands[seat][k]
    for i, c in enumerate(stock):
        deck[3 * n + i] = c
    used = Counter(c for c in deck if c is not None)
    assert all(v <= 2 for v in used.values()), f"a rank is used more than twice: {used}"
    rest = Counter({r: 2 for r in KILLE_RANKS}) - used
    filler = []
    for r in FILLER:
        if rest[r] > 0:
            filler.append(r)
            rest[r] -= 1
    return [c if c is not None else filler.pop(0) for c in deck]


def deal(
    n: int = 4,
    dealer: int = 3,
    hands: dict[int, list[str]] | None = None,
    stock: list[str] = (),
    seed: int = 0,
    **config,
) -> FemkortskilleEngine:
    """An engine with a stacked first deal (dealer 3 of 4 makes seat 0 forhånd)."""
    e = FemkortskilleEngine(num_players=n, **config)
    e.new_episode(np.random.default_rng(seed), stacked(n, dealer, hands or {}, stock), dealer)
    return e


def play(e: FemkortskilleEngine, *names: str) -> None:
    for name in names:
        e.step(e.action_from_string(name))


def legal_names(e: FemkortskilleEngine) -> list[str]:
    return [e.action_names[a] for a in e.legal_actions()]


def hand_names(e: FemkortskilleEngine, seat: int) -> list[str]:
    return sorted(KILLE_RANKS[c >> 1] for c in e.hands[seat])
