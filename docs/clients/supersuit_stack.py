"""SuperSuit: a stack of its Box observation wrappers over a kortmiljo game.

    python docs/clients/supersuit_stack.py --game spokelse --episodes 5

SuperSuit's observation wrappers (``flatten``, ``dtype``, ``frame_stack``, ``pad_observations``,
``observation_lambda``, ...) need a Box observation space and refuse the Dict that every masked
PettingZoo env observes. ``flatten_observation(env, mask="info")`` gives one float32 Box
(``observation`` followed by ``unseen``) and moves the legal actions into each agent's
``info["action_mask"]``, which SuperSuit passes through untouched. ``normalize_obs_v0`` still
refuses it: it needs finite bounds, and kortmiljo's observation is declared unbounded.
"""

from __future__ import annotations

import argparse
import importlib

import numpy as np
import supersuit as ss

from kortmiljo.wrappers import flatten_observation

MODULES = {"spokelse": "spokelse_v0", "sproyte": "sproyte_v0", "femkortskille": "femkortskille_v0"}


def make_env(game: str, stack: int = 3, **config):
    module = importlib.import_module(f"kortmiljo.{MODULES[game]}")
    env = flatten_observation(module.env(**config), mask="info")  # Box observation, mask in info
    env = ss.dtype_v0(env, np.float32)
    env = ss.pad_observations_v0(env)  # a no-op here: every seat has the same space
    return ss.frame_stack_v1(env, stack)  # the last `stack` observations of the agent, side by side


def play(game: str, episodes: int = 5, seed: int = 0, **config) -> list[dict]:
    """Random legal play through the stack; per episode: steps, returns, illegal actions, obs shape."""
    env = make_env(game, **config)
    rng = np.random.default_rng(seed)
    out = []
    for ep in range(episodes):
        env.reset(seed=seed + ep)
        total = dict.fromkeys(env.possible_agents, 0.0)
        steps = illegal = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            assert env.observation_space(agent).contains(obs)
            total[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            mask = info["action_mask"]
            action = int(rng.choice(np.flatnonzero(mask)))
            illegal += int(mask[action] == 0)
            env.step(action)
            steps += 1
        out.append({"steps": steps, "returns": total, "illegal": illegal, "shape": obs.shape})
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=sorted(MODULES), default="spokelse")
    p.add_argument("--episodes", type=int, default=5)
    args = p.parse_args(argv)
    for i, ep in enumerate(play(args.game, args.episodes)):
        r = ", ".join(f"{a} {v:+.3f}" for a, v in ep["returns"].items())
        print(f"episode {i}: {ep['steps']} steps, observation {ep['shape']}, returns {r}, illegal {ep['illegal']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
