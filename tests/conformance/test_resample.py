"""Hidden-state resampling (``state.resample(seat, rng)``, what search agents build worlds from)
is invisible to the seat it is made for, and only to it.

For random states of every game and example configuration, and every seat: the copy shows that
seat the same observation, ``unseen`` and legal mask, and has the same seat on move; the cards the
seat can locate stay where they are, and the copy holds the same places (only hidden cards move);
the original is untouched; the same rng gives the same copy; every action the copy calls legal
can be played in it, and the copy plays on to a legal end.
Over all states, some resample moves some other seat's hidden card (a resample that never
changes anything would pass every other check).
"""

from __future__ import annotations

import numpy as np
import pytest

from .games import conformance_cases
from .probes import random_legal

CASES = conformance_cases()
IDS = [c.id for c in CASES]


def _random_state(game, rng: np.random.Generator, steps: int):
    """A live state after up to ``steps`` random moves (the one before the end, if the game ends first:
    short teaching games would otherwise mostly give finished states, where nothing is hidden)."""
    e = game.new_state()
    e.new_episode(rng)
    for _ in range(steps):
        before = e.clone()
        e.step(random_legal(rng, e.legal_mask()))
        if e.terminal or e.truncated:
            return before
    return e


def _kinds(game) -> list[np.ndarray]:
    """Card positions grouped by what a player can tell apart: one group per card code (a kille
    rank's two copies are one kind, and ``unseen`` counts copies, not positions), each card
    outside the deck alone."""
    deck, groups = game.deck, {}
    inside = set(deck.cards)
    for c in range(deck.width):
        groups.setdefault(deck.code(c) if c in inside else ("outside", c), []).append(c)
    return [np.array(g) for g in groups.values()]


def _kept_in_place(loc: np.ndarray, rloc: np.ndarray, unseen: np.ndarray, kinds) -> list[int]:
    """Kinds of which fewer copies stayed where they were than the seat can locate (should be none)."""
    bad = []
    for idx in kinds:
        known = len(idx) - int(unseen[idx].sum())
        a, b = loc[idx].tolist(), rloc[idx].tolist()
        stayed = sum(min(a.count(x), b.count(x)) for x in set(a))
        if stayed < known:
            bad.append(int(idx[0]))
    return bad


def _play_out(e, rng: np.random.Generator, limit: int = 20_000) -> None:
    for _ in range(limit):
        if e.terminal or e.truncated:
            return
        e.step(random_legal(rng, e.legal_mask()))
    raise AssertionError(f"a resampled copy did not finish within {limit} random steps")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_resample_is_invisible_to_its_seat(case):
    game = case.game()
    kinds = _kinds(game)
    rng = np.random.default_rng(case.seed)
    moved = 0
    for k in range(8):
        e = _random_state(game, rng, steps=int(rng.integers(0, 40)))
        before = (e.locations().copy(), list(e.history), [e.observe(s) for s in range(e.num_players)])
        for seat in range(e.num_players):
            view = e.observation(seat)  # its observation, its mask (all 0 unless on move), its unseen
            obs, unseen, mask = view["observation"], view["unseen"], view["action_mask"]
            for j in range(2):
                r = e.resample(seat, np.random.default_rng(1000 * k + 10 * seat + j))
                assert r is not e
                got = r.observation(seat)
                np.testing.assert_array_equal(got["observation"], obs, err_msg=f"seat {seat}: observation changed")
                np.testing.assert_array_equal(got["unseen"], unseen, err_msg=f"seat {seat}: unseen changed")
                np.testing.assert_array_equal(got["action_mask"], mask, err_msg=f"seat {seat}: legal mask changed")
                assert r.current_player == e.current_player and (r.terminal, r.truncated) == (e.terminal, e.truncated)
                loc, rloc = e.locations(), r.locations()
                moved_seen = _kept_in_place(loc, rloc, unseen, kinds)
                assert not moved_seen, f"seat {seat}: cards it can locate moved: {moved_seen}"
                np.testing.assert_array_equal(np.sort(rloc), np.sort(loc), err_msg="the places changed, not the cards")
                again = e.resample(seat, np.random.default_rng(1000 * k + 10 * seat + j))
                np.testing.assert_array_equal(again.locations(), rloc, err_msg="same rng, different copy")
                moved += int(not np.array_equal(rloc, loc))
                if j == 0:  # every action the copy calls legal can be played in it
                    for a in r.legal_actions():
                        r.clone().step(a)
                if j == 0 and seat == k % e.num_players:
                    _play_out(r, rng)
        loc, hist, views = before
        np.testing.assert_array_equal(e.locations(), loc, err_msg="resample changed the original")
        assert e.history == hist
        for s in range(e.num_players):
            np.testing.assert_array_equal(e.observe(s), views[s], err_msg="resample changed the original's views")
    assert moved > 0, "no resample ever moved a hidden card"
