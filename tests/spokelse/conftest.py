"""Stacked-deck helpers for Spøkelse tests."""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.core.cards import FRENCH
from kortmiljo.games.spokelse import SpokelseEngine


def stacked(
    n: int, dealer: int, ghosts: list[str], slots: list[list[str]], up: str, stock: list[str] = ()
) -> list[str]:
    """A 52-card deck that deals the given ghosts/slots (by seat), up card and stock top."""
    order = [(dealer + 1 + i) % n for i in range(n)]
    deck: list[str | None] = [None] * 52
    for j in range(5 * n):
        seat = order[j % n]
        k = j // n
        deck[j] = ghosts[seat] if k == 0 else slots[seat][k - 1]
    deck[5 * n] = up
    for i, c in enumerate(stock):
        deck[5 * n + 1 + i] = c
    used = {FRENCH.parse(c) for c in deck if c is not None}
    rest = [FRENCH.code(c) for c in range(52) if c not in used]
    return [c if c is not None else rest.pop(0) for c in deck]


def new_engine(deck=None, dealer=0, seed=0, **config) -> SpokelseEngine:
    e = SpokelseEngine(**config)
    e.new_episode(np.random.default_rng(seed), deck, dealer)
    return e


def play(e: SpokelseEngine, *names: str) -> None:
    for name in names:
        e.step(e.action_from_string(name))


def run_out_stock(e: SpokelseEngine) -> None:
    """Every remaining turn: draw and discard (slots never change)."""
    while not e.terminal:
        if e.phase == 0:
            play(e, "draw", "discard")
        else:
            play(e, "discard")


@pytest.fixture
def P():
    return FRENCH.parse
