"""Game records from the command line: ``kortmiljo eval --record DIR``, ``kortmiljo play --record
FILE`` and ``kortmiljo play --resume FILE``."""

from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest
from kortmiljo.agents import tournament as T
from kortmiljo.agents.base import Policy

from kortmiljo import cli, load_game, records


def run_cli(argv, capsys, stdin: str = "", monkeypatch=None):
    if monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def legal_names(record):
    """The legal moves' names before each move of ``record`` (replayed through a restored env)."""
    env = records.restore(record, step=0)
    engine = env.unwrapped.engine
    out = []
    for a in record.actions:
        mask = env.observe(a["seat"])["action_mask"]
        out.append({engine.action_to_string(int(i)) for i in np.flatnonzero(mask)})
        env.step(engine.action_from_string(a["action"]))
    return out


def check_policies(record, seats_that_explain):
    legal = legal_names(record)
    explained = 0
    for a, names in zip(record.actions, legal, strict=True):
        if record.seats[a["seat"]] not in seats_that_explain:
            assert "policy" not in a and "value" not in a
            continue
        assert set(a["policy"]) == names  # probabilities over exactly the legal moves
        assert sum(a["policy"].values()) == pytest.approx(1.0, abs=1e-4)  # stored to 6 decimals
        explained += 1
    assert explained > 0


# ---- kortmiljo eval --record -------------------------------------------------------------------
def test_eval_record_writes_one_loadable_record_per_game(tmp_path, capsys):
    folder = tmp_path / "new" / "records"  # made, parents too
    argv = ["eval", "spokelse", "--agents", "random", "heuristic", "--games", "4", "--seed", "3", "--no-progress"]
    status, out, err = run_cli([*argv, "--record", str(folder)], capsys)
    assert status == 0, err
    assert f"4 game records written to {folder}" in out
    files = sorted(p.name for p in folder.iterdir())
    assert files == [f"spokelse-{i:06d}.json" for i in range(4)]  # nothing else: no temporary files
    seen_seatings = []
    for i, name in enumerate(files):
        rec = records.load(folder / name)  # validated against the schema and replayed
        assert rec.status == "finished" and rec.game == "spokelse"
        assert rec.event == {
            "tournament": {"seed": 3, "agents": ["random", "heuristic"]},
            "deal": i // 2,
            "rotation": i % 2,
            "game": i,
        }
        seating = [rec.seats["player_0"], rec.seats["player_1"]]
        assert sorted(seating) == ["heuristic", "random"]
        seen_seatings.append(seating)
        check_policies(rec, {"random"})
        assert all(
            1 / len(a["policy"]) == pytest.approx(p) for a in rec.actions if "policy" in a for p in a["policy"].values()
        )
    assert seen_seatings[0] == seen_seatings[1][::-1]  # the rotation swaps the seats on the same deal
    first, second = (records.load(folder / f) for f in files[:2])
    assert first.deals[0] == second.deals[0] and first.seed == second.seed  # duplicate deal
    results = T.run_tournament("spokelse", ["random", "heuristic"], 4, seed=3, progress=False)  # not recorded
    recs = [records.load(folder / f) for f in files]
    heuristic = [r.rewards[seat] for r in recs for seat, who in r.seats.items() if who == "heuristic"]
    assert np.mean(heuristic) == pytest.approx(results["agents"]["heuristic"]["mean_reward"])  # the same games


def test_search_moves_carry_probabilities_and_a_value(tmp_path):
    folder = tmp_path / "recs"
    kw = {"search": {"worlds": 2, "step_budget": None}}
    res = T.run_tournament(
        "spokelse", ["search", "heuristic", "heuristic"], 3, progress=False, agent_kwargs=kw, record=folder
    )
    assert res["games"] == 3
    recs = [records.load(p) for p in sorted(folder.glob("*.json"))]
    assert len(recs) == 3
    for rec in recs:
        assert sorted(rec.seats.values()) in (
            ["heuristic#1", "heuristic#2"],
            ["heuristic#1", "search"],
            ["heuristic#2", "search"],
        )
        assert rec.event["tournament"]["agents"] == ["search", "heuristic#1", "heuristic#2"]
        if "search" not in rec.seats.values():
            continue
        check_policies(rec, {"search"})
        searched = [a for a in rec.actions if rec.seats[a["seat"]] == "search" and len(a["policy"]) > 1]
        assert searched and all(isinstance(a.get("value"), float) for a in searched)  # Spøkelse searches every stage


class Loop(Policy):
    """Takes from the pile and discards it again, forever: only the cap ends the game."""

    name = "loop"

    def act(self, obs, engine=None):
        mask = obs["action_mask"]
        return 1 if mask[1] else 2


def test_games_a_cap_cuts_short_are_recorded_as_truncated(tmp_path):
    g = load_game("spokelse", max_steps=200)
    T.run_tournament(g, [Loop(g), Loop(g)], 2, progress=False, record=tmp_path)
    recs = [records.load(p) for p in sorted(tmp_path.glob("*.json"))]
    assert [r.status for r in recs] == ["truncated", "truncated"]
    assert recs[0].infos["player_0"]["truncated_by"] == "max_steps"
    assert set(recs[0].seats.values()) == {"loop#1", "loop#2"}


class Interrupt(Policy):
    name = "interrupt"

    def __init__(self, game, after: int):
        super().__init__(game)
        self.left = after

    def act(self, obs, engine=None):
        self.left -= 1
        if self.left < 0:
            raise KeyboardInterrupt
        return int(np.flatnonzero(obs["action_mask"])[0])


def test_an_interrupted_tournament_leaves_only_whole_records(tmp_path):
    g = load_game("spokelse")
    with pytest.raises(KeyboardInterrupt):
        T.run_tournament(g, [Interrupt(g, 10**9), Interrupt(g, 150)], 50, progress=False, record=tmp_path)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files and all(not f.startswith(".") for f in files)  # no temporary file left
    for f in files:
        assert records.load(tmp_path / f).status in ("finished", "truncated")


def test_a_folder_with_records_is_refused_before_the_first_game(tmp_path, capsys, monkeypatch):
    (tmp_path / "old.json").write_text("{}\n")
    monkeypatch.setattr(T, "play_game", lambda *a, **k: pytest.fail("the tournament must not start"))
    status, out, err = run_cli(
        ["eval", "spokelse", "--agents", "random", "--games", "2", "--no-progress", "--record", str(tmp_path)], capsys
    )
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kortmiljo eval: --record")
    assert "already holds 1 record file" in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json"]
    monkeypatch.undo()
    with pytest.raises(ValueError, match="already holds"):
        T.run_tournament("spokelse", ["random"], 2, progress=False, record=tmp_path)
    a_file = tmp_path / "a_file.txt"
    a_file.write_text("x")
    for bad, words in ((a_file, "is not a folder"), (a_file / "below", "is a file, not a folder")):
        with pytest.raises(ValueError, match=words):
            T.run_tournament("spokelse", ["random"], 2, progress=False, record=bad)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("other files are fine\n")
    T.run_tournament("spokelse", ["random"], 2, progress=False, record=empty)
    assert len(list(empty.glob("spokelse-*.json"))) == 2


def test_a_bad_agent_leaves_no_record_folder(tmp_path, capsys):
    folder = tmp_path / "recs"
    status, _, err = run_cli(
        ["eval", "spokelse", "--agents", "nobody", "--games", "2", "--no-progress", "--record", str(folder)], capsys
    )
    assert status == 2 and "unknown agent 'nobody'" in err
    assert not folder.exists()


def test_eval_help_documents_record(capsys):
    with pytest.raises(SystemExit):
        T.main(["--help"])
    assert "--record DIR" in capsys.readouterr().out
    assert "``--record DIR``" in T.__doc__


# ---- kortmiljo play --record / --resume ------------------------------------------------------
PLAY = ["play", "spokelse", "--opponents", "heuristic", "--seed", "4"]


def test_play_record_quit_then_resume_to_the_end(tmp_path, capsys, monkeypatch):
    path = tmp_path / "game.json"
    status, out, err = run_cli([*PLAY, "--record", str(path)], capsys, "1\n" * 6 + "quit\n", monkeypatch)
    assert status == 0, err
    assert "game left unfinished" in out and f"game record written to {path}" in out
    first = records.load(path)
    assert first.status == "unfinished"
    assert first.seats == {"player_0": "human", "player_1": "heuristic"}
    assert first.seed == 4
    assert sum(a["seat"] == "player_0" for a in first.actions) == 6

    again = tmp_path / "again.json"
    status, out, err = run_cli(
        ["play", "--resume", str(path), "--record", str(again)], capsys, "1\n" * 500, monkeypatch
    )
    assert status == 0, err
    assert f"resumed {path} after {len(first.actions)} moves; you are player_0" in out
    assert "player_1 = heuristic" in out and "result:" in out
    full = records.load(again)
    assert full.status == "finished"
    assert full.seats == first.seats and full.seed == first.seed
    assert full.actions[: len(first.actions)] == first.actions  # the recorded moves, then the new ones
    assert len(full.actions) > len(first.actions)
    assert full.deals[0] == first.deals[0]

    # the same game played straight through gives the same record (the heuristic is deterministic)
    straight = tmp_path / "straight.json"
    run_cli([*PLAY, "--record", str(straight)], capsys, "1\n" * 500, monkeypatch)
    assert records.load(straight).actions == full.actions

    status, out, err = run_cli(["play", "--resume", str(again)], capsys, "", monkeypatch)
    assert status == 0, err
    assert "holds a game that is over (finished" in out and "result:" in out and "the game is over" in out
    assert "player_0 (you)" in out


def test_end_of_input_saves_an_unfinished_record(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.json"
    status, out, _ = run_cli([*PLAY, "--seat", "1", "--record", str(path)], capsys, "1\n" * 4, monkeypatch)
    assert status == 0 and "game left unfinished" in out
    rec = records.load(path)
    assert rec.status == "unfinished" and rec.seats == {"player_0": "heuristic", "player_1": "human"}
    heuristic_moves = [a for a in rec.actions if a["seat"] == "player_0"]
    assert heuristic_moves and all("policy" not in a for a in heuristic_moves)  # a heuristic explains nothing
    # resume in another seat against other opponents
    status, out, err = run_cli(
        ["play", "--resume", str(path), "--seat", "0", "--opponents", "random"], capsys, "quit\n", monkeypatch
    )
    assert status == 0, err
    assert "you are player_0; opponents: player_1 = random" in out


def test_resume_with_a_searching_opponent_keeps_its_explanations(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.json"
    argv = ["play", "spokelse", "--opponents", "random", "--seed", "2", "--record", str(path)]
    run_cli(argv, capsys, "1\n" * 3 + "quit\n", monkeypatch)
    first = records.load(path)
    run_cli(["play", "--resume", str(path), "--record", str(path)], capsys, "1\n" * 3 + "quit\n", monkeypatch)
    second = records.load(path)  # the same file: replaced atomically by the longer record
    assert second.status == "unfinished" and len(second.actions) > len(first.actions)
    assert second.actions[: len(first.actions)] == first.actions
    check_policies(second, {"random"})


@pytest.mark.parametrize(
    "content, words",
    [
        ('{"format": "kortmiljo-record", "format_version": 1, "game": "spok', "not valid JSON"),
        ("", "the file is empty"),
        ('{"format": "something-else"}', "not a kortmiljo record"),
        (None, "no such record file"),
    ],
)
def test_resume_of_a_bad_file_is_one_line_naming_it(tmp_path, capsys, monkeypatch, content, words):
    path = tmp_path / "broken.json"
    if content is not None:
        path.write_text(content)
    status, out, err = run_cli(["play", "--resume", str(path)], capsys, "1\n", monkeypatch)
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"kortmiljo play: {path}") and words in lines[0]


def test_resume_of_a_tampered_record_names_the_move(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.json"
    run_cli([*PLAY, "--record", str(path)], capsys, "1\n" * 4 + "quit\n", monkeypatch)
    doc = json.loads(path.read_text())
    doc["actions"][3]["action"] = "play:QS"
    path.write_text(json.dumps(doc))
    status, _, err = run_cli(["play", "--resume", str(path)], capsys, "1\n", monkeypatch)
    assert status == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"kortmiljo play: {path}, move 3")


def test_resume_refuses_what_the_record_decides(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.json"
    run_cli([*PLAY, "--record", str(path)], capsys, "quit\n", monkeypatch)
    for extra, words in (
        (["--seed", "1"], "drop --seed"),
        (["--config", "num_players=3"], "drop --config"),
        (["sproyte"], "the record is a game of spokelse, not sproyte"),
        (["--seat", "7"], "--seat must be 0..1"),
        (["--opponents", "nobody"], "unknown agent 'nobody'"),
    ):
        status, _, err = run_cli(["play", "--resume", str(path), *extra], capsys, "1\n", monkeypatch)
        assert status == 2 and len(err.splitlines()) == 1 and words in err, (extra, err)


def test_resume_needs_a_human_seat_for_a_record_of_agents(tmp_path, capsys, monkeypatch):
    from kortmiljo import spokelse_v0

    env = records.RecordEpisode(spokelse_v0.env(), seats={"player_0": "heuristic", "player_1": "random"})
    env.reset(seed=1)
    for _ in range(4):  # a record of agents, left unfinished
        obs = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    path = tmp_path / "agents.json"
    records.save(env.record(), path)
    status, _, err = run_cli(["play", "--resume", str(path)], capsys, "", monkeypatch)
    assert status == 2 and "no seat of the record is marked 'human'; give --seat" in err
    status, out, err = run_cli(["play", "--resume", str(path), "--seat", "1"], capsys, "quit\n", monkeypatch)
    assert status == 0, err
    assert "opponents: player_0 = heuristic" in out
