"""Shimmy: the OpenSpiel round trip passes ``api_test``; whole episodes show Shimmy's reward and
length bugs, which the example's subclass works around."""

from __future__ import annotations

import pytest

from .conftest import example, need

pytestmark = [pytest.mark.clients, pytest.mark.filterwarnings("ignore::UserWarning")]

GAMES = ["spokelse", "sproyte", "femkortskille"]


@pytest.fixture(scope="module")
def shm():
    need("shimmy", "pyspiel")
    return example("shimmy_openspiel")


@pytest.mark.parametrize("game", GAMES)
def test_round_trip_passes_api_test(shm, game):
    import pyspiel
    from pettingzoo.test import api_test

    from kortmiljo import openspiel

    api_test(shm.OpenSpielCompatibilityV0(env=pyspiel.load_game(openspiel.register(game))), num_cycles=100)


@pytest.mark.parametrize("game", GAMES)
def test_fixed_wrapper_plays_whole_episodes_exactly(shm, game):
    from kortmiljo import openspiel

    res = shm.play(openspiel.register(game), 10, shm.FixedOpenSpielCompatibility)
    assert res["illegal"] == 0 and res["truncated"] == 0
    assert res["wrong_sums"] == 0 and res["max_abs_sum"] == pytest.approx(0.0, abs=1e-9)


def test_stock_wrapper_bugs_as_documented(shm):
    """The figures of docs/clients.md: if Shimmy fixes a bug, this fails, and the docs must change."""
    from kortmiljo import openspiel

    sproyte = shm.play(openspiel.register("sproyte"), 10)
    assert sproyte["truncated"] >= 9 and sproyte["mean_decisions"] <= 45  # cut after 45 decisions
    femkortskille = shm.play(openspiel.register("femkortskille"), 10)
    assert femkortskille["wrong_sums"] == 10 and femkortskille["max_over_count"] == 4.0  # k-th to leave: k times
    kuhn = shm.play("kuhn_poker", 10)
    assert kuhn["truncated"] == 10 and kuhn["mean_decisions"] == 1.0
