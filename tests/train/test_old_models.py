"""A model saved by kortmiljo 0.1.0, before the game descriptors, still loads and computes the same logits."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from kortmiljo.agents.registry import make_agent  # noqa: E402

from kortmiljo import spokelse_v0  # noqa: E402

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "spokelse_model_v010"


def test_pre_descriptor_model_gives_the_recorded_logits():
    want = json.loads((FIXTURE / "expected_logits.json").read_text())
    pol = make_agent(f"ppo:{FIXTURE}", "spokelse", {}, seed=0)
    env = spokelse_v0.env()
    rng = np.random.default_rng(want["play_seed"])
    env.reset(seed=want["env_seed"])
    got = []
    for _agent in env.agent_iter():
        obs, _r, term, trunc, _info = env.last()
        action = None
        if not (term or trunc):
            logits = pol.masked_logits(pol.vector(obs)[None], obs["action_mask"][None])[0]
            got.append([None if not np.isfinite(v) else float(v) for v in logits])
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    assert len(got) == len(want["logits"])
    for g, w in zip(got, want["logits"], strict=True):
        assert [x is None for x in g] == [x is None for x in w]
        np.testing.assert_allclose([x for x in g if x is not None], [x for x in w if x is not None], atol=2e-4)


def test_the_pickled_class_of_a_0_1_0_model_maps_to_its_new_module_without_the_old_one():
    """0.1.0 installed the training code as the top-level package ``train``; its models name
    ``train.policy``. The class is found by name under ``kortmiljo.train`` instead, so loading
    never imports a ``train`` (which would be a user's own, or nothing, in an installed wheel)."""
    import sys

    from kortmiljo.agents.trained import _moved_policy_class
    from kortmiljo.train.policy import KortmiljoMaskablePolicy

    assert _moved_policy_class(FIXTURE / "model.zip") is KortmiljoMaskablePolicy
    assert "train" not in sys.modules and "train.policy" not in sys.modules
