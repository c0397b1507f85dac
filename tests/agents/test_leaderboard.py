"""The leaderboard (``kortmiljo leaderboard``): appending, ranking with openskill, groups, the PNG and
clear errors for a file that is not a leaderboard."""

from __future__ import annotations

import copy
import json

import pytest
from kortmiljo.agents import benchmark as B
from kortmiljo.agents import leaderboard as L

FAST = ["random", "heuristic_v0"]


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    """Quick (not kb1) results of a strong and a weak agent, and one in another configuration."""
    run = dict(pool=FAST, games=12, workers=1)
    return {
        "heuristic": B.run_benchmark("spokelse", "heuristic", **run),
        "random": B.run_benchmark("spokelse", "random", **run),
        "three": B.run_benchmark("spokelse", "heuristic", config={"num_players": 3}, **run),
    }


def board(tmp_path, *entries) -> str:
    path = str(tmp_path / "board.json")
    for e in entries:
        L.append_entry(path, e)
    return path


def test_append_keeps_one_valid_json_list(tmp_path, results):
    path = board(tmp_path, results["heuristic"])
    assert L.append_entry(path, results["random"]) == 2
    entries = json.loads((tmp_path / "board.json").read_text())
    assert [e["agent"]["name"] for e in entries] == ["heuristic_v0", "random"]
    assert L.load_entries(path) == entries
    assert L.load_entries(str(tmp_path / "missing.json"), missing_ok=True) == []


def test_a_strong_agent_ranks_above_random(tmp_path, results):
    entries = L.load_entries(board(tmp_path, results["random"], results["heuristic"]))
    (group,) = L.leaderboard(entries)
    assert group["complete"] is False and group["entries"] == 2
    rows = {r["player"]: r for r in group["rows"]}
    assert set(rows) == {"#1 random", "#2 heuristic_v0", "random", "heuristic_v0"}
    assert rows["#2 heuristic_v0"]["rank"] < rows["#1 random"]["rank"]
    assert rows["#2 heuristic_v0"]["ordinal"] > rows["#1 random"]["ordinal"]
    assert rows["heuristic_v0"]["mu"] > rows["random"]["mu"]  # the pool agents are rated too
    assert [r["rank"] for r in group["rows"]] == [1, 2, 3, 4]
    assert [r["ordinal"] for r in group["rows"]] == sorted((r["ordinal"] for r in group["rows"]), reverse=True)
    # every scored deal (two games, one per seat) is one match: the entries' deals are the pool's deals
    assert sum(r["deals"] for r in group["rows"] if r["kind"] == "entry") == 2 * 2 * 6
    assert sum(r["deals"] for r in group["rows"] if r["kind"] == "pool") == 2 * 2 * 6
    assert rows["#2 heuristic_v0"]["means"]["random"] == results["heuristic"]["opponents"]["random"]["mean"]


def test_the_ranking_is_deterministic(tmp_path, results):
    entries = L.load_entries(board(tmp_path, results["heuristic"], results["random"], results["heuristic"]))
    first = L.leaderboard(entries)
    assert L.leaderboard(copy.deepcopy(entries)) == first
    assert L.format_table(first) == L.format_table(L.leaderboard(entries))
    names = [r["player"] for r in first[0]["rows"]]
    assert "#1 heuristic_v0" in names and "#3 heuristic_v0" in names  # the same agent twice: two entries


def test_entries_are_grouped_by_configuration_and_completeness(tmp_path, results):
    full = copy.deepcopy(results["random"])
    full["complete"] = True  # as a complete kb1 run would say
    entries = [results["heuristic"], results["three"], full]
    groups = L.leaderboard(entries)
    got = [(g["complete"], g["config"]["num_players"], g["entries"]) for g in groups]
    assert got[0] == (True, 2, 1) and sorted(got[1:]) == [(False, 2, 1), (False, 3, 1)]  # complete ones first
    text = L.format_table(groups)
    assert text.count("NOT kb1 (game counts or pool overridden)") == 2
    assert text.splitlines()[0].startswith("spokelse kb1, config")
    assert L.leaderboard(entries, game="sproyte") == []


def test_main_prints_the_table_and_draws_the_png(tmp_path, results, capsys):
    path = board(tmp_path, results["heuristic"], results["random"])
    png, out = tmp_path / "lb.png", tmp_path / "lb.json"
    assert L.main([path, "--png", str(png), "--json", str(out), "--game", "spokelse"]) == 0
    text = capsys.readouterr().out
    assert "rank" in text and "mu±sigma" in text and "#1 heuristic_v0" in text and "chart written" in text
    assert text.index("#1 heuristic_v0") < text.index("#2 random")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads(out.read_text())[0]["rows"][0]["rank"] == 1


def test_the_leaderboard_command_is_dispatched(tmp_path, results, capsys):
    from kortmiljo.cli import main

    path = board(tmp_path, results["heuristic"])
    assert main(["leaderboard", path]) == 0
    assert "#1 heuristic_v0" in capsys.readouterr().out
    assert main(["leaderboard", path, "--game", "sproyte"]) == 2
    assert "no entries of sproyte (games in it: spokelse)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[{not json", "is not valid JSON"),
        ("", "is not valid JSON"),
        ('{"entries": []}', "must be a JSON list of benchmark results, got dict"),
        ("[1]", "entry 1 of leaderboard .* is not a benchmark result"),
        ('[{"protocol": "kb1"}]', "entry 1 of leaderboard .* has no 'complete'"),
    ],
)
def test_a_file_that_is_not_a_leaderboard_gives_a_clear_error(tmp_path, capsys, text, match):
    path = tmp_path / "board.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        L.load_entries(str(path))
    assert L.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kortmiljo leaderboard: ") and str(path) in err and err.count("\n") == 1
    with pytest.raises(ValueError):
        L.append_entry(str(path), {})  # and nothing is appended to it
    assert path.read_text() == text


def test_an_entry_of_the_wrong_shape_is_named(tmp_path, results):
    bad = copy.deepcopy(results["random"])
    bad["opponents"]["random"]["outcomes"] = "WX"
    path = tmp_path / "board.json"
    path.write_text(json.dumps([results["heuristic"], bad]))
    with pytest.raises(ValueError, match=r"entry 2 of leaderboard .*opponent 'random': 'outcomes'"):
        L.load_entries(str(path))
    with pytest.raises(ValueError, match="the result is not a benchmark result"):
        L.append_entry(str(tmp_path / "new.json"), {"game": "spokelse"})
    assert not (tmp_path / "new.json").exists()
    assert L.main([str(tmp_path / "missing.json")]) == 2
