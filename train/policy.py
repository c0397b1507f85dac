"""MaskablePPO policies of the training CLI: cheaper training passes, and an asymmetric critic.

``KortmiljoMaskablePolicy`` is sb3-contrib's ``MaskableActorCriticPolicy`` with cheaper
training passes (:class:`TrainingSpeedups`: bfloat16 hidden layers where the CPU has them,
Gumbel-max sampling, fused Adam); evaluation and play are unchanged.

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
(the actor's input is sliced before its first layer; :mod:`kortmiljo.agents.trained` feeds zeros
for the privileged part at play time, which nothing reads).
"""

from __future__ import annotations

from typing import Any

import numpy as np
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


def native_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices natively (AVX512-BF16 or AMX), where a
    bfloat16 update pays; elsewhere bfloat16 is emulated and slower than float32."""
    try:
        return bool(th.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # a torch build without oneDNN
        return False


def resolve_train_precision(choice: str) -> str:
    """``auto`` is ``bf16`` on a CPU with native bfloat16 matrix products, else ``fp32``."""
    if choice != "auto":
        return choice
    return "bf16" if native_bf16() else "fp32"


class TrainingSpeedups:
    """The passes that training makes, made cheaper; the PPO algorithm is unchanged.

    Why: on one or two CPU cores a 256-256 network is most of the cost of training
    (benchmarks/train_throughput.py), so these three matter as much as a fast environment:

    * **bfloat16 hidden layers** when ``train_dtype`` is set: in ``forward`` (the rollout's
      batched step, for batches of at least ``autocast_min_rows`` rows: below that the casts
      cost more than they save) and ``evaluate_actions`` (the PPO update) the MLP extractor
      runs under ``torch.autocast``. Weights, gradients and optimizer stay float32, the action
      and value heads read float32 latents, and evaluation and play (``predict``,
      :func:`kortmiljo.agents.trained.actor_logits`) never see bfloat16. On a CPU with native bfloat16
      the update of a 256-256 network takes 0.13 s per 2,048 decisions instead of 0.30 s and
      a 256-row rollout step 1.1 ms instead of 3.2 ms. Measured on a trained Spøkelse policy:
      log-probabilities differ from float32 by 0.0004 on average (PPO clips ratios at 0.2),
      values by 0.001 (their spread is 0.41), and one update moves the weights in the same
      direction as float32 to a cosine of 0.995 (two float32 updates agree to 0.997). Four
      400k-step Spøkelse runs from scratch per format ended at +0.71 (bfloat16) and +0.74
      (float32) against random on average, with ±0.08 between seeds. The trainer sets
      ``train_dtype`` (``--train-precision``); it is not saved with the model.
    * **Gumbel-max sampling** in ``forward``: ``argmax(logits + Gumbel noise)`` draws from the
      same distribution as ``torch.multinomial``, in 0.3 ms instead of 1.0 ms for 1,024 rows.
    * **Fused Adam** where this torch has it on the CPU: the same update in one kernel, 0.01 s
      less per PPO update.
    """

    train_dtype: th.dtype | None = None
    autocast_min_rows = 32  # one rollout step of 8 rows: 0.16 ms in float32, 0.20 ms under autocast

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)  # type: ignore[misc]
        if self.optimizer_class is th.optim.Adam and "fused" not in self.optimizer_kwargs:  # type: ignore[attr-defined]
            try:
                self.optimizer = th.optim.Adam(
                    self.parameters(), lr=lr_schedule(1), fused=True, **self.optimizer_kwargs
                )  # type: ignore[attr-defined]
            except RuntimeError:  # no fused CPU kernel in this torch: keep the plain one
                pass

    def _latents(self, features: Any) -> tuple[th.Tensor, th.Tensor]:
        """The policy and value latents, as MaskableActorCriticPolicy computes them, in float32."""
        rows = (features[0] if isinstance(features, tuple) else features).shape[0]
        on = self.train_dtype is not None and rows >= self.autocast_min_rows
        with th.autocast(self.device.type, dtype=self.train_dtype or th.bfloat16, enabled=on):  # type: ignore[attr-defined]
            if self.share_features_extractor:  # type: ignore[attr-defined]
                latent_pi, latent_vf = self.mlp_extractor(features)  # type: ignore[attr-defined]
            else:
                latent_pi = self.mlp_extractor.forward_actor(features[0])  # type: ignore[attr-defined]
                latent_vf = self.mlp_extractor.forward_critic(features[1])  # type: ignore[attr-defined]
        return latent_pi.float(), latent_vf.float()

    def forward(self, obs: th.Tensor, deterministic: bool = False, action_masks: np.ndarray | None = None):
        """As ``MaskableActorCriticPolicy.forward`` (a rollout step), with the speed-ups above."""
        latent_pi, latent_vf = self._latents(self.extract_features(obs))  # type: ignore[attr-defined]
        values = self.value_net(latent_vf)  # type: ignore[attr-defined]
        distribution = self._get_action_dist_from_latent(latent_pi)  # type: ignore[attr-defined]
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        logits = distribution.distribution.logits  # normalized; masked actions at -1e8, far below any noise
        if deterministic:
            actions = logits.argmax(dim=-1)
        else:
            actions = (logits - th.log(-th.log(th.rand_like(logits)))).argmax(dim=-1)
        log_prob = distribution.log_prob(actions)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob  # type: ignore[attr-defined]

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor, action_masks: th.Tensor | None = None):
        """As ``MaskableActorCriticPolicy.evaluate_actions`` (the PPO update), hidden layers in ``train_dtype``."""
        latent_pi, latent_vf = self._latents(self.extract_features(obs))  # type: ignore[attr-defined]
        distribution = self._get_action_dist_from_latent(latent_pi)  # type: ignore[attr-defined]
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        values = self.value_net(latent_vf)  # type: ignore[attr-defined]
        return values, distribution.log_prob(actions), distribution.entropy()


class KortmiljoMaskablePolicy(TrainingSpeedups, MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` (SB3's ``MlpPolicy`` for MaskablePPO) with :class:`TrainingSpeedups`."""


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


class AsymmetricMaskablePolicy(TrainingSpeedups, MaskableActorCriticPolicy):
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
