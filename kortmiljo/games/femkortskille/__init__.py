from .rules import FemkortskilleEngine, Phase, Status, build_action_names

__all__ = ["FemkortskilleEngine", "Phase", "Status", "build_action_names"]
