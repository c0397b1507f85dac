"""Invariants of random play that hold for every game, checked through the AEC env at every turn.

At every turn: the views are well formed (``probes.check_views``: the mask is exactly
``legal_actions()``, ``unseen`` is 0/1 inside the deck and 0 outside it, observations have the
spaces' dtype and shape). At the end of every episode: the returns sum to 0 where the game says it
is zero-sum, each lies within ``facts.utility_bounds``, no seat decided more often than
``facts.max_decisions``, the rewards an agent saw through ``last()`` add up to what the engine paid
it, and every agent has its final ``infos``. At random states every kind of bad action is refused
with ``IllegalActionError`` and changes nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

from .games import conformance_cases
from .probes import bad_actions, check_bad_action, check_views, play_episode, random_legal, snapshot

CASES = conformance_cases()
IDS = [c.id for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_random_play_keeps_every_invariant(case):
    env = case.env()
    rng = np.random.default_rng(case.seed)
    episodes = 3 if case.long else 12
    for k in range(episodes):
        ep = play_episode(env, rng, on_step=check_views, seed=case.seed + k)
        ep.check_end(env)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_bad_action_is_refused_and_changes_nothing(case):
    env = case.env()
    rng = np.random.default_rng(case.seed)
    env.reset(seed=case.seed)
    checked = 0
    for turn in range(300):
        e = env.unwrapped.engine
        if e.terminal or e.truncated:
            env.reset()
            continue
        if turn % 10 == 0:  # a spread of states, each probed with every kind of bad action
            before = snapshot(env)
            for label, action in bad_actions(e, rng):
                check_bad_action(env, label, action, before)
            checked += 1
        env.step(random_legal(rng, e.legal_mask()))
    assert checked >= 15
