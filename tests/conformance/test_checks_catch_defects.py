"""The conformance checks can fail: each one is run on a toy game with one planted defect.

The mutants are unregistered descriptors built from the toy game's classes, so they never reach
the registry (and so no other test sees them).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kortmiljo.core.engine import Engine
from kortmiljo.core.game import Facts
from kortmiljo.env.aec import CardGameEnv, OrderEnforcing
from tests.toygame import GAME as TOY
from tests.toygame.batched import BatchedToy
from tests.toygame.engine import ToyEngine
from tests.toygame.game import ToyGame

from . import test_batched, test_resample
from .games import Case
from .probes import bad_actions, check_bad_action, check_views, play_episode


def _mutant(**fields) -> Case:
    return Case(dataclasses.replace(TOY, name="toy_mutant", **fields), {}, 0)


def _env(case: Case):
    return OrderEnforcing(CardGameEnv(case.game()))


class DrawsBeforeChecking(ToyEngine):
    def step(self, action):
        self.rng.random()  # a refused action must not advance the random stream
        Engine.step(self, action)


class MaskForEveryone(ToyEngine):
    def observation(self, seat):
        obs = super().observation(seat)
        obs["action_mask"] = self.legal_mask()
        return obs


class OptimisticBounds(ToyGame):
    def compute_facts(self) -> Facts:
        return dataclasses.replace(super().compute_facts(), utility_bounds=(-0.5, 0.5))


class PeekingResample(ToyEngine):
    def resample(self, seat, rng):
        new = super().resample(seat, rng)
        new.cards[seat], new.stock[0] = new.stock[0], new.cards[seat]  # the seat's own card moves
        return new


class DriftingBatch(BatchedToy):
    def observe(self, seats=None, lanes=None):
        obs = super().observe(seats, lanes)
        obs[:, self.o_staked][self.stage[self._lanes(lanes)] == 2] += 0.5  # wrong once a bet is out
        return obs


def test_a_refused_action_that_advances_the_rng_is_caught():
    env = _env(_mutant(engine=DrawsBeforeChecking))
    env.reset(seed=0)
    label, action = bad_actions(env.unwrapped.engine, np.random.default_rng(0))[0]
    with pytest.raises(AssertionError, match="engine_rng"):
        check_bad_action(env, label, action)


def test_a_mask_shown_to_a_seat_not_on_move_is_caught():
    env = _env(_mutant(engine=MaskForEveryone))
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="not on move"):
        check_views(env)


def test_utility_bounds_that_play_exceeds_are_caught():
    env = _env(_mutant(game=OptimisticBounds))
    with pytest.raises(AssertionError, match="utility_bounds"):
        for seed in range(20):
            play_episode(env, np.random.default_rng(seed), seed=seed).check_end(env)


def test_a_resample_that_moves_the_seats_own_card_is_caught():
    with pytest.raises(AssertionError, match="observation changed|unseen changed"):
        test_resample.test_resample_is_invisible_to_its_seat(_mutant(engine=PeekingResample))


def test_a_batched_engine_that_drifts_from_the_scalar_one_is_caught():
    with pytest.raises(AssertionError, match="observation"):
        test_batched.test_seeded_lanes_with_autoreset_replay_scalar_engines(_mutant(batched=DriftingBatch))
