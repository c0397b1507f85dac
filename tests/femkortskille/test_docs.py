"""The docs page states the layout the code generates, and the action indices it has."""

from __future__ import annotations

from pathlib import Path

from kortmiljo import femkortskille_v0
from kortmiljo.games.femkortskille import FemkortskilleEngine

DOC = Path(__file__).resolve().parents[2] / "docs" / "femkortskille.md"


def test_doc_layout_table_equals_the_generated_one():
    text = DOC.read_text(encoding="utf-8")
    assert FemkortskilleEngine().layout.table() in text
    assert FemkortskilleEngine(skituppslag=True, auktion=True, poker=True).layout.table() in text


def test_documented_action_indices():
    text = DOC.read_text(encoding="utf-8") + femkortskille_v0.__doc__
    assert "`done` = 45" in text and "`fold` = 50" in text and "``done`` 45" in text
    p = FemkortskilleEngine(poker=True).action_names
    assert p.index("done") == 45 and p.index("fold") == 50 and p.index("discard:blaren") == 24
    a = FemkortskilleEngine(skituppslag=True, auktion=True, poker=True).action_names
    assert (a.index("show"), a.index("bet:1"), a.index("discard:blaren"), a.index("done"), a.index("fold")) == (
        24, 25, 30, 51, 56,
    )  # fmt: skip
    assert len(a) == 57 and "make 57 actions" in text
