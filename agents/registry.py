"""Create agents by name for a game and configuration.

Names: ``random``; ``heuristic`` (= the newest ``heuristic_vN``); ``search``
(determinized Monte Carlo over the heuristic); ``ppo:PATH`` (a trained MaskablePPO
model); ``rllib:PATH`` (a learner trained with ``kortmiljo train --backend rllib``).
Versioned names keep published results comparable when a newer version lands.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from kortmiljo.core.engine import Engine

from .base import Policy, RandomPolicy

# name -> "module:Class" per game; filled in as games gain agents
_REGISTRY: dict[str, dict[str, str]] = {
    "spokelse": {"heuristic_v0": "agents.spokelse_heuristic:SpokelseHeuristic"},
    "sproyte": {"heuristic_v0": "agents.sproyte_heuristic:SproyteHeuristic"},
    "femkortskille": {"heuristic_v0": "agents.femkortskille_heuristic:FemkortskilleHeuristic"},
}
for _game in _REGISTRY:  # the search baseline is generic: every game has it
    _REGISTRY[_game]["search_v0"] = "agents.search:SearchPolicy"
_ALIASES = {"heuristic": "heuristic_v0", "search": "search_v0"}
AGENT_NAMES = ("random", "heuristic", "search", "ppo:PATH", "rllib:PATH")


def register(game: str, name: str, target: str) -> None:
    _REGISTRY[game][name] = target


def _engine_for(game: str, config: dict) -> Engine:
    from kortmiljo.registry import engine_class

    return engine_class(game)(**config)


def make_agent(spec: str, game: str, config: dict | None = None, seed: int | None = None, **kwargs) -> Policy:
    """An agent by name for ``game`` with its configuration (``config`` as the env's options)."""
    config = dict(config or {})
    engine = _engine_for(game, config)
    if spec == "random":
        return RandomPolicy(engine, seed)
    if spec.startswith("ppo:"):
        from .trained import load_ppo_policy

        return load_ppo_policy(spec[4:], engine, seed=seed, **kwargs)
    if spec.startswith("rllib:"):
        from .rllib_agent import load_rllib_policy

        return load_rllib_policy(spec[6:], engine, seed=seed, **kwargs)
    name = _ALIASES.get(spec, spec)
    target = _REGISTRY.get(game, {}).get(name)
    if target is None:
        names = _REGISTRY.get(game, {})
        known = ["random", *sorted(names), *[a for a, t in _ALIASES.items() if t in names], "ppo:PATH", "rllib:PATH"]
        raise ValueError(f"unknown agent {spec!r} for {game}; available: {', '.join(known)}")
    mod, cls = target.split(":")
    factory: Callable[..., Policy] = getattr(import_module(mod), cls)
    return factory(engine, seed=seed, **kwargs)
