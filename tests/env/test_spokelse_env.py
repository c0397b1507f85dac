"""The PettingZoo side of Spøkelse: API conformance, seeding, options, rendering, state."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from kortmiljo import spokelse_v0
from kortmiljo.core.cards import FRENCH

CONFIGS = [
    {},
    {"num_players": 3},
    {"num_players": 5},
    {"jack_points": 11},
    {"match_to": 21},
    {"match_to": 21, "reward": "points", "num_players": 3},
]


def trajectory(env, seed, options=None, policy_seed=0) -> list:
    """(agent, observation hash, reward, action) for one episode with a seeded random policy."""
    rng = np.random.default_rng(policy_seed)
    env.reset(seed=seed, options=options)
    out = []
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        digest = hashlib.sha1(obs["observation"].tobytes() + obs["unseen"].tobytes()).hexdigest()[:12]
        out.append((agent, digest, round(rew, 6), action))
        env.step(action)
    return out


def test_seeded_reset_is_reproducible_and_independent_of_global_rngs():
    env = spokelse_v0.env()
    a = trajectory(env, 7)
    random.seed(123)
    np.random.seed(123)
    np.random.random(10)
    b = trajectory(spokelse_v0.env(), 7)
    c = trajectory(env, 7)
    assert a == b == c
    assert trajectory(env, 8) != a


_HASH_SCRIPT = """
import hashlib, numpy as np
from kortmiljo import spokelse_v0
env = spokelse_v0.env(num_players=3, match_to=21)
rng = np.random.default_rng(0)
env.reset(seed=11)
h = hashlib.sha1()
for agent in env.agent_iter():
    obs, rew, term, trunc, info = env.last()
    a = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
    h.update(obs["observation"].tobytes()); h.update(repr((agent, rew, a, sorted(info.items()))).encode())
    env.step(a)
print(h.hexdigest())
"""


def test_trajectories_do_not_depend_on_pythonhashseed():
    outs = set()
    for hashseed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        res = subprocess.run([sys.executable, "-c", _HASH_SCRIPT], capture_output=True, text=True, env=env, check=True)
        outs.add(res.stdout.strip())
    assert len(outs) == 1 and len(next(iter(outs))) == 40


def test_options_deck_and_dealer():
    env = spokelse_v0.raw_env()
    codes = [FRENCH.code(c) for c in range(52)][::-1]
    env.reset(seed=0, options={"deck": codes, "dealer": 0})
    e = env.engine
    assert e.dealer == 0 and env.agent_selection == "player_1"
    assert e.ghost == [FRENCH.parse(codes[1]), FRENCH.parse(codes[0])]
    with pytest.warns(UserWarning, match="unknown reset option.*some_other_key.*allowed keys"):
        env.reset(seed=0, options={"some_other_key": 1})  # other keys are ignored, no longer silently
    with pytest.raises(ValueError, match="missing"):
        env.reset(options={"deck": codes[:-1]})
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"dealer": 5})


def test_action_string_round_trip_on_env():
    env = spokelse_v0.raw_env()
    assert [env.action_to_string(i) for i in range(7)] == [
        "draw",
        "take",
        "swap:0",
        "swap:1",
        "swap:2",
        "swap:3",
        "discard",
    ]
    assert env.action_from_string("Swap:3") == 5


def test_infos_and_rewards_at_the_end():
    env = spokelse_v0.env(num_players=3, reward="points")
    trajectory(env, 5)
    e = env.unwrapped.engine
    assert e.terminal
    env2 = spokelse_v0.env(num_players=3, reward="points")
    env2.reset(seed=5)
    rng = np.random.default_rng(0)
    final = {}
    for agent in env2.agent_iter():
        obs, rew, term, trunc, info = env2.last()
        if term:
            final[agent] = (rew, info)
            env2.step(None)
            continue
        env2.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert set(final) == {"player_0", "player_1", "player_2"}
    assert abs(sum(r for r, _ in final.values())) < 1e-9
    for _rew, info in final.values():
        assert set(info) >= {"round_points", "match_points"} and info["round_points"] == info["match_points"]


def test_render_ansi_hides_face_down_cards_and_reveals_at_end():
    env = spokelse_v0.env(render_mode="ansi")
    codes = [FRENCH.code(c) for c in range(52)]
    env.reset(options={"deck": codes, "dealer": 1})
    text = env.render()
    assert "player_0" in text and "to move" in text and "??" in text
    assert "3♠" in text and "5♠" in text  # player_0 (on move) sees its slots 0 and 1
    assert "4♠" not in text.split("player_1:")[1]  # player_1's face-down slots hidden
    env.step(0)
    assert "holding" in env.render() and "drawn from stock" in env.render()
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        if term:
            text = env.render()
            assert "??" not in text and "points" in text and "over" in text
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_bad_config_and_render_mode():
    with pytest.raises(ValueError, match="num_players=7"):
        spokelse_v0.env(num_players=7)
    with pytest.raises(ValueError, match="render_mode"):
        spokelse_v0.env(render_mode="rgb_array")
