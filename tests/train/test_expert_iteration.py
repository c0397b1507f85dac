"""Expert iteration's scripts (train/expert_data.py, train/distill.py): teacher chunks hold what the
teacher did and saw, a collection resumes without redoing chunks, a guided teacher searches only its
prior's candidates, and a distilled student is a weights file that plays and, in tanh, fine-tunes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from kortmiljo.agents.pretrained import read_weights
from kortmiljo.agents.registry import make_agent
from kortmiljo.agents.search import SearchPolicy
from kortmiljo.train import distill
from kortmiljo.train.expert_data import ARRAYS, collect, load_chunks, play_chunk

from kortmiljo import load_game
from kortmiljo.env.training import flat_observation

from .conftest import plays_legally


def test_a_chunk_records_every_teacher_decision_with_its_scores_and_return():
    g = load_game("sproyte")
    teacher = make_agent("search", g, seed=1, worlds=2, step_budget=None)
    d = play_chunk(g, teacher, make_agent("heuristic", g, seed=2), games=2, seed=3, teacher_share=1.0)
    n = len(d["action"])
    assert set(d) == set(ARRAYS) and n > 0 and all(len(d[k]) == n for k in ARRAYS)
    assert d["mask"][np.arange(n), d["action"]].all()  # every recorded move was legal
    searched = np.isfinite(d["q"]).sum(axis=1) > 1
    assert searched.any() and (np.isfinite(d["q"]) <= d["mask"]).all()  # scores only for legal actions
    assert np.isfinite(d["q"][searched, d["action"][searched]]).all()  # the move played was scored
    assert set(np.unique(d["game"])) == {0, 1} and np.isfinite(d["ret"]).all()
    e = g.new_state()
    e.new_episode(np.random.default_rng(0))
    assert d["obs"].shape[1] == flat_observation(e.observation(0)).shape[0]  # observation and unseen


def test_a_guided_teacher_scores_only_its_priors_candidates():
    g = load_game("sproyte")
    prior = make_agent("pretrained", g, seed=0)
    teacher = SearchPolicy(g, seed=1, worlds=2, step_budget=None, prior=prior, prior_top=1)
    d = play_chunk(g, teacher, make_agent("heuristic", g, seed=2), games=2, seed=3, teacher_share=1.0)
    scored = np.isfinite(d["q"]).sum(axis=1)
    assert scored.max() <= 2  # the prior's first choice and the heuristic's move, at most


def test_collection_resumes_and_distils_into_weights_that_play(tmp_path):
    out = tmp_path / "data"
    assert collect("spokelse", out, minutes=5, teacher="heuristic", teacher_share=1.0, max_chunks=2) == 2
    assert collect("spokelse", out, minutes=5, teacher="heuristic", teacher_share=1.0, max_chunks=2) == 0
    data, meta = load_chunks(out)
    assert meta["chunks"] == 2 and meta["games"] == 20 and meta["decisions"] == len(data["action"])
    assert json.loads((out / "meta.json").read_text())["teacher"] == "heuristic"
    w = tmp_path / "student.npz"
    distill.main(["spokelse", "--data", str(out), "--out", str(w), "--epochs", "2", "--hidden", "32",
                  "--activation", "tanh"])  # fmt: skip
    weights = read_weights(w)
    assert weights.meta["activation"] == "tanh" and weights.meta["source"]["games"] == 20
    g = load_game("spokelse")
    plays_legally(g, make_agent(str(w), g, seed=0), seed=0)


def test_no_teacher_data_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no chunk_"):
        load_chunks(tmp_path)


def test_advice_from_chunks_is_the_heuristics_move_and_an_advised_student_plays(tmp_path):
    from kortmiljo.train.distill import with_advice

    out = tmp_path / "data"
    collect("sproyte", out, minutes=5, teacher="heuristic", teacher_share=1.0, max_chunks=1)
    g = load_game("sproyte")
    data, _ = load_chunks(out)
    advised = with_advice(g, data, "heuristic_v0")
    assert advised["obs"].shape[1] == data["obs"].shape[1] + g.num_actions
    # the chunks hold all the heuristic reads: its move recomputed from them is the move it played
    assert (advised["obs"][:, -g.num_actions :].argmax(axis=1) == data["action"]).all()
    w = tmp_path / "advised.npz"
    distill.main(["sproyte", "--data", str(out), "--out", str(w), "--epochs", "1", "--hidden", "16",
                  "--advisor", "heuristic_v0"])  # fmt: skip
    assert read_weights(w).meta["advisor"] == "heuristic_v0"
    student = make_agent(str(w), g, seed=0)
    e = g.new_state()
    e.new_episode(np.random.default_rng(1))
    while not (e.terminal or e.truncated):
        obs = e.observation(e.current_player)
        e.step(student.act(obs))


def test_the_reference_recipe_runs_end_to_end_with_its_stage_times(tmp_path):
    from kortmiljo.train.reference import run

    out = tmp_path / "student.npz"
    report = run("spokelse", collect_minutes=0.01, workers=1, data=str(tmp_path / "data"), out=str(out), epochs=1,
                 check_games=12, hidden="16", teacher="heuristic", share=1.0, advisor="heuristic_v0")  # fmt: skip
    assert set(report["stages"]) == {"teacher_games", "distillation", "check"}
    assert report["stages"]["teacher_games"]["chunks"] >= 1 and report["advisor"] == "heuristic_v0"
    assert report["stages"]["check"]["games"] >= 12
    assert json.loads((tmp_path / "student.npz.report.json").read_text()) == report
    assert read_weights(out).meta["advisor"] == "heuristic_v0"


def test_an_unversioned_advisor_is_refused_before_anything_is_fitted(tmp_path, capsys):
    with pytest.raises(SystemExit):
        distill.main(["spokelse", "--data", str(tmp_path), "--out", str(tmp_path / "w.npz"), "--advisor", "heuristic"])
    assert "--advisor must be a versioned agent of spokelse: heuristic_v0" in capsys.readouterr().err
    assert not (tmp_path / "w.npz").exists()


def test_end_writes_every_chunk_below_it(tmp_path):
    from kortmiljo.train import expert_data

    out = tmp_path / "data"
    expert_data.main(["spokelse", "--out", str(out), "--teacher", "heuristic", "--teacher-share", "1", "--end", "2"])
    assert sorted(p.name for p in out.glob("chunk_*.npz")) == ["chunk_00000.npz", "chunk_00001.npz"]
    with pytest.raises(SystemExit):
        expert_data.main(["spokelse", "--out", str(tmp_path / "x"), "--start", "4", "--end", "2"])
    assert not (tmp_path / "x").exists()
