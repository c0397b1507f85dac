"""Options are checked by kind as well as value, and an option that would do nothing is refused."""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo import load_game
from kortmiljo.core.errors import ConfigError
from kortmiljo.core.registry import games

PACKAGE_GAMES = [n for n, d in games().items() if d.game.__module__.startswith("kortmiljo.games.")]


@pytest.mark.parametrize("value", [3.0, np.float64(3.0), True, "3"])
def test_sproyte_refuses_a_player_count_that_is_not_the_int_3(value):
    with pytest.raises(ConfigError, match=r"num_players=.* is not allowed; num_players must be 3"):
        load_game("sproyte", num_players=value)


@pytest.mark.parametrize("value", [3, np.int64(3)])
def test_sproyte_takes_the_int_3(value):
    assert load_game("sproyte", num_players=value).num_players == 3


def int_options(game: str) -> list[str]:
    return [
        k for k, o in games()[game].options.items() if isinstance(o.default, int) and not isinstance(o.default, bool)
    ]


@pytest.mark.parametrize("game", PACKAGE_GAMES)
def test_an_int_option_given_as_a_float_or_a_bool_is_refused(game):
    for name in int_options(game):
        default = games()[game].options[name].default
        for value in (float(default), default == 1):
            with pytest.raises(ConfigError, match=rf"{name}=.* is not allowed"):
                load_game(game, **{name: value})


@pytest.mark.parametrize("game", PACKAGE_GAMES)
def test_a_bool_option_given_as_an_int_is_refused(game):
    for name, opt in games()[game].options.items():
        if isinstance(opt.default, bool):
            with pytest.raises(ConfigError, match=rf"{name}=1 is not allowed; {name} must be True or False"):
                load_game(game, **{name: 1})


def test_max_bet_without_auktion_is_refused_saying_what_to_do():
    # before, max_bet=3 without auktion was accepted and silently changed nothing
    with pytest.raises(ConfigError, match=r"max_bet=3 has no effect without auktion=True.*pass auktion=True"):
        load_game("femkortskille", max_bet=3)
    with pytest.raises(ConfigError, match="max_bet=3"):
        load_game("femkortskille", max_bet=3, poker=True, skituppslag=True)


@pytest.mark.parametrize("options", [{}, {"max_bet": 5}, {"auktion": True, "max_bet": 3}, {"auktion": True}])
def test_max_bet_at_its_default_or_with_auktion_is_fine(options):
    g = load_game("femkortskille", **options)
    assert ("bet:1" in g.action_names) == bool(options.get("auktion"))


def test_max_deals_without_a_match_is_refused_saying_what_to_do():
    # a Sprøyte episode without match_to is one deal: a deal cap there would silently do nothing
    for value in (3, None):
        with pytest.raises(ConfigError, match=r"max_deals=.* has no effect without match_to.*pass match_to"):
            load_game("sproyte", max_deals=value)
    assert load_game("sproyte", match_to=5, max_deals=3).max_deals == 3
    assert load_game("sproyte").max_deals is None
