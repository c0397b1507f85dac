"""Sprøyte (Norwegian three-player trick-taking): the game's descriptor. Rules and every decision: docs/sproyte.md."""

from ...core.game import GameDef
from .game import ACTION_NAMES, CONTRACT_NAMES, OPTIONS, Phase, SproyteGame, contract_of_shown, deal_points
from .rules import SproyteEngine

GAME = GameDef(
    name="sproyte",
    display_name="Sprøyte",
    version=0,
    summary="three-player trick-taking with card exchange; forms vanlig, variasjon and tretten",
    docs="docs/sproyte.md",
    options=OPTIONS,
    game=SproyteGame,
    engine=SproyteEngine,
    batched="kortmiljo.games.sproyte.batched:BatchedSproyte",
    players=(3, 3),
    # decisions/s with PPO updates against DummyVecEnv(8), lanes 8 / 16 / 32 / 64:
    # 0.61 / 0.77 / 0.93 / 1.11x (benchmarks/train_throughput.py, 256-256, float32, one thread)
    native_min_lanes=64,
    examples=(
        {},
        {"variant": "variasjon"},
        {"variant": "tretten"},
        {"variant": "vanlig", "trump": "H", "exchange_quota": (2, 2, 2)},
        {"variant": "variasjon", "match_to": 3, "reward": "raw"},
        {"variant": "tretten", "trump": "H", "match_to": 10},
    ),
    history=("v0: first release",),
)

__all__ = [
    "ACTION_NAMES",
    "CONTRACT_NAMES",
    "GAME",
    "Phase",
    "SproyteEngine",
    "SproyteGame",
    "contract_of_shown",
    "deal_points",
]
