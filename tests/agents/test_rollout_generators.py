"""Search's and oracle data's rollouts build no random generator that nothing draws from, copy no
generator, and give the same decisions and data as eager generators did (issue #51: every rollout
built two generators no heuristic drew from, and its clone copied the live one first).

A spy on ``np.random.default_rng`` records every generator built during one search decision (one
oracle rollout), and each must have been drawn from by the end; a spy on ``copy.deepcopy`` counts
the generators copied. The streams a rollout is handed are
:class:`~kortmiljo.core.engine.LazyGenerator`\\ s, built only where a deal (or random play) draws;
replacing them with eager ``default_rng`` gives the same numbers, and a seed gives the same
decisions and data twice.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from kortmiljo.agents import search as search_module
from kortmiljo.agents.registry import make_agent
from kortmiljo.agents.search import SearchPolicy
from kortmiljo.train import oracle_data
from kortmiljo.train.oracle_data import play_chunk, rollout, seat_player

from kortmiljo import load_game
from kortmiljo.games.femkortskille import rules as femkortskille_rules
from kortmiljo.games.spokelse import rules as spokelse_rules
from kortmiljo.games.sproyte import rules as sproyte_rules

# Sproyte and Femkortskille roll out one clone at a time; Spøkelse's match deals again within rollouts
GAMES = [("sproyte", {}), ("femkortskille", {}), ("spokelse", {"match_to": 30})]


class GeneratorSpy:
    """Records every generator ``np.random.default_rng`` builds (with its first state) and every
    generator ``copy.deepcopy`` copies."""

    def __init__(self, monkeypatch):
        self.built: list[tuple[np.random.Generator, dict]] = []
        self.copied = 0
        real_rng, real_deepcopy = np.random.default_rng, copy.deepcopy

        def default_rng(*a, **k):
            g = real_rng(*a, **k)
            self.built.append((g, copy.deepcopy(g.bit_generator.state)))
            return g

        def deepcopy(x, memo=None, _nil=None):
            if isinstance(x, np.random.Generator):
                self.copied += 1
            return real_deepcopy(x, memo) if _nil is None else real_deepcopy(x, memo, _nil)

        monkeypatch.setattr(np.random, "default_rng", default_rng)
        monkeypatch.setattr(copy, "deepcopy", deepcopy)

    def unused(self) -> int:
        """Generators built and never drawn from (their state as built)."""
        return sum(g.bit_generator.state == first for g, first in self.built)


def searched_decision(name: str, config: dict, seed: int = 0, skip: int = 2):
    """The engine and observation at the ``skip``-th decision search searches, heuristic play up to it."""
    game = load_game(name, **config)
    stages = SearchPolicy(game, seed=0)
    heur = make_agent("heuristic", game, seed=0)
    e = game.new_state()
    e.new_episode(np.random.default_rng(seed))
    while True:
        obs = e.observation(e.current_player)
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        if len(legal) > 1 and stages.stage_settings(legal)[1]["search"]:
            if skip == 0:
                return game, e, obs
            skip -= 1
        e.step(int(heur.act(obs)))
        assert not (e.terminal or e.truncated), "the episode ended before a searched decision"


def eager(monkeypatch):
    """Eager generators wherever the rollouts and worlds used lazy ones (what the code did before)."""
    for module in (search_module, oracle_data, sproyte_rules, femkortskille_rules, spokelse_rules):
        monkeypatch.setattr(module, "LazyGenerator", np.random.default_rng)


@pytest.mark.parametrize(("name", "config"), GAMES)
def test_a_search_decision_builds_only_generators_it_draws_from_and_copies_none(name, config, monkeypatch):
    game, e, obs = searched_decision(name, config)
    sp = SearchPolicy(game, seed=3, worlds=4, step_budget=None)
    spy = GeneratorSpy(monkeypatch)
    sp.act(obs, e)
    assert spy.copied == 0
    assert spy.unused() == 0, f"{spy.unused()} of {len(spy.built)} generators built were never drawn from"
    assert len(spy.built) >= 4  # the worlds' samplers, at least


@pytest.mark.parametrize(("name", "config"), GAMES)
def test_search_decides_as_with_eager_generators_and_the_same_twice(name, config, monkeypatch):
    game, e, obs = searched_decision(name, config, skip=1)

    def decide():
        sp = SearchPolicy(game, seed=5, worlds=5, step_budget=None)
        return sp.act(obs, e), sp.last_samples.copy(), sp.last_weights.copy()

    a, samples, weights = decide()
    b, samples_b, weights_b = decide()
    eager(monkeypatch)
    c, samples_c, weights_c = decide()
    assert a == b == c
    np.testing.assert_array_equal(samples, samples_b)
    np.testing.assert_array_equal(samples, samples_c)
    np.testing.assert_array_equal(weights, weights_c)


@pytest.mark.parametrize(("name", "config"), GAMES)
def test_an_oracle_rollout_copies_no_generator_and_builds_none_unused(name, config, monkeypatch):
    game, e, obs = searched_decision(name, config)
    player = seat_player(make_agent("heuristic", game, seed=0))
    legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
    spy = GeneratorSpy(monkeypatch)
    scores = [rollout(e, e.current_player, a, player, 1234) for a in legal]
    assert spy.copied == 0 and spy.unused() == 0
    if config.get("match_to"):  # the later rounds of a match are dealt: the lazy streams were built and drawn
        assert len(spy.built) == len(legal)
    monkeypatch.undo()
    eager(monkeypatch)
    assert [rollout(e, e.current_player, a, player, 1234) for a in legal] == scores


@pytest.mark.parametrize(("name", "config", "policy"), [("sproyte", {}, "heuristic"), ("sproyte", {}, "pretrained"),
                                                        ("spokelse", {"match_to": 5}, "heuristic")])  # fmt: skip
def test_oracle_data_is_the_same_for_a_seed_and_as_with_eager_generators(name, config, policy, monkeypatch):
    game = load_game(name, **config)
    games = 1 if policy == "pretrained" else 2

    def chunk():
        return play_chunk(game, make_agent(policy, game, seed=1), SearchPolicy(game, seed=0), games, 99, 0.2)

    a, b = chunk(), chunk()
    eager(monkeypatch)
    c = chunk()
    assert len(a["action"]) > 0
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        np.testing.assert_array_equal(a[k], c[k], err_msg=k)
