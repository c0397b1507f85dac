"""Training for kortmiljo agents: MaskablePPO with self-play and behaviour cloning, as an API and a command.

``Trainer(TrainConfig(game="spokelse", timesteps=200_000)).run()`` returns the report;
``kortmiljo train GAME …`` (``python -m kortmiljo.train GAME …``) is the same run from a command line.

Modules: :mod:`kortmiljo.train.config` (every option, :class:`~kortmiljo.train.config.TrainConfig`),
:mod:`kortmiljo.train.trainer` (the run), :mod:`kortmiljo.train.cli` (argv into a config, errors),
:mod:`kortmiljo.train.checkpoints` (the run directory, atomic writes, the resumable checkpoint),
:mod:`kortmiljo.train.envs` (the vector env), :mod:`kortmiljo.train.pool` (the opponent pool),
:mod:`kortmiljo.train.callbacks` (progress, evaluation, snapshots, checkpoints per update),
:mod:`kortmiljo.train.evaluation` (in-loop duplicate evaluation), :mod:`kortmiljo.train.bc` and
:mod:`kortmiljo.train.teacher_data` (behaviour-cloning pretraining), :mod:`kortmiljo.train.init_model` (``--init``),
:mod:`kortmiljo.train.policy` (the networks and their training speed-ups), :mod:`kortmiljo.train.report` (the
learning-curve plot), :mod:`kortmiljo.train.rllib_backend` (Ray RLlib), :mod:`kortmiljo.train.demo` (the README's
main job). The single-seat gymnasium env is :class:`kortmiljo.env.training.SingleSeatEnv`;
trained models load as agents through :func:`kortmiljo.agents.trained.load_ppo_policy` (``ppo:PATH``).
"""
