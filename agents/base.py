"""What agents share: the policy protocol (from :mod:`kortmiljo.core.policy`) and batch helpers.

A policy maps one agent's own observation (the env's dict with ``observation``,
``action_mask`` and ``unseen``) to a legal action index, for a configured game. It owns a
seeded RNG so that results are reproducible and independent of the global RNGs. Policies
that search (``needs_engine = True``) also receive the live state, and may only call
``state.resample(seat, rng)`` on it (tests check that their decisions do not depend on the
hidden cards).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from kortmiljo.core.policy import Policy, RandomPolicy, row

__all__ = [
    "AgentSpec",
    "Heuristic",
    "Policy",
    "RandomPolicy",
    "TimedPolicy",
    "choose_from_logits",
    "lowest_legal",
    "row",
]

# Search settings of a game without its own (see agents/search.py): a few worlds, a two-error gate.
GENERIC_SEARCH = {"worlds": 8, "step_budget": None, "max_worlds": 8, "confidence": 2.0}


class Heuristic(Policy):
    """A scripted baseline, with what search (``agents/search.py``) needs of its rollout policy.

    A game's heuristic overrides what it can do better than these defaults: per-stage search
    settings and the stage of a decision, a fast ``act_seat`` read from a state, a belief
    (``sample_world``, ``world_weight``) and batched rollouts.
    """

    search_settings: dict[str, dict] = {"*": GENERIC_SEARCH}
    stages: dict[str, str] = {}  # action name (the part before ":") -> decision stage
    last_steps = 0  # row-steps the last rollout_batch played (what a search spends)

    def stage_of(self, action_names: list[str]) -> str:
        """The decision stage (a key of ``search_settings``) of a decision with these legal actions:
        the stage of the first action whose name (before ``:``, or ``bet:`` for a sized bet) is in
        ``stages``; ``"*"`` otherwise."""
        for name in action_names:
            head, sep, _ = name.partition(":")
            key = head + sep if head + sep in self.stages else head
            if key in self.stages:
                return self.stages[key]
        return "*"

    def act_seat(self, state: Any, seat: int) -> int:
        """The decision of :meth:`act` for the seat on move of ``state`` (a search rollout's step)."""
        return self.act(state.observation(seat))

    def sample_world(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        """A world consistent with what ``seat`` knows: by default the uniform ``resample``."""
        return state.resample(seat, rng)

    def world_weight(self, world: Any, seat: int) -> float:
        """How likely the others' play so far is in ``world`` (importance weight; default 1)."""
        return 1.0

    def rollout_batch(self, states: list, seat: int, first_actions: list[int], score: str = "reward"):
        """Many rollouts at once, or None where the heuristic has no batched form (the default)."""
        return None


class RandomRollout(Heuristic, RandomPolicy):
    """Uniform random play as a rollout policy, for games without a heuristic."""


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


AgentSpec = Any  # a name like "heuristic" or "ppo:runs/x/model.zip", or a Policy instance


class TimedPolicy(Policy):
    """Delegates to a policy and sums the CPU time of its decisions with more than one legal
    action (the ones that cost anything): for benchmarks that report milliseconds per decision."""

    def __init__(self, inner: Policy, name: str | None = None):
        super().__init__(inner.game, None)
        self.inner, self.name, self.needs_engine = inner, name or inner.name, inner.needs_engine
        self.cpu, self.decisions = 0.0, 0

    def seed(self, seed: int | None = None) -> None:
        if hasattr(self, "inner"):  # Policy.__init__ seeds before ``inner`` is set: leave its stream alone then
            self.inner.seed(seed)

    def act(self, obs: dict[str, np.ndarray], engine: Any | None = None) -> int:
        if obs["action_mask"].sum() <= 1:
            return self.inner.act(obs, engine)
        t = time.process_time()
        a = self.inner.act(obs, engine)
        self.cpu += time.process_time() - t
        self.decisions += 1
        return a

    def ms_per_decision(self) -> float:
        return 1000 * self.cpu / max(self.decisions, 1)
