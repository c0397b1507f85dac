"""Spøkelse (Norwegian, "the ghost"): the game's descriptor. Rules and every decision: docs/spokelse.md."""

from ...core.game import Features, GameDef
from . import features
from .game import ACTION_NAMES, OPTIONS, Phase, SpokelseGame, card_points
from .rules import SpokelseEngine

GAME = GameDef(
    name="spokelse",
    display_name="Spøkelse",
    version=0,
    summary="golf-like memory game with a hidden ghost card (2–5 players)",
    docs="docs/spokelse.md",
    options=OPTIONS,
    game=SpokelseGame,
    engine=SpokelseEngine,
    batched="kortmiljo.games.spokelse.batched:BatchedSpokelse",
    players=(2, 5),
    # decisions/s with PPO updates against DummyVecEnv(8), lanes 8 / 16 / 32 / 64:
    # 0.88 / 1.07 / 1.21 / 1.34x (benchmarks/train_throughput.py, 256-256, float32, one thread)
    native_min_lanes=16,
    features=Features(
        potential=features.potential,
        potential_batch=features.potential_batch,
        privileged=features.privileged,
        privileged_batch=features.privileged_batch,
        privileged_size=features.privileged_size,
    ),
    examples=(
        {},
        {"num_players": 3},
        {"num_players": 5, "jack_points": 11},
        {"match_to": 21},
        {"match_to": 21, "reward": "points", "num_players": 3},
        {"cards": ["AS", "2S", "3S", "8S", "KS", "QS", "JS", "TS"], "num_slots": 1, "max_turns": 4},
    ),
    history=("v0: first release",),
)

__all__ = ["ACTION_NAMES", "GAME", "Phase", "SpokelseEngine", "SpokelseGame", "card_points"]
