"""Every game and example configuration loads in OpenSpiel and passes ``pyspiel.random_sim_test``
(random playouts through chance nodes and decisions, with every state serialised and restored,
checking returns, utilities, legal actions and observations on the way)."""

from __future__ import annotations

import pytest

from .games import conformance_cases

pyspiel = pytest.importorskip("pyspiel")
openspiel = pytest.importorskip("kortmiljo.openspiel")

CASES = conformance_cases()
IDS = [c.id for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_random_sim_test(case):
    game = pyspiel.load_game(openspiel.register(case.name, **case.config))
    facts = case.game().facts
    assert game.num_players() == case.game().num_players
    assert (game.min_utility(), game.max_utility()) == facts.utility_bounds
    zero_sum = game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert zero_sum == facts.zero_sum
    pyspiel.random_sim_test(game, num_sims=1 if case.long else 4, serialize=True, verbose=False)
