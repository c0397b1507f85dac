"""``kortmiljo export MODEL.zip OUT.npz``: a trained ``ppo:`` model in the safe numpy weights format.

The SB3 policy's actor (its policy MLP and action head) and critic (value MLP and head) are
copied layer by layer into :mod:`kortmiljo.agents.pretrained`'s ``.npz`` format, with the game's
fingerprint from the model's ``config.json``. A model with a privileged critic (it reads hidden
cards) is exported without its critic. Before the file is written, the numpy network's masked
logits are compared with the torch policy's on observations of real games; any difference
beyond float rounding refuses the export, so a policy the copy does not reproduce (a custom
feature extractor, say) never ships silently.

Loading the ``.zip`` runs its pickled code, like ``ppo:PATH`` does: export only trusted models.
The exported file then plays as ``PATH.npz`` in ``--agents`` without torch or SB3.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from kortmiljo.cli import ArgumentParser, add_config_option, check_output_file, fail
from kortmiljo.core.game import Game
from kortmiljo.core.options import parse_options
from kortmiljo.core.registry import load_game

from .pretrained import MLPPolicy, Weights, read_weights, save_weights
from .trained import load_ppo_policy, read_model_config, resolve_model_path

TOLERANCE = 1e-4  # the largest logit difference float32 rounding explains


def _layers(seq: Any, head: Any) -> tuple[list, str]:
    """Linear layers of an SB3 MLP (``seq``) and its head, and the one activation between them."""
    from torch import nn

    names = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    layers, acts = [], set()
    for m in [*seq, head]:
        if isinstance(m, nn.Linear):
            layers.append((m.weight.detach().float().numpy().T.copy(), m.bias.detach().float().numpy().copy()))
        elif type(m) in names:
            acts.add(names[type(m)])
        else:
            raise ValueError(f"cannot export a layer of type {type(m).__name__} (only Linear, Tanh and ReLU)")
    if len(acts) > 1:
        raise ValueError(f"cannot export a network mixing activations {sorted(acts)}")
    return layers, acts.pop() if acts else "tanh"


def export_policy(model: str | Path, out: str | Path, game: Game | None = None) -> dict:
    """Export a ``ppo:`` model to ``out``; returns what was written (game, layers, largest logit error)."""
    from stable_baselines3.common.torch_layers import FlattenExtractor

    path = resolve_model_path(model)
    cfg = read_model_config(path)
    if game is None:
        if cfg is None:
            raise ValueError(f"{path} has no config.json beside it: name the game with --game (and its --config)")
        game = load_game(cfg["game"], **cfg.get("env_config", {}))
    policy = load_ppo_policy(path, game)
    net = policy.net
    if not isinstance(net.features_extractor, FlattenExtractor) or not (
        net.share_features_extractor or isinstance(net.pi_features_extractor, FlattenExtractor)
    ):
        raise ValueError(f"{path} uses a custom feature extractor; only SB3's MLP policies export")
    ext = net.mlp_extractor
    actor, act_a = _layers(ext.policy_net, net.action_net)
    critic, act_c = _layers(ext.value_net, net.value_net)
    if act_a != act_c and len(critic) > 1:
        raise ValueError(f"{path}: actor ({act_a}) and critic ({act_c}) use different activations")
    actor_inputs = getattr(ext, "actor_dim", None)
    if policy.privileged_size:
        critic = []  # it reads hidden cards that play never has
    source = {"recipe": "kortmiljo export", "model": str(path), "trained_with": (cfg or {}).get("kortmiljo_version")}
    save_weights(out, game, actor, critic, act_a, policy.include_unseen, actor_inputs, source)
    err = _check(read_weights(out), policy, game)
    if err > TOLERANCE:
        Path(out).unlink()
        raise ValueError(f"the exported network differs from {path} by {err:.2g} in a logit; nothing was written")
    return {"game": game.name, "actor_layers": len(actor), "critic_layers": len(critic), "max_logit_error": err}


def _check(weights: Weights, policy: Any, game: Game, positions: int = 64) -> float:
    """Largest |logit| difference between the numpy copy and the torch policy, on real positions."""
    mlp = MLPPolicy(game, weights)
    rng = np.random.default_rng(0)
    e, worst = game.new_state(), 0.0
    e.new_episode(rng)
    for _ in range(positions):
        if e.terminal or e.truncated:
            e.new_episode(rng)
        obs = e.observation(e.current_player)
        mask = obs["action_mask"][None]
        a = mlp.masked_logits(mlp.vector(obs)[None], mask)
        b = policy.masked_logits(policy.vector(obs)[None], mask)
        legal = mask[0] > 0
        worst = max(worst, float(np.abs(a[0, legal] - b[0, legal]).max()))
        legal_actions = np.flatnonzero(legal)
        e.step(int(legal_actions[rng.integers(len(legal_actions))]))
    return worst


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="kortmiljo export", description=__doc__.split("\n")[0].split(": ", 1)[1])
    p.add_argument("model", help="a trained model: ppo model .zip or its run directory")
    p.add_argument("out", help="the .npz weights file to write")
    p.add_argument("--game", help="the game, where the model has no config.json beside it")
    add_config_option(p)
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    a = p.parse_args(argv)
    prog = "kortmiljo export"
    try:
        if not a.out.endswith(".npz"):
            raise ValueError(f"OUT must end in .npz, got {a.out!r}")
        check_output_file("OUT", a.out)
        if Path(a.out).exists() and not a.force:
            raise ValueError(f"{a.out} exists; pass --force to replace it")
        game = None
        if a.game:
            game = load_game(a.game, **parse_options(a.config))
        elif a.config:
            raise ValueError("--config needs --game")
        info = export_policy(a.model, a.out, game)
    except ValueError as err:
        return fail(prog, err)
    print(
        f"wrote {a.out}: {info['game']}, actor {info['actor_layers']} layers, critic {info['critic_layers']}; "
        f"largest logit difference from the model {info['max_logit_error']:.1e}",
        file=sys.stdout,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
