"""Starting a run from a trained model (``--init``): checked before anything loads it, then copied in.

:func:`check_init_model` runs before the run directory exists: the path, the model's
``config.json`` against the game (its fingerprint: a model for another game, configuration,
action table or observation layout is refused, naming the difference) and the archive itself,
so that a bad ``--init`` costs one line and writes nothing. :func:`copy_weights` copies every
tensor of matching shape; the policy must fit completely, the value network may differ (a
plain model as the actor of a privileged critic starts its critic fresh).
"""

from __future__ import annotations

import warnings
import zipfile
from pathlib import Path
from typing import Any

from kortmiljo.core.game import Game
from train.bc import is_value_param
from train.config import TrainError


def check_init_model(path: str, game: Game) -> Path:
    """The ``--init`` model file, after checking it is a model for this game."""
    from agents.trained import check_compatible, read_model_config, resolve_model_path

    try:
        p = resolve_model_path(path)
        cfg = read_model_config(p)
        if cfg is not None:
            check_compatible(cfg, game, str(p))
    except ValueError as err:
        raise TrainError(f"--init: {err}") from None
    if not zipfile.is_zipfile(p):
        raise TrainError(f"--init: {p} is not an SB3 model file (not a zip archive; corrupt or truncated?)")
    return p


def copy_weights(policy: Any, path: Path, game: Game, net: tuple[int, ...]) -> int:
    """Load the checked model at ``path`` into ``policy``; how many tensors start fresh (value side only)."""
    from agents.trained import load_ppo_policy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # check_init_model has said what there was to say
        try:
            src = load_ppo_policy(path, game).net.state_dict()
        except ValueError as err:
            raise TrainError(f"--init: {err}") from None
    dst = policy.state_dict()
    fits = {k: v for k, v in src.items() if k in dst and dst[k].shape == v.shape}
    missing = sorted(k for k in dst if k not in fits and not is_value_param(k))
    if missing:
        raise TrainError(f"--init {path} does not fit --net {','.join(map(str, net))}: {', '.join(missing)}")
    policy.load_state_dict({**dst, **fits})
    return len(dst) - len(fits)
