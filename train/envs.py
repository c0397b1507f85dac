"""The vector env a run trains on, and the opponent pools inside it.

``--vec`` picks it (:func:`kortmiljo.env.vector.choose_vec`): ``native`` is one batched engine
for all envs with one shared pool; ``dummy`` is scalar :class:`~kortmiljo.env.training.SingleSeatEnv`
views in this process sharing one pool; ``subproc`` runs each view in its own process, with a
pool of its own there (the trainer reaches those pools through ``env_method``). ``auto`` falls
back from native to dummy where an opponent needs the live engine (search), which the batched
engine cannot give it. Every env is wrapped in ``VecMonitor``, and in :class:`VecRewardScale`
for ``--reward-scale``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kortmiljo.train.config import TrainConfig
from kortmiljo.train.pool import OpponentPool
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnvWrapper, VecMonitor

from kortmiljo.core.game import Game
from kortmiljo.env.training import SingleSeatEnv
from kortmiljo.env.vector import BatchedSingleSeatVecEnv, choose_vec


class VecRewardScale(VecEnvWrapper):
    """``venv`` with its rewards multiplied by ``scale`` (infos, and so the game returns, untouched)."""

    def __init__(self, venv: Any, scale: float):
        super().__init__(venv)
        self.scale = scale

    def reset(self):
        return self.venv.reset()

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        return obs, rewards * self.scale, dones, infos


def build_vec_env(
    config: TrainConfig, game: Game, make_pool: Callable[[int], OpponentPool]
) -> tuple[Any, str, OpponentPool | None]:
    """(the wrapped vector env, its kind, the shared pool or None for subproc) — ``ValueError`` where
    ``--vec`` cannot run (native without a batched engine, or with an opponent that needs the engine)."""
    c = config
    view = {
        "include_unseen": not c.no_unseen,
        "shaping": "auto" if c.shaping == "auto" else None,
        "shaping_scale": c.shaping_scale,
        "gamma": c.gamma,
        "privileged": c.privileged_critic,
    }
    vec = choose_vec(c.vec, game, c.n_envs)
    pool = make_pool(c.seed * 7919 + 17) if vec != "subproc" else None
    if vec == "native":
        try:
            venv = BatchedSingleSeatVecEnv(game, num_envs=c.n_envs, opponents=pool, seed=c.seed * 1000, **view)
            return _wrap(venv, c.reward_scale), "native", pool
        except ValueError:  # an opponent that needs the live engine (search): scalar views
            if c.vec == "native":
                raise
            vec = "dummy"

    def make(i: int) -> Callable[[], SingleSeatEnv]:
        def thunk() -> SingleSeatEnv:
            own = pool if pool is not None else make_pool(c.seed * 7919 + 17 + 100 * i)
            return SingleSeatEnv(game, opponents=own, seed=c.seed * 1000 + i, **view)

        return thunk

    fns = [make(i) for i in range(c.n_envs)]
    venv = DummyVecEnv(fns) if vec == "dummy" else SubprocVecEnv(fns, start_method="fork")
    return _wrap(venv, c.reward_scale), vec, pool


def _wrap(venv: Any, reward_scale: float) -> Any:
    if reward_scale != 1.0:
        venv = VecRewardScale(venv, reward_scale)
    return VecMonitor(venv)
