"""One action check for every game: ints and numpy integers pass; floats, bools, None, strings and
out-of-range indices are refused with the same exception class and message shape, state unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import kortmiljo
from kortmiljo.core.errors import IllegalActionError

BAD = [0.0, 1.0, np.float32(0), True, False, np.bool_(True), None, "draw", -1, 10**6, [0]]


def dealt(name: str):
    state = kortmiljo.load_game(name).new_state()
    state.new_episode(np.random.default_rng(3))
    return state


def snapshot(state) -> tuple:
    n = state.num_players
    return (
        [state.observe(s).tobytes() for s in range(n)],
        [state.unseen(s).tobytes() for s in range(n)],
        state.legal_mask().tobytes(),
        state.locations().tobytes(),
        list(state.history),
        state.current_player,
    )


@pytest.mark.parametrize("name", kortmiljo.game_names())
@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_bad_action_types_are_refused_alike(name, bad):
    state = dealt(name)
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=rf"^player_{state.current_player} cannot play .* legal actions: "):
        state.step(bad)
    assert snapshot(state) == before


@pytest.mark.parametrize("name", kortmiljo.game_names())
def test_ints_and_numpy_integers_are_accepted(name):
    for kind in (int, np.int64, np.int32, np.int8):
        state = dealt(name)
        action = state.legal_actions()[0]
        state.step(kind(action))
        assert state.history[-1][1] == action and type(state.history[-1][1]) is int


@pytest.mark.parametrize("name", kortmiljo.game_names())
def test_a_float_is_refused_even_where_it_equals_a_legal_index(name):
    state = dealt(name)
    legal = state.legal_actions()[0]
    with pytest.raises(IllegalActionError, match="an action is an int index"):
        state.step(float(legal))
