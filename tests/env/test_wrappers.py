"""``kortmiljo.wrappers.flatten_observation``: the flat float32 view for Box-only clients."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

from kortmiljo import femkortskille_v0, spokelse_v0, sproyte_v0
from kortmiljo.wrappers import flatten_observation

MODULES = {"spokelse": spokelse_v0, "sproyte": sproyte_v0, "femkortskille": femkortskille_v0}
CONFIGS = [("spokelse", {}), ("sproyte", {"variant": "tretten"}), ("femkortskille", {"num_players": 5, "poker": True})]
IDS = [f"{g}-{i}" for i, (g, _) in enumerate(CONFIGS)]

pytestmark = pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning")


@pytest.mark.parametrize("mask", ["dict", "info"])
@pytest.mark.parametrize("game, config", CONFIGS, ids=IDS)
def test_api_and_seed_tests_pass(game, config, mask):
    api_test(flatten_observation(MODULES[game].env(**config), mask=mask), num_cycles=100)
    seed_test(lambda **kw: flatten_observation(MODULES[game].env(**config, **kw), mask=mask), num_cycles=100)


@pytest.mark.parametrize("game, config", CONFIGS, ids=IDS)
def test_flat_vector_is_observation_then_unseen(game, config):
    env = MODULES[game].env(**config)
    flat = flatten_observation(MODULES[game].env(**config))
    boxed = flatten_observation(MODULES[game].env(**config), mask="info")
    for e in (env, flat, boxed):
        e.reset(seed=7)
    raw = env.unwrapped.engine
    space = flat.observation_space("player_0")
    assert isinstance(space, spaces.Dict) and set(space.spaces) == {"observation", "action_mask"}
    assert space["observation"].shape == (raw.layout.size + raw.deck.width,)
    assert space["observation"].dtype == np.float32
    assert boxed.observation_space("player_0") == space["observation"]
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        o, r, term, trunc, info = env.last()
        f, fr, fterm, ftrunc, finfo = flat.last()
        b, br, _, _, binfo = boxed.last()
        want = np.concatenate([o["observation"], o["unseen"].astype(np.float32)])
        assert f["observation"].dtype == np.float32 and b.dtype == np.float32
        np.testing.assert_array_equal(f["observation"], want)
        np.testing.assert_array_equal(b, want)
        np.testing.assert_array_equal(f["action_mask"], o["action_mask"])
        np.testing.assert_array_equal(binfo["action_mask"], o["action_mask"])
        assert (r, term, trunc, info) == (fr, fterm, ftrunc, finfo) and br == r
        assert "action_mask" not in finfo and {k: v for k, v in binfo.items() if k != "action_mask"} == info
        action = None if term or trunc else int(rng.choice(np.flatnonzero(o["action_mask"])))
        for e in (env, flat, boxed):
            e.step(action)


def test_wrapped_env_pickles_mid_game():
    env = flatten_observation(sproyte_v0.env(), mask="info")
    env.reset(seed=3)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.infos[env.agent_selection]["action_mask"])[0]))
    copy = pickle.loads(pickle.dumps(env))
    np.testing.assert_array_equal(copy.observe(copy.agent_selection), env.observe(env.agent_selection))
    assert copy.agent_selection == env.agent_selection


def test_bad_mask_mode_and_foreign_env_are_refused():
    with pytest.raises(ValueError, match="mask='box' is not allowed"):
        flatten_observation(spokelse_v0.env(), mask="box")
    with pytest.raises(TypeError, match="needs a kortmiljo env"):
        flatten_observation(flatten_observation(spokelse_v0.env()))


def test_clients_page_example_runs(capsys):
    """The python block of docs/clients.md runs as written and prints the neutral numeric infos."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "clients.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"^```python\n(.*?)^```", page, re.S | re.M)
    exec(compile(block, "docs/clients.md", "exec"), {"__name__": "__doc_example__"})  # noqa: S102
    out = capsys.readouterr().out
    assert "'contract_id': -1" in out and "'trump_id': -1" in out and "contract'" not in out
