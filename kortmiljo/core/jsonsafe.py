"""Reading JSON that someone else wrote: every document the package loads goes through :func:`loads`.

Python's ``json`` accepts what no file of ours holds and fails on some of it with errors that are
not ``ValueError``: ``NaN`` and ``Infinity``, ``1e999`` (a float that is infinite), integers of
thousands of digits (``int()`` refuses past 4,300 digits, and printing one fails later), and
nesting deep enough to raise ``RecursionError``. :func:`loads` refuses each of them up front with
one :class:`JSONError` (a ``ValueError``) that says what was wrong and what is allowed.
:func:`check` holds a value built in Python (a parsed request body, a dict a caller made) to the
same bounds, for loaders that take documents as well as text:

========================  ==========================  ==========================================
bound                     default                     why
========================  ==========================  ==========================================
``max_bytes``             none (the caller's)         checked before parsing, by every loader
``max_depth``             :data:`MAX_DEPTH` = 32      our deepest document (a record) nests 5 deep
``max_int_digits``        :data:`MAX_INT_DIGITS` = 40 a 128-bit seed has 39 digits
non-finite numbers        refused                     ``NaN``, ``Infinity``, ``1e999``
repeated keys             refused (``unique_keys``)   ``{"a": 1, "a": 2}`` means two things
========================  ==========================  ==========================================
"""

from __future__ import annotations

import json
import math
from numbers import Integral, Real
from typing import Any

MAX_DEPTH = 32
MAX_INT_DIGITS = 40


class JSONError(ValueError):
    """A JSON document that is malformed or past one of :func:`loads`' bounds."""


def _no_constant(name: str):
    raise JSONError(f"{name} is not allowed (numbers must be finite)")


def _depth(doc: Any, limit: int) -> int:
    """The nesting depth of ``doc`` (a scalar is 0), iteratively; stops counting past ``limit``."""
    deepest = 0
    stack = [(doc, 0)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, (dict, list)):
            d += 1
            deepest = max(deepest, d)
            if deepest > limit:
                return deepest
            stack.extend((v, d) for v in (x.values() if isinstance(x, dict) else x))
    return deepest


def check(doc: Any, *, what: str = "the document", max_depth: int = MAX_DEPTH,
          max_int_digits: int = MAX_INT_DIGITS) -> None:  # fmt: skip
    """Refuse (:class:`JSONError`, starting with ``what``) a value that :func:`loads` would not give:
    nesting deeper than ``max_depth``, an integer of more than ``max_int_digits`` digits, a number
    that is not finite. Iterative, so no depth raises ``RecursionError``; other types pass unchecked."""
    limit = 10**max_int_digits
    stack = [(doc, 0)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, (str, bool)) or x is None:
            continue
        if isinstance(x, Integral):
            if not -limit < int(x) < limit:
                raise JSONError(f"{what}: an integer of more than {max_int_digits} digits is not allowed")
        elif isinstance(x, Real):
            if not math.isfinite(x):
                raise JSONError(f"{what}: the number {x} is not finite")
        elif isinstance(x, (dict, list, tuple)):
            if d + 1 > max_depth:
                raise JSONError(f"{what}: nested more than {max_depth} deep; at most {max_depth} levels are allowed")
            stack.extend((v, d + 1) for v in (x.values() if isinstance(x, dict) else x))


def loads(
    text: str | bytes,
    *,
    what: str = "the document",
    max_bytes: int | None = None,
    max_depth: int = MAX_DEPTH,
    max_int_digits: int = MAX_INT_DIGITS,
    unique_keys: bool = True,
) -> Any:
    """``json.loads`` within bounds (see the module docstring); ``what`` starts every error."""
    if isinstance(text, bytes):
        if max_bytes is not None and len(text) > max_bytes:
            raise JSONError(f"{what}: {len(text):,} bytes; at most {max_bytes:,} are allowed")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise JSONError(f"{what}: not UTF-8 text") from None
    elif max_bytes is not None and len(text) > max_bytes:  # characters: at least as many bytes
        raise JSONError(f"{what}: {len(text):,} characters; at most {max_bytes:,} bytes are allowed")

    def parse_int(s: str) -> int:
        digits = len(s) - (s[0] == "-")
        if digits > max_int_digits:
            raise JSONError(f"an integer of {digits:,} digits; at most {max_int_digits} are allowed")
        return int(s)

    def parse_float(s: str) -> float:
        x = float(s)
        if not math.isfinite(x):
            raise JSONError(f"the number {s[:24]}{'…' if len(s) > 24 else ''} is not finite")
        return x

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if unique_keys and k in out:
                raise JSONError(f"the key {k[:40]!r} appears twice in one object")
            out[k] = v
        return out

    try:
        doc = json.loads(
            text, parse_int=parse_int, parse_float=parse_float, parse_constant=_no_constant, object_pairs_hook=pairs
        )
    except JSONError as err:
        raise JSONError(f"{what}: {err}") from None
    except json.JSONDecodeError as err:
        raise JSONError(f"{what}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})") from None
    except RecursionError:
        raise JSONError(f"{what}: nested more than {max_depth} deep; at most {max_depth} levels are allowed") from None
    except ValueError as err:  # anything else json itself refuses
        raise JSONError(f"{what}: not valid JSON ({err})") from None
    if _depth(doc, max_depth) > max_depth:
        raise JSONError(f"{what}: nested more than {max_depth} deep; at most {max_depth} levels are allowed")
    return doc


__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "JSONError", "check", "loads"]
