"""Agents by name, for a configured game.

Names: ``random`` and ``search`` (= ``search_v0``, determinized Monte Carlo over the game's
heuristic, or over random play where it has none) for every game; ``heuristic`` (= the newest
``heuristic_vN`` of the game, from :mod:`agents.catalog`); ``ppo:PATH`` (a trained MaskablePPO
model); ``rllib:PATH`` (a learner trained with ``kortmiljo train --backend rllib``). Versioned
names keep published results comparable when a newer version lands.
"""

from __future__ import annotations

from typing import Any

from kortmiljo.core.game import Game
from kortmiljo.core.registry import load_game

from .base import Policy, RandomPolicy
from .catalog import game_agents, newest_heuristic, register_agent

__all__ = ["AGENT_NAMES", "available_agents", "make_agent", "register_agent", "resolve_name"]

AGENT_NAMES = ("random", "heuristic", "search", "ppo:PATH", "rllib:PATH")


def resolve_name(name: str, game: str) -> str:
    """``heuristic`` → the game's newest ``heuristic_vN``; ``search`` → ``search_v0``; others unchanged."""
    if name == "heuristic":
        return newest_heuristic(game) or "heuristic_v0"
    return "search_v0" if name == "search" else name


def available_agents(game: str) -> list[str]:
    """Every name :func:`make_agent` takes for the game named ``game``."""
    own = sorted(game_agents(game))
    alias = ["heuristic"] if newest_heuristic(game) else []
    return ["random", *own, *alias, "search", "search_v0", "ppo:PATH", "rllib:PATH"]


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
