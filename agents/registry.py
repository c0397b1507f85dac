"""Agents by name, for a configured game.

Names (every game): ``random``; ``heuristic`` (= the newest ``heuristic_vN`` of the game, from
:mod:`kortmiljo.agents.catalog`); ``search`` (= ``search_v0``, determinized Monte Carlo over the game's
heuristic, or over random play where it has none); ``pretrained`` (= the newest ``pretrained_vN``
that ships for the game in its configuration, a numpy MLP whose weights lie in
``agents/weights/<game>_vN.npz``, or ``<game>@<key>=<value>,..._vN.npz`` for another configuration:
:mod:`kortmiljo.agents.pretrained`).
Versioned names keep published results comparable when a newer version lands.

Specs that name a file or code (docs/agents.md), checked in this order after the names:

* ``ppo:PATH`` (a MaskablePPO model from ``kortmiljo train``) and ``rllib:PATH`` (a learner
  trained with ``kortmiljo train --backend rllib``);
* ``PATH.zip`` (= ``ppo:PATH.zip``) and ``PATH.npz`` (a weights file in the package's own,
  pickle-free format: :func:`kortmiljo.agents.pretrained.load_mlp_policy`);
* ``path/to/file.py:attr`` and ``package.module:attr`` (:mod:`kortmiljo.agents.plugins`): a Policy subclass,
  a factory or any object with ``act(obs)``.

**Trust.** ``module:attr`` and ``file.py:attr`` import and run that code, as ``import`` does; a
``.zip`` (SB3) unpickles, i.e. runs, what it holds. Name only files you trust. A ``.npz`` runs
no code.

:func:`make_agent` also takes the objects themselves (a Policy, a class, a factory, an object
with ``act``: :func:`kortmiljo.agents.plugins.as_policy`), so the Python API accepts them where the
command lines take a spec.
"""

from __future__ import annotations

import re
from typing import Any

from kortmiljo.core.game import Game
from kortmiljo.core.registry import load_game

from .base import Policy, RandomPolicy
from .catalog import game_agents, newest_heuristic, register_agent
from .plugins import MODULE_SPEC

__all__ = [
    "AGENT_HELP",
    "AGENT_KINDS",
    "AGENT_NAMES",
    "SPEC_KINDS",
    "agent_help",
    "available_agents",
    "make_agent",
    "register_agent",
    "resolve_name",
    "spec_kind",
]

AGENT_NAMES = ("random", "heuristic", "search", "pretrained", "ppo:PATH", "rllib:PATH")
SPEC_KINDS = ("ppo:PATH", "rllib:PATH", "PATH.zip", "PATH.npz", "module:attr", "file.py:attr")
# every kind of agent, as the command lines' help lists them (one source for eval, play, benchmark)
AGENT_KINDS = ("random", "heuristic[_vN]", "search[_v0]", "pretrained[_vN]", *SPEC_KINDS)
AGENT_HELP = ", ".join(AGENT_KINDS)


def agent_help() -> str:
    """:data:`AGENT_HELP` and the configurations that have a pretrained agent, read from the
    shipped file names (what ``eval``, ``play`` and ``benchmark`` print in ``--help``)."""
    from .pretrained import shipped_configurations

    have = ", ".join(shipped_configurations()) or "none"
    return (f"{AGENT_HELP}; pretrained[_vN] ships for (a game alone: its default configuration): {have}; "
            "for another, train one with kortmiljo train GAME --config KEY=VALUE --recipe pi --hours 2 "
            "--out DIR and play DIR/model.npz")  # fmt: skip


def resolve_name(name: str, game: str | Game) -> str:
    """``heuristic`` → the game's newest ``heuristic_vN``; ``search`` → ``search_v0``;
    ``pretrained`` → the newest ``pretrained_vN`` shipped for the game (a configured :class:`Game`:
    for its configuration; ``pretrained_v1`` where none ships, which is then refused with the
    configurations that have one); others unchanged."""
    game_name = game if isinstance(game, str) else game.name
    if name == "heuristic":
        return newest_heuristic(game_name) or "heuristic_v0"
    if name == "pretrained":
        from .pretrained import newest_version

        return f"pretrained_v{newest_version(game) or 1}"
    return "search_v0" if name == "search" else name


def _pretrained_names(game: str | Game) -> list[str]:
    """``pretrained`` and its versions, where weights for the game (in its configuration) ship."""
    from .pretrained import PRETRAINED_VERSIONS, non_default, shipped_versions

    if isinstance(game, str) or not non_default(game):
        name = game if isinstance(game, str) else game.name
        versions = [v for v in shipped_versions(name) if v in PRETRAINED_VERSIONS]
    else:  # the default configuration's never fit another: the fingerprint holds the configuration
        versions = shipped_versions(game)
    if not versions:
        return []
    return ["pretrained", *(f"pretrained_v{v}" for v in versions)]


def available_agents(game: str | Game) -> list[str]:
    """Every name :func:`make_agent` takes for a game (named: its default configuration; a
    configured :class:`Game`: that configuration), ``pretrained`` only where its weights ship,
    then ``ppo:PATH`` and ``rllib:PATH``; the other spec kinds are :data:`SPEC_KINDS`."""
    name = game if isinstance(game, str) else game.name
    own = sorted(game_agents(name))
    alias = ["heuristic"] if newest_heuristic(name) else []
    return ["random", *own, *alias, "search", "search_v0", *_pretrained_names(game), "ppo:PATH", "rllib:PATH"]


def spec_kind(spec: str) -> str | None:
    """What a spec string names: ``"name"`` (any plain word: a known name or a typo), ``"ppo"``,
    ``"rllib"``, ``"zip"``, ``"npz"``, ``"file"`` (``file.py:attr``, or any ``path/…:attr``), ``"module"``
    (``module:attr``), or None (none of these). Code runs on loading ``zip``, ``file``, ``module``
    (and ``ppo``, an SB3 zip)."""
    if spec.startswith("ppo:"):
        return "ppo"
    if spec.startswith("rllib:"):
        return "rllib"
    low = spec.lower()
    if low.endswith(".zip"):
        return "zip"
    if low.endswith(".npz"):
        return "npz"
    where, sep, attr = spec.rpartition(":")
    if sep and attr and (where.endswith(".py") or "/" in where or "\\" in where):
        return "file"  # a path (one that is not a .py file gets that error, not "unknown agent")
    if MODULE_SPEC.match(spec):
        return "module"
    if re.fullmatch(r"\w+", spec):
        return "name"
    return None


def _unknown(spec: str, g: Game) -> ValueError:
    names = [a for a in available_agents(g) if a not in SPEC_KINDS]
    return ValueError(
        f"unknown agent {spec!r} for {g.name}; available: {', '.join(names)}; or a spec: {', '.join(SPEC_KINDS)}"
    )


def make_agent(
    spec: Any, game: Game | str, config: dict | None = None, seed: int | None = None, **kwargs: Any
) -> Policy:
    """An agent for a configured game (or a registered game's name with its ``config``).

    ``spec``: a name or spec string (see the module docstring), or an object: a Policy (returned as
    it is), a Policy subclass, another class with ``act``, a factory or an object with ``act``
    (:func:`kortmiljo.agents.plugins.as_policy`). ``kwargs`` go to the agent's constructor or loader."""
    g = load_game(game, **(config or {})) if isinstance(game, str) else game
    if config and not isinstance(game, str):
        raise ValueError("pass either a configured Game or a game name with config, not both")
    if not isinstance(spec, str):
        from .plugins import as_policy

        if isinstance(spec, Policy) or callable(spec) or callable(getattr(spec, "act", None)):
            return as_policy(spec, g, seed=seed, **kwargs)
        raise ValueError(
            f"an agent is a name such as 'heuristic', a spec such as 'my_policy.py:MyPolicy', or a policy "
            f"object with act(obs); got {spec!r:.60}"
        )
    if spec == "random":
        return RandomPolicy(g, seed)
    name = resolve_name(spec, g)
    if name == "search_v0":
        from .search import SearchPolicy

        return SearchPolicy(g, seed=seed, **kwargs)
    if name.startswith("pretrained_v") and name[12:].isdigit():
        from .pretrained import pretrained_policy

        return pretrained_policy(g, version=int(name[12:]), seed=seed, **kwargs)
    factory = game_agents(g.name).get(name)
    if factory is not None:
        return factory(g, seed=seed, **kwargs)
    kind = spec_kind(spec)
    if kind in ("ppo", "zip"):
        from .trained import load_ppo_policy

        return load_ppo_policy(spec[4:] if kind == "ppo" else spec, g, seed=seed, **kwargs)
    if kind == "rllib":
        from .rllib_agent import load_rllib_policy

        return load_rllib_policy(spec[6:], g, seed=seed, **kwargs)
    if kind == "npz":
        from .pretrained import load_mlp_policy

        return load_mlp_policy(spec, g, seed=seed, **kwargs)
    if kind in ("file", "module"):
        from .plugins import load_plugin

        return load_plugin(spec, g, seed=seed, **kwargs)
    if spec.endswith(".py"):
        raise ValueError(f"agent {spec!r}: name the policy in the file too, as {spec}:ATTR")
    raise _unknown(spec, g)
