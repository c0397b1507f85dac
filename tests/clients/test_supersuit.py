"""SuperSuit: its Box wrappers stack on ``flatten_observation(env, mask="info")``; the Dict view is refused."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import example, need

pytestmark = pytest.mark.clients

CASES = [("spokelse", {"num_players": 3}), ("sproyte", {}), ("femkortskille", {"poker": True})]


@pytest.fixture(scope="module")
def sst():
    need("supersuit")
    return example("supersuit_stack")


@pytest.mark.parametrize("game, config", CASES, ids=[g for g, _ in CASES])
def test_wrapper_stack_plays_whole_episodes(sst, game, config):
    from kortmiljo.core.registry import load_game

    g = load_game(game, **config)
    for ep in sst.play(game, episodes=3, **config):
        assert ep["illegal"] == 0
        assert sum(ep["returns"].values()) == pytest.approx(0.0, abs=1e-6)
        assert ep["shape"] == (3 * (g.layout.size + g.deck.width),)  # three frames of observation ++ unseen


def test_dict_observation_is_refused(sst):
    import supersuit as ss

    from kortmiljo import spokelse_v0

    with pytest.raises((AttributeError, AssertionError)):
        ss.frame_stack_v1(spokelse_v0.env(), 3).reset(seed=0)
    env = sst.make_env("spokelse")
    assert env.observation_space("player_0").dtype == np.float32
