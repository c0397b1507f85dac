"""The policy protocol: what the environments' layers need of an agent.

A policy maps one agent's own observation (the env's dict with ``observation``,
``action_mask`` and ``unseen``) to a legal action index. It is built for a configured
:class:`~kortmiljo.core.game.Game` and owns a seeded generator, so that results are
reproducible and independent of the global RNGs. Policies that search (``needs_engine =
True``) also receive the live state, and may only call ``state.resample(seat, rng)`` on it.

The package's layers receive policy objects (the training view's opponents) and never build
agents themselves; scripted baselines, search and trained agents live in ``agents/``. Anything
with ``act(obs)`` plugs in; subclassing :class:`Policy` adds the seeding and a batched
``act_batch``. :class:`RandomPolicy` is the one policy the package ships, the default opponent.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from .game import Game, as_game


class Policy(ABC):
    """Base class: ``act(obs) -> action``; ``act_batch`` for many observations at once."""

    name: str = "policy"
    needs_engine: bool = False

    def __init__(self, game: Game, seed: int | None = None):
        self.game = as_game(game)
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, obs: dict[str, np.ndarray], engine: Any | None = None) -> int:
        """A legal action for the agent whose observation this is."""

    def act_explained(
        self, obs: dict[str, np.ndarray], engine: Any | None = None
    ) -> tuple[int, dict[int, float] | None, float | None]:
        """``act``, plus what the policy can say about its choice: a probability for each legal
        action (index → probability) and an estimate of its return, each None where it has none.
        Records store them with the move; the default explains nothing."""
        return self.act(obs, engine), None, None

    def act_batch(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """Actions for a batch (arrays with a leading axis); default: one by one."""
        n = len(obs["action_mask"])
        return np.array([self.act(row(obs, i)) for i in range(n)], dtype=np.int64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def row(obs: dict[str, np.ndarray], i: int) -> dict[str, np.ndarray]:
    """Row ``i`` of a batch of observations, as one observation."""
    return {k: v[i] for k, v in obs.items()}


class RandomPolicy(Policy):
    """Uniform over the legal actions."""

    name = "random"

    def act(self, obs: dict[str, np.ndarray], engine: Any | None = None) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) == 0:
            raise ValueError("no legal action in the observation's action_mask")
        return int(legal[self.rng.integers(len(legal))])

    def act_explained(self, obs, engine=None):
        legal = np.flatnonzero(obs["action_mask"])
        return self.act(obs, engine), {int(a): 1.0 / len(legal) for a in legal}, None

    def act_batch(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        mask = np.asarray(obs["action_mask"], dtype=np.float64)
        u = self.rng.random(mask.shape) * mask  # argmax of uniform noise on legal entries
        u[mask == 0] = -1.0
        return u.argmax(axis=1)
