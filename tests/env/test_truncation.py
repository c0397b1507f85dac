"""Every episode ends: the safety caps (Spøkelse ``max_steps``, Sprøyte ``max_deals``) truncate.

Two Spøkelse seats that always take the discard pile and swap it in never draw, so the round
would never end; a Sprøyte match whose deals give nobody enough points need never end. At the
cap every agent is truncated (not terminated), the step's rewards are 0 and every info names
the cap in ``truncated_by`` (Femkortskille's ``max_deals`` truncation too), through the AEC env,
the training view, the native vector env and the batched engines, which equal the scalar
engines lane by lane. Random and heuristic play never come near the default caps.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

from kortmiljo import femkortskille_v0, load_game, spokelse_v0, sproyte_v0
from kortmiljo.core.batched import BatchedIllegalActionError, lane_rng
from kortmiljo.core.errors import ConfigError
from kortmiljo.core.policy import Policy
from kortmiljo.env.training import SingleSeatEnv
from kortmiljo.env.vector import BatchedSingleSeatVecEnv
from kortmiljo.games.femkortskille.game import PASS
from kortmiljo.games.spokelse.game import DISCARD, DRAW, MAX_STEPS, SWAP0, TAKE
from kortmiljo.games.sproyte.game import DEALS_PER_POINT

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from game_lengths import play  # noqa: E402


class Loop(Policy):
    """Spøkelse's endless play: take the discard pile's top card, swap it into slot 0."""

    name = "loop"

    def act(self, obs, engine=None):
        return TAKE if obs["action_mask"][TAKE] else SWAP0

    def act_batch(self, obs):
        return np.where(np.asarray(obs["action_mask"])[:, TAKE] == 1, TAKE, SWAP0)


def loop_action(mask: np.ndarray) -> int:
    return TAKE if mask[TAKE] else SWAP0


# ---- the AEC env ------------------------------------------------------------------------------------


def run_aec(env, choose) -> tuple[int, dict]:
    """Play to the end; the steps taken and, per agent, the last ``(termination, truncation, reward, info)``."""
    env.reset(seed=0)
    steps, last = 0, {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            last[agent] = (term, trunc, reward, info)
            env.step(None)
        else:
            env.step(choose(obs["action_mask"]))
            steps += 1
    return steps, last


@pytest.mark.parametrize("config", [{}, {"num_players": 3, "match_to": 21}], ids=["default", "3p-match"])
def test_spokelse_endless_taking_is_truncated_at_the_default_cap(config):
    steps, last = run_aec(spokelse_v0.env(**config), loop_action)
    assert steps == MAX_STEPS  # the first round never ends: every step of the episode is in it
    assert len(last) == load_game("spokelse", **config).num_players
    for term, trunc, reward, info in last.values():
        assert (term, trunc, reward) == (False, True, 0.0)
        assert info["truncated_by"] == "max_steps" and {"round_points", "match_points"} <= set(info)


def test_spokelse_cap_counts_steps_per_round():
    """A match's later rounds get their own count: round 1 ends by the rules, round 2 loops."""
    env = spokelse_v0.env(match_to=200, max_steps=300)
    env.reset(seed=3)
    e = env.unwrapped.engine
    rng = np.random.default_rng(0)
    steps, first_round = 0, None
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if e.round_no == 2 and first_round is None:
            first_round = steps
        mask = obs["action_mask"]
        env.step(loop_action(mask) if e.round_no > 1 else int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert e.truncated and not e.terminal and e.round_no == 2
    assert 0 < first_round < 300 and steps - first_round == 300


def test_sproyte_match_is_truncated_at_max_deals():
    rng = np.random.default_rng(1)
    steps, last = run_aec(sproyte_v0.env(match_to=1000, max_deals=2), lambda m: int(rng.choice(np.flatnonzero(m))))
    assert 2 * 36 < steps <= 2 * 51  # two deals: 36 plays each and the exchanges
    for term, trunc, reward, info in last.values():
        assert (term, trunc, reward) == (False, True, 0.0)
        assert info["truncated_by"] == "max_deals"
        assert {"tricks", "deal_points", "match_points", "contract", "trump"} <= set(info)


def test_femkortskille_truncation_names_max_deals():
    def passing(mask):
        return PASS if mask[PASS] else int(np.flatnonzero(mask)[0])

    _, last = run_aec(femkortskille_v0.env(max_deals=1), passing)
    for term, trunc, _reward, info in last.values():
        assert (term, trunc) == (False, True) and info["truncated_by"] == "max_deals"


@pytest.mark.parametrize(
    "game, config",
    [("spokelse", {}), ("spokelse", {"match_to": 21}), ("sproyte", {"match_to": 3}), ("femkortskille", {})],
)
def test_ordinary_episodes_have_no_truncated_by(game, config):
    module = {"spokelse": spokelse_v0, "sproyte": sproyte_v0, "femkortskille": femkortskille_v0}[game]
    rng = np.random.default_rng(0)
    _, last = run_aec(module.env(**config), lambda m: int(rng.choice(np.flatnonzero(m))))
    for term, trunc, _reward, info in last.values():
        assert term and not trunc and info["truncated_by"] == ""  # the key is there at every step


def test_caps_are_options_with_none_to_disable():
    assert load_game("spokelse").config["max_steps"] == MAX_STEPS
    assert load_game("spokelse", max_steps=None).facts.max_decisions is None
    assert load_game("sproyte", match_to=10).max_deals == DEALS_PER_POINT * 11
    assert load_game("sproyte", match_to=10, max_deals=None).facts.max_decisions is None
    assert load_game("sproyte").facts.max_decisions == 31  # one deal: nothing to cap
    for game, bad in (("spokelse", {"max_steps": 0}), ("sproyte", {"max_deals": 0}), ("sproyte", {"max_deals": "x"})):
        with pytest.raises(ConfigError):
            load_game(game, **bad)


def test_max_decisions_bound_the_capped_episodes():
    g = load_game("spokelse", num_players=3, max_steps=25)
    assert g.facts.max_decisions == 2 * 5  # 13 turns touched: at most 5 for one seat, two steps each
    m = load_game("spokelse", num_players=2, match_to=21, max_steps=10)
    assert m.facts.max_decisions == 11 * 6  # 4 points dealt at least per round: 11 rounds
    assert (
        load_game("spokelse", cards=["8S", "8H", "8D", "8C", "AS", "2S"], num_slots=1, match_to=5).facts.max_decisions
        is None
    )


# ---- the training view and the native vector env ----------------------------------------------------------


def test_training_view_reports_a_time_limit():
    g = load_game("spokelse", max_steps=24)
    env = SingleSeatEnv(g, opponents=[Loop(g)], seat=0, seed=0)
    obs, _ = env.reset(seed=0)
    decisions = 0
    while True:
        obs, r, terminated, truncated, info = env.step(loop_action(env.action_masks()))
        decisions += 1
        if terminated or truncated:
            break
    assert (terminated, truncated, r, decisions) == (False, True, 0.0, 12)
    assert info["truncated_by"] == "max_steps" and info["decisions"] == 12

    vec = DummyVecEnv([lambda: SingleSeatEnv(g, opponents=[Loop(g)], seat=0, seed=0)])
    vec.reset()
    for _ in range(12):
        _, _, dones, infos = vec.step(np.array([loop_action(vec.env_method("action_masks")[0])]))
    assert dones[0] and infos[0]["TimeLimit.truncated"] and infos[0]["truncated_by"] == "max_steps"
    assert "terminal_observation" in infos[0]


def test_shaping_keeps_the_potential_at_a_truncation():
    """SB3 bootstraps V(s') at a time limit, so Φ(s') must stay in the shaped reward there."""
    g = load_game("spokelse", max_steps=24)
    env = SingleSeatEnv(g, opponents=[Loop(g)], seat=0, seed=0, shaping="auto", gamma=0.9)
    env.reset(seed=0)
    while True:
        phi = env._phi
        obs, r, terminated, truncated, info = env.step(loop_action(env.action_masks()))
        if terminated or truncated:
            break
    want = info["game_reward"] + 0.9 * env.shaping(env.engine, env.seat, obs) - phi
    assert truncated and r == pytest.approx(want) and env.shaping(env.engine, env.seat, obs) != 0.0


@pytest.mark.parametrize(
    "game, config", [("spokelse", {"max_steps": 24}), ("sproyte", {"match_to": 500, "max_deals": 1})]
)
def test_native_vector_env_reports_a_time_limit(game, config):
    g = load_game(game, **config)
    native = BatchedSingleSeatVecEnv(g, num_envs=3, opponents=[Loop(g)] if game == "spokelse" else None, seed=0)
    native.reset()
    rng = np.random.default_rng(0)
    ended: dict[int, tuple[float, dict]] = {}
    for _ in range(200):
        m = native.action_masks()
        a = np.where(m[:, TAKE], TAKE, SWAP0) if game == "spokelse" else (rng.random(m.shape) * m).argmax(axis=1)
        _, r, dones, infos = native.step(a)
        for i in np.flatnonzero(dones):
            ended.setdefault(int(i), (float(r[i]), infos[i]))
        if len(ended) == 3:
            break
    assert len(ended) == 3
    for r, info in ended.values():
        assert r == 0.0 and info["TimeLimit.truncated"] and "terminal_observation" in info
        assert info["truncated_by"] == ("max_steps" if game == "spokelse" else "max_deals")


# ---- the batched engines equal the scalar ones, cut lanes included ----------------------------------


def _scalar_views(engines):
    n = engines[0].num_players
    obs = np.stack([np.stack([e.observe(v) for v in range(n)]) for e in engines])
    uns = np.stack([np.stack([e.unseen(v) for v in range(n)]) for e in engines])
    return obs, uns


def _assert_same(be, engines, where: str) -> None:
    obs, uns = _scalar_views(engines)
    np.testing.assert_array_equal(be.legal_mask(), np.stack([e.legal_mask() for e in engines]), err_msg=where)
    np.testing.assert_array_equal(be.current_player, [e.current_player for e in engines], err_msg=where)
    np.testing.assert_array_equal(be.observe_all(), obs, err_msg=where)
    np.testing.assert_array_equal(be.unseen_all(), uns, err_msg=where)


def _actions(game: str, mask: np.ndarray, loop: np.ndarray, rng) -> np.ndarray:
    u = rng.random(mask.shape) * mask
    u[mask == 0] = -1.0
    a = u.argmax(axis=1)
    if game == "spokelse":  # looping lanes take and swap in: their rounds never end
        a = np.where(loop, np.where(mask[:, TAKE] == 1, TAKE, SWAP0), a)
    elif game == "femkortskille":  # passing lanes make void deals
        a = np.where(loop & (mask[:, PASS] == 1), PASS, a)
    return a


SHORT = ["AS", "2S", "3S", "4S", "8S", "TS", "JS", "QS", "KS", "AH", "5H", "9H", "KH", "8D"]
# (game, configuration, whether lanes end by the rules, whether lanes are cut)
LOCKSTEP = [
    ("spokelse", {"cards": SHORT, "num_slots": 2, "max_steps": 30}, True, True),
    ("spokelse", {"num_players": 3, "cards": SHORT, "num_slots": 2, "match_to": 30, "max_steps": 21}, True, True),
    ("spokelse", {"max_steps": 170, "reward": "points"}, True, True),
    ("spokelse", {"num_slots": 2, "max_turns": 20, "max_steps": 40}, True, False),  # both at once: the rules win
    ("sproyte", {"match_to": 3, "max_deals": 2}, True, True),
    ("sproyte", {"variant": "tretten", "match_to": 4, "max_deals": 2, "reward": "raw"}, True, True),
]


@pytest.mark.parametrize(
    "game, config, ends, cuts",
    LOCKSTEP,
    ids=[g + "".join(f"-{k}={'short' if k == 'cards' else v}" for k, v in c.items()) for g, c, *_ in LOCKSTEP],
)
def test_batched_lanes_are_cut_as_the_scalar_engines(game, config, ends, cuts):
    """Auto-reset lanes, a third of them looping: terminations, truncations, rewards, masks,
    observations and the final observations equal the scalar engines' step for step."""
    B, seed = 9, 5
    g = load_game(game, **config)
    be = g.new_batched(B, seed=seed)
    rngs = [lane_rng(seed, i) for i in range(B)]
    engines = [g.new_state() for _ in range(B)]
    for e, r in zip(engines, rngs, strict=True):
        e.new_episode(r)
    act_rng = np.random.default_rng(seed)
    loop = np.arange(B) % 3 == 0
    cut = ended = 0
    for t in range(300):
        _assert_same(be, engines, f"before step {t}")
        a = _actions(game, be.legal_mask(), loop, act_rng)
        be.step(a)
        for i, e in enumerate(engines):
            e.step(int(a[i]))
        np.testing.assert_array_equal(be.rewards, [e.rewards for e in engines], err_msg=f"rewards {t}")
        term = np.array([e.terminal for e in engines])
        trunc = np.array([e.truncated for e in engines])
        np.testing.assert_array_equal(be.terminal, term, err_msg=f"terminal {t}")
        np.testing.assert_array_equal(be.truncated, trunc, err_msg=f"truncated {t}")
        assert not (term & trunc).any()
        done = term | trunc
        if done.any():
            for v in range(g.num_players):
                lanes, fo, fu = be.final_observation(np.full(B, v))
                np.testing.assert_array_equal(lanes, np.flatnonzero(done))
                for j, i in enumerate(lanes):
                    np.testing.assert_array_equal(fo[j], engines[i].observe(v), err_msg=f"final obs {t} lane {i}")
                    np.testing.assert_array_equal(fu[j], engines[i].unseen(v))
            cut += int(trunc.sum())
            ended += int(term.sum())
            for i in np.flatnonzero(done):
                engines[i].new_episode(rngs[i])
    assert (cut > 0, ended > 0) == (cuts, ends)


def test_a_lane_ending_and_a_lane_cut_in_one_step():
    """Lane 0 draws the short stock out, lane 1 loops: both episodes end at step 6, one by the rules."""
    g = load_game("spokelse", cards=SHORT[:8], num_slots=1, max_steps=6)  # 4 dealt, the up card, 3 in stock
    be = g.new_batched(2, seed=4)
    engines = [g.new_state() for _ in range(2)]
    for i, e in enumerate(engines):
        e.new_episode(lane_rng(4, i))
    for t in range(6):
        a = np.array([DRAW if t % 2 == 0 else DISCARD, loop_action(be.legal_mask()[1])])
        be.step(a)
        for e, x in zip(engines, a.tolist(), strict=True):
            e.step(x)
    assert engines[0].terminal and engines[1].truncated
    np.testing.assert_array_equal(be.terminal, [True, False])
    np.testing.assert_array_equal(be.truncated, [False, True])
    for v in range(2):
        lanes, fo, fu = be.final_observation(np.full(2, v))
        np.testing.assert_array_equal(lanes, [0, 1])
        for j, e in enumerate(engines):
            np.testing.assert_array_equal(fo[j], e.observe(v))
            np.testing.assert_array_equal(fu[j], e.unseen(v))


@pytest.mark.parametrize(
    "game, config",
    [
        ("spokelse", {"max_steps": 30}),
        ("sproyte", {"match_to": 6, "max_deals": 2}),
        ("femkortskille", {"max_deals": 1}),
    ],
)
def test_cut_lanes_are_kept_until_reset(game, config):
    """``autoreset=False``: a cut lane stays truncated, masked and refused until ``reset(lanes=…)``,
    and its ``lane_infos`` are the scalar engine's infos, ``truncated_by`` included."""
    B, seed = 6, 2
    g = load_game(game, **config)
    be = g.new_batched(B, seed=seed, autoreset=False)
    engines = [g.new_state() for _ in range(B)]
    for i, e in enumerate(engines):
        e.new_episode(lane_rng(seed, i))
    rng = np.random.default_rng(0)
    loop = np.arange(B) % 2 == 0
    seen_cut = False
    for t in range(400):
        _assert_same(be, engines, f"step {t}")
        done = be.done()
        np.testing.assert_array_equal(be.truncated, [e.truncated for e in engines])
        np.testing.assert_array_equal(be.terminal, [e.terminal for e in engines])
        if done.all():
            break
        if be.truncated.any():
            seen_cut = True
            i = int(np.flatnonzero(be.truncated)[0])
            assert be.legal_actions(i) == [] and engines[i].legal_actions() == []
            with pytest.raises(BatchedIllegalActionError, match=f"lane {i}: "):
                be.step(np.zeros(B, dtype=np.int64), lanes=[i])
        lanes = ~done & (rng.random(B) < 0.7)
        a = _actions(game, be.legal_mask(), loop, rng)
        be.step(a, lanes)
        for i in np.flatnonzero(lanes):
            engines[i].step(int(a[i]))
    assert seen_cut and be.done().all()
    want = [e.info(0) for e in engines]
    assert be.lane_infos(list(range(B)), [0] * B) == want
    cap = "max_steps" if game == "spokelse" else "max_deals"
    assert [w.get("truncated_by") for w in want] == [cap if e.truncated else None for e in engines]
    be.reset(lanes=[0])
    assert not be.truncated[0] and be.legal_mask()[0].any()


# ---- OpenSpiel ---------------------------------------------------------------------------------------------


def test_openspiel_lengths_follow_the_caps():
    pyspiel = pytest.importorskip("pyspiel")
    from kortmiljo import openspiel

    g = pyspiel.load_game(openspiel.register("spokelse"))
    assert g.max_game_length() == 2 * load_game("spokelse").facts.max_decisions == MAX_STEPS
    assert not g.get_type().provides_information_state_tensor  # thousands of decisions: string form only
    assert (
        pyspiel.load_game(openspiel.register("spokelse", max_steps=None)).max_game_length()
        == openspiel.UNBOUNDED_LENGTH
    )

    small = pyspiel.load_game(openspiel.register("spokelse", max_steps=8, dealer=1))
    assert small.get_type().provides_information_state_tensor and small.max_game_length() == 8
    st = small.new_initial_state()
    decisions = 0
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply_action(st.chance_outcomes()[0][0])
            continue
        legal = st.legal_actions()
        st.apply_action(TAKE if TAKE in legal else SWAP0)
        decisions += 1
        assert len(st.information_state_tensor(0)) == small.information_state_tensor_size()
    assert decisions == 8 and st.returns() == [0.0, 0.0] and st.engine.truncated

    match = pyspiel.load_game(openspiel.register("sproyte", match_to=100, max_deals=2))
    assert match.max_game_length() == 3 * 2 * 31 and match.get_type().provides_information_state_tensor
    assert match.max_chance_nodes_in_history() >= 1 + 2 * 48


# ---- random and heuristic play never come near the defaults ---------------------------------------------


@pytest.mark.parametrize(
    "game, config, episodes",
    [
        ("spokelse", {}, 200),
        ("spokelse", {"num_players": 5, "match_to": 21}, 100),
        ("sproyte", {"match_to": 10}, 60),
        ("sproyte", {"variant": "variasjon", "match_to": 3}, 100),
    ],
)
@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_random_and_heuristic_play_stay_far_below_the_default_caps(game, config, episodes, agent):
    res = play(game, config, agent, episodes=episodes, lanes=50, seed=7)  # raises on any truncation
    g = load_game(game, **config)
    if game == "spokelse":
        assert res["round_steps"].max() * 10 <= g.max_steps
    else:
        assert res["deals"].max() * 10 <= g.max_deals
