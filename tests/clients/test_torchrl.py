"""TorchRL: ``PettingZooWrapper(use_mask=True)`` passes ``check_env_specs`` and rolls out whole
episodes with masked categorical sampling: no illegal action, zero-sum returns."""

from __future__ import annotations

import pytest

from .conftest import example, need

pytestmark = pytest.mark.clients

CASES = [("spokelse", {}), ("sproyte", {"variant": "tretten"}), ("femkortskille", {"num_players": 5})]


@pytest.fixture(scope="module")
def trl():
    need("torchrl", "tensordict", "torch")
    return example("torchrl_rollout")


@pytest.mark.parametrize("game, config", CASES, ids=[g for g, _ in CASES])
def test_masked_rollout(trl, game, config):
    episodes = trl.play(game, episodes=2, **config)
    for ep in episodes:
        assert ep["illegal"] == 0 and ep["steps"] > 1
        assert sum(ep["returns"].values()) == pytest.approx(0.0, abs=1e-5)
        assert any(ep["returns"].values())  # the final rewards came through


def test_plain_env_needs_numeric_infos(trl):
    """Without ``numeric_infos`` TorchRL fails on the string info fields at construction."""
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    from kortmiljo import sproyte_v0

    with pytest.raises(TypeError, match="str"):
        PettingZooWrapper(sproyte_v0.env(), use_mask=True)
