"""benchmarks/oracle_gain.py: the heuristic never departs from itself, random play departs often and
loses on its departures, and the figures reach the command line."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from oracle_gain import main, oracle_gain  # noqa: E402

from agents.registry import make_agent  # noqa: E402
from kortmiljo import load_game  # noqa: E402


def test_the_heuristic_has_no_departures_to_gain_from():
    g = load_game("sproyte")
    out = oracle_gain(g, make_agent("heuristic", g, seed=3), games=3, seed=1)
    assert out["decisions"] > 0 and out["departures_per_game"] == 0 and out["gain_per_game"] == 0.0


def test_random_play_departs_and_loses_on_its_departures(capsys):
    out = main(["sproyte", "--agent", "random", "--games", "6", "--seed", "2"])
    assert out["departures_per_game"] > 1 and out["gain_per_departure"] < 0 and out["se_per_game"] > 0
    assert out["gain_per_game"] == pytest.approx(out["departures_per_game"] * out["gain_per_departure"], abs=0.01)
    assert '"gain_per_game"' in capsys.readouterr().out
