"""``kortmiljo train GAME`` (also ``python -m train GAME``): argv into a config, the run, and its errors.

The options are the fields of :class:`train.config.TrainConfig` (``--backend rllib``: of
:class:`train.rllib_backend.RLlibConfig`); ``kortmiljo train GAME --help`` lists them. The run
is :class:`train.trainer.Trainer` (or :func:`train.rllib_backend.run`). A run that cannot start
(a bad value, a bad path, a corrupt checkpoint, a model for another game) prints one line on
stderr, writes nothing and exits with 2.

One run directory (``--out``) holds everything::

    model.zip            the model to use (the best by in-loop duplicate evaluation; --keep-last: the last)
    last_model.zip       the policy when training stopped
    best_model.zip       the best-evaluated policy
    config.json          game fingerprint, configuration, observation and action sizes, kortmiljo version
    args.json            the run's options (``--resume`` reuses them)
    progress.csv         one row per PPO update: timesteps, time, training return, PPO statistics
    eval.csv             one row per evaluation: mean reward and 95% interval per opponent
    report.json          the final report (phases, timings, throughput, evaluations)
    learning_curve.png   evaluation results and training return against timesteps
    tb/                  TensorBoard logs (``tensorboard --logdir DIR/tb``)
    checkpoint/          the latest resumable checkpoint (model + optimizer, timesteps,
                         opponent pool, RNG states), written atomically

Speed on a small CPU, all by default: 64 games at once on the native vector env
(``--vec auto``, :mod:`kortmiljo.env.vector`), rollouts on one torch thread (``--threads``),
each PPO update on all cores up to 4 (``--update-threads``), and the hidden layers of both
in bfloat16 where the CPU multiplies it natively (``--train-precision auto``,
:class:`train.policy.TrainingSpeedups`).

``--minutes`` bounds the wall-clock time of the whole invocation (behaviour-cloning data
collection and fitting included); ``--timesteps`` bounds PPO environment steps. A
killed run continues with ``--resume --out DIR`` (the budget counts time already spent).
"""

from __future__ import annotations

import argparse
import sys

from train.config import TrainConfig, TrainError, build_parser, from_namespace


def config_class(backend: str) -> type[TrainConfig]:
    if backend == "rllib":
        from train.rllib_backend import RLlibConfig

        return RLlibConfig
    return TrainConfig


def parse_args(argv: list[str]) -> TrainConfig:
    """``kortmiljo train``'s argv as the config of its backend (``TrainError`` for a bad command line)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--backend", default=TrainConfig.BACKEND)  # its parser checks the value
    known, _ = pre.parse_known_args(argv)
    cls = config_class(known.backend)
    return from_namespace(cls, build_parser(cls).parse_args(argv))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        config = parse_args(argv)
        if config.BACKEND == "rllib":
            from train.rllib_backend import run as run_rllib

            run_rllib(config)
        else:
            from train.trainer import Trainer

            Trainer(config).run()
    except TrainError as err:
        print(f"kortmiljo train: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
