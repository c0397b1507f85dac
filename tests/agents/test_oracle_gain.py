"""benchmarks/oracle_gain.py: the heuristic never departs from itself, random play departs often and
loses on its departures, and the figures reach the command line."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from kortmiljo.agents.registry import make_agent  # noqa: E402
from oracle_gain import main, oracle_gain  # noqa: E402

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


def test_a_baseline_other_than_the_heuristic_is_departed_from_and_rolled_out():
    g = load_game("sproyte")
    # v2 against itself: no departures; random play against v2: departures, scored by v2's rollouts
    same = oracle_gain(g, make_agent("pretrained_v2", g, seed=0), games=3, seed=1, baseline="pretrained_v2")
    assert same["decisions"] > 0 and same["departures_per_game"] == 0
    other = oracle_gain(g, make_agent("random", g, seed=0), games=4, seed=1, baseline="pretrained_v2")
    assert other["departures_per_game"] > 1 and other["gain_per_departure"] < 0 and other["se_per_game"] > 0
