"""Toy poker, a test-only game: the smallest complete kortmiljo game (docs/adding_a_game.md).

It lives in its own folder and is registered only through the public paths: ``tests/conftest.py``
passes ``GAME`` to :func:`kortmiljo.register_game` for the test session, and a package would
declare it under the entry point group ``kortmiljo.games`` (``toy = "tests.toygame:GAME"``).
The conformance suite (``tests/conformance``) then checks it like every other game.
"""

from kortmiljo.core.game import GameDef

from .engine import ToyEngine
from .game import ACTION_NAMES, OPTIONS, ToyGame

GAME = GameDef(
    name="toy",
    display_name="Toy poker",
    version=0,
    summary="two players, six cards, one card each: check or bet, call or fold (a test-only game)",
    docs="docs/adding_a_game.md",
    options=OPTIONS,
    game=ToyGame,
    engine=ToyEngine,
    batched="tests.toygame.batched:BatchedToy",
    players=(2, 2),
    native_min_lanes=64,
    examples=({}, {"ante": 2, "bet": 2}),
    history=("v0: first release",),
)

__all__ = ["ACTION_NAMES", "GAME", "ToyEngine", "ToyGame"]
