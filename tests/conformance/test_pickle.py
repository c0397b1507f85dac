"""Pickling in the middle of a game: the copy carries on exactly as the original would.

The AEC env (wrapped, as ``env()`` gives it) and the OpenSpiel state are pickled after a few
random moves; original and copy then get the same actions to the end of the episode, and must
show the same observations, rewards, terminations and infos all the way, and the env's random
stream must continue identically into the next (unseeded) episode.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from .games import conformance_cases
from .probes import random_legal

CASES = conformance_cases()
IDS = [c.id for c in CASES]


def _same_turn(a, b) -> None:
    (oa, ra, ta, ua, ia), (ob, rb, tb, ub, ib) = a.last(), b.last()
    assert a.agent_selection == b.agent_selection
    for key in oa:
        np.testing.assert_array_equal(oa[key], ob[key], err_msg=key)
    assert (ra, ta, ua, ia) == (rb, tb, ub, ib)


def _play_both(a, b, rng: np.random.Generator, limit: int) -> int:
    """Step ``a`` and ``b`` with the same random legal actions to the episode's end; turns taken."""
    for turn in range(limit):
        if not a.agents:
            assert not b.agents
            return turn
        _same_turn(a, b)
        obs, _, term, trunc, _ = a.last()
        action = None if term or trunc else random_legal(rng, obs["action_mask"])
        a.step(action)
        b.step(action)
    raise AssertionError(f"the episode did not end within {limit} turns")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_env_pickled_mid_game_continues_identically(case):
    env = case.env()
    rng = np.random.default_rng(case.seed)
    env.reset(seed=case.seed)
    for _ in range(int(rng.integers(1, 12))):  # into the game, not past its end
        e = env.unwrapped.engine
        if e.terminal or e.truncated:
            break
        env.step(random_legal(rng, e.legal_mask()))
    twin = pickle.loads(pickle.dumps(env))
    assert twin is not env and twin.unwrapped.engine is not env.unwrapped.engine
    _play_both(env, twin, rng, limit=50_000)
    env.reset()  # unseeded: both continue their (equal) random streams
    twin.reset()
    for _ in range(2):
        _play_both(env, twin, rng, limit=50_000)
        env.reset()
        twin.reset()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_openspiel_state_pickled_mid_game_continues_identically(case):
    pyspiel = pytest.importorskip("pyspiel")
    from kortmiljo import openspiel

    game = pyspiel.load_game(openspiel.register(case.name, **case.config))
    rng = np.random.default_rng(case.seed)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal() and decisions < 3:  # through the deal and a few decisions
        state.apply_action(_openspiel_action(state, rng))
        decisions += not state.is_chance_node()
    twin = pickle.loads(pickle.dumps(state))
    assert twin is not state
    for _ in range(50_000):
        assert str(twin) == str(state)
        assert twin.history() == state.history() and twin.current_player() == state.current_player()
        assert twin.returns() == state.returns()
        if state.is_terminal():
            assert twin.is_terminal()
            return
        if state.is_chance_node():
            assert twin.chance_outcomes() == state.chance_outcomes()
        else:
            p = state.current_player()
            assert twin.legal_actions() == state.legal_actions()
            assert twin.observation_string(p) == state.observation_string(p)
            assert twin.information_state_string(p) == state.information_state_string(p)
            np.testing.assert_array_equal(twin.observation_tensor(p), state.observation_tensor(p))
        action = _openspiel_action(state, rng)
        state.apply_action(action)
        twin.apply_action(action)
    raise AssertionError("the OpenSpiel episode did not end")


def _openspiel_action(state, rng: np.random.Generator) -> int:
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        return int(rng.choice(outcomes, p=probs))
    return int(rng.choice(state.legal_actions()))
