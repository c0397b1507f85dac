from .rules import ACTION_NAMES, Phase, SpokelseEngine, card_points

__all__ = ["ACTION_NAMES", "Phase", "SpokelseEngine", "card_points"]
