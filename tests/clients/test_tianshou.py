"""Tianshou 2.0: the tic-tac-toe recipe (DQN against random) trains on every game, and beats random."""

from __future__ import annotations

import pytest

from .conftest import example, need

pytestmark = pytest.mark.clients

# (game, configuration): Sprøyte's variasjon has grand and nullo deals, whose trump is None at the end
SHORT = [("spokelse", {}), ("sproyte", {"variant": "variasjon"}), ("femkortskille", {"num_players": 3})]


@pytest.fixture(scope="module")
def ts():
    need("tianshou", "torch")
    return example("tianshou_dqn")


@pytest.mark.parametrize("game, config", SHORT, ids=[g for g, _ in SHORT])
def test_recipe_trains_without_error(ts, game, config):
    learner, collector = ts.train(game, config, epochs=1, epoch_steps=300, num_envs=2)
    assert collector.buffer.hasnull() is False and len(collector.buffer) > 300
    res = ts.evaluate(game, config, lambda obs, rng: ts.greedy_action(learner, obs), games=10)
    assert res["illegal"] == 0 and res["max_abs_sum"] == pytest.approx(0.0, abs=1e-9)


def test_learner_beats_random_after_a_short_run(ts):
    """Femkortskille, 6,000 env steps: knocking pays against random opponents, and DQN finds it.
    Win rate = share of games with a positive return, 400 seeded games per side (±0.05 at 95 %)."""
    learner, _ = ts.train("femkortskille", epochs=3, epoch_steps=2000)
    dqn = ts.evaluate("femkortskille", None, lambda obs, rng: ts.greedy_action(learner, obs), games=400)
    rnd = ts.evaluate("femkortskille", None, ts.random_choice, games=400)
    print(f"DQN win rate {dqn['win_rate']:.3f} vs random {rnd['win_rate']:.3f}")
    assert dqn["illegal"] == 0 and dqn["max_abs_sum"] == pytest.approx(0.0, abs=1e-9)
    assert dqn["win_rate"] > rnd["win_rate"] + 0.06
