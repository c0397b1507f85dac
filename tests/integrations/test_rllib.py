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
    # throughput apart: sampling and the learner's updates, each iteration and for the session
    rows = (out / "progress.csv").read_text().splitlines()
    assert rows[0].startswith("iteration,env_steps,time_s,iteration_s,sampled,sample_s,sample_steps_per_s,learner_s")
    assert len(rows) == 3 and 0 < report["this_session"]["learner_share"] < 1
    # evaluated at the end against random and the heuristic, on duplicate deals
    assert set(report["eval"]) == {"random", "heuristic"}
    assert all(e["iteration"] == 2 and e["games"] == e["deals"] * 2 for e in report["eval"].values())
    speed = report["this_session"]["steps_per_s"]
    print(f"rllib run: {time.time() - t:.1f} s, {report['env_steps']} env steps, {speed} steps/s")

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


RUN = [GAME, "--backend", "rllib", "--num-cpus", "2", "--num-env-runners", "1", "--train-batch-size", "500",
       "--minibatch-size", "250", "--num-epochs", "1", "--net", "32,32", "--pool-size", "2", "--eval-deals", "10",
       "--quiet"]  # fmt: skip


def test_a_run_resumes_from_its_last_checkpoint_and_is_never_overwritten(tmp_path):
    import ray
    from kortmiljo.train.cli import main

    out = str(tmp_path / "run")
    try:
        assert main([*RUN, "--iterations", "2", "--checkpoint-every", "1", "--eval-every", "1", "--out", out]) == 0
        first = json.loads((tmp_path / "run" / "report.json").read_text())
        # the same --out again without --resume: refused, nothing changed
        before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "run").iterdir()}
        assert main([*RUN, "--iterations", "3", "--out", out]) == 2
        assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "run").iterdir()} == before
        # a row written after the last checkpoint (as by a run killed then) is dropped on resume
        with open(tmp_path / "run" / "progress.csv", "a") as f:
            f.write("3,999999,0,0,0,,,,0,,,\n")
        # resumed with a budget of 3 iterations and a learner actor of its own: one more iteration
        assert main([GAME, "--backend", "rllib", "--resume", "--out", out, "--iterations", "3", "--num-cpus", "2",
                     "--num-env-runners", "1", "--num-learners", "1", "--quiet"]) == 0  # fmt: skip
    finally:
        ray.shutdown()
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["iterations"] == 3 and report["this_session"]["iterations"] == 1 and report["num_learners"] == 1
    assert report["env_steps"] > first["env_steps"] and report["elapsed_s"] > first["elapsed_s"]
    rows = [r.split(",") for r in (tmp_path / "run" / "progress.csv").read_text().splitlines()[1:]]
    assert [r[0] for r in rows] == ["1", "2", "3"] and "999999" not in {r[1] for r in rows}
    evals = (tmp_path / "run" / "eval.csv").read_text().splitlines()[1:]
    assert [e.split(",")[0] for e in evals] == ["1", "1", "2", "2", "3", "3"]  # random and heuristic each time


def test_runners_the_cluster_cannot_place_are_refused_and_nothing_is_written(tmp_path, capsys):
    import ray
    from kortmiljo.train.cli import main

    try:
        rc = main([*RUN, "--num-env-runners", "3", "--iterations", "1", "--out", str(tmp_path / "run")])
    finally:
        ray.shutdown()
    assert rc == 2 and not (tmp_path / "run").exists()
    assert "need 3 CPUs; the local Ray has 2 free" in capsys.readouterr().err
