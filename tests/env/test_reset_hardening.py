"""A refused ``reset`` changes nothing: not the random stream, not the carried pot (issue 15).

Before, ``reset(seed=9, options={"dealer": 7})`` replaced the env's generator and only then
refused the dealer, so the next unseeded ``reset`` dealt from seed 9; with Femkortskille's
``payments_stay`` the refused seeded reset also emptied the pot carried between episodes.
"""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo import game_names, load_game
from kortmiljo.env.aec import CardGameEnv, OrderEnforcing
from kortmiljo.env.training import SingleSeatEnv

BAD_RESETS = [
    ({"seed": 9, "options": {"dealer": 7}}, "dealer must be a seat"),
    ({"seed": 9, "options": {"dealer": -1}}, "dealer must be a seat"),
    ({"seed": 9, "options": {"dealer": 1.0}}, "dealer must be a seat"),
    ({"seed": 9, "options": {"deck": ["AS", "AS"]}}, "card|deck"),
    ({"seed": 9, "options": {"deck": "AS KS"}}, "list of card codes"),
    ({"seed": 9, "options": "x"}, "options must be None or a dict"),
    ({"seed": 9, "options": [("dealer", 0)]}, "options must be None or a dict"),
    ({"seed": 1.5}, "seed must be None or a non-negative int"),
    ({"seed": -1}, "seed must be None or a non-negative int"),
    ({"seed": True}, "seed must be None or a non-negative int"),
    ({"seed": "9"}, "seed must be None or a non-negative int"),
]


def aec(game: str, **config) -> OrderEnforcing:
    return OrderEnforcing(CardGameEnv(load_game(game, **config)))


def snapshot(env) -> tuple:
    """Everything a reset decides, from every seat's point of view."""
    e = env.unwrapped
    views = [e.observe(a) for a in e.possible_agents]
    return (
        e.agent_selection,
        e.state().tobytes(),
        tuple(v[k].tobytes() for v in views for k in ("observation", "action_mask", "unseen")),
    )


def play_randomly(env, rng: np.random.Generator, episodes: int = 1) -> None:
    for _ in range(episodes):
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        env.reset()


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("bad, words", BAD_RESETS)
def test_a_refused_aec_reset_leaves_the_stream_as_it_was(game, bad, words):
    ref, env = aec(game), aec(game)
    for e in (ref, env):
        e.reset(seed=1)
        play_randomly(e, np.random.default_rng(0))
    with pytest.raises(ValueError, match=words):
        env.reset(**bad)
    # the episode that was running is untouched, and the next deals are those of the seed-1 stream
    assert snapshot(env) == snapshot(ref)
    for _ in range(3):
        env.reset()
        ref.reset()
        assert snapshot(env) == snapshot(ref)


def test_a_refused_seeded_reset_keeps_the_carried_pot():
    config = {"num_players": 3, "payments_stay": True}
    env = aec("femkortskille", **config)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    engine = env.unwrapped.engine
    for _ in range(200):  # play until an episode leaves payments in the pot
        play_randomly(env, rng)
        if engine.pot_carried > 0:
            break
    carried = engine.pot_carried
    assert carried > 0, "no episode left a pot; choose another seed"
    for bad in ({"seed": 9, "options": {"dealer": 7}}, {"seed": 9, "options": "x"}, {"seed": 1.5}):
        with pytest.raises(ValueError):
            env.reset(**bad)
    env.reset()  # the episode that was dealt is dropped: the next one starts from the same carried pot
    assert engine.pot_carried == carried
    # a valid seeded reset still starts a new session with an empty pot
    env.reset(seed=9)
    assert engine.pot_carried == 0


def single_seat(game: str, **config) -> SingleSeatEnv:
    return SingleSeatEnv(game, config or None, seed=3)


def play_single(env: SingleSeatEnv, rng: np.random.Generator) -> None:
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, term, trunc, _ = env.step(action)
        done = term or trunc


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("bad, words", [*BAD_RESETS, ({"seed": 9, "options": {"seat": 7}}, "seat")])
def test_a_refused_single_seat_reset_leaves_the_stream_as_it_was(game, bad, words):
    ref, env = single_seat(game), single_seat(game)
    for e in (ref, env):
        e.reset(seed=1)
        play_single(e, np.random.default_rng(0))
    with pytest.raises(ValueError, match=words):
        env.reset(**bad)
    for _ in range(3):
        (o1, i1), (o2, i2) = env.reset(), ref.reset()
        assert np.array_equal(o1, o2) and i1 == i2
        assert np.array_equal(env.action_masks(), ref.action_masks())
        play_single(env, np.random.default_rng(5))
        play_single(ref, np.random.default_rng(5))


def test_a_refused_single_seat_reset_keeps_the_carried_pot():
    env = single_seat("femkortskille", num_players=3, payments_stay=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    engine = env.engine
    for _ in range(300):
        play_single(env, rng)
        env.reset()
        if engine.pot_carried > 0:
            break
    carried = engine.pot_carried
    assert carried > 0, "no episode left a pot; choose another seed"
    for bad in ({"seed": 9, "options": {"dealer": 7}}, {"seed": 9, "options": {"seat": -1}}, {"seed": 1.5}):
        with pytest.raises(ValueError):
            env.reset(**bad)
    env.reset()
    assert engine.pot_carried == carried
