"""Ray RLlib backend: a short local run, then the checkpoint as an ``rllib:PATH`` agent (needs the rllib extra)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytestmark = pytest.mark.rllib

GAME = "spokelse"


def test_env_wrapper_gives_every_seat_its_terminal_reward():
    from kortmiljo.train.rllib_backend import KortmiljoRLlibEnv

    env = KortmiljoRLlibEnv({"game": GAME, "config": {"num_players": 3}})
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        finals = {}
        while True:
            (agent,) = obs  # one agent to move
            legal = np.flatnonzero(obs[agent]["action_mask"])
            obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(legal))})
            for a, r in rew.items():
                returns[a] += r
            finals.update({a: t for a, t in term.items() if a != "__all__" and t})
            if term["__all__"] or trunc["__all__"]:
                break
            obs = {a: o for a, o in obs.items() if not term.get(a)}
        assert set(finals) == set(env.possible_agents)  # every seat saw its own end
        assert sum(returns.values()) == pytest.approx(0.0) and any(returns.values())


def test_short_local_run_then_the_checkpoint_plays(tmp_path):
    import ray
    from kortmiljo.agents.registry import make_agent
    from kortmiljo.train.cli import main

    from kortmiljo.env.modules import env_module_of

    out = tmp_path / "run"
    t = time.time()
    try:
        rc = main(
            [GAME, "--backend", "rllib", "--num-cpus", "2", "--num-env-runners", "1", "--iterations", "2",
             "--train-batch-size", "1000", "--minibatch-size", "250", "--num-epochs", "2", "--net", "64,64",
             "--pool-size", "2", "--snapshot-every", "1", "--out", str(out), "--quiet"]
        )  # fmt: skip
    finally:
        ray.shutdown()
    assert rc == 0
    report = json.loads((out / "report.json").read_text())
    assert report["iterations"] == 2 and report["env_steps"] >= 2000
    assert report["illegal_actions"] == 0  # the env raises IllegalActionError on any
    print(f"rllib run: {time.time() - t:.1f} s, {report['env_steps']} env steps, {report['steps_per_s']} steps/s")

    for path in (out, out / "checkpoint"):
        # sampling: two deterministic Spøkelse players can take and swap for ever (the stock never runs out)
        agent = make_agent(f"rllib:{path}", GAME, {}, seed=0, deterministic=False)
        env = env_module_of(GAME).env()
        for seed in range(3):
            env.reset(seed=seed)
            for steps, _ in enumerate(env.agent_iter()):
                assert steps < 20_000
                obs, _, term, trunc, _ = env.last()
                env.step(None if term or trunc else agent.act(obs))  # the env raises on an illegal action
    with pytest.raises(ValueError, match="option num_players: model 2, requested 3"):  # the fingerprint
        make_agent(f"rllib:{out}", GAME, {"num_players": 3})
    assert json.loads((out / "config.json").read_text())["fingerprint"]["game"] == GAME
