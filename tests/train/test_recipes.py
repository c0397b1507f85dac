"""``kortmiljo train --recipe``: the default rule, the budget options, and the refusals of a pi run
that cannot start (one line on stderr, exit 2, nothing written)."""

from __future__ import annotations

import dataclasses

import pytest
from kortmiljo.train.cli import main as train_main
from kortmiljo.train.cli import parse_args
from kortmiljo.train.config import TrainConfig, TrainError
from kortmiljo.train.recipes import DEFAULT_BC_PPO, choose, ppo_config

from .conftest import ROOT, tree


def cfg(**kw) -> TrainConfig:
    return TrainConfig(**{"game": "sproyte", **kw})


@pytest.mark.parametrize(
    ("options", "recipe"),
    [
        ({"minutes": 60.0}, "pi"),
        ({"hours": 2.0}, "pi"),
        ({"minutes": 59.0}, "bc+ppo"),  # below pi's hour
        ({"minutes": 10.0}, "bc+ppo"),
        ({"hours": 0.5}, "bc+ppo"),
        ({}, "ppo"),  # no time budget: PPO's default 200,000 steps, as before recipes
        ({"timesteps": 5000}, "ppo"),
        ({"minutes": 30.0, "bc_teacher": "heuristic"}, "ppo"),
        ({"minutes": 30.0, "recipe": "bc+ppo"}, "bc+ppo"),
        ({"minutes": 30.0, "game": "toy"}, "ppo"),  # no scripted heuristic: no pi
    ],
)
def test_the_default_recipe_follows_the_stated_rule(options, recipe):
    assert choose(cfg(**options)) == recipe


def test_a_resumed_run_keeps_its_recipe(tmp_path):
    (tmp_path / "args.json").write_text('{"game": "sproyte", "recipe": "pi", "minutes": 5}')
    assert choose(cfg(resume=True, out=str(tmp_path))) == "pi"
    (tmp_path / "args.json").write_text('{"game": "sproyte", "timesteps": 5}')  # saved before recipes
    assert choose(cfg(resume=True, out=str(tmp_path), minutes=9.0)) == "ppo"


def test_hours_become_ppos_minutes_and_bc_ppo_fills_only_defaults():
    c = ppo_config(cfg(hours=0.5, lr=5e-4), "bc+ppo")
    assert (c.minutes, c.hours, c.recipe) == (30.0, None, "bc+ppo")
    assert c.lr == 5e-4 and c.bc_teacher == "heuristic" and c.bc_games == DEFAULT_BC_PPO["bc_games"]
    assert ppo_config(cfg(minutes=3.0), "ppo") == dataclasses.replace(cfg(minutes=3.0), recipe="ppo")


def test_the_recipe_and_budget_round_trip_through_the_command_line():
    c = parse_args(["sproyte", "--recipe", "pi", "--hours", "1.5", "--workers", "2"])
    assert (c.recipe, c.hours, c.workers) == ("pi", 1.5, 2)
    assert parse_args(c.command_line().split()[2:]) == c
    assert TrainConfig.from_dict(c.to_dict()) == c


def test_help_states_the_default_rule(capsys):
    with pytest.raises(SystemExit):
        train_main(["sproyte", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--recipe {pi,ppo,bc+ppo}" in text and "pi from 60 minutes" in text and "bc+ppo below" in text


BAD = {
    "unknown-recipe": (["sproyte", "--recipe", "alphazero", "--minutes", "5"], "argument --recipe: invalid choice"),
    "budget-too-small": (["sproyte", "--recipe", "pi", "--minutes", "0.05"], "too small for one pi step"),
    "no-budget": (["sproyte", "--recipe", "pi"], "--recipe pi needs a budget"),
    "both-budgets": (["sproyte", "--minutes", "5", "--hours", "1"], "give the budget once"),
    "hours-range": (["sproyte", "--hours", "200"], "--hours must be above 0 and at most 168"),
    "timesteps-with-pi": (["sproyte", "--recipe", "pi", "--minutes", "5", "--timesteps", "9"], "--timesteps counts"),
    "weights-of-another-game": (
        ["femkortskille", "--recipe", "pi", "--minutes", "30", "--init", str(ROOT / "agents/weights/sproyte_v3.npz")],
        "holds weights for 'sproyte', not 'femkortskille'",
    ),
    "init-not-a-student": (
        ["sproyte", "--recipe", "pi", "--minutes", "30", "--init", str(ROOT / "agents/weights/sproyte_v1.npz")],
        "a different student: activation",
    ),
    "no-heuristic": (["toy", "--recipe", "pi", "--minutes", "30"], "toy has no scripted heuristic"),
    "bc-ppo-no-heuristic": (["toy", "--recipe", "bc+ppo", "--minutes", "30"], "no scripted heuristic"),
    "workers-negative": (["sproyte", "--recipe", "pi", "--minutes", "30", "--workers", "-1"], "--workers must be"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_pi_run_that_cannot_start_says_one_line_and_writes_nothing(case, tmp_path, capsys, monkeypatch):
    argv, message = BAD[case]
    monkeypatch.chdir(tmp_path)
    before = tree(tmp_path)
    assert train_main([*argv, "--out", str(tmp_path / "run"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("kortmiljo train: ") and message in err, err
    assert tree(tmp_path) == before


def test_an_existing_out_without_resume_and_a_resume_without_a_run_are_refused(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "notes.txt").write_text("mine")
    before = tree(tmp_path)
    assert train_main(["sproyte", "--recipe", "pi", "--minutes", "30", "--out", str(tmp_path / "run")]) == 2
    assert "already holds files; continue its run with --resume" in capsys.readouterr().err
    assert train_main(["sproyte", "--recipe", "pi", "--resume", "--out", str(tmp_path / "run")]) == 2
    assert "holds no run to continue" in capsys.readouterr().err
    assert tree(tmp_path) == before


def test_a_pi_run_resumes_with_its_own_budget(tmp_path):
    (tmp_path / "args.json").write_text(
        '{"backend": "sb3", "game": "sproyte", "recipe": "pi", "minutes": 30, "workers": 1}'
    )
    with pytest.raises(TrainError, match="resumes with the budget it was planned with"):
        from kortmiljo.train.recipes import train

        train(cfg(recipe="pi", resume=True, out=str(tmp_path), minutes=60.0))


def test_a_run_directory_is_never_taken_over_by_a_new_run(tmp_path, capsys):
    """A pi run killed mid-way and a command without --resume (here one the default rule makes ppo):
    refused, not a PPO run written over the pi run."""
    (tmp_path / "args.json").write_text('{"backend": "sb3", "game": "sproyte", "recipe": "pi", "minutes": 30}')
    before = tree(tmp_path)
    assert train_main(["sproyte", "--out", str(tmp_path), "--no-progress"]) == 2
    assert "holds a run; continue it with --resume" in capsys.readouterr().err
    assert tree(tmp_path) == before


def test_pi_refuses_ppo_options_it_would_ignore():
    from kortmiljo.train.config import TrainError
    from kortmiljo.train.recipes import check_pi

    check_pi(cfg(minutes=60.0, workers=2, seed=3))  # pi's own options pass
    with pytest.raises(TrainError, match="--n-envs, --lr: PPO.s options"):
        check_pi(cfg(minutes=60.0, lr=5e-4, n_envs=4))
