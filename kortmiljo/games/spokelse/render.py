"""Text rendering of a Spøkelse state: face-down cards hidden unless the viewer knows them."""

from __future__ import annotations

from ...core.cards import FRENCH
from .game import Phase

PHASE_NAME = {p: p.name.lower() for p in Phase}


def _fmt_points(x: float) -> str:
    return f"{x:g}"


def render(e, viewer: int | None) -> str:
    """The table as ``viewer`` sees it (None: the public view); ``e`` is a Spøkelse state."""
    n, over = e.num_players, e.phase == Phase.OVER
    top = FRENCH.pretty(e.discard[-1]) if e.discard else "—"
    lines = [
        f"Spøkelse  round {e.round_no}  dealer player_{e.dealer}  stock {len(e.stock)}  "
        f"discard {top} ({len(e.discard)} in pile)"
    ]
    if viewer is not None and not over:
        lines[0] += f"  [view of player_{viewer}]"
    sums = e.last_sums if over else None
    for s in range(n):
        cells = []
        for i in range(e.num_slots):
            known = over or e.public[s][i] or (s == viewer and e.owner_known[s][i])
            cells.append(f"{FRENCH.pretty(e.slots[s][i]):>3}" if known else " ??")
        ghost = FRENCH.pretty(e.ghost[s]) if over else "?"
        row = f"  player_{s}: ghost {ghost:>3} | slots {' '.join(cells)}"
        if sums is not None:
            row += f" | {_fmt_points(sums[s])} points"
        if e.match_to:
            row += f" | match total {_fmt_points(e.totals[s])}"
        if not over and s == e.current_player:
            row += "  <- to move"
            if e.hand >= 0:
                visible = s == viewer or not e.hand_from_stock
                card = FRENCH.pretty(e.hand) if visible else "??"
                row += f", holding {card} ({'drawn from stock' if e.hand_from_stock else 'taken from pile'})"
        lines.append(row)
    if over:
        low = min(e.totals if e.match_to else sums)
        scores = e.totals if e.match_to else sums
        win = [f"player_{s}" for s in range(n) if scores[s] == low]
        lines.append(
            f"  {'match' if e.match_to else 'round'} over: {' and '.join(win)} win{'s' if len(win) == 1 else ''}"
        )
    return "\n".join(lines)


def table(e, viewer: int | None) -> dict:
    """The table as ``viewer`` sees it, as JSON-able data (None: the open view); see ``Engine.table``.

    Each seat's cards are its ghost, its slots and (for the seat on move after a draw or take)
    the card in hand, with ``labels`` ``["ghost", "slot 0", …, "in hand"]``; a card is a code only
    where ``viewer`` knows it (the ghost only once the round is over, when everything is shown).
    ``flags`` gives per card what the table knows about it: ``"owner knows"``, ``"public"``,
    ``"swapped"``. Piles (bottom first, the top card last): the discard pile (every card public) and the stock.
    """
    n, k, code = e.num_players, e.num_slots, e.deck.code
    over = e.phase == Phase.OVER
    open_view = viewer is None or over  # the end of the round shows every card to everyone
    live = not (e.terminal or e.truncated)
    forhand = (e.dealer + 1) % n
    sums = e.last_sums if over else None
    seats = []
    for s in range(n):
        cards = [code(e.ghost[s]) if open_view else None]
        labels = ["ghost"]
        flags: list[list[str]] = [[]]
        for i in range(k):
            c = e.slots[s][i]
            known = open_view or e.public[s][i] or (s == viewer and e.owner_known[s][i])
            cards.append(code(c) if known else None)
            labels.append(f"slot {i}")
            f = []
            if e.owner_known[s][i]:
                f.append("owner knows")
            if e.public[s][i]:
                f.append("public")
            if e.swapped[s][i]:
                f.append("swapped")
            flags.append(f)
        if e.hand >= 0 and s == e.current_player:
            visible = open_view or s == viewer or not e.hand_from_stock
            cards.append(code(e.hand) if visible else None)
            labels.append("in hand")
            flags.append(["from stock" if e.hand_from_stock else "from pile"])
        stats: dict = {"discarded": len(e.discarded_by[s])}
        if sums is not None:
            stats["round_points"] = sums[s]
        if e.match_to:
            stats["match_points"] = e.totals[s]
        status = None
        if live and s == e.current_player:
            status = "to move"
        seats.append(
            {
                "seat": f"player_{s}",
                "role": "dealer" if s == e.dealer else "forhånd" if s == forhand else None,
                "cards": cards,
                "labels": labels,
                "flags": flags,
                "stats": stats,
                "status": status,
            }
        )
    facts: dict = {
        "round": e.round_no,
        "match_to": e.match_to,
        "turn": e.turn,
        "max_turns": e.max_turns,
        "holding": None if e.hand < 0 else "stock" if e.hand_from_stock else "pile",
        "truncated": bool(e.truncated),
    }
    if e.match_to:
        facts["match_points"] = {f"player_{s}": e.totals[s] for s in range(n)}
    if over:
        scores = e.totals if e.match_to else sums
        low = min(scores)
        facts["round_points"] = {f"player_{s}": sums[s] for s in range(n)}
        facts["winners"] = [f"player_{s}" for s in range(n) if scores[s] == low]
    return {
        "phase": PHASE_NAME[e.phase],
        "dealer": f"player_{e.dealer}",
        "to_move": f"player_{e.current_player}" if live else None,
        "seats": seats,
        "piles": [
            {"name": "discard", "seat": None, "cards": [code(c) for c in e.discard], "count": len(e.discard)},
            {
                "name": "stock",
                "seat": None,
                "cards": [code(c) for c in e.stock] if open_view else [None] * len(e.stock),
                "count": len(e.stock),
            },
        ],
        "trick": [],
        "facts": facts,
    }
