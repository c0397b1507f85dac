"""Starting a run from a trained model (``--init``): checked before anything loads it, then copied in.

``--init`` takes an SB3 model (``.zip`` or run directory) or numpy weights (``.npz``,
:mod:`kortmiljo.agents.pretrained`: a distilled student or a shipped ``pretrained_v1``, expert iteration's
third stage fine-tunes one with PPO). Weights must have the run's observation (``--no-unseen``
or not) and its ``--net`` sizes; a file without a critic (or a different one) starts the value
network fresh.

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

from kortmiljo.train.bc import is_value_param
from kortmiljo.train.config import TrainError

from kortmiljo.core.game import Game


def check_init_model(path: str, game: Game) -> Path:
    """The ``--init`` model file, after checking it is a model for this game."""
    from kortmiljo.agents.trained import check_compatible, read_model_config, resolve_model_path

    if str(path).endswith(".npz"):
        from kortmiljo.agents.pretrained import check_weights, read_weights

        try:
            w = read_weights(path)
            check_weights(w, game, str(path))
        except ValueError as err:
            raise TrainError(f"--init: {err}") from None
        if w.meta.get("advisor"):
            raise TrainError(
                f"--init: {path} reads its advisor's move ({w.meta['advisor']}) as an input, which training "
                "does not provide; distil without --advisor to fine-tune"
            )
        return Path(path)
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
    from kortmiljo.agents.trained import load_ppo_policy

    if path.suffix == ".npz":
        return copy_numpy_weights(policy, path, net)

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


def _linears(seq: Any, head: Any) -> list:
    from torch import nn

    return [m for m in [*seq, head] if isinstance(m, nn.Linear)]


def copy_numpy_weights(policy: Any, path: Path, net: tuple[int, ...]) -> int:
    """Numpy weights (checked by :func:`check_init_model`) into an SB3 MLP policy: the actor must
    fit layer by layer; the critic is copied where it fits too, else it starts fresh."""
    import torch
    from kortmiljo.agents.pretrained import read_weights

    w = read_weights(path)
    ext = policy.mlp_extractor
    actor = _linears(ext.policy_net, policy.action_net)
    critic = _linears(ext.value_net, policy.value_net)
    want = [(m.in_features, m.out_features) for m in actor]
    have = [wt.shape for wt, _ in w.actor]
    if have != want:
        raise TrainError(
            f"--init {path} does not fit --net {','.join(map(str, net))}: its actor's layers are (inputs, outputs) "
            f"{have}, the run's {want} (train with the --net and --no-unseen it was made with)"
        )
    if w.meta["activation"] != ("relu" if isinstance(policy.activation_fn(), torch.nn.ReLU) else "tanh"):
        raise TrainError(f"--init {path}: its activation is {w.meta['activation']}, not the run's")
    with torch.no_grad():
        for m, (wt, b) in zip(actor, w.actor, strict=True):
            m.weight.copy_(torch.from_numpy(wt.T.copy()))
            m.bias.copy_(torch.from_numpy(b))
        fits = [(c.out_features, c.in_features) for c in critic] == [(b.shape[0], wt.shape[0]) for wt, b in w.critic]
        if fits:
            for m, (wt, b) in zip(critic, w.critic, strict=True):
                m.weight.copy_(torch.from_numpy(wt.T.copy()))
                m.bias.copy_(torch.from_numpy(b))
    return 0 if fits else 2 * len(critic)
