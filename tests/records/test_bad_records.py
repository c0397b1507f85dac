"""Every bad record file is refused with a ``RecordError`` that says where and what is wrong.

Each case writes a file under ``tmp_path`` and reads it with ``kortmiljo.records.load``: the
message must name the file, the move where one is at fault, and what is wrong (cut-off or invalid
JSON, an empty file, something that is not a kortmiljo record, a newer format, a schema violation,
an unknown game or option, a deck that is not the game's, a move that is illegal, out of turn or
after the end, results the replay disagrees with, too few decks). Nothing is skipped silently:
a JSON Lines file with one bad line is refused naming the line, and one of good records loads
every one of them.
"""

from __future__ import annotations

import copy
import json
import re
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kortmiljo import game_def
from kortmiljo.records import Record, RecordEpisode, RecordError, dumps, load, load_all, restore
from tests.conformance.probes import random_legal

_RECORDS: dict[str, Record] = {}


def record_of(game: str = "sproyte", seed: int = 3, **config: Any) -> Record:
    """The record of one seeded episode of random legal play (cached per configuration)."""
    key = f"{game}:{seed}:{sorted(config.items())}"
    if key not in _RECORDS:
        env = RecordEpisode(import_module(f"kortmiljo.{game_def(game).env_name}").env(**config))
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else random_legal(rng, obs["action_mask"]))
        _RECORDS[key] = env.last_record
    return _RECORDS[key]


def good_doc(game: str = "sproyte", seed: int = 3, **config: Any) -> dict[str, Any]:
    return copy.deepcopy(record_of(game, seed, **config).to_dict())


def match_doc() -> dict[str, Any]:
    """A Sprøyte match of several deals."""
    doc = good_doc("sproyte", 5, match_to=10)
    assert len(doc["deals"]) >= 3, len(doc["deals"])
    return doc


def write(tmp_path: Path, content: Any, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=1), encoding="utf-8")
    return path


def refused(path: Path, *parts: str, move: int | None = None, **load_kwargs: Any) -> str:
    """``load(path)`` raises a RecordError naming the file, ``move`` and every one of ``parts``."""
    with pytest.raises(RecordError) as info:
        load(path, **load_kwargs)
    msg = str(info.value)
    assert str(path) in msg, f"the message does not name the file: {msg}"
    for part in parts:
        assert part.lower() in msg.lower(), f"the message does not say {part!r}: {msg}"
    if move is not None:
        assert re.search(rf"\bmove {move}\b", msg), f"the message does not name move {move}: {msg}"
    return msg


def some_move(doc: dict[str, Any]) -> int:
    """A move in the middle of the record."""
    return len(doc["actions"]) // 2


# ---- files that are not records --------------------------------------------------------------------------
def test_truncated_file(tmp_path):
    text = dumps(record_of())
    refused(write(tmp_path, text[: len(text) // 2]), "not valid JSON", "line")


def test_truncated_single_line_file(tmp_path):
    text = dumps(record_of(), indent=None)
    refused(write(tmp_path, text[: len(text) // 2]), "not valid JSON")


def test_not_json(tmp_path):
    refused(write(tmp_path, "this is not a record\n"), "not valid JSON")


@pytest.mark.parametrize("text", ["", "\n", "  \n\n "], ids=["empty", "newline", "blank"])
def test_empty_file(tmp_path, text):
    refused(write(tmp_path, text), "empty")


def test_missing_file(tmp_path):
    refused(tmp_path / "nowhere.json", "no such record file")


def test_not_utf8(tmp_path):
    path = tmp_path / "game.json"
    path.write_bytes(b'{"format": "\xff\xfe"}')
    refused(path, "UTF-8")


@pytest.mark.parametrize(
    "content",
    [{"format": "pgn", "moves": []}, {"hello": "world"}, {**good_doc(), "format": "kortmiljo-recording"}],
    ids=["other format", "no format", "misspelt format"],
)
def test_not_a_kortmiljo_record(tmp_path, content):
    refused(write(tmp_path, content), "not a kortmiljo record")


@pytest.mark.parametrize("content", [[1, 2, 3], "a string", 7, None], ids=["list", "string", "number", "null"])
def test_json_that_is_not_an_object(tmp_path, content):
    refused(write(tmp_path, json.dumps(content)), "a record is a JSON object")


def test_newer_format_version(tmp_path):
    doc = good_doc()
    doc["format_version"] = 2
    refused(write(tmp_path, doc), "format_version 2", "newer", "upgrade")


# ---- schema violations -----------------------------------------------------------------------------------
@pytest.mark.parametrize("field", ["game", "deals", "actions", "status", "rewards", "seed", "config"])
def test_missing_field(tmp_path, field):
    doc = good_doc()
    del doc[field]
    refused(write(tmp_path, doc), f"'{field}'", "required")


@pytest.mark.parametrize(
    "field, value",
    [("seed", "7"), ("seed", -1), ("status", "won"), ("deals", "none"), ("rewards", [0, 0, 0]), ("game_version", 1.5)],
)
def test_wrong_type_or_value(tmp_path, field, value):
    doc = good_doc()
    doc[field] = value
    refused(write(tmp_path, doc), field)


def test_unknown_field(tmp_path):
    doc = good_doc()
    doc["comment"] = "hi"
    refused(write(tmp_path, doc), "comment")


def test_wrong_type_in_a_move_names_the_move(tmp_path):
    doc = good_doc()
    k = some_move(doc)
    doc["actions"][k]["deal"] = "0"
    refused(write(tmp_path, doc), "deal", "integer", move=k)


def test_missing_field_in_a_move_names_the_move(tmp_path):
    doc = good_doc()
    k = some_move(doc)
    del doc["actions"][k]["action"]
    refused(write(tmp_path, doc), "'action'", "required", move=k)


# ---- the game and its options ------------------------------------------------------------------------------
def test_unknown_game(tmp_path):
    doc = good_doc()
    doc["game"] = "whist"
    refused(write(tmp_path, doc), "unknown game 'whist'", "sproyte")


def test_unknown_option(tmp_path):
    doc = good_doc()
    doc["config"]["colour"] = "red"
    refused(write(tmp_path, doc), "config", "unknown option", "colour")


@pytest.mark.parametrize("option, value", [("variant", "nope"), ("num_players", 9), ("match_to", -3)])
def test_bad_option_value(tmp_path, option, value):
    doc = good_doc()
    doc["config"][option] = value
    refused(write(tmp_path, doc), "config", option)


def test_other_game_version(tmp_path):
    doc = good_doc()
    doc["game_version"] += 1
    refused(write(tmp_path, doc), f"v{doc['game_version']}")


def test_seats_that_do_not_match_the_game(tmp_path):
    doc = good_doc()
    doc["seats"]["player_3"] = None
    refused(write(tmp_path, doc), "seats", "player_3")


# ---- decks -----------------------------------------------------------------------------------------------------
def _with_deck(tmp_path, change, deal: int = 0) -> Path:
    doc = match_doc() if deal else good_doc()
    change(doc["deals"][deal]["deck"])
    return write(tmp_path, doc)


@pytest.mark.parametrize("deal", [0, 2], ids=["first deal", "a later deal"])
def test_deck_with_a_duplicate(tmp_path, deal):
    def dup(deck):
        deck[1] = deck[0]

    refused(_with_deck(tmp_path, dup, deal), f"deal {deal}", "duplicate")


@pytest.mark.parametrize("deal", [0, 2], ids=["first deal", "a later deal"])
def test_deck_missing_a_card(tmp_path, deal):
    refused(_with_deck(tmp_path, lambda deck: deck.pop(), deal), f"deal {deal}", "missing")


@pytest.mark.parametrize("deal", [0, 2], ids=["first deal", "a later deal"])
def test_deck_with_an_unknown_code(tmp_path, deal):
    def unknown(deck):
        deck[3] = "ZZ"

    refused(_with_deck(tmp_path, unknown, deal), f"deal {deal}", "unknown card", "ZZ")


def test_deck_with_a_hidden_card_but_not_redacted(tmp_path):
    def hide(deck):
        deck[0] = None

    refused(_with_deck(tmp_path, hide), "deal 0", "not redacted")


def test_femkortskille_deck_with_a_third_copy(tmp_path):
    doc = good_doc("femkortskille", 3)
    deck = doc["deals"][0]["deck"]
    twice = next(c for c in deck if deck.count(c) == 2)
    deck[next(i for i, c in enumerate(deck) if c != twice)] = twice
    refused(write(tmp_path, doc), "deal 0", "duplicate")


def test_dealer_that_is_not_a_seat(tmp_path):
    doc = good_doc()
    doc["deals"][0]["dealer"] = 7
    refused(write(tmp_path, doc), "deal 0", "dealer 7")


def test_carry_in_a_game_that_carries_nothing(tmp_path):
    doc = good_doc()
    doc["carry"] = {"pot": 3}
    refused(write(tmp_path, doc), "carry")


def test_bad_carried_pot(tmp_path):
    doc = good_doc("femkortskille", 3, payments_stay=True)
    doc["carry"] = {"pot": -2}
    refused(write(tmp_path, doc), "carry", "pot")


# ---- moves --------------------------------------------------------------------------------------------------
def test_illegal_action_names_the_move(tmp_path):
    rec = record_of()
    doc = good_doc()
    k = some_move(doc)
    engine = restore(rec, step=k).unwrapped.engine
    illegal = next(a for a in range(len(engine.action_names)) if not engine.is_legal(a))
    name = engine.action_names[illegal]
    doc["actions"][k]["action"] = name
    refused(write(tmp_path, doc), repr(name), doc["actions"][k]["seat"], move=k)


def test_unknown_action_name_names_the_move(tmp_path):
    doc = good_doc()
    k = some_move(doc)
    doc["actions"][k]["action"] = "fly:away"
    refused(write(tmp_path, doc), "unknown action 'fly:away'", move=k)


def test_move_by_the_wrong_seat(tmp_path):
    doc = good_doc()
    k = some_move(doc)
    right = doc["actions"][k]["seat"]
    wrong = next(s for s in doc["seats"] if s != right)
    doc["actions"][k]["seat"] = wrong
    refused(write(tmp_path, doc), f"it is {right}'s move, not {wrong}'s", move=k)


def test_move_by_a_seat_the_game_does_not_have(tmp_path):
    doc = good_doc()
    k = some_move(doc)
    doc["actions"][k]["seat"] = "player_9"
    refused(write(tmp_path, doc), "player_9", "not a seat", move=k)


def test_action_after_the_end(tmp_path):
    doc = good_doc()
    n = len(doc["actions"])
    doc["actions"].append(dict(doc["actions"][-1]))
    refused(write(tmp_path, doc), "already ended", move=n)


def test_record_cut_short_says_it_is_unfinished(tmp_path):
    doc = good_doc()
    del doc["actions"][-5:]
    refused(write(tmp_path, doc), "unfinished", "finished")


def test_wrong_deal_on_a_move(tmp_path):
    doc = match_doc()
    k = next(i for i, a in enumerate(doc["actions"]) if a["deal"] == 1)
    doc["actions"][k]["deal"] = 2
    refused(write(tmp_path, doc), "deal", move=k)


def test_wrong_trick_on_a_move(tmp_path):
    doc = good_doc()
    k = next(i for i, a in enumerate(doc["actions"]) if a.get("trick") is not None)
    doc["actions"][k]["trick"] += 3
    refused(write(tmp_path, doc), "trick", move=k)


# ---- results the replay disagrees with -----------------------------------------------------------------------------
def test_rewards_tampered(tmp_path):
    doc = good_doc()
    doc["rewards"]["player_0"] += 1.0
    refused(write(tmp_path, doc), "rewards.player_0", "the moves give")


def test_infos_tampered(tmp_path):
    doc = good_doc()
    info = doc["infos"]["player_1"]
    key = next(k for k, v in info.items() if isinstance(v, int) and not isinstance(v, bool))
    info[key] += 1
    refused(write(tmp_path, doc), "infos.player_1", "the moves give")


def test_status_tampered(tmp_path):
    doc = good_doc()
    doc["status"] = "truncated"
    refused(write(tmp_path, doc), "finished", "truncated")


def test_tampered_deck_is_caught_by_the_replay(tmp_path):
    """Two cards swapped in a deck: still a permutation, but the moves no longer fit (or the result differs)."""
    doc = good_doc()
    deck = doc["deals"][0]["deck"]
    deck[0], deck[-1] = deck[-1], deck[0]
    with pytest.raises(RecordError, match=re.escape(str(tmp_path))):
        load(write(tmp_path, doc))


# ---- too few decks ------------------------------------------------------------------------------------------------
def test_fewer_decks_than_its_deals(tmp_path):
    doc = match_doc()
    n = len(doc["deals"])
    del doc["deals"][-1]
    k = next(i for i, a in enumerate(doc["actions"]) if a["deal"] == n - 1)  # the first move of the lost deal
    refused(write(tmp_path, doc), f"deal {n - 1}", f"{n - 1} deals", move=k)


def test_fewer_decks_and_the_moves_of_the_lost_deal_cut(tmp_path):
    """The moves end with the one that starts a deal the record has no deck for."""
    doc = match_doc()
    n = len(doc["deals"])
    del doc["deals"][-1]
    doc["actions"] = [a for a in doc["actions"] if a["deal"] < n - 1]
    doc["status"] = "unfinished"
    k = len(doc["actions"]) - 1
    refused(write(tmp_path, doc), f"starts deal {n - 1}", f"only {n - 1} deals", move=k)


def test_more_decks_than_its_deals(tmp_path):
    doc = good_doc()
    doc["deals"].append(copy.deepcopy(doc["deals"][0]))
    refused(write(tmp_path, doc), "2 deals", "play 1")


# ---- JSON Lines --------------------------------------------------------------------------------------------------
def three_lines() -> list[str]:
    return [dumps(record_of("sproyte", s), indent=None) for s in (3, 4, 5)]


@pytest.mark.parametrize("bad", [1, 2, 3])
def test_jsonl_with_one_corrupt_line(tmp_path, bad):
    lines = three_lines()
    lines[bad - 1] = lines[bad - 1][: len(lines[bad - 1]) // 2]
    path = write(tmp_path, "\n".join(lines) + "\n", "games.jsonl")
    for call in (load_all, lambda p: load(p, index=0)):
        with pytest.raises(RecordError) as info:
            call(path)
        msg = str(info.value)
        assert str(path) in msg and re.search(rf"\bline {bad}\b", msg), msg


def test_jsonl_with_one_tampered_line_names_line_and_move(tmp_path):
    lines = three_lines()
    doc = json.loads(lines[1])
    k = some_move(doc)
    right = doc["actions"][k]["seat"]
    doc["actions"][k]["seat"] = next(s for s in doc["seats"] if s != right)
    lines[1] = json.dumps(doc)
    path = write(tmp_path, "\n".join(lines) + "\n", "games.jsonl")
    with pytest.raises(RecordError) as info:
        load_all(path)
    msg = str(info.value)
    assert str(path) in msg and re.search(r"\bline 2\b", msg) and re.search(rf"\bmove {k}\b", msg), msg


def test_jsonl_with_a_line_that_is_not_a_record(tmp_path):
    lines = three_lines()
    lines.insert(2, json.dumps({"format": "pgn"}))
    path = write(tmp_path, "\n".join(lines) + "\n", "games.jsonl")
    with pytest.raises(RecordError, match=r"line 3: not a kortmiljo record"):
        load_all(path)


def test_load_of_a_multi_record_file_wants_an_index(tmp_path):
    path = write(tmp_path, "\n".join(three_lines()) + "\n", "games.jsonl")
    refused(path, "3 records", "index")
    refused(path, "index 3", "3 records", index=3)


def test_nothing_is_skipped_silently(tmp_path):
    recs = [record_of("sproyte", s) for s in (3, 4, 5)]
    path = write(tmp_path, "\n".join(three_lines()) + "\n\n", "games.jsonl")  # a blank line at the end
    got = load_all(path)
    assert len(got) == 3
    assert got == recs
    assert [load(path, index=i) for i in range(3)] == recs
    assert {r.source for r in got} == {f"{path} line {n}" for n in (1, 2, 3)}
