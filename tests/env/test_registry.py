"""Every environment is reachable through PettingZoo's registry as well as by module."""

import pytest

import kortmiljo
from kortmiljo import game_names

pettingzoo = pytest.importorskip("pettingzoo")


@pytest.mark.parametrize("game", game_names())
def test_make_from_the_pettingzoo_registry(game):
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry")
    env = pettingzoo.make("aec", f"kortmiljo/{game}-v0")
    env.reset(seed=0)
    assert env.metadata["name"] == f"{game}_v0"
    assert type(env.unwrapped) is type(getattr(kortmiljo, f"{game}_v0").raw_env())
    env.close()


def test_registry_passes_options():
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry")
    env = pettingzoo.make("aec", "kortmiljo/spokelse-v0", num_players=4)
    env.reset(seed=1)
    assert env.num_agents == 4
