"""Game name → engine class and env module, for CLIs, agents and training."""

from __future__ import annotations

from importlib import import_module

from .core.engine import Engine

_ENGINES = {
    "spokelse": "kortmiljo.games.spokelse:SpokelseEngine",
    "sproyte": "kortmiljo.games.sproyte:SproyteEngine",
    "femkortskille": "kortmiljo.games.femkortskille:FemkortskilleEngine",
}


def engine_class(game: str) -> type[Engine]:
    target = _ENGINES.get(game)
    if target is None:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(_ENGINES)}")
    mod, cls = target.split(":")
    return getattr(import_module(mod), cls)


def env_module(game: str):
    engine_class(game)  # validates the name
    return import_module(f"kortmiljo.{game}_v0")


def available_games() -> list[str]:
    out = []
    for g in _ENGINES:
        try:
            engine_class(g)
            out.append(g)
        except (ImportError, AttributeError):
            pass
    return out
