"""RLlib: a kortmiljo game through RLlib's own ``PettingZooEnv``, and how to satisfy its env checker.

    python docs/clients/rllib_pettingzoo.py --game spokelse

RLlib checks every env before it trains (``check_multiagent_environments``, on by default). The
checker steps one random action from the action space, without the mask: where it is illegal (most
of the time: 10 to 28 % of a game's actions are legal at its first decision) it hits kortmiljo's
``IllegalActionError`` and reports a misleading "step() seems to be faulty". ``check(..., legal=)``
seeds the action space so that the checker's action is legal or not, and shows both. Two ways out:

- ``config.environment(..., disable_env_checking=True)``: skip the check (kortmiljo's own
  conformance suite runs PettingZoo's ``api_test`` on every game);
- wrap the env in PettingZoo's ``TerminateIllegalWrapper(env, illegal_reward=-1)`` while the checker
  runs: an illegal action then ends the episode with that reward instead of raising. Train without
  it: with a masked policy no illegal action is ever chosen, and the engine's error is the better
  guard against a masking bug.

kortmiljo's own backend (``kortmiljo train GAME --backend rllib``, docs/rllib.md) does the first.
"""

from __future__ import annotations

import argparse
import importlib

import numpy as np
from pettingzoo.utils.wrappers import TerminateIllegalWrapper
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

from kortmiljo.wrappers import flatten_observation

MODULES = {"spokelse": "spokelse_v0", "sproyte": "sproyte_v0", "femkortskille": "femkortskille_v0"}


def make_env(game: str, checker_safe: bool = False, **config) -> PettingZooEnv:
    module = importlib.import_module(f"kortmiljo.{MODULES[game]}")
    env = flatten_observation(module.env(**config))  # {"observation": observation ++ unseen, "action_mask"}
    if checker_safe:
        env = TerminateIllegalWrapper(env, illegal_reward=-1)
    return PettingZooEnv(env)


CHECKER_RESET_SEED = 42  # the checker's own env.reset(seed=42)


def seed_checker_action(env: PettingZooEnv, legal: bool) -> int:
    """Seed the action space of the seat that moves first after the checker's reset so that the action it
    samples is legal (or illegal); the action."""
    obs, _ = env.reset(seed=CHECKER_RESET_SEED, options={})
    (agent,) = obs
    mask, space = obs[agent]["action_mask"], env.get_action_space(agent)
    for seed in range(10_000):
        space.seed(seed)
        action = int(space.sample())
        if bool(mask[action]) == legal:
            space.seed(seed)  # the checker's sample() draws this same action
            return action
    raise RuntimeError(f"no seed below 10,000 samples a{'' if legal else 'n il'}legal action")


def check(game: str, checker_safe: bool, legal: bool = False) -> str | None:
    """Run RLlib's env checker with its random action made ``legal`` or not; None if it passes, else its
    error in one line."""
    env = make_env(game, checker_safe=checker_safe)
    seed_checker_action(env, legal)
    try:
        check_multiagent_environments(env)
    except Exception as err:  # the checker wraps the env's error in its own ValueError
        return f"{type(err).__name__}: {' '.join(str(err).split())}"
    return None


def play(game: str, episodes: int = 3, seed: int = 0) -> list[dict]:
    """Masked random play through RLlib's PettingZooEnv: each seat's return and the illegal actions."""
    env = make_env(game)
    rng = np.random.default_rng(seed)
    out = []
    for ep in range(episodes):
        obs, _ = env.reset(seed=seed + ep)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        illegal = 0
        while True:
            (agent,) = obs  # RLlib's wrapper hands out the one agent to move
            mask = obs[agent]["action_mask"]
            action = int(rng.choice(np.flatnonzero(mask)))
            illegal += int(mask[action] == 0)
            obs, rew, term, trunc, _ = env.step({agent: action})
            for a, r in rew.items():
                returns[a] += r
            if term["__all__"] or trunc["__all__"]:
                break
            obs = {a: o for a, o in obs.items() if not term.get(a)}
        out.append({"returns": returns, "illegal": illegal})
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=sorted(MODULES), default="spokelse")
    args = p.parse_args(argv)
    for legal in (False, True):
        what = "a legal" if legal else "an illegal"
        print(f"env checker, {what} action, plain env:", (check(args.game, False, legal) or "passes")[:160])
        print(f"env checker, {what} action, TerminateIllegalWrapper:", check(args.game, True, legal) or "passes")
    for i, ep in enumerate(play(args.game)):
        print(f"episode {i}: returns {ep['returns']}, illegal actions {ep['illegal']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
