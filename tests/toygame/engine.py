"""The state of one deal of toy poker: the reference rules (the batched engine must equal them)."""

from __future__ import annotations

import numpy as np

from kortmiljo.core.engine import Engine

from .game import BET, BET_OUT, CALL, CHECK, CHECK_BET, CHECKED, LEGAL, LOC_STOCK, OPEN, OVER, STAGE_NAMES


class ToyEngine(Engine):
    """Deal: forhånd (left of the dealer) gets the top card, the dealer the next; the rest stays undealt."""

    NAME = "toy"

    def _start(self, deck: list[int], dealer: int) -> None:
        self.dealer = dealer
        first = (dealer + 1) % 2
        self.cards = [0, 0]
        self.cards[first], self.cards[dealer] = deck[0], deck[1]
        self.stock = list(deck[2:])
        self.staked = [self.ante, self.ante]
        self.net = [0.0, 0.0]
        self.stage = OPEN
        self.shown = False
        self.current_player = first

    def legal_actions(self) -> list[int]:
        return list(LEGAL[self.stage])

    def _apply(self, action: int) -> None:
        s = self.current_player
        if action == BET:
            self.staked[s] += self.bet
            self.stage = BET_OUT if self.stage == OPEN else CHECK_BET
            self.current_player = 1 - s
        elif action == CHECK and self.stage == OPEN:
            self.stage = CHECKED
            self.current_player = 1 - s
        elif action == CHECK:  # both checked
            self._end(self._showdown())
        elif action == CALL:
            self.staked[s] += self.bet
            self._end(self._showdown())
        else:  # fold
            self._end(1 - s)

    def _showdown(self) -> int:
        self.shown = True
        return 0 if self.cards[0] > self.cards[1] else 1

    def _end(self, winner: int) -> None:
        won = float(self.staked[1 - winner])
        self.net = [won if s == winner else -won for s in range(2)]
        self.rewards = self.net[:]
        self.stage = OVER
        self.terminal = True

    # ---- views ---------------------------------------------------------------------------
    def observe(self, seat: int) -> np.ndarray:
        obs = np.zeros(self.layout.size, dtype=np.float32)
        other = 1 - seat
        obs[self.o_own + self.cards[seat]] = 1.0
        if self.shown:
            obs[self.o_opp + self.cards[other]] = 1.0
        scale = self.ante + self.bet
        obs[self.o_staked] = self.staked[seat] / scale
        obs[self.o_staked + 1] = self.staked[other] / scale
        obs[self.o_stage + self.stage] = 1.0
        if self.stage != OVER:
            obs[self.o_to_move + (self.current_player - seat) % 2] = 1.0
        obs[self.o_dealer + (seat - self.dealer) % 2] = 1.0
        return obs

    def unseen(self, seat: int) -> np.ndarray:
        u = np.ones(self.deck.width, dtype=np.int8)
        u[self.cards[seat]] = 0
        if self.shown:
            u[self.cards[1 - seat]] = 0
        return u

    def locations(self) -> np.ndarray:
        loc = np.full(self.deck.width, LOC_STOCK, dtype=np.int16)
        loc[self.cards[0]], loc[self.cards[1]] = 0, 1
        return loc

    def info(self, seat: int) -> dict:
        return {"chips": self.net[seat], "showdown": self.shown}

    def render(self, viewer: int | None = None) -> str:
        over = self.stage == OVER
        pot = sum(self.staked)
        lines = [f"Toy poker  dealer player_{self.dealer}  pot {pot}  {STAGE_NAMES[self.stage]}"]
        for s in range(2):
            card = self.deck.pretty(self.cards[s]) if self.shown or s == viewer else "??"
            row = f"  player_{s}: {card:>3} | staked {self.staked[s]}"
            if over:
                row += f" | {self.net[s]:+g}"
            elif s == self.current_player:
                row += "  <- to move"
            lines.append(row)
        return "\n".join(lines)

    def table(self, viewer: int | None = None) -> dict:
        """The table as ``viewer`` sees it (None: the open view): each seat's card, the stock."""
        t = super().table(viewer)
        t["dealer"] = f"player_{self.dealer}"
        for s, seat in enumerate(t["seats"]):
            seat["role"] = "dealer" if s == self.dealer else "forhånd"
            seat["cards"] = [self.deck.code(self.cards[s]) if viewer is None or self.shown or s == viewer else None]
            seat["stats"] = {"staked": self.staked[s], "chips": self.net[s]}
        t["piles"] = [{"name": "stock", "seat": None, "cards": [None] * len(self.stock), "count": len(self.stock)}]
        if viewer is None:
            t["piles"][0]["cards"] = [self.deck.code(c) for c in self.stock]
        t["phase"] = STAGE_NAMES[self.stage]
        t["facts"] = {"pot": sum(self.staked), "ante": self.ante, "bet": self.bet, "showdown": self.shown}
        return t

    def resample(self, seat: int, rng: np.random.Generator) -> ToyEngine:
        """The other seat's card (unless shown) and the undealt cards, redealt among those places."""
        new = self.clone()
        other = 1 - seat
        hidden = sorted(([] if self.shown else [self.cards[other]]) + self.stock)
        perm = [hidden[i] for i in rng.permutation(len(hidden))]
        if not self.shown:
            new.cards[other] = perm.pop()
        new.stock = perm
        return new
