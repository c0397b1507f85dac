"""A short run of benchmarks/guided_search.py, so that it keeps working: both searchers play the same
duplicate deals against the heuristic, and each reports its strength and its cost."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from guided_search import main  # noqa: E402


def test_guided_and_plain_search_are_measured_side_by_side(capsys):
    out = main(["sproyte", "--games", "3", "--h2h", "3", "--worlds", "2"])
    for key in ("search_v0", "guided", "guided_vs_search"):
        r = out[key]
        assert r["games"] >= 2 and r["ci95"][0] <= r["mean"] <= r["ci95"][1] and r["ms_per_decision"] > 0
    assert out["prior"] == "pretrained" and out["top"] == 2
    assert '"guided_vs_search"' in capsys.readouterr().out


def test_search_consistency_counts_departures_and_repeats():
    out = main(["femkortskille", "--consistency", "5"])
    assert out["positions"] == 5
    for key in ("searches_agree", "departs_from_heuristic", "second_departs", "departure_repeated"):
        assert 0.0 <= out[key] <= 1.0
    # where neither search departs from the heuristic, the two agree
    assert out["searches_agree"] >= 1.0 - out["departs_from_heuristic"] - out["second_departs"]
