"""Views of a kortmiljo AEC env for clients that take a Box observation (see docs/clients.md).

Every kortmiljo env observes ``Dict{observation, action_mask, unseen}``. Clients built around
PettingZoo's masked classic envs read only ``observation`` and ``action_mask``: Tianshou's wrapper
drops ``unseen``, TorchRL keeps it as a separate int8 entry, and SuperSuit's observation wrappers
(``dtype``, ``frame_stack``, ``pad_observations``, ...) refuse a Dict space. :func:`flatten_observation`
joins ``observation`` and ``unseen`` (as float32, 0/1) into one float32 vector, so every client
sees everything the agent knows:

- ``mask="dict"`` (default): ``Dict{"observation": Box(float32), "action_mask": Box(int8)}``, the
  layout of PettingZoo's classic envs (Tianshou, TorchRL ``use_mask=True``, RLlib).
- ``mask="info"``: a plain ``Box(float32)`` observation, the legal actions in
  ``info["action_mask"]`` of every agent (SuperSuit's Box wrappers, libraries without masks).

:func:`numeric_infos` keeps only the numeric info keys (the ``_id`` twins stand in for the string
fields): replay buffers that store infos as arrays (Tianshou's) refuse ``None``, which Sprøyte's
``trump`` is at the end of a grand or nullo deal, as the rules say.

The flat vector is ``observation`` followed by ``unseen``: index ``i < layout.size`` is the game's
observation layout (docs/<game>.md), index ``layout.size + c`` is card ``c`` of the deck's order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper

MASK_MODES = ("dict", "info")


class _StepInfos(BaseWrapper):
    """A wrapper whose ``infos`` are derived from the wrapped env's, built once per step (every read
    of one step sees the same dicts) by :meth:`derive_infos`."""

    _infos: dict[str, dict] | None = None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._infos = None
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        self._infos = None
        self.env.step(action)

    @property
    def infos(self) -> dict[str, dict]:
        infos = self.__dict__.get("_infos")
        if infos is None:
            infos = self._infos = self.derive_infos()
        return infos

    def derive_infos(self) -> dict[str, dict]:
        return self.env.infos


class FlattenObservation(_StepInfos):
    """``observation`` and ``unseen`` joined into one float32 vector (see the module docstring)."""

    def __init__(self, env: AECEnv, mask: str = "dict"):
        if mask not in MASK_MODES:
            raise ValueError(f"mask={mask!r} is not allowed; use one of {MASK_MODES}")
        super().__init__(env)
        self.mask = mask
        self._spaces: dict[str, spaces.Space] = {}
        for agent in env.possible_agents:
            space = env.observation_space(agent)
            if not (isinstance(space, spaces.Dict) and {"observation", "unseen", "action_mask"} <= set(space.spaces)):
                raise TypeError(f"flatten_observation needs a kortmiljo env (Dict with unseen), got {space}")
            size = spaces.flatdim(space["observation"]) + spaces.flatdim(space["unseen"])
            flat = spaces.Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float32)
            self._spaces[agent] = (
                spaces.Dict({"observation": flat, "action_mask": space["action_mask"]}) if mask == "dict" else flat
            )

    @property
    def observation_spaces(self) -> dict[str, spaces.Space]:
        return self._spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self._spaces[agent]

    def observe(self, agent: str) -> Any:
        o = self.env.observe(agent)
        flat = np.concatenate([o["observation"], o["unseen"].astype(np.float32)])
        if self.mask == "dict":
            return {"observation": flat, "action_mask": o["action_mask"]}
        return flat

    def derive_infos(self) -> dict[str, dict]:
        if self.mask == "dict":
            return self.env.infos
        # the mask moves into every agent's info (all zeros for an agent not on move)
        env = self.env
        return {a: {**i, "action_mask": env.observe(a)["action_mask"]} for a, i in env.infos.items()}


def flatten_observation(env: AECEnv, mask: str = "dict") -> FlattenObservation:
    """Wrap a kortmiljo AEC env so that ``observation`` and ``unseen`` arrive as one float32 vector.

    ``mask="dict"`` keeps ``Dict{observation, action_mask}``; ``mask="info"`` gives a plain Box and
    puts the action mask in each agent's ``info["action_mask"]``.
    """
    return FlattenObservation(env, mask=mask)


class NumericInfos(_StepInfos):
    """Every agent's info without its string fields (see :func:`numeric_infos`)."""

    def derive_infos(self) -> dict[str, dict]:
        return {a: _numeric(i) for a, i in self.env.infos.items()}


def _numeric(info: dict) -> dict:
    return {k: v for k, v in info.items() if isinstance(v, (bool, int, float, np.integer, np.floating, np.ndarray))}


def numeric_infos(env: AECEnv) -> NumericInfos:
    """Wrap an AEC env so that each info keeps only its numbers, flags and arrays.

    The string fields (``contract``, ``trump``, ``winner``, ``truncated_by``) go; their numeric twins
    (``contract_id``, ``trump_id``, ``winner_id``: -1 for unknown or none) and the env's own
    truncation flag carry the same facts.
    """
    return NumericInfos(env)
