"""Bad input to ``kortmiljo eval``, ``kortmiljo play`` and the dispatcher: one clean line, status 2.

Every class of bad value (wrong type, out of range, unknown name, bad path, corrupt file, a model
of another game) is run through :func:`kortmiljo.cli.main` in-process, in a temporary working
directory. Each must end with exit status 2, exactly one error line on stderr that starts with
the command's name (no traceback, no usage block), and no file written or changed. The one other
line allowed is the model loader's trust note (``agents/trained.py`` prints it before it opens a
``ppo:`` model). ``kortmiljo train`` has its own matrix in ``tests/train``.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from pathlib import Path

import pytest

from kortmiljo import cli, load_game

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "spokelse_model_v010"
TRUST_NOTE = "kortmiljo: loading "  # agents/trained.py, before it opens a model


def tree(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder`` with a hash of its contents."""
    out = {}
    for p in sorted(folder.rglob("*")):
        out[p.relative_to(folder).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
    return out


@pytest.fixture
def place(tmp_path, monkeypatch):
    """A working directory with the bad paths the cases name: a folder, a file, broken models."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_folder").mkdir()
    (tmp_path / "a_file.txt").write_text("not a folder\n")
    (tmp_path / "empty_run").mkdir()
    # the fixture's configuration with a fingerprint (without one the loader warns, on stderr)
    config = {**json.loads((FIXTURE / "config.json").read_text()), "fingerprint": load_game("spokelse").fingerprint()}
    garbage = tmp_path / "garbage_run"
    garbage.mkdir()
    (garbage / "config.json").write_text(json.dumps(config))
    (garbage / "model.zip").write_bytes(b"PK\x03\x04 this is not a zip archive at all")
    broken = tmp_path / "broken_config"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    (broken / "model.zip").write_bytes((FIXTURE / "model.zip").read_bytes())
    other = tmp_path / "other_game_run"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({**config, "game": "femkortskille"}))
    (other / "model.zip").write_bytes((FIXTURE / "model.zip").read_bytes())
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # play must fail before it reads a move
    return tmp_path


EVAL = ["eval", "spokelse", "--agents", "random", "--games", "2", "--no-progress"]
PLAY = ["play", "spokelse", "--opponents", "random"]

CASES = {
    # the dispatcher
    "unknown command": (["deal"], "kortmiljo: unknown command 'deal'"),
    "eval without a game": (["eval"], "kortmiljo eval: the following arguments are required: game, --agents"),
    "play without a game": (["play"], "kortmiljo play: the following arguments are required: game"),
    # eval: wrong type
    "eval games not an int": ([*EVAL, "--games", "ten"], "argument --games: expected an int from 1 to"),
    "eval seed a float": ([*EVAL, "--seed", "1.5"], "argument --seed: expected an int >= 0"),
    "eval option a float": ([*EVAL, "--config", "num_players=2.0"], "num_players=2.0 is not allowed"),
    "eval option a bool": ([*EVAL, "--config", "jack_points=true"], "jack_points=True is not allowed"),
    # eval: out of range
    "eval games 0": ([*EVAL, "--games", "0"], "argument --games: expected an int from 1 to 10,000,000"),
    "eval games too many": ([*EVAL, "--games", "10000001"], "argument --games: expected an int from 1 to 10,000,000"),
    "eval seed negative": ([*EVAL, "--seed", "-1"], "argument --seed: expected an int >= 0, got '-1'"),
    "eval option out of range": ([*EVAL, "--config", "num_players=9"], "num_players must be an int from 2 to 5"),
    # eval: unknown names, malformed values
    "eval unknown game": (["eval", "nogame", "--agents", "random"], "unknown game 'nogame'; games:"),
    "eval unknown agent": ([*EVAL[:3], "nobody"], "unknown agent 'nobody' for spokelse; available:"),
    "eval unknown option": ([*EVAL, "--config", "bogus=1"], "unknown option(s) bogus; allowed options:"),
    "eval malformed config": ([*EVAL, "--config", "oops"], "--config takes key=value pairs"),
    "eval unknown flag": ([*EVAL, "--gmaes", "3"], "unrecognized arguments: --gmaes 3"),
    # eval: bad paths
    "eval out is a folder": ([*EVAL, "--out", "a_folder"], "--out 'a_folder' is a directory"),
    "eval out below a file": ([*EVAL, "--out", "a_file.txt/r.json"], "is a file, not a folder"),
    "eval plot below a file": ([*EVAL, "--plot", "a_file.txt/c.png"], "--plot 'a_file.txt/c.png' cannot be written"),
    "eval out and plot the same": ([*EVAL, "--out", "x", "--plot", "x"], "--out and --plot name the same file"),
    "eval model missing": ([*EVAL[:3], "ppo:no_such_run"], "no trained model at no_such_run"),
    "eval model folder empty": ([*EVAL[:3], "ppo:empty_run"], "no trained model at empty_run"),
    # eval: corrupt files, another game's model
    "eval model garbage": ([*EVAL[:3], "ppo:garbage_run"], "is not an SB3 model file"),
    "eval model config garbage": ([*EVAL[:3], "ppo:broken_config"], "not a readable kortmiljo model configuration"),
    "eval model of another game": ([*EVAL[:3], "ppo:other_game_run"], "trained for 'femkortskille', not 'spokelse'"),
    "eval model against sproyte": (
        ["eval", "sproyte", "--agents", f"ppo:{FIXTURE}", "random"],
        "was trained for 'spokelse', not 'sproyte'",
    ),
    # play
    "play seat out of range": ([*PLAY, "--seat", "5"], "--seat must be 0..1 for 2 players, got 5"),
    "play seat not an int": ([*PLAY, "--seat", "x"], "argument --seat: expected an int >= 0, got 'x'"),
    "play seed negative": ([*PLAY, "--seed", "-1"], "argument --seed: expected an int >= 0, got '-1'"),
    "play unknown game": (["play", "nogame"], "unknown game 'nogame'"),
    "play unknown opponent": ([*PLAY[:3], "nobody"], "unknown agent 'nobody'"),
    "play too many opponents": ([*PLAY, "heuristic"], "--opponents names 2 agents, but spokelse with 2 players"),
    "play unknown option": ([*PLAY, "--config", "bogus=1"], "unknown option(s) bogus"),
    "play option wrong type": ([*PLAY, "--config", "num_players=two"], "num_players='two' is not allowed"),
    "play model garbage": ([*PLAY[:3], "ppo:garbage_run"], "is not an SB3 model file"),
    "play model of another game": (["play", "sproyte", "--opponents", f"ppo:{FIXTURE}"], "trained for 'spokelse'"),
}


@pytest.mark.filterwarnings("error")  # a warning would be more lines on stderr
@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_gives_one_clean_line_and_status_2(case, place, capsys):
    argv, words = CASES[case]
    before, fixture_before = tree(place), tree(FIXTURE)
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if not line.startswith(TRUST_NOTE)]
    assert status == 2, (status, err)
    assert len(lines) == 1, err
    prog = "kortmiljo" if argv[0] not in ("eval", "play") else f"kortmiljo {argv[0]}"
    assert lines[0].startswith(f"{prog}: "), lines[0]
    assert words in lines[0], lines[0]
    assert "Traceback" not in err and "usage:" not in err
    assert tree(place) == before and tree(FIXTURE) == fixture_before  # nothing written or changed


def test_a_good_run_still_works(place, capsys):
    assert cli.main([*EVAL, "--out", "sub/r.json"]) == 0
    assert json.loads((place / "sub" / "r.json").read_text())["games"] == 2
    assert capsys.readouterr().err == ""
