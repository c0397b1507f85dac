"""Spøkelse (Norwegian "ghost") as a PettingZoo AEC environment.

>>> from kortmiljo import spokelse_v0
>>> env = spokelse_v0.env(num_players=2)          # options below
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

Options: ``num_players`` 2 (documented form) … 5; ``jack_points`` 0.5 or 11;
``match_to`` None (one round) or a target such as 21; ``reward`` ``"win"`` (zero-sum
±1 split among the lowest sums) or ``"points"`` (mean of the others' sums minus one's own).

Actions (``Discrete(7)``): 0 ``draw``, 1 ``take``, 2–5 ``swap:0`` … ``swap:3``, 6 ``discard``.

Rules and every decision: see :mod:`kortmiljo.games.spokelse.rules` and docs/spokelse.md
(the observation layout table there is generated from the code).

Infos at the end of an episode: ``round_points`` (this seat's last round sum) and
``match_points`` (its match total; outside a match the round sum).

History: v0 — first release.
"""

from .env.aec import make_env_fns
from .games.spokelse import SpokelseEngine

env, raw_env = make_env_fns(SpokelseEngine)

__all__ = ["env", "raw_env"]
