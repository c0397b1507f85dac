"""Femkortskille teaching variants (ranks, hand_size, extra_cards): worked examples, errors, invariants."""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.core.cards import KILLE
from kortmiljo.games.femkortskille import FemkortskilleEngine

TEACHING = dict(num_players=3, ranks=["1", "2", "kille"], hand_size=1, extra_cards=1, max_deals=1)


def new_engine(deck, dealer=2, **config):
    e = FemkortskilleEngine(**config)
    e.new_episode(np.random.default_rng(0), deck, dealer)
    return e


def names(e, actions):
    return [e.action_names[a] for a in actions]


def test_defaults_are_the_full_game():
    e = FemkortskilleEngine()
    assert (e.config["ranks"], e.hand_size, e.extra_cards, e.tricks) == (None, 3, 2, 5)
    assert e.deck is KILLE


def test_one_card_hands_one_extra_card_two_tricks():
    # dealer 2: forhånd is player 0; one card each, then the stock (one card per knocker)
    e = new_engine(["kille", "1", "2", "1", "2", "kille"], **TEACHING)
    assert [[KILLE.code(c) for c in h] for h in e.hands] == [["kille"], ["1"], ["2"]]
    for a in ("knock", "pass", "knock"):
        e.step(e.action_from_string(a))
    assert [[KILLE.code(c) for c in h] for h in e.hands] == [["kille", "1"], ["1"], ["2", "2"]]
    e.step(e.action_from_string("play:kille"))  # player 0 leads; player 2 cannot beat a kille
    assert names(e, e.legal_actions()) == ["play:2"]
    e.step(e.action_from_string("play:2"))
    assert e.trick_no == 1 and not e.terminal
    e.step(e.action_from_string("play:1"))
    e.step(e.action_from_string("play:2"))  # player 2 wins the second and last trick
    assert e.terminal and e.winner == 2
    # pot 3; player 0, the other knocker, pays 3 in; player 2 takes 6
    assert e.rewards == [-4.0, -1.0, 5.0]


def test_reduced_deck_vectors_and_stacked_deck_errors():
    e = new_engine(["kille", "1", "2", "1", "2", "kille"], **TEACHING)
    inside = {2 * KILLE.parse(r) // 2 + k for r in ("1", "2", "kille") for k in (0, 1)}
    outside = [c for c in range(42) if c not in inside]
    for s in range(3):
        assert not e.unseen(s)[outside].any() and e.unseen(s).sum() == 5
        np.testing.assert_array_equal(e.unseen(s), e.reference_unseen(s))
    with pytest.raises(ValueError, match="outside this variant's deck: kuku"):
        new_engine(["kille", "1", "2", "1", "2", "kuku"], **TEACHING)
    with pytest.raises(ValueError, match="needs 6"):
        new_engine(["kille", "1", "2", "1", "2"], **TEACHING)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"hand_size": 0}, "hand_size"),
        ({"hand_size": 4}, "1 to 3"),
        ({"extra_cards": 3}, "extra_cards"),
        ({"ranks": "kille"}, "ranks"),
        ({"ranks": ["1", "1", "2", "3", "4", "5", "6", "7", "8", "9"]}, "twice"),
        ({"ranks": ["1", "zz"]}, "unknown kille card"),
        ({"num_players": 3, "ranks": ["1", "2"]}, "at least 15"),
    ],
)
def test_bad_teaching_options_raise(options, words):
    with pytest.raises(ValueError, match=words):
        FemkortskilleEngine(**options)


@pytest.mark.parametrize(
    "config",
    [
        TEACHING,
        dict(num_players=3, ranks=["blaren", "kransen", "5", "9", "kille"], hand_size=2, extra_cards=1,
             skituppslag=True, poker=True),
        dict(num_players=4, hand_size=2, extra_cards=0, auktion=True, knock_stake=1),
    ],
)  # fmt: skip
def test_invariants_over_random_games(config):
    e = FemkortskilleEngine(**config)
    rng = np.random.default_rng(1)
    for _ in range(60):
        e.new_episode(rng)
        while not (e.terminal or e.truncated):
            legal = e.legal_actions()
            e.step(legal[rng.integers(len(legal))])
            for s in range(e.num_players):
                np.testing.assert_array_equal(e.unseen(s), e.reference_unseen(s))
            if not (e.terminal or e.truncated) and rng.random() < 0.2:
                seat = int(rng.integers(e.num_players))
                np.testing.assert_array_equal(e.resample(seat, rng).observe(seat), e.observe(seat))
        assert sum(e.rewards) == pytest.approx(0.0)
