"""Oracle data on a batched engine (train/oracle_lanes.py): a chunk's games and rollouts are lanes of
the game's batched engine. The reference is the scalar path (``play_chunk(..., lanes=False)``): with
the heuristic, which decides each row on its own, a chunk must be the reference's bit for bit, in
every game and form, at a mixed table, with exploration, and whatever the lanes available. What the
data means is checked on both paths in test_oracle_data.py."""

from __future__ import annotations

import numpy as np
import pytest
from kortmiljo.agents.registry import make_agent
from kortmiljo.agents.search import SearchPolicy
from kortmiljo.train import oracle_lanes
from kortmiljo.train.oracle_data import play_chunk

from kortmiljo import load_game

CONFIGS = [
    ("sproyte", {}),
    ("sproyte", {"variant": "variasjon"}),
    ("sproyte", {"variant": "tretten", "match_to": 3}),  # a match of several deals: later deals from the lane's stream
    ("femkortskille", {}),
    ("femkortskille", {"num_players": 3}),
    ("femkortskille", {"num_players": 6}),
    ("spokelse", {}),
]


def chunk(g, seed, games, lanes, explore=0.2, share=0.0):
    heuristic = make_agent("heuristic", g, seed=0)
    them = make_agent("heuristic", g, seed=1) if share else None
    return play_chunk(g, heuristic, SearchPolicy(g, seed=0), games, seed, explore, them, share, lanes=lanes)


def assert_same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k], equal_nan=True), k


@pytest.mark.parametrize(("name", "config"), CONFIGS, ids=[f"{n}-{c}" for n, c in CONFIGS])
def test_a_chunk_on_lanes_is_the_scalar_chunk_bit_for_bit(name, config):
    g = load_game(name, **config)
    lanes = chunk(g, seed=7, games=3, lanes=True)
    assert len(lanes["action"]) > 0 and np.isfinite(lanes["q"]).any()
    assert_same(lanes, chunk(g, seed=7, games=3, lanes=False))


@pytest.mark.parametrize("name", ["sproyte", "femkortskille"])
def test_at_a_mixed_table_the_lanes_keep_each_games_table(name):
    g = load_game(name)
    lanes = chunk(g, seed=3, games=6, lanes=True, share=0.5)
    sizes = {len(set(lanes["seat"][lanes["game"] == gi].tolist())) for gi in np.unique(lanes["game"])}
    assert min(sizes) == 1 and max(sizes) > 1  # both kinds of game were played
    assert_same(lanes, chunk(g, seed=3, games=6, lanes=False, share=0.5))


def test_decisions_that_wait_for_free_lanes_record_the_same_chunk(monkeypatch):
    g = load_game("sproyte")
    plenty = chunk(g, seed=5, games=4, lanes=True)
    # 4 games and the least rollout lanes (one decision's worth, 107): many decisions find too few and wait
    monkeypatch.setattr(oracle_lanes, "LANES_PER_GAME", 0)
    monkeypatch.setattr(oracle_lanes, "_engines", {})
    waits = []
    decide = oracle_lanes._decide

    def counting(*args):
        went = decide(*args)
        waits.append(not went)
        return went

    monkeypatch.setattr(oracle_lanes, "_decide", counting)
    assert_same(chunk(g, seed=5, games=4, lanes=True), plenty)
    assert any(waits)


def test_a_network_plays_its_rollouts_in_batches_of_many_rows(monkeypatch):
    g = load_game("sproyte")
    policy = make_agent("pretrained", g, seed=0)
    sizes = []
    act_batch = policy.act_batch

    def counting(obs):
        sizes.append(len(obs["action_mask"]))
        return act_batch(obs)

    monkeypatch.setattr(policy, "act_batch", counting)
    d = play_chunk(g, policy, SearchPolicy(g, seed=0), 4, 3, 0.0)
    assert len(d["action"]) > 0 and max(sizes) >= 40


def test_search_as_the_policy_and_teaching_configurations_use_the_scalar_path():
    g = load_game("sproyte")
    assert oracle_lanes.supported(g, make_agent("heuristic", g, seed=0), None)
    assert not oracle_lanes.supported(g, make_agent("search", g, seed=0))
    teaching = load_game("femkortskille", hand_size=2)
    assert not oracle_lanes.supported(teaching, make_agent("heuristic", teaching, seed=0))
