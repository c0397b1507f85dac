"""Training for kortmiljo agents: MaskablePPO with self-play and behaviour cloning, as an API and a command.

``Trainer(TrainConfig(game="spokelse", timesteps=200_000)).run()`` returns the report;
``kortmiljo train GAME …`` (``python -m train GAME …``) is the same run from a command line.

Modules: :mod:`train.config` (every option, :class:`~train.config.TrainConfig`),
:mod:`train.trainer` (the run), :mod:`train.cli` (argv into a config, errors),
:mod:`train.checkpoints` (the run directory, atomic writes, the resumable checkpoint),
:mod:`train.envs` (the vector env), :mod:`train.pool` (the opponent pool),
:mod:`train.callbacks` (progress, evaluation, snapshots, checkpoints per update),
:mod:`train.evaluation` (in-loop duplicate evaluation), :mod:`train.bc` and
:mod:`train.teacher_data` (behaviour-cloning pretraining), :mod:`train.init_model` (``--init``),
:mod:`train.policy` (the networks and their training speed-ups), :mod:`train.report` (the
learning-curve plot), :mod:`train.rllib_backend` (Ray RLlib), :mod:`train.demo` (the README's
main job). The single-seat gymnasium env is :class:`kortmiljo.env.training.SingleSeatEnv`;
trained models load as agents through :func:`agents.trained.load_ppo_policy` (``ppo:PATH``).
"""
