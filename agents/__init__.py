"""Agents for kortmiljo games: the policy interface, random, heuristics, search, trained."""

from .base import Policy, RandomPolicy
from .registry import AGENT_NAMES, make_agent

__all__ = ["AGENT_NAMES", "Policy", "RandomPolicy", "make_agent"]
