"""What reaches the terminal (#49, items 10 and 11): text from a record or an agent has its control
characters escaped, a redacted record says so wherever it is shown as text, and the numbers of the
command lines (steps, seats, indices, counts) are written in the ASCII digits 0-9 only."""

from __future__ import annotations

import io
import json
import re
import sys

import pytest
from kortmiljo.agents.play import play

from kortmiljo.cli import fail, main
from kortmiljo.records import redact, save, to_text

from .test_text import _record

# what must never reach a terminal raw: C0 and C1 controls, DEL, line separators, bidi controls
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
EVIL = 'Bob\x1b[2J\x1b]0;pwned\x07\n[Result "player_1 +100"]\r\u202etxt.exe\u2028\x9b31m'


def test_printable_escapes_controls_and_keeps_text():
    from kortmiljo.core.errors import printable

    assert printable("a\x1b[31mb\nc\td\r\x7f\x85\u202e\u2066\u200f\u2028") == (
        "a\\x1b[31mb\\nc\\td\\r\\x7f\\x85\\u202e\\u2066\\u200f\\u2028"
    )
    text = "Spøkelse Q♠ 10♥ Värdshuset حسن 王 \\x1b"
    assert printable(text) == text


def hostile_file(tmp_path, redacted: bool = False):
    rec = _record("spokelse", 1)
    doc = json.loads(json.dumps((redact(rec, 1) if redacted else rec).to_dict()))
    doc["seats"] = {"player_0": EVIL, "player_1": "x\x1b[31m\u202e"}
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("redacted", [False, True])
def test_replay_escapes_seat_names_from_the_file(tmp_path, capsys, redacted):
    path = hostile_file(tmp_path, redacted)
    status = main(["replay", str(path), *(["--seat", "player_1"] if redacted else [])])
    out, err = capsys.readouterr()
    assert not RAW.search(out) and not RAW.search(err), (out, err)
    if status == 0:  # shown, escaped
        assert sum(line.startswith("[Result ") for line in out.splitlines()) == 1  # no forged result line
        assert '[Seats "player_0: Bob\\x1b[2J\\x1b]0;pwned\\x07\\n[Result "player_1 +100"]\\r\\u202etxt' in out
    else:  # or refused in one line
        assert status == 2 and err.count("\n") == 1


def test_one_line_errors_escape_controls(capsys):
    assert fail("kortmiljo replay", f"unknown seat {EVIL}") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and not RAW.search(err)
    assert "Bob\\x1b[2J" in err and "\\u202etxt.exe" in err


def test_a_redacted_record_says_so_wherever_it_is_shown(tmp_path, capsys):
    rec = _record("sproyte", 5)
    red = redact(rec, 1)
    mark = "REDACTED record: player_1's view, not the full game"
    for text in (to_text(red), to_text(rec, seat=1), to_text(red, step=3)):
        assert text.splitlines()[0].startswith(mark)
    assert "REDACTED" not in to_text(rec)  # the full record is not marked
    path = tmp_path / "red.json"
    save(red, path)
    for argv in ([], ["--step", "4"], ["--seat", "1"], ["--seat", "player_1"]):
        assert main(["replay", str(path), *argv]) == 0
        assert capsys.readouterr().out.startswith(mark)
    full = tmp_path / "full.json"
    save(rec, full)
    assert main(["replay", str(full), "--seat", "player_1", "--step", "4"]) == 0
    assert capsys.readouterr().out.startswith(mark)


# ---- unicode digits (#49, item 11) ------------------------------------------------------------
@pytest.mark.parametrize(
    "flags, option",
    [
        (["--step", "٣"], "--step"),  # ARABIC-INDIC DIGIT THREE: int() takes it
        (["--step", "３"], "--step"),  # FULLWIDTH DIGIT THREE
        (["--step", "1_0"], "--step"),
        (["--index", "٠"], "--index"),
        (["--seat", "player_١"], "--seat"),
        (["--seat", "١"], "--seat"),
    ],
)
def test_replay_numbers_are_ascii_digits(tmp_path, capsys, flags, option):
    path = tmp_path / "game.json"
    save(_record("spokelse", 1), path)
    assert main(["replay", str(path), *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kortmiljo replay: argument {option}: ") and err.count("\n") == 1, err
    if any(c.isdigit() and not c.isascii() for c in flags[1]):
        assert "(digits 0-9 only)" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "spokelse", "--agents", "random", "--games", "٤"],
        ["eval", "spokelse", "--agents", "random", "--games", "2", "--seed", "٤"],
        ["play", "spokelse", "--seat", "١"],
        ["benchmark", "spokelse", "--agent", "random", "--pool", "random", "--games", "٢", "--workers", "1"],
    ],
)
def test_other_commands_refuse_unicode_digits(capsys, monkeypatch, argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "(digits 0-9 only)" in err and err.count("\n") == 1


def test_play_takes_a_move_number_in_ascii_digits_only():
    out = io.StringIO()
    play("spokelse", ["random"], seat=0, seed=3, stdin=io.StringIO("١\nquit\n"), stdout=out)
    assert "'١' is not an action" in out.getvalue()
