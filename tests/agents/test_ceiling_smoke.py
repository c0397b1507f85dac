"""A short run of benchmarks/spokelse_ceiling.py, so that it keeps working."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import numpy as np  # noqa: E402
from kortmiljo.agents.spokelse_heuristic import SpokelseHeuristic, _Batch  # noqa: E402
from spokelse_ceiling import EndgameOracle, duel, luck, oracle  # noqa: E402

from kortmiljo import load_game  # noqa: E402

SPOKELSE = load_game("spokelse")  # the configured game the policies are built for


def test_luck_figures_are_consistent():
    r = luck(60, seed=0)
    assert r["games"] == 60
    assert 0 <= r["slot_sum_mean"] < r["ghost_mean"]  # good players end with low slots; the ghost is dealt
    assert 0 < r["lower_slot_sum_loses"] < 1 and r["reward_per_point"] > 0


def test_perfect_belief_search_runs():
    r = oracle(1, worlds=2, seed=0)
    assert r["games"] == 2 and -1 <= r["mean_reward"] <= 1


def test_batched_duel_of_equal_players_is_exactly_even():
    r = duel(SpokelseHeuristic(SPOKELSE), SpokelseHeuristic(SPOKELSE), 300, seed=0, chunk=128)
    assert r["games"] == 600 and r["mean_reward"] == 0 and r["deals_that_differ"] == 0
    late = duel(SpokelseHeuristic(SPOKELSE, late_take=(5, 0.5)), SpokelseHeuristic(SPOKELSE), 4000, 0)
    assert late["deals_that_differ"] > 0 and late["ci95"][0] <= late["mean_reward"] <= late["ci95"][1]


def test_endgame_oracle_plays_legal_moves_and_keeps_v0_early():
    e, v0, oracle = SPOKELSE.new_state(), SpokelseHeuristic(SPOKELSE), EndgameOracle(SPOKELSE, 4)
    rng = np.random.default_rng(1)
    deviations = 0
    for _ in range(30):
        e.new_episode(rng)
        while not e.terminal:
            a = int(oracle._decide_rows(_Batch.pack([e], 2), np.array([0]))[0])
            assert e.legal_mask()[a]
            if len(e.stock) > 4:
                assert a == v0.act_seat(e, e.current_player)
            deviations += a != v0.act_seat(e, e.current_player)
            e.step(a)
    assert deviations > 0
