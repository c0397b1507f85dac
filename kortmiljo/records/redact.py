"""Sharing without leaking: :func:`redact` gives a record as one seat knew it.

The rule is the seat's own ``unseen``: a card keeps its place in a deal's deck only if the seat
could locate it as soon as the deal was dealt (its own hand, a card dealt face up). Every other
place is ``null``: the other seats' hands, the stock, the exchange pile, and also the places of
cards the seat locates only later (a card another seat plays): *where* such a card was dealt (from
that seat's hand, or drawn face down from the exchange pile) is what the seat never saw, so the
deck must not tell it. Those cards appear in the moves instead: each move gains ``seen``, the
cards the seat located by it, so that a redacted record prints exactly as the full record does
from that seat's view. What only the end of a deal reveals (the Spøkelse ghosts and slots turned
over for the count) is not ``seen``. The other seats' moves keep only their public names (a
face-down discard becomes ``discard:?``), their policy and value annotations are dropped, and the
seed goes (it would redeal the hidden cards).

A redacted record is a function of what the seat observed, and of nothing else:
``tests/conformance/test_indistinguishable.py`` checks it on pairs of deals the seat cannot tell
apart, for every registered game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.options import short_repr
from .format import Record, RecordError, check_game
from .replay import states


def seat_index(record: Record, seat: int | str) -> int:
    """``seat`` as a seat number: ``"player_1"``, ``1`` or ``"1"`` (ASCII digits only), else
    :class:`RecordError` naming the seats allowed."""
    n = record.num_players
    given = seat
    if isinstance(seat, str):
        digits = seat[7:] if seat.startswith("player_") else seat
        if 0 < len(digits) <= 3 and digits.isascii() and digits.isdigit():
            seat = int(digits)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        allowed = ", ".join(f"player_{i}" for i in range(n))
        shown = short_repr(given)
        raise RecordError(f"{record.where()}: seat must be one of {allowed} (or 0..{n - 1}), got {shown}")
    return seat


def views(record: Record, viewer: Callable[[int], int]) -> tuple[list[set[int]], list[str], list[list[str]]]:
    """Replay ``record`` and return, for ``viewer(mover)`` the seat whose knowledge each move shows:
    per deal the deck positions that seat located when the deal was dealt (every position for the
    open view), per move the name it saw and the cards it located by the move (codes).
    :func:`redact` passes a constant seat; the open view passes the mover itself."""
    game = check_game(record)
    code = game.deck.code
    known: list[set[int]] = [set() for _ in record.deals]
    shown_names: list[str] = []
    seen: list[list[str]] = []
    it = states(record)
    engine = next(it)
    positions = [{c: i for i, c in enumerate(deck)} for _, deck in engine.deal_log[:1]]

    def mark(d: int, cards) -> None:
        while len(positions) <= d:
            positions.append({c: i for i, c in enumerate(engine.deal_log[len(positions)][1])})
        pos = positions[d]
        known[d].update(pos[c] for c in cards if c in pos)

    n = game.num_players
    constant = {viewer(s) for s in range(n)}
    if len(constant) == 1:
        mark(0, engine.known_cards(next(iter(constant))))
    else:
        known[0].update(range(len(record.deals[0]["deck"])))
    deal = 0
    for a in record.actions:
        mover = engine.current_player
        v = viewer(mover)
        action = game.action_from_string(a["action"])
        name = game.action_names[action] if v == mover else game.public_action_name(action)
        before = set(engine.known_cards(v))
        held = before if v == mover else set(engine.known_cards(mover))  # the mover knows what it plays
        engine = next(it)
        d_after = len(engine.deal_log) - 1
        ended = engine.terminal or engine.truncated
        if d_after == deal and not ended:
            after = set(engine.known_cards(v))
            new = after - before
        else:  # the move ended the deal: only what its public name shows counts, not the reveal
            card = game.named_card(name)
            candidates = [c for c in engine.deal_log[deal][1] if code(c) == card and c in held and c not in before]
            new = set(candidates[:1])
            if d_after != deal:
                deal = d_after
                if len(constant) == 1:
                    mark(deal, engine.known_cards(v))
                else:
                    known[deal].update(range(len(record.deals[deal]["deck"])))
        shown_names.append(name)
        seen.append([code(c) for c in sorted(new)])
    return known, shown_names, seen


def _drop_seeds(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _drop_seeds(v) for k, v in x.items() if k != "seed"}
    if isinstance(x, list):
        return [_drop_seeds(v) for v in x]
    return x


def redact(record: Record, seat: int | str) -> Record:
    """The record as ``seat`` (``"player_1"`` or 1) knew it (see the module docstring)."""
    if record.redacted_for is not None:
        if seat_index(record, seat) == seat_index(record, record.redacted_for):
            return record
        raise RecordError(f"{record.where()}: the record is already redacted for {record.redacted_for}")
    s = seat_index(record, seat)
    me = f"player_{s}"
    known, names, seen = views(record, lambda mover: s)
    deals = [
        {"dealer": d["dealer"], "deck": [c if i in known[k] else None for i, c in enumerate(d["deck"])]}
        for k, d in enumerate(record.deals)
    ]
    actions = []
    for a, name, cards in zip(record.actions, names, seen, strict=True):
        out: dict[str, Any] = {k: a[k] for k in ("seat", "deal", "phase", "trick") if k in a}
        out["action"] = name
        if a["seat"] == me:
            out.update({k: a[k] for k in ("policy", "value") if k in a})
        out["seen"] = cards
        actions.append(out)
    return Record(
        game=record.game,
        game_version=record.game_version,
        env=record.env,
        config=dict(record.config),
        seats=dict(record.seats),
        seed=None,
        carry=record.carry,
        deals=deals,
        actions=actions,
        status=record.status,
        rewards=dict(record.rewards),
        infos={k: dict(v) for k, v in record.infos.items()},
        kortmiljo=record.kortmiljo,
        created=record.created,
        redacted_for=me,
        event=_drop_seeds(record.event),
        source=record.source,
    )
