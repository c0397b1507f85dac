"""``--init`` from numpy weights (``.npz``): expert iteration's third stage fine-tunes a distilled
student or a shipped ``pretrained_v1`` with PPO. The copied network gives the file's logits; a file
for another game, another --net or a corrupt one is refused in one line before anything is written."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from kortmiljo.agents.export import _check, export_policy
from kortmiljo.agents.pretrained import read_weights
from kortmiljo.agents.trained import load_ppo_policy
from kortmiljo.train.cli import main as train_main
from kortmiljo.train.init_model import copy_numpy_weights

from kortmiljo import load_game

from .conftest import QUICK


@pytest.fixture(scope="module")
def weights(trained, tmp_path_factory):
    folder = tmp_path_factory.mktemp("npz")
    for name in ("model.zip", "config.json"):  # a copy: the loader warns once per file, and a test checks that
        shutil.copy(trained / name, folder / name)
    out = folder / "student.npz"
    export_policy(folder / "model.zip", out, load_game("spokelse"))
    return out


def test_numpy_weights_copied_into_a_fresh_policy_give_the_files_logits(weights, trained, tmp_path):
    g = load_game("spokelse")
    run = tmp_path / "fresh"
    assert train_main(["spokelse", "--timesteps", "256", "--seed", "7", "--out", str(run), *QUICK]) == 0
    fresh = load_ppo_policy(run / "model.zip", g)
    assert _check(read_weights(weights), fresh, g) > 1e-3  # another network before the copy
    assert copy_numpy_weights(fresh.net, weights, (32,)) == 0  # actor and critic both fit
    assert _check(read_weights(weights), fresh, g) < 1e-5


def test_a_run_starts_from_numpy_weights(weights, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["spokelse", "--init", str(weights), "--timesteps", "256", "--out", str(out), *QUICK]
    assert train_main([a for a in argv if a != "--quiet"]) == 0
    assert f"initialised from {weights}" in capsys.readouterr().out
    assert (out / "model.zip").exists()


@pytest.mark.parametrize(
    ("extra", "expect"),
    [(["--net", "64"], "does not fit --net 64: its actor's layers are"), (["--no-unseen"], "does not fit --net 32")],
)
def test_numpy_weights_of_another_shape_are_refused(weights, tmp_path, capsys, extra, expect):
    out = tmp_path / "run"
    argv = ["spokelse", "--init", str(weights), "--timesteps", "256", "--out", str(out), *QUICK, *extra]
    assert train_main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expect in err[0]


def test_numpy_weights_for_another_game_or_corrupt_are_refused_before_anything_is_written(weights, tmp_path, capsys):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(weights.read_bytes()[:200])
    for path, expect in ((weights, "holds weights for 'spokelse', not 'sproyte'"), (bad, "bad.npz")):
        out = tmp_path / "run"
        game = "sproyte" if path == weights else "spokelse"
        assert train_main([game, "--init", str(path), "--timesteps", "256", "--out", str(out), *QUICK]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("kortmiljo train: --init: "), err
        assert expect in err[0] and not out.exists()
    assert np.isfinite(read_weights(weights).actor[0][0]).all()


def test_weights_with_an_advisor_input_are_refused(tmp_path, capsys):
    from kortmiljo.agents.pretrained import save_weights

    g = load_game("spokelse")
    rng = np.random.default_rng(0)
    n_in = g.layout.size + g.deck.width + g.num_actions
    layers = [(rng.normal(size=(a, b)).astype(np.float32), np.zeros(b, np.float32))
              for a, b in ((n_in, 32), (32, 32), (32, g.num_actions))]  # fmt: skip
    path = tmp_path / "advised.npz"
    save_weights(path, g, layers, advisor="heuristic_v0")
    out = tmp_path / "run"
    assert train_main(["spokelse", "--init", str(path), "--timesteps", "256", "--out", str(out), *QUICK]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "reads its advisor's move (heuristic_v0) as an input" in err[0] and not out.exists()
