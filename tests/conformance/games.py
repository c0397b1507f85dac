"""Which games and configurations the conformance suite checks, and the test-only games it adds.

``register_test_games`` registers every package directly under ``tests/`` whose ``__init__``
defines ``GAME = GameDef(...)``, through the public :func:`kortmiljo.register_game` only, so that a
test game (``tests/toygame``) needs no file outside its folder. ``tests/conftest.py`` calls it at
the start of the session; ``benchmarks/soak.py`` calls it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

import kortmiljo
from kortmiljo.core.game import Game, GameDef
from kortmiljo.core.registry import games

TESTS = Path(__file__).resolve().parents[1]
LONG_EPISODE = 100  # decisions per seat above which a configuration counts as long


def register_test_games() -> list[str]:
    """Register the test-only games (``tests/<pkg>/__init__.py`` defining ``GAME``); their names."""
    names = []
    for init in sorted(TESTS.glob("*/__init__.py")):
        if "GAME" not in init.read_text(encoding="utf-8"):  # cheap filter: import only candidates
            continue
        module = import_module(f"{TESTS.name}.{init.parent.name}")
        definition = getattr(module, "GAME", None)
        if isinstance(definition, GameDef):
            kortmiljo.register_game(definition)  # a no-op when this descriptor is already registered
            names.append(definition.name)
    return names


@dataclass(frozen=True)
class Case:
    """One configuration of one registered game, as the conformance checks play it."""

    definition: GameDef
    config: dict[str, Any]
    index: int  # position in the descriptor's ``examples``

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def id(self) -> str:
        return f"{self.name}-{self.index}"

    @property
    def seed(self) -> int:
        """A seed of its own per case, stable across runs (not ``hash``, which is salted per process)."""
        return sum((i + 1) * ord(ch) for i, ch in enumerate(self.id))

    def game(self) -> Game:
        return self.definition.configure(**self.config)

    def env(self, **kwargs: Any):
        """The game's PettingZoo ``env()`` (wrapped as users get it), built from its env module."""
        module = import_module(f"kortmiljo.{self.definition.env_name}")
        return module.env(**kwargs, **self.config)

    def raw_env(self, **kwargs: Any):
        module = import_module(f"kortmiljo.{self.definition.env_name}")
        return module.raw_env(**kwargs, **self.config)

    @property
    def long(self) -> bool:
        """Whether an episode may run long (no bound on a seat's decisions, or a bound above
        100): the checks then play fewer episodes."""
        bound = self.game().facts.max_decisions
        return bound is None or bound > LONG_EPISODE


def conformance_cases(names: list[str] | None = None) -> list[Case]:
    """Every (game, example configuration) of the registered games (or of ``names``), in registry order."""
    out = []
    for name, definition in games().items():
        if names is not None and name not in names:
            continue
        for i, config in enumerate(definition.examples):
            out.append(Case(definition, dict(config), i))
    return out


def batched_cases(cases: list[Case]) -> list[Case]:
    """The cases a batched engine plays (the game has one and it supports the configuration)."""
    return [c for c in cases if c.definition.has_batched and c.definition.batched_class.unsupported(c.game()) is None]
