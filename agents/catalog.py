"""The per-game catalogue of scripted agents, and the heuristic a search rolls out with.

A game's scripted baselines live in ``agents/<game>_heuristic.py``: such a module declares
``GAME`` (the game's name) and ``AGENTS`` (agent name → policy class), and is found here by
that file-name convention, so no module lists the games. :func:`register_agent` adds an agent
at run time (a plug-in game's heuristic, say). Names of every game (``random``, ``search``,
``ppo:PATH``) are resolved by :mod:`kortmiljo.agents.registry`, which builds on this.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from importlib import import_module
from pathlib import Path

from kortmiljo.core.game import Game

from .base import Heuristic, Policy, RandomRollout

Factory = Callable[..., Policy]  # factory(game, seed=..., **kwargs) -> Policy

_AGENTS: dict[str, dict[str, Factory]] = {}  # game name -> agent name -> factory
_discovered = False


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name.endswith("_heuristic"):
            module = import_module(f"{__package__}.{info.name}")
            for name, factory in getattr(module, "AGENTS", {}).items():
                register_agent(module.GAME, name, factory)


def register_agent(game: str, name: str, factory: Factory) -> None:
    """Make ``factory(game, seed=..., **kwargs)`` the agent ``name`` of the game named ``game``."""
    _AGENTS.setdefault(game, {})[name] = factory


def game_agents(game: str) -> dict[str, Factory]:
    """The agents registered for the game named ``game`` (without the ones every game has)."""
    _discover()
    return dict(_AGENTS.get(game, {}))


def newest_heuristic(game: str) -> str | None:
    """The name of the game's newest ``heuristic_vN``, or None where it has none."""
    versions = [k for k in game_agents(game) if k.startswith("heuristic_v") and k[11:].isdigit()]
    return max(versions, key=lambda k: int(k[11:]), default=None)


def heuristic_for(game: Game, seed: int | None = None) -> Heuristic:
    """The game's newest heuristic, or uniform random play where it has none (search's rollouts)."""
    name = newest_heuristic(game.name)
    if name is None:
        return RandomRollout(game, seed)
    policy = game_agents(game.name)[name](game, seed=seed)
    if not isinstance(policy, Heuristic):
        raise TypeError(f"{policy!r} is registered as {game.name}'s {name} but is not a Heuristic")
    return policy
