"""The single-seat training view (:class:`kortmiljo.env.training.SingleSeatEnv`) returns an ``info`` with the same
keys, of the same types, from ``reset`` and from every ``step``: over many random games of every game and
configuration, episodes cut by a cap, an illegal action and episodes dropped before the learner's first decision.

The values keep their meaning: ``decisions`` counts the learner's steps, ``game_return`` is the sum of the
steps' ``game_reward``, and the game's own fields are neutral until the end and the engine's result at it.
"""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.core.registry import games, load_game
from kortmiljo.env.training import VIEW_INFO_KEYS, SingleSeatEnv

NULLABLE = {"trump", "winner"}  # a game's result fields that are None or a name (docs/<game>.md, Infos)
# the package's games, whose engines keep their own info keys at every step (``env_info``); a plug-in game
# that keeps the default ``env_info`` (the test session's toy) adds its result keys at the end only
PACKAGE = {name: d for name, d in games().items() if d.game.__module__.startswith("kortmiljo.games.")}
CASES = [(name, dict(cfg), 50 if i == 0 else 10) for name, d in PACKAGE.items() for i, cfg in enumerate(d.examples)]
CAPPED = [  # configurations that a cap cuts, so that truncated_by is seen set
    ("spokelse", {"max_steps": 20}, 8),
    ("sproyte", {"match_to": 1000, "max_deals": 1}, 4),
    ("femkortskille", {"num_players": 3, "max_deals": 1}, 40),
]
CASES += CAPPED
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(CASES)]


def game_part(info: dict) -> dict:
    return {k: v for k, v in info.items() if k not in VIEW_INFO_KEYS}


class Infos:
    """Every info of a run, with the key set and the types seen per key."""

    def __init__(self):
        self.keys: set[str] | None = None
        self.types: dict[str, set[type]] = {}
        self.count = 0

    def add(self, info: dict, where: str) -> None:
        if self.keys is None:
            self.keys = set(info)
        assert set(info) == self.keys, f"{where}: keys {sorted(info)}, first {sorted(self.keys)}"
        for k, v in info.items():
            self.types.setdefault(k, set()).add(type(v))
        self.count += 1

    def check_types(self) -> None:
        for k, seen in self.types.items():
            allowed = {str, type(None)} if k in NULLABLE else None
            assert (seen <= allowed) if allowed else len(seen) == 1, f"{k} changes type: {seen}"


def play_episode(env: SingleSeatEnv, rng: np.random.Generator, infos: Infos, episode: int) -> bool:
    """One random episode; checks every info's keys and meaning. Returns whether a cap cut it."""
    _, info = env.reset()
    infos.add(info, f"episode {episode}, reset")
    neutral = game_part(info)
    assert (info["seat"], info["decisions"], info["game_return"], info["illegal_action"]) == (env.seat, 0, 0.0, "")
    total, steps, done = 0.0, 0, False
    while not done:
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        steps += 1
        done = term or trunc
        infos.add(info, f"episode {episode}, step {steps}")
        total += info["game_reward"]
        assert info["decisions"] == steps and info["seat"] == env.seat and info["illegal_action"] == ""
        assert info["game_return"] == pytest.approx(total)
        assert (info["skipped_episodes"], info["skipped_reward"]) == (0, 0.0)
        assert game_part(info) == (env.engine.env_info(env.seat) if done else neutral)
    assert bool(info["truncated_by"]) == (trunc and not term)
    return bool(info["truncated_by"])


@pytest.mark.parametrize(("name", "config", "episodes"), CASES, ids=IDS)
def test_every_info_has_the_same_keys_from_reset_to_the_end(name, config, episodes):
    env = SingleSeatEnv(load_game(name, **config), seed=7)
    rng = np.random.default_rng(7)
    infos, cut = Infos(), 0
    for episode in range(episodes):
        cut += play_episode(env, rng, infos, episode)
    assert set(VIEW_INFO_KEYS) | set(env.engine.INFO_NEUTRAL) == infos.keys
    infos.check_types()
    assert infos.count > 2 * episodes
    if (name, config, episodes) in CAPPED:
        assert cut, "the capped configuration was never cut"


@pytest.mark.parametrize("name", sorted(PACKAGE))
def test_an_illegal_action_keeps_the_keys(name):
    env = SingleSeatEnv(name, seed=3)
    _, first = env.reset(seed=3)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, r, term, trunc, info = env.step(illegal)
    assert (r, term, trunc) == (-1.0, True, False)
    assert set(info) == set(first) and "legal actions" in info["illegal_action"]
    assert info["game_reward"] == info["game_return"] == -1.0 and info["decisions"] == 0
    assert game_part(info) == game_part(first)  # the game did not end: its fields stay neutral
    _, again = env.reset()
    assert set(again) == set(first) and again["illegal_action"] == ""


def test_a_reset_that_drops_episodes_keeps_the_keys():
    from tests.train.test_training_env import TOY, Scripted  # a game the opponent can end at once

    toy = TOY.configure()
    env = SingleSeatEnv(toy, opponents=[Scripted(toy, [0])], seat=1, include_unseen=False, seed=0)
    infos, dropped = Infos(), 0
    for episode in range(30):
        _, info = env.reset()
        infos.add(info, f"episode {episode}, reset")
        dropped += info["skipped_episodes"]
        _, _, term, _, info = env.step(1)
        infos.add(info, f"episode {episode}, step")
        assert term and info["skipped_episodes"] == 0
    assert dropped > 0 and infos.keys == set(VIEW_INFO_KEYS)
    infos.check_types()


def test_a_game_with_the_default_env_info_still_has_the_views_keys_at_every_step():
    if "toy" not in games():
        pytest.skip("the toy game is registered by tests/conftest.py")
    env = SingleSeatEnv(load_game("toy"), seed=5)
    rng = np.random.default_rng(5)
    for _ in range(20):
        _, info = env.reset()
        assert set(info) == set(VIEW_INFO_KEYS)  # the toy's engine gives {} until the end
        done = False
        while not done:
            _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = term or trunc
            assert set(VIEW_INFO_KEYS) <= set(info)
        assert set(info) == set(VIEW_INFO_KEYS) | set(env.engine.info(env.seat))


def test_the_training_callback_counts_only_the_episodes_that_ended():
    """``train``'s bookkeeping reads the game return on ``dones``, not on the key's presence, which is every step."""
    from types import SimpleNamespace

    from kortmiljo.train.callbacks import TrainingCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    trainer = SimpleNamespace(
        config=SimpleNamespace(timesteps=1000, minutes=None, seed=0), state={"evals": []}, time_left=lambda: 1.0
    )
    callback = TrainingCallback(trainer, 1000)
    vec = DummyVecEnv([lambda i=i: SingleSeatEnv("sproyte", seed=i) for i in range(2)])
    vec.reset()
    rng = np.random.default_rng(0)
    ended: list[float] = []
    for _ in range(300):
        masks = np.stack(vec.env_method("action_masks"))
        _, _, dones, infos = vec.step((rng.random(masks.shape) * masks).argmax(axis=1))
        callback.locals = {"infos": infos, "dones": dones}
        callback._on_step()
        ended += [info["game_return"] for info, done in zip(infos, dones, strict=True) if done]
    assert ended and list(callback.returns) == ended
