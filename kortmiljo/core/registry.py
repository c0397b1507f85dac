"""The one list of games: built from the descriptors, never written down.

The package's own games are the subpackages of :mod:`kortmiljo.games` whose ``__init__``
defines a descriptor ``GAME``; a third-party package adds one by declaring it under the entry
point group ``kortmiljo.games`` (``toy = "my_package.toy:GAME"``); :func:`register_game` adds
one at run time. Discovery runs once, on the first question asked.
"""

from __future__ import annotations

import pkgutil
import warnings
from collections.abc import Callable
from importlib import import_module
from importlib.metadata import entry_points
from typing import Any

from .game import Game, GameDef

ENTRY_POINT_GROUP = "kortmiljo.games"

_GAMES: dict[str, GameDef] = {}
_LISTENERS: list[Callable[[GameDef], None]] = []
_discovered = False


def _descriptor(obj: Any, where: str) -> GameDef:
    if isinstance(obj, GameDef):
        return obj
    found = getattr(obj, "GAME", None)  # a module or package that defines GAME
    if isinstance(found, GameDef):
        return found
    raise TypeError(f"{where} is not a kortmiljo GameDef (nor a module defining GAME = GameDef(...))")


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    import kortmiljo.games as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.ispkg:
            module = import_module(f"{package.__name__}.{info.name}")
            if isinstance(getattr(module, "GAME", None), GameDef):
                _add(module.GAME, replace=False)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            _add(_descriptor(ep.load(), f"entry point {ep.name} = {ep.value}"), replace=False)
        except Exception as err:  # a broken plug-in must not take the package down
            warnings.warn(f"kortmiljo: skipping the game plug-in {ep.name!r} ({ep.value}): {err}", stacklevel=2)


def _add(definition: GameDef, replace: bool) -> GameDef:
    old = _GAMES.get(definition.name)
    if old is definition:
        return definition
    if old is not None and not replace:
        raise ValueError(f"a game named {definition.name!r} is already registered ({old!r}); pass replace=True")
    _GAMES[definition.name] = definition
    for listener in _LISTENERS:
        listener(definition)
    return definition


def on_register(listener: Callable[[GameDef], None]) -> None:
    """Call ``listener(definition)`` for every game registered now and later (the env layer uses it
    to offer each game as a PettingZoo module and registry entry; the core imports nothing above it)."""
    _LISTENERS.append(listener)
    for definition in list(_GAMES.values()):
        listener(definition)


def register_game(definition: GameDef, *, replace: bool = False) -> GameDef:
    """Add a game at run time (registering the same descriptor twice is a no-op)."""
    if not isinstance(definition, GameDef):
        raise TypeError(f"register_game takes a GameDef, got {definition!r}")
    _discover()
    return _add(definition, replace)


def games() -> dict[str, GameDef]:
    """Every registered game by name, in registration order."""
    _discover()
    return dict(_GAMES)


def game_names() -> list[str]:
    return list(games())


def game_def(name: str | GameDef) -> GameDef:
    """The descriptor of ``name``; ``ValueError`` naming the registered games otherwise."""
    if isinstance(name, GameDef):
        return name
    _discover()
    found = _GAMES.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(_GAMES) or '(none)'}")
    return found


def load_game(name: str | GameDef | Game, **options: Any) -> Game:
    """The configured game: ``load_game("sproyte", variant="tretten")`` (a Game passes through)."""
    if isinstance(name, Game):
        if options:
            raise ValueError("pass either a configured Game or a name with options, not both")
        return name
    return game_def(name).configure(**options)
