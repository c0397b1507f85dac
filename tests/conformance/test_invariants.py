"""Invariants of random play that hold for every game, checked through the AEC env at every turn.

At every turn: the views are well formed (``probes.check_views``: the mask is exactly
``legal_actions()``, ``unseen`` is 0/1 inside the deck and 0 outside it, observations have the
spaces' dtype and shape). At the end of every episode: the returns sum to 0 where the game says it
is zero-sum, each lies within ``facts.utility_bounds``, no seat decided more often than
``facts.max_decisions``, the rewards an agent saw through ``last()`` add up to what the engine paid
it, and every agent has its final ``infos``. At random states every kind of bad action is refused
with ``IllegalActionError`` and changes nothing. A stacked deck and dealer fix the deal whatever
the seed; unseeded resets continue the seeded stream (the same in two envs, new deals each time).
Action names round-trip; a clone is identical to its original and independent of it.
"""

from __future__ import annotations

import numpy as np
import pytest

from .games import conformance_cases
from .probes import (
    bad_actions,
    check_bad_action,
    check_views,
    engine_state,
    good_deck,
    play_episode,
    random_legal,
    snapshot,
)

CASES = conformance_cases()
IDS = [c.id for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_random_play_keeps_every_invariant(case):
    env = case.env()
    rng = np.random.default_rng(case.seed)
    episodes = 3 if case.long else 12
    for k in range(episodes):  # one seeded session: what carries from episode to episode carries
        ep = play_episode(env, rng, on_step=check_views, seed=case.seed if k == 0 else None)
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


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_stacked_deck_and_dealer_fix_the_deal_whatever_the_seed(case):
    env, game = case.env(), case.game()
    rng = np.random.default_rng(case.seed)
    deals = set()
    for k in range(3):
        options = {"deck": good_deck(game, rng), "dealer": int(rng.integers(game.num_players))}
        env.reset(seed=k, options=options)
        first = snapshot(env)
        env.reset(seed=100 + k, options=options)
        again = snapshot(env)
        for key in ("observation", "action_mask", "unseen", "locations", "current_player"):
            assert np.array_equal(first[key], again[key]), f"{key} of a stacked deal depends on the seed"
        deals.add(first["locations"].tobytes())
    assert len(deals) > 1, "three different stacked decks dealt the same cards"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_an_unseeded_reset_continues_the_stream(case):
    a, b = case.env(), case.env()

    def starts(env) -> list[bytes]:
        env.reset(seed=case.seed)
        out = []
        for _ in range(4):
            out.append(snapshot(env)["locations"].tobytes() + snapshot(env)["observation"].tobytes())
            env.reset()
        return out

    first, second = starts(a), starts(b)
    assert first == second, "the same seed, then unseeded resets, dealt different episodes"
    assert len(set(first)) > 1, "unseeded resets deal the same episode again"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_action_names_round_trip(case):
    env = case.raw_env()
    names = [env.action_to_string(a) for a in range(env.game.num_actions)]
    assert len(set(names)) == len(names), "two actions share a name"
    for a, name in enumerate(names):
        assert env.action_from_string(name) == a and env.action_from_string(f" {name.upper()} ") == a
    for bad in (-1, env.game.num_actions, 1.0, True, None):
        with pytest.raises(ValueError):
            env.action_to_string(bad)
    with pytest.raises(ValueError):
        env.action_from_string("no such action")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_clone_is_identical_and_independent(case):
    game = case.game()
    rng = np.random.default_rng(case.seed)
    e = game.new_state()
    e.new_episode(rng)
    for _ in range(int(rng.integers(0, 15))):
        if e.terminal or e.truncated:
            break
        e.step(random_legal(rng, e.legal_mask()))
    before = engine_state(e)
    c = e.clone()
    assert c is not e
    differ = [k for k, v in engine_state(c).items() if before.get(k) != v]
    assert not differ and set(engine_state(c)) == set(before), f"the clone differs in {differ}"
    actions = np.random.default_rng(case.seed + 1)
    steps = 0
    while not (c.terminal or c.truncated) and steps < 20_000:  # the clone plays on alone…
        c.step(random_legal(actions, c.legal_mask()))
        steps += 1
    changed = [k for k, v in engine_state(e).items() if before.get(k) != v]
    assert not changed, f"playing the clone changed the original's {changed}"
    d = e.clone()  # …and two clones given the same actions (and the same future deals) agree
    actions = np.random.default_rng(case.seed + 1)
    for _ in range(steps):
        d.step(random_legal(actions, d.legal_mask()))
    assert d.history == c.history and list(d.rewards) == list(c.rewards)
    for seat in range(e.num_players):
        assert np.array_equal(d.observe(seat), c.observe(seat)) and np.array_equal(d.unseen(seat), c.unseen(seat))
