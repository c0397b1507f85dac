"""The stateful fuzz (:mod:`.fuzz`) of every game and example configuration: a few hundred
accepted actions each, interleaved with refused actions and resets, reads and renders; the run is
deterministic (seeded per configuration), and every kind of operation must have happened."""

from __future__ import annotations

import pytest

from .fuzz import OPERATIONS, fuzz
from .games import conformance_cases

CASES = conformance_cases()
IDS = [c.id for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fuzz(case):
    f = fuzz(case.definition, case.config, seed=case.seed, steps=300 if case.long else 600)
    missing = [op for op in OPERATIONS if not f.counts[op]]
    assert not missing, f"the fuzz never ran {missing}: {dict(f.counts)}"
    if not case.long:
        assert f.episodes >= 2, f"only {f.episodes} episodes reached their end"


def test_fuzz_is_deterministic():
    case = next(c for c in CASES if not c.long)
    a = fuzz(case.definition, case.config, seed=5, steps=100)
    b = fuzz(case.definition, case.config, seed=5, steps=100)
    assert a.counts == b.counts and a.episodes == b.episodes
    assert a.raw.engine.history == b.raw.engine.history
