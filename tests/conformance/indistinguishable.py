"""Pairs of deals that one seat cannot tell apart: the probe of every "no hidden card leaks" test.

A pair is built from the first deal of one random episode (A): two deck positions whose cards the
seat cannot locate when they are dealt are swapped (B), and A's moves are replayed on B by name,
up to the move that ends the deal (whose count may reveal cards). The pair is kept only if every
move is legal in B, every move's public name is the same, and the seat's observation, action mask
and ``unseen`` are equal at every step. Whatever the seat is shown while the game runs must then
be equal too: an answer that differs within a pair depends on a card the seat cannot locate.
Nothing here reads :func:`kortmiljo.records.redact` or the web app, so a leak in them can be found.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from kortmiljo.core.game import Game

MAX_MOVES = 60  # a probe plays at most this many moves of the first deal


@dataclass(frozen=True)
class Deal:
    """The first deal of an episode: the reset options that deal it and its moves (by name), the
    deal's last move (the one that ends it) left out."""

    options: dict
    moves: tuple[str, ...]


def play(game: Game, seed: int) -> Deal:
    """A random first deal (uniform over legal moves), stacked so that it replays exactly."""
    rng = np.random.default_rng(seed)
    e = game.new_state()
    e.new_episode(rng)
    moves: list[str] = []
    while len(moves) < MAX_MOVES:
        legal = e.legal_actions()
        a = int(legal[rng.integers(len(legal))])
        e.step(a)
        if e.terminal or e.truncated or len(e.deal_log) > 1:
            break
        moves.append(game.action_names[a])
    dealer, first = e.deal_log[0]
    return Deal({"deck": [game.deck.code(c) for c in first], "dealer": int(dealer)}, tuple(moves))


def _steps(game: Game, deal: Deal, seat: int) -> Iterator:
    """What ``seat`` observes, step by step, along ``deal`` (ending with None at an illegal move)."""
    e = game.new_state()
    e.new_episode(np.random.default_rng(0), **deal.options)
    for name in deal.moves:
        o = e.observation(seat)
        yield o["observation"].tobytes(), o["action_mask"].tobytes(), o["unseen"].tobytes()
        a = game.action_from_string(name)
        if not e.is_legal(a):
            yield None
            return
        yield game.public_action_name(a) if e.current_player != seat else name
        e.step(a)
    o = e.observation(seat)
    yield o["observation"].tobytes(), o["action_mask"].tobytes(), o["unseen"].tobytes()


def same_view(game: Game, a: Deal, b: Deal, seat: int) -> bool:
    """Whether ``seat`` observes exactly the same at every step of ``a`` and ``b`` (stops at the
    first difference)."""
    for x, y in zip(_steps(game, a, seat), _steps(game, b, seat), strict=False):
        if x is None or y is None or x != y:
            return False
    return True


def _first_engine(game: Game, deal: Deal):
    e = game.new_state()
    e.new_episode(np.random.default_rng(0), **deal.options)
    return e


def hidden_at_deal(game: Game, deal: Deal, seat: int) -> list[int]:
    """The positions of the deck whose card ``seat`` cannot locate once it is dealt."""
    known = {game.deck.code(c) for c in _first_engine(game, deal).known_cards(seat)}
    return [i for i, c in enumerate(deal.options["deck"]) if c not in known]


def located_later(game: Game, deal: Deal, seat: int) -> list[int]:
    """The hidden positions whose card ``seat`` locates during ``deal``'s moves (a card another
    seat plays, say)."""
    e = _first_engine(game, deal)
    code = game.deck.code
    seen: set[str] = set()
    for name in deal.moves:
        e.step(game.action_from_string(name))
        seen.update(code(c) for c in e.known_cards(seat))
    deck = deal.options["deck"]
    return [i for i in hidden_at_deal(game, deal, seat) if deck[i] in seen]


def swapped(deal: Deal, i: int, j: int) -> Deal:
    deck = list(deal.options["deck"])
    deck[i], deck[j] = deck[j], deck[i]
    return Deal({**deal.options, "deck": deck}, deal.moves)


def pairs(game: Game, seat: int, seed: int, want: int = 2, tries: int = 200) -> Iterator[tuple[Deal, Deal]]:
    """Up to ``want`` pairs (A, B) that ``seat`` cannot tell apart, from deals seeded from ``seed``.

    Swaps that involve a card the seat locates later (a card an opponent plays, swapped with one
    still hidden or with another such card) are tried first: they are the pairs where a leak of
    *where a located card was dealt* shows. Then any two hidden positions."""
    rng = np.random.default_rng(seed)
    found = 0
    for episode in range(6):
        a = play(game, seed * 100 + episode)
        hidden = hidden_at_deal(game, a, seat)
        if len(hidden) < 2 or not a.moves:
            continue
        later = located_later(game, a, seat)
        first = [(i, j) for i in later for j in hidden if i != j]
        rng.shuffle(first)
        extra = [tuple(rng.choice(hidden, 2, replace=False)) for _ in range(tries)]
        tried: set[tuple[int, int]] = set()
        for i, j in first[:tries] + extra:
            key = (min(i, j), max(i, j))
            if key in tried:
                continue
            tried.add(key)
            b = swapped(a, int(i), int(j))
            if b.options["deck"] == a.options["deck"] or not same_view(game, a, b, seat):
                continue
            yield a, b
            found += 1
            if found >= want:
                return
            break  # one pair per episode: the next comes from another deal
