"""Record files: one record (``.json``) or many, one per line (JSON Lines, ``.jsonl``).

Reading validates each record (:func:`~kortmiljo.records.format.from_dict`) and replays its moves
(:func:`~kortmiljo.records.replay.verify`), so a record that loads is one that can be restored.
Writing is atomic: a temporary file in the same folder, then ``os.replace``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from ..core.files import atomic_write
from .format import MAX_FILE_BYTES, Record, RecordError, dumps, from_dict
from .replay import verify as verify_moves


def loads(text: str, source: str | None = None, verify: bool = True) -> Record:
    """A record from JSON text (see :func:`load`)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        where = f"{source or 'record'}: not valid JSON"
        raise RecordError(f"{where} (line {err.lineno}, column {err.colno}: {err.msg})") from None
    rec = from_dict(doc, source)
    if verify:
        verify_moves(rec)
    return rec


def _read(path: str | os.PathLike) -> str:
    p = Path(path)
    if not p.is_file():
        raise RecordError(f"{p}: no such record file")
    size = p.stat().st_size
    if size > MAX_FILE_BYTES:
        raise RecordError(f"{p}: {size:,} bytes is larger than a record file can be ({MAX_FILE_BYTES:,})")
    try:
        return p.read_text(encoding="utf-8")
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
    if len(lines) > 1 and any(_is_record_line(line) for _, line in lines):  # JSON Lines: a record per line
        return [loads(line, f"{src} line {n}", verify) for n, line in lines]
    return [loads(text, src, verify)]  # one document (pretty-printed or not); a JSON error says where


def _is_record_line(line: str) -> bool:
    """Whether a line is a whole record by itself (no line of a pretty-printed record is)."""
    try:
        doc = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(doc, dict) and "format" in doc


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
