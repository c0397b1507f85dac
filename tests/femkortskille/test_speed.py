"""Throughput of Femkortskille (4 players), engine and env. Slow: run with ``pytest -m slow``.

``engine_steps_per_second`` and ``env_steps_per_second`` are what benchmarks/throughput.py
can call; each agent-step includes the observation, ``unseen`` and the action mask.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from kortmiljo import femkortskille_v0
from kortmiljo.games.femkortskille import FemkortskilleEngine


def engine_steps_per_second(episodes: int = 3000, **config) -> float:
    e = FemkortskilleEngine(**{"num_players": 4, **config})
    rng = np.random.default_rng(0)
    steps, t = 0, time.perf_counter()
    for _ in range(episodes):
        e.new_episode(rng)
        while not (e.terminal or e.truncated):
            s = e.current_player
            e.observe(s)
            e.unseen(s)
            legal = np.flatnonzero(e.legal_mask())
            e.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - t)


def env_steps_per_second(episodes: int = 2000, **config) -> float:
    env = femkortskille_v0.env(**{"num_players": 4, **config})
    rng = np.random.default_rng(0)
    steps, t = 0, time.perf_counter()
    for ep in range(episodes):
        env.reset(seed=ep)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - t)


@pytest.mark.slow
@pytest.mark.parametrize("config", [{}, {"poker": True}])
def test_throughput(config):
    eng, env = engine_steps_per_second(**config), env_steps_per_second(**config)
    print(f"femkortskille {config}: engine {eng:,.0f} agent-steps/s, env {env:,.0f} agent-steps/s")
    assert env > 20_000  # loose: shared CI machines; the target on a free core is > 50,000
