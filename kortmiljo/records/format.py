"""The record format: one episode as one JSON document, and files of one or many.

A record is what the tournament, ``kortmiljo play``, the replay viewer and research code
exchange: the configured game, every deal's stacked deck and dealer, every move by name, and
the result (docs/records.md). The JSON Schema ``record.schema.json`` beside this module is the
format's definition; :func:`from_dict` validates against it, then checks what a schema cannot
(a known game and options, decks that are permutations). Reading files, which also replays the
moves, is :mod:`kortmiljo.records.files`.

**Bounds.** A record is read only within these bounds, each checked before the work it limits
(sizes before parsing, counts before the schema and the replay), and refused past them with one
:class:`RecordError` that names the bound (docs/records.md, "Bounds"). The longest real records
are Spøkelse rounds cut by the default ``max_steps`` (5,000 moves) and long Sprøyte matches
(about 50 moves a deal; a match to 100 takes about 200 deals at the 99.9th percentile). Replaying
costs about 0.1 ms a move, so a record at the bounds loads in about 3 s and a file at the bounds
in about 15 s. Research code that reads larger ones may raise them (they are module constants,
read at call time).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..core import jsonsafe

FORMAT = "kortmiljo-record"
FORMAT_VERSION = 1
MAX_MOVES = 20_000  # moves of one record: 4x a Spøkelse round cut at its default max_steps (5,000)
MAX_DEALS = 1_000  # deals of one record: Femkortskille's largest max_deals; 5x a Sprøyte match to 100
MAX_RECORD_BYTES = 16 << 20  # one record's JSON (a .json file, a .jsonl line): MAX_MOVES at 800 bytes each
MAX_FILE_BYTES = 32 << 20  # a record file; a JSON Lines file of many records is read whole
MAX_RECORDS = 2_000  # records in one JSON Lines file (each costs a few ms to check, replay aside)
MAX_FILE_MOVES = 100_000  # moves of all the records of one file, counted before any is replayed
STATUSES = ("finished", "truncated", "unfinished")


class RecordError(ValueError):
    """A record that cannot be read or restored: says where (file, record, move) and what is wrong."""


@dataclass
class Record:
    """One episode (the fields of the JSON document; see ``record.schema.json``).

    ``deals[d]`` is ``{"dealer": k, "deck": [codes]}``; ``actions[i]`` is ``{"seat", "action",
    "deal"}`` plus the optional ``phase``, ``trick``, ``policy``, ``value`` (and ``seen`` in a
    redacted record). ``source`` says where a loaded record came from (for error messages); it is
    not part of the document.
    """

    game: str
    config: dict[str, Any]
    deals: list[dict[str, Any]]
    actions: list[dict[str, Any]]
    rewards: dict[str, float]
    infos: dict[str, dict[str, Any]]
    status: str
    seats: dict[str, str | None]
    game_version: int = 0
    env: str = ""
    seed: int | None = None
    carry: Any = None
    kortmiljo: str = ""
    created: str = ""
    redacted_for: str | None = None
    event: dict[str, Any] = field(default_factory=dict)
    source: str | None = field(default=None, compare=False, repr=False)

    @property
    def num_players(self) -> int:
        return len(self.seats)

    @property
    def redacted(self) -> bool:
        return self.redacted_for is not None

    def where(self, move: int | None = None) -> str:
        """``file``, ``file, move 12 (player_1 'play:QS')``: the prefix of every error about this record."""
        text = self.source or "record"
        if move is not None:
            text += f", move {move}"
            if 0 <= move < len(self.actions):
                a = self.actions[move]
                text += f" ({a.get('seat')} {a.get('action')!r})"
        return text

    def to_dict(self) -> dict[str, Any]:
        d = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "kortmiljo": self.kortmiljo,
            "game": self.game,
            "game_version": self.game_version,
            "env": self.env,
            "config": jsonable(self.config),
            "seats": dict(self.seats),
            "seed": self.seed,
            "created": self.created,
            "carry": jsonable(self.carry),
            "deals": [{"dealer": int(x["dealer"]), "deck": list(x["deck"])} for x in self.deals],
            "actions": self.actions,  # plain JSON values already (build_record and the parser make them)
            "status": self.status,
            "rewards": {k: float(v) for k, v in self.rewards.items()},
            "infos": jsonable(self.infos),
        }
        if self.redacted_for is not None:
            d["redacted_for"] = self.redacted_for
        if self.event:
            d["event"] = jsonable(self.event)
        return d


def jsonable(x: Any) -> Any:
    """``x`` as plain JSON values: numpy scalars and arrays to Python, tuples to lists, keys to str."""
    if isinstance(x, Mapping):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, np.generic):
        return x.item()
    return x


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# ---- validation -----------------------------------------------------------------------------
@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of the format (``record.schema.json``, shipped in the package)."""
    return json.loads((Path(__file__).with_name("record.schema.json")).read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    return jsonschema.Draft202012Validator(schema())


def _schema_error(err, where: str, doc: Mapping[str, Any]) -> RecordError:
    path = list(err.absolute_path)
    at = where
    if len(path) >= 2 and path[0] == "actions" and isinstance(path[1], int):
        at += f", move {path[1]}"
        path = path[2:]
    elif len(path) >= 2 and path[0] == "deals" and isinstance(path[1], int):
        at += f", deal {path[1]}"
        path = path[2:]
    field_name = ".".join(str(p) for p in path) or "the document"
    return RecordError(f"{at}: {field_name}: {err.message}")


_SEAT = re.compile(r"player_[0-9]+")
_ACTION_KEYS = frozenset(("seat", "action", "deal", "phase", "trick", "policy", "value", "seen"))


def _is_int(x: Any, lo: int = 0) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= lo


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_probability(x: Any) -> bool:
    return _is_number(x) and 0 <= x <= 1


def _plain_action(a: Any) -> bool:
    """Whether a move is certainly valid against the schema's ``actions`` items (a stricter
    reading of them: True only where the schema agrees, so False costs only the slow check)."""
    return (
        type(a) is dict
        and a.keys() <= _ACTION_KEYS
        and isinstance(a.get("seat"), str)
        and _SEAT.fullmatch(a["seat"]) is not None
        and isinstance(a.get("action"), str)
        and len(a["action"]) <= 100
        and _is_int(a.get("deal"))
        and (a.get("phase") is None or isinstance(a["phase"], str))
        and (a.get("trick") is None or _is_int(a["trick"]))
        and ("policy" not in a or (type(a["policy"]) is dict and all(map(_is_probability, a["policy"].values()))))
        and ("value" not in a or _is_number(a["value"]))
        and ("seen" not in a or (type(a["seen"]) is list and all(isinstance(c, str) for c in a["seen"])))
    )


def _plain_deal(d: Any) -> bool:
    """Whether a deal is certainly valid against the schema's ``deals`` items (as :func:`_plain_action`)."""
    return (
        type(d) is dict
        and d.keys() == {"dealer", "deck"}
        and _is_int(d["dealer"])
        and type(d["deck"]) is list
        and all(c is None or (isinstance(c, str) and len(c) <= 20) for c in d["deck"])
    )


def _schema_errors(doc: Mapping[str, Any]):
    """The schema's errors of ``doc``. jsonschema takes about 0.2 ms a move, so the moves and the
    later deals are checked by the plain checks above where they pass, and only the rest by it."""
    actions, deals = doc.get("actions"), doc.get("deals")
    if (
        type(actions) is list
        and type(deals) is list
        and deals
        and all(map(_plain_action, actions))
        and all(map(_plain_deal, deals[1:]))
    ):
        doc = {**doc, "actions": [], "deals": deals[:1]}
    return _validator().iter_errors(doc)


def check_bounds(doc: Mapping[str, Any], where: str) -> None:
    """Refuse a document past the bounds: more moves or deals than a record may hold, nesting,
    huge integers or numbers that are not finite (NaN in a ``policy``, ``value`` or ``event``)."""
    for key, bound, name in (("actions", MAX_MOVES, "MAX_MOVES"), ("deals", MAX_DEALS, "MAX_DEALS")):
        n = len(doc[key]) if isinstance(doc.get(key), list) else 0
        if n > bound:
            raise RecordError(f"{where}: {n:,} {key[:-1]}s; a record holds at most {bound:,} ({name})")
    try:
        jsonsafe.check(doc, what=where)
    except jsonsafe.JSONError as err:
        raise RecordError(str(err)) from None


def from_dict(doc: Any, source: str | None = None) -> Record:
    """A :class:`Record` from its JSON document, checked against the bounds, the schema and the game.

    Refused with :class:`RecordError` (naming ``source``, the move and what is wrong): not a
    kortmiljo record, a newer ``format_version``, past a bound (:func:`check_bounds`), a schema
    violation, an unknown game or option, a deck that is not a permutation of the game's deck,
    seats that do not match the game. The moves are checked by
    :func:`kortmiljo.records.replay.verify` (``load`` does both).
    """
    where = source or "record"
    if not isinstance(doc, Mapping):
        raise RecordError(f"{where}: a record is a JSON object, got {type(doc).__name__}")
    if doc.get("format") != FORMAT:
        raise RecordError(f"{where}: not a kortmiljo record (its format is {doc.get('format')!r}, expected {FORMAT!r})")
    version = doc.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT_VERSION:
        raise RecordError(
            f"{where}: format_version {version} is newer than this kortmiljo reads (up to {FORMAT_VERSION}); "
            "upgrade kortmiljo to read it"
        )
    check_bounds(doc, where)
    err = next(iter(sorted(_schema_errors(doc), key=lambda e: list(e.absolute_path))), None)
    if err is not None:
        raise _schema_error(err, where, doc)
    rec = Record(
        game=doc["game"],
        config=dict(doc["config"]),
        deals=[dict(d) for d in doc["deals"]],
        actions=[dict(a) for a in doc["actions"]],
        rewards=dict(doc["rewards"]),
        infos={k: dict(v) for k, v in doc["infos"].items()},
        status=doc["status"],
        seats=dict(doc["seats"]),
        game_version=doc["game_version"],
        env=doc["env"],
        seed=doc["seed"],
        carry=doc.get("carry"),
        kortmiljo=doc["kortmiljo"],
        created=doc["created"],
        redacted_for=doc.get("redacted_for"),
        event=dict(doc.get("event") or {}),
        source=source,
    )
    check_game(rec)
    return rec


def check_game(rec: Record):
    """The record's game, options, seats and decks agree with the registered game; the configured game."""
    from ..core.registry import game_names, load_game

    where = rec.where()
    if rec.game not in game_names():
        raise RecordError(f"{where}: unknown game {rec.game!r}; known games: {', '.join(game_names())}")
    try:
        game = load_game(rec.game, **rec.config)
    except (ValueError, TypeError) as err:
        raise RecordError(f"{where}: config: {err}") from None
    if rec.game_version != game.version:
        raise RecordError(
            f"{where}: the record is of {rec.game} v{rec.game_version}, this kortmiljo plays v{game.version} "
            "(its rules or observations differ; use the kortmiljo version that wrote it)"
        )
    seats = [f"player_{i}" for i in range(game.num_players)]
    for name, got in (("seats", rec.seats), ("rewards", rec.rewards), ("infos", rec.infos)):
        if sorted(got) != sorted(seats) and not (name == "infos" and not got):
            raise RecordError(f"{where}: {name} must name the seats {', '.join(seats)}, got {', '.join(got) or 'none'}")
    if rec.redacted_for is not None and rec.redacted_for not in seats:
        raise RecordError(f"{where}: redacted_for {rec.redacted_for!r} is not a seat ({', '.join(seats)})")
    for k, v in rec.rewards.items():
        if not math.isfinite(v):
            raise RecordError(f"{where}: rewards.{k} is {v}, not a finite number")
    state = game.new_state()
    for d, deal in enumerate(rec.deals):
        if not 0 <= deal["dealer"] < game.num_players:
            raise RecordError(f"{where}, deal {d}: dealer {deal['dealer']} is not a seat 0..{game.num_players - 1}")
        deck = deal["deck"]
        if rec.redacted:
            _check_partial_deck(state, deck, f"{where}, deal {d}")
            continue
        if any(c is None for c in deck):
            raise RecordError(f"{where}, deal {d}: deck has hidden cards (null) but the record is not redacted")
        try:
            state.check_episode(deck)
        except ValueError as err:
            raise RecordError(f"{where}, deal {d}: {err}") from None
    if rec.carry is not None and not rec.redacted:
        try:
            state.check_episode(carry=rec.carry)
        except ValueError as err:
            raise RecordError(f"{where}: {err}") from None
    for i, a in enumerate(rec.actions):
        if a["seat"] not in seats:
            raise RecordError(f"{rec.where(i)}: seat {a['seat']!r} is not a seat of this game ({', '.join(seats)})")
        if a["deal"] >= len(rec.deals):
            raise RecordError(f"{rec.where(i)}: deal {a['deal']} but the record has {len(rec.deals)} deals")
    return game


def _check_partial_deck(state, deck: list, where: str) -> None:
    """A redacted deck: the right length, and its known cards a sub-multiset of the game's deck."""
    if len(deck) != len(state.deck):
        raise RecordError(f"{where}: deck has {len(deck)} cards, the {state.deck.name} deck needs {len(state.deck)}")
    full = [state.deck.code(c) for c in state.deck.cards]
    left = {c: full.count(c) for c in full}
    for code in deck:
        if code is None:
            continue
        try:
            key = state.deck.code(state.deck.parse(code))
        except ValueError as err:
            raise RecordError(f"{where}: {err}") from None
        left[key] -= 1
        if left[key] < 0:
            raise RecordError(f"{where}: deck has card {code} more often than the {state.deck.name} deck")


# ---- files --------------------------------------------------------------------------------------
def dumps(record: Record, indent: int | None = None) -> str:
    """The record as JSON text: one line (as in a JSON Lines file; Python's fast C encoder), or
    indented with ``indent`` for reading (``kortmiljo replay`` is the view meant for people)."""
    return json.dumps(record.to_dict(), ensure_ascii=False, indent=indent, allow_nan=False)
