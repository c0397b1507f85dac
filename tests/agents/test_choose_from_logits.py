"""Sampling from masked logits (trained policies, snapshots in the opponent pool): never an
illegal action, whatever the uniform draw, and the softmax's frequencies otherwise."""

from __future__ import annotations

import numpy as np
from kortmiljo.agents.base import choose_from_logits


class _Fixed:
    """A generator stand-in whose draws are all ``value``."""

    def __init__(self, value: float):
        self.value = value

    def random(self, shape):
        return np.full(shape, self.value)


def _masked(rows: int, actions: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 3, (rows, actions)).astype(np.float32)  # float32, as the networks give them
    mask = rng.random((rows, actions)) < 0.4
    mask[np.arange(rows), rng.integers(actions, size=rows)] = True
    mask[:, 0] = mask[:, -1] = False  # the first and the last action illegal: the edge cases
    mask[0, 1] = True
    return np.where(mask, logits, -np.inf)


def test_extreme_draws_pick_legal_actions():
    logits = _masked(5000, 24, seed=0)
    legal = np.isfinite(logits)
    largest_below_one = np.nextafter(1.0, 0.0)  # beyond float32 rounding of the softmax's total
    for u in (0.0, largest_below_one):
        a = choose_from_logits(logits, False, _Fixed(u))
        assert legal[np.arange(len(a)), a].all()
    first_legal, last_legal = legal.argmax(axis=1), 23 - legal[:, ::-1].argmax(axis=1)
    assert (choose_from_logits(logits, False, _Fixed(0.0)) == first_legal).all()
    assert (choose_from_logits(logits, False, _Fixed(largest_below_one)) == last_legal).all()


def test_samples_follow_the_softmax():
    row = _masked(1, 24, seed=3)[0]
    rows = 60_000
    a = choose_from_logits(np.repeat(row[None], rows, axis=0), False, np.random.default_rng(0))
    z = np.exp(row - row.max())
    want = z / z.sum()
    got = np.bincount(a, minlength=24) / rows
    tol = 4 * np.sqrt(want * (1 - want) / rows) + 1e-12  # four binomial standard errors
    assert np.all(np.abs(got - want) <= tol), (got, want)
    assert (choose_from_logits(row[None], True, np.random.default_rng(0)) == row.argmax()).all()
