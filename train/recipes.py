"""The recipes of ``kortmiljo train GAME --recipe NAME``, and which one runs by default.

* ``pi``: oracle policy iteration (:mod:`kortmiljo.train.pi`), the recipe of ``pretrained_v2`` to ``_v7``;
  numpy weights (``model.npz``) that beat the heuristic where a step wins its gate.
* ``ppo``: MaskablePPO as the options say (:class:`kortmiljo.train.trainer.Trainer`).
* ``bc+ppo``: behaviour cloning of the heuristic, then PPO, with the settings that made Sprøyte's
  ``pretrained_v1`` (``benchmarks/train_targets.py``) for the options left at their defaults.

The default (:func:`choose`), where the game has a scripted heuristic, the budget is time
(``--minutes`` or ``--hours``) and no ``--bc-teacher`` is given: ``pi`` from :data:`PI_FROM_MINUTES`
(the only recipe measured above the heuristic; it needs about 40 minutes for one step on 2 workers),
``bc+ppo`` below (measured at the heuristic's level in 30 minutes, where ``ppo`` alone stays far
below it); ``ppo`` otherwise. A resumed run keeps the recipe it started with.

``train(TrainConfig(game=..., recipe=..., minutes=...))`` is the command line's run from Python.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from kortmiljo.train.config import TrainConfig, TrainError

NAMES = ("pi", "ppo", "bc+ppo")
PI_FROM_MINUTES = 60.0  # the default's switch from bc+ppo to pi (module docstring)

# bc+ppo's settings: benchmarks/train_targets.py's known-good command for Sprøyte; a game with its own
# (BC_PPO in kortmiljo.train.<game>_recipes, kortmiljo.train.pi.game_setting) uses those instead
DEFAULT_BC_PPO = dict(bc_teacher="heuristic", bc_games=12000, bc_opponents=("heuristic", "random"), bc_epochs=8,
                      opponents=("random", "heuristic"), self_play_prob=0.3, lr=1e-4, clip=0.15, gae_lambda=0.8,
                      ent_coef=0.003)  # fmt: skip


def has_heuristic(game: str) -> bool:
    from kortmiljo.agents.catalog import newest_heuristic

    return newest_heuristic(game) is not None


def saved_recipe(out: str | None) -> str | None:
    """The recipe of the run in ``out`` (``ppo`` for a run saved before recipes existed); None without one."""
    if out is None or not (Path(out) / "args.json").is_file():
        return None
    try:
        saved = json.loads((Path(out) / "args.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # the backend reports the damaged file
    return (saved.get("recipe") or "ppo") if isinstance(saved, dict) else None


def choose(c: TrainConfig) -> str:
    """The recipe that runs: the one named, the resumed run's, or the default rule's (module docstring)."""
    if c.recipe is not None:
        return c.recipe
    if c.resume and saved_recipe(c.out):
        return saved_recipe(c.out)
    minutes = c.hours * 60 if c.hours is not None else c.minutes
    if minutes is None or c.timesteps is not None or c.bc_teacher is not None or not has_heuristic(c.game):
        return "ppo"
    return "pi" if minutes >= PI_FROM_MINUTES else "bc+ppo"


def with_defaults(c: TrainConfig, values: dict) -> TrainConfig:
    """``c`` with ``values`` for the fields still at their defaults (an option given explicitly wins)."""
    from kortmiljo.train.config import default_of

    by_name = {f.name: f for f in dataclasses.fields(c)}
    keep = {k: v for k, v in values.items() if getattr(c, k) == default_of(by_name[k])}
    return dataclasses.replace(c, **keep)


def ppo_config(c: TrainConfig, recipe: str) -> TrainConfig:
    """The PPO backend's config: ``--hours`` as minutes, and bc+ppo's settings."""
    if c.hours is not None:
        c = dataclasses.replace(c, minutes=c.hours * 60, hours=None)
    if recipe == "bc+ppo":
        if not has_heuristic(c.game):
            raise TrainError(f"{c.game} has no scripted heuristic for bc+ppo to imitate; use --recipe ppo")
        from kortmiljo.train.pi import game_setting

        c = with_defaults(c, game_setting(c.game, "BC_PPO", DEFAULT_BC_PPO))
    return dataclasses.replace(c, recipe=recipe)


# the options a pi run reads; any other one set away from its default is PPO's, and refused
PI_OPTIONS = frozenset(
    {"game", "game_options", "recipe", "minutes", "hours", "resume", "out", "seed", "workers", "no_progress",
     "quiet", "net", "init", "cache"}
)  # fmt: skip


def check_pi(c: TrainConfig) -> None:
    """Options that mean nothing to pi are refused rather than ignored."""
    if c.timesteps is not None:
        raise TrainError("--timesteps counts PPO steps; --recipe pi takes --minutes or --hours")
    if c.bc_teacher is not None:
        raise TrainError("--bc-teacher is PPO's pretraining; --recipe pi starts from the heuristic or --init")
    default = TrainConfig(game=c.game)
    ignored = [
        "--" + f.name.replace("_", "-")
        for f in dataclasses.fields(c)
        if f.name not in PI_OPTIONS and getattr(c, f.name) != getattr(default, f.name)
    ]
    if ignored:
        raise TrainError(
            f"{', '.join(ignored)}: PPO's options, which --recipe pi does not read; leave them out "
            "(pi's: --minutes/--hours, --workers, --seed, --init, --net, --out, --resume, --cache)"
        )


def train(c: TrainConfig) -> dict | None:
    """Run ``c`` with its recipe (:func:`choose`): what ``kortmiljo train`` does. :class:`TrainError`
    where it cannot start (nothing written then)."""
    c.validate()
    if not c.resume and c.out is not None and (Path(c.out) / "args.json").is_file():
        raise TrainError(f"--out {c.out} holds a run; continue it with --resume, or choose a new directory")
    recipe = choose(c)
    if recipe == "pi":
        from kortmiljo.train import pi

        c = dataclasses.replace(c, recipe="pi")
        check_pi(c)
        return pi.run(c)
    from kortmiljo.train.trainer import Trainer

    Trainer(ppo_config(c, recipe)).run()
    return None
