"""A seconds-long training run end to end: train, save, reload as ``ppo:PATH``, evaluate;
resume after the process was killed; clear errors for corrupt and mismatched model files."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from kortmiljo.agents.registry import make_agent
from kortmiljo.train.cli import main as train_main
from kortmiljo.train.evaluation import duplicate_eval

from kortmiljo import load_game

from .conftest import ROOT, TINY


def test_run_directory(trained):
    for name in ("model.zip", "last_model.zip", "best_model.zip", "config.json", "args.json", "report.json"):
        assert (trained / name).exists(), name
    assert (trained / "learning_curve.png").stat().st_size > 1000
    assert list((trained / "tb").rglob("events.out.tfevents.*"))
    cfg = json.loads((trained / "config.json").read_text())
    game = load_game("spokelse")
    assert cfg["game"] == "spokelse" and cfg["obs_size"] == game.layout.size + 52 and cfg["action_count"] == 7
    assert cfg["env_config"] == game.config and cfg["kortmiljo_version"]
    for where in (trained, trained / "checkpoint"):  # what a loader checks first
        assert json.loads((where / "config.json").read_text())["fingerprint"] == json.loads(
            json.dumps(game.fingerprint())
        )
    report = json.loads((trained / "report.json").read_text())
    assert report["timesteps"] >= 1024 and report["ppo_env_steps_per_s"] > 0
    assert report["evaluations"] and report["snapshots_in_pool"]
    rows = (trained / "progress.csv").read_text().splitlines()
    assert rows[0].startswith("timesteps,") and len(rows) >= 3
    assert (trained / "eval.csv").read_text().count("\n") >= 2


def test_reload_as_agent_and_evaluate(trained, capsys):
    agent = make_agent(f"ppo:{trained / 'model.zip'}", "spokelse", {}, seed=1)
    assert "trusted source" in capsys.readouterr().err
    same_dir = make_agent(f"ppo:{trained}", "spokelse", {}, seed=1)  # a run directory works too
    game = load_game("spokelse")
    r = duplicate_eval(game, agent, make_agent("random", game, seed=2), deals=5, seed=3)
    assert r["games"] == 10 and -1.0 <= r["mean_reward"] <= 1.0
    # act and act_batch agree and only pick legal actions
    rng = np.random.default_rng(0)
    e = game.new_state()
    e.new_episode(rng)
    obs = []
    for _ in range(20):
        o = e.observation(e.current_player)
        obs.append(o)
        a = agent.act(o)
        assert o["action_mask"][a] == 1
        e.step(a)
    batch = {k: np.stack([o[k] for o in obs]) for k in obs[0]}
    np.testing.assert_array_equal(same_dir.act_batch(batch), [agent.act(o) for o in obs])


def test_tournament_accepts_ppo_agent(trained):
    tournament = pytest.importorskip("kortmiljo.agents.tournament")
    if not hasattr(tournament, "run_tournament"):
        pytest.skip("tournament not available yet")
    res = tournament.run_tournament(
        "spokelse", [f"ppo:{trained}", "random"], games=4, config={}, seed=0, progress=False
    )
    assert res


def test_mismatched_and_corrupt_files(trained, tmp_path):
    with pytest.raises(ValueError, match="jack_points"):
        make_agent(f"ppo:{trained}", "spokelse", {"jack_points": 11})
    with pytest.raises(ValueError, match="num_players"):
        make_agent(f"ppo:{trained}", "spokelse", {"num_players": 3})
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(trained / "model.zip", other / "model.zip")
    cfg = json.loads((trained / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**cfg, "game": "sproyte"}))
    with pytest.raises(ValueError, match="trained for 'sproyte'"):
        make_agent(f"ppo:{other}", "spokelse", {})
    (other / "config.json").write_text(json.dumps({**cfg, "obs_size": 123}))
    with pytest.raises(ValueError, match="observations of 123"):
        make_agent(f"ppo:{other}", "spokelse", {})
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "model.zip").write_bytes(b"this is not a zip file")
    (bad / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match="not an SB3 model file"):
        make_agent(f"ppo:{bad}", "spokelse", {})
    data = (trained / "model.zip").read_bytes()
    (bad / "model.zip").write_bytes(data[: len(data) // 2])  # truncated download
    with pytest.raises(ValueError):
        make_agent(f"ppo:{bad}", "spokelse", {})
    (bad / "config.json").write_text("{not json")
    with pytest.raises(ValueError, match="config"):
        make_agent(f"ppo:{bad}", "spokelse", {})
    with pytest.raises(ValueError, match="no trained model"):
        make_agent(f"ppo:{tmp_path / 'missing.zip'}", "spokelse", {})


def test_resume_after_kill(tmp_path):
    """Kill a run (SIGKILL) once it has checkpointed, then --resume finishes it from there."""
    out = tmp_path / "run"
    argv = ["spokelse", "--timesteps", "4096", "--out", str(out), "--eval-every", "0", "--checkpoint-every", "1"]
    argv += ["--snapshot-every", "1", "--self-play-prob", "0.5", "--opponents", "random", "--eval-opponents", "random"]
    argv += TINY
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "kortmiljo.train", *argv], cwd=ROOT, env=env)
    state = out / "checkpoint" / "state.json"
    deadline = time.time() + 120
    try:
        while time.time() < deadline:
            if state.exists() and json.loads(state.read_text()).get("timesteps", 0) >= 512:
                break
            if proc.poll() is not None:
                pytest.fail("the run finished before it could be killed; make it longer")
            time.sleep(0.05)
        else:
            pytest.fail("no checkpoint within 120 s")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    killed_at = json.loads(state.read_text())
    assert killed_at["phase"] == "ppo" and killed_at["timesteps"] < 4096
    assert (out / "checkpoint" / killed_at["model_file"]).exists()
    assert not (out / "report.json").exists()
    assert train_main(["spokelse", "--resume", "--out", str(out), "--no-progress", "--quiet"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert 4096 <= report["timesteps"] < 4096 + 256
    final = json.loads(state.read_text())
    assert final["phase"] == "done" and final["updates"] > killed_at["updates"]
    assert len(final["snapshots"]) >= len(killed_at["snapshots"])
    rows = [r.split(",")[0] for r in (out / "progress.csv").read_text().splitlines()[1:]]
    assert int(rows[-1]) >= 4096  # the learning curve continued in the same file
    # a finished run resumed again has nothing left to do
    assert train_main(["spokelse", "--resume", "--out", str(out), "--no-progress", "--quiet"]) == 0


@pytest.mark.slow
def test_demo_runs_end_to_end(tmp_path, capsys):
    from kortmiljo.train.demo import main as demo_main

    out = tmp_path / "demo"
    assert demo_main(["--out", str(out), "--minutes", "0.3", "--bc-games", "50", "--games", "20", "--no-progress"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["vs"]) == {"random", "heuristic"} and summary["vs"]["random"]["games"] >= 20
    assert "mean reward" in capsys.readouterr().out


def test_behaviour_cloning_pretraining_and_cache(tmp_path):
    cache = tmp_path / "cache"
    base = ["spokelse", "--bc-teacher", "heuristic", "--bc-games", "25", "--bc-epochs", "2", "--timesteps", "256"]
    base += ["--eval-deals", "4", "--eval-opponents", "heuristic", "--opponents", "heuristic", "--cache", str(cache)]
    assert train_main([*base, "--out", str(tmp_path / "a"), *TINY]) == 0
    bc = json.loads((tmp_path / "a" / "report.json").read_text())["behaviour_cloning"]
    assert bc["teacher"] == "heuristic" and bc["games"] == 25 and bc["decisions"] > 500
    assert bc["fit"]["held_out_samples"] > 0 and 0 < bc["final_val_acc"] <= 1
    assert len(list(cache.rglob("chunk_*.npz"))) == 1
    assert train_main([*base, "--out", str(tmp_path / "b"), *TINY]) == 0  # the same data come from the cache
    again = json.loads((tmp_path / "b" / "report.json").read_text())["behaviour_cloning"]
    assert again["collect_seconds_this_run"] == 0 and again["decisions"] == bc["decisions"]


@pytest.mark.parametrize("game", ["spokelse", "femkortskille"])
def test_native_vec_env_with_privileged_critic(tmp_path, game):
    """The fast path takes the asymmetric critic too: the critic's hidden-state features come
    from the batched engine, and the saved actor plays from the observation alone."""
    out = tmp_path / game
    argv = [game, "--timesteps", "256", "--out", str(out), "--vec", "native", "--privileged-critic"]
    argv += ["--eval-every", "0", "--eval-deals", "2", "--opponents", "heuristic", "--eval-opponents", "random"]
    tiny = TINY.copy()
    tiny[tiny.index("--n-envs") + 1] = "4"
    tiny[tiny.index("--n-steps") + 1] = "64"
    assert train_main(argv + tiny) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["vec_env"] == "native" and report["timesteps"] >= 256
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["privileged_size"] > 0
    g = load_game(game)
    agent = make_agent(f"ppo:{out}", g, seed=1)
    r = duplicate_eval(g, agent, make_agent("random", g, seed=2), deals=2, seed=3)
    assert r["games"] == 2 * g.num_players


def test_update_threads_apply_to_the_ppo_update_only(tmp_path, monkeypatch):
    """Rollouts run on ``--threads``, each PPO update on ``--update-threads``."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecEnv

    seen: dict[str, set[int]] = {"train": set(), "collect": set()}
    train, step = MaskablePPO.train, VecEnv.step

    def spy_train(self, *a, **k):
        seen["train"].add(torch.get_num_threads())
        return train(self, *a, **k)

    def spy_step(self, *a, **k):  # every env step of a rollout
        seen["collect"].add(torch.get_num_threads())
        return step(self, *a, **k)

    monkeypatch.setattr(MaskablePPO, "train", spy_train)
    monkeypatch.setattr(VecEnv, "step", spy_step)
    out = tmp_path / "threads"
    argv = ["spokelse", "--timesteps", "768", "--out", str(out), "--eval-every", "0", "--eval-deals", "2"]
    argv += ["--opponents", "random", "--eval-opponents", "random", "--threads", "1", "--update-threads", "2"]
    before = torch.get_num_threads()
    try:
        assert train_main(argv + TINY) == 0
        after = torch.get_num_threads()
    finally:
        torch.set_num_threads(before)
    assert seen["train"] == {2} and seen["collect"] == {1}
    assert after == 1  # back to --threads once training is over
    report = json.loads((out / "report.json").read_text())
    assert report["torch_threads"] == {"rollout": 1, "update": 2}
    assert train_main(["spokelse", "--update-threads", "-1", "--out", str(tmp_path / "bad")]) == 2
    assert not (tmp_path / "bad").exists()
