"""Record files: ``save``/``load`` round trips of one record (``.json``) and many (``.jsonl``), atomic
writes, and ``restore`` refusing a redacted record."""

from __future__ import annotations

import copy
import json
import os

import jsonschema
import pytest

from kortmiljo.records import Record, RecordError, dumps, load, load_all, loads, redact, restore, save, schema

from .test_bad_records import record_of


def records() -> list[Record]:
    return [
        record_of("sproyte", 3),
        record_of("sproyte", 5, match_to=10),
        record_of("femkortskille", 4, payments_stay=True),
        record_of("spokelse", 6, num_players=3),
        record_of("toy", 7),
    ]


def test_save_and_load_one_record(tmp_path):
    for i, rec in enumerate(records()):
        path = tmp_path / f"game{i}.json"
        save(rec, path)
        text = path.read_text(encoding="utf-8")
        assert text.endswith("\n") and text.count("\n") == 1  # one document, on one line (compact JSON)
        jsonschema.validate(json.loads(text), schema())
        back = load(path)
        assert back == rec
        assert back.source == str(path)
        assert load_all(path) == [rec]
        assert loads(text) == rec


def test_save_one_record_to_a_jsonl_file_is_one_line(tmp_path):
    rec = records()[0]
    path = tmp_path / "one.jsonl"
    save(rec, path)
    assert path.read_text(encoding="utf-8").count("\n") == 1
    assert load(path) == rec


def test_save_and_load_many_records(tmp_path):
    recs = records()
    path = tmp_path / "games.jsonl"
    save(recs, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(recs)
    for line in lines:
        jsonschema.validate(json.loads(line), schema())
    got = load_all(path)
    assert got == recs
    assert [r.source for r in got] == [f"{path} line {n}" for n in range(1, len(recs) + 1)]
    assert load(path, index=2) == recs[2]
    save(iter(recs[:2]), path)  # any iterable of records; the file is replaced
    assert load_all(path) == recs[:2]


def test_save_creates_the_folder(tmp_path):
    path = tmp_path / "a" / "b" / "game.json"
    save(records()[0], path)
    assert load(path) == records()[0]


def test_load_without_verify_skips_the_replay_only(tmp_path):
    doc = records()[0].to_dict()
    doc["rewards"]["player_0"] += 1.0  # only the replay can tell
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(RecordError, match="rewards.player_0"):
        load(path)
    assert load(path, verify=False).rewards["player_0"] == doc["rewards"]["player_0"]
    doc["game"] = "whist"  # what from_dict checks is checked still
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(RecordError, match="unknown game"):
        load(path, verify=False)


def test_dumps_is_plain_json_without_nan(tmp_path):
    rec = copy.copy(records()[0])
    rec.rewards = {**rec.rewards, "player_0": float("nan")}
    with pytest.raises(ValueError):
        dumps(rec)


# ---- atomic writes ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, many", [("game.json", False), ("games.jsonl", True)])
def test_save_is_atomic(tmp_path, monkeypatch, name, many):
    path = tmp_path / name
    first = records()[:2]
    save(first if many else first[0], path)
    before = path.read_bytes()

    def broken_replace(src, dst, *args, **kwargs):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="simulated"):
        save(records()[2:] if many else records()[3], path)
    monkeypatch.undo()
    assert path.read_bytes() == before, "a failed save changed the file"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name], "a failed save left a temporary file"
    assert (load_all(path) if many else [load(path)]) == (first if many else first[:1])


def test_save_failing_while_writing_leaves_no_file(tmp_path, monkeypatch):
    path = tmp_path / "new.json"

    def broken_fsync(fd):
        raise OSError("I/O error (simulated)")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="simulated"):
        save(records()[0], path)
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == [], "a failed save left a file behind"


def test_save_interrupted_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "game.json"

    def interrupted(src, dst, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save(records()[0], path)
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


# ---- redacted records ------------------------------------------------------------------------------------------
def test_restore_refuses_a_redacted_record(tmp_path):
    rec = copy.copy(records()[0])
    rec.redacted_for = "player_1"
    with pytest.raises(RecordError) as info:
        restore(rec, step=3)
    msg = str(info.value)
    assert "redacted" in msg and "player_1" in msg and "full record" in msg, msg


def test_restore_refuses_a_redacted_record_file(tmp_path):
    path = tmp_path / "mine.json"
    save(redact(records()[1], "player_0"), path)
    rec = load(path)  # read and checked as far as a redacted record can be
    assert rec.redacted and rec.redacted_for == "player_0"
    assert any(c is None for c in rec.deals[0]["deck"])
    with pytest.raises(RecordError) as info:
        restore(rec)
    msg = str(info.value)
    assert str(path) in msg and "redacted for player_0" in msg, msg


def test_restore_takes_a_record(tmp_path):
    path = tmp_path / "game.json"
    save(records()[0], path)
    with pytest.raises(TypeError, match="load"):
        restore(path)
    assert len(restore(load(path), step=4).unwrapped.engine.history) == 4


def test_restore_step_out_of_range(tmp_path):
    rec = records()[0]
    for step in (-1, len(rec.actions) + 1, 1.5, True, "3"):
        with pytest.raises(RecordError, match="step must be a move"):
            restore(rec, step=step)
    assert len(restore(rec).unwrapped.engine.history) == len(rec.actions)
