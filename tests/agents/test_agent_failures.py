"""An agent that fails on a move (#49, item 9), and a disk that fills during ``eval --record`` (item 7).

A plug-in's ``act`` that raises, calls ``sys.exit`` or hangs ends ``eval``, ``benchmark`` and
``play`` with one line that names the agent and the move, and exit status 2 (``--debug`` adds the
traceback); ``--move-timeout`` stops a hanging move. A record that cannot be written ends ``eval
--record`` the same way, and the records written before it stay whole.
"""

from __future__ import annotations

import errno
import io
import json
import os
import pickle
import re
import sys

import pytest
from kortmiljo.agents import tournament as T

from kortmiljo import cli
from kortmiljo.records import load

BAD_AGENTS = """
import sys
import time


class Raises:
    def act(self, obs):
        raise ValueError("boom")


class Exits:
    def act(self, obs):
        sys.exit()


class Hangs:
    def act(self, obs):
        while True:  # sleeps, so that a move left running in a thread costs no CPU
            time.sleep(0.05)
"""

WHERE = r"deal 1, game \d of 2, move \d+ \(player_[01]\)"


@pytest.fixture
def bad(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text(BAD_AGENTS)
    return tmp_path


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


EVAL = ["eval", "spokelse", "--games", "2", "--no-progress", "--agents"]


def test_eval_names_an_agent_that_raises(bad, capsys):
    assert cli.main([*EVAL, "bad.py:Raises", "random"]) == 2
    line = one_line(capsys)
    assert re.fullmatch(
        rf"kortmiljo eval: agent bad\.py:Raises failed at {WHERE}: ValueError: boom \(at bad\.py line 8\)", line
    ), line


def test_eval_names_an_agent_that_calls_sys_exit(bad, capsys):
    # it used to end eval with status 0 and no output at all
    assert cli.main([*EVAL, "random", "bad.py:Exits"]) == 2
    line = one_line(capsys)
    assert re.match(rf"kortmiljo eval: agent bad\.py:Exits failed at {WHERE}: it tried to end the program", line)
    assert "SystemExit" in line


def test_eval_stops_a_hanging_agent_at_its_move_timeout(bad, capsys):
    assert cli.main([*EVAL, "bad.py:Hangs", "random", "--move-timeout", "0.5"]) == 2
    line = one_line(capsys)
    assert re.fullmatch(
        rf"kortmiljo eval: agent bad\.py:Hangs failed at {WHERE}: no move within 0\.5 s, its time limit", line
    )


def test_debug_adds_the_traceback(bad, capsys):
    assert cli.main([*EVAL, "bad.py:Raises", "random", "--debug"]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and 'bad.py", line 8, in act' in err
    assert err.strip().splitlines()[-1].startswith("kortmiljo eval: agent bad.py:Raises failed at deal 1")


@pytest.mark.parametrize(
    "text, words",
    [("-1", "expected seconds from 0 to 86,400 (0 or none: no limit), got '-1'"), ("٣", "(digits 0-9 only)")],
)
def test_move_timeout_is_checked(bad, capsys, text, words):
    assert cli.main([*EVAL, "random", "--move-timeout", text]) == 2
    line = one_line(capsys)
    assert line.startswith("kortmiljo eval: argument --move-timeout: ") and words in line


def test_run_tournament_raises_agent_error_that_crosses_processes(bad):
    from kortmiljo.core.errors import AgentError

    with pytest.raises(AgentError) as err:
        T.run_tournament("spokelse", ["random", "bad.py:Raises"], 2, progress=False)
    assert err.value.agent == "bad.py:Raises" and isinstance(err.value.__cause__, ValueError)
    back = pickle.loads(pickle.dumps(err.value))
    assert str(back) == str(err.value) and back.trace == err.value.trace and "boom" in back.trace


@pytest.mark.parametrize(
    "agent, words", [("bad.py:Raises", "ValueError: boom"), ("bad.py:Hangs", "no move within 1 s")]
)
def test_benchmark_names_the_agent_also_from_a_worker_process(bad, capsys, agent, words):
    # 8 games: 4 deals, split between the 2 worker processes
    argv = ["benchmark", "spokelse", "--agent", agent, "--pool", "random", "--games", "8", "--workers", "2"]
    assert cli.main([*argv, "--no-progress", "--move-timeout", "1"]) == 2
    line = one_line(capsys)
    assert (
        line.startswith(f"kortmiljo benchmark: agent {agent} failed at deal ")
        and " against random, game " in line
        and words in line
    )


def test_play_names_the_agent_and_keeps_the_record(bad, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 50))
    argv = ["play", "spokelse", "--opponents", "bad.py:Exits", "--seed", "3", "--record", "game.json"]
    assert cli.main(argv) == 2
    line = one_line(capsys)
    assert re.match(r"kortmiljo play: agent bad\.py:Exits failed at move \d+ \(player_1\): it tried to end", line)
    assert load(bad / "game.json").status == "unfinished"


def test_play_stops_a_hanging_agent(bad, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 50))
    assert cli.main(["play", "spokelse", "--opponents", "bad.py:Hangs", "--move-timeout", "0.5"]) == 2
    assert "no move within 0.5 s" in one_line(capsys)


# ---- a full disk during eval --record (#49, item 7) ----------------------------------------------
def test_a_full_disk_ends_eval_record_in_one_line_and_keeps_the_records_written(tmp_path, monkeypatch, capsys):
    real_fdopen = os.fdopen
    opened = []

    class FullDisk:
        """A file that takes some bytes, then finds the disk full."""

        def __init__(self, f):
            self.f = f

        def write(self, data):
            self.f.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    def fdopen(fd, *args, **kwargs):
        f = real_fdopen(fd, *args, **kwargs)
        opened.append(fd)
        return FullDisk(f) if len(opened) == 3 else f  # the third record finds the disk full

    monkeypatch.setattr(os, "fdopen", fdopen)
    out = tmp_path / "records"
    status = cli.main(["eval", "spokelse", "--agents", "random", "--games", "6", "--no-progress", "--record", str(out)])
    monkeypatch.undo()
    assert status == 2
    line = one_line(capsys)
    assert line.startswith(f"kortmiljo eval: could not write the game record {out / 'spokelse-000002.json'}: ")
    assert "No space left on device" in line and "the 2 records written before it are whole" in line
    assert sorted(p.name for p in out.iterdir()) == ["spokelse-000000.json", "spokelse-000001.json"]  # no part left
    for p in out.iterdir():
        assert load(p).status == "finished"
        json.loads(p.read_text())
