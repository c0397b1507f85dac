"""Record loading has declared bounds, each checked before the work it limits (#49, items 6, 7, 10).

- JSON that Python's ``json`` mishandles (deep nesting, integers of thousands of digits, ``NaN``)
  is refused with one ``RecordError``, in ``load``, ``loads``, ``from_dict`` and ``kortmiljo
  replay`` (no ``RecursionError``, no traceback, and no record that loads and then fails to print).
- The bounds of ``kortmiljo.records.format`` (``MAX_*``) refuse a record or file past them before
  it is validated or replayed; the tests lower a bound rather than build a large file.
- A redacted record whose public moves or results are impossible is refused, not printed as real.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from kortmiljo.records import RecordError, dumps, from_dict, load, load_all, loads, redact, replay
from kortmiljo.records import cli as replay_cli
from kortmiljo.records import format as fmt
from tests.records.test_bad_records import good_doc, match_doc, record_of, refused, write


def _no_replay(monkeypatch) -> None:
    """Fail the test if a record is validated by the game or replayed (a bound must come first)."""

    def boom(*args, **kwargs):
        raise AssertionError("the record was checked or replayed before the bound refused it")

    for module in (fmt, replay):
        monkeypatch.setattr(module, "check_game", boom)


# ---- JSON that json mishandles ------------------------------------------------------------------
def deep(n: int = 100_000) -> str:
    return '{"format": "kortmiljo-record", "format_version": 1, "event": ' + "[" * n + "]" * n + "}"


def test_deep_nesting_is_a_record_error(tmp_path):
    refused(write(tmp_path, deep()), "nested")


def test_deep_nesting_in_a_json_lines_file(tmp_path):
    text = dumps(record_of()) + "\n" + deep() + "\n"
    refused(write(tmp_path, text, "games.jsonl"), "line 2", "nested")


def test_deep_nesting_in_kortmiljo_replay_is_one_line(tmp_path, capsys):
    assert replay_cli.main([str(write(tmp_path, deep()))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested" in err, err


@pytest.mark.parametrize("field", ["seed", "seat"])
def test_an_integer_of_thousands_of_digits_is_a_record_error(tmp_path, field):
    text = re.sub(rf'"{field}": ("player_[0-9]"|[0-9]+)', f'"{field}": {"9" * 5000}', json.dumps(good_doc()), count=1)
    assert "9" * 5000 in text
    refused(write(tmp_path, text), "digits")


@pytest.mark.parametrize("where", ["policy", "value", "event"])
def test_nan_is_refused_at_load(tmp_path, where):
    doc = good_doc()
    move = next(a for a in doc["actions"])
    if where == "policy":
        move["policy"] = {move["action"]: float("nan")}
    elif where == "value":
        move["value"] = float("nan")
    else:
        doc["event"] = {"score": float("nan")}
    text = json.dumps(doc)  # writes NaN, as a careless writer would
    assert "NaN" in text
    refused(write(tmp_path, text), "NaN")
    with pytest.raises(RecordError, match="not finite"):
        from_dict(doc)  # the same document built in Python


def test_infinity_in_event_from_dict():
    doc = good_doc()
    doc["event"] = {"deep": {"score": float("inf")}}
    with pytest.raises(RecordError, match="not finite"):
        from_dict(doc)


# ---- counts, before any replay -------------------------------------------------------------------
def test_too_many_deals_is_refused_before_the_decks_are_checked(monkeypatch):
    doc = good_doc()
    doc["deals"] = doc["deals"] * (fmt.MAX_DEALS + 1)  # the 9 s upload of #49, at the real bound
    _no_replay(monkeypatch)
    with pytest.raises(RecordError, match="MAX_DEALS"):
        loads(json.dumps(doc), "the upload")


def test_too_many_moves_is_refused_before_the_replay(monkeypatch, tmp_path):
    doc = good_doc()
    monkeypatch.setattr(fmt, "MAX_MOVES", len(doc["actions"]) - 1)
    _no_replay(monkeypatch)
    refused(write(tmp_path, doc), "MAX_MOVES")


def test_a_record_at_the_bounds_loads(monkeypatch):
    doc = match_doc()
    monkeypatch.setattr(fmt, "MAX_MOVES", len(doc["actions"]))
    monkeypatch.setattr(fmt, "MAX_DEALS", len(doc["deals"]))
    assert len(loads(json.dumps(doc)).actions) == len(doc["actions"])


def test_record_bytes(monkeypatch):
    text = dumps(record_of())
    monkeypatch.setattr(fmt, "MAX_RECORD_BYTES", len(text) - 1)
    with pytest.raises(RecordError, match="MAX_RECORD_BYTES"):
        loads(text)


def test_file_bytes(monkeypatch, tmp_path):
    path = write(tmp_path, dumps(record_of()))
    monkeypatch.setattr(fmt, "MAX_FILE_BYTES", path.stat().st_size - 1)
    refused(path, "MAX_FILE_BYTES")


def test_records_of_a_file(monkeypatch, tmp_path):
    path = write(tmp_path, "".join(dumps(record_of(seed=s)) + "\n" for s in range(3)), "games.jsonl")
    monkeypatch.setattr(fmt, "MAX_RECORDS", 2)
    _no_replay(monkeypatch)
    refused(path, "MAX_RECORDS")


def test_moves_of_a_file_are_counted_before_any_replay(monkeypatch, tmp_path):
    recs = [record_of(seed=s) for s in range(3)]
    path = write(tmp_path, "".join(dumps(r) + "\n" for r in recs), "games.jsonl")
    total = sum(len(r.actions) for r in recs)
    monkeypatch.setattr(fmt, "MAX_FILE_MOVES", total - 1)
    _no_replay(monkeypatch)
    with pytest.raises(RecordError, match="MAX_FILE_MOVES"):
        load_all(path, verify=False)


def test_a_file_at_its_bounds_loads(monkeypatch, tmp_path):
    recs = [record_of(seed=s) for s in range(3)]
    path = write(tmp_path, "".join(dumps(r) + "\n" for r in recs), "games.jsonl")
    monkeypatch.setattr(fmt, "MAX_RECORDS", 3)
    monkeypatch.setattr(fmt, "MAX_FILE_MOVES", sum(len(r.actions) for r in recs))
    assert load_all(path) == recs


# ---- redacted records ----------------------------------------------------------------------------
def redacted_doc(seat: int = 0) -> dict[str, Any]:
    return copy.deepcopy(redact(record_of(), seat).to_dict())


def other_move(doc: dict[str, Any], head: str = "play:") -> dict[str, Any]:
    me = doc["redacted_for"]
    return next(a for a in doc["actions"] if a["seat"] != me and a["action"].startswith(head))


def test_a_good_redacted_record_loads(tmp_path):
    for seat in range(3):
        assert load(write(tmp_path, redacted_doc(seat))).redacted


@pytest.mark.parametrize("name", ["bet:3", "play:ZZ", "hello"])
def test_redacted_record_with_an_action_the_game_lacks(tmp_path, name):
    doc = redacted_doc()
    other_move(doc)["action"] = name
    refused(write(tmp_path, doc), "is not an action")


def test_redacted_record_with_a_card_the_seat_never_located(tmp_path):
    doc = redacted_doc()
    move = other_move(doc)
    seen = {c for d in doc["deals"] for c in d["deck"] if c} | {c for a in doc["actions"] for c in a["seen"]}
    move["action"] = next(f"play:{c}" for c in record_of().deals[0]["deck"] if c not in seen)
    move["seen"] = []
    refused(write(tmp_path, doc), "never located")


def test_redacted_record_with_a_card_played_twice(tmp_path):
    doc = redacted_doc()
    plays = [a for a in doc["actions"] if a["seat"] != doc["redacted_for"] and a["action"].startswith("play:")]
    plays[1]["action"] = plays[0]["action"]
    refused(write(tmp_path, doc), "times in deal")


def test_redacted_record_with_own_discard_hidden(tmp_path):
    doc = redacted_doc()
    move = next(a for a in doc["actions"] if a["seat"] == doc["redacted_for"] and a["action"].startswith("discard:"))
    move["action"] = "discard:?"  # the seat's own moves keep their full names
    refused(write(tmp_path, doc), "is not an action")


def test_redacted_record_with_moves_out_of_deal_order(tmp_path):
    doc = copy.deepcopy(redact(loads(json.dumps(match_doc())), 0).to_dict())
    last = next(a for a in reversed(doc["actions"]) if a["deal"] > 0)
    last["deal"] = 0
    refused(write(tmp_path, doc), "after a move in deal")


@pytest.mark.parametrize(
    "rewards",
    [{"player_0": 1.0, "player_1": 1.0, "player_2": 1.0}, {"player_0": 500.0, "player_1": -250.0, "player_2": -250.0}],
    ids=["not zero-sum", "past the bounds"],
)
def test_redacted_record_with_impossible_rewards(tmp_path, rewards):
    doc = redacted_doc()
    doc["rewards"] = rewards
    refused(write(tmp_path, doc), "rewards")


def test_unfinished_redacted_record_with_end_infos(tmp_path):
    doc = redacted_doc()
    doc["status"] = "unfinished"
    refused(write(tmp_path, doc), "infos")
