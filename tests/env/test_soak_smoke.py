"""A short run of the soak benchmark, so that it keeps working (the full run is benchmarks/soak.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from soak import soak  # noqa: E402


def test_soak_short_run_checks_invariants():
    r = soak("spokelse", {"num_players": 3}, steps=3000, check_every=1)
    assert r["steps"] >= 3000 and r["episodes"] > 5
