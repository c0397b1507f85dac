from .rules import ACTION_NAMES, CONTRACT_NAMES, Phase, SproyteEngine, contract_of_shown, deal_points

__all__ = ["ACTION_NAMES", "CONTRACT_NAMES", "Phase", "SproyteEngine", "contract_of_shown", "deal_points"]
