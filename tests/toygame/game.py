"""The configured toy game: its options, six-card deck, action table, observation layout and facts.

Toy poker is Kuhn poker with six cards: two players ante, each gets one card of ``AS``..``6S``
(the ace lowest), forhånd (left of the dealer) checks or bets, the other answers, and a bet is
called or folded; a showdown pays the higher card. It exists to prove that a game needs nothing
outside its own folder (docs/adding_a_game.md walks through it).
"""

from __future__ import annotations

from kortmiljo.core.cards import Deck
from kortmiljo.core.game import Facts, Game
from kortmiljo.core.layout import Layout
from kortmiljo.core.options import Option, int_in, one_of

CHECK, BET, CALL, FOLD = range(4)
ACTION_NAMES = ("check", "bet", "call", "fold")

# where a deal stands: who may do what next
OPEN, CHECKED, BET_OUT, CHECK_BET, OVER = range(5)
STAGE_NAMES = ("open", "checked", "bet out", "check-bet", "over")
LEGAL = {OPEN: [CHECK, BET], CHECKED: [CHECK, BET], BET_OUT: [CALL, FOLD], CHECK_BET: [CALL, FOLD], OVER: []}

# card vectors are six wide (the deck's whole width): AS = 0 … 6S = 5, the card's int is its rank
SIX = Deck("toy six (AS..6S)", tuple(range(6)), 6)
LOC_STOCK = 2  # locations(): 0 or 1 = that seat's hand, 2 = not dealt

OPTIONS = {
    "ante": Option(1, int_in(1, 3), "an int from 1 to 3"),
    "bet": Option(1, one_of(1, 2), "1 or 2"),
}


class ToyGame(Game):
    """Toy poker with validated options: the deck, the actions and the layout every deal shares."""

    def setup(self) -> None:
        self.deck = SIX
        self.action_names = ACTION_NAMES
        self.ante = int(self.config["ante"])
        self.bet = int(self.config["bet"])
        L = Layout()
        self.o_own = L.add("own_card", 6, "this seat's card (one-hot)")
        self.o_opp = L.add("opp_card", 6, "the other seat's card, once shown at a showdown (one-hot)")
        self.o_staked = L.add("staked", 2, "chips put in by each relative seat (self first) / (ante + bet)")
        self.o_stage = L.add("stage", 5, "one-hot: open, checked, bet out, check-bet, over")
        self.o_to_move = L.add("to_move", 2, "one-hot relative seat on move (all 0 once over)")
        self.o_dealer = L.add("seat_from_dealer", 2, "one-hot (seat - dealer) mod 2")
        self.layout = L

    def deal_holders(self, dealer: int) -> list[str]:
        return [f"player_{(dealer + 1) % 2}", f"player_{dealer}"] + ["stock"] * (len(self.deck) - 2)

    def compute_facts(self) -> Facts:
        most = float(self.ante + self.bet)
        return Facts(
            utility_bounds=(-most, most),
            zero_sum=True,
            max_decisions=2,  # forhånd: check, then call or fold; the dealer answers once
            multi_deal=False,
            cards_per_deal=2,  # only the two dealt cards matter
        )
