"""The toy game's own rules, and the proof that a game registered from its own folder works
everywhere: the conformance suite (by being registered), ``kortmiljo eval`` in process and through
a real entry point in a fresh interpreter, ``kortmiljo train`` (on the batched engine too) and
PettingZoo's registry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import kortmiljo
from kortmiljo.core.registry import game_def

from . import GAME
from .game import BET, CALL, CHECK, FOLD

ROOT = Path(__file__).resolve().parents[2]


def _engine(deck: str, dealer: int, **options):
    e = GAME.configure(**options).new_state()
    e.new_episode(np.random.default_rng(0), deck.split(), dealer)
    return e


# ---- rules ------------------------------------------------------------------------------------
def test_deal_forhand_gets_the_top_card_and_moves_first():
    e = _engine("5S 2S AS 3S 4S 6S", dealer=1)
    assert e.cards == [4, 1] and e.current_player == 0 and e.stock == [0, 2, 3, 5]
    assert e.legal_actions() == [CHECK, BET]
    assert e.unseen(0).tolist() == [1, 1, 1, 1, 0, 1] and e.locations().tolist() == [2, 1, 2, 2, 0, 2]


def test_check_check_is_a_showdown_for_the_antes():
    e = _engine("5S 2S AS 3S 4S 6S", dealer=1, ante=2)
    e.step(CHECK)
    assert e.current_player == 1 and e.legal_actions() == [CHECK, BET]
    e.step(CHECK)
    assert e.terminal and e.rewards == [2.0, -2.0]
    assert e.info(1) == {"chips": -2.0, "showdown": True}
    assert e.unseen(0)[1] == 0 and e.observe(0)[e.o_opp + 1] == 1.0  # the other card is shown


def test_bet_fold_wins_the_ante_and_shows_nothing():
    e = _engine("2S 5S AS 3S 4S 6S", dealer=1, bet=2)
    e.step(BET)
    assert e.legal_actions() == [CALL, FOLD] and e.staked == [3, 1]
    e.step(FOLD)
    assert e.rewards == [1.0, -1.0] and not e.shown
    assert e.unseen(0)[4] == 1 and "??" in e.render(None)


def test_check_bet_call_pays_the_higher_card():
    e = _engine("2S 5S AS 3S 4S 6S", dealer=0)  # seat 1 is forhånd with 2S, seat 0 holds 5S
    e.step(CHECK)
    e.step(BET)
    assert e.current_player == 1 and e.legal_actions() == [CALL, FOLD]
    e.step(CALL)
    assert e.rewards == [2.0, -2.0] and e.history == [(1, CHECK), (0, BET), (1, CALL)]


def test_render_hides_the_other_card_until_a_showdown():
    e = _engine("5S 2S AS 3S 4S 6S", dealer=1)
    assert "5♠" in e.render(0) and "2♠" not in e.render(0) and "<- to move" in e.render(0)
    e.step(CHECK)
    e.step(CHECK)
    assert "5♠" in e.render(None) and "2♠" in e.render(None)


# ---- registered only through the public paths --------------------------------------------------
def test_registered_by_the_test_session_and_served_as_an_env_module():
    assert game_def("toy") is GAME
    from kortmiljo import toy_v0

    env = toy_v0.env()
    env.reset(seed=1)
    assert env.unwrapped.game.definition is GAME and env.metadata["name"] == "toy_v0"
    pettingzoo = pytest.importorskip("pettingzoo")
    made = pettingzoo.make("aec", "kortmiljo/toy-v0", ante=2)
    made.reset(seed=0)
    assert made.unwrapped.game.config == {"ante": 2, "bet": 1}


def test_the_conformance_suite_plays_it():
    from tests.conformance.games import batched_cases, conformance_cases

    cases = [c.id for c in conformance_cases()]
    assert "toy-0" in cases and "toy-1" in cases
    assert "toy-0" in [c.id for c in batched_cases(conformance_cases(["toy"]))]


# ---- kortmiljo eval ---------------------------------------------------------------------------
def test_eval_in_process(capsys):
    from kortmiljo.agents.tournament import main

    assert main(["toy", "--agents", "random", "random", "--games", "4", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "random" in out


def _plugin(tmp_path: Path) -> Path:
    """A minimal installed distribution declaring the toy game under ``kortmiljo.games``."""
    info = tmp_path / "kortmiljo_toy-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kortmiljo-toy\nVersion: 0.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[kortmiljo.games]\ntoy = tests.toygame:GAME\n", encoding="utf-8")
    return tmp_path


def test_eval_through_an_entry_point_in_a_fresh_interpreter(tmp_path):
    site = _plugin(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    out = tmp_path / "results.json"
    cmd = [sys.executable, "-m", "kortmiljo", "eval", "toy", "--agents", "random", "random"]
    cmd += ["--games", "4", "--no-progress", "--out", str(out)]
    res = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "skipping the game plug-in" not in res.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    assert "toy" in json.dumps(results) and results


def test_entry_point_game_is_listed_and_loads_in_a_fresh_interpreter(tmp_path):
    site = _plugin(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    code = textwrap.dedent(
        """
        import kortmiljo
        from kortmiljo import toy_v0
        assert "toy" in kortmiljo.game_names(), kortmiljo.game_names()
        env = toy_v0.env()
        env.reset(seed=0)
        print(env.unwrapped.game.definition.display_name)
        """
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "Toy poker"


# ---- kortmiljo train ---------------------------------------------------------------------------
@pytest.mark.parametrize("vec", ["dummy", "native"])
def test_train_a_few_hundred_steps(tmp_path, vec):
    pytest.importorskip("sb3_contrib")
    from kortmiljo.train.cli import main

    out = tmp_path / "run"
    argv = ["toy", "--timesteps", "256", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64"]
    argv += ["--n-epochs", "1", "--net", "16", "--vec", vec, "--opponents", "random"]
    argv += ["--eval-opponents", "random", "--eval-deals", "2", "--eval-every", "0"]
    argv += ["--no-progress", "--quiet", "--out", str(out)]
    assert main(argv) == 0
    assert (out / "model.zip").exists()
    cfg = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert cfg["game"] == "toy"
    from kortmiljo.agents.registry import make_agent

    agent = make_agent(f"ppo:{out}", "toy", {}, seed=0)
    e = kortmiljo.load_game("toy").new_state()
    e.new_episode(np.random.default_rng(0))
    obs = e.observation(e.current_player)
    assert obs["action_mask"][agent.act(obs)] == 1


# ---- its page: docs/adding_a_game.md ------------------------------------------------------------
PAGE = ROOT / "docs" / "adding_a_game.md"


def test_the_page_cites_only_files_that_exist():
    import re

    text = re.sub(r"^```.*?^```", "", PAGE.read_text(encoding="utf-8"), flags=re.S | re.M)  # prose only
    cited = {m for m in re.findall(r"`([^`\s]+)`", text) if "/" in m and not re.search(r"[<*\"'=]", m)}
    assert len(cited) > 20, sorted(cited)
    missing = sorted(p for p in cited if not (ROOT / p).exists())
    assert not missing, f"docs/adding_a_game.md cites files that do not exist: {missing}"


def test_the_pages_generated_tables_are_current():
    from kortmiljo.docgen import fill, generated

    text = PAGE.read_text(encoding="utf-8")
    assert "<!-- BEGIN GENERATED: layout -->\n|" in text
    assert fill(text, generated("toy")) == text, "run kortmiljo.docgen.fill on docs/adding_a_game.md"


def test_the_pages_python_example_runs(monkeypatch, tmp_path):
    import re

    blocks = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.S | re.M)
    runnable = [b for b in blocks if "register_game" in b]
    assert runnable
    monkeypatch.chdir(tmp_path)
    for code in runnable:
        exec(compile(code, "docs/adding_a_game.md", "exec"), {"__name__": "__doc_example__"})  # noqa: S102
