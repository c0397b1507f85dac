"""Weights files are read within declared bounds, and a network cannot make an illegal move (#49, items 7, 8).

- ``MAX_BYTES`` counts the arrays uncompressed, read from the archive's table of contents before
  any member is decompressed (a 2.5 MB zip bomb reached 1.58 GB), and the error says so.
- The ``meta`` header is read by ``kortmiljo.core.jsonsafe``: nesting, huge integers and NaN are
  one ``ValueError``; a fingerprint of the wrong types is one too.
- Weights past ``MAX_ABS_WEIGHT`` are refused at load; a network whose logits still overflow
  raises a ``ValueError`` naming the weights file instead of choosing an illegal action.
- The other JSON loaders of models and runs (``config.json``, leaderboards, a run's JSON files)
  refuse deep nesting with a ``ValueError`` too.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
from kortmiljo.agents import leaderboard, pretrained
from kortmiljo.agents.pretrained import load_mlp_policy, read_weights, save_weights
from kortmiljo.agents.trained import read_model_config
from kortmiljo.train import checkpoints
from kortmiljo.train.config import TrainConfig, TrainError

from kortmiljo.core.registry import load_game

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture(scope="module")
def game():
    return load_game("spokelse")


def tiny(game, rng, scale=0.1):
    n_in = game.layout.size + game.deck.width
    sizes = [n_in, 8, game.num_actions]
    return [
        ((rng.standard_normal((a, b)) * scale).astype(np.float32), np.zeros(b, np.float32))
        for a, b in zip(sizes, sizes[1:], strict=False)
    ]


def arrays_of(game, tmp_path) -> dict[str, np.ndarray]:
    save_weights(tmp_path / "good.npz", game, tiny(game, np.random.default_rng(0)))
    with np.load(tmp_path / "good.npz") as z:
        return {k: z[k] for k in z.files}


def write_npz(path, compressed=False, **arrays):
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    path.write_bytes(buf.getvalue())
    return path


def with_meta(game, tmp_path, text: str):
    arrays = arrays_of(game, tmp_path)
    arrays["meta"] = np.frombuffer(text.encode(), dtype=np.uint8)
    return write_npz(tmp_path / "bad.npz", **arrays)


def meta_text(game, tmp_path, **changes) -> str:
    meta = json.loads(arrays_of(game, tmp_path)["meta"].tobytes().decode())
    meta.update(changes)
    return json.dumps(meta)


# ---- the archive --------------------------------------------------------------------------------
def test_the_size_cap_counts_uncompressed_bytes(game, tmp_path, monkeypatch):
    arrays = arrays_of(game, tmp_path)
    arrays["actor.0.w"] = np.zeros((arrays["actor.0.w"].shape[0], 4096), np.float32)  # compresses to almost nothing
    path = write_npz(tmp_path / "bomb.npz", compressed=True, **arrays)
    with zipfile.ZipFile(path) as z:
        unpacked = sum(i.file_size for i in z.infolist())
    assert path.stat().st_size * 20 < unpacked
    monkeypatch.setattr(pretrained, "MAX_BYTES", unpacked - 1)  # the file is far below it, its arrays are not
    monkeypatch.setattr(np.lib.format, "read_array", lambda *a, **k: pytest.fail("a member was decompressed"))
    with pytest.raises(ValueError, match="uncompressed") as err:
        read_weights(path)
    assert "pickle" not in str(err.value) and "MAX_BYTES" in str(err.value)


def test_too_many_members(game, tmp_path, monkeypatch):
    arrays = arrays_of(game, tmp_path)
    monkeypatch.setattr(pretrained, "MAX_MEMBERS", len(arrays) - 1)
    with pytest.raises(ValueError, match="MAX_MEMBERS"):
        read_weights(write_npz(tmp_path / "many.npz", **arrays))


# ---- the meta header ----------------------------------------------------------------------------
def test_deeply_nested_meta_is_a_value_error(game, tmp_path):
    path = with_meta(game, tmp_path, meta_text(game, tmp_path).replace('"source": {}', f'"source": {DEEP}'))
    with pytest.raises(ValueError, match="nested"):
        read_weights(path)


def test_huge_integer_in_meta(game, tmp_path):
    path = with_meta(game, tmp_path, meta_text(game, tmp_path).replace('"source": {}', '"source": ' + "7" * 5000))
    with pytest.raises(ValueError, match="at most 40"):
        read_weights(path)


def test_nan_in_meta(game, tmp_path):
    path = with_meta(game, tmp_path, meta_text(game, tmp_path).replace('"source": {}', '"source": {"loss": NaN}'))
    with pytest.raises(ValueError, match="not allowed|not finite"):
        read_weights(path)


@pytest.mark.parametrize(
    "fingerprint",
    [
        {"game": "spokelse", "version": 0, "config": [1, 2], "action_names": [], "layout": []},
        {"game": "spokelse", "version": "0", "config": {}, "action_names": 5, "layout": []},
        {"game": "spokelse", "version": 0, "config": {}, "action_names": [1, 2], "layout": [3, 4]},
    ],
    ids=["config list", "names int", "layout ints"],
)
def test_fingerprint_with_wrong_types(game, tmp_path, fingerprint):
    path = with_meta(game, tmp_path, meta_text(game, tmp_path, fingerprint=fingerprint))
    with pytest.raises(ValueError, match="fingerprint"):
        load_mlp_policy(path, game)


# ---- the numbers --------------------------------------------------------------------------------
def test_huge_finite_weights_are_refused_at_load(game, tmp_path):
    actor = tiny(game, np.random.default_rng(1), scale=1e30)
    path = write_npz(tmp_path / "huge.npz", **{**arrays_of(game, tmp_path), "actor.0.w": actor[0][0]})
    with pytest.raises(ValueError, match="MAX_ABS_WEIGHT"):
        read_weights(path)


def _overflowing(game, tmp_path, monkeypatch):
    """A policy whose every logit overflows to -inf (its weights let through by raising the bound)."""
    monkeypatch.setattr(pretrained, "MAX_ABS_WEIGHT", np.inf)
    n_in = game.layout.size + game.deck.width
    actor = [(np.full((n_in, game.num_actions), -3e38, np.float32), np.zeros(game.num_actions, np.float32))]
    save_weights(tmp_path / "overflow.npz", game, actor)
    return load_mlp_policy(tmp_path / "overflow.npz", game)


def _position_without_action_0(game):
    rng = np.random.default_rng(0)
    e = game.new_state()
    e.new_episode(rng)
    while True:
        obs = e.observation(e.current_player)
        if not obs["action_mask"][0]:
            return obs
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("deterministic", [True, False])
def test_overflowing_logits_never_give_an_illegal_action(game, tmp_path, monkeypatch, deterministic):
    policy = _overflowing(game, tmp_path, monkeypatch)
    policy.deterministic = deterministic
    obs = _position_without_action_0(game)
    with pytest.raises(ValueError, match="overflow.npz") as err:
        action = policy.act(obs)
        assert obs["action_mask"][action], f"illegal action {action}"
    assert "not a finite number" in str(err.value)
    with pytest.raises(ValueError, match="overflow.npz"):
        policy.act_batch({k: v[None] for k, v in obs.items()})


# ---- other loaders of models and runs -----------------------------------------------------------
def test_model_config_json_deep_nesting(tmp_path):
    (tmp_path / "config.json").write_text('{"game": "spokelse", "x": ' + DEEP + "}")
    with pytest.raises(ValueError, match="nested"):
        read_model_config(tmp_path / "model.zip")


def test_leaderboard_deep_nesting(tmp_path):
    path = tmp_path / "board.json"
    path.write_text(DEEP)
    with pytest.raises(ValueError, match="nested"):
        leaderboard.load_entries(path)


def test_run_json_deep_nesting_and_nan(tmp_path):
    for text, words in ((DEEP, "nested"), ('{"lr": NaN}', "NaN")):
        path = tmp_path / "state.json"
        path.write_text(text)
        with pytest.raises(checkpoints.TrainError, match=words):
            checkpoints.read_json(path)


def test_train_config_from_a_document_with_nan():
    with pytest.raises(TrainError, match="not finite"):
        TrainConfig.from_dict({"game": "spokelse", "lr": float("nan")})


def test_a_nan_metric_in_source_is_written_as_null(game, tmp_path):
    # the reader refuses NaN, so the writer must not write it (a tiny distillation run's empty split)
    save_weights(tmp_path / "w.npz", game, tiny(game, np.random.default_rng(0)), source={"r2": float("nan")})
    assert read_weights(tmp_path / "w.npz").meta["source"] == {"r2": None}
