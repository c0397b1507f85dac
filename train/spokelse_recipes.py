"""Spøkelse's own settings of the training recipes (docs/training.md), where they differ from the
defaults (found by :func:`kortmiljo.train.pi.game_setting`)."""

from kortmiljo.train.pi import Costs

# pi's costs, seconds of one core: the heuristic's chunk measured for this recipe (15 s a chunk with the
# machine's two cores shared four ways, so about 4 s alone); a network's chunk not measured (taken as equal)
PI_COSTS = Costs(4.0, 4.0, 950, 450, 2.0e-4, 0.02)

# bc+ppo: benchmarks/train_targets.py's known-good command
BC_PPO = dict(privileged_critic=True, bc_teacher="heuristic", bc_games=8000, bc_opponents=("heuristic",), bc_epochs=6,
              opponents=("heuristic",), self_play_prob=0.0, lr=3e-5, clip=0.1, gae_lambda=0.8, n_steps=64,
              batch_size=1024, ent_coef=0.001, target_kl=0.02)  # fmt: skip
