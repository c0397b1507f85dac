"""docs/femkortskille.md, the one description of Femkortskille: the layouts the code generates,
every decision, and the action indices the code has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kortmiljo import femkortskille_v0
from kortmiljo.games.femkortskille import FemkortskilleEngine

DOC = Path(__file__).resolve().parents[2] / "docs" / "femkortskille.md"


def text() -> str:
    return " ".join(DOC.read_text(encoding="utf-8").split())  # line breaks do not matter


def test_doc_layout_table_equals_the_generated_one():
    raw = DOC.read_text(encoding="utf-8")
    assert FemkortskilleEngine().layout.table() in raw
    assert FemkortskilleEngine(skituppslag=True, auktion=True, poker=True).layout.table() in raw


def test_documented_action_indices():
    doc = text()
    # what the deleted kortmiljo/femkortskille_v0.py docstring documented (``done`` 45), now on the page
    assert "`done` = 45" in doc and "`fold` = 50" in doc and "`discard:<rank>` = 24 + r" in doc
    assert "`show` = 24" in doc and "`bet:k` = 23 + k" in doc and "3 + r (3 … 23)" in doc
    assert FemkortskilleEngine().action_names.index("play:kille") == 23
    assert FemkortskilleEngine(skituppslag=True).action_names.index("show") == 24
    assert FemkortskilleEngine(auktion=True).action_names.index("bet:3") == 26
    p = FemkortskilleEngine(poker=True).action_names
    assert p.index("done") == 45 and p.index("fold") == 50 and p.index("discard:blaren") == 24
    a = FemkortskilleEngine(skituppslag=True, auktion=True, poker=True).action_names
    assert (a.index("show"), a.index("bet:1"), a.index("discard:blaren"), a.index("done"), a.index("fold")) == (
        24, 25, 30, 51, 56,
    )  # fmt: skip
    assert len(a) == 57 and "make 57 actions" in doc


# every decision the rules.py docstring stated before the rules moved to the page
DECISIONS = [
    r"antes `ante` \(default 1\)",
    r"index 0 to forhånd",
    r"indices 3n onwards are the stock",
    r"`lura` is legal only while nobody has knocked",
    r"every player who waited decides `knock` or `pass`, in seat order from forhånd",
    r"the pot stays and nobody antes again, unless `ante_on_redeal=True`",
    r"After `max_deals` deals \(default 20\)",
    r"returned in equal shares",
    r"One knocker\*\* takes the pot at once",
    r"the first knocker stock cards 0 and 1, the next 2 and 3",
    r"strictly higher than every card in the trick",
    r"Of two equal cards the later one counts higher",
    r"the winner ends \+7, the other knocker −5",
    r"net chip change over the episode",
    r"nothing else is ever revealed, not even at the end",
    r"bit 2r = 1, bit 2r\+1 = 0",
    r"`show`; it wins the pot at once",
    r"every knock adds s chips to the pot \(so does every auktion bet",
    r"the losers' payments stay in the pot",
    r"a seeded `reset` starts afresh with an empty pot",
    r"net changes plus the growth of the pot sum to zero",
    r"no `knock`, no `lura`",
    r"k at least the highest bet so far \(1 ≤ k ≤ `max_bet`, default 5\)",
    r"may discard only as many cards as the stock can still replace",
    r"at most 3 raises",
    r"A folder loses what it put in",
    r"`\(hand_size \+ extra_cards\) × num_players` cards",
    r"a player who failed to beat a trick's highest card holds nothing higher",
    r"`max_bet`.*only with `auktion=True`",
]


@pytest.mark.parametrize("words", DECISIONS)
def test_the_doc_states_every_decision(words):
    assert re.search(words, text()), words


def test_the_env_module_points_at_the_doc():
    assert "docs/femkortskille.md" in femkortskille_v0.__doc__
