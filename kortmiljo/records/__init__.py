"""Game records: save, share, replay and restore any episode (docs/records.md).

* :class:`RecordEpisode` records the episodes of any kortmiljo AEC env;
* :func:`load` / :func:`load_all` read a record file (JSON, or JSON Lines), validating it against
  the shipped JSON Schema and replaying its moves; :func:`save` writes one atomically;
* :func:`restore` gives a fresh env at any move, equal to the original run there;
* :func:`redact` gives the record as one seat knew it, the only form in which it should be shared;
* :func:`to_text` gives the text form people read (``kortmiljo replay FILE``).
"""

from .files import load, load_all, loads, save
from .format import FORMAT, FORMAT_VERSION, Record, RecordError, dumps, from_dict, schema
from .recorder import RecordEpisode, build_record
from .redact import redact
from .replay import restore, verify
from .text import to_text

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Record",
    "RecordEpisode",
    "RecordError",
    "build_record",
    "dumps",
    "redact",
    "from_dict",
    "load",
    "load_all",
    "loads",
    "restore",
    "save",
    "schema",
    "to_text",
    "verify",
]
