"""The rules engines, one subpackage per game (no pettingzoo imports)."""
