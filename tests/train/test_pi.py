"""The ``pi`` recipe (kortmiljo.train.pi): its budget split, its gate rule, its resume bookkeeping, its
refusals, and short runs end to end (a tiny internal budget here; ``--minutes 1`` through the command
line under ``-m slow``; two minutes are the least femkortskille takes)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from kortmiljo.agents.pretrained import read_weights
from kortmiljo.agents.registry import make_agent
from kortmiljo.train import pi, pi_speed
from kortmiljo.train.config import TrainConfig, TrainError
from kortmiljo.train.recipes import train

from kortmiljo.core.registry import load_game

from .conftest import plays_legally

GAME = "femkortskille"  # the cheapest oracle chunks of the three games
TINY_SETTINGS = pi.Settings(min_chunks=2, min_gate_games=30)
TINY_COSTS = pi.Costs(15.0, 15.0, 150, 60, 1e-3, 0.1)  # 1 minute: 3 chunks and a 45-game gate a step


@pytest.fixture
def tiny(monkeypatch):
    """pi's settings and cost model shrunk so that a minute of budget is one step of seconds."""
    monkeypatch.setattr(pi, "settings_for", lambda game: TINY_SETTINGS)
    monkeypatch.setattr(pi, "costs_for", lambda game: TINY_COSTS)
    monkeypatch.setattr(
        pi_speed, "known_speed", lambda cache, key: dict(pi_speed.REFERENCE)
    )  # the reference's speed, not timed


def config(out: Path, **kw) -> TrainConfig:
    values = {"game": GAME, "recipe": "pi", "minutes": 1.0, "workers": 1, "out": str(out), "quiet": True,
              "cache": str(Path(out).parent / "cache"), **kw}  # fmt: skip
    return TrainConfig(**values)


# ---- the budget split ----------------------------------------------------------------------------


def test_plan_splits_a_budget_into_hour_steps_with_a_gate_share():
    costs, s = pi.costs_for("sproyte"), pi.Settings()
    steps = pi.plan(3 * 3600, costs, s, workers=2)
    assert len(steps) == 3 and sum(p["seconds"] for p in steps) == pytest.approx(3 * 3600)
    for p in steps:
        gate_s = 2 * p["gate_games"] * costs.gate_game / 2
        assert gate_s <= s.gate_share * p["seconds"] + 1e-9
        work = p["chunks_heuristic"] * (costs.chunk_heuristic + costs.decisions_heuristic * costs.fit_decision * 4)
        assert work / 2 + gate_s <= p["seconds"]
        assert p["chunks_network"] > 0 and p["epochs_heuristic"] == 4 and p["epochs_network"] == 3
    assert len(pi.plan(100 * 60, costs, s, 2)) == 1  # below two hours: one step


def test_plan_scales_with_workers_and_refuses_a_budget_below_one_step():
    costs, s = pi.costs_for("sproyte"), pi.Settings()
    one, two = pi.plan(3000, costs, s, 1)[0], pi.plan(3000, costs, s, 2)[0]
    assert two["chunks_heuristic"] >= 2 * one["chunks_heuristic"] - 1
    least = pi.minimum_budget(costs, s, 1)
    pi.plan(least * 1.01, costs, s, 1)
    with pytest.raises(TrainError, match="too small for one pi step"):
        pi.plan(least * 0.5, costs, s, 1)


def test_plan_is_the_same_for_the_same_budget():
    costs, s = pi.costs_for("spokelse"), pi.Settings()
    assert pi.plan(5000, costs, s, 2) == pi.plan(5000, costs, s, 2)


# ---- the gate --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ci", "adopted"),
    [([0.01, 0.2], True), ([0.0, 0.2], False), ([-0.05, 0.3], False), ([math.nan, 1.0], False), ([None, 1], False)],
)
def test_gate_adopts_only_when_the_interval_lies_above_zero(ci, adopted):
    assert pi.adopt(ci) is adopted


def test_gate_pairs_the_two_policies_deal_by_deal(monkeypatch):
    means = {"student.npz": [0.5, 0.4, 0.6, None], "heuristic": [0.1, 0.0, 0.2, 0.3]}
    monkeypatch.setattr(pi, "_margin_job", lambda job: means[job[2]])
    g = pi.gate(GAME, {}, "student.npz", "heuristic", 60, seed=3, workers=1, pool=None)
    assert g["deals"] == 3  # a deal one of them did not finish is left out of both
    assert g["difference"]["mean"] == pytest.approx(0.4) and g["difference"]["ci95"][0] == pytest.approx(0.4)
    assert g["adopted"] and g["student_vs_heuristic"]["mean"] == pytest.approx(0.5)


# ---- short runs end to end -------------------------------------------------------------------------


def test_a_short_pi_run_writes_weights_that_play(tiny, tmp_path):
    report = train(config(tmp_path / "run"))
    out = tmp_path / "run"
    step = report["steps"][0]
    assert step["data"]["games"] == 30 and step["data"]["decisions"] > 0 and step["fit"]["epochs"] == 4
    assert step["gate"]["deals"] > 0 and step["adopted"] in (True, False)
    assert step["margin_vs_heuristic"] == step["gate"]["student_vs_heuristic"]
    for name in ("report.json", "model.md", "learning_curve.png", "args.json", "state.json"):
        assert (out / name).is_file(), name
    assert json.loads((out / "report.json").read_text())["steps"][0]["gate"]["adopted"] == step["adopted"]
    assert "kortmiljo train femkortskille --recipe pi" in (out / "model.md").read_text()
    assert (out / "model.npz").exists() == step["adopted"]
    game = load_game(GAME)
    plays_legally(game, make_agent(str(out / "steps" / "step_00.npz"), game, seed=0))
    # the same command and seed: bit-identical weights
    again = train(config(tmp_path / "again"))
    assert again["steps"][0]["gate"]["difference"] == step["gate"]["difference"]
    a, b = (read_weights(p / "steps" / "step_00.npz") for p in (out, tmp_path / "again"))
    for (wa, ba), (wb, bb) in zip(a.actor + a.critic, b.actor + b.critic, strict=True):
        assert wa.tobytes() == wb.tobytes() and ba.tobytes() == bb.tobytes()


def test_an_adopted_step_is_the_next_steps_policy(tiny, tmp_path, monkeypatch):
    """Two steps; the first wins its gate (forced): model.npz is its student, and the second step
    plays that network at the heuristic table mix and fits from it."""
    real_gate = pi.gate
    monkeypatch.setattr(pi, "settings_for", lambda game: pi.Settings(min_chunks=1, min_gate_games=15,
                                                                     step_seconds=30.0))  # fmt: skip

    def gate(*args, **kw):
        g = real_gate(*args, **kw)
        return {**g, "adopted": g["seed"] % 1000 == 0}  # step 0 adopted, step 1 as its gate says

    monkeypatch.setattr(pi, "gate", gate)
    report = train(config(tmp_path / "run"))
    out = tmp_path / "run"
    assert [s["step"] for s in report["steps"]] == [0, 1]
    assert report["steps"][1]["policy"] == "steps/step_00.npz" and report["steps"][0]["adopted"]
    meta = json.loads((out / "data" / "step_01" / "meta.json").read_text())
    assert meta["opponents"] == "heuristic" and meta["opponent_share"] == 0.8
    assert read_weights(out / "steps" / "step_01.npz").meta["source"]["policy"] == "steps/step_00.npz"
    model = out / "model.npz"
    final = out / "steps" / f"step_{1 if report['steps'][1]['adopted'] else 0:02d}.npz"
    assert model.read_bytes() == final.read_bytes() and report["model"] == "model.npz"


def test_an_interrupted_run_resumes_without_redoing_a_finished_unit(tiny, tmp_path, monkeypatch):
    out = tmp_path / "run"
    real_fit, real_gate = pi.fit, pi.gate
    calls = {"chunks": 0, "fit": 0}
    real_chunk = pi._chunk_job

    def chunk(job):
        calls["chunks"] += 1
        return real_chunk(job)

    def killed(*args, **kw):
        raise RuntimeError("killed")

    monkeypatch.setattr(pi, "_chunk_job", chunk)
    monkeypatch.setattr(pi, "fit", killed)  # the data phase finishes, the fit does not
    with pytest.raises(RuntimeError, match="killed"):
        train(config(out))
    state = json.loads((out / "state.json").read_text())
    assert state["steps"][0]["data"]["chunks"] == 3 and "fit" not in state["steps"][0]
    assert calls["chunks"] == 3
    with pytest.raises(TrainError, match="with --resume"):  # without --resume: refused
        train(config(out))

    def fit(*args, **kw):
        calls["fit"] += 1
        return real_fit(*args, **kw)

    monkeypatch.setattr(pi, "fit", fit)
    monkeypatch.setattr(pi, "gate", killed)  # now the fit finishes and the gate does not
    with pytest.raises(RuntimeError, match="killed"):
        train(config(out, resume=True, minutes=None))
    assert calls == {"chunks": 3, "fit": 1}  # no chunk played again
    step_file = out / "steps" / "step_00.npz"
    before = step_file.stat().st_mtime_ns
    monkeypatch.setattr(pi, "gate", real_gate)
    report = train(TrainConfig(game=GAME, out=str(out), resume=True, quiet=True))  # the recipe is the saved one
    assert calls == {"chunks": 3, "fit": 1} and step_file.stat().st_mtime_ns == before
    assert report["steps"][0]["gate"]["deals"] > 0
    # a finished run resumed again does nothing more
    assert train(config(out, resume=True, minutes=None))["steps"] == report["steps"]
    assert calls == {"chunks": 3, "fit": 1}


def test_a_chunk_on_disk_is_not_played_again(tiny, tmp_path, monkeypatch):
    """A kill inside the data phase: the chunks written before it are kept."""
    out = tmp_path / "run"
    real_chunk, played = pi._chunk_job, []

    def chunk(job):
        if len(played) == 2:
            raise RuntimeError("killed")
        played.append(job[3])
        return real_chunk(job)

    monkeypatch.setattr(pi, "_chunk_job", chunk)
    with pytest.raises(RuntimeError):
        train(config(out))
    monkeypatch.setattr(pi, "fit", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("stop")))
    played.clear()
    monkeypatch.setattr(pi, "_chunk_job", lambda job: played.append(job[3]) or real_chunk(job))
    with pytest.raises(RuntimeError, match="stop"):
        train(config(out, resume=True, minutes=None))
    assert played == [pi.first_chunk(0, 0) + 2]


@pytest.mark.slow
def test_the_command_line_runs_pi_for_two_minutes(tmp_path):
    from kortmiljo.train.cli import main as train_main

    out = tmp_path / "run"
    assert (
        train_main(
            [
                GAME,
                "--recipe",
                "pi",
                "--minutes",
                "2",
                "--workers",
                "1",
                "--out",
                str(out),
                "--no-progress",
                "--cache",
                str(tmp_path / "cache"),
            ]
        )
        == 0
    )
    report = json.loads((out / "report.json").read_text())
    assert report["steps"][0]["gate"] is not None and (out / "learning_curve.png").is_file()
    game = load_game(GAME)
    plays_legally(game, make_agent(str(out / "steps" / "step_00.npz"), game, seed=0))
    assert np.isfinite(report["steps"][0]["gate"]["difference"]["mean"])


# ---- this machine's speed ----------------------------------------------------------------------------


def chunks(steps: list[dict]) -> list:
    return [(p["chunks_heuristic"], p["chunks_network"], p["gate_games"]) for p in steps]


def test_the_machine_speed_is_measured_on_fixed_deals_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(pi_speed, "SPEED_SECONDS", 1.0)
    entry = pi_speed.measure_speed(GAME, {}, 1, pi.costs_for(GAME), 0.05)
    assert pi_speed.valid_speed(entry) is not None and entry["chunk_seconds"] > 0
    ref = pi.costs_for(GAME)
    assert entry["chunk"] == pytest.approx(entry["chunk_seconds"] / ref.chunk_heuristic, rel=0.05)
    assert entry["decisions"] == pytest.approx(entry["decisions_per_chunk"] / ref.decisions_heuristic, rel=0.05)
    # the batched lanes are timed on the same deals: data is their time over the scalar path's
    assert entry["data"] == pytest.approx(entry["lanes_chunk_seconds"] / entry["chunk_seconds"], rel=0.05)
    # the fit and the gate are timed on their own, against the reference's costs
    assert entry["fit"] == pytest.approx(entry["fit_decision_seconds"] / ref.fit_decision, rel=0.05)
    assert entry["gate"] == pytest.approx(entry["gate_game_seconds"] / ref.gate_game, rel=0.05)
    assert entry["fit_decision_seconds"] > 0 and entry["gate_game_seconds"] > 0
    assert pi_speed.valid_speed(entry) == {k: entry[k] for k in ("chunk", "decisions", "data", "fit", "gate")}
    assert list(tmp_path.iterdir()) == []
    # a 6-player table records more decisions a chunk than the reference's 4 players
    assert (
        pi_speed.measure_speed(GAME, {"num_players": 6}, 1, pi.costs_for(GAME), 0.05)["decisions"] > entry["decisions"]
    )


def test_scaled_costs_follow_the_chunks_time_and_decisions():
    c = pi.scaled(TINY_COSTS, 3.0, 1.5)
    assert (c.chunk_heuristic, c.chunk_network, c.gate_game) == (45.0, 45.0, pytest.approx(0.3))
    assert (c.decisions_heuristic, c.decisions_network) == (225, 90)
    assert c.fit_decision == pytest.approx(TINY_COSTS.fit_decision * 2.0)  # per decision: the machine's 3 / 1.5
    assert pi.scaled(TINY_COSTS, 1.0) == TINY_COSTS
    # data played as lanes at half the scalar time: chunks cost half, the gate and the fit the machine's
    lanes = pi.scaled(TINY_COSTS, 3.0, 1.5, 0.5)
    assert (lanes.chunk_heuristic, lanes.chunk_network, lanes.gate_game) == (22.5, 22.5, pytest.approx(0.3))
    assert lanes.fit_decision == c.fit_decision
    # the fit and the gate timed on their own: their ratios, not the chunk's
    own = pi.scaled(TINY_COSTS, 3.0, 1.5, 0.5, fit=0.4, gate=0.7)
    assert (own.chunk_heuristic, own.decisions_heuristic) == (lanes.chunk_heuristic, lanes.decisions_heuristic)
    assert own.fit_decision == pytest.approx(TINY_COSTS.fit_decision * 0.4)
    assert own.gate_game == pytest.approx(TINY_COSTS.gate_game * 0.7)


def test_a_run_plans_for_the_measured_speed_keeps_it_and_the_next_run_reuses_it(tmp_path, monkeypatch):
    monkeypatch.setattr(pi, "settings_for", lambda game: TINY_SETTINGS)
    monkeypatch.setattr(pi, "costs_for", lambda game: TINY_COSTS)
    measured = []

    def measure(game, options, workers, ref, explore, margin):
        measured.append((game, workers))
        return {"chunk": 2.0, "decisions": 1.0, "chunk_seconds": 30.0, "measured": "now"}

    monkeypatch.setattr(pi_speed, "measure_speed", measure)
    cache = tmp_path / "cache"
    first = pi.PiRun(config(tmp_path / "a", minutes=2.0, cache=str(cache)))
    first.resolve()
    assert not cache.exists()  # resolve writes nothing
    # a machine twice as slow: the steps of a budget twice as large on the reference machine
    assert first.steps == pi.plan(120.0, pi.scaled(TINY_COSTS, 2.0), TINY_SETTINGS, 1)
    assert chunks(first.steps) == chunks(pi.plan(60.0, TINY_COSTS, TINY_SETTINGS, 1))
    report = train(config(tmp_path / "a", minutes=2.0, cache=str(cache)))
    assert report["machine_speed"] == {"chunk": 2.0, "decisions": 1.0, "data": 1.0}  # kept before the lanes: 1
    assert "taking 2 times the cost model's reference time" in (tmp_path / "a" / "model.md").read_text()
    assert measured == [(GAME, 1), (GAME, 1)]
    kept = json.loads((cache / pi_speed.SPEED_FILE).read_text())
    assert [e["chunk"] for e in kept.values()] == [2.0]
    # the same command again: the kept speed, no new measure, the same plan and weights
    again = train(config(tmp_path / "b", minutes=2.0, cache=str(cache)))
    assert len(measured) == 2 and again["plan"] == report["plan"]
    a, b = (read_weights(p / "steps" / "step_00.npz") for p in (tmp_path / "a", tmp_path / "b"))
    assert all(x.tobytes() == y.tobytes() for (x, _), (y, _) in zip(a.actor, b.actor, strict=True))
    # other workers or another configuration: measured anew
    assert pi_speed.known_speed(cache, pi_speed.speed_key(GAME, {}, 2)) is None
    assert pi_speed.known_speed(cache, pi_speed.speed_key(GAME, {"players": 3}, 1)) is None


def test_a_resumed_run_keeps_its_own_speed(tmp_path, monkeypatch):
    monkeypatch.setattr(pi, "settings_for", lambda game: TINY_SETTINGS)
    monkeypatch.setattr(pi, "costs_for", lambda game: TINY_COSTS)
    monkeypatch.setattr(pi_speed, "known_speed", lambda cache, key: {"chunk": 2.0, "decisions": 1.0})
    out = tmp_path / "run"
    train(config(out, minutes=2.0))
    monkeypatch.setattr(pi_speed, "known_speed", lambda cache, key: {"chunk": 5.0, "decisions": 1.0})  # changed since
    run = pi.PiRun(config(out, resume=True, minutes=None))
    run.resolve()
    assert run.speed["chunk"] == 2.0 and chunks(run.steps) == chunks(pi.plan(60.0, TINY_COSTS, TINY_SETTINGS, 1))


def test_a_kept_speed_that_is_not_a_pair_of_ratios_in_bounds_is_measured_again(tmp_path):
    key = pi_speed.speed_key(GAME, {}, 1)
    for bad in ('{"K": {"chunk": 2.0}}', '{"K": {"chunk": 1e9, "decisions": 1.0}}', "[1, 2]", "not json"):
        (tmp_path / pi_speed.SPEED_FILE).write_text(bad.replace('"K"', json.dumps(key)))
        assert pi_speed.known_speed(tmp_path, key) is None
    pi_speed.keep_speed(tmp_path, key, {"chunk": 2.5, "decisions": 0.5, "measured": "now"})
    assert pi_speed.known_speed(tmp_path, key) == {"chunk": 2.5, "decisions": 0.5, "data": 1.0}
    # the fit's and the gate's own ratios are kept where timed, and checked like the others
    pi_speed.keep_speed(tmp_path, key, {"chunk": 2.5, "decisions": 0.5, "data": 0.3, "fit": 0.4, "gate": 0.9})
    assert pi_speed.known_speed(tmp_path, key) == {"chunk": 2.5, "decisions": 0.5, "data": 0.3, "fit": 0.4, "gate": 0.9}
    pi_speed.keep_speed(tmp_path, key, {"chunk": 2.5, "decisions": 0.5, "fit": 1e9})
    assert pi_speed.known_speed(tmp_path, key) is None


def test_a_run_plans_its_fit_and_gate_from_their_own_ratios(tmp_path, monkeypatch):
    monkeypatch.setattr(pi, "settings_for", lambda game: TINY_SETTINGS)
    monkeypatch.setattr(pi, "costs_for", lambda game: TINY_COSTS)
    speed = {"chunk": 2.0, "decisions": 1.0, "data": 0.5, "fit": 0.25, "gate": 0.5}
    monkeypatch.setattr(pi_speed, "known_speed", lambda cache, key: dict(speed))
    run = pi.PiRun(config(tmp_path / "a", minutes=20.0))
    run.resolve()
    assert run.costs == pi.scaled(TINY_COSTS, 2.0, 1.0, 0.5, fit=0.25, gate=0.5)
    assert run.costs.gate_game == pytest.approx(TINY_COSTS.gate_game * 0.5)  # not the chunk's 2
    # a fit and a gate cheaper than the chunk's ratio says leave more of the budget to the data
    old = pi.plan(1200.0, pi.scaled(TINY_COSTS, 2.0, 1.0, 0.5), TINY_SETTINGS, 1)
    assert run.steps[0]["chunks_heuristic"] > old[0]["chunks_heuristic"]
    assert run.steps[0]["gate_games"] > old[0]["gate_games"]


def test_a_budget_too_small_on_any_machine_is_refused_before_timing(tmp_path, monkeypatch):
    def measure(*a):
        raise AssertionError("timed")

    monkeypatch.setattr(pi_speed, "measure_speed", measure)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TrainError, match="too small for one pi step .* on the cost model's reference machine"):
        train(config(tmp_path / "run", minutes=0.05))
    assert list(tmp_path.iterdir()) == []


def test_a_data_phase_off_its_planned_speed_is_kept_for_the_next_runs_not_this_one(tmp_path, monkeypatch):
    ref = pi.costs_for(GAME)
    planned = {"chunk": 2.0, "decisions": 1.0}
    near = {"chunks": 10, "seconds": 10 * 2.2 * ref.chunk_heuristic, "decisions": 10 * ref.decisions_heuristic}
    assert pi_speed.observed_speed(near, planned, ref) is None  # 1.1x: within the tolerance
    fast = {**near, "seconds": 10 * 0.5 * ref.chunk_heuristic, "decisions": 14 * ref.decisions_heuristic}
    # the machine ratio stays as planned; the data's chunks ran at 0.5 / 2.0 of the scalar path's time
    assert pi_speed.observed_speed(fast, planned, ref) == {"chunk": 2.0, "decisions": 1.4, "data": 0.25}
    # in a run: the ratios seen are kept, the plan made before is not changed
    monkeypatch.setattr(pi, "settings_for", lambda game: TINY_SETTINGS)
    monkeypatch.setattr(pi, "costs_for", lambda game: TINY_COSTS)
    monkeypatch.setattr(pi_speed, "known_speed", lambda cache, key: dict(planned))
    monkeypatch.setattr(pi_speed, "observed_speed", lambda data, p, ref: {"chunk": 0.5, "decisions": 1.4})
    report = train(config(tmp_path / "run", minutes=2.0))
    assert report["steps"][0]["data"]["speed_seen"] == {"chunk": 0.5, "decisions": 1.4}
    assert report["plan"] == pi.plan(120.0, pi.scaled(TINY_COSTS, 2.0), TINY_SETTINGS, 1)
    kept = json.loads((tmp_path / "cache" / pi_speed.SPEED_FILE).read_text())
    assert [(e["chunk"], e["decisions"]) for e in kept.values()] == [(0.5, 1.4)]


def _blas_env(_) -> dict:
    import os

    return {k: os.environ.get(k) for k in pi_speed.BLAS_THREADS}


def test_the_workers_have_one_blas_thread_each_and_this_process_keeps_its_own(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with pi_speed.worker_pool(2) as pool:
        seen = pool.map(_blas_env, range(2))
    assert seen == [dict.fromkeys(pi_speed.BLAS_THREADS, "1")] * 2
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3" and "OMP_NUM_THREADS" not in os.environ
