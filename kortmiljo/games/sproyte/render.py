"""Text rendering of a Sprøyte state: the viewer's own hand, the table, tricks and scores."""

from __future__ import annotations

from ...core.cards import SUIT_SYMBOLS, cards_str
from .game import CONTRACT_NAMES, Phase

_ROLE = {0: "dealer", 1: "forhånd", 2: "middle"}


def render(e, viewer: int | None) -> str:
    """The table as ``viewer`` sees it (None: the public view); ``e`` is a Sprøyte state."""
    d = e.deck
    over = e.phase == Phase.OVER
    contract = CONTRACT_NAMES[e.contract]
    if e.trump >= 0:
        contract += f" {SUIT_SYMBOLS[e.trump]}"
    head = f"Sprøyte ({e.variant})  deal {e.deal_no + 1}  dealer player_{e.dealer}  contract {contract}"
    if e.shown >= 0:
        head += f"  shown {d.pretty(e.shown)}"
    head += f"  phase {Phase(e.phase).name.lower()}"
    if viewer is not None and not over:
        head += f"  [view of player_{viewer}]"
    lines = [head]
    if e.phase == Phase.EXCHANGE:
        lines.append(
            f"  exchange pile: {len(e.pile) - e.pile_pos} cards; player_{e.current_player} may discard {e.ex_limit}"
        )
    for s in range(e.num_players):
        role = _ROLE[(s - e.dealer) % e.num_players]
        if s == viewer:
            hand = cards_str(d, e.hands[s]) or "—"
        else:
            hand = f"{len(e.hands[s])} cards"
        row = f"  player_{s} ({role}): {hand} | tricks {e.tricks[s]}"
        pts = e.final_points if over and e.final_points is not None else e.points_now()
        row += f" | points {pts[s]}"
        if e.match_to is not None:
            row += f" | match {e.totals[s]}/{e.match_to}"
        if e.ex_count[s] or e.ex_done[s]:
            row += f" | exchanged {e.ex_count[s]}"
            if s == viewer and e.out[s]:
                row += f" (out: {cards_str(d, e.out[s])})"
        if e.talon_taker == s:
            row += " | took the talon"
            if s == viewer:
                row += f" (old hand out: {cards_str(d, e.out[s])})"
        elif e.talon_keep[s]:
            row += " | kept"
        if not over and s == e.current_player:
            row += "  <- to move"
        lines.append(row)
    if e.trick:
        table = "  ".join(f"player_{s}: {d.pretty(c)}" for s, c in zip(e.trick_seats, e.trick, strict=True))
        lines.append(f"  trick {e.trick_no + 1}: {table}")
    elif e.last_trick and not over:
        table = "  ".join(f"player_{s}: {d.pretty(c)}" for s, c in zip(e.last_seats, e.last_trick, strict=True))
        lines.append(f"  last trick {e.trick_no} (won by player_{e.leader}): {table}")
    if over:
        scores = e.totals if e.match_to is not None else e.final_points
        top = max(scores)
        win = [f"player_{s}" for s in range(e.num_players) if scores[s] == top]
        what = "match" if e.match_to is not None else "deal"
        lines.append(f"  {what} over: {' and '.join(win)} {'has' if len(win) == 1 else 'have'} the most points ({top})")
    return "\n".join(lines)
