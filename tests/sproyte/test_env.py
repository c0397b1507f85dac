"""The PettingZoo side of Sprøyte: API conformance and seeding per form and option set,
reset options, infos, rendering and state."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from kortmiljo import sproyte_v0
from kortmiljo.core.cards import FRENCH

from .conftest import stacked

CONFIGS = [
    {"variant": "vanlig"},
    {"variant": "variasjon"},
    {"variant": "tretten"},
    {"match_to": 10},
    {"variant": "variasjon", "exchange_quota": (4, 4, 4), "reward": "raw"},
    {"variant": "tretten", "trump": "H", "match_to": 10},
]
IDS = ["vanlig", "variasjon", "tretten", "vanlig-match", "variasjon-quota-raw", "tretten-trumpH-match"]


def trajectory(env, seed, options=None, policy_seed=0) -> list:
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


@pytest.mark.parametrize("variant", ["vanlig", "variasjon", "tretten"])
def test_seeded_reset_is_reproducible_and_independent_of_global_rngs(variant):
    env = sproyte_v0.env(variant=variant)
    a = trajectory(env, 7)
    random.seed(123)
    np.random.seed(123)
    np.random.random(10)
    assert trajectory(sproyte_v0.env(variant=variant), 7) == a == trajectory(env, 7)
    assert trajectory(env, 8) != a


_HASH_SCRIPT = """
import hashlib, numpy as np
from kortmiljo import sproyte_v0
env = sproyte_v0.env(variant="variasjon", match_to=10)
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
    env = sproyte_v0.raw_env(variant="tretten")
    codes = [FRENCH.code(c) for c in range(52)][::-1]
    env.reset(seed=0, options={"deck": codes, "dealer": 0})
    e = env.engine
    assert e.dealer == 0 and env.agent_selection == "player_1"  # forhånd
    assert FRENCH.parse(codes[0]) in e.hands[1] and FRENCH.parse(codes[3]) in e.talon
    with pytest.warns(UserWarning, match="unknown reset option.*some_other_key.*allowed keys"):
        env.reset(seed=0, options={"some_other_key": 1})  # other keys are ignored, no longer silently
    with pytest.raises(ValueError, match="missing"):
        env.reset(options={"deck": codes[:-1]})
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"dealer": 3})
    with pytest.raises(ValueError, match="not in the 48-card"):
        sproyte_v0.env().reset(options={"deck": codes[:48]})


def test_first_dealer_is_drawn_from_the_seed():
    dealers = set()
    for seed in range(30):
        env = sproyte_v0.raw_env()
        env.reset(seed=seed)
        dealers.add(env.engine.dealer)
        env.reset(seed=seed)
        assert env.engine.dealer in dealers
    assert dealers == {0, 1, 2}


def test_spaces_masks_and_unseen():
    env = sproyte_v0.env(variant="variasjon")
    env.reset(seed=1)
    mover = env.agent_selection
    assert env.action_space(mover).n == 107
    for agent in env.agents:
        obs = env.observe(agent)
        assert set(obs) == {"observation", "action_mask", "unseen"}
        assert obs["unseen"].shape == (52,) and obs["unseen"].dtype == np.int8
        assert obs["action_mask"].dtype == np.int8 and obs["observation"].dtype == np.float32
        assert obs["action_mask"].any() == (agent == mover)
        assert env.observation_space(agent).contains(obs)
        assert obs["observation"].min() >= 0 and obs["observation"].max() <= 1


def test_action_string_round_trip_on_env():
    env = sproyte_v0.raw_env()
    assert [env.action_to_string(i) for i in (0, 52, 53, 54, 55, 106)] == [
        "discard:AS",
        "done",
        "take_talon",
        "keep",
        "play:AS",
        "play:KC",
    ]
    assert env.action_from_string("play:QS") == 55 + 11 and env.action_from_string("discard:TH") == 13 + 9


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_infos_and_rewards_at_the_end(config):
    env = sproyte_v0.env(**config)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    final = {}
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        if term:
            final[agent] = (rew, info)
            env.step(None)
            continue
        assert info == env.unwrapped.engine.INFO_NEUTRAL  # the same keys at every step, neutral until the end
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert set(final) == {"player_0", "player_1", "player_2"}
    rewards = [final[a][0] for a in env.possible_agents]
    if config.get("reward", "relative") == "relative":
        assert abs(sum(rewards)) < 1e-9
    for _, info in final.values():
        # the rules' result fields, plus the numeric twins and truncated_by (docs/sproyte.md, Infos)
        assert set(info) == {"tricks", "deal_points", "match_points", "contract", "trump"} | {
            "contract_id",
            "trump_id",
            "truncated_by",
        }
        if "match_to" not in config:
            assert info["match_points"] == info["deal_points"]
        else:
            assert max(final[a][1]["match_points"] for a in final) >= 10


def test_render_ansi_and_human(capsys):
    env = sproyte_v0.env(render_mode="ansi", variant="variasjon")
    env.reset(options={"deck": stacked("variasjon", 1, {}, shown="QH"), "dealer": 1})
    text = env.render()
    assert "Sprøyte (variasjon)" in text and "grand" in text and "shown Q♥" in text
    assert "to move" in text and "12 cards" in text and "[view of player_2]" in text
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        if term:
            assert "deal over" in env.render()
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    human = sproyte_v0.env(render_mode="human")
    human.reset(seed=0)
    human.render()
    assert "Sprøyte" in capsys.readouterr().out


def test_bad_config_and_render_mode():
    with pytest.raises(ValueError, match="variant"):
        sproyte_v0.env(variant="sju")
    with pytest.raises(ValueError, match="render_mode"):
        sproyte_v0.env(render_mode="rgb_array")
