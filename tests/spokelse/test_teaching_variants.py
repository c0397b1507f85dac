"""Spøkelse teaching variants (cards, num_slots, max_turns): worked examples, errors, invariants."""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.core.cards import FRENCH
from kortmiljo.games.spokelse import SpokelseEngine

from .conftest import new_engine, play

SHORT = ["AS", "2S", "3S", "8S", "QS", "KS"]
TEACHING = dict(cards=SHORT, num_slots=1, max_turns=2)


def test_defaults_are_the_full_game():
    e = SpokelseEngine()
    assert (e.config["cards"], e.config["num_slots"], e.config["max_turns"]) == (None, 4, None)
    assert e.deck is FRENCH and e.stock_start == 41 and "turns_left" not in e.layout.split(np.zeros(e.layout.size))


def test_one_slot_deal_ghost_then_slot_then_up_card_then_stock():
    # dealer 1: player 0 is forhånd; deck order: ghost p0, ghost p1, slot p0, slot p1, up card, stock
    e = new_engine(["KS", "QS", "2S", "8S", "3S", "AS"], dealer=1, **TEACHING)
    assert e.ghost == [FRENCH.parse("KS"), FRENCH.parse("QS")]
    assert e.slots == [[FRENCH.parse("2S")], [FRENCH.parse("8S")]]
    assert e.discard == [FRENCH.parse("3S")] and e.stock == [FRENCH.parse("AS")]
    assert e.owner_known == [[True], [True]]  # slot 0 is peeked
    assert [e.action_names[a] for a in e.legal_actions()] == ["draw", "take"]
    play(e, "draw")
    assert [e.action_names[a] for a in e.legal_actions()] == ["swap:0", "discard"]
    with pytest.raises(ValueError, match="swap:1"):
        e.step(e.action_from_string("swap:1"))


def test_unseen_never_marks_cards_outside_the_short_deck():
    e = new_engine(["KS", "QS", "2S", "8S", "3S", "AS"], dealer=1, **TEACHING)
    outside = [c for c in range(52) if FRENCH.code(c) not in SHORT]
    for s in range(2):
        assert not e.unseen(s)[outside].any()
        assert e.unseen(s).sum() == 6 - 2  # own slot and the up card are located
    with pytest.raises(ValueError, match="not in the"):
        new_engine(["KS", "QS", "2S", "8S", "3S", "4H"], dealer=1, **TEACHING)


def test_turn_cap_ends_the_round_after_max_turns():
    deck = ["KS", "QS", "2S", "8S", "3S", "AS", "4S", "5S", "6S", "7S"]
    e = new_engine(deck, dealer=1, cards=deck, num_slots=1, max_turns=3)
    turns_left = e.layout["turns_left"]
    assert e.observe(0)[turns_left] == [1.0]
    play(e, "take", "swap:0")  # turn 1: player 0
    assert e.observe(1)[turns_left] == pytest.approx([2 / 3])
    play(e, "take", "swap:0", "take", "swap:0")  # turns 2 and 3
    assert e.terminal and len(e.stock) == 5  # the cap, not the stock, ended it (takes draw nothing)
    assert e.rewards in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"num_slots": 0}, "num_slots"),
        ({"num_slots": 5}, "1 to 4"),
        ({"max_turns": 0}, "max_turns"),
        ({"cards": "AS 2S"}, "cards"),
        ({"cards": ["AS", "2S"]}, "at least 12"),
        ({"cards": ["AS", "AS", "2S", "3S", "4S", "5S"], "num_slots": 1}, "duplicate"),
        ({"cards": ["AS", "XX", "2S", "3S", "4S", "5S"], "num_slots": 1}, "unknown card code"),
    ],
)
def test_bad_teaching_options_raise(options, words):
    with pytest.raises(ValueError, match=words):
        SpokelseEngine(**options)


@pytest.mark.parametrize(
    "config",
    [
        TEACHING,
        dict(num_slots=2),
        dict(num_players=3, num_slots=3, max_turns=9, reward="points"),
        dict(max_turns=5, match_to=30),
    ],
)
def test_invariants_over_random_games(config):
    e = SpokelseEngine(**config)
    rng = np.random.default_rng(0)
    for _ in range(40):
        e.new_episode(rng)
        while not e.terminal:
            legal = e.legal_actions()
            e.step(legal[rng.integers(len(legal))])
            for s in range(e.num_players):
                np.testing.assert_array_equal(e.observe(s), e.encode(s))
                np.testing.assert_array_equal(e.unseen(s), e.reference_unseen(s))
            if not e.terminal and rng.random() < 0.1:
                seat = int(rng.integers(e.num_players))
                np.testing.assert_array_equal(e.resample(seat, rng).observe(seat), e.observe(seat))
        assert sum(e.rewards) == pytest.approx(0.0)
