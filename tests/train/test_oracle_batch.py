"""Oracle data with a network policy (train/oracle_batch.py): a chunk's games and rollouts played at
once, the network's moves answered a round at a time. What it records is checked with the scalar
path's properties in test_oracle_data.py (the played move scores the real return, every recorded move
is the policy's own); here: that it really batches, that a chunk depends on its seed alone, and that
each rollout is the game its action leads to."""

from __future__ import annotations

import numpy as np
import pytest
from kortmiljo.agents.registry import make_agent
from kortmiljo.agents.search import SearchPolicy
from kortmiljo.train import oracle_batch
from kortmiljo.train.oracle_data import play_chunk, rollout, seat_player

from kortmiljo import load_game


def chunk(g, seed, games=2, **kw):
    return play_chunk(g, make_agent("pretrained", g, seed=0), SearchPolicy(g, seed=0), games, seed, 0.05, **kw)


@pytest.mark.parametrize("name", ["sproyte", "femkortskille"])
def test_a_network_chunk_is_played_in_batches_of_many_rows(name, monkeypatch):
    g = load_game(name)
    sizes = []
    decide = oracle_batch.decide

    def counting(policy, requests):
        sizes.append(len(requests))
        return decide(policy, requests)

    monkeypatch.setattr(oracle_batch, "decide", counting)
    d = chunk(g, seed=3, games=4)
    assert len(d["action"]) > 0
    # every game's first move comes in one round, and rollouts of several games and actions share rounds
    assert sizes[0] == 4 and max(sizes) >= 8 and sum(sizes) > 4 * len(sizes)


@pytest.mark.parametrize("name", ["sproyte", "femkortskille"])
def test_a_chunk_depends_on_its_seed_alone(name):
    g = load_game(name)
    a, b, other = chunk(g, seed=11), chunk(g, seed=11), chunk(g, seed=12)
    assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)
    assert not np.array_equal(a["obs"][:5], other["obs"][:5])


def test_the_lockstep_rollouts_score_what_one_rollout_at_a_time_scores():
    """Each lane's score is the scalar rollout of the same action from the same state and stream."""
    g = load_game("sproyte")
    policy = make_agent("pretrained", g, seed=0)
    e = g.new_state()
    e.new_episode(np.random.default_rng(8))
    for _ in range(4):  # a few moves in: past the exchange
        e.step(int(policy.act_seat(e, e.current_player)))
    p = e.current_player
    legal = np.flatnonzero(e.observation(p)["action_mask"])
    assert len(legal) > 1
    sims = []
    for b in legal:
        sim = e.clone(rng=oracle_batch.LazyGenerator(99))
        sim.step(int(b))
        sims.append(sim)
    lanes = oracle_batch.rollouts(sims, p, lambda seat: True, None)
    requests, rounds = next(lanes), 0
    try:
        while True:
            rounds += 1
            requests = lanes.send(oracle_batch.decide(policy, requests))
    except StopIteration as done:
        batched = done.value
    scalar = [rollout(e, p, int(b), seat_player(policy), 99) for b in legal]
    assert rounds > 1 and batched == pytest.approx(scalar)
