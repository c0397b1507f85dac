"""docs/sproyte.md matches the code: generated tables, every decision, the action indices.

Regenerate the tables with ``python -m tests.sproyte.test_docs`` (only this page) or
``python -m kortmiljo.docgen`` (every page).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import kortmiljo.games.sproyte.rules as rules
import kortmiljo.sproyte_v0 as module
from kortmiljo.docgen import fill, generated
from kortmiljo.games.sproyte import SproyteEngine

DOC = Path(__file__).resolve().parents[2] / "docs" / "sproyte.md"


def test_layout_table_in_the_doc_is_the_generated_one():
    text = DOC.read_text(encoding="utf-8")
    table = SproyteEngine().layout.table()
    assert table in text, "run `python -m tests.sproyte.test_docs`"
    assert fill(text, generated("sproyte")) == text


@pytest.mark.parametrize("variant", ["variasjon", "tretten"])
def test_every_form_has_the_same_layout_and_actions(variant):
    e, default = SproyteEngine(variant=variant), SproyteEngine()
    assert e.layout.table() == default.layout.table() and e.action_names == default.action_names


DECISIONS = [
    r"deck\[-1\]",
    r"last card of the exchange pile",
    r"forhånd 5, middle 4, dealer 3",
    r"carried",
    r"capped by the cards left in the pile",
    r"forhånd → middle → dealer",
    r"at most\s+one swap",
    r"old hand",
    r"unseen by everyone",
    r"clubs, the next in spades",
    r"reward 0",
    r"highest total",
    r"elimination",
    r"twos are always 0",
]


@pytest.mark.parametrize("words", DECISIONS)
def test_the_doc_states_every_decision(words):
    assert re.search(words, DOC.read_text(encoding="utf-8"), re.I), words


RULES_DOC = [r"deck\[-1\]", "5 / 4 / 3", "carried", "At most one swap", "elimination", "reward 0"]


@pytest.mark.parametrize("words", RULES_DOC)
def test_the_rules_docstring_states_the_decisions(words):
    assert re.search(words, rules.__doc__, re.I | re.S), words


def test_module_docstring_documents_options_actions_and_infos():
    doc = module.__doc__
    for words in ("variant", "exchange_quota", "trump", "match_to", "reward", "Discrete(107)", "take_talon", "keep"):
        assert words in doc
    for words in ("tricks", "deal_points", "match_points", "contract"):
        assert f"``{words}``" in doc
    for i, name in ((52, "done"), (53, "take_talon"), (54, "keep")):
        assert re.search(rf"{i}\s+``{name}``", doc)


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    new = fill(text, generated("sproyte"))
    if new != text:
        DOC.write_text(new, encoding="utf-8")
        print(f"updated {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
