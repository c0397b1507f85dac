"""Text rendering of a Sprøyte state: the viewer's own hand, the table, tricks and scores."""

from __future__ import annotations

from ...core.cards import SUIT_SYMBOLS, SUITS, cards_str
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


def table(e, viewer: int | None) -> dict:
    """The table as ``viewer`` sees it, as JSON-able data (None: the open view); see ``Engine.table``.

    Seats: the hand (sorted; another seat's hand is ``None`` but for the shown card when that seat
    drew it, listed first). Piles, bottom first: the exchange pile (the shown card lies at its
    bottom until drawn), the talon (``tretten``), then per seat its cards out of play (discards, or
    the old hand after taking the talon; known only to that seat) and the tricks it won.
    """
    d, n = e.deck, e.num_players
    code = d.code
    over = e.phase == Phase.OVER
    live = not (e.terminal or e.truncated)
    pts = e.final_points if over and e.final_points is not None else e.points_now()

    def hidden(cards: list[int], owner: int | None) -> list:
        """``cards`` as ``viewer`` sees them: all when it may, else only the shown card."""
        if viewer is None or owner == viewer:
            return [code(c) for c in cards]
        out: list = [None] * len(cards)
        if e.shown in cards:
            out[0] = code(e.shown)
        return out

    seats = []
    for s in range(n):
        stats = {
            "tricks": e.tricks[s],
            "points": pts[s],
            "exchanged": e.ex_count[s],
            "voids": [SUITS[x] for x in range(4) if e.voids[s][x]],
        }
        if e.match_to is not None:
            stats["match_points"] = e.totals[s]
        status = None
        if e.talon_taker == s:
            status = "took the talon"
        elif e.talon_keep[s]:
            status = "kept"
        elif e.ex_done[s]:
            status = "exchanged"
        elif e.phase == Phase.EXCHANGE and s == e.current_player:
            status = "exchanging"
        if live and s == e.current_player:
            status = "to move" if status is None else f"{status}, to move"
        seats.append(
            {
                "seat": f"player_{s}",
                "role": _ROLE[(s - e.dealer) % n],
                "cards": hidden(e.hands[s], s),
                "labels": None,
                "stats": stats,
                "status": status,
            }
        )
    left = e.pile[e.pile_pos :]
    piles = [
        {"name": "exchange pile", "seat": None, "cards": _pile_view(e, left, viewer), "count": len(left)},
    ]
    if e.tretten:
        piles.append({"name": "talon", "seat": None, "cards": hidden(e.talon, None), "count": len(e.talon)})
    for s in range(n):
        piles.append({"name": "out", "seat": f"player_{s}", "cards": hidden(e.out[s], s), "count": len(e.out[s])})
    for s in range(n):
        piles.append(
            {"name": "won", "seat": f"player_{s}", "cards": [code(c) for c in e.won[s]], "count": len(e.won[s])}
        )
    trick = [{"seat": f"player_{s}", "card": code(c)} for s, c in zip(e.trick_seats, e.trick, strict=True)]
    facts: dict = {
        "variant": e.variant,
        "deal": e.deal_no + 1,
        "contract": CONTRACT_NAMES[e.contract],
        "trump": SUITS[e.trump] if e.trump >= 0 else None,
        "shown": code(e.shown) if e.shown >= 0 else None,
        "shown_holder": f"player_{e.shown_holder}" if e.shown_holder >= 0 else None,
        "trick_number": e.trick_no + 1 if e.phase == Phase.PLAY else None,
        "tricks_in_deal": e.num_tricks,
        "leader": f"player_{e.leader}" if e.phase == Phase.PLAY else None,
        "match_to": e.match_to,
        "truncated": bool(e.truncated),
    }
    if e.phase == Phase.EXCHANGE:
        facts["exchange_limit"] = e.ex_limit
        facts["may_discard"] = e.ex_limit - e.ex_count[e.current_player]
    if e.last_trick:
        facts["last_trick"] = {
            "winner": f"player_{e.leader}",
            "cards": [
                {"seat": f"player_{s}", "card": code(c)} for s, c in zip(e.last_seats, e.last_trick, strict=True)
            ],
        }
    if e.final_points is not None and e.match_to is not None:
        facts["last_deal_points"] = {f"player_{s}": e.final_points[s] for s in range(n)}
    if e.match_to is not None:
        facts["match_points"] = {f"player_{s}": e.totals[s] for s in range(n)}
    if over:
        scores = e.totals if e.match_to is not None else e.final_points
        top = max(scores)
        facts["winners"] = [f"player_{s}" for s in range(n) if scores[s] == top]
    return {
        "phase": Phase(e.phase).name.lower(),
        "dealer": f"player_{e.dealer}",
        "to_move": f"player_{e.current_player}" if live else None,
        "seats": seats,
        "piles": piles,
        "trick": trick,
        "facts": facts,
    }


def _pile_view(e, left: list[int], viewer: int | None) -> list:
    """The exchange pile left, bottom first: hidden but for the shown card at the bottom."""
    if viewer is None:
        return [e.deck.code(c) for c in reversed(left)]
    out: list = [None] * len(left)
    if left and left[-1] == e.shown:
        out[0] = e.deck.code(e.shown)
    return out
