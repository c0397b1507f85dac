"""PettingZoo's own checks for every game and example configuration: ``api_test``, ``seed_test`` and
``render_test``, plus what ``render_test`` does not look at (the text is the engine's, and
``human`` prints it), a refused render mode and the order enforcement before the first reset."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from .games import conformance_cases

CASES = conformance_cases()
IDS = [c.id for c in CASES]

# api_test's advice for Box/Discrete spaces does not apply: the observation is a dict with the mask
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent probably:UserWarning", "ignore:Observation is not a NumPy array"
)


def _cycles(case) -> int:
    return 100 if case.long else 200


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_api_test(case):
    api_test(case.env(), num_cycles=_cycles(case))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_seed_test(case):
    seed_test(case.env, num_cycles=_cycles(case))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_render_test(case, capsys):
    render_test(case.env)  # calls env_fn(render_mode=...) for every mode in metadata["render_modes"]
    assert capsys.readouterr().out.strip(), "render_mode='human' printed nothing"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_render_shows_the_engines_table_from_the_movers_view(case, capsys):
    ansi, human = case.env(render_mode="ansi"), case.env(render_mode="human")
    rng = np.random.default_rng(case.seed)
    for env in (ansi, human):
        env.reset(seed=case.seed)
    for _ in range(3):
        e = ansi.unwrapped.engine
        text = ansi.render()
        assert isinstance(text, str) and text.strip()
        viewer = None if (e.terminal or e.truncated) else e.current_player
        assert text == e.render(viewer)
        capsys.readouterr()
        assert human.render() is None
        assert capsys.readouterr().out.rstrip("\n") == text  # human prints what ansi returns
        if e.terminal or e.truncated:
            break
        action = int(rng.choice(np.flatnonzero(e.legal_mask())))
        ansi.step(action)
        human.step(action)  # human mode prints after every step too
    none = case.env()
    none.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert none.render() is None  # no render_mode: a warning, no output


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_bad_render_mode_and_order_enforcement(case):
    with pytest.raises(ValueError, match="render_mode"):
        case.env(render_mode="rgb_array")
    env = case.env()
    with pytest.raises(AttributeError, match="before reset"):
        env.agent_selection  # noqa: B018
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    assert env.agent_selection in env.agents and env.num_agents == case.game().num_players
