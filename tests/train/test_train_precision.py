"""bfloat16 training: only the hidden layers of training's two passes change format, and only a little."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from kortmiljo.train.cli import main as train_main
from kortmiljo.train.policy import (
    AsymmetricMaskablePolicy,
    KortmiljoMaskablePolicy,
    TrainingSpeedups,
    native_bf16,
    resolve_train_precision,
)

from kortmiljo.env.training import SingleSeatEnv


def _model(privileged: bool = False):
    from sb3_contrib import MaskablePPO

    env = SingleSeatEnv("spokelse", privileged=privileged, seed=0)
    kwargs: dict = {"net_arch": {"pi": [64, 64], "vf": [64, 64]}}
    policy = KortmiljoMaskablePolicy
    if privileged:
        policy, kwargs["actor_dim"] = AsymmetricMaskablePolicy, env.actor_size
    model = MaskablePPO(policy, env, policy_kwargs=kwargs, n_steps=128, batch_size=64, n_epochs=1, seed=0)
    model.learn(128)  # one rollout in the buffer
    return env, model


def _evaluate(policy, batch, dtype):
    policy.train_dtype = dtype
    try:
        with torch.no_grad():
            return policy.evaluate_actions(batch.observations, batch.actions.long().flatten(), batch.action_masks)
    finally:
        policy.train_dtype = None


@pytest.mark.parametrize("privileged", [False, True])
def test_bf16_update_is_close_to_fp32_and_float32_outside(privileged):
    _, model = _model(privileged)
    batch = next(model.rollout_buffer.get(128))
    v32, lp32, ent32 = _evaluate(model.policy, batch, None)
    v16, lp16, ent16 = _evaluate(model.policy, batch, torch.bfloat16)
    for t in (v16, lp16, ent16):
        assert t.dtype == torch.float32  # the heads and the loss see float32
    assert not torch.equal(lp16, lp32)  # the hidden layers really ran in bfloat16
    torch.testing.assert_close(lp16, lp32, atol=0.02, rtol=0)
    torch.testing.assert_close(v16, v32, atol=0.02, rtol=0)
    torch.testing.assert_close(ent16, ent32, atol=0.02, rtol=0)


def test_bf16_update_trains_float32_weights():
    _, model = _model()
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    model.policy.train_dtype = torch.bfloat16
    model.train()
    after = model.policy.state_dict()
    assert all(v.dtype == torch.float32 for v in after.values())
    changed = [k for k in before if not torch.equal(before[k], after[k])]
    assert any(k.startswith("mlp_extractor.policy_net") for k in changed)  # gradients reach the bf16 layers
    assert any(k.startswith("mlp_extractor.value_net") for k in changed)


def test_batched_rollout_steps_use_bf16_evaluation_and_play_do_not():
    env, model = _model()
    pol = model.policy
    obs = np.stack([env.reset(seed=s)[0] for s in range(64)])
    x = torch.as_tensor(obs)
    masks = np.ones((64, env.action_space.n), dtype=bool)
    with torch.no_grad():
        plain_logits = pol.get_distribution(x).distribution.logits
        torch.manual_seed(0)
        plain = pol(x, deterministic=True, action_masks=masks)
        small = pol(x[:8], deterministic=True, action_masks=masks[:8])
        pol.train_dtype = torch.bfloat16
        logits = pol.get_distribution(x).distribution.logits  # what predict() and play read
        mixed = pol(x, deterministic=True, action_masks=masks)  # a rollout step of 64 lanes
        small_mixed = pol(x[:8], deterministic=True, action_masks=masks[:8])  # below autocast_min_rows
    torch.testing.assert_close(logits, plain_logits, atol=0, rtol=0)
    for a, b in zip(small_mixed, small, strict=True):
        torch.testing.assert_close(a, b, atol=0, rtol=0)
    _, v32, lp32 = plain
    _, v16, lp16 = mixed
    assert v16.dtype == lp16.dtype == torch.float32
    assert not torch.equal(lp16, lp32)
    torch.testing.assert_close(lp16, lp32, atol=0.02, rtol=0)
    torch.testing.assert_close(v16, v32, atol=0.02, rtol=0)


def test_auto_picks_bf16_only_with_native_support():
    assert resolve_train_precision("auto") == ("bf16" if native_bf16() else "fp32")
    assert resolve_train_precision("fp32") == "fp32" and resolve_train_precision("bf16") == "bf16"


@pytest.mark.parametrize("precision", ["bf16", "fp32"])
def test_cli_sets_the_update_precision(tmp_path, monkeypatch, precision):
    seen: set = set()
    evaluate = TrainingSpeedups.evaluate_actions

    def spy(self, *a, **k):
        seen.add(self.train_dtype)
        return evaluate(self, *a, **k)

    monkeypatch.setattr(TrainingSpeedups, "evaluate_actions", spy)
    out = tmp_path / precision
    argv = ["spokelse", "--timesteps", "256", "--out", str(out), "--eval-every", "0", "--eval-deals", "2"]
    argv += ["--opponents", "random", "--eval-opponents", "random", "--train-precision", precision]
    argv += ["--net", "32", "--n-envs", "2", "--n-steps", "128", "--batch-size", "128", "--n-epochs", "1"]
    assert train_main(argv + ["--no-progress", "--quiet"]) == 0
    assert seen == {torch.bfloat16 if precision == "bf16" else None}
    assert json.loads((out / "report.json").read_text())["train_precision"] == precision


def test_cli_refuses_an_unknown_precision(tmp_path, capsys):
    assert train_main(["spokelse", "--train-precision", "fp16", "--out", str(tmp_path / "bad")]) == 2
    assert "--train-precision" in capsys.readouterr().err and not (tmp_path / "bad").exists()


def test_rollout_sampling_follows_the_masked_distribution():
    env, model = _model()
    pol = model.policy
    obs, _ = env.reset(seed=2)
    n, rows = env.action_space.n, 40_000
    mask = np.ones(n, dtype=bool)
    mask[1] = False  # one legal action fewer than the engine allows: must never be drawn
    x = torch.as_tensor(np.repeat(obs[None], rows, axis=0))
    masks = np.repeat(mask[None], rows, axis=0)
    with torch.no_grad():
        torch.manual_seed(0)
        actions, _, log_prob = pol(x, action_masks=masks)
        dist = pol.get_distribution(x[:1], action_masks=masks[:1]).distribution
    want = dist.probs[0].numpy()
    got = np.bincount(actions.numpy(), minlength=n) / rows
    assert got[1] == 0 and want[1] < 1e-12
    tol = 4 * np.sqrt(want * (1 - want) / rows) + 1e-9  # four binomial standard errors per action
    assert np.all(np.abs(got - want) <= tol), (got, want)
    torch.testing.assert_close(log_prob, dist.logits[0][actions])


def test_adam_is_fused_where_torch_has_it_on_the_cpu():
    _, model = _model()
    try:
        torch.optim.Adam([torch.zeros(1, requires_grad=True)], fused=True)
        fused = True
    except RuntimeError:
        fused = False
    assert bool(model.policy.optimizer.defaults.get("fused")) == fused
