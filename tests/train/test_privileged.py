"""The asymmetric actor-critic: hidden state reaches the critic only, never the policy."""

from __future__ import annotations

import numpy as np
import torch
from kortmiljo.agents.trained import PPOPolicy, actor_logits

from kortmiljo import load_game
from kortmiljo.env.training import SingleSeatEnv, privileged_features


def _model():
    from kortmiljo.train.policy import AsymmetricMaskablePolicy
    from sb3_contrib import MaskablePPO

    env = SingleSeatEnv("spokelse", privileged=True, seed=0)
    kwargs = {"net_arch": {"pi": [32], "vf": [32]}, "actor_dim": env.actor_size}
    return env, MaskablePPO(AsymmetricMaskablePolicy, env, policy_kwargs=kwargs, n_steps=64, batch_size=64, seed=0)


def test_privileged_view_layout():
    env, _ = _model()
    obs, info = env.reset(seed=3)
    e = env.engine
    assert env.obs_size == env.actor_size + env.privileged_size == len(obs)
    np.testing.assert_array_equal(obs[: e.layout.size], e.observe(info["seat"]))
    priv = obs[env.actor_size :]
    np.testing.assert_array_equal(priv, privileged_features(e, info["seat"]))
    # Spøkelse: own ghost first, then own slots, …, then the stock top first with its mask
    assert priv[0] == np.float32(e.points[e.ghost[info["seat"]]] / 13)
    k, n, S = e.num_slots, e.num_players, e.stock_start
    assert priv[n * (k + 1)] == np.float32(e.points[e.stock[-1]] / 13)
    assert priv[n * (k + 1) + S : n * (k + 1) + 2 * S].sum() == len(e.stock)


def test_actor_ignores_privileged_inputs_critic_does_not():
    env, model = _model()
    pol = model.policy
    obs, _ = env.reset(seed=1)
    x = torch.as_tensor(np.stack([obs, obs]))
    x[1, env.actor_size :] = torch.rand(env.privileged_size)  # other hidden cards
    with torch.no_grad():
        logits = actor_logits(pol, x)
        values = pol.predict_values(x)
    torch.testing.assert_close(logits[0], logits[1])
    assert values[0].item() != values[1].item()


def test_trained_policy_plays_without_privileged_inputs(tmp_path):
    env, model = _model()
    model.learn(64)
    player = PPOPolicy(load_game("spokelse"), model.policy, privileged_size=env.privileged_size)
    obs, info = env.reset(seed=5)
    o = env.engine.observation(info["seat"])
    x = torch.as_tensor(obs[None, :])
    with torch.no_grad():
        full = actor_logits(model.policy, x)[0].numpy()
    want = int(np.where(o["action_mask"] > 0, full, -np.inf).argmax())
    assert player.act(o) == want
