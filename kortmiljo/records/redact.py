"""Sharing without leaking: :func:`redact` gives a record as one seat knew it.

The rule is the seat's own ``unseen``: replaying the record, a card survives in a deal's deck
only if the seat could locate it at some point while the deal was being played (its own cards,
cards played or shown face up, a card it put somewhere). What only the end of a deal reveals
(the Spøkelse ghosts and slots turned over for the count) and what nobody ever sees (the stock,
the rest of an exchange pile) is removed, and so is every other seat's hand. The other seats'
moves keep only their public names (a face-down discard becomes ``discard:?``), their policy and
value annotations are dropped, and the seed goes (it would redeal the hidden cards). Each move
gains ``seen``: the cards the seat located by it, so that a redacted record prints exactly as the
full record does from that seat's view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .format import Record, RecordError, check_game
from .replay import states


def seat_index(record: Record, seat: int | str) -> int:
    n = record.num_players
    if isinstance(seat, str) and seat.startswith("player_") and seat[7:].isdigit():
        seat = int(seat[7:])
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        allowed = ", ".join(f"player_{i}" for i in range(n))
        raise RecordError(f"{record.where()}: seat must be one of {allowed} (or 0..{n - 1}), got {seat!r}")
    return seat


def views(record: Record, viewer: Callable[[int], int]) -> tuple[list[set[int]], list[str], list[list[str]]]:
    """Replay ``record`` and return, for ``viewer(mover)`` the seat whose knowledge each move shows:
    per deal the deck positions that seat located while the deal was live, per move the name it
    saw and the cards it located by the move (codes). :func:`redact` passes a constant seat; the
    open view passes the mover itself."""
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
            if len(constant) == 1:
                mark(deal, after)
        else:  # the move ended the deal: only what its public name shows counts, not the reveal
            card = game.named_card(name)
            candidates = [c for c in engine.deal_log[deal][1] if code(c) == card and c in held and c not in before]
            new = set(candidates[:1])
            if len(constant) == 1:
                mark(deal, new)
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
    if record.redacted:
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
        out = {k: a[k] for k in ("seat", "deal", "phase", "trick") if k in a}
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
