"""The records the web app shows: the files of ``--records DIR``, by their listed names only.

:class:`RecordsDir` scans the folder (not its subfolders) for ``*.json`` and ``*.jsonl`` files.
A ``.json`` file is listed by its file name; each record of a ``.jsonl`` file as
``file.jsonl:i`` (``i`` from 0). A name is served only if the scan lists it, so ``..``, slashes,
absolute paths and anything else that is not a listed name are refused; a symbolic link whose
target lies outside the folder, a hidden file, a file that is not a valid record and one larger
than ``max_bytes`` are not listed. Files are read once per change (their size and mtime), and the
listing reads them without replaying their moves; a record is replayed (verified) when it is served.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from ..records import Record, RecordError, load_all
from ..records.replay import verify
from .views import Positions, record_entry, record_log

SUFFIXES = (".json", ".jsonl")
MAX_LISTED = 10_000


class RecordsDir:
    """The records of one folder (see the module docstring)."""

    def __init__(self, path: str | os.PathLike, max_bytes: int = 64 * 1024 * 1024):
        root = Path(path).expanduser()
        if not root.is_dir():
            raise ValueError(f"--records {str(path)!r} is not a folder")
        self.root = Path(os.path.realpath(root))
        self.max_bytes = int(max_bytes)
        self._files: dict[str, tuple[tuple[int, int], list[Record] | None]] = {}  # name -> (stat key, records)
        self._verified: set[tuple[str, tuple[int, int], int]] = set()
        self._lock = threading.Lock()

    def _inside(self, path: str) -> Path | None:
        real = Path(os.path.realpath(path))
        try:
            real.relative_to(self.root)
        except ValueError:
            return None  # a link out of the folder
        return real if real.is_file() else None

    def scan(self) -> dict[str, tuple[Record, tuple[str, tuple[int, int], int]]]:
        """Every listed name → (record, cache key)."""
        out: dict[str, tuple[Record, tuple[str, tuple[int, int], int]]] = {}
        try:
            entries = sorted(os.scandir(self.root), key=lambda e: e.name)
        except OSError:
            return out
        seen = set()
        for entry in entries:
            name = entry.name
            if name.startswith(".") or not name.endswith(SUFFIXES) or "/" in name or "\\" in name:
                continue
            real = self._inside(entry.path)
            if real is None:
                continue
            try:
                st = real.stat()
            except OSError:
                continue
            if st.st_size > self.max_bytes:
                continue
            key = (st.st_mtime_ns, st.st_size)
            seen.add(name)
            with self._lock:
                cached = self._files.get(name)
            if cached is None or cached[0] != key:
                try:
                    records = load_all(real, verify=False)
                except (RecordError, OSError, ValueError):
                    records = None
                for i, rec in enumerate(records or []):  # errors name the listed name, not the server's path
                    rec.source = f"{name}:{i}" if name.endswith(".jsonl") else name
                with self._lock:
                    self._files[name] = (key, records)
                    self._verified = {v for v in self._verified if v[0] != name}
            else:
                records = cached[1]
            if not records:
                continue
            if name.endswith(".jsonl"):
                for i, rec in enumerate(records):
                    out[f"{name}:{i}"] = (rec, (name, key, i))
            else:
                if len(records) == 1:
                    out[name] = (records[0], (name, key, 0))
            if len(out) >= MAX_LISTED:
                break
        with self._lock:
            for gone in set(self._files) - seen:
                del self._files[gone]
        return out

    def listing(self) -> list[dict[str, Any]]:
        return [record_entry(name, rec) for name, (rec, _) in self.scan().items()]

    def get(self, name: str) -> tuple[Record, tuple] | None:
        """The record listed as ``name``, replayed once (None: not a listed name, or it does not
        replay)."""
        if not isinstance(name, str) or not name or len(name) > 300:
            return None
        found = self.scan().get(name)
        if found is None:
            return None
        rec, key = found
        with self._lock:
            ok = key in self._verified
        if not ok:
            try:
                verify(rec)
            except (RecordError, ValueError):
                return None
            with self._lock:
                self._verified.add(key)
        return rec, key


class LogCache:
    """The per-view logs of records being replayed (each is a replay of the whole record), and
    their restored positions (:class:`~kortmiljo.server.views.Positions`), at most ``size`` of
    each, the least recently used going first."""

    def __init__(self, size: int = 64):
        self.size = size
        self._logs: OrderedDict[tuple, list[dict[str, Any]]] = OrderedDict()
        self._positions: OrderedDict[tuple, Positions] = OrderedDict()
        self._lock = threading.Lock()

    def positions(self, key: tuple, record: Record) -> Positions | None:
        """The positions of ``record`` (None for a redacted one, which cannot be restored)."""
        if record.redacted:
            return None
        with self._lock:
            found = self._positions.get(key)
            if found is None:
                found = self._positions[key] = Positions(record)
                while len(self._positions) > self.size:
                    self._positions.popitem(last=False)
            self._positions.move_to_end(key)
            return found

    def get(self, key: tuple, record: Record, seat: int | None) -> list[dict[str, Any]]:
        k = (*key, seat)
        with self._lock:
            log = self._logs.get(k)
            if log is not None:
                self._logs.move_to_end(k)
                return log
        log = record_log(record, seat)
        with self._lock:
            self._logs[k] = log
            while len(self._logs) > self.size:
                self._logs.popitem(last=False)
        return log


__all__ = ["LogCache", "RecordsDir"]
