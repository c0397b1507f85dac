"""Card codes, decks, parsing errors and rendering."""

import pytest

from kortmiljo.core.cards import FRENCH, FRENCH_NO_TWOS, KILLE, KILLE_RANKS


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
