"""``kortmiljo play`` driven through standard input."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from kortmiljo.agents import play as P

from .common import GAMES


def run(monkeypatch, capsys, lines: str, argv: list[str]) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    rc = P.main(argv)
    return rc, capsys.readouterr().out


def test_play_a_whole_spokelse_game(monkeypatch, capsys):
    # a typo, a help request, then always the first legal action (by name, then by number)
    lines = "drw\n?\ndraw\nswap:0\n" + "1\n" * 400
    rc, out = run(monkeypatch, capsys, lines, ["spokelse", "--opponents", "heuristic", "--seed", "4"])
    assert rc == 0
    assert "'drw' is not an action; legal now: draw, take" in out
    assert "type one of: draw, take" in out
    assert "legal actions: 1) draw  2) take" in out
    assert "[view of player_0]" in out and any(s in out for s in "♠♥♦♣")
    assert "you (player_0): draw" in out and "you (player_0): swap:0" in out
    assert "player_1 (heuristic): " in out
    assert "result:" in out and "round_points=" in out
    assert ("you win" in out) or ("you lose" in out) or ("a draw" in out)
    assert "??" in out.split("result:")[0].split("you (player_0): draw")[0]  # hidden cards stay hidden


def test_illegal_but_known_action_is_refused(monkeypatch, capsys):
    rc, out = run(monkeypatch, capsys, "discard\nquit\n", ["spokelse", "--seed", "1"])
    assert rc == 0
    assert "'discard' is not legal now; legal now: draw, take" in out
    assert "game left unfinished" in out


def test_end_of_input_leaves_cleanly(monkeypatch, capsys):
    rc, out = run(monkeypatch, capsys, "draw\n", ["spokelse", "--opponents", "random", "--seat", "1", "--seed", "2"])
    assert rc == 0 and "game left unfinished" in out
    assert "player_0 (random): " in out or "[view of player_1]" in out


def test_bad_arguments(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert P.main(["spokelse", "--seat", "5"]) == 2
    assert "--seat must be 0..1" in capsys.readouterr().err
    assert P.main(["spokelse", "--opponents", "nobody"]) == 2


@pytest.mark.parametrize("game", [g for g in GAMES if g != "spokelse"])
def test_play_other_games_to_the_end(monkeypatch, capsys, game):
    rc, out = run(
        monkeypatch, capsys, "nonsense\n" + "1\n" * 2000, [game, "--opponents", "heuristic", "random", "--seed", "3"]
    )
    assert rc == 0
    assert "is not an action" in out and "result:" in out
    assert "player_1 (heuristic): " in out and "player_2 (random): " in out


def test_play_cli_through_a_pipe():
    cmd = [sys.executable, "-m", "kortmiljo", "play", "spokelse", "--opponents", "heuristic", "--seed", "7"]
    proc = subprocess.run(cmd, input="tkae\ntake\n" + "1\n" * 400, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "'tkae' is not an action" in proc.stdout
    assert "you (player_0): take" in proc.stdout and "result:" in proc.stdout


@pytest.mark.parametrize(
    "flags, words",
    [
        (["--seat", "x"], "argument --seat: expected an int >= 0, got 'x'"),
        (["--seat", "-1"], "argument --seat"),
        (["--seed", "-1"], "argument --seed: expected an int >= 0, got '-1'"),
        (["--seed", "1.5"], "argument --seed"),
    ],
)
def test_bad_numbers_name_their_option_in_one_line(monkeypatch, capsys, flags, words):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as exit_:
        P.main(["spokelse", *flags])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("kortmiljo play: ") and words in err and err.count("\n") == 1


@pytest.mark.parametrize("kwargs, words", [({"seat": "0"}, "--seat must be 0..1"), ({"seed": -1}, "--seed must be")])
def test_play_checks_seat_and_seed(kwargs, words):
    with pytest.raises(ValueError, match=words):
        P.play("spokelse", ["random"], **kwargs, stdin=io.StringIO(""), stdout=io.StringIO())
