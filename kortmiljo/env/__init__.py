"""Environment adapters: the generic PettingZoo AEC environment (and training views)."""

from .aec import CardGameEnv, make_env_fns

__all__ = ["CardGameEnv", "make_env_fns"]
