"""Text rendering of a Femkortskille state with the Swedish card names.

Hands are shown only to their owner (and a shown skituppslag to everyone); the
public view (``viewer=None``) shows how many cards each seat holds.
"""

from __future__ import annotations

from ...core.cards import KILLE, cards_str
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
