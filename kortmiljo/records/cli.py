"""``kortmiljo replay FILE [--seat player_k] [--step N] [--index I]``: print a record as text.

The record is loaded (validated against the schema and replayed, so a corrupt or tampered file
is refused with one line that names it, the move and what is wrong) and printed in the text
form of :mod:`kortmiljo.records.text`: the open view, or with ``--seat`` what that seat saw
(a redacted record, or a seat's view, opens with a ``REDACTED record`` line). Whatever comes from
the file reaches the terminal with its control characters escaped
(:func:`kortmiljo.core.errors.printable`), and the numbers of ``--seat``, ``--step`` and
``--index`` are written in the ASCII digits 0-9.
``--step N`` stops after move N and, for a full record, also draws the table at that point
from the same view. ``--index I`` picks one record of a JSON Lines file.
"""

from __future__ import annotations

import argparse
import sys

from ..cli import ArgumentParser, fail, int_arg, seat_arg
from ..core.errors import printable
from .files import load
from .format import RecordError
from .redact import seat_index
from .replay import restore
from .text import to_text


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="kortmiljo replay", description="Print a game record as text (docs/records.md).")
    p.add_argument("file", help="a record file (.json, or .jsonl with --index)")
    p.add_argument(
        "--seat",
        type=seat_arg,
        help="print what this seat saw (player_0, player_1, … or 0, 1, …); default: the open view",
    )
    p.add_argument("--step", type=int_arg(0), default=None, help="stop after this many moves")
    p.add_argument("--index", type=int_arg(0), default=None, help="the record's position in a JSON Lines file")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        record = load(args.file, index=args.index)
        text = to_text(record, seat=args.seat, step=args.step)
        if args.step is not None and not record.redacted:
            engine = restore(record, step=args.step).unwrapped.engine
            # the seat's view while the game runs; once it has ended the rules have shown every card
            ended = engine.terminal or engine.truncated
            viewer = None if args.seat is None or ended else seat_index(record, args.seat)
            table = "\n".join(map(printable, engine.render(viewer).split("\n")))
            text += f"\nThe table after move {args.step}:\n{table}\n"
    except RecordError as err:
        return fail("kortmiljo replay", err)
    sys.stdout.write(text)
    return 0
