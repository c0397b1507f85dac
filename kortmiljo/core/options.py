"""Constructor options: declared once per game with a default, a check and the words for the error.

A game's descriptor lists its options; :func:`validate_options` fills the defaults and refuses
unknown keywords and bad values with a :class:`~kortmiljo.core.errors.ConfigError` that names
what is allowed. :func:`parse_options` is the one ``--config KEY=VALUE`` parser of every command
line (``eval``, ``play``, ``train`` and the benchmarks).

**Bounds are declared.** Every number an option takes has a maximum in its check (:class:`int_in`
requires one), which :attr:`Option.maximum` reads and the option's ``allowed`` words state, so
that a size from a user (a bet range, a deal cap) is refused before anything is built from it.
An error shows a value of any size in a few words (``an int of 401 digits``), and ``--config``
reads numbers written in ASCII digits only, of at most :data:`MAX_INT_DIGITS` digits.
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

import numpy as np

from .errors import ConfigError
from .jsonsafe import MAX_INT_DIGITS


@dataclass(frozen=True)
class Option:
    """One constructor option: its default, a validity check and the words for the error.

    ``allowed`` says what the check accepts, its maximum included (``"an int from 1 to 100"``).
    """

    default: Any
    check: Callable[[Any], bool]
    allowed: str

    @property
    def maximum(self) -> int | float | None:
        """The largest number the option accepts, alone or in a list (None: it takes no number);
        declared by the check (:class:`int_in`, :class:`one_of` …). A plain function as a check
        declares none, so it must refuse every number."""
        return getattr(self.check, "maximum", None)


def is_int(v: Any) -> TypeGuard[int | np.integer]:
    """An int or numpy integer, not a bool (``True`` is an int to Python, never to an option)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_number(v: Any) -> bool:
    return is_int(v) or isinstance(v, (float, np.floating))


@dataclass(frozen=True)
class int_in:  # noqa: N801  (reads as the check it is: int_in(2, 5))
    """An int (not a bool) in ``lo..hi``. Both bounds are required, so that no option takes an
    unbounded size. Picklable, like every check here, so that descriptors and configured games pickle."""

    lo: int
    hi: int

    def __post_init__(self):
        if not (is_int(self.lo) and is_int(self.hi) and self.lo <= self.hi):
            raise ValueError(f"int_in takes two ints lo <= hi, got {self.lo!r}, {self.hi!r}")

    @property
    def maximum(self) -> int:
        return self.hi

    def __call__(self, v: Any) -> bool:
        return bool(is_int(v) and self.lo <= v <= self.hi)


@dataclass(frozen=True)
class one_of:  # noqa: N801
    """Equal to one of ``values`` and of a matching kind: ``3.0`` is not the player count ``3``,
    ``True`` is not ``1``; an int is accepted where the allowed value is a float of equal value."""

    values: tuple

    def __init__(self, *values: Any):
        object.__setattr__(self, "values", values)

    @property
    def maximum(self) -> int | float | None:
        numbers = [x for x in self.values if _is_number(x)]
        return max(numbers) if numbers else None

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

    @property
    def maximum(self) -> int | float | None:
        return getattr(self.check, "maximum", None)

    def __call__(self, v: Any) -> bool:
        return v is None or self.check(v)


@dataclass(frozen=True)
class any_of:  # noqa: N801
    """What any of ``checks`` accepts (``any_of(one_of("auto"), int_in(1, 100))``)."""

    checks: tuple

    def __init__(self, *checks: Callable[[Any], bool]):
        object.__setattr__(self, "checks", checks)

    @property
    def maximum(self) -> int | float | None:
        found = [m for m in (getattr(c, "maximum", None) for c in self.checks) if m is not None]
        return max(found) if found else None

    def __call__(self, v: Any) -> bool:
        return any(c(v) for c in self.checks)


@dataclass(frozen=True)
class seq_of:  # noqa: N801
    """A list or tuple of exactly ``length`` values, each accepted by ``check``."""

    check: Callable[[Any], bool]
    length: int

    @property
    def maximum(self) -> int | float | None:
        return getattr(self.check, "maximum", None)

    def __call__(self, v: Any) -> bool:
        return isinstance(v, (list, tuple)) and len(v) == self.length and all(self.check(x) for x in v)


@dataclass(frozen=True)
class str_list:  # noqa: N801
    """A list or tuple of at most ``most`` strings of at most ``longest`` characters each (card or
    rank names): a list of names is bounded as a number is."""

    most: int
    longest: int = 20

    def __call__(self, v: Any) -> bool:
        return (
            isinstance(v, (list, tuple))
            and len(v) <= self.most
            and all(isinstance(x, str) and len(x) <= self.longest for x in v)
        )


# ---- values in errors ------------------------------------------------------------------------------


def int_digits(n: int) -> int:
    """The decimal digits of ``n`` (the sign not counted), without ``str``, which Python refuses
    for an int of more than 4,300 digits."""
    n = abs(int(n))
    if n < 10:
        return 1
    d = int((n.bit_length() - 1) * math.log10(2)) + 1  # a lower bound, or one more where rounding tips it
    if n < 10 ** (d - 1):
        d -= 1
    return d + 1 if n >= 10**d else d


class _Short(reprlib.Repr):
    """``repr`` cut short: long strings and lists abbreviated, a long int told by its digits."""

    def __init__(self):
        super().__init__()
        self.maxstring = self.maxother = 60
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = self.maxfrozenset = 8
        self.maxlevel = 3

    def repr_int(self, x: int, level: int) -> str:
        return f"<an int of {int_digits(x):,} digits>" if abs(x) >= 10**20 else repr(x)


def short_repr(value: Any) -> str:
    """``repr(value)`` for an error message: a few words whatever the value's size
    (``<an int of 401 digits>``, ``'xxxxxxxxxxxx...xxxxxxxxxxxx'``, ``[1, 2, 3, ...]``)."""
    return _Short().repr(value)


def names_of(keys: list[Any], most: int = 8) -> str:
    """Keys for an error message, sorted and comma-separated: the first ``most``, then how many more."""
    shown = sorted(k if isinstance(k, str) and len(k) <= 60 else short_repr(k) for k in keys)
    more = f" and {len(keys) - most:,} more" if len(keys) > most else ""
    return ", ".join(shown[:most]) + more


def validate_options(game: str, options: Mapping[str, Option], given: Mapping[str, Any]) -> dict[str, Any]:
    """Fill defaults and check every value; unknown keywords and bad values raise ConfigError.

    Nothing is built from a value before its check: a size past its option's maximum is refused here."""
    if not isinstance(given, Mapping):
        raise ConfigError(f"{game}: options must be a mapping of names to values, got {short_repr(given)}")
    unknown = [k for k in given if k not in options]
    if unknown:
        raise ConfigError(f"{game}: unknown option(s) {names_of(unknown)}; allowed options: {', '.join(options)}")
    config = {}
    for name, opt in options.items():
        value = given.get(name, opt.default)
        if not opt.check(value):
            raise ConfigError(f"{game}: {name}={short_repr(value)} is not allowed; {name} must be {opt.allowed}")
        config[name] = value
    return config


# ---- the command lines' --config KEY=VALUE ---------------------------------------------------------

_KEY_START = re.compile(r",(?=\s*[A-Za-z_]\w*\s*=)")  # a comma that starts the next key=value
# numbers in ASCII digits only: int() and float() also read "١٢" (Arabic-Indic digits) as 12
_INT = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def parse_int(text: str, max_digits: int = MAX_INT_DIGITS) -> int | None:
    """``text`` as an int written in ASCII digits (an optional sign, ``_`` between digits), else None;
    ``ValueError`` for one of more than ``max_digits`` digits, before it is converted."""
    t = text.strip()
    if not _INT.fullmatch(t):
        return None
    digits = sum(c.isdigit() for c in t)
    if digits > max_digits:
        raise ValueError(f"an int of {digits:,} digits is too long (at most {max_digits} digits are read)")
    return int(t)


def parse_scalar(text: str) -> Any:
    """``3`` → 3, ``0.5`` → 0.5, ``true``/``false``, ``none``/``null`` → None, anything else the string.

    Numbers are read in ASCII digits only (``"١٢"`` stays a string); an int of more than
    :data:`MAX_INT_DIGITS` digits or a float out of range (``1e999``) raises ``ValueError``.
    """
    t = text.strip()
    low = t.lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "false"):
        return low == "true"
    number = parse_int(t)
    if number is not None:
        return number
    if _FLOAT.fullmatch(t):
        x = float(t)
        if not math.isfinite(x):
            raise ValueError(f"the number {t[:24]}{'…' if len(t) > 24 else ''} is out of a float's range")
        return x
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
    next pair, any other comma belongs to a tuple value. A malformed item, or a number
    :func:`parse_scalar` refuses, raises ``ValueError`` in one line that names the key.
    """
    out: dict[str, Any] = {}
    for item in items or []:
        for part in _KEY_START.split(item):
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or not key.isidentifier():
                raise ValueError(f"--config takes key=value pairs (e.g. num_players=3), got {short_repr(part)}")
            try:
                out[key] = parse_value(value)
            except ValueError as err:
                raise ValueError(f"--config {key}: {err}") from None
    return out
