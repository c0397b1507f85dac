"""Agents trained with ``kortmiljo train GAME --backend rllib`` (``rllib:PATH`` in ``make_agent``).

``PATH`` is the run directory (``--out``), its ``checkpoint/`` (RLlib's algorithm
checkpoint) or the learner module's own directory inside it
(``checkpoint/learner_group/learner/rl_module/learner``). Only the learner's RLModule is
loaded, on the CPU and without starting Ray; it needs the ``rllib`` extra.

**Trust.** RLlib checkpoints store pickled Python objects (the module class and its
constructor arguments) that run when loaded: load only checkpoints from a trusted source.

Errors: a path without a checkpoint, or a checkpoint for another game, configuration,
observation size or action count, raises ``ValueError`` saying which.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from kortmiljo.core.game import Game
from kortmiljo.env.training import observation_size

from .base import Policy, choose_from_logits
from .trained import check_compatible, masked_probabilities, read_model_config

MODULE_ID = "learner"
MODULE_SUBDIR = Path("learner_group") / "learner" / "rl_module"
TRUST_NOTE = (
    "kortmiljo: loading {path}: an RLlib checkpoint contains pickled Python code that runs when it is "
    "loaded; load only checkpoints from a trusted source."
)
_warned: set[str] = set()


def resolve_module_dir(path: str | Path, module_id: str = MODULE_ID) -> tuple[Path, Path | None]:
    """(the RLModule directory, the run directory holding config.json or None) for any accepted PATH."""
    p = Path(path).expanduser()
    candidates = [
        (p / "checkpoint" / MODULE_SUBDIR / module_id, p),  # run directory
        (p / MODULE_SUBDIR / module_id, p.parent),  # algorithm checkpoint
        (p, None),  # the module itself
    ]
    for module_dir, run_dir in candidates:
        if (module_dir / "module_state.pkl").exists() or (module_dir / "class_and_ctor_args.pkl").exists():
            if run_dir is None:  # .../checkpoint/learner_group/learner/rl_module/learner -> run dir 5 up
                up = module_dir.parents[4] if len(module_dir.parents) > 4 else None
                run_dir = up if up is not None and (up / "config.json").exists() else None
            return module_dir, run_dir
    raise ValueError(
        f"no RLlib checkpoint at {path!s} (expected a run directory from `kortmiljo train --backend rllib`, "
        "its checkpoint/, or an RLModule directory)"
    )


class RLlibPolicy(Policy):
    """An RLModule trained by the rllib backend, acting on the env's observation dicts.

    ``deterministic=True`` plays the most probable legal action; otherwise it samples from
    the masked distribution with the policy's own seeded RNG.
    """

    name = "rllib"

    def __init__(self, game: Game, module: Any, seed: int | None = None, deterministic: bool = True, name=None):
        super().__init__(game, seed)
        import torch

        self._torch = torch
        self.module = module
        self.module.eval()
        self.deterministic = deterministic
        if name:
            self.name = name

    def masked_logits(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        torch = self._torch
        x = np.concatenate([np.asarray(obs["observation"], np.float32), np.asarray(obs["unseen"], np.float32)], axis=-1)
        mask = np.asarray(obs["action_mask"], np.float32)
        batch = {"obs": {"observations": torch.as_tensor(x), "action_mask": torch.as_tensor(mask)}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"].numpy()
        return np.where(mask > 0, logits, -np.inf)

    def _choose(self, logits: np.ndarray) -> np.ndarray:
        return choose_from_logits(logits, self.deterministic, self.rng)

    def act(self, obs: dict[str, np.ndarray], engine: Any | None = None) -> int:
        if not np.asarray(obs["action_mask"]).any():
            raise ValueError("no legal action in the observation's action_mask")
        batch = {k: np.asarray(v)[None] for k, v in obs.items()}
        return int(self._choose(self.masked_logits(batch))[0])

    def act_explained(
        self, obs: dict[str, np.ndarray], engine: Any | None = None
    ) -> tuple[int, dict[int, float] | None, float | None]:
        """``act``'s action and the masked action distribution's probability of each legal action
        (no value: inference does not run the critic)."""
        mask = np.asarray(obs["action_mask"])
        if not mask.any():
            raise ValueError("no legal action in the observation's action_mask")
        logits = self.masked_logits({k: np.asarray(v)[None] for k, v in obs.items()})
        action = int(self._choose(logits)[0])
        probs = masked_probabilities(logits[0])
        return action, {int(a): float(probs[a]) for a in np.flatnonzero(mask)}, None

    def act_batch(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        return self._choose(self.masked_logits(obs)).astype(np.int64)


def load_rllib_policy(path: str | Path, game: Game, seed: int | None = None, deterministic: bool = True) -> RLlibPolicy:
    """Load the learner of an rllib-backend run as an :class:`RLlibPolicy` for a configured game."""
    module_dir, run_dir = resolve_module_dir(path)
    key = str(module_dir.resolve())
    if key not in _warned:
        _warned.add(key)
        print(TRUST_NOTE.format(path=module_dir), file=sys.stderr)
    cfg = read_model_config(run_dir / "config.json") if run_dir is not None else None
    if cfg is not None:
        check_compatible(cfg, game, str(path))
    try:
        import kortmiljo.agents.rllib_module  # noqa: F401  (defines the module class the checkpoint names)
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as err:
        raise ValueError(f"rllib:{path} needs Ray RLlib: pip install 'kortmiljo[rllib]' ({err})") from err
    try:
        module = RLModule.from_checkpoint(str(module_dir.resolve()))
    except Exception as err:  # anything a broken checkpoint throws, as one clear error
        raise ValueError(f"{module_dir} could not be loaded as an RLModule: {type(err).__name__}: {err}") from err
    want = observation_size(game)
    space = getattr(module, "observation_space", None)
    if space is not None and "observations" in getattr(space, "spaces", {}):
        got = int(space["observations"].shape[0])
        if got != want:
            raise ValueError(f"{path} expects observations of {got}; {game.name} gives {want}")
    n_actions = int(module.action_space.n)
    if n_actions != game.num_actions:
        raise ValueError(f"{path} has {n_actions} actions; {game.name} has {game.num_actions}")
    return RLlibPolicy(game, module, seed=seed, deterministic=deterministic, name=f"rllib:{path}")
