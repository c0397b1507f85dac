"""The self-play opponent pool: baselines mixed with frozen snapshots of the learner.

Each episode, each opponent seat of :class:`kortmiljo.env.training.SingleSeatEnv` asks
``pool.sample(rng)`` (with the env's own RNG) for a policy. With probability
``self_play_prob`` (once the pool holds a snapshot) it gets a frozen learner snapshot,
else a baseline, uniformly. Snapshots are drawn uniformly among the ``max_snapshots``
most recent; older ones are dropped. Snapshots sample from their own policy (not
greedy), so the learner meets varied play.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from kortmiljo.agents.base import Policy

from kortmiljo.core.game import Game, as_game


class OpponentPool:
    def __init__(
        self,
        game: Game,
        baselines: list[Policy],
        self_play_prob: float = 0.0,
        max_snapshots: int = 20,
        include_unseen: bool = True,
        privileged_size: int = 0,
    ):
        if not baselines and self_play_prob < 1.0:
            raise ValueError("the opponent pool needs at least one baseline unless --self-play-prob is 1")
        self.game = as_game(game)
        self.baselines = list(baselines)
        self.self_play_prob = float(self_play_prob)
        self.max_snapshots = int(max_snapshots)
        self.include_unseen = include_unseen
        self.privileged_size = privileged_size
        self.snapshots: list[Policy] = []
        self.snapshot_names: list[str] = []
        self.counts: dict[str, int] = {}

    def sample(self, rng: np.random.Generator) -> Policy:
        if self.snapshots and (not self.baselines or rng.random() < self.self_play_prob):
            pol = self.snapshots[int(rng.integers(len(self.snapshots)))]
            key = "self"
        else:
            pol = self.baselines[int(rng.integers(len(self.baselines)))]
            key = pol.name
        self.counts[key] = self.counts.get(key, 0) + 1
        return pol

    def members(self) -> list[Policy]:
        return self.baselines + self.snapshots

    def add_snapshot(self, sb3_policy: Any, name: str, seed: int | None = None) -> None:
        """Freeze a copy of an SB3 policy network as an opponent."""
        from kortmiljo.agents.trained import PPOPolicy, clone_policy

        net = clone_policy(sb3_policy)
        pol = PPOPolicy(
            self.game,
            net,
            seed=seed,
            deterministic=False,
            include_unseen=self.include_unseen,
            name=name,
            privileged_size=self.privileged_size,
        )
        self.snapshots.append(pol)
        self.snapshot_names.append(name)
        if len(self.snapshots) > self.max_snapshots:
            self.snapshots.pop(0)
            self.snapshot_names.pop(0)
