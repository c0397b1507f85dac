"""``Policy.act_explained``: the move ``act`` makes, with the probabilities and value records store."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from kortmiljo.agents.registry import make_agent
from kortmiljo.agents.search import SearchPolicy, world_votes

from kortmiljo import load_game

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "spokelse_model_v010"


def positions(game: str, n: int, seed: int = 0, config: dict | None = None):
    """``n`` engines (clones) at decisions with more than one legal action, spread over an episode
    of heuristic play (so every stage of the game is among them)."""
    g = load_game(game, **(config or {}))
    e = g.new_state()
    e.new_episode(np.random.default_rng(seed))
    driver = make_agent("heuristic", g, seed=seed)
    out = []
    while not (e.terminal or e.truncated):
        obs = e.observation(e.current_player)
        if obs["action_mask"].sum() > 1:
            out.append(e.clone())
        e.step(driver.act(obs))
    return g, [out[i] for i in sorted(set(np.linspace(0, len(out) - 1, n).astype(int).tolist()))]


def check_policy(probs: dict, obs: dict) -> None:
    legal = {int(a) for a in np.flatnonzero(obs["action_mask"])}
    assert set(probs) == legal  # one probability per legal action, none for an illegal one
    assert all(0.0 <= p <= 1.0 for p in probs.values())
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-9)


def test_world_votes():
    samples = np.array([[1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    # column 0: every action ties (no vote); 1: action 11; 2: action 10; 3: all tie
    got = world_votes(samples, np.ones(4), [10, 11, 12])
    assert got == pytest.approx({10: 0.5, 11: 0.5, 12: 0.0})
    weighted = world_votes(samples, np.array([1.0, 3.0, 1.0, 1.0]), [10, 11, 12])
    assert weighted == pytest.approx({10: 0.25, 11: 0.75, 12: 0.0})
    assert world_votes(np.zeros((2, 3)), np.ones(3), [4, 5]) == {4: 0.5, 5: 0.5}


@pytest.mark.parametrize("game", ["spokelse", "sproyte", "femkortskille"])
def test_search_explains_the_move_act_makes(game):
    g, states = positions(game, 6, seed=1)
    kw = {"worlds": 3, "step_budget": None}
    plain, explained = SearchPolicy(g, seed=5, **kw), SearchPolicy(g, seed=5, **kw)
    searched = 0
    for e in states:
        obs = e.observation(e.current_player)
        want = plain.act(obs, e.clone())
        action, probs, value = explained.act_explained(obs, e.clone())
        assert action == want
        check_policy(probs, obs)
        if explained.last_samples is None:  # a stage left to the heuristic: its move, no estimate
            assert probs[action] == 1.0 and value is None
        else:
            searched += 1
            assert value == pytest.approx(explained.last_scores[action])
        assert plain.rng.bit_generator.state == explained.rng.bit_generator.state  # the same draws
    assert searched >= 2


def test_search_single_legal_action_is_certain():
    g, states = positions("spokelse", 1)
    e = states[0]
    obs = e.observation(e.current_player)
    only = int(np.flatnonzero(obs["action_mask"])[0])
    obs = {**obs, "action_mask": np.eye(len(obs["action_mask"]), dtype=obs["action_mask"].dtype)[only]}
    assert SearchPolicy(g, seed=0).act_explained(obs, e) == (only, {only: 1.0}, None)


@pytest.mark.parametrize("spec", ["random", "heuristic"])
def test_other_agents_choose_as_act_does(spec):
    g, states = positions("sproyte", 6, seed=2)
    a, b = make_agent(spec, g, seed=3), make_agent(spec, g, seed=3)
    for e in states:
        obs = e.observation(e.current_player)
        action, probs, value = b.act_explained(obs)
        assert action == a.act(obs)
        assert value is None
        if spec == "random":
            check_policy(probs, obs)
        else:
            assert probs is None  # a heuristic explains nothing


@pytest.fixture(scope="module")
def ppo_models():
    pytest.importorskip("sb3_contrib")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fixture predates fingerprints: the loader warns
        return {
            d: [make_agent(f"ppo:{FIXTURE}", "spokelse", seed=7, deterministic=d) for _ in range(2)]
            for d in (True, False)
        }


@pytest.mark.parametrize("deterministic", [True, False])
def test_ppo_explains_its_distribution_and_value(ppo_models, deterministic):
    import torch

    plain, explained = ppo_models[deterministic]
    plain.seed(11)
    explained.seed(11)
    _, states = positions("spokelse", 12, seed=4)
    for e in states:
        obs = e.observation(e.current_player)
        action, probs, value = explained.act_explained(obs)
        assert action == plain.act(obs)
        check_policy(probs, obs)
        logits = plain.masked_logits(plain.vector(obs)[None], obs["action_mask"][None])[0]
        z = np.exp(logits - logits.max())
        want = z / z.sum()
        assert [probs[a] for a in sorted(probs)] == pytest.approx([want[a] for a in sorted(probs)], abs=1e-6)
        if deterministic:
            assert action == int(np.argmax(logits))
        with torch.no_grad():
            critic = plain.net.predict_values(torch.as_tensor(plain.vector(obs)[None], dtype=torch.float32))
        assert value == pytest.approx(float(critic.reshape(-1)[0]), abs=1e-5)
