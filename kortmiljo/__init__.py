"""kortmiljo: reinforcement-learning environments for Scandinavian card games.

``from kortmiljo import spokelse_v0`` (and ``sproyte_v0``, ``femkortskille_v0``)
gives PettingZoo AEC environments; the pure rules engines live in
:mod:`kortmiljo.games`. Importing the package also registers every environment in
PettingZoo's registry under the ``kortmiljo/`` namespace, where the installed
PettingZoo has one: ``pettingzoo.make("aec", "kortmiljo/spokelse-v0", num_players=3)``.
"""

from importlib import import_module

__version__ = "0.1.0"
GAMES = ("spokelse", "sproyte", "femkortskille")


def __getattr__(name: str):
    # lazy so that importing one game never pays for the others
    if name.endswith("_v0") and name[:-3] in GAMES:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _register_with_pettingzoo() -> None:
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # PettingZoo < 1.27 has no registry; the module imports still work
        return
    for game in GAMES:
        env_id = f"kortmiljo/{game}-v0"
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=f"kortmiljo.{game}_v0:env")


_register_with_pettingzoo()
