"""What every batched engine shares: per-lane random streams and the per-lane illegal-action error.

A lane's stream depends only on the batch seed and the lane index, never on the batch
size, so lane ``i`` of a batch of 8 replays lane ``i`` of a batch of 4096 exactly (the
differential tests rely on it).
"""

from __future__ import annotations

import numpy as np

from .errors import IllegalActionError


def lane_rng(seed: int | None, lane: int) -> np.random.Generator:
    """The generator of lane ``lane`` for a batch built with ``seed`` (independent of B)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(lane),)))


class BatchedIllegalActionError(IllegalActionError):
    """An illegal action in one lane of a batched step; no lane was changed."""

    def __init__(self, lane: int, agent: str, action: object, legal: list[str]):
        self.lane = lane
        super().__init__(agent, action, legal)
        self.args = (f"lane {lane}: {self.args[0]}",)
