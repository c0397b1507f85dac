"""What records and viewers read of every game agrees with the game's own ``unseen``.

* ``known_cards(seat)`` names exactly the cards ``unseen`` clears, copy for copy;
* ``public_action_name`` hides a card exactly when the other seats cannot locate it after the
  move, and shows one only when they can;
* ``deal_holders`` lays out the whole deck, and every card a seat knows when a deal starts was
  dealt to it or to a public place;
* ``deal_log`` holds every deal, and ``reset(options={"later_decks": ...})`` deals them again.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from .games import conformance_cases
from .probes import random_legal

CASES = conformance_cases()
IDS = [c.id for c in CASES]


def _located(e, seat: int) -> Counter:
    u = e.unseen(seat)
    return Counter(e.deck.code(c) for c in e.deck.cards if not u[c])


def _episodes(case, n: int):
    game = case.game()
    rng = np.random.default_rng(case.seed)
    for _ in range(n):
        e = game.new_state()
        e.new_episode(rng)
        yield e, rng


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_known_cards_match_unseen(case):
    checked = 0
    for e, rng in _episodes(case, 3 if case.long else 10):
        steps = 0
        while not (e.terminal or e.truncated) and steps < 400:
            for s in range(e.num_players):
                known = e.known_cards(s)
                assert len(set(known)) == len(known), "a card is named twice"
                assert Counter(e.deck.code(c) for c in known) == _located(e, s)
                checked += 1
            e.step(random_legal(rng, e.legal_mask()))
            steps += 1
    assert checked > 0


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_public_action_names_agree_with_unseen(case):
    game = case.game()
    hidden = shown = 0
    for e, rng in _episodes(case, 3 if case.long else 20):
        steps = 0
        while not (e.terminal or e.truncated) and steps < 400:
            mover = e.current_player
            action = random_legal(rng, e.legal_mask())
            name, public = game.action_names[action], game.public_action_name(action)
            deals = len(e.deal_log)
            before = [_located(e, v) for v in range(e.num_players)]
            e.step(action)
            steps += 1
            if e.terminal or e.truncated or len(e.deal_log) != deals:
                continue  # the deal ended: what the rules reveal then is no move's doing
            code = game.named_card(name)
            if code is None:
                assert public == name, f"{name!r} names no card but is shown as {public!r}"
                continue
            moved = [c for c in e.deck.cards if e.deck.code(c) == code]
            for v in range(e.num_players):
                if v == mover:
                    continue
                if public == name:  # shown: every other seat can now locate the card (one more copy)
                    now, was = _located(e, v)[code], before[v][code]
                    assert now > was or now == len(moved), f"{name} is shown but player_{v} cannot see it"
                    shown += 1
                else:  # hidden: the name must not carry the card, and some seat cannot locate it
                    assert code.lower() not in public.lower().partition(":")[2]
                    hidden += 1
            if public != name:
                assert any(e.unseen(v)[moved].any() for v in range(e.num_players) if v != mover), (
                    f"{name} is hidden from the others, but they can all locate the card"
                )
    if game.card_heads - {"discard"}:
        assert shown > 0  # the game has card-naming moves, and some were checked


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_deal_holders_lay_out_the_deck(case):
    game = case.game()
    for e, _ in _episodes(case, 5):
        dealer, deck = e.deal_log[0]
        holders = game.deal_holders(dealer)
        assert len(holders) == len(game.deck)
        for s in range(e.num_players):
            mine = {c for c, h in zip(deck, holders, strict=True) if h.split()[0] == f"player_{s}"}
            public = {c for c, h in zip(deck, holders, strict=True) if not h.startswith("player_")}
            assert set(e.known_cards(s)) <= mine | public, f"player_{s} knows a card dealt to another seat"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_later_decks_deal_every_deal_again(case):
    game = case.game()
    for e, rng in _episodes(case, 2 if case.long else 5):
        while not (e.terminal or e.truncated):
            e.step(random_legal(rng, e.legal_mask()))
        codes = [[game.deck.code(c) for c in deck] for _, deck in e.deal_log]
        again = game.new_state()
        again.new_episode(np.random.default_rng(12345), deck=codes[0], dealer=e.deal_log[0][0], later_decks=codes[1:])
        for _, action in e.history:
            again.step(action)
        assert [(d, [game.deck.code(c) for c in deck]) for d, deck in again.deal_log] == [
            (d, c) for (d, _), c in zip(e.deal_log, codes, strict=True)
        ]
        assert again.rewards == e.rewards and again.terminal == e.terminal


def test_bad_later_decks_are_refused_before_any_change():
    case = next(c for c in CASES if c.name == "sproyte")
    e = case.game().new_state()
    e.new_episode(np.random.default_rng(0))
    before = (e.history[:], e.deal_log[:])
    with pytest.raises(ValueError, match=r"later_decks\[0\]"):
        e.new_episode(np.random.default_rng(0), later_decks=[["AS", "AS"]])
    with pytest.raises(ValueError, match="later_decks must be a list"):
        e.new_episode(np.random.default_rng(0), later_decks="AS KS")
    with pytest.raises(ValueError, match="carries no state"):
        e.new_episode(np.random.default_rng(0), carry={"pot": 3})
    assert (e.history, e.deal_log) == before
