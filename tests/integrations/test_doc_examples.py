"""The Python examples in the integration pages run as written (doc examples must not rot).

Each page's ```python blocks are run in order in one namespace, as a reader would paste them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = {  # page -> the module it needs (skipped without it)
    "pettingzoo_registry.md": "pettingzoo",
    "openspiel.md": "pyspiel",
    "rllib.md": "ray.rllib",
}


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_page_examples_run(page, tmp_path, monkeypatch):
    pytest.importorskip(PAGES[page])
    blocks = python_blocks((DOCS / page).read_text(encoding="utf-8"))
    assert blocks, f"docs/{page} has no python example"
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    namespace: dict = {"__name__": "__doc_example__"}
    for i, code in enumerate(blocks):
        exec(compile(code, f"docs/{page} block {i + 1}", "exec"), namespace)  # noqa: S102
