"""kortmiljo.train.ensemble: students merged into one network whose output is exactly their weighted mean."""

from __future__ import annotations

import numpy as np
import pytest
from kortmiljo.agents.pretrained import load_mlp_policy, pretrained_policy, read_weights, save_weights, weights_path
from kortmiljo.train import ensemble

from kortmiljo import load_game


def _student(path, game, hidden, seed, advisor="heuristic_v0", critic=True):
    """A random student of ``game`` (the shape of a distilled one: observation, unseen, advisor one-hot)."""
    rng = np.random.default_rng(seed)
    sizes = [read_weights(weights_path(game.name, 2)).meta["inputs"], *hidden, game.num_actions]
    layers = [(rng.normal(0, 0.3, (a, b)).astype(np.float32), rng.normal(0, 0.1, b).astype(np.float32))
              for a, b in zip(sizes[:-1], sizes[1:], strict=True)]  # fmt: skip
    value = [(w, b) for w, b in layers[:-1]] + [(layers[-1][0][:, :1].copy(), layers[-1][1][:1].copy())]
    save_weights(path, game, layers, value if critic else None, activation="relu", advisor=advisor,
                 source={"recipe": f"random, seed {seed}"})  # fmt: skip
    return str(path)


def test_the_merged_network_gives_the_weighted_mean_of_its_members(tmp_path):
    game = load_game("femkortskille")
    a = _student(tmp_path / "a.npz", game, [16, 8], 1)
    b = _student(tmp_path / "b.npz", game, [12, 4], 2)  # other widths: only the depth must match
    ensemble.main(["femkortskille", "--members", f"{a},{b}", "--weights", "3,1", "--out", str(tmp_path / "e.npz")])
    pa, pb, pe = (load_mlp_policy(p, game, seed=0) for p in (a, b, tmp_path / "e.npz"))
    assert [int(x.shape[0]) for _, x in pe.weights.actor[:-1]] == [28, 12]
    assert pe.weights.meta["source"]["members"][0]["weight"] == 0.75
    rng = np.random.default_rng(0)
    state, checked = game.new_state(), 0
    for _ in range(5):
        state.new_episode(rng)
        while not (state.terminal or state.truncated):
            obs = state.observation(state.current_player)
            x = pa.vector(obs)[None, :]
            mean = 0.75 * pa._forward(x.copy(), pa.weights.actor) + 0.25 * pb._forward(x.copy(), pb.weights.actor)
            np.testing.assert_allclose(pe._forward(x.copy(), pe.weights.actor), mean, rtol=1e-5, atol=1e-5)
            value = 0.75 * pa.value(obs) + 0.25 * pb.value(obs)
            assert pe.value(obs) == pytest.approx(value, rel=1e-5, abs=1e-5)
            a_e = pe.act(obs)
            assert obs["action_mask"][a_e] == 1
            state.step(a_e)
            checked += 1
    assert checked > 10


def test_a_shipped_agent_is_a_member_by_name_and_the_result_plays(tmp_path):
    out = tmp_path / "e.npz"
    ensemble.main(["sproyte", "--members", "pretrained_v2,pretrained_v3", "--out", str(out)])
    game = load_game("sproyte")
    merged = load_mlp_policy(out, game, seed=0)
    v2, v3 = pretrained_policy(game, 2), pretrained_policy(game, 3)
    state = game.new_state()
    state.new_episode(np.random.default_rng(3))
    obs = state.observation(state.current_player)
    x = v2.vector(obs)[None, :]
    mean = (v2._forward(x.copy(), v2.weights.actor) + v3._forward(x.copy(), v3.weights.actor)) / 2
    np.testing.assert_allclose(merged._forward(x.copy(), merged.weights.actor), mean, rtol=1e-5, atol=1e-5)


def test_members_of_different_kinds_and_bad_weights_are_refused_before_anything_is_written(tmp_path, capsys):
    game = load_game("femkortskille")
    a = _student(tmp_path / "a.npz", game, [8, 8], 1)
    deeper = _student(tmp_path / "deep.npz", game, [8, 8, 8], 2)
    plain = tmp_path / "plain.npz"
    rng = np.random.default_rng(0)
    inputs = read_weights(a).meta["inputs"] - game.num_actions
    save_weights(plain, game, [(rng.normal(size=(inputs, game.num_actions)).astype(np.float32),
                                          np.zeros(game.num_actions, np.float32))], activation="relu")  # fmt: skip
    out = tmp_path / "e.npz"
    cases = [
        ([a, deeper], None, "4 actor layers (not 3)"),
        ([a, str(plain)], None, "advisor None"),
        ([a], None, "at least two members"),
        ([a, a], "1,0", "one positive weight per member"),
        ([a, a], "1", "one positive weight per member"),
        ([a, str(tmp_path / "missing.npz")], None, "no weights file"),
        ([a, "heuristic"], None, "'heuristic' is not a network in the weights format"),
    ]
    for members, weights, message in cases:
        argv = ["femkortskille", "--members", ",".join(members), "--out", str(out)]
        with pytest.raises(SystemExit) as err:
            ensemble.main(argv + (["--weights", weights] if weights else []))
        assert err.value.code == 2
        assert message in capsys.readouterr().err
        assert not out.exists()
    with pytest.raises(SystemExit):  # another game's student
        ensemble.main(["sproyte", "--members", f"{a},{a}", "--out", str(out)])
    assert "holds weights for 'femkortskille', not 'sproyte'" in capsys.readouterr().err
    assert not out.exists()
