"""RLlib's ``PettingZooEnv``: its env checker, whose one random action is seeded to be legal or not,
refuses the plain env exactly when that action is illegal, and passes with ``TerminateIllegalWrapper``
either way; masked play is legal and zero-sum. Needs the rllib extra."""

from __future__ import annotations

import pytest

from .conftest import example

pytest.importorskip("ray.rllib")
pytestmark = pytest.mark.rllib


@pytest.fixture(scope="module")
def rl():
    return example("rllib_pettingzoo")


@pytest.mark.parametrize("game", ["spokelse", "sproyte", "femkortskille"])
def test_env_checker_and_masked_play(rl, game):
    failed = rl.check(game, checker_safe=False, legal=False)
    assert failed is not None and "the `step()` method seems to be faulty" in failed  # misleading: it was the action
    assert rl.check(game, checker_safe=False, legal=True) is None
    assert rl.check(game, checker_safe=True, legal=False) is None
    assert rl.check(game, checker_safe=True, legal=True) is None
    for ep in rl.play(game, episodes=2):
        assert ep["illegal"] == 0
        assert sum(ep["returns"].values()) == pytest.approx(0.0, abs=1e-9) and any(ep["returns"].values())
