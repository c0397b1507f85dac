"""heuristic_v0 for Femkortskille: legal, deterministic, sensible in worked spots, better than random."""

from __future__ import annotations

import numpy as np
import pytest
from kortmiljo.agents.base import RandomPolicy
from kortmiljo.agents.femkortskille_heuristic import FemkortskilleHeuristic, p_win, trick_winner
from kortmiljo.agents.registry import make_agent

from kortmiljo import femkortskille_v0
from kortmiljo.games.femkortskille import FemkortskilleEngine

from .conftest import deal, play

CONFIGS = [
    {},
    {"num_players": 3},
    {"num_players": 8},
    {"skituppslag": True},
    {"knock_stake": 1},
    {"payments_stay": True},
    {"auktion": True},
    {"poker": True},
    {"poker": True, "num_players": 6, "auktion": True, "skituppslag": True, "payments_stay": True},
]


def observation(e: FemkortskilleEngine, seat: int) -> dict:
    mask = e.legal_mask() if seat == e.current_player else np.zeros(len(e.action_names), np.int8)
    return {"observation": e.observe(seat), "action_mask": mask, "unseen": e.unseen(seat)}


def run(config: dict, seeds, hero: int | None = None, hero_cls=FemkortskilleHeuristic) -> tuple[list[float], list]:
    """Episodes with the heuristic in every seat (hero None) or in seat ``hero`` against random.

    Returns the hero's (or seat 0's) chips per episode and every (seat, action) taken."""
    env = femkortskille_v0.env(**config)
    eng = env.unwrapped.engine
    n = eng.num_players
    chips, actions = [], []
    for seed in seeds:
        pols = [
            hero_cls(eng, seed=seed) if hero is None or s == hero else RandomPolicy(eng, seed=1000 * seed + s)
            for s in range(n)
        ]
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(agent.split("_")[1])
            a = pols[seat].act(obs)
            assert obs["action_mask"][a] == 1, (agent, env.unwrapped.action_to_string(a))
            actions.append((seat, a))
            env.step(a)
        chips.append(env.unwrapped.engine.net[0 if hero is None else hero])
    return chips, actions


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_only_legal_actions_in_every_variant(config):
    run(config, range(40 if FemkortskilleEngine(**config).num_players <= 4 else 12))  # heuristic in every seat
    run(config, range(10), hero=1)  # and among random players


def test_deterministic_given_seed_and_independent_of_the_cache():
    config = {"poker": True, "knock_stake": 1}
    a = run(config, range(20))[1]
    p_win.cache_clear()
    b = run(config, range(20))[1]
    assert a == b


def test_registered_and_acts_from_the_observation_alone():
    agent = make_agent("heuristic", "femkortskille", {"num_players": 5}, seed=3)
    assert isinstance(agent, FemkortskilleHeuristic)
    e = FemkortskilleEngine(num_players=5)
    e.new_episode(np.random.default_rng(0))
    assert e.action_names[agent.act(observation(e, e.current_player))] == "lura"


# ---- worked spots ------------------------------------------------------------------------
def test_waits_when_lura_is_legal_and_the_last_to_decide_alone_knocks():
    e = deal()
    h = FemkortskilleHeuristic(e, seed=0)
    assert e.action_names[h.act(observation(e, 0))] == "lura"
    play(e, "lura", "pass", "pass", "pass")
    # seat 0 decides last with no knock: the pot is free
    assert e.action_names[h.act(observation(e, 0))] == "knock"


def test_knocks_a_strong_hand_and_passes_a_weak_one_after_a_knock():
    hands = {0: ["kille", "kuku", "husar"], 1: ["1", "2", "3"], 2: ["6", "7", "8"], 3: ["9", "10", "11"]}
    e = deal(hands=hands)
    h = FemkortskilleHeuristic(e, seed=0)
    play(e, "lura", "knock")
    assert e.current_player == 2
    assert e.action_names[h.act(observation(e, 2))] == "pass"  # a weak hand against a knocker
    play(e, "pass", "pass")
    assert e.action_names[h.act(observation(e, 0))] == "knock"  # kille, kuku, husar


def test_plays_the_lowest_card_that_beats_and_keeps_the_top_card_for_the_fifth_trick():
    hands = {0: ["kille", "6", "7"], 1: ["5", "5", "12"], 2: ["1", "10", "husar"], 3: ["9", "11", "12"]}
    e = deal(hands=hands, stock=["8", "9", "3", "4"])
    h = FemkortskilleHeuristic(e, seed=0)
    play(e, "knock", "pass", "knock", "pass")
    assert e.action_names[h.act(observation(e, 0))] == "play:6"  # leads its lowest
    play(e, "play:6")
    assert e.action_names[h.act(observation(e, 2))] == "play:10"  # the lowest card that beats, not the husar
    while not e.terminal:
        e.step(h.act(observation(e, e.current_player)))
    assert e.played[0][-1] >> 1 == 20 and e.net[0] == 7  # the kille was kept and won the fifth trick


def test_shows_a_skituppslag():
    hands = {0: ["blaren", "kransen", "blompotta"], 1: ["6", "7", "8"], 2: ["5", "11", "husar"], 3: ["9", "10", "12"]}
    e = deal(hands=hands, skituppslag=True)
    assert e.action_names[FemkortskilleHeuristic(e).act(observation(e, 0))] == "show"


def test_poker_discards_low_cards_and_folds_a_hopeless_hand():
    hands = {0: ["kille", "kuku", "husar"], 1: ["1", "2", "3"], 2: ["6", "7", "8"], 3: ["9", "10", "11"]}
    e = deal(hands=hands, stock=["husu", "kavall", "4", "5"], poker=True)
    h = FemkortskilleHeuristic(e, seed=0)
    play(e, "knock", "knock", "pass", "pass", "done")
    names = []
    while e.current_player == 1 and e.phase == 2:
        a = h.act(observation(e, 1))
        names.append(e.action_names[a])
        e.step(a)
    assert names == ["discard:1", "discard:2", "discard:3", "done"]
    play(e, "bet")  # seat 0 bets with kille, kuku, husar, husu, kavall
    if max(c >> 1 for c in e.hands[1]) < 19:  # without a kuku or kille seat 1 has almost no chance
        assert e.action_names[h.act(observation(e, 1))] == "fold"


def test_trick_model_matches_the_engine_for_lowest_card_play():
    rng = np.random.default_rng(0)
    for _ in range(200):
        e = FemkortskilleEngine(num_players=4)
        e.new_episode(rng)
        while e.phase < 4 and not e.terminal and not e.truncated:
            e.step(e.action_from_string("knock" if 0 in e.legal_actions() else "pass"))
        if e.phase != 4:
            continue
        hands = [sorted(c >> 1 for c in e.hands[s]) for s in e.in_play]
        while not e.terminal:
            e.step(e.legal_actions()[0])
        assert e.in_play[trick_winner(hands)] == e.winner


# ---- strength -------------------------------------------------------------------------------
def rotated(config: dict, seeds, hero_cls=FemkortskilleHeuristic) -> np.ndarray:
    """The hero's chips per episode, one hero against random players, every seat in turn on the same deals."""
    n = FemkortskilleEngine(**config).num_players
    return np.array([c for hero in range(n) for c in run(config, seeds, hero, hero_cls)[0]], dtype=float)


@pytest.mark.parametrize(
    "config, margin",
    [({}, 1.0), ({"knock_stake": 1}, 1.0), ({"auktion": True}, 3.0), ({"poker": True}, 2.0)],
    ids=["default", "knock_stake", "auktion", "poker"],
)
def test_beats_random_players(config, margin):
    chips = rotated(config, range(75))  # 300 episodes, seats rotated
    # zero-sum: a random player in the hero's seat averages 0 (measured mean ≈ +2.7 in the default)
    assert chips.mean() > margin, chips.mean()


def test_beats_random_players_with_payments_staying():
    config = {"payments_stay": True}
    hero, baseline = rotated(config, range(75)), rotated(config, range(75), RandomPolicy)
    assert hero.mean() > baseline.mean() + 0.5, (hero.mean(), baseline.mean())
