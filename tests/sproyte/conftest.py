"""Stacked-deck helpers for Sprøyte tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from kortmiljo.core.cards import FRENCH, FRENCH_NO_TWOS
from kortmiljo.games.sproyte import SproyteEngine
from kortmiljo.games.sproyte.game import PLAY0

P = FRENCH.parse


def cards(text: str) -> list[str]:
    """'AS KS 3H' → ['AS', 'KS', '3H']."""
    return text.split()


def stacked(
    variant: str,
    dealer: int,
    hands: dict[int, Sequence[str]],
    pile: Sequence[str] = (),
    talon: Sequence[str] = (),
    shown: str | None = None,
) -> list[str]:
    """A deck (top first) that deals the given cards: ``hands[seat]`` in the order received,
    the exchange ``pile`` top first (``shown`` = its last card in variasjon), or the ``talon``.
    Unspecified places are filled with the remaining cards in index order."""
    deck_kind = FRENCH_NO_TWOS if variant == "vanlig" else FRENCH
    order = [(dealer + 1) % 3, (dealer + 2) % 3, dealer]
    size = len(deck_kind)
    deck: list[str | None] = [None] * size
    if variant == "tretten":
        for seat, hand in hands.items():
            for k, c in enumerate(hand):
                deck[4 * k + order.index(seat)] = c
        for k, c in enumerate(talon):
            deck[4 * k + 3] = c
    else:
        for seat, hand in hands.items():
            for k, c in enumerate(hand):
                deck[3 * k + order.index(seat)] = c
        for k, c in enumerate(pile):
            deck[36 + k] = c
        if shown is not None:
            deck[-1] = shown
    used = [deck_kind.parse(c) for c in deck if c is not None]
    assert len(used) == len(set(used)), "a card is placed twice"
    rest = [deck_kind.code(c) for c in deck_kind.cards if c not in set(used)]
    return [c if c is not None else rest.pop(0) for c in deck]


def new_engine(deck=None, dealer=0, seed=0, **config) -> SproyteEngine:
    e = SproyteEngine(**config)
    e.new_episode(np.random.default_rng(seed), deck, dealer)
    return e


def act(e: SproyteEngine, *names: str) -> None:
    for name in names:
        e.step(e.action_from_string(name))


def skip_preparation(e: SproyteEngine) -> None:
    """Nobody exchanges (``done`` × 3) or takes the talon (``keep`` × 3)."""
    for _ in range(3):
        act(e, "keep" if e.variant == "tretten" else "done")


def legal_names(e: SproyteEngine) -> list[str]:
    return [e.action_names[a] for a in e.legal_actions()]


def legal_cards(e: SproyteEngine) -> list[int]:
    return [a - PLAY0 for a in e.legal_actions()]


def play_out(e: SproyteEngine, choose: Callable[[SproyteEngine, list[int]], int]) -> list[int]:
    """Play the rest of the deal; ``choose(e, legal_cards)`` picks a card. Returns the trick winners."""
    winners = []
    while not e.terminal and e.phase == 2:
        before = e.trick_no
        legal = legal_cards(e)
        c = choose(e, legal)
        assert c in legal
        e.step(PLAY0 + c)
        if e.trick_no != before or e.terminal:
            winners.append(e.leader)
    return winners


def random_episode(seed: int, check: Callable[[SproyteEngine], None] | None = None, deck=None, dealer=None, **config):
    rng = np.random.default_rng(seed)
    e = SproyteEngine(**config)
    e.new_episode(rng, deck, dealer)
    if check:
        check(e)
    while not e.terminal:
        legal = e.legal_actions()
        e.step(legal[rng.integers(len(legal))])
        if check:
            check(e)
    return e
