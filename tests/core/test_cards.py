"""Card codes, decks, parsing errors and rendering."""

import numpy as np
import pytest

from kortmiljo import game_names
from kortmiljo.core.cards import FRENCH, FRENCH_NO_TWOS, KILLE, KILLE_RANKS
from kortmiljo.env.modules import env_module_of


def test_french_vector_order():
    assert FRENCH.parse("AS") == 0 and FRENCH.parse("KC") == 51
    assert FRENCH.parse("8S") == 7 and FRENCH.parse("TH") == 13 + 9 and FRENCH.parse("QC") == 39 + 11
    assert [FRENCH.code(c) for c in (0, 13, 26, 39)] == ["AS", "AH", "AD", "AC"]


def test_case_insensitive_and_ten_spellings():
    assert FRENCH.parse("qc") == FRENCH.parse("QC") == FRENCH.parse(" Qc ")
    assert FRENCH.parse("10H") == FRENCH.parse("TH")


def test_pretty_rendering():
    assert FRENCH.pretty(FRENCH.parse("8S")) == "8♠" and FRENCH.pretty(FRENCH.parse("TD")) == "10♦"
    assert KILLE.pretty(2 * KILLE_RANKS.index("kille")) == "Killen"
    assert KILLE.pretty(2 * KILLE_RANKS.index("vardshus") + 1) == "Värdshuset"


def test_no_twos_deck():
    assert len(FRENCH_NO_TWOS) == 48 and FRENCH_NO_TWOS.width == 52
    with pytest.raises(ValueError, match="not in the 48-card"):
        FRENCH_NO_TWOS.parse("2S")


@pytest.mark.parametrize("bad", ["ZZ", "1S", "A", "", "ASS"])
def test_unknown_codes_say_what_is_allowed(bad):
    with pytest.raises(ValueError, match="rank A 2 3 4 5 6 7 8 9 T J Q K followed by a suit S H D C"):
        FRENCH.parse(bad)


def test_kille_deck_copies_and_order():
    codes = [KILLE.code(c) for c in range(42)]
    assert codes[:2] == ["blaren", "blaren"] and codes[-1] == "kille"
    assert KILLE.parse_deck(codes) == list(range(42))
    assert KILLE.parse("Värdshus") == 2 * KILLE_RANKS.index("vardshus")
    with pytest.raises(ValueError, match="unknown kille card"):
        KILLE.parse("joker")


def test_kille_third_copy_is_a_duplicate_and_does_not_shift_other_ranks():
    codes = [KILLE.code(c) for c in range(42)]
    bad = codes[:-1] + ["blaren"]  # three blaren, one kille
    with pytest.raises(ValueError, match="duplicate cards: blaren"):
        KILLE.parse_deck(bad)


@pytest.mark.parametrize(
    "deck, words",
    [
        ([FRENCH.code(c) for c in range(52)] + ["AS"], "duplicate cards: AS"),
        ([FRENCH.code(c) for c in range(50)], "missing: QC, KC"),
        ("AS KS", "list of card codes"),
        (None, "list of card codes"),
    ],
)
def test_malformed_decks(deck, words):
    with pytest.raises(ValueError, match=words):
        FRENCH.parse_deck(deck)


CODES = [FRENCH.code(c) for c in range(52)]


@pytest.mark.parametrize(
    "deck, words",
    [
        (set(CODES), "got a set, whose order depends on the hash seed"),
        (frozenset(CODES), "got a frozenset"),
        (dict.fromkeys(CODES), "got a dict, a mapping"),
        (dict.fromkeys(CODES).keys(), "got a dict_keys"),
        (iter(CODES), "iterator"),
        ((c for c in CODES), "got a generator"),
    ],
)
def test_unordered_or_one_shot_decks_are_refused(deck, words):
    # a set of all 52 codes was accepted, dealt in an order that changed with PYTHONHASHSEED
    with pytest.raises(ValueError, match=r"deck must be an ordered list of card codes \(a list or a tuple\)") as err:
        FRENCH.parse_deck(deck)
    assert words in str(err.value)


def test_ordered_decks_are_accepted():
    assert FRENCH.parse_deck(CODES) == FRENCH.parse_deck(tuple(CODES)) == FRENCH.parse_deck(np.array(CODES))
    assert FRENCH.parse_deck(CODES) == list(range(52))


@pytest.mark.parametrize("game", game_names())
def test_a_set_deck_is_refused_by_every_game(game):
    env = env_module_of(game).env()
    deck = env.unwrapped.engine.deck
    with pytest.raises(ValueError, match="list of card codes"):
        env.reset(seed=0, options={"deck": {deck.code(c) for c in deck.cards}})
