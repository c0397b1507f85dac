"""Record files: one record (``.json``) or many, one per line (JSON Lines, ``.jsonl``).

Reading validates each record (:func:`~kortmiljo.records.format.from_dict`) and replays its moves
(:func:`~kortmiljo.records.replay.verify`), so a record that loads is one that can be restored.
The JSON is read by :func:`kortmiljo.core.jsonsafe.loads`, within the bounds of
:mod:`kortmiljo.records.format` (bytes of a file and of a record, records and moves of a file,
moves and deals of a record), each checked before the work it limits: sizes before parsing,
counts before validating, validating before replaying. Writing is atomic: a temporary file in
the same folder, then ``os.replace``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import kortmiljo.records.format as fmt  # its bounds are read at call time, so a caller may lower them

from ..core import jsonsafe
from ..core.files import atomic_write
from .format import Record, RecordError, dumps, from_dict
from .replay import verify as verify_moves


def _parse(text: str, where: str) -> Any:
    """One record's JSON, within ``MAX_RECORD_BYTES`` and jsonsafe's bounds (depth, digits, finite)."""
    if len(text) > fmt.MAX_RECORD_BYTES:  # characters: at least as many bytes
        raise RecordError(
            f"{where}: {len(text):,} characters; a record is at most {fmt.MAX_RECORD_BYTES:,} bytes (MAX_RECORD_BYTES)"
        )
    try:
        return jsonsafe.loads(text, what=where)
    except jsonsafe.JSONError as err:
        raise RecordError(str(err)) from None


def loads(text: str, source: str | None = None, verify: bool = True) -> Record:
    """A record from JSON text (see :func:`load`)."""
    return _record(_parse(text, source or "record"), source, verify)


def _record(doc: Any, source: str | None, verify: bool) -> Record:
    rec = from_dict(doc, source)
    if verify:
        verify_moves(rec)
    return rec


def _read(path: str | os.PathLike) -> str:
    p = Path(path)
    if not p.is_file():
        raise RecordError(f"{p}: no such record file")
    with open(p, "rb") as f:  # read at most one byte past the bound: the size stat gives may change
        data = f.read(fmt.MAX_FILE_BYTES + 1)
    if len(data) > fmt.MAX_FILE_BYTES:
        raise RecordError(f"{p}: larger than a record file can be ({fmt.MAX_FILE_BYTES:,} bytes, MAX_FILE_BYTES)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RecordError(f"{p}: not UTF-8 text ({err.reason} at byte {err.start})") from None


def load_all(path: str | os.PathLike, verify: bool = True) -> list[Record]:
    """Every record of a file: one JSON document, or JSON Lines (one record per line).

    Each is validated (:func:`from_dict`) and, with ``verify``, replayed move by move, so a
    truncated, corrupt, newer or tampered record is refused with a :class:`RecordError` that
    names the file, the line, the move and what is wrong. Blank lines are the only thing skipped.
    """
    text = _read(path)
    src = str(path)
    if not text.strip():
        raise RecordError(f"{src}: the file is empty")
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    first = _first_record_line(lines) if len(lines) > 1 else None
    if first is None:  # one document (pretty-printed or not); a JSON error says where
        return [loads(text, src, verify)]
    if len(lines) > fmt.MAX_RECORDS:  # JSON Lines: a record per line, counted before any is read
        raise RecordError(
            f"{src}: {len(lines):,} lines; a file holds at most {fmt.MAX_RECORDS:,} records (MAX_RECORDS)"
        )
    k, first_doc = first
    docs = [
        (f"{src} line {n}", first_doc if i == k else _parse(line, f"{src} line {n}"))
        for i, (n, line) in enumerate(lines)
    ]
    # every line parsed, none checked or replayed yet: the moves of the whole file, counted
    moves = sum(len(d["actions"]) for _, d in docs if isinstance(d, dict) and isinstance(d.get("actions"), list))
    if moves > fmt.MAX_FILE_MOVES:
        raise RecordError(
            f"{src}: {moves:,} moves in all; a file holds at most {fmt.MAX_FILE_MOVES:,} (MAX_FILE_MOVES)"
        )
    return [_record(doc, where, verify) for where, doc in docs]


def _first_record_line(lines: list[tuple[int, str]]) -> tuple[int, Any] | None:
    """(position, document) of the first line that is a whole record by itself (no line of a
    pretty-printed record is), or None: what tells a JSON Lines file from one document."""
    for i, (_, line) in enumerate(lines):
        if len(line) > fmt.MAX_RECORD_BYTES or not line.lstrip().startswith("{"):
            continue
        try:
            doc = jsonsafe.loads(line)
        except jsonsafe.JSONError:
            continue
        if isinstance(doc, dict) and "format" in doc:
            return i, doc
    return None


def load(path: str | os.PathLike, index: int | None = None, verify: bool = True) -> Record:
    """The record in ``path`` (``index``: the one at that position of a JSON Lines file)."""
    records = load_all(path, verify)
    if index is None:
        if len(records) > 1:
            raise RecordError(
                f"{path}: the file holds {len(records)} records; pass index=0..{len(records) - 1} or use load_all"
            )
        return records[0]
    if not 0 <= index < len(records):
        raise RecordError(f"{path}: index {index} is out of range; the file holds {len(records)} records")
    return records[index]


def save(records: Record | Iterable[Record], path: str | os.PathLike, fsync: bool = True) -> None:
    """Write one record (a ``.json`` file) or many (JSON Lines: any ``.jsonl`` file, or a list), atomically
    (``fsync=False``: without waiting for the disk, as a tournament writing a file per game does)."""
    if isinstance(records, Record):
        text = dumps(records) + "\n"
    else:
        text = "".join(dumps(r, indent=None) + "\n" for r in records)
    atomic_write(path, text, fsync)
