"""Agents by name, for a configured game.

Names: ``random`` and ``search`` (= ``search_v0``, determinized Monte Carlo over the game's
heuristic, or over random play where it has none) for every game; ``heuristic`` (= the newest
``heuristic_vN`` of the game); ``ppo:PATH`` (a trained MaskablePPO model); ``rllib:PATH`` (a
learner trained with ``kortmiljo train --backend rllib``). Versioned names keep published
results comparable when a newer version lands.

A game's scripted baselines live in ``agents/<game>_heuristic.py``: such a module declares
``GAME`` (the game's name) and ``AGENTS`` (agent name → policy class), and is found here by
that file-name convention, so this module lists no game. :func:`register_agent` adds an agent
at run time (a plug-in game's heuristic, say).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from importlib import import_module
from typing import Any

from kortmiljo.core.game import Game
from kortmiljo.core.registry import load_game

from .base import Policy, RandomPolicy

Factory = Callable[..., Policy]  # factory(game, seed=..., **kwargs) -> Policy

_AGENTS: dict[str, dict[str, Factory]] = {}  # game name -> agent name -> factory
_discovered = False
ALIASES = {"search": "search_v0"}  # "heuristic" resolves to the game's newest heuristic_vN
AGENT_NAMES = ("random", "heuristic", "search", "ppo:PATH", "rllib:PATH")


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    import agents

    for info in pkgutil.iter_modules(agents.__path__):
        if info.name.endswith("_heuristic"):
            module = import_module(f"agents.{info.name}")
            for name, factory in getattr(module, "AGENTS", {}).items():
                register_agent(module.GAME, name, factory)


def register_agent(game: str, name: str, factory: Factory) -> None:
    """Make ``factory(game, seed=..., **kwargs)`` the agent ``name`` of the game named ``game``."""
    _AGENTS.setdefault(game, {})[name] = factory


def game_agents(game: str) -> dict[str, Factory]:
    """The agents registered for the game named ``game`` (without the generic ones)."""
    _discover()
    return dict(_AGENTS.get(game, {}))


def resolve_name(name: str, game: str) -> str:
    """``heuristic`` → the game's newest ``heuristic_vN``; ``search`` → ``search_v0``; others unchanged."""
    if name == "heuristic":
        versions = [k for k in game_agents(game) if k.startswith("heuristic_v") and k[11:].isdigit()]
        return max(versions, key=lambda k: int(k[11:]), default="heuristic_v0")
    return ALIASES.get(name, name)


def available_agents(game: str) -> list[str]:
    """Every name :func:`make_agent` takes for the game named ``game``."""
    own = sorted(game_agents(game))
    aliases = ["heuristic"] if any(k.startswith("heuristic_v") for k in own) else []
    return ["random", *own, *aliases, "search", "search_v0", "ppo:PATH", "rllib:PATH"]


def make_agent(
    spec: str, game: Game | str, config: dict | None = None, seed: int | None = None, **kwargs: Any
) -> Policy:
    """An agent by name for a configured game (or a registered game's name with its ``config``)."""
    g = load_game(game, **(config or {})) if isinstance(game, str) else game
    if config and not isinstance(game, str):
        raise ValueError("pass either a configured Game or a game name with config, not both")
    if not isinstance(spec, str):
        raise ValueError(f"an agent is named by a string such as 'heuristic', got {spec!r}")
    if spec == "random":
        return RandomPolicy(g, seed)
    if spec.startswith("ppo:"):
        from .trained import load_ppo_policy

        return load_ppo_policy(spec[4:], g, seed=seed, **kwargs)
    if spec.startswith("rllib:"):
        from .rllib_agent import load_rllib_policy

        return load_rllib_policy(spec[6:], g, seed=seed, **kwargs)
    name = resolve_name(spec, g.name)
    if name == "search_v0":
        from .search import SearchPolicy

        return SearchPolicy(g, seed=seed, **kwargs)
    factory = game_agents(g.name).get(name)
    if factory is None:
        raise ValueError(f"unknown agent {spec!r} for {g.name}; available: {', '.join(available_agents(g.name))}")
    return factory(g, seed=seed, **kwargs)
