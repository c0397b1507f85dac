"""Regenerate the generated parts of docs/<game>.md from the code.

Between ``<!-- BEGIN GENERATED: actions -->`` / ``<!-- END GENERATED: actions -->`` goes the
action table, between the ``layout`` markers the observation layout table, both for the
game's default configuration. ``python -m kortmiljo.docgen`` rewrites the files;
``tests/test_docs.py`` fails when they are stale, so the docs cannot drift from the code.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from .core.registry import games, load_game

DOCS = Path(__file__).resolve().parent.parent / "docs"


def action_table(game) -> str:
    rows = ["| index | action |", "|---:|---|"]
    rows += [f"| {i} | `{name}` |" for i, name in enumerate(game.action_names)]
    return "\n".join(rows)


def generated(name: str) -> dict[str, str]:
    g = load_game(name)
    return {"actions": action_table(g), "layout": g.layout.table() + f"\n\nTotal length: {g.layout.size}."}


def fill(text: str, parts: dict[str, str]) -> str:
    for name, body in parts.items():
        pattern = re.compile(rf"(<!-- BEGIN GENERATED: {name} -->\n).*?(<!-- END GENERATED: {name} -->)", re.S)
        text = pattern.sub(lambda m, body=body: m.group(1) + body + "\n" + m.group(2), text)
    return text


def main() -> int:
    for name, definition in games().items():
        if not definition.docs:
            continue
        path = DOCS.parent / definition.docs
        if not path.exists():
            continue
        parts = generated(name)
        text = path.read_text(encoding="utf-8")
        new = fill(text, parts)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
