"""The text form of a record, for people: tag lines, then each deal's hands and its moves.

Like PBN and PHH, a text record opens with ``[Tag "value"]`` lines (game, configuration, seats,
result), then gives each deal: who dealt, the cards each holder received (``?`` for a card the
viewer never located), and the moves by phase, trick by trick where tricks are played and turn by
turn otherwise, with card symbols. A move's ``(sees …)`` lists the cards the viewer located by it:
a drawn card, a card turned face up. The open view shows every card, and for each move what its
mover located; a seat's view (``--seat``) is exactly the text of the record redacted for that seat.

**Safe to print.** Every line goes through :func:`kortmiljo.core.errors.printable`: a seat's or an
agent's name, an action, a phase or any other string from the file reaches the terminal with its
control characters escaped (``\\x1b``, ``\\n``, ``\\u202e``), so it cannot recolour the screen, move
the cursor, reorder the text or start a line of its own (a forged ``[Result …]``).

**A redacted record says so.** A seat's view, whether made here or loaded from a redacted file,
opens with a line of its own, before the tags: ``REDACTED record: player_1's view, not the full
game; …``. A redacted file cannot be checked against the cards it hides, so it must never pass
for a full record.
"""

from __future__ import annotations

import json

from ..core.errors import printable
from .format import Record, RecordError, check_game
from .redact import redact, seat_index, views


def _pretty(game, code: str | None) -> str:
    if code is None:
        return "?"
    try:
        return game.deck.pretty(game.deck.parse(code))
    except ValueError:
        return code


def _move(game, name: str) -> str:
    """``play:QS`` → ``play Q♠``; a part after ``:`` that is not a card stays as it is."""
    head, sep, tail = name.partition(":")
    if not sep:
        return name
    card = game.named_card(name)
    return f"{head} {tail if card is None else _pretty(game, card)}"


def _number(x: float) -> str:
    return f"{x:+.3f}".rstrip("0").rstrip(".") if x != int(x) else f"{int(x):+d}"


def to_text(
    record: Record,
    seat: int | str | None = None,
    step: int | None = None,
    *,
    open_view: tuple[list[str], list[list[str]]] | None = None,
) -> str:
    """The text form of ``record``: the open view, or what ``seat`` saw (hidden cards as ``?``).

    ``step`` stops after that many moves. A redacted record can only be shown from its own seat.
    ``open_view``: the names and ``seen`` of :func:`~kortmiljo.records.redact.views` for the open
    view, if the caller keeps them (a replay of the whole record otherwise).
    """
    game = check_game(record)
    if record.redacted_for is not None:
        if seat is not None and seat_index(record, seat) != seat_index(record, record.redacted_for):
            raise RecordError(
                f"{record.where()}: the record is redacted for {record.redacted_for}; it has no other view"
            )
        view = record
    elif seat is not None:
        view = redact(record, seat)
    else:
        view = None
    bad_step = isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= len(record.actions)
    if step is not None and bad_step:
        raise RecordError(f"{record.where()}: step must be a move 0..{len(record.actions)}, got {step!r}")
    if view is None:
        names, seen = open_view if open_view is not None else views(record, lambda mover: mover)[1:]
        decks = [d["deck"] for d in record.deals]
        title = "open"
    else:
        decks = [d["deck"] for d in view.deals]
        names = [a["action"] for a in view.actions]
        seen = [a.get("seen", []) for a in view.actions]
        title = view.redacted_for or "?"  # a seat's view always names its seat
    if view is not None:
        record = view  # its tags too: a seat's view has no seed
    seats = "; ".join(f"{k}: {v or '?'}" for k, v in record.seats.items())
    lines = [redacted_line(title)] if view is not None else []
    lines += [
        f'[Game "{game.definition.display_name}"]',
        f'[Env "{record.env}"]',
        f'[Config "{json.dumps(record.config, ensure_ascii=False, sort_keys=True)}"]',
        f'[Seats "{seats}"]',
    ]
    if record.seed is not None:
        lines.append(f'[Seed "{record.seed}"]')
    if record.carry is not None:
        lines.append(f'[Carry "{json.dumps(record.carry)}"]')
    lines += [
        f'[Created "{record.created}"]',
        f'[View "{title}"]',
        f'[Status "{record.status}"]',
        f'[Result "{"; ".join(k + " " + _number(v) for k, v in record.rewards.items())}"]',
    ]
    for k, info in record.infos.items():
        if info:
            fields = ", ".join(f"{a}={json.dumps(b, ensure_ascii=False)}" for a, b in info.items())
            lines.append(f'[Info "{k}: {fields}"]')
    last = len(record.actions) if step is None else step
    acts = record.actions if view is None else view.actions
    shown_deals = sorted({a["deal"] for a in acts[:last]} | {0})
    for d in shown_deals:
        dealer = record.deals[d]["dealer"]
        lines += ["", f"Deal {d + 1}, dealer player_{dealer}"]
        groups: dict[str, list[str]] = {}
        for holder, card in zip(game.deal_holders(dealer), decks[d], strict=True):
            groups.setdefault(holder, []).append(_pretty(game, card))
        width = max(len(h) for h in groups)
        lines += [f"  {h.ljust(width)}  {' '.join(cards)}" for h, cards in groups.items()]
        lines += _moves(game, [(i, acts[i], names[i], seen[i]) for i in range(last) if acts[i]["deal"] == d])
    if step is not None and step < len(record.actions):
        lines += ["", f"(stopped after move {step} of {len(record.actions)})"]
    return "\n".join(map(printable, lines)) + "\n"


def redacted_line(seat: str) -> str:
    """The line that opens the text of a redacted record (a seat's view)."""
    return (
        f"REDACTED record: {seat}'s view, not the full game; the cards {seat} never located are hidden (?), "
        "and the moves and results could be checked only against what that seat saw"
    )


def _moves(game, moves: list[tuple[int, dict, str, list[str]]]) -> list[str]:
    """A deal's moves: one line per trick, else one line per run of moves by one seat (a
    Spøkelse turn, a Sprøyte exchange), under a heading that names the phases of the line."""
    rows: list[tuple[str, str]] = []  # (heading, line)
    run: list[tuple[int, dict, str]] = []

    def flush() -> None:
        if not run:
            return
        i0, a0, _ = run[0]
        phases = list(dict.fromkeys(a["phase"] for _, a, _ in run if a.get("phase")))
        if a0.get("trick") is not None:
            line = f"    trick {a0['trick'] + 1:>2}:" + "".join(f"  {a['seat']} {t}" for _, a, t in run)
        else:
            line = f"    {i0 + 1:>4}. {a0['seat']}  " + ", ".join(t for _, _, t in run)
        rows.append(("/".join(phases), line))
        run.clear()

    for i, a, name, seen in moves:
        text = _move(game, name)
        if a.get("trick") is not None:
            text = text.partition(" ")[2] or text  # in a trick the card says it all
            seen = [c for c in seen if c != game.named_card(name)]
        if seen:
            text += f" (sees {' '.join(_pretty(game, c) for c in seen)})"
        if run:
            prev = run[-1][1]
            same = (
                prev.get("trick") == a.get("trick") and prev.get("phase") == a.get("phase")
                if a.get("trick") is not None or prev.get("trick") is not None
                else prev["seat"] == a["seat"]
            )
            if not same:
                flush()
        run.append((i, a, text))
    flush()
    out, heading = [], None
    for head, line in rows:
        if head != heading and head:
            out.append(f"  {head}")
        heading = head
        out.append(line)
    return out
