"""Constructor options: declared once per game with a default, a check and the words for the error.

A game's descriptor lists its options; :func:`validate_options` fills the defaults and refuses
unknown keywords and bad values with a :class:`~kortmiljo.core.errors.ConfigError` that names
what is allowed. :func:`parse_options` is the one ``--config KEY=VALUE`` parser of every command
line (``eval``, ``play``, ``train`` and the benchmarks).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import ConfigError


@dataclass(frozen=True)
class Option:
    """One constructor option: its default, a validity check and the words for the error."""

    default: Any
    check: Callable[[Any], bool]
    allowed: str


def is_int(v: Any) -> bool:
    """An int or numpy integer, not a bool (``True`` is an int to Python, never to an option)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


@dataclass(frozen=True)
class int_in:  # noqa: N801  (reads as the check it is: int_in(2, 5))
    """An int (not a bool) in ``lo..hi`` (``hi`` None: no upper bound). Picklable, like every check here,
    so that descriptors and configured games pickle."""

    lo: int
    hi: int | None = None

    def __call__(self, v: Any) -> bool:
        return is_int(v) and self.lo <= v and (self.hi is None or v <= self.hi)


@dataclass(frozen=True)
class one_of:  # noqa: N801
    """Equal to one of ``values`` and of a matching kind: ``3.0`` is not the player count ``3``,
    ``True`` is not ``1``; an int is accepted where the allowed value is a float of equal value."""

    values: tuple

    def __init__(self, *values: Any):
        object.__setattr__(self, "values", values)

    def __call__(self, v: Any) -> bool:
        for x in self.values:
            if isinstance(x, bool) or isinstance(v, (bool, np.bool_)):
                if v is x or (isinstance(v, np.bool_) and bool(v) is x):
                    return True
            elif is_int(x):
                if is_int(v) and v == x:
                    return True
            elif isinstance(x, float):
                if (is_int(v) or isinstance(v, (float, np.floating))) and v == x:
                    return True
            elif type(v) is type(x) and v == x:
                return True
        return False


def is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_))


@dataclass(frozen=True)
class optional:  # noqa: N801
    """``check``, or None."""

    check: Callable[[Any], bool]

    def __call__(self, v: Any) -> bool:
        return v is None or self.check(v)


def validate_options(game: str, options: Mapping[str, Option], given: Mapping[str, Any]) -> dict[str, Any]:
    """Fill defaults and check every value; unknown keywords and bad values raise ConfigError."""
    if not isinstance(given, Mapping):
        raise ConfigError(f"{game}: options must be a mapping of names to values, got {given!r}")
    unknown = sorted(str(k) for k in set(given) - set(options))
    if unknown:
        raise ConfigError(f"{game}: unknown option(s) {', '.join(unknown)}; allowed options: {', '.join(options)}")
    config = {}
    for name, opt in options.items():
        value = given.get(name, opt.default)
        if not opt.check(value):
            raise ConfigError(f"{game}: {name}={value!r} is not allowed; {name} must be {opt.allowed}")
        config[name] = value
    return config


# ---- the command lines' --config KEY=VALUE ---------------------------------------------------------

_KEY_START = re.compile(r",(?=\s*[A-Za-z_]\w*\s*=)")  # a comma that starts the next key=value


def parse_scalar(text: str) -> Any:
    """``3`` → 3, ``0.5`` → 0.5, ``true``/``false``, ``none``/``null`` → None, anything else the string."""
    t = text.strip()
    low = t.lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(t)
        except ValueError:
            pass
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    return t


def parse_value(text: str) -> Any:
    """A ``--config`` value: a scalar (:func:`parse_scalar`), or a tuple written ``a,b,c``,
    ``(a,b,c)`` or ``[a,b,c]`` (``()`` is the empty tuple)."""
    t = text.strip()
    bracketed = len(t) >= 2 and (t[0], t[-1]) in (("(", ")"), ("[", "]"))
    if bracketed:
        t = t[1:-1].strip()
        if not t:
            return ()
    if bracketed or "," in t:
        return tuple(parse_scalar(p) for p in t.split(",") if p.strip())
    return parse_scalar(t)


def parse_options(items: Iterable[str] | None) -> dict[str, Any]:
    """``["num_players=3", "exchange_quota=(5,4,3)"]`` or ``["a=1,b=x"]`` → a dict of option values.

    Each item holds one or more ``key=value`` pairs; a comma followed by ``name=`` starts the
    next pair, any other comma belongs to a tuple value. A malformed item raises ``ValueError``.
    """
    out: dict[str, Any] = {}
    for item in items or []:
        for part in _KEY_START.split(item):
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or not key.isidentifier():
                raise ValueError(f"--config takes key=value pairs (e.g. num_players=3), got {part!r}")
            out[key] = parse_value(value)
    return out
