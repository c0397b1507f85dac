"""Training for kortmiljo agents: ``kortmiljo train GAME`` (MaskablePPO, self-play, behaviour cloning).

Modules: :mod:`train.cli` (the command and the run directory), :mod:`train.callbacks`
(progress, evaluation, snapshots, checkpoints), :mod:`train.pool` (the opponent pool),
:mod:`train.bc` (behaviour-cloning pretraining), :mod:`train.evaluate` (in-loop
duplicate evaluation), :mod:`train.report` (the learning-curve plot), :mod:`train.demo`
(the README's main job). The single-seat gymnasium env is
:class:`kortmiljo.env.training.SingleSeatEnv`; trained models load as agents through
:func:`agents.trained.load_ppo_policy` (``ppo:PATH``).
"""
