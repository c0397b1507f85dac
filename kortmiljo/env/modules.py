"""Every registered game as a PettingZoo module, ``kortmiljo.<name>_v<version>``, and a registry entry.

No module file is written per game: ``import kortmiljo.spokelse_v0`` (or ``from kortmiljo import
spokelse_v0``) is answered by :class:`EnvModuleFinder` from the registered descriptor, so a new
game needs nothing outside its own folder. Each module has ``env``, ``raw_env`` and ``GAME``, and
its docstring points at the game's rules page. ``pettingzoo.make("aec", "kortmiljo/<name>-v<version>")``
works for every registered game as well.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from types import ModuleType

from ..core.game import GameDef
from ..core.registry import games
from .aec import make_env_fns

PACKAGE = "kortmiljo"


def module_doc(definition: GameDef) -> str:
    """The env module's docstring: what the game is, how to start it, where its rules are."""
    d = definition
    options = ", ".join(f"``{k}``={opt.default!r}" for k, opt in d.options.items())
    history = "\n".join(f"* {line}" for line in d.history)
    return f"""{d.display_name} as a PettingZoo AEC environment: {d.summary}.

>>> from {PACKAGE} import {d.env_name}
>>> env = {d.env_name}.env()
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

Options (defaults): {options}.

Rules, every decision where the sources are silent, the action table, the observation layout and
the infos: {d.docs or "the game's own docs"}.

History:

{history}
"""


def build_module(definition: GameDef, name: str | None = None) -> ModuleType:
    module = ModuleType(name or f"{PACKAGE}.{definition.env_name}", module_doc(definition))
    env, raw_env = make_env_fns(definition)
    vars(module).update(env=env, raw_env=raw_env, GAME=definition, __all__=["env", "raw_env"])
    return module


def env_modules() -> dict[str, GameDef]:
    """``spokelse_v0`` → its descriptor, for every registered game."""
    return {d.env_name: d for d in games().values()}


class EnvModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers ``import kortmiljo.<env_name>`` for registered games (after every real module file)."""

    def find_spec(self, fullname, path=None, target=None):
        head, dot, tail = fullname.partition(".")
        if head != PACKAGE or not dot or "." in tail:
            return None
        if tail not in env_modules():
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return build_module(env_modules()[spec.name.partition(".")[2]], spec.name)

    def exec_module(self, module) -> None:
        pass


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (last, so real modules always win)."""
    if not any(isinstance(f, EnvModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(EnvModuleFinder())


def register_with_pettingzoo(definition: GameDef) -> None:
    """``pettingzoo.make("aec", "kortmiljo/<name>-v<version>", **options)`` (where PettingZoo has a registry)."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # PettingZoo < 1.27 has no registry; the module imports still work
        return
    env_id = f"{PACKAGE}/{definition.name}-v{definition.version}"
    if env_id not in aec_registry:
        register("aec", env_id, entry_point=f"{PACKAGE}.{definition.env_name}:env")


def env_module_of(name: str) -> ModuleType:
    """The PettingZoo module of the registered game ``name`` (``kortmiljo.<name>_v<version>``)."""
    from importlib import import_module

    from ..core.registry import game_def

    return import_module(f"{PACKAGE}.{game_def(name).env_name}")
