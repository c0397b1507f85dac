"""RLlib's ``PettingZooEnv``: its env checker refuses the plain env (unmasked random actions) and
passes with ``TerminateIllegalWrapper``; masked play is legal and zero-sum. Needs the rllib extra."""

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
    assert rl.check(game, checker_safe=False) is not None  # the misleading "step() seems to be faulty"
    assert rl.check(game, checker_safe=True) is None
    for ep in rl.play(game, episodes=2):
        assert ep["illegal"] == 0
        assert sum(ep["returns"].values()) == pytest.approx(0.0, abs=1e-9) and any(ep["returns"].values())
