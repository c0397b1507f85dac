"""``kortmiljo train`` refuses every bad command line the same way: one clean line on stderr (no
traceback), exit code 2, and no file written, changed or created. One case per kind of mistake:
a value of the wrong type, out of range or nonsense, a bad path, a corrupt file, the wrong game."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kortmiljo.agents.rllib_module import HAVE_RLLIB
from kortmiljo.train.cli import main as train_main

from .conftest import ROOT, TINY, tree

# every case starts from a short valid run, so that a case wrongly accepted fails fast
BASE = ["--timesteps", "256", "--out", "fresh", "--opponents", "random", "--eval-opponents", "random", *TINY]
TEACHER = ["--bc-teacher", "heuristic"]

CASES = {
    # wrong type
    "timesteps-text": ([*BASE, "--timesteps", "abc"], "argument --timesteps: invalid int value"),
    "lr-text": ([*BASE, "--lr", "fast"], "argument --lr"),
    "n-envs-float": ([*BASE, "--n-envs", "1.5"], "argument --n-envs"),
    "net-text": ([*BASE, "--net", "abc"], "argument --net: expected layer sizes"),
    "game-option-type": ([*BASE, "--config", "num_players=two"], "num_players='two' is not allowed"),
    "config-syntax": ([*BASE, "--config", "num_players"], "--config takes key=value"),
    "precision-choice": ([*BASE, "--train-precision", "fp16"], "argument --train-precision: invalid choice"),
    "vec-choice": ([*BASE, "--vec", "gpu"], "argument --vec: invalid choice"),
    "unknown-option": ([*BASE, "--tmesteps", "5"], "unrecognized arguments: --tmesteps"),
    "rllib-option-on-sb3": ([*BASE, "--num-env-runners", "2"], "unrecognized arguments"),
    # out of range, nonsense
    "timesteps-0": ([*BASE, "--timesteps", "0"], "--timesteps must be from 1 to 10,000,000,000, got 0"),
    "timesteps-negative": ([*BASE, "--timesteps", "-5"], "--timesteps must be from 1 to 10,000,000,000, got -5"),
    "minutes-0": ([*BASE, "--minutes", "0"], "--minutes must be above 0 and at most 10,080 (a week)"),
    "minutes-negative": ([*BASE, "--minutes", "-1"], "--minutes must be above 0 and at most 10,080"),
    "minutes-over-a-week": ([*BASE, "--minutes", "20000"], "--minutes must be above 0 and at most 10,080"),
    "lr-nan": ([*BASE, "--lr", "nan"], "--lr must be a finite number above 0, got nan"),
    "lr-inf": ([*BASE, "--lr", "inf"], "--lr must be a finite number above 0"),
    "lr-0": ([*BASE, "--lr", "0"], "--lr must be"),
    "net-0": ([*BASE, "--net", "0"], "--net must be 1 to 16 layer sizes of 1 to 8,192 each"),
    "net-huge": ([*BASE, "--net", "100000000"], "--net must be 1 to 16 layer sizes of 1 to 8,192 each"),
    "n-steps-0": ([*BASE, "--n-steps", "0"], "--n-steps must be from 1 to 100,000"),
    "n-envs-0": ([*BASE, "--n-envs", "0"], "--n-envs must be from 1 to 4,096"),
    "n-envs-huge": ([*BASE, "--n-envs", "1" + "0" * 30], "--n-envs must be from 1 to 4,096"),
    "batch-size-3": ([*BASE, "--batch-size", "3"], "--batch-size 3 does not divide the rollout"),
    "batch-size-1": ([*BASE, "--batch-size", "1"], "--batch-size must be from 2 to 10,000,000"),
    "threads-0": ([*BASE, "--threads", "0"], "--threads must be from 1 to 1,024"),
    "update-threads-negative": ([*BASE, "--update-threads", "-1"], "--update-threads must be from 0 to 1,024"),
    "gamma-above-1": ([*BASE, "--gamma", "1.5"], "--gamma must be above 0 and at most 1"),
    "gae-lambda-nan": ([*BASE, "--gae-lambda", "nan"], "--gae-lambda must be between 0 and 1"),
    "clip-negative": ([*BASE, "--clip", "-0.1"], "--clip must be"),
    "max-grad-norm-nan": ([*BASE, "--max-grad-norm", "nan"], "--max-grad-norm must be"),
    "reward-scale-0": ([*BASE, "--reward-scale", "0"], "--reward-scale must be"),
    "self-play-prob-2": ([*BASE, "--self-play-prob", "2"], "--self-play-prob must be between 0 and 1"),
    "pool-size-0": ([*BASE, "--pool-size", "0"], "--pool-size must be from 1 to 1,000"),
    "eval-deals-0": ([*BASE, "--eval-deals", "0"], "--eval-deals must be from 1 to 1,000,000"),
    "seed-negative": ([*BASE, "--seed", "-1"], "--seed must be an int from 0"),
    "bc-games-0": ([*BASE, *TEACHER, "--bc-games", "0"], "--bc-games must be from 1 to 10,000,000"),
    "game-option-range": ([*BASE, "--config", "num_players=9"], "num_players must be an int from 2 to 5"),
    "unknown-game-option": ([*BASE, "--config", "colour=red"], "unknown option(s) colour"),
    "opponent-unknown": ([*BASE, "--opponents", "foo"], "--opponents: unknown agent 'foo'"),
    "eval-opponent-unknown": ([*BASE, "--eval-opponents", "foo"], "--eval-opponents: unknown agent 'foo'"),
    "teacher-unknown": ([*BASE, "--bc-teacher", "foo"], "--bc-teacher: unknown agent 'foo'"),
    "bc-opponent-unknown": ([*BASE, *TEACHER, "--bc-opponents", "foo"], "--bc-opponents: unknown agent"),
    "select-by-not-evaluated": ([*BASE, "--select-by", "heuristic"], "--select-by heuristic is not one of"),
    # bad paths
    "init-missing-file": ([*BASE, "--init", "missing.zip"], "--init: no trained model at missing.zip"),
    "init-garbage-file": ([*BASE, "--init", "garbage.zip"], "--init: garbage.zip is not an SB3 model file"),
    "init-empty-dir": ([*BASE, "--init", "emptydir"], "--init: no trained model at emptydir"),
    "out-is-a-file": ([*BASE, "--out", "afile"], "--out afile is a file, not a directory"),
    "out-under-a-file": ([*BASE, "--out", "afile/run"], "--out afile/run lies under afile, which is a file"),
    "out-unwritable": ([*BASE, "--out", "/proc/kortmiljo-run"], "--out /proc/kortmiljo-run: cannot write in /proc"),
    "cache-is-a-file": ([*BASE, *TEACHER, "--cache", "afile"], "--cache afile is a file"),
    "resume-without-out": (["--resume"], "--resume needs --out DIR"),
    # corrupt files
    "resume-corrupt-state": (["--resume", "--out", "corrupt_state"], "corrupt_state/checkpoint/state.json is corrupt"),
    "resume-state-without-fields": (["--resume", "--out", "empty_state"], "is corrupt (no phase"),
    "resume-deleted-checkpoint-model": (
        ["--resume", "--out", "no_model"],
        "the checkpoint file no_model/checkpoint/model_0000001024.zip is missing",
    ),
    "resume-deleted-snapshot": (["--resume", "--out", "no_snapshot"], "no_snapshot/checkpoint/pool/self_"),
    "resume-corrupt-args": (["--resume", "--out", "corrupt_args"], "corrupt_args/args.json is corrupt"),
    "init-truncated-model": ([*BASE, "--init", "truncated"], "--init: truncated/model.zip is not an SB3 model file"),
    "init-corrupt-config": ([*BASE, "--init", "bad_config"], "not a readable kortmiljo model configuration"),
    # the wrong game
    "unknown-game": ([*BASE], "unknown game 'chess'; games: "),
    "resume-another-game": (["--resume", "--out", "run"], "run holds a spokelse run, not sproyte"),
    "init-other-configuration": ([*BASE, "--init", "three_players"], "option num_players: model 3, requested 2"),
    "init-other-game": ([*BASE, "--init", "run"], "was trained for 'spokelse', not 'sproyte'"),
    "backend-rllib-without-ray": (["--backend", "rllib", "--out", "fresh"], "needs Ray RLlib"),
}
GAME = {"unknown-game": "chess", "resume-another-game": "sproyte", "init-other-game": "sproyte"}


@pytest.fixture(scope="module")
def sandbox(trained, tmp_path_factory) -> Path:
    """A folder with everything the cases point at; no case may change it."""
    d = tmp_path_factory.mktemp("sandbox")
    (d / "afile").write_text("not a directory")
    (d / "garbage.zip").write_bytes(b"not a zip archive")
    (d / "emptydir").mkdir()
    for name in ("run", "corrupt_state", "empty_state", "no_model", "no_snapshot", "corrupt_args"):
        shutil.copytree(trained, d / name)
    (d / "corrupt_state" / "checkpoint" / "state.json").write_text('{"phase": "ppo", "timest')
    (d / "empty_state" / "checkpoint" / "state.json").write_text("{}")
    (d / "no_model" / "checkpoint" / "model_0000001024.zip").unlink()
    next((d / "no_snapshot" / "checkpoint" / "pool").glob("*.pt")).unlink()
    (d / "corrupt_args" / "args.json").write_text("[1, 2")
    for name in ("truncated", "bad_config", "three_players"):
        (d / name).mkdir()
        shutil.copy(trained / "model.zip", d / name / "model.zip")
        shutil.copy(trained / "config.json", d / name / "config.json")
    data = (trained / "model.zip").read_bytes()
    (d / "truncated" / "model.zip").write_bytes(data[: len(data) // 2])
    (d / "bad_config" / "config.json").write_text("{not json")
    cfg = json.loads((trained / "config.json").read_text())
    cfg["fingerprint"]["config"]["num_players"] = 3
    (d / "three_players" / "config.json").write_text(json.dumps(cfg))
    return d


@pytest.mark.parametrize("case", list(CASES))
def test_one_clean_line_exit_2_nothing_written(case, sandbox, monkeypatch, capsys):
    if case == "backend-rllib-without-ray" and HAVE_RLLIB:
        pytest.skip("Ray is installed")
    if case == "out-unwritable" and not Path("/proc").is_dir():
        pytest.skip("no /proc here")
    args, expect = CASES[case]
    argv = [GAME.get(case, "spokelse"), *args]
    monkeypatch.chdir(sandbox)
    before = tree(sandbox)
    assert train_main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kortmiljo train: "), err
    assert expect in lines[0], lines[0]
    assert "Traceback" not in err and out == ""
    assert tree(sandbox) == before


@pytest.mark.parametrize(
    "argv",
    [["-m", "kortmiljo", "train", "chess"], ["-m", "kortmiljo.train", "spokelse", "--timesteps", "0", "--out", "x"]],
    ids=["kortmiljo-train", "python-m-train"],
)
def test_the_commands_exit_2_with_one_line(argv, tmp_path):
    """The real entry points, in a process of their own: the exit code and stderr as a shell sees them."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("kortmiljo train: "), proc.stderr
    assert list(tmp_path.iterdir()) == []
