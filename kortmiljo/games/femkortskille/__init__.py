"""Femkortskille (Swedish knock-kille): the game's descriptor. Rules and every decision: docs/femkortskille.md."""

from ...core.game import GameDef
from .game import OPTIONS, FemkortskilleGame, Phase, Status, build_action_names
from .rules import FemkortskilleEngine

GAME = GameDef(
    name="femkortskille",
    display_name="Femkortskille",
    version=0,
    summary="knock, pass or wait for a pot, then five tricks with the 42-card kille deck (3–8 players)",
    docs="docs/femkortskille.md",
    options=OPTIONS,
    game=FemkortskilleGame,
    engine=FemkortskilleEngine,
    batched="kortmiljo.games.femkortskille.batched:BatchedFemkortskille",
    players=(3, 8),
    # decisions/s with PPO updates against DummyVecEnv(8), lanes 8 / 16 / 32 / 64:
    # 0.54 / 0.69 / 1.00 / 1.23x (benchmarks/train_throughput.py, 256-256, float32, one thread)
    native_min_lanes=64,
    examples=(
        {},
        {"num_players": 3, "skituppslag": True, "knock_stake": 1},
        {"num_players": 5, "auktion": True, "max_bet": 3},
        {"poker": True},
        {"num_players": 6, "payments_stay": True, "ante_on_redeal": True},
        {"num_players": 8, "max_deals": 3},
        {"num_players": 8, "poker": True, "skituppslag": True, "auktion": True, "knock_stake": 1},
        {"num_players": 3, "ranks": ["1", "2", "3", "kille"], "hand_size": 2, "extra_cards": 0},
    ),
    history=("v0: first release",),
)

__all__ = ["GAME", "FemkortskilleEngine", "FemkortskilleGame", "Phase", "Status", "build_action_names"]
