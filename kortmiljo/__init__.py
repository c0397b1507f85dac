"""kortmiljo: reinforcement-learning environments for Scandinavian card games.

``from kortmiljo import spokelse_v0`` (and ``sproyte_v0``, ``femkortskille_v0``)
gives PettingZoo AEC environments; the pure rules engines live in
:mod:`kortmiljo.games`.
"""

from importlib import import_module

__version__ = "0.1.0"
GAMES = ("spokelse", "sproyte", "femkortskille")


def __getattr__(name: str):
    # lazy so that importing one game never pays for the others
    if name.endswith("_v0") and name[:-3] in GAMES:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
