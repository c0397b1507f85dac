"""The benchmark (``kortmiljo benchmark``): determinism, the JSON it writes, the config hash, skipped pool
members, results that are not the protocol's, and the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from kortmiljo.agents import benchmark as B
from kortmiljo.agents.base import RandomPolicy

from kortmiljo.core.registry import load_game

FAST = ["random", "heuristic_v0"]  # a pool that plays in seconds
KB1_SHA256 = "0d12632f9d7ac27f2e2afc75ab1fe6f1433f4e737d127c38957fc5cb9520befe"
RESULT_KEYS = {
    "kind",
    "protocol",
    "protocol_version",
    "protocol_sha256",
    "complete",
    "kortmiljo_version",
    "game",
    "game_version",
    "config",
    "config_hash",
    "num_players",
    "agent",
    "opponents",
    "skipped",
    "workers",
    "seconds",
    "date",
}
OPPONENT_KEYS = {
    "games",
    "deals",
    "mean",
    "ci95",
    "half_width",
    "deal_std",
    "win_rate",
    "win_ci95",
    "wins",
    "draws",
    "losses",
    "truncated",
    "outcomes",
    "deal_outcomes",
}


def numbers(result: dict) -> dict:
    """What two runs must agree on: everything but the clock."""
    return {k: v for k, v in result.items() if k not in ("seconds", "date", "workers")}


def test_kb1_is_fixed():
    # kb1 is never edited: a change of pool, counts or seeds is a new protocol (kb2), see docs/benchmark.md
    kb1 = B.PROTOCOLS["kb1"]
    assert kb1.games_for("spokelse") == {"random": 2000, "heuristic_v0": 2000, "search_v0": 160, "pretrained_v1": 2000}
    assert kb1.games_for("sproyte") == {"random": 9600, "heuristic_v0": 7800, "search_v0": 150, "pretrained_v1": 7800}
    big = {"random": 12000, "heuristic_v0": 12000, "search_v0": 400, "pretrained_v1": 12000}
    assert kb1.games_for("femkortskille") == big
    assert [kb1.seed_for(g) for g in ("spokelse", "sproyte", "femkortskille", "other")] == [
        1000001,
        2000003,
        3000005,
        9000011,
    ]
    assert kb1.sha256() == KB1_SHA256


def test_a_protocol_file_must_be_named_by_its_id(tmp_path):
    (tmp_path / "kb9.json").write_text(
        json.dumps(
            {"id": "kb8", "version": 1, "pool": ["random"], "games": {"*": {"random": 2}}, "deal_seed": {"*": 1}}
        )
    )
    with pytest.raises(ValueError, match="name it kb8.json"):
        B.load_protocols(tmp_path)


def test_kb1_is_the_issue_pool_for_every_game():
    kb1 = B.PROTOCOLS["kb1"]
    assert kb1.id == "kb1" and kb1.version == 1
    assert kb1.pool == ("random", "heuristic_v0", "search_v0", "pretrained_v1")
    for game in ("spokelse", "sproyte", "femkortskille", "a-plug-in-game"):
        counts = kb1.games_for(game)
        assert set(counts) == set(kb1.pool)
        assert counts["search_v0"] <= min(counts.values())  # search is the slow one
        assert isinstance(kb1.seed_for(game), int)
    assert len({kb1.seed_for(g) for g in ("spokelse", "sproyte", "femkortskille")}) == 3


@pytest.mark.parametrize(("game", "agent"), [("spokelse", "heuristic"), ("sproyte", "random")])
def test_two_runs_give_identical_numbers_with_any_number_of_workers(game, agent):
    one = B.run_benchmark(game, agent, pool=FAST, games=6, workers=1)
    again = B.run_benchmark(game, agent, pool=FAST, games=6, workers=1)
    two = B.run_benchmark(game, agent, pool=FAST, games=6, workers=2)
    assert numbers(one) == numbers(again) == numbers(two)
    assert two["workers"] == 2
    assert all(len(o["outcomes"]) == o["games"] for o in one["opponents"].values())


def test_the_games_do_not_depend_on_what_was_played_before():
    # deals are seeded by number: the first deals of a longer run are the deals of a shorter one
    short = B.run_benchmark("sproyte", "random", pool=["random"], games=3, workers=1)
    long = B.run_benchmark("sproyte", "random", pool=["random"], games=9, workers=1)
    assert long["opponents"]["random"]["outcomes"].startswith(short["opponents"]["random"]["outcomes"])
    # and the seeds differ between opponents and rotations, so random play is not replayed
    seeds = {B.game_seed(1, opp, d, r, s) for opp in FAST for d in range(3) for r in range(3) for s in (0, 1)}
    assert len(seeds) == 2 * 3 * 3 * 2


def test_the_result_fields(tmp_path):
    r = B.run_benchmark("sproyte", "heuristic", pool=FAST, games=5, workers=1)
    assert set(r) == RESULT_KEYS
    assert r["kind"] == "kortmiljo-benchmark" and r["protocol"] == "kb1" and r["protocol_version"] == 1
    assert r["protocol_sha256"] == KB1_SHA256
    assert r["complete"] is False  # the pool and the game counts are overridden
    assert r["game"] == "sproyte" and r["num_players"] == 3 and r["config"]["num_players"] == 3
    assert r["agent"] == {"spec": "heuristic", "name": "heuristic_v0"}
    assert list(r["opponents"]) == FAST and r["skipped"] == {}
    for o in r["opponents"].values():
        assert set(o) == OPPONENT_KEYS
        assert o["games"] == 6 and o["deals"] == 2  # 5 games rounded up to whole deals of 3
        assert o["wins"] + o["draws"] + o["losses"] + o["truncated"] == 6
        assert o["ci95"][0] <= o["mean"] <= o["ci95"][1]
        assert o["win_rate"] == pytest.approx(o["wins"] / 6)
    assert r["date"].endswith("Z") and r["seconds"] > 0
    B.write_json(r, str(tmp_path / "r.json"))
    assert json.loads((tmp_path / "r.json").read_text()) == r


def test_a_game_gives_its_reward_to_the_agent_in_its_seat():
    # one heuristic against another in Spøkelse (deterministic, two seats): every deal is won
    # once from each seat, so the tested copy's mean is exactly 0 and it wins half its games
    r = B.run_benchmark("spokelse", "heuristic", pool=["heuristic_v0"], games=10, workers=1)
    o = r["opponents"]["heuristic_v0"]
    assert o["mean"] == 0.0 and o["wins"] + o["draws"] // 2 == 5
    assert o["deal_outcomes"] == "DDDDD"  # the duplicate comparison: at par on every deal
    strong = B.run_benchmark("spokelse", "heuristic", pool=["random"], games=10, workers=1)["opponents"]["random"]
    weak = B.run_benchmark("spokelse", "random", pool=["heuristic_v0"], games=10, workers=1)["opponents"]
    assert strong["mean"] > 0.5 and weak["heuristic_v0"]["mean"] < -0.5
    deals = [{"W": 1, "D": 0, "L": -1}[x] for x in strong["deal_outcomes"]]
    assert len(deals) == strong["deals"] == 5 and sum(deals) > 0


def test_the_config_hash_names_the_configuration():
    default = B.config_hash(load_game("spokelse"))
    assert len(default) == 64 and default == B.config_hash(load_game("spokelse", num_players=2))
    assert default != B.config_hash(load_game("spokelse", num_players=3))
    assert default != B.config_hash(load_game("spokelse", jack_points=11))
    assert default != B.config_hash(load_game("sproyte"))
    r = B.run_benchmark("spokelse", "random", config={"num_players": 3}, pool=["random"], games=3, workers=1)
    assert r["config_hash"] == B.config_hash(load_game("spokelse", num_players=3)) and r["num_players"] == 3


def test_pool_members_that_do_not_exist_are_skipped():
    r = B.run_benchmark("spokelse", "heuristic", pool=["random", "nobody_v9"], games=2, workers=1)
    assert list(r["opponents"]) == ["random"]
    assert "unknown agent 'nobody_v9'" in r["skipped"]["nobody_v9"]
    assert "skipped nobody_v9" in B.format_table(r)


def test_the_pretrained_agent_is_skipped_where_it_does_not_ship():
    # pretrained_v1 ships for the default configuration only
    r = B.run_benchmark(
        "spokelse", "random", config={"num_players": 3}, pool=["random", "pretrained_v1"], games=3, workers=1
    )
    assert list(r["opponents"]) == ["random"] and "pretrained_v1" in r["skipped"]


def test_a_full_protocol_run_is_complete(monkeypatch):
    tiny = B.Protocol(
        id="kt1", version=1, pool=("random", "heuristic_v0"), games={"*": {"random": 2, "heuristic_v0": 2}},
        deal_seed={"*": 5},
    )  # fmt: skip
    monkeypatch.setitem(B.PROTOCOLS, "kt1", tiny)
    r = B.run_benchmark("spokelse", "heuristic", "kt1", workers=1)
    assert r["protocol"] == "kt1" and r["complete"] is True
    assert [o["games"] for o in r["opponents"].values()] == [2, 2]
    assert B.format_table(r).startswith("benchmark kt1: heuristic_v0")
    partial = B.run_benchmark("spokelse", "heuristic", "kt1", games=2, workers=1)
    assert partial["complete"] is False and "NOT kt1" in B.format_table(partial)
    assert numbers(partial)["opponents"] == numbers(r)["opponents"]  # the same games, but not claimed as kt1


def test_a_policy_object_can_be_benchmarked():
    g = load_game("spokelse")
    r = B.run_benchmark(g, RandomPolicy(g, 0), pool=["random"], games=4, workers=1)
    assert r["agent"] == {"spec": "random", "name": "random"}
    same = B.run_benchmark("spokelse", "random", pool=["random"], games=4, workers=1)
    assert r["opponents"] == same["opponents"]  # re-seeded per game: the object's own seed does not matter


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"protocol_id": "kb0"}, "unknown protocol 'kb0'"),
        ({"games": 0}, "games against random"),
        ({"pool": []}, "the pool is empty"),
        ({"workers": 0}, "workers must be"),
    ],
)
def test_bad_arguments_raise_value_errors(kwargs, match):
    args = {"pool": ["random"], "games": 2, "workers": 1, **kwargs}
    with pytest.raises(ValueError, match=match):
        B.run_benchmark("spokelse", "random", **args)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        B.run_benchmark("spokelse", "nobody", pool=["random"], games=2)


# ---- the command line ------------------------------------------------------------------------------
QUICK = ["--pool", *FAST, "--games", "4", "--workers", "1", "--no-progress"]


def test_main_prints_the_table_and_writes_json_and_the_leaderboard(tmp_path, capsys):
    out, board = tmp_path / "r.json", tmp_path / "board.json"
    assert B.main(["spokelse", "--agent", "heuristic", *QUICK, "--out", str(out), "--leaderboard", str(board)]) == 0
    text = capsys.readouterr().out
    assert "NOT kb1" in text and "heuristic_v0" in text and "95% CI" in text and "win rate" in text
    first = json.loads(out.read_text())
    assert first["agent"]["name"] == "heuristic_v0" and set(first["opponents"]) == set(FAST)
    assert B.main(["spokelse", "--agent", "heuristic", *QUICK, "--leaderboard", str(board)]) == 0
    entries = json.loads(board.read_text())  # still one valid JSON list
    assert len(entries) == 2 and "appended to" in capsys.readouterr().out
    assert numbers(entries[0]) == numbers(entries[1]) == numbers(first)


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["nogame", "--agent", "random"], "nogame"),
        (["spokelse", "--agent", "nobody"], "unknown agent 'nobody'"),
        (["spokelse", "--agent", "random", "--config", "num_players=9"], "num_players"),
        (["spokelse", "--agent", "random", "--protocol", "kb0"], "unknown protocol"),
        (["spokelse", "--agent", "random", "--games", "0"], "--games"),
    ],
)
def test_main_reports_bad_input_in_one_line(argv, match, capsys):
    try:
        code = B.main([*argv, "--pool", "random", "--workers", "1", "--no-progress"])
    except SystemExit as exit_:  # argparse's errors (the dispatcher turns them into the status)
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1 and err.startswith("kortmiljo benchmark")


def test_a_corrupt_leaderboard_is_refused_before_any_game(tmp_path, capsys, monkeypatch):
    board = tmp_path / "board.json"
    board.write_text("[{not json")
    monkeypatch.setattr(B, "run_benchmark", lambda *a, **k: pytest.fail("the benchmark must not start"))
    assert B.main(["spokelse", "--agent", "random", *QUICK, "--leaderboard", str(board)]) == 2
    assert "not valid JSON" in capsys.readouterr().err and board.read_text() == "[{not json"


def test_the_benchmark_command_is_dispatched(tmp_path):
    out = tmp_path / "r.json"
    cmd = [sys.executable, "-m", "kortmiljo", "benchmark", "spokelse", "--agent", "random", *QUICK, "--out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["agent"]["name"] == "random"
    bad = subprocess.run(cmd[:4] + ["nogame", "--agent", "random"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "nogame" in bad.stderr
