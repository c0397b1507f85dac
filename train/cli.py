"""``kortmiljo train GAME`` (also ``python -m kortmiljo.train GAME``): argv into a config, the run, and its errors.

``--recipe`` picks how (:mod:`kortmiljo.train.recipes`): ``pi`` (oracle policy iteration,
:mod:`kortmiljo.train.pi`, numpy weights), ``ppo`` or ``bc+ppo``; by default ``pi`` where the game has a
scripted heuristic and the budget is ``--minutes`` or ``--hours``, ``ppo`` otherwise. The rest of this
docstring is the PPO recipes' run directory; pi's is in :mod:`kortmiljo.train.pi`.

The options are the fields of :class:`kortmiljo.train.config.TrainConfig` (``--backend rllib``: of
:class:`kortmiljo.train.rllib_backend.RLlibConfig`); ``kortmiljo train GAME --help`` lists them. The run
is :class:`kortmiljo.train.trainer.Trainer` (or :func:`kortmiljo.train.rllib_run.run`). A run that cannot start
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
:class:`kortmiljo.train.policy.TrainingSpeedups`).

``--minutes`` bounds the wall-clock time of the whole invocation (behaviour-cloning data
collection and fitting included); ``--timesteps`` bounds PPO environment steps. A
killed run continues with ``--resume --out DIR`` (the budget counts time already spent).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import MISSING, fields
from typing import Any

from kortmiljo.train.config import (
    BOTH,
    TrainConfig,
    TrainError,
    cli_text,
    default_of,
    flag_of,
    text_parser,
    unpack_optional,
)

from kortmiljo.core.options import parse_options

BACKEND_HELP = "sb3: MaskablePPO in this process; rllib: Ray RLlib PPO (docs/rllib.md; --backend rllib --help)"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line naming the option, not the usage block
        raise TrainError(message)


def add_option(parser: Any, name: str, cls: type[TrainConfig] = TrainConfig) -> None:
    """Add the option of field ``name`` to ``parser`` (a benchmark takes ``--train-precision`` this way)."""
    f = next(f for f in fields(cls) if f.name == name)
    hint, m = cls.hints()[name], f.metadata
    default = default_of(f)
    help_ = m["help"]
    if not (default is None or default is False or default is MISSING or default == {}):
        help_ += f" (default: {cli_text(default)})"
    rule = cls.RULES.get(name)
    if rule is not None and (" to " in rule[1] or "at most" in rule[1]):  # a bound: say it
        help_ += f"; {rule[1]}"
    help_ = help_.replace("%", "%%")
    if name == "game":
        from kortmiljo import game_names

        parser.add_argument("game", metavar="GAME", help=f"{help_}: {', '.join(game_names())}")
    elif hint is bool:
        parser.add_argument(*(m["flags"] or (flag_of(f),)), dest=name, action="store_true", help=help_)
    elif name == "game_options":
        parser.add_argument(*m["flags"], dest=name, action="extend", nargs="+", metavar=m["metavar"], help=help_)
    else:
        parser.add_argument(*(m["flags"] or (flag_of(f),)), dest=name, type=text_parser(unpack_optional(hint)[0]),
                            default=default, choices=m["choices"], metavar=m["metavar"], help=help_)  # fmt: skip


def build_parser(cls: type[TrainConfig] = TrainConfig) -> argparse.ArgumentParser:
    """``kortmiljo train``'s parser for the backend ``cls``, one option per field it reads."""
    p = _Parser(prog=cls.PROG, description=cls.DESCRIPTION)
    p.add_argument("--backend", choices=BOTH, default=cls.BACKEND, help=BACKEND_HELP)
    groups: dict[str | None, Any] = {None: p}
    for f in cls.cli_fields():
        group = f.metadata["group"]
        if group not in groups:
            groups[group] = p.add_argument_group(group)
        add_option(groups[group], f.name, cls)
    return p


def from_namespace(cls: type[TrainConfig], ns: argparse.Namespace) -> TrainConfig:
    values = {f.name: getattr(ns, f.name) for f in cls.cli_fields()}
    try:
        values["game_options"] = parse_options(values["game_options"])
    except ValueError as err:
        raise TrainError(str(err)) from err
    return cls(**values)


def config_class(backend: str) -> type[TrainConfig]:
    if backend == "rllib":
        from kortmiljo.train.rllib_backend import RLlibConfig

        return RLlibConfig
    return TrainConfig


def parse_args(argv: list[str]) -> TrainConfig:
    """``kortmiljo train``'s argv as the config of its backend (``TrainError`` for a bad command line)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--backend", default=TrainConfig.BACKEND)  # its parser checks the value
    known, _ = pre.parse_known_args(argv)
    cls = config_class(known.backend)
    return from_namespace(cls, build_parser(cls).parse_args(argv))


def pi_summary(report: dict) -> str:
    """The last lines of a pi run: each step's gate, and where the weights are."""
    lines = []
    for s in report["steps"]:
        g = s["gate"] or {}
        d = g.get("difference")
        diff = f"{d['mean']:+.3f} [{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}]" if d else "not gated"
        lines.append(f"step {s['step']}: student - current {diff}: {'adopted' if s['adopted'] else 'not adopted'}")
    out = report["out"]
    if report["model"]:
        lines.append(f"weights: {out}/model.npz (model card: {out}/model.md)")
    else:
        lines.append("no step beat the current policy: no model.npz (the heuristic stays better)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        config = parse_args(argv)
        if config.BACKEND == "rllib":
            from kortmiljo.train.rllib_run import run as run_rllib

            run_rllib(config)
        else:
            from kortmiljo.train.recipes import train

            report = train(config)
            if report is not None and not config.quiet:
                print(pi_summary(report))
    except TrainError as err:
        print(f"kortmiljo train: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
