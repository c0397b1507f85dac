"""Text rendering of a Femkortskille state with the Swedish card names.

Hands are shown only to their owner (and a shown skituppslag to everyone); the
public view (``viewer=None``) shows how many cards each seat holds.
"""

from __future__ import annotations

from ...core.cards import KILLE, cards_str
from ...core.tricks import trick_winner_later_equal
from .game import Phase, Status

STATUS_WORDS = ("to speak", "knocked", "passed", "waiting (lura)", "showed", "folded")
PHASE_WORDS = ("bidding", "waiting players decide", "exchange", "betting", "tricks", "over")


def _chips(x: float) -> str:
    return f"{x:+g}"


def render(e, viewer: int | None) -> str:
    """The table as ``viewer`` sees it (None: the public view); ``e`` is a Femkortskille state."""
    n = e.num_players
    over = e.phase == Phase.OVER
    head = (
        f"Femkortskille  deal {e.deals}/{e.max_deals}  dealer player_{e.dealer}  pot {e.pot:g}  "
        f"stock {len(e.stock) - e.stock_pos}  {PHASE_WORDS[int(e.phase)]}"
    )
    if e.phase == Phase.PLAY:
        head += f"  trick {e.trick_no + 1}/5"
    if e.phase == Phase.BETTING:
        head += f"  bet level {e.level}  raises {e.raises}"
    if viewer is not None and not over:
        head += f"  [view of player_{viewer}]"
    lines = [head]
    for s in range(n):
        hand = sorted(e.hands[s], reverse=True)
        if s == viewer or e.status[s] == Status.SHOWED:
            cards = cards_str(KILLE, hand) or "—"
        else:
            cards = f"{len(hand)} cards"
        row = f"  player_{s}: {STATUS_WORDS[e.status[s]]:<14} chips {_chips(e.net[s]):>4}  hand {cards}"
        if e.stake[s]:
            row += f"  staked {e.stake[s]}"
        if e.auktion and e.bid[s]:
            row += f"  bet {e.bid[s]}"
        if e.poker and e.discards[s]:
            row += f"  exchanged {len(e.discards[s])}"
            if s == viewer:
                row += f" ({cards_str(KILLE, e.discards[s])})"
        if e.played[s]:
            row += f"  played {cards_str(KILLE, e.played[s])}  tricks {e.tricks_won[s]}"
        if not over and s == e.current_player:
            row += "  <- to move"
        lines.append(row)
    if e.trick_seats:
        played = ", ".join(
            f"player_{s} {KILLE.pretty(2 * r)}" for s, r in zip(e.trick_seats, e.trick_ranks, strict=True)
        )
        lines.append(f"  trick: {played}  (to beat: {KILLE.pretty(2 * e.highest)})")
    if over:
        if e.winner >= 0:
            lines.append(
                f"  player_{e.winner} wins {e.pot_won:g} chips" + (f"; {e.pot:g} stay in the pot" if e.pot else "")
            )
        else:
            lines.append(f"  no knock in {e.deals} deals: the pot is returned in equal shares")
    return "\n".join(lines)


STATUS_NAMES = ("to speak", "knocked", "passed", "waiting", "showed", "folded")
PHASE_NAMES = tuple(p.name.lower() for p in Phase)


def _completed_tricks(e) -> list[tuple[int, list[tuple[int, int]]]]:
    """The tricks of this deal played to the end: (winner, [(seat, card), …] in play order)."""
    out = []
    leader = e.in_play[0] if e.in_play else -1
    for k in range(e.trick_no):
        plays, s = [], leader
        for _ in e.in_play:
            plays.append((s, e.played[s][k]))
            s = e.next_in_play[s]
        w = plays[trick_winner_later_equal([c >> 1 for _, c in plays])][0]
        out.append((w, plays))
        leader = w
    return out


def table(e, viewer: int | None) -> dict:
    """The table as ``viewer`` sees it, as JSON-able data (None: the open view); see ``Engine.table``.

    Seats: the hand, highest rank first (another seat's hand is ``None``s unless it showed a
    skituppslag). Piles, bottom first: the stock (hidden), then per seat its poker discards (known
    only to that seat) and the cards it played in finished tricks (public).
    """
    n, code = e.num_players, e.deck.code
    live = not (e.terminal or e.truncated)
    in_trick = set(e.trick_seats)
    seats = []
    for s in range(n):
        hand = sorted(e.hands[s], reverse=True)
        visible = viewer is None or s == viewer or e.status[s] == Status.SHOWED
        stats: dict = {"chips": e.net[s], "stake": e.stake[s], "tricks": e.tricks_won[s]}
        if e.auktion:
            stats["bid"] = e.bid[s]
        if e.poker:
            stats["exchanged"] = len(e.discards[s])
            stats["round_bet"] = e.round_bet[s]
        status = STATUS_NAMES[e.status[s]]
        if live and s == e.current_player:
            status += ", to move"
        seats.append(
            {
                "seat": f"player_{s}",
                "role": "dealer" if s == e.dealer else "forhånd" if s == e.forhand else None,
                "cards": [code(c) for c in hand] if visible else [None] * len(hand),
                "labels": None,
                "stats": stats,
                "status": status,
            }
        )
    left = e.stock[e.stock_pos :][::-1]
    piles = [
        {
            "name": "stock",
            "seat": None,
            "cards": [code(c) for c in left] if viewer is None else [None] * len(left),
            "count": len(left),
        }
    ]
    for s in range(n):
        if e.poker:
            mine = viewer is None or s == viewer
            cards = [code(c) if mine else None for c in e.discards[s]]
            piles.append({"name": "discards", "seat": f"player_{s}", "cards": cards, "count": len(cards)})
        done = e.played[s][:-1] if s in in_trick else e.played[s]
        piles.append({"name": "played", "seat": f"player_{s}", "cards": [code(c) for c in done], "count": len(done)})
    trick = [{"seat": f"player_{s}", "card": code(e.played[s][-1])} for s in e.trick_seats]
    facts: dict = {
        "pot": e.pot,
        "pot_carried": e.pot_carried,
        "ante": e.ante,
        "deal": e.deals,
        "max_deals": e.max_deals,
        "tricks_in_deal": e.tricks,
        "in_play": [f"player_{s}" for s in e.in_play],
        "trick_number": e.trick_no + 1 if e.phase == Phase.PLAY else None,
        "leader": f"player_{e.leader}" if e.phase == Phase.PLAY else None,
        "to_beat": code(2 * e.highest) if e.trick_ranks else None,
        "winning": f"player_{e._winning}" if e.trick_ranks else None,
        "winner": f"player_{e.winner}" if e.winner >= 0 else None,
        "pot_won": e.pot_won,
        "truncated": bool(e.truncated),
    }
    if e.auktion:
        facts["highest_bet"] = e.highest_bet
    if e.poker:
        facts["bet_level"] = e.level
        facts["raises"] = e.raises
    if e.trick_no and e.in_play:
        w, plays = _completed_tricks(e)[-1]
        facts["last_trick"] = {
            "winner": f"player_{w}",
            "cards": [{"seat": f"player_{s}", "card": code(c)} for s, c in plays],
        }
    return {
        "phase": PHASE_NAMES[int(e.phase)],
        "dealer": f"player_{e.dealer}",
        "to_move": f"player_{e.current_player}" if live else None,
        "seats": seats,
        "piles": piles,
        "trick": trick,
        "facts": facts,
    }
