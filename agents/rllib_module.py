"""The RLlib module of ``kortmiljo train --backend rllib``: RLlib's default PPO torch module, masked.

It lives with the agents because an ``rllib:PATH`` agent needs the class to load a checkpoint,
and the agents layer never imports the training code; the backend
(:mod:`kortmiljo.train.rllib_backend`) builds its runs with it and re-exports it, so checkpoints that
name ``kortmiljo.train.rllib_backend.MaskedPPOTorchRLModule`` still load.

:class:`MaskedPPOTorchRLModule` runs the network on the ``observations`` vector only and adds
``log(mask)`` (clamped) to the action logits in every forward pass (exploration, inference,
training), so no illegal action is ever sampled. Without Ray this module imports and defines
nothing else (``HAVE_RLLIB`` is False).
"""

from __future__ import annotations

FLOAT_MIN = -3.4e38

try:  # the rllib extra
    import gymnasium as gym
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns

    HAVE_RLLIB = True
except ImportError:
    HAVE_RLLIB = False


if HAVE_RLLIB:

    class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
        """RLlib's default PPO torch module over ``observations``, its logits masked by ``action_mask``."""

        def __init__(self, *, observation_space=None, action_space=None, **kwargs):
            # the network sees only the observation vector; the mask is applied to its logits
            self.observation_space_with_mask = observation_space
            if isinstance(observation_space, gym.spaces.Dict):
                observation_space = observation_space["observations"]
            super().__init__(observation_space=observation_space, action_space=action_space, **kwargs)

        def setup(self):
            super().setup()
            self.observation_space = self.observation_space_with_mask

        @staticmethod
        def _split(batch):
            obs = batch[Columns.OBS]
            if isinstance(obs, dict):
                batch = dict(batch)  # never mutate the caller's batch
                batch[Columns.OBS] = obs["observations"]
                return obs["action_mask"], batch
            return batch.get("action_mask"), batch

        @staticmethod
        def _mask(out, mask):
            if mask is not None:
                logits = out[Columns.ACTION_DIST_INPUTS]
                out[Columns.ACTION_DIST_INPUTS] = logits + torch.clamp(torch.log(mask), min=FLOAT_MIN)
            return out

        def _forward_inference(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._mask(super()._forward_inference(batch, **kwargs), mask)

        def _forward_exploration(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._mask(super()._forward_exploration(batch, **kwargs), mask)

        def _forward_train(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._mask(super()._forward_train(batch, **kwargs), mask)

        def compute_values(self, batch, embeddings=None):
            _, batch = self._split(batch)
            return super().compute_values(batch, embeddings)
