"""Text rendering of a Spøkelse state: face-down cards hidden unless the viewer knows them."""

from __future__ import annotations

from ...core.cards import FRENCH
from .game import Phase


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
