"""The generated tables in docs/ match the code, and every game's docs state its decisions."""

import re

import pytest

from kortmiljo.docgen import DOCS, fill, generated
from kortmiljo import game_names


@pytest.mark.parametrize("game", game_names())
def test_generated_tables_are_current(game):
    path = DOCS / f"{game}.md"
    if not path.exists():
        pytest.skip(f"no docs/{game}.md yet")
    text = path.read_text(encoding="utf-8")
    if "BEGIN GENERATED" not in text:
        pytest.skip(f"docs/{game}.md has no generated sections")
    assert fill(text, generated(game)) == text, "run `python -m kortmiljo.docgen`"


def test_spokelse_docs_state_every_decision():
    text = (DOCS / "spokelse.md").read_text(encoding="utf-8")
    for words in ("ghost", "slots 0 and 1", "discard", "lowest rank", "first to 21 loses", "revealed", "reward"):
        assert re.search(words, text, re.I), words
