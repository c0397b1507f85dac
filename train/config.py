"""The options of a training run, defined once.

:class:`TrainConfig` holds every option of ``kortmiljo train`` with its default and its help.
``Trainer(TrainConfig(game="spokelse", timesteps=2048)).run()`` (:mod:`kortmiljo.train.trainer`) runs from
it; the command line (:mod:`kortmiljo.train.cli`) only parses argv into it, with a parser that
:func:`kortmiljo.train.cli.build_parser` generates from the fields (their help, group, flags and choices
are the fields' metadata, :func:`option`), so an option exists in one place for the API, the
command line, the demo and the benchmarks. The RLlib backend's
:class:`kortmiljo.train.rllib_backend.RLlibConfig` subclasses it: the class is the backend.

:meth:`TrainConfig.validate` refuses a value of the wrong type or out of range with a
:class:`TrainError` (one line, naming the option) before any work starts. A run directory's
``args.json`` is :meth:`TrainConfig.to_dict`, read back by :meth:`TrainConfig.from_dict`, and
:meth:`TrainConfig.command_line` is the ``kortmiljo train`` command that gives the same config.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import shlex
import time
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from kortmiljo.core.options import is_int, parse_options, parse_scalar, short_repr

SB3, RLLIB = ("sb3",), ("rllib",)
BOTH = SB3 + RLLIB


class TrainError(Exception):
    """A run that cannot start, said in one line (the command line prints it and exits with 2)."""


def option(
    default: Any,
    help: str,
    *,
    group: str | None = "run",
    flags: tuple[str, ...] | None = None,
    metavar: str | None = None,
    choices: tuple | None = None,
    backends: tuple[str, ...] = SB3,
) -> Any:
    """A config field with what its command-line option needs; ``backends``: who reads it."""
    meta = {"help": help, "group": group, "flags": flags, "metavar": metavar, "choices": choices, "backends": backends}
    if isinstance(default, dict):
        return dataclasses.field(default_factory=dict, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


# ---- what a value must be, for the options that need more than their type -------------------------


def at_least(lo: int) -> tuple[Callable[[Any], bool], str]:
    return (lambda v: v >= lo), f"at least {lo}"


def between(lo: float, hi: float) -> tuple[Callable[[Any], bool], str]:
    """From ``lo`` to ``hi``: every size and count a user sets has a maximum, checked before anything
    is built from it (``--help`` shows it)."""
    return (lambda v: lo <= v <= hi), f"from {lo:,} to {hi:,}"


def layers(most: int, widest: int) -> tuple[Callable[[Any], bool], str]:
    words = f"1 to {most} layer sizes of 1 to {widest:,} each, such as 256,256"
    return (lambda v: 0 < len(v) <= most and all(1 <= x <= widest for x in v)), words


def names(most: int) -> tuple[Callable[[Any], bool], str]:
    words = f"1 to {most} comma-separated agent names"
    return (lambda v: 0 < len(v) <= most and all(n.strip() for n in v)), words


WEEK_MINUTES = 7 * 24 * 60
MAX_ROLLOUT = 10**7  # decisions of one PPO rollout (--n-envs x --n-steps), held in memory
MAX_STEPS = 10**10  # environment steps, and the intervals counted in them


def finite(lo: float, strict: bool) -> tuple[Callable[[Any], bool], str]:
    if strict:
        return (lambda v: math.isfinite(v) and v > lo), f"a finite number above {lo:g}"
    return (lambda v: math.isfinite(v) and v >= lo), f"a finite number of at least {lo:g}"


FRACTION = ((lambda v: 0 <= v <= 1), "between 0 and 1")
POSITIVE, COUNT, NONNEGATIVE = finite(0, True), at_least(1), at_least(0)
MINUTES = ((lambda v: math.isfinite(v) and 0 < v <= WEEK_MINUTES), f"above 0 and at most {WEEK_MINUTES:,} (a week)")
RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "timesteps": between(1, MAX_STEPS), "minutes": MINUTES, "workers": between(0, 1024),
    "hours": ((lambda v: math.isfinite(v) and 0 < v <= WEEK_MINUTES / 60), "above 0 and at most 168 (a week)"),
    "seed": ((lambda v: 0 <= v < 2**32), "an int from 0 to 2**32 - 1"),
    "out": ((lambda v: bool(v.strip())), "a directory"), "cache": ((lambda v: bool(v.strip())), "a directory"),
    "n_envs": between(1, 4096), "threads": between(1, 1024), "update_threads": between(0, 1024),
    "net": layers(16, 8192),
    "lr": POSITIVE, "n_steps": between(1, 100_000), "batch_size": between(2, 10**7), "n_epochs": between(1, 1000),
    "gamma": ((lambda v: 0 < v <= 1), "above 0 and at most 1"), "gae_lambda": FRACTION, "clip": POSITIVE,
    "ent_coef": finite(0, False), "vf_coef": finite(0, False), "target_kl": POSITIVE, "max_grad_norm": POSITIVE,
    "shaping_scale": finite(-math.inf, False), "reward_scale": POSITIVE, "self_play_prob": FRACTION,
    "snapshot_every": between(0, MAX_STEPS), "pool_size": between(1, 1000), "eval_every": between(0, MAX_STEPS),
    "eval_deals": between(1, 10**6), "checkpoint_every": between(0, MAX_STEPS), "bc_games": between(1, 10**7),
    "bc_minutes": MINUTES, "bc_workers": between(1, 1024), "bc_epochs": between(1, 1000), "bc_lr": POSITIVE,
    "bc_aux_coef": finite(0, False), "bc_aux_batches": between(1, 10**6),
    **{k: names(64) for k in ("opponents", "eval_opponents", "bc_opponents")},
}  # fmt: skip


@dataclass
class TrainConfig:
    """Every option of ``kortmiljo train`` (its ``--help`` shows the same words), for the SB3 backend.

    Field names are the options' with ``_`` for ``-`` (``--n-envs`` is ``n_envs``), except
    ``game_options`` (``--config``, a dict of the game's options); agent lists are tuples of
    names (``opponents=("random", "heuristic")``) and ``net`` a tuple of layer sizes.
    """

    BACKEND: ClassVar[str] = "sb3"
    PROG: ClassVar[str] = "kortmiljo train"
    DESCRIPTION: ClassVar[str] = (
        "Train an agent for a kortmiljo game: oracle policy iteration to numpy weights (--recipe pi), or MaskablePPO "
        "(--recipe ppo; bc+ppo: behaviour cloning of the heuristic first). With a scripted heuristic and a time "
        "budget the default is pi from an hour, bc+ppo below; ppo otherwise (docs/training.md)."
    )
    RULES: ClassVar[dict] = RULES

    game: str = option(MISSING, "the game to train", group=None, backends=BOTH)
    game_options: dict = option({}, "game option, repeatable (e.g. num_players=3)", group=None, flags=("--config",),
                                metavar="KEY=VALUE", backends=BOTH)  # fmt: skip
    recipe: str | None = option(None, "how to train (docs/training.md): pi, oracle policy iteration from the "
                                "heuristic; ppo, PPO self-play; bc+ppo, behaviour cloning of the heuristic, then PPO. "
                                "Default, where the game has a scripted heuristic and the budget is time (--minutes or "
                                "--hours): pi from 60 minutes (measured above the heuristic), bc+ppo below (measured "
                                "at its level in 30 minutes; pi needs about 40 minutes for one step); ppo otherwise "
                                "(a --timesteps budget is PPO's, and a game without a heuristic has no pi)",
                                group=None, choices=("pi", "ppo", "bc+ppo"))  # fmt: skip
    # budget
    timesteps: int | None = option(None, "PPO environment steps (learner decisions); default 200000 without --minutes",
                                   group="budget", backends=BOTH)  # fmt: skip
    minutes: float | None = option(None, "wall-clock budget of the whole run, every phase included", group="budget",
                                   backends=BOTH)  # fmt: skip
    hours: float | None = option(None, "the budget in hours (instead of --minutes)", group="budget")
    resume: bool = option(False, "continue the run in --out from its checkpoint", group="budget")
    # run
    out: str | None = option(None, "run directory (default runs/GAME-YYYYmmdd-HHMMSS)", backends=BOTH)
    seed: int = option(0, "seeds the envs, the opponents, the network and the evaluations", backends=BOTH)
    n_envs: int = option(64, "games played at once (64: the native vector env, about twice the training speed "
                         "of 8 scalar envs)")  # fmt: skip
    vec: str = option("auto", "native: one batched engine for all envs (kortmiljo.env.vector); auto: native where "
                      "the game has a batched engine and --n-envs is large enough for it to be faster, else dummy "
                      "(beats subproc on 2 cores)", choices=("auto", "native", "dummy", "subproc"))  # fmt: skip
    threads: int = option(1, "torch threads while collecting rollouts (1 is fastest for one small batch per step)")
    update_threads: int = option(0, "torch threads during each PPO update (large minibatches use several cores "
                                 "well); 0: the cores this process may use, at most 4")  # fmt: skip
    train_precision: str = option("auto", "number format of the hidden layers while training (batched rollout steps "
                                  "and the PPO update; weights, optimizer, evaluation and play stay float32); auto: "
                                  "bf16 where the CPU multiplies bfloat16 natively (about 2x faster training there), "
                                  "else fp32", choices=("auto", "fp32", "bf16"))  # fmt: skip
    workers: int = option(0, "--recipe pi: processes playing its oracle games and gates, and threads of its fits "
                          "(0: the cores this process may use, at most 4)")  # fmt: skip
    no_progress: bool = option(False, "no progress bar")
    quiet: bool = option(False, "print nothing but errors", backends=BOTH)
    # model and PPO
    net: tuple[int, ...] = option((256, 256), "hidden layer sizes of policy and value networks",
                                  group="model and PPO", backends=BOTH)  # fmt: skip
    init: str | None = option(None, "start from this model (.zip or run directory) or numpy weights (.npz: a "
                              "distilled student, train/distill.py --activation tanh)", group="model and PPO",
                              metavar="MODEL")  # fmt: skip
    lr: float = option(3e-4, "learning rate", group="model and PPO", backends=BOTH)
    n_steps: int = option(32, "rollout steps per env per update (64 x 32 = 2,048 decisions per update by default)",
                          group="model and PPO")  # fmt: skip
    batch_size: int = option(512, "PPO minibatch; must divide the rollout of --n-envs x --n-steps decisions",
                             group="model and PPO")  # fmt: skip
    n_epochs: int = option(4, "passes over each rollout", group="model and PPO")
    gamma: float = option(0.995, "discount", group="model and PPO", backends=BOTH)
    gae_lambda: float = option(0.95, "GAE lambda", group="model and PPO", backends=BOTH)
    clip: float = option(0.2, "PPO clip range", group="model and PPO")
    ent_coef: float = option(0.01, "entropy bonus", group="model and PPO", backends=BOTH)
    vf_coef: float = option(0.5, "value-loss weight", group="model and PPO")
    target_kl: float | None = option(None, "stop an update's epochs early above this KL divergence",
                                     group="model and PPO")  # fmt: skip
    max_grad_norm: float = option(0.5, "gradient clipping", group="model and PPO")
    no_unseen: bool = option(False, "do not append the unseen-card mask to the observation", group="model and PPO")
    shaping: str = option("none", "potential-based reward shaping (auto: the game's built-in potential)",
                          group="model and PPO", choices=("none", "auto"))  # fmt: skip
    shaping_scale: float = option(0.1, "scale of the shaping potential", group="model and PPO")
    privileged_critic: bool = option(False, "asymmetric actor-critic: the value network also sees hidden state "
                                     "during training (the policy never does); see train/policy.py",
                                     group="model and PPO")  # fmt: skip
    reward_scale: float = option(1.0, "multiply the rewards PPO sees (e.g. 0.2 for chip rewards)",
                                 group="model and PPO")  # fmt: skip
    # opponents and self-play
    opponents: tuple[str, ...] | None = option(None, "baseline opponents, comma-separated agent names (default: "
                                               "random,heuristic where available)",
                                               group="opponents and self-play")  # fmt: skip
    self_play_prob: float = option(0.5, "chance that an opponent seat gets a learner snapshot (once there is one)",
                                   group="opponents and self-play")  # fmt: skip
    snapshot_every: int = option(10, "add a learner snapshot to the pool every K updates (0: never)",
                                 group="opponents and self-play", backends=BOTH)  # fmt: skip
    pool_size: int = option(20, "snapshots kept (the most recent)", group="opponents and self-play", backends=BOTH)
    # evaluation
    eval_every: int = option(50_000, "evaluate every N timesteps (0: only at the end)", group="evaluation")
    eval_deals: int = option(200, "duplicate deals per evaluation (x seats games)", group="evaluation")
    eval_opponents: tuple[str, ...] | None = option(None, "default: random,heuristic where available",
                                                    group="evaluation")  # fmt: skip
    select_by: str | None = option(None, "eval opponent that picks the best model (default: the last of "
                                   "--eval-opponents)", group="evaluation")  # fmt: skip
    keep_last: bool = option(False, "model.zip = the last policy, not the best evaluated", group="evaluation")
    checkpoint_every: int = option(10, "write the resumable checkpoint every K updates", group="evaluation",
                                   backends=BOTH)  # fmt: skip
    # behaviour cloning
    bc_teacher: str | None = option(None, "agent whose decisions the policy imitates first (e.g. heuristic, search)",
                                    group="behaviour cloning (pretraining)")  # fmt: skip
    bc_games: int = option(1000, "teacher games to record (cached)", group="behaviour cloning (pretraining)")
    bc_opponents: tuple[str, ...] | None = option(None, "opponents of the teacher while recording (default: "
                                                  "--opponents)", group="behaviour cloning (pretraining)")  # fmt: skip
    bc_minutes: float | None = option(None, "cap on data-collection time (the data so far are used)",
                                      group="behaviour cloning (pretraining)")  # fmt: skip
    bc_workers: int = option(1, "processes collecting teacher games", group="behaviour cloning (pretraining)")
    bc_epochs: int = option(10, "passes over the teacher data", group="behaviour cloning (pretraining)")
    bc_lr: float = option(1e-3, "learning rate of behaviour cloning", group="behaviour cloning (pretraining)")
    bc_aux_coef: float = option(0.0, "keep imitating the teacher during PPO: weight of a BC loss step after each "
                                "update", group="behaviour cloning (pretraining)")  # fmt: skip
    bc_aux_batches: int = option(4, "BC minibatches after each PPO update when --bc-aux-coef > 0",
                                 group="behaviour cloning (pretraining)")  # fmt: skip
    cache: str = option(
        "runs/cache",
        "teacher-data cache directory (and pi's measure of this machine's speed)",
        group="behaviour cloning (pretraining)",
    )

    # ---- the fields of this backend -------------------------------------------------------------
    @classmethod
    def cli_fields(cls) -> list[dataclasses.Field]:
        """The fields this backend reads (and its command line offers), in declaration order."""
        return [f for f in fields(cls) if cls.BACKEND in f.metadata["backends"]]

    @classmethod
    def hints(cls) -> dict[str, Any]:
        return typing.get_type_hints(cls)

    # ---- derived ----------------------------------------------------------------------------
    @property
    def target_timesteps(self) -> int:
        """PPO steps to reach: ``--timesteps``, else unbounded with ``--minutes``, else 200,000."""
        if self.timesteps is not None:
            return self.timesteps
        return 10**12 if self.minutes is not None else 200_000

    @property
    def rollout(self) -> int:
        """Decisions per PPO update (the rollout buffer's size)."""
        return self.n_envs * self.n_steps

    def default_out(self) -> str:
        return f"runs/{self.game}-{time.strftime('%Y%m%d-%H%M%S')}"

    # ---- checks -------------------------------------------------------------------------------
    def validate(self) -> None:
        """Refuse a value of the wrong type or out of range (:class:`TrainError`, naming the option)."""
        hints = self.hints()
        for f in self.cli_fields():
            value, hint = getattr(self, f.name), hints[f.name]
            if not _type_ok(hint, value):
                raise TrainError(f"{flag_of(f)} must be {_type_words(hint)}, got {value!r}")
            choices = f.metadata["choices"]
            if choices and value is not None and value not in choices:
                raise TrainError(f"{flag_of(f)} must be one of {', '.join(choices)}, got {value!r}")
            rule = self.RULES.get(f.name)
            if rule and value is not None and not rule[0](value):
                raise TrainError(f"{flag_of(f)} must be {rule[1]}, got {cli_text(value)}")
        self.validate_combination()

    def validate_combination(self) -> None:
        """Rules between options: SB3 trains on minibatches that split the rollout exactly (a last
        minibatch of one decision normalises its advantage by a zero spread: NaN logits)."""
        if self.minutes is not None and getattr(self, "hours", None) is not None:
            raise TrainError("give the budget once: --minutes or --hours, not both")
        if self.rollout < 2:
            raise TrainError(f"--n-envs x --n-steps must be at least 2 decisions, got {self.rollout}")
        if self.rollout > MAX_ROLLOUT:
            raise TrainError(
                f"--n-envs x --n-steps is {self.rollout:,} decisions a rollout; at most {MAX_ROLLOUT:,} are allowed "
                "(each is kept in memory with its observation)"
            )
        if self.rollout % self.batch_size:
            fit = max(d for d in range(2, min(self.batch_size, self.rollout) + 1) if self.rollout % d == 0)
            raise TrainError(
                f"--batch-size {self.batch_size} does not divide the rollout of --n-envs {self.n_envs} x --n-steps "
                f"{self.n_steps} = {self.rollout} decisions; use a divisor such as {fit}"
            )

    # ---- saved, resumed, written down -------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """``args.json``: every field, and the backend."""
        return {"backend": self.BACKEND, **dataclasses.asdict(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrainConfig:
        """A config from ``args.json`` (unknown keys are ignored; runs saved before TrainConfig existed
        kept ``--config`` as its raw items and agent lists as comma-separated strings)."""
        from kortmiljo.core import jsonsafe

        if not isinstance(data, Mapping):
            raise TrainError(f"a run's args.json must be a JSON object of options, got {type(data).__name__}")
        try:  # a document built in Python is held to the bounds of one read from a file
            jsonsafe.check(data, what="args.json")
        except jsonsafe.JSONError as err:
            raise TrainError(str(err)) from None
        hints = cls.hints()
        known = {f.name for f in fields(cls)}
        values = {k: _coerce(hints[k], v) for k, v in data.items() if k in known}
        if "game_options" not in data and data.get("config"):
            values["game_options"] = parse_options(data["config"])
        return cls(**values)

    def resumed(self, saved: TrainConfig) -> TrainConfig:
        """The saved run's options, with what may differ between sessions taken from this request:
        the run directory, the budget when given, and how this machine runs it (threads, precision,
        progress output)."""
        if saved.game != self.game:
            raise TrainError(f"{self.out} holds a {saved.game} run, not {self.game}")
        keep = {k: getattr(self, k) for k in ("out", "resume", "no_progress", "quiet", "threads", "update_threads",
                                              "train_precision")}  # fmt: skip
        keep.update({k: getattr(self, k) for k in ("timesteps", "minutes") if getattr(self, k) is not None})
        if self.minutes is not None or self.hours is not None:  # a budget given now replaces the saved one
            keep.update(minutes=self.minutes, hours=self.hours)
        return dataclasses.replace(saved, **keep)

    def command_line(self) -> str:
        """The ``kortmiljo train`` command that parses to this config (options left at their default omitted)."""
        words = ["kortmiljo", "train", self.game]
        if self.BACKEND != TrainConfig.BACKEND:
            words += ["--backend", self.BACKEND]
        for f in self.cli_fields()[1:]:
            value = getattr(self, f.name)
            if value == default_of(f):
                continue
            if f.name == "game_options":
                words += [flag_of(f), *(f"{k}={_option_text(v)}" for k, v in value.items())]
            elif isinstance(value, bool):
                words.append(flag_of(f))
            else:
                words += [flag_of(f), cli_text(value)]
        return shlex.join(words)


# ---- the fields' types ------------------------------------------------------------------------------


def unpack_optional(hint: Any) -> tuple[Any, bool]:
    """(the type, whether None is allowed) of ``X`` or ``X | None``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(hint) if a is not type(None)]
        return inner, True
    return hint, False


def _type_ok(hint: Any, value: Any) -> bool:
    base, optional = unpack_optional(hint)
    if value is None:
        return optional
    if typing.get_origin(base) is tuple:
        item = typing.get_args(base)[0]
        return isinstance(value, tuple) and all(_type_ok(item, v) for v in value)
    if base is int:
        return is_int(value)
    if base is float:
        return (is_int(value) or isinstance(value, float)) and not isinstance(value, bool)
    if base is dict:
        return isinstance(value, Mapping)
    return isinstance(value, base)


def _type_words(hint: Any) -> str:
    base, optional = unpack_optional(hint)
    if typing.get_origin(base) is tuple:
        words = f"a tuple of {typing.get_args(base)[0].__name__}"
    else:
        words = {int: "an int", float: "a number", str: "a string", bool: "True or False", dict: "a dict"}[base]
    return words + (" or None" if optional else "")


def _coerce(hint: Any, value: Any) -> Any:
    """A JSON value as the field's type (lists become tuples; old runs saved lists as text)."""
    base, _ = unpack_optional(hint)
    if value is None or typing.get_origin(base) is not tuple:
        return float(value) if base is float and is_int(value) else value
    return text_parser(base)(value) if isinstance(value, str) else tuple(value)


def layer_sizes(text: str) -> tuple[int, ...]:
    """``256,256`` → (256, 256); argparse prints the error of anything else as the option's."""
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected layer sizes such as 256,256, got {text!r}") from None


def agent_names(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip())


def text_parser(base: Any) -> Callable[[str], Any]:
    if typing.get_origin(base) is tuple:
        return layer_sizes if typing.get_args(base)[0] is int else agent_names
    return base


def cli_text(value: Any) -> str:
    """A value as the command line writes it (an int of more than 20 digits in a few words)."""
    if isinstance(value, tuple):
        return ",".join(map(cli_text, value))
    if isinstance(value, int) and abs(value) >= 10**20:
        return short_repr(value)
    return repr(value) if isinstance(value, float) else str(value)


def _option_text(value: Any) -> str:
    """A game option as ``--config`` reads it back (:func:`kortmiljo.core.options.parse_value`)."""
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(_option_text(v) for v in value) + ")"
    if value is None or isinstance(value, bool):
        return str(value).lower()
    text = cli_text(value)
    return text if parse_scalar(text) == value else repr(text)


def default_of(f: dataclasses.Field) -> Any:
    return f.default_factory() if f.default_factory is not MISSING else f.default


def flag_of(f: dataclasses.Field) -> str:
    return (f.metadata["flags"] or ("--" + f.name.replace("_", "-"),))[0]
