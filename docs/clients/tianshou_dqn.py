"""Tianshou 2.0: its tic-tac-toe recipe (a DQN learner against random opponents) on a kortmiljo game.

    python docs/clients/tianshou_dqn.py --game spokelse --epochs 3

The only kortmiljo-specific line is ``flatten_observation``: Tianshou's ``PettingZooEnv`` keeps
``observation`` and ``action_mask`` and drops ``unseen``, so the wrapper joins ``unseen`` into
``observation`` first. The replay buffer stores every info key at every step (kortmiljo keeps the
same keys at every step) and refuses ``None``, which Sprøyte's ``trump`` is after a grand or nullo
deal: ``numeric_infos`` keeps the numeric twins (``trump_id``) and drops the strings. The learner
sits in seat 0, every other seat is Tianshou's masked random agent. At
the end the learner (greedy, masked) and a random agent each play ``--eval`` games in seat 0
against random opponents, on the same seeded deals, through kortmiljo's own env.
"""

from __future__ import annotations

import argparse
import importlib

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from kortmiljo.wrappers import flatten_observation, numeric_infos

MODULES = {"spokelse": "spokelse_v0", "sproyte": "sproyte_v0", "femkortskille": "femkortskille_v0"}


def make_env(game: str, **config) -> PettingZooEnv:
    module = importlib.import_module(f"kortmiljo.{MODULES[game]}")
    return PettingZooEnv(numeric_infos(flatten_observation(module.env(**config))))


def build(game: str, config: dict, lr: float = 1e-3, gamma: float = 0.9, hidden: int = 128):
    env = make_env(game, **config)
    state_shape = env.observation_space["observation"].shape
    net = Net(state_shape=state_shape, action_shape=int(env.action_space.n), hidden_sizes=[hidden, hidden])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=gamma, n_step_return_horizon=1,
                  target_update_freq=200)  # fmt: skip
    opponents = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents[1:]]
    return MultiAgentOffPolicyAlgorithm(algorithms=[learner, *opponents], env=env), learner, env


def train(game: str, config: dict | None = None, epochs: int = 3, epoch_steps: int = 2000, seed: int = 0,
          num_envs: int = 4, verbose: bool = False) -> tuple[DQN, CollectStats]:  # fmt: skip
    """Train the recipe; return the learner and the last training collection's stats."""
    config = config or {}
    torch.set_num_threads(1)  # a small network: more threads only contend (and CI has two cores)
    np.random.seed(seed)
    torch.manual_seed(seed)
    marl, learner, env = build(game, config)
    train_envs = DummyVectorEnv([lambda: make_env(game, **config) for _ in range(num_envs)])
    test_envs = DummyVectorEnv([lambda: make_env(game, **config) for _ in range(2)])
    train_envs.seed(seed)
    test_envs.seed(seed + 1)
    buffer = VectorReplayBuffer(20_000, num_envs)
    train_collector = Collector[CollectStats](marl, train_envs, buffer, exploration_noise=True)
    test_collector = Collector[CollectStats](marl, test_envs, exploration_noise=False)
    train_collector.reset()
    train_collector.collect(n_step=64 * num_envs)
    marl.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=epochs,
            epoch_num_steps=epoch_steps,
            collection_step_num_env_steps=10 * num_envs,
            test_step_num_episodes=4,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.25,
            multi_agent_return_reduction=lambda rews: rews[:, 0],
            verbose=verbose,
            show_progress=verbose,
        )
    )
    return learner, train_collector


def greedy_action(learner: DQN, obs: dict) -> int:
    """The learner's masked greedy action for one flat observation (the network's Q-values)."""
    with torch.no_grad():
        q, _ = learner.policy.model(obs["observation"][None])
    q = q[0].numpy().astype(np.float64)
    q[obs["action_mask"] == 0] = -np.inf
    return int(np.argmax(q))


def evaluate(game: str, config: dict | None, choose, games: int = 200, seed: int = 10_000) -> dict:
    """Seat 0 driven by ``choose(obs, rng)``, every other seat random: seat 0's mean return, its
    win rate (a strictly positive return), the illegal actions chosen and the largest |sum of returns|."""
    config = config or {}
    module = importlib.import_module(f"kortmiljo.{MODULES[game]}")
    env = flatten_observation(module.env(**config))
    rng = np.random.default_rng(seed)
    returns, illegal, worst_sum = [], 0, 0.0
    for g in range(games):
        env.reset(seed=seed + g)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            total[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            action = choose(obs, rng) if agent == "player_0" else int(rng.choice(np.flatnonzero(mask)))
            illegal += int(mask[action] == 0)
            env.step(action)
        returns.append(total["player_0"])
        worst_sum = max(worst_sum, abs(sum(total.values())))
    r = np.asarray(returns)
    return {"mean": float(r.mean()), "ci95": float(1.96 * r.std(ddof=1) / np.sqrt(len(r))),
            "win_rate": float((r > 0).mean()), "illegal": illegal, "max_abs_sum": worst_sum}  # fmt: skip


def random_choice(obs: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=sorted(MODULES), default="spokelse")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--epoch-steps", type=int, default=2000)
    p.add_argument("--eval", type=int, default=200)
    args = p.parse_args(argv)
    learner, _ = train(args.game, epochs=args.epochs, epoch_steps=args.epoch_steps, verbose=True)
    dqn = evaluate(args.game, None, lambda obs, rng: greedy_action(learner, obs), games=args.eval)
    rnd = evaluate(args.game, None, random_choice, games=args.eval)
    for name, res in (("DQN learner", dqn), ("random", rnd)):
        print(f"{name:12s} seat 0 vs random: return {res['mean']:+.3f} ± {res['ci95']:.3f}, "
              f"win rate {res['win_rate']:.2f}, illegal actions {res['illegal']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
