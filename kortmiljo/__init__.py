"""kortmiljo: reinforcement-learning environments for Scandinavian card games.

``from kortmiljo import spokelse_v0`` (and ``sproyte_v0``, ``femkortskille_v0``, and any game
registered later) gives PettingZoo AEC environments. ``kortmiljo.load_game(name, **options)``
gives a configured game, from which every layer is built; ``kortmiljo.register_game(GAME)`` adds
a game at run time, and a package adds one under the entry point group ``kortmiljo.games``.
Every registered game is also in PettingZoo's registry under the ``kortmiljo/`` namespace:
``pettingzoo.make("aec", "kortmiljo/spokelse-v0", num_players=3)``.
"""

from importlib import import_module

from .core import registry as _registry
from .core.game import Facts, Features, Game, GameDef
from .core.registry import game_def, game_names, load_game, register_game
from .env.modules import env_modules, install, register_with_pettingzoo

__version__ = "0.2.0"


def __getattr__(name: str):
    # ``from kortmiljo import spokelse_v0``: built on first use from the game's descriptor
    if name in env_modules():
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


install()
_registry.on_register(register_with_pettingzoo)
_registry.games()  # discover the package's games and the plug-ins, so that PettingZoo knows them all

__all__ = [
    "Facts",
    "Features",
    "Game",
    "GameDef",
    "game_def",
    "game_names",
    "load_game",
    "register_game",
]
