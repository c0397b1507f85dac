"""The PettingZoo side of Femkortskille: API conformance, seeding, options, carry-over, infos."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from kortmiljo import femkortskille_v0

from .conftest import stacked

CONFIGS = [
    {"num_players": 3},
    {},
    {"num_players": 5},
    {"num_players": 8},
    {"skituppslag": True},
    {"knock_stake": 1},
    {"payments_stay": True},
    {"auktion": True},
    {"auktion": True, "max_bet": 3, "num_players": 5},
    {"poker": True},
    {"poker": True, "num_players": 8},
    {"ante_on_redeal": True, "max_deals": 3},
    {"num_players": 6, "skituppslag": True, "knock_stake": 1, "payments_stay": True, "auktion": True, "poker": True},
]
IDS = [",".join(f"{k}={v}" for k, v in c.items()) or "default" for c in CONFIGS]


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


@pytest.mark.parametrize("config", [{}, {"poker": True, "num_players": 5}])
def test_seeded_reset_is_reproducible_and_independent_of_global_rngs(config):
    env = femkortskille_v0.env(**config)
    a = trajectory(env, 7)
    random.seed(123)
    np.random.seed(123)
    np.random.random(10)
    b = trajectory(femkortskille_v0.env(**config), 7)
    c = trajectory(env, 7)
    assert a == b == c
    assert trajectory(env, 8) != a


def test_spaces_are_fixed_per_configuration_and_grow_with_players():
    sizes = {}
    for n in (3, 4, 8):
        env = femkortskille_v0.env(num_players=n)
        sp = env.observation_space("player_0")
        sizes[n] = sp["observation"].shape[0]
        assert sp["unseen"].shape == (42,) and sp["action_mask"].shape == (24,)
        assert env.action_space("player_0").n == 24
    assert sizes[3] < sizes[4] < sizes[8]
    assert femkortskille_v0.env(poker=True).action_space("player_0").n == 51


def test_stacked_deck_and_dealer_through_reset_options():
    env = femkortskille_v0.env()
    deck = stacked(4, 1, {2: ["kille", "kuku", "husar"]})
    env.reset(seed=0, options={"deck": deck, "dealer": 1, "unrelated": 3})
    e = env.unwrapped.engine
    assert e.dealer == 1 and env.agent_selection == "player_2"
    obs = env.observe("player_2")
    assert obs["observation"][:21].tolist().count(1.0) == 3 and obs["observation"][20] == 1
    bad = deck[:]
    bad[bad.index("5")] = "kille"  # a third kille
    with pytest.raises(ValueError, match="duplicate"):
        env.reset(seed=0, options={"deck": bad})


def play_episode(env, policy_seed=0):
    rng = np.random.default_rng(policy_seed)
    for _agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.unwrapped.engine


def test_payments_stay_pot_carries_over_unseeded_resets_and_a_seeded_reset_starts_afresh():
    env = femkortskille_v0.env(payments_stay=True)
    carried = []
    env.reset(seed=3)
    for i in range(30):
        e = play_episode(env, i)
        carried.append(e.pot)
        assert e.info(0)["pot"] == e.pot
        env.reset()
        assert env.unwrapped.engine.pot_carried == carried[-1]
        assert env.unwrapped.engine.pot == carried[-1] + 4
        o = env.unwrapped.engine.layout.split(env.observe(env.agent_selection)["observation"])
        assert o["pot_carried"][0] == carried[-1]
    assert any(carried)  # some episode left payments in the pot
    env.reset(seed=3)
    assert env.unwrapped.engine.pot == 4 and env.unwrapped.engine.pot_carried == 0


def test_rewards_are_net_chips_and_infos_carry_chips_pot_knocked():
    env = femkortskille_v0.env(knock_stake=1)
    env.reset(seed=0)
    totals = {a: 0.0 for a in env.possible_agents}
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        totals[agent] += rew
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if term or trunc:
            assert set(info) >= {"chips", "pot", "knocked"}
            assert info["chips"] == pytest.approx(totals[agent])
            assert isinstance(info["knocked"], bool)
    assert sum(totals.values()) == pytest.approx(0.0)


def test_truncation_after_max_deals_through_the_env():
    env = femkortskille_v0.env(max_deals=2)
    env.reset(seed=0)
    for _ in range(8):
        env.step(env.unwrapped.action_from_string("pass"))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(env.infos[a]["chips"] == 0.0 and env.infos[a]["winner"] is None for a in env.agents)


def test_render_and_state():
    env = femkortskille_v0.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("Femkortskille") and "player_0" in text
    assert env.state().shape == env.unwrapped.state_space.shape
