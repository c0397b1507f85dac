"""Tournaments: the statistics, the seating scheme, the JSON shape, atomic writes and the CLI."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from kortmiljo.agents import tournament as T
from kortmiljo.agents.base import Policy

from kortmiljo.core.options import parse_options

from .common import GAMES

AGENT_KEYS = {"mean_reward", "ci95", "win_rate", "win_ci95", "per_seat", "rating"}


def test_mean_ci_is_student_t():
    m, lo, hi = T.mean_ci([1.0, 2.0, 3.0, 4.0])
    half = 3.182446 * math.sqrt(5 / 3) / 2  # t(0.975, 3) * sd / sqrt(n)
    assert m == 2.5
    assert lo == pytest.approx(2.5 - half) and hi == pytest.approx(2.5 + half)
    assert T.mean_ci([0.5]) == (0.5, 0.5, 0.5)
    assert T.mean_ci([1.0, 1.0, 1.0]) == (1.0, 1.0, 1.0)
    # the exact Student-t quantile (scipy), approaching the normal one
    assert T.t95(30) == pytest.approx(2.0423, abs=1e-4) and T.t95(40) == pytest.approx(2.021, abs=1e-3)
    assert T.t95(120) == pytest.approx(1.980, abs=1e-3) and T.t95(10**6) == pytest.approx(1.96, abs=1e-3)


def test_wilson_interval():
    lo, hi = T.wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = T.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = T.wilson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-4)
    assert T.wilson(0, 0) == (0.0, 1.0)


def test_seatings_rotate_every_agent_through_every_seat():
    assert T.seatings(2, 2) == [[0, 1], [1, 0]]
    assert T.seatings(2, 4) == [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]
    assert T.seatings(1, 3) == [[0, 0, 0]] * 3
    for k, n in [(2, 3), (3, 3), (3, 2), (5, 3), (3, 4)]:
        rot = T.seatings(k, n)
        for a in range(k):
            assert {s for r in rot for s in range(n) if r[s] == a} == set(range(n)), (k, n, a)


def test_unique_names():
    assert T.unique_names(["heuristic", "random", "heuristic"]) == ["heuristic#1", "random", "heuristic#2"]
    assert T.unique_names(["a", "b"]) == ["a", "b"]


def test_the_shared_config_parser():
    got = parse_options(
        ["num_players=3", "jack_points=11", "match_to=none", "poker=true", "x=0.5", "q=5,4,3", "v=tretten"]
    )
    assert got == {
        "num_players": 3,
        "jack_points": 11,
        "match_to": None,
        "poker": True,
        "x": 0.5,
        "q": (5, 4, 3),
        "v": "tretten",
    }
    with pytest.raises(ValueError):
        parse_options(["oops"])


def test_tournament_shape_and_duplicate_symmetry():
    # two copies of one deterministic agent on duplicate deals: every deal is played both
    # ways on the same cards, so their results are mirror images and both means are 0
    r = T.run_tournament("spokelse", ["heuristic", "heuristic"], games=20, seed=3, progress=False)
    assert set(r) == {"game", "config", "games", "truncated", "truncated_by", "agents", "seconds"}
    assert r["game"] == "spokelse" and r["games"] == 20 and r["config"]["num_players"] == 2
    assert list(r["agents"]) == ["heuristic#1", "heuristic#2"]
    a, b = r["agents"]["heuristic#1"], r["agents"]["heuristic#2"]
    for x in (a, b):
        assert set(x) == AGENT_KEYS
        assert x["mean_reward"] == pytest.approx(0.0)
        assert x["ci95"][0] <= x["mean_reward"] <= x["ci95"][1]
        assert set(x["per_seat"]) == {"player_0", "player_1"}
        assert sum(s["games"] for s in x["per_seat"].values()) == 20
        assert set(x["rating"]) == {"mu", "sigma", "ordinal"}
    assert a["win_rate"] == pytest.approx(b["win_rate"])
    assert a["per_seat"]["player_0"]["mean_reward"] == pytest.approx(b["per_seat"]["player_0"]["mean_reward"])
    json.dumps(r)  # serializable as is


def test_tournament_strength_and_ratings():
    r = T.run_tournament("spokelse", ["heuristic", "random"], games=30, seed=0, progress=False)
    h, rnd = r["agents"]["heuristic"], r["agents"]["random"]
    assert h["mean_reward"] > 0.8 and rnd["mean_reward"] < -0.8
    assert h["win_ci95"][0] > 0.8
    assert h["rating"]["mu"] > rnd["rating"]["mu"]


@pytest.mark.parametrize("game", [g for g in GAMES if g != "spokelse"])
def test_tournament_other_games(game):
    r = T.run_tournament(game, ["random", "heuristic"], games=2, seed=1, progress=False)
    n = len(r["agents"]["random"]["per_seat"])
    assert r["games"] == n  # rounded up to one deal: one game per rotation
    assert set(r["agents"]["heuristic"]) == AGENT_KEYS


def test_three_agents_in_a_two_player_game():
    r = T.run_tournament("spokelse", ["random", "heuristic", "random"], games=3, seed=0, progress=False)
    assert r["games"] == 3 and list(r["agents"]) == ["random#1", "heuristic", "random#2"]
    for x in r["agents"].values():
        assert sum(s["games"] for s in x["per_seat"].values()) == 2


def test_atomic_write_leaves_no_partial_file(tmp_path):
    path = tmp_path / "out" / "r.json"
    T.atomic_write(str(path), "first")
    assert path.read_text() == "first"

    with pytest.raises(TypeError):
        T.atomic_write(str(path), 12345)  # cannot be written: the old file stays whole
    assert path.read_text() == "first"
    assert os.listdir(path.parent) == ["r.json"]


def test_eval_main_writes_json_and_chart(tmp_path, capsys):
    out, png = tmp_path / "r.json", tmp_path / "c.png"
    argv = ["spokelse", "--agents", "heuristic", "random", "--games", "6", "--seed", "2", "--config", "num_players=2"]
    rc = T.main([*argv, "--out", str(out), "--plot", str(png), "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "heuristic" in text and "95% CI" in text and "win rate" in text
    data = json.loads(out.read_text())
    assert set(data) == {"game", "config", "games", "truncated", "truncated_by", "agents", "seconds"}
    assert data["games"] == 6 and data["truncated"] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(os.listdir(tmp_path)) == ["c.png", "r.json"]


def test_eval_main_reports_bad_input(capsys):
    assert T.main(["spokelse", "--agents", "nobody", "--games", "2", "--no-progress"]) == 2
    assert "unknown agent" in capsys.readouterr().err
    assert T.main(["spokelse", "--agents", "random", "--config", "num_players=9", "--no-progress"]) == 2


def test_eval_cli_smoke(tmp_path):
    out = tmp_path / "r.json"
    cmd = [sys.executable, "-m", "kortmiljo", "eval", "spokelse", "--agents", "random", "heuristic"]
    cmd += ["--games", "4", "--out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "heuristic" in proc.stdout
    assert json.loads(out.read_text())["games"] == 4


class TakeAndSwap(Policy):
    """Always takes the pile's top card and swaps it into slot 0: two of them never end a round."""

    name = "loop"

    def act(self, obs, engine=None):
        mask = obs["action_mask"]
        return 1 if mask[1] else 2


def test_a_game_the_cap_cuts_short_is_counted_apart():
    from kortmiljo import load_game

    g = load_game("spokelse", max_steps=300)
    res = T.run_tournament(g, [TakeAndSwap(g), TakeAndSwap(g)], 4, seed=0, progress=False)
    assert res["games"] == 4 and res["truncated"] == 4 and res["truncated_by"] == {"max_steps": 4}
    assert res["agents"]["loop#1"]["mean_reward"] is None  # nothing finished, nothing scored
    assert "4 cut short and not scored: 4 by max_steps" in T.format_table(res)
    mixed = T.run_tournament(g, [TakeAndSwap(g), "heuristic"], 8, seed=0, progress=False)
    assert mixed["truncated"] == 0 and mixed["agents"]["heuristic"]["mean_reward"] is not None


def test_a_game_that_never_ends_without_its_cap_is_abandoned_with_a_clear_error():
    from kortmiljo.agents.tournament import play_game

    from kortmiljo import spokelse_v0

    env = spokelse_v0.env(max_steps=None)
    g = env.unwrapped.game
    with pytest.raises(RuntimeError, match="abandoned after 500 steps"):
        play_game(env, [TakeAndSwap(g), TakeAndSwap(g)], seed=0, max_steps=500)


# ---- hardening (issue 15) ------------------------------------------------------------------------
GOOD = ["spokelse", "--agents", "random", "--games", "2", "--no-progress"]


def not_run(*args, **kwargs):
    raise AssertionError("the tournament must not start")


@pytest.mark.parametrize(
    "flags, words",
    [
        (["--out", "{tmp}"], "--out '{tmp}' is a directory"),
        (["--out", "{tmp}/a_file/r.json"], "is a file, not a folder"),
        (["--plot", "{tmp}/a_file/c.png"], "--plot '{tmp}/a_file/c.png' cannot be written"),
        (["--plot", "{tmp}"], "--plot '{tmp}' is a directory"),
        (["--out", "{tmp}/x", "--plot", "{tmp}/x"], "--out and --plot name the same file"),
    ],
)
def test_output_paths_are_checked_before_the_tournament(tmp_path, monkeypatch, capsys, flags, words):
    # before, the tournament ran to the end and then died on the path, its results lost
    (tmp_path / "a_file").write_text("")
    monkeypatch.setattr(T, "run_tournament", not_run)
    flags = [f.format(tmp=tmp_path) for f in flags]
    assert T.main([*GOOD, *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kortmiljo eval: ") and words.format(tmp=tmp_path) in err and err.count("\n") == 1


def test_a_write_that_fails_at_the_end_keeps_the_results(tmp_path, monkeypatch, capsys):
    def full_disk(path, data):
        raise OSError(28, "No space left on device", path)

    monkeypatch.setattr(T, "atomic_write", full_disk)
    monkeypatch.setattr(T.tempfile, "tempdir", str(tmp_path))
    assert T.main([*GOOD, "--out", str(tmp_path / "r.json")]) == 1
    err = capsys.readouterr().err
    assert "could not write --out" in err and "No space left on device" in err and err.count("\n") == 1
    saved = err.rsplit("the results are saved in ", 1)[1].strip()
    assert os.path.dirname(saved) == str(tmp_path) and json.loads(open(saved).read())["games"] == 2


def test_a_chart_that_fails_after_the_json_points_at_the_json(tmp_path, monkeypatch, capsys):
    def broken(results, path):
        raise RuntimeError("no backend")

    monkeypatch.setattr(T, "plot", broken)
    out = tmp_path / "r.json"
    assert T.main([*GOOD, "--out", str(out), "--plot", str(tmp_path / "c.png")]) == 1
    err = capsys.readouterr().err
    assert f"could not write --plot: no backend; the results are saved in {out}" in err
    assert json.loads(out.read_text())["games"] == 2


@pytest.mark.parametrize(
    "flags, words",
    [
        (["--games", str(T.MAX_GAMES + 1)], "argument --games: expected an int from 1 to 10,000,000"),
        (["--games", "0"], "argument --games"),
        (["--seed", "-1"], "argument --seed: expected an int >= 0, got '-1'"),
        (["--seed", "x"], "argument --seed"),
    ],
)
def test_games_and_seed_are_bounded_and_named(monkeypatch, capsys, flags, words):
    monkeypatch.setattr(T, "run_tournament", not_run)
    with pytest.raises(SystemExit) as exit_:
        T.main([*GOOD, *flags])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("kortmiljo eval: ") and words in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"games": T.MAX_GAMES + 1}, "games must be an int from 1 to 10,000,000"),
        ({"games": 2.0}, "games must be an int"),
        ({"games": True}, "games must be an int"),
        ({"seed": -1}, "seed must be a non-negative int"),
        ({"seed": 1.5}, "seed must be a non-negative int"),
    ],
)
def test_run_tournament_checks_games_and_seed(kwargs, words):
    with pytest.raises(ValueError, match=words):
        T.run_tournament("spokelse", ["random"], **{"games": 2, **kwargs}, progress=False)


def test_help_says_95_percent_once():
    # the description is printed as written: "95%%" used to reach the screen doubled
    text = T.build_parser().format_help()
    assert "95% confidence" in text and "%%" not in text


def test_per_deal_means_are_aligned_by_deal_and_give_the_mean():
    agents = ["pretrained_v6", "heuristic", "heuristic"]
    res = T.run_tournament("sproyte", agents, 30, seed=4, progress=False, per_deal=True)
    first = res["agents"]["pretrained_v6"]
    assert len(first["deal_means"]) == 10 == res["games"] // 3  # one per deal, in deal order
    assert first["mean_reward"] == pytest.approx(sum(first["deal_means"]) / 10)
    assert "deal_means" not in T.run_tournament("sproyte", ["random"], 3, seed=4, progress=False)["agents"]["random"]


def test_per_deal_means_mark_a_deal_the_cap_cut_short_with_none():
    from kortmiljo import load_game

    g = load_game("spokelse", max_steps=300)
    res = T.run_tournament(g, [TakeAndSwap(g), TakeAndSwap(g)], 4, seed=0, progress=False, per_deal=True)
    assert res["agents"]["loop#1"]["deal_means"] == [None, None]  # two deals, nothing finished
