"""Agents: legal play in every game and configuration, determinism, strength, and that
search never reads hidden information."""

from __future__ import annotations

import numpy as np
import pytest
from kortmiljo.agents.base import RandomPolicy
from kortmiljo.agents.registry import available_agents, make_agent
from kortmiljo.agents.search import SearchPolicy

from kortmiljo import load_game

from .common import CONFIGS, GAME_CONFIGS, GAMES, config_id, play_engine

# episodes per configuration in the quick run: slow heuristics get fewer
EPISODES = {"spokelse": 200, "sproyte": 100, "femkortskille": 40}


@pytest.mark.parametrize(("game", "config"), GAME_CONFIGS, ids=config_id)
@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_agents_only_pick_legal_actions(game, config, agent):
    # every seat by this agent; play_engine asserts each choice against the mask
    k = EPISODES[game] if config == CONFIGS[game][0] else EPISODES[game] // 4
    policies = [make_agent(agent, game, config, seed=s) for s in range(3)]
    for ep in range(k):
        play_engine(game, config, policies, seed=ep)


@pytest.mark.parametrize(("game", "config"), GAME_CONFIGS, ids=config_id)
def test_search_picks_legal_actions(game, config):
    e = load_game(game, **config).new_state()
    e.new_episode(np.random.default_rng(3))
    search = make_agent("search", game, config, seed=1, worlds=1 if game == "femkortskille" else 2)
    heur = make_agent("heuristic", game, config, seed=1)
    decisions = 0
    while not (e.terminal or e.truncated) and decisions < 4:
        s = e.current_player
        obs = e.observation(s)
        a = search.act(obs, e)
        assert obs["action_mask"][a] == 1
        decisions += int(obs["action_mask"].sum() > 1)
        e.step(heur.act(obs))


def test_every_game_has_every_agent():
    for game in GAMES:
        assert {"heuristic_v0", "search_v0"} <= set(available_agents(game)), game
        for name in ("random", "heuristic", "search"):
            p = make_agent(name, game, seed=0)
            assert p.needs_engine == (name == "search")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("agent", ["random", "heuristic", "search"])
def test_agents_are_deterministic_given_their_seed(game, agent):
    kw = {"worlds": 2} if agent == "search" else {}
    runs = []
    for _ in range(2):
        np.random.seed(123 + len(runs))  # the global RNGs must not matter
        e = load_game(game).new_state()
        e.new_episode(np.random.default_rng(5))
        p = make_agent(agent, game, seed=11, **kw)
        other = make_agent("heuristic", game, seed=0)
        chosen = []
        while not (e.terminal or e.truncated) and len(chosen) < (6 if agent == "search" else 12):
            obs = e.observation(e.current_player)
            a = p.act(obs, e if p.needs_engine else None)
            chosen.append(a)
            e.step(a if len(chosen) % 2 else other.act(obs))
        runs.append(chosen)
    assert runs[0] == runs[1]


def test_random_batch_is_legal():
    p = RandomPolicy(load_game("spokelse").new_state(), seed=0)
    mask = np.zeros((50, 7), dtype=np.int8)
    mask[:, [2, 4]] = 1
    acts = p.act_batch({"action_mask": mask, "observation": np.zeros((50, 3)), "unseen": np.zeros((50, 52))})
    assert set(acts.tolist()) <= {2, 4}


# ---- the Spøkelse heuristic's speed paths decide exactly like act -------------------------


@pytest.mark.parametrize("config", CONFIGS["spokelse"], ids=config_id)
def test_spokelse_heuristic_fast_paths_equal_act(config):
    e = load_game("spokelse", **config).new_state()
    h = make_agent("heuristic", "spokelse", config)
    rng = np.random.default_rng(1)
    states, firsts = [], []
    for _ in range(8):
        e.new_episode(rng)
        while not e.terminal:
            s = e.current_player
            obs = e.observation(s)
            a = h.act(obs)
            assert a == h.act_seat(e, s)
            if rng.random() < 0.25:
                states.append(e.clone())
                firsts.append(int(rng.choice(e.legal_actions())))
            e.step(a)
    if config.get("match_to"):
        assert h.rollout_batch(states, 0, firsts) is None  # matches roll out one by one
        return
    for seat in range(e.num_players):
        idx = [i for i, st in enumerate(states) if st.current_player == seat]
        got = h.rollout_batch([states[i] for i in idx], seat, [firsts[i] for i in idx])
        for j, i in enumerate(idx):
            sim = states[i].clone()
            sim.step(firsts[i])
            total = sim.rewards[seat]
            while not sim.terminal:
                sim.step(h.act_seat(sim, sim.current_player))
                total += sim.rewards[seat]
            assert got[j] == total


@pytest.mark.parametrize("game", ["sproyte", "femkortskille"])
def test_heuristic_act_batch_rejects_a_row_without_legal_actions(game):
    h = make_agent("heuristic", game)
    e = load_game(game).new_state()
    e.new_episode(np.random.default_rng(0))
    obs = e.observation(e.current_player)
    batch = {k: np.stack([v, v]) for k, v in obs.items()}
    batch["action_mask"][1] = 0
    with pytest.raises(ValueError, match="row 1"):
        h.act_batch(batch)


@pytest.mark.parametrize(("game", "config"), GAME_CONFIGS, ids=config_id)
def test_heuristic_act_batch_equals_act(game, config):
    """The batch path (the native vector env's opponents) decides exactly like ``act``, also
    in odd states (random moves mixed in: in Spøkelse an empty pile, unknown slots late)."""
    e = load_game(game, **config).new_state()
    h = make_agent("heuristic", game, config)
    rng = np.random.default_rng(2)
    obs_rows = []
    for _ in range(12 if game == "spokelse" else 4):
        e.new_episode(rng)
        while not (e.terminal or e.truncated):
            obs = e.observation(e.current_player)
            obs_rows.append(obs)
            e.step(h.act(obs) if rng.random() < 0.7 else int(rng.choice(e.legal_actions())))
    batch = {k: np.stack([o[k] for o in obs_rows]) for k in obs_rows[0]}
    got = h.act_batch(batch)
    assert got.dtype == np.int64 and got.shape == (len(obs_rows),)
    assert got.tolist() == [h.act(o) for o in obs_rows]


# ---- search never uses hidden information --------------------------------------------------


class OnlyResample:
    """An engine stand-in that offers search nothing but the public seat on move and
    ``resample``: any other attribute read fails the test."""

    def __init__(self, engine):
        self._engine = engine

    @property
    def current_player(self):
        return self._engine.current_player

    def resample(self, seat, rng):
        return self._engine.resample(seat, rng)

    def __getattr__(self, name):
        raise AssertionError(f"search read engine.{name}, which may carry hidden information")


def _decision_states(game, config, count, seed=0):
    e = load_game(game, **config).new_state()
    e.new_episode(np.random.default_rng(seed))
    heur = make_agent("heuristic", game, config, seed=0)
    rng = np.random.default_rng(seed)
    out = []
    while not (e.terminal or e.truncated) and len(out) < count:
        obs = e.observation(e.current_player)
        if obs["action_mask"].sum() > 1 and rng.random() < 0.5:
            out.append(e.clone())
        e.step(heur.act(obs))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_search_reads_the_engine_only_through_resample(game):
    for st in _decision_states(game, {}, 3):
        obs = st.observation(st.current_player)
        a = make_agent("search", game, seed=4, worlds=3).act(obs, OnlyResample(st))
        assert a == make_agent("search", game, seed=4, worlds=3).act(obs, st)


def _canonical_resample(game, state) -> bool:
    """Whether ``resample`` depends only on what the seat knows and the rng (not on where
    the hidden cards really lie): then exact invariance can be tested with a fixed seed."""
    seat = state.current_player
    a = state.resample(seat, np.random.default_rng(5)).locations()
    b = state.resample(seat, np.random.default_rng(6)).resample(seat, np.random.default_rng(5)).locations()
    return bool(np.array_equal(a, b))


INVARIANCE_CASES = [("spokelse", c) for c in CONFIGS["spokelse"][:3]] + [(g, {}) for g in GAMES if g != "spokelse"]


@pytest.mark.parametrize(("game", "config"), INVARIANCE_CASES, ids=config_id)
def test_search_decision_unchanged_when_the_hidden_cards_are_resampled(game, config):
    # With a canonical resample and a fixed own seed the search must see the same worlds,
    # hence the same scores and action, whichever way the cards it cannot see really lie.
    states = _decision_states(game, config, 6 if game == "spokelse" else 2, seed=2)
    if not _canonical_resample(game, states[0]):
        pytest.skip(
            f"{game}: resample is not canonical (sort the hidden cards before redealing); "
            "test_search_reads_the_engine_only_through_resample covers it"
        )
    worlds = 12 if game == "spokelse" else 2
    for st in states:
        seat = st.current_player
        obs = st.observation(seat)
        base = make_agent("search", game, config, seed=9, worlds=worlds)
        a0 = base.act(obs, st)
        for k in range(4 if game == "spokelse" else 2):
            other = st.resample(seat, np.random.default_rng(1000 + k))
            assert np.array_equal(other.observation(seat)["observation"], obs["observation"])
            if k == 0:
                assert (other.locations() != st.locations()).any()  # the hidden cards really moved
            s = make_agent("search", game, config, seed=9, worlds=worlds)
            assert s.act(obs, other) == a0
            assert s.last_scores == base.last_scores


def test_search_single_legal_action_needs_no_engine():
    p = make_agent("search", "spokelse", seed=0)
    mask = np.zeros(7, dtype=np.int8)
    mask[3] = 1
    assert p.act({"observation": None, "action_mask": mask, "unseen": None}, None) == 3


def test_search_options():
    p = make_agent("search", "spokelse", seed=0, worlds=5, rollouts=2)
    assert isinstance(p, SearchPolicy) and (p.worlds, p.rollouts) == (5, 2)
    with pytest.raises(ValueError):
        make_agent("search", "spokelse", seed=0, worlds=0)
    with pytest.raises(ValueError):
        make_agent("search", "spokelse", seed=0, tie_break="coin")


# ---- strength on fixed duplicate deals ---------------------------------------------------


def duplicate_mean(game, a, b, deals, config=None, seed=0, akw=None, bkw=None):
    """Mean reward of ``a`` against ``b`` per deal, each deal played in every rotation
    (``a`` in one seat, ``b`` in the others); returns the per-deal means."""
    config = config or {}
    e = load_game(game, **config).new_state()
    n = e.num_players
    pa = make_agent(a, game, config, seed=1, **(akw or {}))
    pb = make_agent(b, game, config, seed=2, **(bkw or {}))
    rng = np.random.default_rng(seed)
    means = []
    for d in range(deals):
        deck = [e.deck.code(c) for c in rng.permutation(np.asarray(e.deck.cards))]
        dealer = int(rng.integers(n))
        got = []
        for r in range(n):  # a takes each seat once, b the others
            pols = [pa if i == r else pb for i in range(n)]
            rew = play_engine(game, config, pols, seed=d, deck=deck, dealer=dealer)
            got.append(rew[r])
        means.append(float(np.mean(got)))
    return np.array(means)


def test_spokelse_heuristic_beats_random():
    m = duplicate_mean("spokelse", "heuristic", "random", deals=40)
    # measured: +0.98 per game over 2000 games (99 % wins); loose bound for a small sample
    assert m.mean() > 0.85


@pytest.mark.parametrize("game", [g for g in GAMES if g != "spokelse"])
def test_other_heuristics_beat_random(game):
    m = duplicate_mean(game, "heuristic", "random", deals=8)
    assert m.mean() > 0.0


@pytest.mark.slow
def test_spokelse_search_holds_its_own_against_the_heuristic():
    # Measured (60 duplicate deals, 120 games each): +0.008 ± 0.028 per game at 40 worlds,
    # +0.000 ± 0.077 with the step budget: search_v0 is at par with heuristic_v0, not
    # measurably stronger (see agents/search.py). The bound only catches a broken search,
    # which loses clearly (a plain argmax over 12 worlds: -0.30 ± 0.09).
    m = duplicate_mean("spokelse", "search", "heuristic", deals=30)
    assert m.mean() > -0.1


@pytest.mark.slow
@pytest.mark.parametrize(("game", "config"), GAME_CONFIGS, ids=config_id)
def test_agents_legal_over_thousands_of_games(game, config):
    policies = [make_agent(a, game, config, seed=s) for s, a in enumerate(["random", "heuristic", "heuristic"])]
    for ep in range(2000 if game != "femkortskille" else 500):
        play_engine(game, config, policies[ep % 2 :] + policies[: ep % 2], seed=10_000 + ep)
