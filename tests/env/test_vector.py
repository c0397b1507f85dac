"""The native vector env: lane for lane the scalar training view, and sound SB3 plumbing."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from kortmiljo.agents.base import RandomPolicy
from kortmiljo.agents.spokelse_heuristic import SpokelseHeuristic
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from kortmiljo import load_game
from kortmiljo.core.batched import BatchedEngine
from kortmiljo.env.training import SingleSeatEnv
from kortmiljo.env.vector import BatchedSingleSeatVecEnv, choose_vec
from kortmiljo.games.spokelse import SpokelseEngine
from kortmiljo.games.spokelse.features import potential as spokelse_potential
from kortmiljo.games.spokelse.features import potential_batch as spokelse_potential_batch

SPOKELSE = load_game("spokelse")  # the configured game the policies are built for

SHORT_DECK = ["AS", "2S", "3S", "4S", "8S", "TS", "JS", "QS", "KS", "AH", "5H", "9H", "KH", "8D"]


def _pair(config: dict, lanes: int, seed: int, **kw):
    spec = SpokelseEngine(**config)
    scalar = DummyVecEnv(
        [
            lambda i=i: SingleSeatEnv("spokelse", config, [SpokelseHeuristic(spec)], seed=seed + i, **kw)
            for i in range(lanes)
        ]
    )
    native = BatchedSingleSeatVecEnv("spokelse", config, lanes, [SpokelseHeuristic(spec)], seed=seed, **kw)
    return scalar, native


def _agree(scalar_infos, native_infos) -> bool:
    """Every key of the native env's infos holds the scalar view's value. The scalar view has the same
    keys at every step (#50: its own keys and the game's, neutral until the end); the native env's carry
    the seat (and ``TimeLimit.truncated``) mid-episode and the results only as an episode ends."""
    return all({k: x[k] for k in y} == y for x, y in zip(scalar_infos, native_infos, strict=True))


def _replay(scalar, native, steps: int) -> int:
    """Step both with the same random legal actions; everything the learner sees must agree
    (observations, rewards and their dtypes, dones, infos with terminal observations, masks,
    reset infos). Returns the episodes finished."""
    np.testing.assert_array_equal(scalar.reset(), native.reset())
    assert _agree(scalar.reset_infos, native.reset_infos)
    rng = np.random.default_rng(0)
    episodes = 0
    for t in range(steps):
        m = np.stack(scalar.env_method("action_masks"))
        np.testing.assert_array_equal(native.action_masks(), m, err_msg=f"masks at {t}")
        a = (rng.random(m.shape) * m).argmax(axis=1)
        o1, r1, d1, i1 = scalar.step(a)
        o2, r2, d2, i2 = native.step(a)
        np.testing.assert_array_equal(o1, o2, err_msg=f"obs at {t}")
        np.testing.assert_array_equal(r1, r2, err_msg=f"rewards at {t}")
        assert r1.dtype == r2.dtype and d1.dtype == d2.dtype
        np.testing.assert_array_equal(d1, d2)
        for x, y in zip(i1, i2, strict=True):
            tx, ty = x.pop("terminal_observation", None), y.pop("terminal_observation", None)
            assert (tx is None) == (ty is None)
            if tx is not None:
                np.testing.assert_array_equal(tx, ty)
            assert _agree([x], [y]), (t, x, y)
        assert _agree(scalar.reset_infos, native.reset_infos)
        episodes += int(d1.sum())
    return episodes


@pytest.mark.parametrize(
    "config, kw",
    [
        ({}, {}),
        ({"num_players": 3, "match_to": 40, "reward": "points"}, {}),
        ({"num_players": 4, "jack_points": 11}, {"shaping": "auto", "shaping_scale": 0.1}),
        ({"num_players": 5}, {"seat": 2, "include_unseen": False}),
        ({}, {"privileged": True, "shaping": "auto"}),
        (
            {"num_players": 3, "cards": SHORT_DECK, "num_slots": 3},
            {"privileged": True, "include_unseen": False},
        ),
    ],
)
def test_lanes_replay_scalar_views_in_dummy_vec_env(config, kw):
    """Deterministic opponents, the same learner actions: identical observations, rewards,
    dones, infos (terminal observations included) and masks, lane for lane."""
    scalar, native = _pair(config, 4, 10, **kw)
    episodes = _replay(scalar, native, 400)
    assert episodes >= 8


def test_seeding_through_vec_env_seed_and_rng_state_roundtrip():
    spec = SpokelseEngine()
    a = BatchedSingleSeatVecEnv("spokelse", {}, 3, [SpokelseHeuristic(spec)], seed=1)
    b = BatchedSingleSeatVecEnv("spokelse", {}, 3, [SpokelseHeuristic(spec)], seed=99)
    a.seed(5)  # as SB3 does: lane i gets seed 5 + i at the next reset
    b.seed(5)
    np.testing.assert_array_equal(a.reset(), b.reset())
    for _ in range(200):  # same actions, same trajectories (episodes end and restart on the way)
        m = a.action_masks()
        act = np.where(m[:, 0], 0, 6 * m[:, 6] + 2 * (1 - m[:, 6]))
        (o1, r1, d1, _), (o2, r2, d2, _) = a.step(act), b.step(act)
        np.testing.assert_array_equal(d1, d2)
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
    states = a.env_method("rng_state")
    c = BatchedSingleSeatVecEnv("spokelse", {}, 3, seed=7)
    for i, st in enumerate(states):
        c.env_method("set_rng_state", st, indices=[i])
    assert c.env_method("rng_state") == states


def test_sb3_plumbing_spaces_masks_and_monitor():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = VecMonitor(BatchedSingleSeatVecEnv("spokelse", {"num_players": 3}, 6, seed=0))
    assert isinstance(env.observation_space, spaces.Box) and env.observation_space.dtype == np.float32
    assert env.observation_space.shape == (SpokelseEngine(num_players=3).layout.size + 52,)
    assert isinstance(env.action_space, spaces.Discrete) and env.action_space.n == 7
    obs = env.reset()
    assert obs.shape == (6, env.observation_space.shape[0]) and obs.dtype == np.float32
    assert is_masking_supported(env)
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(300):
        masks = get_action_masks(env)  # env_method("action_masks") through the monitor wrapper
        assert masks.shape == (6, 7) and masks.dtype == bool
        np.testing.assert_array_equal(masks, env.unwrapped.action_masks())
        a = (rng.random(masks.shape) * masks).argmax(axis=1)
        obs, rew, done, infos = env.step(a)
        assert obs.shape == (6, env.observation_space.shape[0]) and rew.dtype == np.float32 and done.dtype == bool
        assert all(env.observation_space.contains(o) for o in obs)
        for d, info in zip(done, infos, strict=True):
            assert "TimeLimit.truncated" in info and "seat" in info
            if d:
                finished += 1
                assert info["terminal_observation"].shape == obs.shape[1:]
                assert "episode" in info and {"round_points", "match_points", "game_return", "decisions"} <= set(info)
                assert info["episode"]["r"] == pytest.approx(info["game_return"], abs=1e-6)
    assert finished > 0
    assert env.get_attr("render_mode") == [None] * 6
    assert env.env_is_wrapped(VecMonitor) == [False] * 6


def test_illegal_learner_action_names_the_lane():
    env = BatchedSingleSeatVecEnv("spokelse", {}, 3, seed=0)
    env.reset()
    a = np.where(env.action_masks()[:, 0], 0, 2)
    a[1] = 6 if env.action_masks()[1, 0] else 0  # draw phase: discard is illegal; place phase: draw is
    with pytest.raises(ValueError, match="lane 1"):
        env.step(a)


def test_random_and_frozen_policy_opponents_in_batch():
    """A pool with a frozen SB3 policy (evaluated once per batch) and random players."""
    import torch
    from kortmiljo.train.pool import OpponentPool
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    spec = SpokelseEngine()
    pool = OpponentPool(spec, [RandomPolicy(spec, seed=0)], self_play_prob=0.5)
    env = BatchedSingleSeatVecEnv("spokelse", {}, 16, pool, seed=3)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})  # fmt: skip
    pool.add_snapshot(model.policy, "snap0", seed=1)
    model.learn(total_timesteps=64)  # rollouts against random and the frozen snapshot, plus one update
    assert model.num_timesteps >= 64
    assert pool.counts.get("self", 0) > 0 and pool.counts.get("random", 0) > 0


def test_opponents_that_need_the_engine_are_refused():
    class Searcher(RandomPolicy):
        needs_engine = True

    with pytest.raises(ValueError, match="needs the live engine"):
        BatchedSingleSeatVecEnv("spokelse", {}, 2, [Searcher(SPOKELSE)], seed=0)


def test_protocol_and_registry():
    assert isinstance(load_game("spokelse").new_batched(2, seed=0), BatchedEngine)
    with pytest.raises(ValueError, match="unknown game"):
        load_game("no_such_game")
    teaching = load_game("femkortskille", hand_size=2)
    with pytest.raises(ValueError, match="teaching option"):
        choose_vec("native", teaching, 64)
    assert choose_vec("auto", teaching, 1024) == "dummy"
    sp, sr, fk = load_game("spokelse"), load_game("sproyte"), load_game("femkortskille")
    assert choose_vec("auto", sp, 64) == "native"
    assert choose_vec("auto", sp, 8) == "dummy"  # below the measured break-even
    assert choose_vec("auto", sr, 32) == "dummy" and choose_vec("auto", sr, 64) == "native"
    assert choose_vec("auto", fk, 16) == "dummy" and choose_vec("auto", fk, 256) == "native"


def test_batched_potential_equals_scalar_potential():
    for n in (2, 3, 5):
        env = BatchedSingleSeatVecEnv("spokelse", {"num_players": n}, 32, seed=n)
        obs = env.reset()
        rng = np.random.default_rng(0)
        for _ in range(60):
            m = env.action_masks()
            obs, *_ = env.step((rng.random(m.shape) * m).argmax(axis=1))
            got = spokelse_potential_batch(env.game, env.seat, obs)
            want = [spokelse_potential(env.game, int(s), o) for s, o in zip(env.seat, obs, strict=True)]
            np.testing.assert_array_equal(got, want)


def test_dropped_snapshots_are_released():
    """Policies no lane plays any more are forgotten (a pool keeps only its newest snapshots)."""
    spec = SpokelseEngine()

    class Pool:
        def __init__(self):
            self.k = 0

        def sample(self, rng):
            self.k += 1
            return RandomPolicy(spec, seed=self.k)  # a new object every time, like ever-new snapshots

    pool = Pool()
    env = BatchedSingleSeatVecEnv("spokelse", {}, 8, pool, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(1000):
        m = env.action_masks()
        env.step((rng.random(m.shape) * m).argmax(axis=1))
        assert len(env._policies) <= 64 + 8
    assert pool.k > 80  # more than the cap: compaction happened
    live = {id(env._policies[j]) for j in env._opp[env._opp >= 0].tolist()}
    assert len(live) == len(set(env._opp[env._opp >= 0].tolist()))


class _Lowest(RandomPolicy):
    """Deterministic opponent: the lowest legal action index (same choice scalar or batched)."""

    def act(self, obs, engine=None):
        return int(np.flatnonzero(obs["action_mask"])[0])

    def act_batch(self, obs):
        return np.asarray(obs["action_mask"]).argmax(axis=1)


class _Highest(_Lowest):
    def act(self, obs, engine=None):
        return int(np.flatnonzero(obs["action_mask"])[-1])

    def act_batch(self, obs):
        m = np.asarray(obs["action_mask"])
        return m.shape[1] - 1 - m[:, ::-1].argmax(axis=1)


@pytest.mark.parametrize(
    "game, config, kw",
    [
        ("sproyte", {}, {}),
        ("sproyte", {"variant": "variasjon", "match_to": 3}, {}),
        ("sproyte", {"variant": "tretten", "reward": "raw"}, {"privileged": True}),
        ("femkortskille", {}, {}),
        ("femkortskille", {"num_players": 5, "payments_stay": True, "poker": True}, {"privileged": True}),
        ("femkortskille", {"num_players": 3, "max_deals": 1}, {}),
        ("femkortskille", {"num_players": 6, "auktion": True, "skituppslag": True}, {}),
    ],
)
def test_other_games_lanes_replay_scalar_views(game, config, kw):
    from kortmiljo import load_game

    spec = load_game(game, **config).new_state()
    opps = [_Lowest(spec), _Highest(spec)]
    lanes, seed = 4, 10
    scalar = DummyVecEnv([lambda i=i: SingleSeatEnv(game, config, opps, seed=seed + i, **kw) for i in range(lanes)])
    native = BatchedSingleSeatVecEnv(game, config, lanes, opps, seed=seed, **kw)
    assert native.observation_space == scalar.observation_space
    episodes = _replay(scalar, native, 250)
    assert episodes >= 4


def test_a_refused_reset_changes_no_lane():
    env = BatchedSingleSeatVecEnv("spokelse", {}, 3, seed=5)
    env.reset()
    states = [r.bit_generator.state for r in env.rngs]
    obs = env._learner_obs(env._all).copy()
    for bad in ({"dealer": 7}, {"deck": ["AS"]}, {"seat": 2}, "x"):
        env.set_options([{}, bad, {}])
        env.seed(11)
        with pytest.raises(ValueError, match="lane 1"):
            env.reset()
        assert [r.bit_generator.state for r in env.rngs] == states
        np.testing.assert_array_equal(env._learner_obs(env._all), obs)
        env._reset_seeds()
        env._reset_options()
