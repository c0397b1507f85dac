"""Writing a file atomically: the one writer of every artefact the package saves.

A reader sees the old file or the new one, never a part: the data goes to a temporary file in the
same folder, which ``os.replace`` then puts in place (a rename within one file system). ``fsync``
also makes the new file survive a crash of the machine, at a cost of milliseconds; the rename alone
is enough for a process that is interrupted (a tournament writing one record per game skips it).

The file gets the mode any new file would (``0o666`` less the umask; ``tempfile`` makes its files
``0o600``), or keeps the mode of the file it replaces.
"""

from __future__ import annotations

import os
import stat
import tempfile


def _umask() -> int:
    """The process's umask (Linux reads it without changing it; elsewhere it is set and restored)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode_for(path: str | os.PathLike) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def atomic_write(path: str | os.PathLike, data: bytes | str, fsync: bool = True) -> None:
    """Write ``data`` (text as UTF-8) to ``path``, atomically; missing folders are made."""
    if not isinstance(data, (bytes, str)):
        raise TypeError(f"atomic_write writes bytes or str, got {type(data).__name__}")
    raw = data if isinstance(data, bytes) else data.encode("utf-8")
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=os.path.splitext(str(path))[1] + ".part", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            if hasattr(os, "fchmod"):  # POSIX
                os.fchmod(f.fileno(), _mode_for(path))
            f.write(raw)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
