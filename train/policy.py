"""An asymmetric actor-critic for MaskablePPO: the critic may see privileged training-only features.

``AsymmetricMaskablePolicy`` is sb3-contrib's ``MaskableActorCriticPolicy`` whose
observation vector is ``[actor part | privileged part]``: the policy network reads only
the first ``actor_dim`` entries (the agent's own observation), the value network reads
all of them. With :class:`kortmiljo.env.training.SingleSeatEnv` ``(privileged=True)`` the
privileged part holds hidden state (every slot and the stock order in Spøkelse, the other
seats' observations elsewhere), which only the critic ever sees during training.

Why: with hidden cards the outcome of a card game is mostly noise from the agent's own
point of view (a critic on the observation explains about a tenth of the return's
variance in Spøkelse), so PPO's advantages are dominated by card luck. A critic that
sees the cards predicts the return far better, so advantages measure the action rather
than the deal (asymmetric actor-critic: Pinto et al. 2017; oracle critics in PerfectDou
and Suphx). The baseline is a function of the full state, not of the action, so the
policy gradient keeps its expectation; the trained policy never depends on hidden cards
(the actor's input is sliced before its first layer; :mod:`agents.trained` feeds zeros
for the privileged part at play time, which nothing reads).
"""

from __future__ import annotations

from typing import Any

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


def _mlp(in_dim: int, sizes: list[int], activation_fn: type[nn.Module]) -> tuple[nn.Sequential, int]:
    layers: list[nn.Module] = []
    last = in_dim
    for size in sizes:
        layers += [nn.Linear(last, size), activation_fn()]
        last = size
    return nn.Sequential(*layers), last


class SplitMlpExtractor(nn.Module):
    """Separate policy and value MLPs; the policy MLP sees only the first ``actor_dim`` features."""

    def __init__(self, feature_dim: int, actor_dim: int, net_arch: Any, activation_fn: type[nn.Module], device: Any):
        super().__init__()
        if isinstance(net_arch, dict):
            pi, vf = list(net_arch.get("pi", [])), list(net_arch.get("vf", []))
        else:
            pi = vf = list(net_arch or [])
        self.actor_dim = int(actor_dim)
        self.policy_net, self.latent_dim_pi = _mlp(self.actor_dim, pi, activation_fn)
        self.value_net, self.latent_dim_vf = _mlp(feature_dim, vf, activation_fn)
        self.to(device)

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.policy_net(features[..., : self.actor_dim])

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(features)


class AsymmetricMaskablePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with :class:`SplitMlpExtractor` (``actor_dim`` = the actor's input size)."""

    def __init__(self, *args: Any, actor_dim: int, **kwargs: Any):
        self.actor_dim = int(actor_dim)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SplitMlpExtractor(
            self.features_dim, self.actor_dim, self.net_arch, self.activation_fn, self.device
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["actor_dim"] = self.actor_dim
        return data
