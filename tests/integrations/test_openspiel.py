"""kortmiljo games as OpenSpiel games: the pyspiel API, equality with the AEC env, CFR on a teaching variant."""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.env.modules import env_module_of

pyspiel = pytest.importorskip("pyspiel")
openspiel = pytest.importorskip("kortmiljo.openspiel")

# the smallest Spøkelse worth solving: two players, a ghost and one slot each, six cards, two turns
SPOKELSE_TEACHING = dict(num_players=2, cards=["AS", "2S", "3S", "8S", "QS", "KS"], num_slots=1, max_turns=2)
FEMKORTSKILLE_TEACHING = dict(num_players=3, ranks=["1", "2", "kille"], hand_size=1, extra_cards=1, max_deals=1)

SINGLE_DEAL = [
    ("spokelse", SPOKELSE_TEACHING),
    ("spokelse", {}),
    ("spokelse", dict(num_players=3, reward="points", max_turns=7)),
    ("sproyte", {}),
    ("sproyte", dict(variant="variasjon")),
    ("sproyte", dict(variant="tretten", reward="raw")),
    ("femkortskille", FEMKORTSKILLE_TEACHING),
    ("femkortskille", dict(max_deals=1)),
    ("femkortskille", dict(num_players=3, max_deals=1, poker=True, skituppslag=True, knock_stake=1)),
]


def _ids(cases):
    return [f"{g}-{i}" for i, (g, _) in enumerate(cases)]


@pytest.mark.parametrize(("game", "config"), SINGLE_DEAL, ids=_ids(SINGLE_DEAL))
def test_same_game_as_the_aec_env(game, config):
    """Replay OpenSpiel's chance draws as a stacked deck in the AEC env: same legal actions, observations, returns."""
    name = openspiel.register(game, **config)
    g = pyspiel.load_game(name)
    zero_sum = g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    for seed in range(3):
        rng = np.random.default_rng(seed)
        st, env, total = g.new_initial_state(), None, None
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes, probs = zip(*st.chance_outcomes(), strict=True)
                assert list(outcomes) == sorted(outcomes) and min(probs) > 0
                assert sum(probs) == pytest.approx(1.0)
                st.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            if env is None:
                env = env_module_of(game).raw_env(**config)
                env.reset(seed=seed, options={"deck": st.decks[0], "dealer": st.dealer})
                total = dict.fromkeys(env.possible_agents, 0.0)
            seat = st.current_player()
            assert env.agent_selection == f"player_{seat}"
            obs = env.observe(env.agent_selection)
            assert st.legal_actions() == np.flatnonzero(obs["action_mask"]).tolist()
            np.testing.assert_array_equal(
                st.observation_tensor(seat), np.concatenate([obs["observation"], obs["unseen"]]).astype(np.float32)
            )
            action = int(rng.choice(st.legal_actions()))
            assert st.action_to_string(seat, action) == env.action_to_string(action)
            st.apply_action(action)
            env.step(action)
            for a in env.possible_agents:
                total[a] += env.rewards[a]
        assert st.returns() == pytest.approx([total[a] for a in env.possible_agents])
        if zero_sum:
            assert sum(st.returns()) == pytest.approx(0.0)


FULL = [
    ("spokelse", {}),
    ("spokelse", dict(match_to=21)),
    ("sproyte", {}),
    ("sproyte", dict(match_to=6)),
    ("femkortskille", {}),
]


@pytest.mark.parametrize(("game", "config"), FULL, ids=["spk", "spk-match", "spr", "spr-match", "fks"])
def test_full_games_play_with_evaluate_bots(game, config):
    """Full games (with redeals and matches, whose later deals get their own chance nodes) under uniform random bots."""
    from open_spiel.python.algorithms import evaluate_bots

    g = pyspiel.load_game(openspiel.register(game, **config))
    n = g.num_players()
    rng = np.random.RandomState(7)
    for episode in range(2):
        bots = [pyspiel.make_uniform_random_bot(p, 100 * episode + p) for p in range(n)]
        st = g.new_initial_state()
        returns = evaluate_bots.evaluate_bots(st, bots, rng)
        assert st.is_terminal()
        assert sum(returns) == pytest.approx(0.0)
        assert g.min_utility() <= min(returns) and max(returns) <= g.max_utility()
        assert len(st.decks) >= 1


def test_registration_names_and_errors():
    assert openspiel.register("spokelse") == "kortmiljo_spokelse"
    a = openspiel.register("spokelse", **SPOKELSE_TEACHING)
    assert openspiel.register("spokelse", **{**SPOKELSE_TEACHING, "cards": SPOKELSE_TEACHING["cards"][::-1]}) == a
    assert openspiel.register("spokelse", dealer=1, **SPOKELSE_TEACHING) != a
    assert pyspiel.load_game(a).num_players() == 2
    with pytest.raises(ValueError, match="dealer"):
        openspiel.register("spokelse", dealer=2)
    with pytest.raises(ValueError, match="num_slots"):
        openspiel.register("spokelse", num_slots=9)
    with pytest.raises(ValueError, match="another configuration"):
        openspiel.register("spokelse", name=a, num_players=3)


def test_unbounded_games_have_no_information_state_tensor():
    g = pyspiel.load_game(openspiel.register("spokelse"))
    assert not g.get_type().provides_information_state_tensor
    st = g.new_initial_state()
    while st.is_chance_node():
        st.apply_action(st.chance_outcomes()[0][0])
    assert st.information_state_string(0).startswith("p0 ")
    assert len(st.observation_tensor(0)) == g.observation_tensor_size()


def test_information_states_are_perfect_recall_and_hide_what_the_seat_cannot_see():
    """Every state of one information set has the same player, legal actions, tensor, and own past actions."""
    from open_spiel.python.algorithms import get_all_states

    g = pyspiel.load_game(openspiel.register("spokelse", dealer=1, **SPOKELSE_TEACHING))
    states = get_all_states.get_all_states(g, depth_limit=-1, include_terminals=False, include_chance_states=False)
    infosets: dict[str, list] = {}
    for st in states.values():
        infosets.setdefault(st.information_state_string(), []).append(st)
    assert 100 < len(infosets) < len(states)  # hidden cards make information sets of several states
    for key, members in infosets.items():
        p = members[0].current_player()
        assert key.startswith(f"p{p} ")
        first = members[0]
        own = [(h.player, h.action) for h in first.full_history() if h.player == p]
        tensor = first.information_state_tensor()
        for st in members[1:]:
            assert st.current_player() == p
            assert st.legal_actions() == first.legal_actions()
            assert [(h.player, h.action) for h in st.full_history() if h.player == p] == own
            assert st.information_state_tensor() == tensor


def test_femkortskille_teaching_variant_runs_mccfr():
    from open_spiel.python.algorithms import external_sampling_mccfr

    g = pyspiel.load_game(openspiel.register("femkortskille", dealer=2, **FEMKORTSKILLE_TEACHING))
    assert g.information_state_tensor_shape()[0] > 0
    np.random.seed(0)
    solver = external_sampling_mccfr.ExternalSamplingSolver(g)
    for _ in range(20):
        solver.iteration()
    policy = solver.average_policy()
    st = g.new_initial_state()
    while st.is_chance_node():
        st.apply_action(st.chance_outcomes()[0][0])
    probs = policy.action_probabilities(st)
    assert sorted(probs) == st.legal_actions() and sum(probs.values()) == pytest.approx(1.0)


def exploitability_curve(iterations: list[int], seed: int = 0) -> list[tuple[int, float]]:
    """External-sampling MCCFR on the Spøkelse teaching variant; OpenSpiel's exploitability at each checkpoint."""
    from open_spiel.python.algorithms import external_sampling_mccfr, get_all_states, policy_utils

    g = pyspiel.load_game(openspiel.register("spokelse", dealer=1, **SPOKELSE_TEACHING))
    states = get_all_states.get_all_states(g, depth_limit=-1, include_terminals=False, include_chance_states=False)
    infostates = {k: s.information_state_string() for k, s in states.items()}
    np.random.seed(seed)  # MCCFR samples with NumPy's global generator
    solver = external_sampling_mccfr.ExternalSamplingSolver(g)
    curve, done = [], 0
    for target in iterations:
        for _ in range(target - done):
            solver.iteration()
        done = target
        table = policy_utils.policy_to_dict(solver.average_policy(), g, states, infostates)
        curve.append((target, pyspiel.exploitability(g, table)))
    return curve


def test_external_sampling_mccfr_lowers_exploitability():
    curve = exploitability_curve([0, 300])
    (_, start), (_, end) = curve
    assert start == pytest.approx(0.2743, abs=1e-3)  # the uniform policy, before any iteration
    assert end < 0.75 * start, curve


if __name__ == "__main__":  # the curve for reports: python -m tests.integrations.test_openspiel
    import sys
    import time

    points = [int(x) for x in sys.argv[1:]] or [0, 100, 200, 400, 800, 1600]
    t = time.time()
    for it, value in exploitability_curve(points):
        print(f"{it:6d} iterations: exploitability {value:.4f}")
    print(f"total {time.time() - t:.0f} s")
