"""Training writes the game's fingerprint into every config.json, and a model whose fingerprint differs
from the game asked for (an action renamed, two actions swapped, a layout segment renamed or resized)
is refused, naming the difference, by ``ppo:PATH`` and by ``--init``. A model from before fingerprints
loads with a warning."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from kortmiljo.agents.registry import make_agent
from kortmiljo.train.cli import main as train_main

from kortmiljo import load_game

from .conftest import QUICK


def _swap(names: list) -> None:
    names[0], names[1] = names[1], names[0]


CHANGES = {
    "renamed-action": (lambda fp: fp["action_names"].__setitem__(0, "pull"), "action 0: model 'pull', requested"),
    "swapped-actions": (lambda fp: _swap(fp["action_names"]), "action 0: model 'take', requested 'draw'; action 1"),
    "renamed-segment": (lambda fp: fp["layout"][0].__setitem__(0, "old_name"), "layout segment 0: model ('old_name'"),
    "resized-segment": (lambda fp: fp["layout"][1].__setitem__(1, fp["layout"][1][1] + 1), "layout segment 1: model"),
}


def _model_with(trained, folder, change) -> str:
    """The trained model beside a config.json whose fingerprint ``change`` edits (None: has no fingerprint)."""
    folder.mkdir()
    shutil.copy(trained / "model.zip", folder / "model.zip")
    cfg = json.loads((trained / "config.json").read_text())
    if change is None:
        del cfg["fingerprint"]
    else:
        change(cfg["fingerprint"])
    (folder / "config.json").write_text(json.dumps(cfg))
    return str(folder)


@pytest.mark.parametrize("case", list(CHANGES))
def test_a_changed_fingerprint_is_refused_as_an_agent(case, trained, tmp_path):
    change, expect = CHANGES[case]
    path = _model_with(trained, tmp_path / case, change)
    with pytest.raises(ValueError, match="trained on another spokelse") as err:
        make_agent(f"ppo:{path}", "spokelse", seed=0)
    assert expect in str(err.value)


@pytest.mark.parametrize("case", list(CHANGES))
def test_a_changed_fingerprint_is_refused_by_init(case, trained, tmp_path, capsys):
    change, expect = CHANGES[case]
    path = _model_with(trained, tmp_path / case, change)
    out = tmp_path / "run"
    assert train_main(["spokelse", "--init", path, "--timesteps", "256", "--out", str(out), *QUICK]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expect in err[0] and "--init" in err[0]
    assert not out.exists()


def test_a_model_without_fingerprint_loads_with_a_warning(trained, tmp_path):
    path = _model_with(trained, tmp_path / "old", None)
    with pytest.warns(UserWarning, match="no game fingerprint"):
        agent = make_agent(f"ppo:{path}", "spokelse", seed=0)
    state = load_game("spokelse").new_state()
    state.new_episode(np.random.default_rng(0))
    obs = state.observation(state.current_player)
    assert obs["action_mask"][agent.act(obs)] == 1
    out = tmp_path / "run"
    with pytest.warns(UserWarning, match="no game fingerprint"):
        assert train_main(["spokelse", "--init", path, "--timesteps", "256", "--out", str(out), *QUICK]) == 0
    assert json.loads((out / "config.json").read_text())["fingerprint"] == json.loads(
        json.dumps(load_game("spokelse").fingerprint())
    )
