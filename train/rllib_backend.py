"""``kortmiljo train GAME --backend rllib``: PPO on Ray RLlib's new API stack, with self-play.

Needs the ``rllib`` extra (``pip install 'kortmiljo[rllib]'``, Ray's minor version pinned).
How to run it on a Ray cluster: docs/rllib.md.

* **Environment.** The game's AEC env through RLlib's own PettingZoo wrapper
  (``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``). That wrapper hands each agent
  ``env.last()`` when it is next selected: the reward accumulated since its previous action,
  including rewards that arrived on other agents' turns, and at the end it walks every seat
  through its final (dead) turn, so every seat receives its own terminal reward once. Our
  subclass only renames the observation for the masking module: ``{"observations":
  observation ++ unseen, "action_mask": mask}`` (both float32), and refuses an illegal action
  with the engine's ``IllegalActionError`` (the run fails loudly rather than learn from it).
* **Masking.** :class:`MaskedPPOTorchRLModule` is RLlib's default PPO torch module over the
  ``observations`` vector, with ``log(mask)`` (clamped) added to the action logits in every
  forward pass, so no illegal action is ever sampled.
* **Self-play.** One trained module, ``learner``, and ``--pool-size`` frozen modules
  ``snapshot_0 …``, copies of the learner refreshed round-robin every ``--snapshot-every``
  iterations. In each episode one seat (chosen from the episode id) is the learner and every
  other seat a snapshot; only ``learner`` is trained.
* **Output** (``--out``): ``checkpoint/`` (RLlib's algorithm checkpoint, the latest),
  ``config.json`` (game, configuration, sizes, versions: what ``rllib:PATH`` agents check),
  ``progress.csv`` (one row per iteration) and ``report.json`` (time, steps, steps/s).
  ``kortmiljo eval GAME --agents rllib:OUT random`` and ``kortmiljo play GAME --opponents
  rllib:OUT`` load the learner from it.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

GAMES = ("spokelse", "sproyte", "femkortskille")
LEARNER = "learner"
FORMAT = "kortmiljo-rllib/1"
FLOAT_MIN = -3.4e38
STEPS_KEY = "num_env_steps_sampled_lifetime"

try:  # the rllib extra; without it this module imports, and main() says what to install
    import gymnasium as gym
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    HAVE_RLLIB = True
except ImportError:
    HAVE_RLLIB = False


# ---- the environment ---------------------------------------------------------------------------


def rllib_observation(obs: dict) -> dict:
    """The AEC observation dict renamed for :class:`MaskedPPOTorchRLModule`."""
    vec = np.concatenate([np.asarray(obs["observation"], np.float32), np.asarray(obs["unseen"], np.float32)])
    return {"observations": vec, "action_mask": np.asarray(obs["action_mask"], np.float32)}


if HAVE_RLLIB:

    class KortmiljoRLlibEnv(PettingZooEnv):
        """RLlib's PettingZoo wrapper over a kortmiljo AEC env, observations renamed for masking.

        ``env_config``: ``{"game": "spokelse", "config": {...game options...}}``.
        """

        def __init__(self, env_config: dict | None = None):
            from kortmiljo.registry import env_module

            env_config = dict(env_config or {})
            self.game = env_config.get("game", "spokelse")
            self.game_config = dict(env_config.get("config") or {})
            super().__init__(env_module(self.game).env(**self.game_config))
            e = self.env.unwrapped.engine
            space = gym.spaces.Dict(
                {
                    "observations": gym.spaces.Box(-np.inf, np.inf, (e.layout.size + e.deck.width,), np.float32),
                    "action_mask": gym.spaces.Box(0.0, 1.0, (len(e.action_names),), np.float32),
                }
            )
            self.observation_spaces = {a: space for a in self.possible_agents}
            self.observation_space = gym.spaces.Dict(self.observation_spaces)

        def reset(self, *, seed=None, options=None):
            obs, info = super().reset(seed=seed, options=options)
            return {a: rllib_observation(o) for a, o in obs.items()}, info

        def step(self, action):
            agent = self.env.agent_selection
            a = int(action[agent])
            e = self.env.unwrapped.engine
            if a not in e.legal_actions():
                e.raise_illegal(a, e.legal_actions())  # IllegalActionError: the masking failed
            obs, rew, term, trunc, info = super().step({agent: a})
            return {k: rllib_observation(o) for k, o in obs.items()}, rew, term, trunc, info

    class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
        """RLlib's default PPO torch module over ``observations``, its logits masked by ``action_mask``."""

        def __init__(self, *, observation_space=None, action_space=None, **kwargs):
            # the network sees only the observation vector; the mask is applied to its logits
            self.observation_space_with_mask = observation_space
            if isinstance(observation_space, gym.spaces.Dict):
                observation_space = observation_space["observations"]
            super().__init__(observation_space=observation_space, action_space=action_space, **kwargs)

        def setup(self):
            super().setup()
            self.observation_space = self.observation_space_with_mask

        @staticmethod
        def _split(batch):
            obs = batch[Columns.OBS]
            if isinstance(obs, dict):
                batch = dict(batch)  # never mutate the caller's batch
                batch[Columns.OBS] = obs["observations"]
                return obs["action_mask"], batch
            return batch.get("action_mask"), batch

        @staticmethod
        def _mask(out, mask):
            if mask is not None:
                logits = out[Columns.ACTION_DIST_INPUTS]
                out[Columns.ACTION_DIST_INPUTS] = logits + torch.clamp(torch.log(mask), min=FLOAT_MIN)
            return out

        def _forward_inference(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._mask(super()._forward_inference(batch, **kwargs), mask)

        def _forward_exploration(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._mask(super()._forward_exploration(batch, **kwargs), mask)

        def _forward_train(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._mask(super()._forward_train(batch, **kwargs), mask)

        def compute_values(self, batch, embeddings=None):
            _, batch = self._split(batch)
            return super().compute_values(batch, embeddings)


def make_env(env_config: dict | None = None):
    """The env creator registered with Ray (a module-level function, so remote env runners can import it)."""
    return KortmiljoRLlibEnv(env_config)


# ---- self-play mapping -------------------------------------------------------------------------


def seat_of(agent_id: str) -> int:
    return int(str(agent_id).rsplit("_", 1)[-1])


def self_play_mapping(agent_id, episode, *, num_players: int, pool_size: int, **kwargs) -> str:
    """One learner seat per episode, every other seat a frozen snapshot (both chosen from the episode id)."""
    h = zlib.crc32(str(episode.id_).encode())  # stable across processes, unlike hash()
    seat = seat_of(agent_id)
    if seat == h % num_players:
        return LEARNER
    return f"snapshot_{(h // num_players + seat) % pool_size}"


# ---- the training run ------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kortmiljo train GAME --backend rllib",
        description="PPO with self-play on Ray RLlib (new API stack). Docs: docs/rllib.md.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("game", choices=GAMES)
    p.add_argument("--config", action="append", metavar="KEY=VALUE", help="game option, repeatable")
    p.add_argument("--out", default=None, help="run directory (default runs/GAME-rllib-YYYYmmdd-HHMMSS)")
    p.add_argument("--address", default=None, help="Ray cluster to join (ray://HOST:10001 or auto); default: local Ray")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local Ray (default: all)")
    p.add_argument("--num-env-runners", type=int, default=2, help="sampling actors (0: sample in the driver)")
    p.add_argument("--envs-per-runner", type=int, default=1)
    p.add_argument("--iterations", type=int, default=None, help="training iterations (default 100)")
    p.add_argument("--timesteps", type=int, default=None, help="stop after this many env steps sampled")
    p.add_argument("--minutes", type=float, default=None, help="wall-clock budget")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--net", default="256,256", help="hidden layer sizes")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--train-batch-size", type=int, default=4000, help="env steps per iteration (all agents)")
    p.add_argument("--minibatch-size", type=int, default=256)
    p.add_argument("--num-epochs", type=int, default=4)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--lambda", dest="lambda_", type=float, default=0.95)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--pool-size", type=int, default=3, help="frozen snapshot modules the learner plays against")
    p.add_argument("--snapshot-every", type=int, default=5, help="refresh one snapshot every N iterations")
    p.add_argument("--checkpoint-every", type=int, default=10, help="write the checkpoint every N iterations")
    p.add_argument("--quiet", action="store_true")
    return p


def module_ids(pool_size: int) -> list[str]:
    return [LEARNER, *(f"snapshot_{i}" for i in range(pool_size))]


def build_config(args: argparse.Namespace, game_config: dict):
    import functools

    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from kortmiljo.registry import engine_class

    n = engine_class(args.game)(**game_config).num_players
    env_name = f"kortmiljo_{args.game}"
    register_env(env_name, make_env)
    module = MaskedPPOTorchRLModule
    hidden = [int(x) for x in str(args.net).split(",") if x.strip()]
    specs = {
        mid: RLModuleSpec(module_class=module, model_config={"fcnet_hiddens": hidden, "vf_share_layers": False})
        for mid in module_ids(args.pool_size)
    }
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        # RLlib's env checker steps random, unmasked actions, which our envs refuse
        .environment(env_name, env_config={"game": args.game, "config": game_config}, disable_env_checking=True)
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_runner)
        .multi_agent(
            policies=set(specs),
            policy_mapping_fn=functools.partial(self_play_mapping, num_players=n, pool_size=args.pool_size),
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            lr=args.lr,
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            gamma=args.gamma,
            lambda_=args.lambda_,
            entropy_coeff=args.ent_coef,
        )
        .debugging(seed=args.seed)
    )


def copy_learner_to(algo, snapshot: str) -> None:
    """Freeze the learner's current weights into ``snapshot`` (pushed to the env runners at the next sync)."""
    state = algo.get_module(LEARNER).get_state()
    algo.set_state({"learner_group": {"learner": {"rl_module": {snapshot: state}}}})


def _metric(result: dict, *keys: str, default: Any = None) -> Any:
    for key in keys:
        cur: Any = result
        for part in key.split("/"):
            if not isinstance(cur, dict) or part not in cur:
                cur = None
                break
            cur = cur[part]
        if cur is not None:
            return cur
    return default


def model_config(args: argparse.Namespace, game_config: dict) -> dict:
    import ray

    import kortmiljo
    from kortmiljo.registry import engine_class

    e = engine_class(args.game)(**game_config)
    return {
        "format": FORMAT,
        "game": args.game,
        "env_config": e.config,
        "obs_size": e.layout.size + e.deck.width,
        "include_unseen": True,
        "action_count": len(e.action_names),
        "module_id": LEARNER,
        "kortmiljo_version": kortmiljo.__version__,
        "ray_version": ray.__version__,
    }


def run(args: argparse.Namespace, game_config: dict) -> dict:
    import ray

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cfg = model_config(args, game_config)
    (out / "config.json").write_text(json.dumps(cfg, indent=2, default=str))
    (out / "args.json").write_text(json.dumps(vars(args), indent=2, default=str))
    t0 = time.time()
    if not ray.is_initialized():
        if args.address:
            ray.init(address=args.address, log_to_driver=not args.quiet)
        else:
            ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=not args.quiet)
    algo = build_config(args, game_config).build_algo()
    for i in range(args.pool_size):
        copy_learner_to(algo, f"snapshot_{i}")
    t_ready = time.time()
    budget_iters = args.iterations
    if budget_iters is None and args.timesteps is None and args.minutes is None:
        budget_iters = 100
    rows, it, steps, next_snapshot = [], 0, 0, 0
    checkpoint = out / "checkpoint"
    while True:
        result = algo.train()
        it += 1
        steps = int(
            _metric(result, "num_env_steps_sampled_lifetime", "env_runners/num_env_steps_sampled_lifetime", default=0)
        )
        elapsed = time.time() - t_ready
        row = {
            "iteration": it,
            "env_steps": steps,
            "time_s": round(elapsed, 2),
            "steps_per_s": round(steps / elapsed, 1) if elapsed > 0 else 0.0,
            "episodes": _metric(result, "env_runners/num_episodes_lifetime", default=""),
            "learner_return": _metric(result, f"env_runners/module_episode_returns_mean/{LEARNER}", default=""),
            "episode_len": _metric(result, "env_runners/episode_len_mean", default=""),
        }
        rows.append(row)
        if not args.quiet:
            print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        if args.snapshot_every and it % args.snapshot_every == 0:
            copy_learner_to(algo, f"snapshot_{next_snapshot}")
            next_snapshot = (next_snapshot + 1) % args.pool_size
        done = (
            (budget_iters is not None and it >= budget_iters)
            or (args.timesteps is not None and steps >= args.timesteps)
            or (args.minutes is not None and time.time() - t0 >= 60 * args.minutes)
        )
        if done or (args.checkpoint_every and it % args.checkpoint_every == 0):
            algo.save_to_path(str(checkpoint.resolve()))
        if done:
            break
    with open(out / "progress.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    report = {
        "game": args.game,
        "env_config": cfg["env_config"],
        "iterations": it,
        "env_steps": steps,
        "setup_s": round(t_ready - t0, 1),
        "train_s": round(time.time() - t_ready, 1),
        "steps_per_s": rows[-1]["steps_per_s"],
        "num_env_runners": args.num_env_runners,
        "illegal_actions": 0,  # the env raises IllegalActionError on any; reaching here means none
        "checkpoint": str(checkpoint),
        "ray_version": cfg["ray_version"],
    }
    (out / "report.json").write_text(json.dumps(report, indent=2, default=str))
    algo.stop()
    return report


def main(argv: list[str] | None = None) -> int:
    from .cli import parse_config

    parser = build_parser()
    args = parser.parse_args(argv)
    if not HAVE_RLLIB:
        print("kortmiljo train --backend rllib needs Ray RLlib: pip install 'kortmiljo[rllib]'", file=sys.stderr)
        return 2
    if args.num_env_runners < 0 or args.pool_size < 1:
        parser.error("--num-env-runners must be >= 0 and --pool-size >= 1")
    if args.out is None:
        args.out = f"runs/{args.game}-rllib-{time.strftime('%Y%m%d-%H%M%S')}"
    try:
        game_config = parse_config(args.config)
        from kortmiljo.registry import engine_class

        engine_class(args.game)(**game_config)  # bad options fail here, before Ray starts
    except ValueError as err:
        print(f"kortmiljo train: {err}", file=sys.stderr)
        return 2
    report = run(args, game_config)
    if not args.quiet:
        print(json.dumps(report, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
