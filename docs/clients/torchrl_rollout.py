"""TorchRL: a kortmiljo game through ``PettingZooWrapper``, with masked categorical sampling.

    python docs/clients/torchrl_rollout.py --game sproyte --episodes 3

TorchRL makes one group per seat. Each group's ``mask`` says whether that seat is on move (an AEC
env has one mover per step) and ``action_mask`` its legal actions. The policy is one small MLP per
seat over the flat observation (``flatten_observation``: ``observation`` and ``unseen`` joined),
sampled through TorchRL's ``MaskedCategorical``. ``numeric_infos`` is needed: TorchRL turns every
info value at reset into a tensor spec and fails on a string field (``TypeError: new(): invalid data
type 'str'``); the numeric twins (``contract_id``, ``trump_id``, ``winner_id``) stay.
"""

from __future__ import annotations

import argparse
import importlib

import torch
from tensordict import TensorDict
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs
from torchrl.modules import MLP, MaskedCategorical

from kortmiljo.wrappers import flatten_observation, numeric_infos

MODULES = {"spokelse": "spokelse_v0", "sproyte": "sproyte_v0", "femkortskille": "femkortskille_v0"}


def make_env(game: str, seed: int = 0, **config) -> PettingZooWrapper:
    module = importlib.import_module(f"kortmiljo.{MODULES[game]}")
    return PettingZooWrapper(numeric_infos(flatten_observation(module.env(**config))), use_mask=True, seed=seed)


class MaskedPolicy:
    """One MLP per seat; the seat on move samples from ``MaskedCategorical`` over its legal actions."""

    def __init__(self, env: PettingZooWrapper, hidden: int = 64):
        self.groups = list(env.group_map)
        spec = env.observation_spec
        self.nets = {
            g: MLP(
                in_features=spec[g, "observation", "observation"].shape[-1],
                out_features=spec[g, "action_mask"].shape[-1],
                num_cells=[hidden],
            )
            for g in self.groups
        }

    def __call__(self, td: TensorDict) -> TensorDict:
        for g in self.groups:
            legal = td[g, "action_mask"]  # [1, actions], all False for a seat not on move
            action = torch.zeros(legal.shape[:-1], dtype=torch.int64)
            if bool(td[g, "mask"].any()):
                with torch.no_grad():
                    logits = self.nets[g](td[g, "observation", "observation"])
                action = MaskedCategorical(logits=logits, mask=legal).sample()
            td[g, "action"] = action
        return td


def play(game: str, episodes: int = 3, seed: int = 0, **config) -> list[dict]:
    """Roll out ``episodes`` whole episodes; per episode: steps, each seat's return, illegal actions."""
    torch.manual_seed(seed)
    env = make_env(game, seed=seed, **config)
    check_env_specs(env)
    policy = MaskedPolicy(env)
    out = []
    for _ in range(episodes):
        rollout = env.rollout(max_steps=10_000, policy=policy, break_when_any_done=True)
        nxt = rollout["next"]
        illegal = 0
        for g in env.group_map:
            acting = rollout[g, "mask"].squeeze(-1)
            chosen = rollout[g, "action"].squeeze(-1)
            legal = rollout[g, "action_mask"].squeeze(-2)
            illegal += int((acting & ~legal.gather(-1, chosen[:, None]).squeeze(-1)).sum())
        returns = {g: float(nxt[g, "reward"].sum()) for g in env.group_map}
        out.append({"steps": rollout.batch_size[0], "returns": returns, "illegal": illegal})
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=sorted(MODULES), default="sproyte")
    p.add_argument("--episodes", type=int, default=3)
    args = p.parse_args(argv)
    for i, ep in enumerate(play(args.game, args.episodes)):
        r = ", ".join(f"{g} {v:+.3f}" for g, v in ep["returns"].items())
        print(f"episode {i}: {ep['steps']} steps, returns {r}, illegal actions {ep['illegal']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
