"""benchmarks/paired_margin.py: each margin is the tournament's, the difference is taken deal by deal,
an agent compared with itself differs by exactly nothing, and the figures reach the command line."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from kortmiljo.agents.tournament import run_tournament  # noqa: E402
from paired_margin import main, margin, paired, reusable  # noqa: E402

from kortmiljo import load_game  # noqa: E402


def test_a_margin_is_the_tournaments_mean_of_its_deals():
    r = margin("sproyte", "pretrained_v6", "heuristic", 30, seed=1)
    t = run_tournament("sproyte", ["pretrained_v6", "heuristic", "heuristic"], 30, seed=1, progress=False)
    assert r["games"] == 30 and len(r["deal_means"]) == 10
    assert sum(r["deal_means"]) / 10 == pytest.approx(t["agents"]["pretrained_v6"]["mean_reward"])


def test_the_difference_is_taken_deal_by_deal_and_skips_unfinished_deals():
    r = paired([1.0, 2.0, None, 4.0], [0.0, 1.0, 5.0, 2.0])
    m, (lo, hi), k = r["mean"], r["ci95"], r["deals"]
    assert k == 3 and m == pytest.approx(4 / 3) and lo < m < hi
    assert r["correlation"] == pytest.approx(0.98198, abs=1e-5)  # (1, 2, 4) against (0, 1, 2)
    assert paired([1.0, 1.0, 1.0], [0.0, 2.0, 1.0])["correlation"] is None  # a constant side: undefined


def test_an_agent_against_itself_differs_by_nothing(tmp_path, capsys):
    argv = ["sproyte", "--agents", "heuristic", "heuristic", "--games", "12", "--seeds", "3", "5"]
    out = main(argv + ["--out", str(tmp_path / "p.json")])
    d = out["difference"]
    assert [r["agent"] for r in out["margins"]] == ["heuristic", "heuristic"]
    assert d["deals"] == 8 and d["mean"] == 0.0 and d["ci95"] == [0.0, 0.0] and set(d["per_seed"]) == {"3", "5"}
    saved = json.loads((tmp_path / "p.json").read_text())
    assert saved["difference"]["deals"] == 8
    assert [(r["agent"], r["seed"], len(r["deal_means"])) for r in saved["runs"]] == [
        ("heuristic", 3, 4),
        ("heuristic", 5, 4),
        ("heuristic", 3, 4),
        ("heuristic", 5, 4),
    ]
    assert "paired over 8 deals: +0.000" in capsys.readouterr().out


def test_two_different_agents_differ_with_an_interval(capsys):
    out = main(["sproyte", "--agents", "pretrained_v6", "random", "--games", "30", "--seeds", "2", "--workers", "2"])
    d = out["difference"]
    assert d["deals"] == 10 and d["mean"] > 0 and d["ci95"][0] < d["mean"] < d["ci95"][1]
    v6, rnd = (r["mean"] for r in out["margins"])
    assert d["mean"] == pytest.approx(v6 - rnd)  # every deal finished, so the paired mean is the margins' difference


def test_a_reused_run_gives_the_figures_playing_it_again_gives(tmp_path, capsys):
    first = tmp_path / "first.json"
    main(["sproyte", "--agents", "heuristic", "random", "--games", "12", "--seeds", "3", "--out", str(first)])
    argv = ["sproyte", "--agents", "pretrained_v6", "random", "--games", "12", "--seeds", "3"]
    again = main(argv)
    reused = main(argv + ["--reuse", str(first)])
    assert again["reused"] == [] and reused["reused"] == [["random", 3]]
    assert reused["difference"] == again["difference"]
    assert reused["runs"][1]["deal_means"] == again["runs"][1]["deal_means"]
    assert f"reused from {first}: random seed 3" in capsys.readouterr().out


def test_only_a_registry_agents_runs_are_reused():
    assert reusable("search") and reusable("heuristic_v0")
    for spec in ("benchmarks/candidates/w.npz", "w.npz", "model.zip", "pkg.mod:Policy", "my.py:attr", "C:\\w"):
        assert not reusable(spec), spec


def test_a_reuse_file_of_another_test_is_refused(tmp_path, capsys):
    first = tmp_path / "first.json"
    main(["sproyte", "--agents", "heuristic", "random", "--games", "12", "--seeds", "3", "--out", str(first)])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    runless = tmp_path / "runless.json"  # a run without its agent
    runless.write_text(json.dumps({"game": "sproyte", "opponent": "heuristic", "games": 6, "runs": [{"seed": 3}]}))
    cases = (
        (first, "was made for"),
        (bad, "not a paired_margin --out file"),
        (tmp_path / "no", "not a"),
        (runless, "not a paired_margin --out file"),
    )
    for path, words in cases:
        with pytest.raises(SystemExit) as e:
            main(["sproyte", "--agents", "heuristic", "random", "--games", "6", "--seeds", "3", "--reuse", str(path)])
        assert e.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["sproyte", "--agents", "heuristic", "random", "--seeds", "1", "1"], "--seeds must differ"),
        (["sproyte", "--agents", "heuristic", "nosuchagent"], "nosuchagent"),
        (["nosuchgame", "--agents", "heuristic", "random"], "nosuchgame"),
        (["sproyte", "--agents", "heuristic", "random", "--games", "0"], "--games and --workers must be >= 1"),
    ],
)
def test_bad_input_is_refused_before_any_game(argv, words, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and words in capsys.readouterr().err


def test_a_configuration_is_played_and_a_reuse_file_of_another_configuration_is_refused(tmp_path, capsys):
    first = tmp_path / "three.json"
    argv = ["femkortskille", "--agents", "heuristic", "random", "--games", "9", "--seeds", "3"]
    out = main(argv + ["--config", "num_players=3", "--out", str(first)])
    t = run_tournament(load_game("femkortskille", num_players=3), ["random", "heuristic", "heuristic"], 9, seed=3,
                       progress=False)  # fmt: skip
    assert out["config"] == {"num_players": 3} and out["difference"]["deals"] == 3
    assert out["margins"][1]["mean"] == pytest.approx(t["agents"]["random"]["mean_reward"])
    with pytest.raises(SystemExit) as e:
        main(argv + ["--reuse", str(first)])  # made for 3 players, asked for the default 4
    assert e.value.code == 2 and "was made for" in capsys.readouterr().err
    assert main(argv + ["--config", "num_players=3", "--reuse", str(first)])["reused"] == [
        ["heuristic", 3],
        ["random", 3],
    ]
