"""Femkortskille's own settings of the training recipes (docs/training.md), where they differ from the
defaults (found by :func:`kortmiljo.train.pi.game_setting`)."""

from kortmiljo.train.pi import Costs

# pi's costs, seconds of one core: the shipped steps' data (docs/models.md: v2 and F2)
PI_COSTS = Costs(0.17, 0.12, 160, 64, 2.0e-4, 0.02)
PI_MARGIN = 0.05  # the steps from a network used 0.05 (v3, v4, v5)

# bc+ppo: benchmarks/train_targets.py's known-good command
BC_PPO = dict(privileged_critic=True, bc_teacher="heuristic", bc_games=10000, bc_opponents=("heuristic", "random"),
              bc_epochs=6, opponents=("random", "heuristic"), self_play_prob=0.3, lr=1e-4, clip=0.15, gae_lambda=0.8,
              ent_coef=0.003, reward_scale=0.2)  # fmt: skip
