"""The policy interface shared by scripted baselines, search and trained agents.

A policy maps one agent's own observation (the env's dict with ``observation``,
``action_mask`` and ``unseen``) to a legal action index. It owns a seeded RNG so
that results are reproducible and independent of the global RNGs. Policies that
search (``needs_engine = True``) also receive the live engine, and may only call
``engine.resample(seat, rng)`` on it (tests check that their decisions do not
depend on the hidden cards).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from kortmiljo.core.engine import Engine


class Policy(ABC):
    """Base class: ``act(obs) -> action``; ``act_batch`` for many observations at once."""

    name: str = "policy"
    needs_engine: bool = False

    def __init__(self, engine: Engine, seed: int | None = None):
        # ``engine`` is a template of the game and configuration (layout, actions, deck);
        # policies must not read its state.
        self.spec = engine
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, obs: dict[str, np.ndarray], engine: Engine | None = None) -> int:
        """A legal action for the agent whose observation this is."""

    def act_batch(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """Actions for a batch (arrays with a leading axis); default: one by one."""
        n = len(obs["action_mask"])
        return np.array([self.act(row(obs, i)) for i in range(n)], dtype=np.int64)


def row(obs: dict[str, np.ndarray], i: int) -> dict[str, np.ndarray]:
    """Row ``i`` of a batch of observations, as one observation."""
    return {k: v[i] for k, v in obs.items()}


def choose_from_logits(logits: np.ndarray, deterministic: bool, rng: np.random.Generator) -> np.ndarray:
    """Per row of masked ``logits`` (``-inf`` on illegal actions): the most probable action, or
    one sampled from the softmax with ``rng`` (what trained policies share)."""
    if deterministic:
        return logits.argmax(axis=-1)
    z = np.exp(np.asarray(logits, dtype=np.float64) - logits.max(axis=-1, keepdims=True))
    c = z.cumsum(axis=-1)
    # the first action whose cumulative weight exceeds u in [0, total): never a zero-weight
    # (illegal) action, also where rounding leaves the normalized sum a hair below 1
    u = rng.random((c.shape[0], 1)) * c[:, -1:]
    return (c <= u).sum(axis=-1)


def lowest_legal(mask: np.ndarray) -> np.ndarray:
    """The lowest legal action index of every row of ``mask`` (a row without one raises)."""
    mask = np.asarray(mask).astype(bool)
    none = ~mask.any(axis=1)
    if none.any():
        raise ValueError(f"no legal action in row {int(np.argmax(none))} of the batch's action_mask")
    return mask.argmax(axis=1).astype(np.int64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class RandomPolicy(Policy):
    """Uniform over the legal actions."""

    name = "random"

    def act(self, obs: dict[str, np.ndarray], engine: Engine | None = None) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) == 0:
            raise ValueError("no legal action in the observation's action_mask")
        return int(legal[self.rng.integers(len(legal))])

    def act_batch(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        mask = np.asarray(obs["action_mask"], dtype=np.float64)
        u = self.rng.random(mask.shape) * mask  # argmax of uniform noise on legal entries
        u[mask == 0] = -1.0
        return u.argmax(axis=1)


def game_of(engine: Engine) -> str:
    return engine.NAME


AgentSpec = Any  # a name like "heuristic" or "ppo:runs/x/model.zip", or a Policy instance
