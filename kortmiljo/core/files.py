"""Writing a file atomically: the one writer of every artefact the package saves.

A reader sees the old file or the new one, never a part: the data goes to a temporary file in the
same folder, which ``os.replace`` then puts in place (a rename within one file system). ``fsync``
also makes the new file survive a crash of the machine, at a cost of milliseconds; the rename alone
is enough for a process that is interrupted (a tournament writing one record per game skips it).
"""

from __future__ import annotations

import os
import tempfile


def atomic_write(path: str | os.PathLike, data: bytes | str, fsync: bool = True) -> None:
    """Write ``data`` (text as UTF-8) to ``path``, atomically; missing folders are made."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=os.path.splitext(str(path))[1] + ".part", dir=folder)
    try:
        if isinstance(data, bytes):
            f = os.fdopen(fd, "wb")
        else:
            f = os.fdopen(fd, "w", encoding="utf-8")
        with f:
            f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
