"""The JSON the web app answers with (docs/web.md): the catalog, a game's view, a replay step.

Every function returns plain JSON values. A game's view during play holds only what the human
seat can locate: ``Engine.table(human)``, ``Engine.render(human)``, the human's legal moves, and
the log as the human saw it (kept by :class:`~kortmiljo.server.sessions.GameSession`). Once the
game has ended, the table and text are the open view and the summary lists every deal's hands.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from ..core.game import GameDef
from ..core.options import Option, any_of, int_in, is_bool, one_of, optional, seq_of, str_list
from ..records import Record, RecordError, redact, restore, to_text
from ..records.format import check_game, jsonable
from ..records.redact import seat_index, views
from ..records.replay import states
from .sessions import GameSession, label

MAX_CHOICES = 64  # more values than this are typed, not picked from a list


def _values(check: Any) -> tuple[list[Any], list[dict[str, Any]]] | None:
    """What ``check`` accepts, read from its declaration: ``(values, inputs)``, the single values
    it names (``one_of``, None of ``optional``, True and False of ``is_bool``) and the free inputs
    (an int range, a list of ints, a list of names). None: the check declares nothing readable."""
    if check is is_bool:
        return [True, False], []
    if isinstance(check, int_in):
        return [], [{"input": "int", "min": int(check.lo), "max": int(check.hi)}]
    if isinstance(check, one_of):
        return list(check.values), []
    if isinstance(check, optional):
        inner = _values(check.check)
        return None if inner is None else ([None, *inner[0]], inner[1])
    if isinstance(check, any_of):
        values: list[Any] = []
        inputs: list[dict[str, Any]] = []
        for c in check.checks:
            found = _values(c)
            if found is None:
                return None
            values += found[0]
            inputs += found[1]
        return values, inputs
    if isinstance(check, seq_of) and isinstance(check.check, int_in):
        return [], [
            {"input": "ints", "length": int(check.length), "min": int(check.check.lo), "max": int(check.check.hi)}
        ]
    if isinstance(check, str_list):
        return [], [{"input": "names", "most": int(check.most), "longest": int(check.longest)}]
    return None


def option_form(opt: Option, players: tuple[int, int] | None = None) -> dict[str, Any]:
    """How the page asks for one option, derived from its check (docs/web.md, "The catalog"):
    ``{"input": kind or None, "choices": [values], ...}``.

    ``choices`` are the single values the option takes (a select; True and False alone: a
    checkbox; one value alone: fixed, shown and not asked), ``input`` the one free input beside
    them: ``"int"`` with ``min``/``max``, ``"ints"`` (``length`` ints from ``min`` to ``max``),
    ``"names"`` (at most ``most`` names of at most ``longest`` characters) or ``"json"`` (any
    other value, typed as JSON). ``players``: the game's player range, for ``num_players``: one
    number is fixed, a range bounds the input. A check that declares nothing (a plain function)
    is asked about its default, None, True, False and the quoted words of ``allowed`` (Sprøyte's
    ``trump``: ``"S"``, ``"H"``, ``"D"``, ``"C"``); what it accepts of them are the choices. The
    server checks every value again."""
    if players is not None and players[0] == players[1]:
        return {"input": None, "choices": [players[0]]}
    found = _values(opt.check)
    if found is None:
        return _probed(opt)
    values, inputs = found
    if len(inputs) > 1 or len(values) > MAX_CHOICES:
        return {"input": "json", "choices": []}
    form: dict[str, Any] = {"input": None, "choices": jsonable(_unique(values))}
    if inputs:
        form.update(inputs[0])
        if players is not None and form["input"] == "int":
            form["min"], form["max"] = max(form["min"], players[0]), min(form["max"], players[1])
    return form


def _unique(values: Iterable[Any]) -> list[Any]:
    """Each value once, of each kind (``True`` and ``1`` are one value to Python, two to an option)."""
    out: list[Any] = []
    for v in values:
        if not any(type(u) is type(v) and u == v for u in out):
            out.append(v)
    return out


_QUOTED = re.compile(r'"([^"\\]{1,40})"')


def _probed(opt: Option) -> dict[str, Any]:
    """The form of an option whose check declares nothing: the candidates it accepts (see
    :func:`option_form`); a free JSON input beside them unless ``allowed`` names strings it takes."""
    words = _QUOTED.findall(opt.allowed)[:MAX_CHOICES]
    candidates = [opt.default, None, True, False, *words]
    taken = _unique(v for v in candidates if _accepts(opt.check, v))
    if taken and any(isinstance(v, str) for v in taken):
        return {"input": None, "choices": jsonable(taken)}
    if taken and all(isinstance(v, bool) for v in taken) and len(taken) == 2:
        return {"input": None, "choices": [True, False]}
    return {"input": "json", "choices": jsonable([v for v in taken if v is None])}


def _accepts(check: Any, value: Any) -> bool:
    """``check(value)``; False where the check fails on a value meant for another."""
    try:
        return bool(check(value))
    except Exception:
        return False


def catalog(definitions: Iterable[GameDef], agents: Sequence[str]) -> dict[str, Any]:
    """``GET /api/catalog``: every game with its player range, options (each with its form,
    :func:`option_form`) and example configurations, and the agent names the server plays."""
    games = []
    for d in definitions:
        options = {
            k: {
                "default": jsonable(o.default),
                "allowed": o.allowed,
                "form": option_form(o, d.players if k == "num_players" else None),
            }
            for k, o in d.options.items()
        }
        games.append(
            {
                "name": d.name,
                "display_name": d.display_name,
                "players": list(d.players),
                "options": options,
                "examples": [jsonable(dict(x)) for x in d.examples],
            }
        )
    return {"games": games, "agents": list(agents)}


def game_view(s: GameSession) -> dict[str, Any]:
    """The view of a game for its human seat (docs/web.md, "The game view")."""
    e, g = s.engine, s.game
    over = s.over
    viewer = None if over else s.seat
    names = g.action_names
    legal = []
    if s.human_to_move:
        legal = [{"index": int(a), "name": names[a], "label": label(g, names[a])} for a in e.legal_actions()]
    n = g.num_players
    return {
        "id": s.id,
        "game": g.name,
        "display_name": g.definition.display_name,
        "config": jsonable(dict(g.config)),
        "seat": f"player_{s.seat}",
        "seats": dict(s.seats),
        "status": s.status,
        "to_move": None if over else f"player_{e.current_player}",
        "legal": legal,
        "table": jsonable(e.table(viewer)),
        "text": e.render(viewer),
        "log": list(s.log),
        "rewards": {f"player_{i}": float(s.totals[i]) for i in range(n)},
        "infos": s.infos(),
        "summary": s.summary(),
    }


def record_entry(name: str, record: Record) -> dict[str, Any]:
    """One line of ``GET /api/records``."""
    return {
        "name": name,
        "game": record.game,
        "status": record.status,
        "moves": len(record.actions),
        "seats": dict(record.seats),
    }


def _log_entry(game, i: int, a: dict[str, Any], name: str, seen: list[str]) -> dict[str, Any]:
    return {
        "n": i,
        "seat": a["seat"],
        "action": name,
        "label": label(game, name),
        "seen": list(seen),
        "deal": a["deal"],
        "phase": a.get("phase"),
        "trick": a.get("trick"),
    }


def record_log(record: Record, seat: int | None) -> list[dict[str, Any]]:
    """Every move of ``record`` as ``seat`` saw it (the log of a game view); ``seat`` None: the
    open view (every move by its name, ``seen`` what its mover located by it). A redacted record
    has only its own seat's view."""
    game = check_game(record)
    if record.redacted:
        return [_log_entry(game, i, a, a["action"], a.get("seen", [])) for i, a in enumerate(record.actions)]
    if seat is None:
        _, names, seen = views(record, lambda mover: mover)
        return [_log_entry(game, i, a, names[i], seen[i]) for i, a in enumerate(record.actions)]
    view = redact(record, seat)
    return [_log_entry(game, i, a, a["action"], a["seen"]) for i, a in enumerate(view.actions)]


def dealt_table(record: Record, step: int, seat: int) -> dict[str, Any]:
    """A table for a redacted record, which cannot be restored: the hands of the deal move ``step``
    is in, *as dealt* (``null`` for a card the record hides), from the record's decks and the
    game's ``deal_holders``. ``facts.view`` says so."""
    game = check_game(record)
    acts = record.actions
    d = acts[step - 1]["deal"] if step > 0 else 0
    deal = record.deals[d]
    dealer = deal["dealer"]
    n = game.num_players
    seats = [{"seat": f"player_{s}", "role": None, "cards": [], "labels": None, "stats": {}, "status": None}
             for s in range(n)]  # fmt: skip
    labels: list[list[str]] = [[] for _ in range(n)]
    piles: dict[str, list] = {}
    for holder, card in zip(game.deal_holders(dealer), deal["deck"], strict=True):
        who, _, part = holder.partition(" ")
        if who.startswith("player_") and who[7:].isdigit() and int(who[7:]) < n:
            s = int(who[7:])
            seats[s]["cards"].append(card)
            labels[s].append(part or "hand")
        else:
            piles.setdefault(holder, []).append(card)
    for s in range(n):
        if any(x != "hand" for x in labels[s]):
            seats[s]["labels"] = labels[s]
    seats[dealer]["role"] = "dealer"
    last = acts[step - 1] if step > 0 else None
    to_move = acts[step]["seat"] if step < len(acts) else None
    return {
        "phase": None if last is None else last.get("phase"),
        "dealer": f"player_{dealer}",
        "to_move": to_move,
        "seats": seats,
        "piles": [{"name": k, "cards": v, "count": len(v)} for k, v in piles.items()],
        "trick": [],
        "facts": {"view": "as dealt", "deal": d + 1, "seen_by": record.redacted_for},
    }


class Positions:
    """The positions of one full record, restored once: an engine clone every ``every`` moves,
    made as far as a request has needed, and the seat views of its text. :meth:`engine_at` then
    costs at most ``every`` engine steps, whatever the record's length, and :meth:`text` no replay
    at all (the text of a seat's view is that of the record redacted for the seat, kept here)."""

    def __init__(self, record: Record, every: int = 128):
        self.record, self.every = record, every
        self.game = check_game(record)
        self._states = states(record)
        self._marks: list = []  # the engine after move i * every
        self._views: dict[int, Record] = {}
        self._open: tuple[list[str], list[list[str]]] | None = None
        self._lock = threading.Lock()

    def engine_at(self, step: int):
        """A fresh engine after move ``step`` (0 <= step <= len(actions), checked by the caller)."""
        with self._lock:
            if not self._marks:
                self._marks.append(next(self._states).clone())
            while len(self._marks) <= step // self.every:
                engine = None
                for _ in range(self.every):
                    engine = next(self._states)
                self._marks.append(engine.clone())
            engine = self._marks[step // self.every].clone()
        acts = self.record.actions
        for i in range(step - step % self.every, step):
            engine.step(self.game.action_from_string(acts[i]["action"]))
        return engine

    def open_view(self) -> tuple[list[str], list[list[str]]]:
        """The move names and ``seen`` of the open view (:func:`views`), made once."""
        if self._open is None:
            self._open = views(self.record, lambda mover: mover)[1:]
        return self._open

    def view(self, seat: int) -> Record:
        """The record redacted for ``seat``, made once."""
        with self._lock:
            found = self._views.get(seat)
        if found is None:
            found = redact(self.record, seat)
            with self._lock:
                self._views[seat] = found
        return found


def replay_step(
    record: Record,
    step: int,
    seat: int | str | None,
    log: list[dict[str, Any]] | None = None,
    cache: Positions | None = None,
) -> dict[str, Any]:
    """``GET /api/replays/{name}/step/{k}``: the position after move ``step`` from ``seat``'s view
    (None: the open view). A full record is restored there (``Engine.table``); a redacted one has
    only its own seat's view and cannot be restored, so its table is the deal as dealt
    (:func:`dealt_table`). ``log``: :func:`record_log` of that view, and ``cache``: the record's
    :class:`Positions`, if the caller keeps them (then a step costs a bounded number of engine
    steps, not a replay of the whole record). Bad steps and seats raise ``RecordError`` (a
    ``ValueError``)."""
    moves = len(record.actions)
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= moves:
        raise RecordError(f"step must be a move 0..{moves}, got {step!r}")
    if record.redacted:
        own = seat_index(record, record.redacted_for)
        if seat is not None and seat_index(record, seat) != own:
            raise RecordError(
                f"the record is redacted for {record.redacted_for}; it has no other view (seat must be "
                f"{record.redacted_for} or none)"
            )
        log = (record_log(record, own) if log is None else log)[:step]
        text = to_text(record, seat=own, step=step)
        return {"table": dealt_table(record, step, own), "text": text, "log": log, "move": step, "moves": moves}
    s = None if seat is None else seat_index(record, seat)
    engine = restore(record, step=step).unwrapped.engine if cache is None else cache.engine_at(step)
    ended = engine.terminal or engine.truncated
    viewer = None if s is None or ended else s  # once it has ended the rules have shown every card
    if cache is not None:
        text = (
            to_text(cache.view(s), seat=s, step=step)
            if s is not None
            else to_text(record, None, step, open_view=cache.open_view())
        )
    else:
        text = to_text(record, seat=s, step=step)
    return {
        "table": jsonable(engine.table(viewer)),
        "text": text,
        "log": (record_log(record, s) if log is None else log)[:step],
        "move": step,
        "moves": moves,
    }


__all__ = [
    "Positions",
    "catalog",
    "dealt_table",
    "game_view",
    "option_form",
    "record_entry",
    "record_log",
    "replay_step",
]
