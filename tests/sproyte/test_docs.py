"""docs/sproyte.md, the one description of Sprøyte, matches the code: generated tables, every
decision, the options, the action indices and the infos.

Regenerate the tables with ``python -m tests.sproyte.test_docs`` (only this page) or
``python -m kortmiljo.docgen`` (every page).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from kortmiljo import sproyte_v0 as module
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


# what the rules.py docstring stated before the rules moved to the page, and the page must keep
RULES_DOC = [r"deck\[-1\]", "5 / 4 / 3", "carried", r"At most\s+one swap", "elimination", "reward 0"]


@pytest.mark.parametrize("words", RULES_DOC)
def test_the_doc_states_what_the_rules_docstring_did(words):
    assert re.search(words, DOC.read_text(encoding="utf-8"), re.I | re.S), words


def test_the_doc_documents_options_actions_and_infos():
    # what the deleted kortmiljo/sproyte_v0.py docstring documented, now on the page
    doc = DOC.read_text(encoding="utf-8")
    for words in ("variant", "exchange_quota", "trump", "match_to", "reward", "Discrete(107)", "take_talon", "keep"):
        assert f"`{words}`" in doc or words in doc, words
    for words in ("tricks", "deal_points", "match_points", "contract", "trump"):
        assert f"`{words}`" in doc.split("## Infos")[1], words
    names = SproyteEngine().action_names
    for i, name in ((52, "done"), (53, "take_talon"), (54, "keep")):
        assert names[i] == name and re.search(rf"\| {i} \| `{name}` \|", doc)
    assert "| 0–51 | `discard:AS` … `discard:KC` |" in doc and "| 55–106 | `play:AS` … `play:KC` |" in doc
    assert (names.index("discard:AS"), names.index("discard:KC"), names.index("play:AS"), names[-1]) == (
        0, 51, 55, "play:KC",
    )  # fmt: skip


def test_the_env_module_points_at_the_doc():
    assert "docs/sproyte.md" in module.__doc__


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    new = fill(text, generated("sproyte"))
    if new != text:
        DOC.write_text(new, encoding="utf-8")
        print(f"updated {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
