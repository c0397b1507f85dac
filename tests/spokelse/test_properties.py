"""Invariants of Spøkelse over many random games, against references written here.

The reference rebuilds every seat's knowledge from the deck, the dealer and the action
history alone, independently of the engine's incremental bookkeeping.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kortmiljo.games.spokelse import SpokelseEngine
from kortmiljo.games.spokelse.game import LOC_DISCARD, LOC_STOCK


def reference_unseen(n: int, deck: list[int], dealer: int, history: list[tuple[int, int]], over: bool) -> np.ndarray:
    """Replay the history with plain sets: what can each seat locate?"""
    order = [(dealer + 1 + i) % n for i in range(n)]
    got = {s: [] for s in range(n)}
    for i in range(5 * n):
        got[order[i % n]].append(deck[i])
    slots = {s: got[s][1:] for s in range(n)}
    known = {v: set() for v in range(n)}  # (seat, slot) positions seat v knows
    pile = [deck[5 * n]]
    stock = list(deck[5 * n + 1 :])
    for v in range(n):
        known[v] |= {(v, 0), (v, 1)}
    hand, from_stock, mover = None, False, None
    for seat, a in history:
        if a == 0:
            hand, from_stock, mover = stock.pop(0), True, seat
        elif a == 1:
            hand, from_stock, mover = pile.pop(), False, seat
        elif a == 6:
            pile.append(hand)
            hand = None
        else:
            i = a - 2
            pile.append(slots[seat][i])
            slots[seat][i] = hand
            for v in range(n):
                if v == seat or not from_stock:
                    known[v].add((seat, i))
                else:
                    known[v].discard((seat, i))
            hand = None
    out = np.ones((n, 52), dtype=np.int8)
    if over:
        return np.zeros((n, 52), dtype=np.int8)
    for v in range(n):
        for s, i in known[v]:
            out[v, slots[s][i]] = 0
        out[v, pile] = 0
        if hand is not None and (v == mover or not from_stock):
            out[v, hand] = 0
    return out


def random_game(seed: int, check, **config):
    rng = np.random.default_rng(seed)
    e = SpokelseEngine(**config)
    e.new_episode(rng)
    check(e)
    while not e.terminal:
        legal = e.legal_actions()
        e.step(legal[rng.integers(len(legal))])
        check(e)
    return e


def _check_all(e: SpokelseEngine) -> None:
    n = e.num_players
    loc = e.locations()
    # every card in exactly one place: each location code holds the right number of cards
    assert (loc >= 0).all()
    codes, counts = np.unique(loc, return_counts=True)
    where = dict(zip(codes.tolist(), counts.tolist(), strict=True))
    for s in range(n):
        assert where.get(10 * s) == 1  # ghost
        for i in range(4):
            assert where.get(10 * s + 1 + i) == 1
    assert where.get(LOC_STOCK, 0) == len(e.stock) and where.get(LOC_DISCARD, 0) == len(e.discard)
    assert sum(counts) == 52
    # the incrementally updated observation equals the from-scratch encoding for every seat
    for v in range(n):
        assert np.array_equal(e.observe(v), e.encode(v)), (v, e.history[-3:])
    # the mask is exactly the legal moves
    mask = e.legal_mask()
    assert np.flatnonzero(mask).tolist() == e.legal_actions()
    # unseen against the reference rebuilt from the history (first deal of the episode only)
    if e.round_no == 1:
        ref = reference_unseen(n, e._deck0, e._dealer0, e.history, e.terminal)
        for v in range(n):
            assert np.array_equal(e.unseen(v), ref[v]), (v, e.history)
            assert np.array_equal(e.unseen(v), e.reference_unseen(v))


@pytest.fixture(autouse=True)
def _record_first_deal(monkeypatch):
    """Remember the first deal's deck and dealer for the history reference."""
    original = SpokelseEngine._deal

    def deal(self, deck, dealer):
        if self.round_no == 0:
            self._deck0, self._dealer0 = list(deck), dealer
        original(self, deck, dealer)

    monkeypatch.setattr(SpokelseEngine, "_deal", deal)


@pytest.mark.parametrize("config", [{}, {"num_players": 3}, {"num_players": 5, "jack_points": 11}, {"match_to": 21}])
def test_invariants_over_random_games(config):
    for seed in range(300 if not config else 120):
        random_game(seed, _check_all, **config)


def test_rewards_sum_to_zero_and_round_ends_on_the_last_stock_draw():
    for seed in range(1000):
        for reward in ("win", "points"):
            n = 2 + seed % 4
            last_draw_turn = []

            def check(e, last_draw_turn=last_draw_turn):
                if e.history and e.history[-1][1] == 0 and not e.stock:
                    last_draw_turn.append(len(e.history))

            e = random_game(seed, check, num_players=n, reward=reward)
            assert abs(sum(e.rewards)) < 1e-9
            # the round ended with the place action right after the last stock draw
            assert last_draw_turn == [len(e.history) - 1]
            assert e.history[-1][1] in (2, 3, 4, 5, 6)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 120), n=st.integers(2, 5))
def test_resampling_hidden_cards_leaves_the_observation_unchanged(seed, steps, n):
    rng = np.random.default_rng(seed)
    e = SpokelseEngine(num_players=n)
    e.new_episode(rng)
    for _ in range(steps):
        if e.terminal:
            break
        legal = e.legal_actions()
        e.step(legal[rng.integers(len(legal))])
    seat = e.current_player
    obs, unseen = e.observe(seat), e.unseen(seat)
    changed = False
    for k in range(5):
        r = e.resample(seat, np.random.default_rng(k))
        assert np.array_equal(r.observe(seat), obs)
        assert np.array_equal(r.unseen(seat), unseen)
        assert np.array_equal(r.legal_mask(), e.legal_mask())
        _check_all_cards_once(r)
        changed |= not np.array_equal(r.locations(), e.locations())
        # other seats' knowledge follows the moved cards
        for v in range(n):
            assert np.array_equal(r.unseen(v), r.reference_unseen(v))
    assert changed or e.terminal


def _check_all_cards_once(e):
    assert sorted(
        e.ghost + [c for s in e.slots for c in s] + e.discard + e.stock + ([e.hand] if e.hand >= 0 else [])
    ) == list(range(52))
