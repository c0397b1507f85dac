"""``kortmiljo train GAME --backend rllib``: PPO on Ray RLlib's new API stack, with self-play.

Needs the ``rllib`` extra (``pip install 'kortmiljo[rllib]'``, Ray's minor version pinned).
How to run it on a Ray cluster: docs/rllib.md. Without Ray this module imports, and
:func:`kortmiljo.train.rllib_run.run` (the training run) says what to install.

* **Options.** :class:`RLlibConfig` is :class:`kortmiljo.train.config.TrainConfig` with the RLlib-only
  options added and the self-play ones counted in iterations; the shared options (game,
  ``--config``, budget, seed, network, learning rate, discount, GAE lambda, entropy bonus, pool,
  snapshots, checkpoints) are the same fields. :func:`rllib_settings` maps a config onto
  RLlib's ``PPOConfig`` sections; :func:`build_config` applies them.
* **Environment.** The game's AEC env through RLlib's own PettingZoo wrapper
  (``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``). That wrapper hands each agent
  ``env.last()`` when it is next selected: the reward accumulated since its previous action,
  including rewards that arrived on other agents' turns, and at the end it walks every seat
  through its final (dead) turn, so every seat receives its own terminal reward once. Our
  subclass only renames the observation for the masking module: ``{"observations":
  observation ++ unseen, "action_mask": mask}`` (both float32); the engine refuses an illegal
  action with its ``IllegalActionError`` (the run fails loudly rather than learn from it).
* **Masking.** :class:`kortmiljo.agents.rllib_module.MaskedPPOTorchRLModule` (re-exported here, where old
  checkpoints look for it): RLlib's default PPO torch module over the ``observations`` vector,
  with ``log(mask)`` (clamped) added to the action logits in every forward pass.
* **Self-play.** One trained module, ``learner``, and ``--pool-size`` frozen modules
  ``snapshot_0 …``, copies of the learner refreshed round-robin every ``--snapshot-every``
  iterations. In each episode one seat (chosen from the episode id) is the learner and every
  other seat a snapshot; only ``learner`` is trained.
* **Output** (``--out``, written by :mod:`kortmiljo.train.rllib_run`): ``checkpoint/`` (RLlib's
  algorithm checkpoint, the latest), ``config.json`` (game fingerprint, configuration, sizes,
  versions: what ``rllib:PATH`` agents check), ``args.json``, ``progress.csv`` (one row per
  iteration), ``eval.csv`` and ``report.json``. ``kortmiljo eval GAME --agents rllib:OUT random``
  and ``kortmiljo play GAME --opponents rllib:OUT`` load the learner from it.
"""

from __future__ import annotations

import dataclasses
import functools
import time
import zlib
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from kortmiljo.agents.rllib_module import HAVE_RLLIB
from kortmiljo.train.config import RLLIB, TrainConfig, TrainError, between, option

from kortmiljo import __version__, load_game
from kortmiljo.core.game import Game
from kortmiljo.env.training import flat_observation, observation_size

LEARNER = "learner"
FORMAT = "kortmiljo-rllib/1"
RAY = "Ray RLlib"

if HAVE_RLLIB:
    import gymnasium as gym
    from kortmiljo.agents.rllib_module import MaskedPPOTorchRLModule  # noqa: F401  (old checkpoints name it here)
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv


@dataclass
class RLlibConfig(TrainConfig):
    """The options of ``kortmiljo train GAME --backend rllib``: the shared fields of
    :class:`~kortmiljo.train.config.TrainConfig` (some with RLlib's defaults and units) and RLlib's own."""

    BACKEND: ClassVar[str] = "rllib"
    PROG: ClassVar[str] = "kortmiljo train GAME --backend rllib"
    DESCRIPTION: ClassVar[str] = "PPO with self-play on Ray RLlib (new API stack). Docs: docs/rllib.md."
    RULES: ClassVar[dict] = {
        **TrainConfig.RULES, "num_cpus": between(1, 4096), "num_env_runners": between(0, 4096),
        "envs_per_runner": between(1, 4096), "iterations": between(1, 10**7), "train_batch_size": between(2, 10**7),
        "minibatch_size": between(1, 10**7), "num_epochs": between(1, 1000), "num_learners": between(0, 1024),
        "num_gpus_per_learner": between(0, 64), "eval_every": between(0, 10**7), "eval_deals": between(1, 10**5),
    }  # fmt: skip
    # how this run uses the cluster: a resumed run takes these from the command that resumes it
    CLUSTER_FIELDS: ClassVar[tuple[str, ...]] = ("address", "num_cpus", "num_env_runners", "envs_per_runner",
                                                 "num_learners", "num_gpus_per_learner")  # fmt: skip

    timesteps: int | None = option(None, "stop after this many env steps sampled (all seats)", group="budget",
                                   backends=RLLIB)  # fmt: skip
    resume: bool = option(False, "continue the run in --out from its last checkpoint (the budget counts the time "
                          "already spent)", group="budget", backends=RLLIB)  # fmt: skip
    out: str | None = option(None, "run directory (default runs/GAME-rllib-YYYYmmdd-HHMMSS)", backends=RLLIB)
    gae_lambda: float = option(0.95, "GAE lambda", group="model and PPO", flags=("--lambda", "--gae-lambda"),
                               backends=RLLIB)  # fmt: skip
    pool_size: int = option(3, "frozen snapshot modules the learner plays against", group="opponents and self-play",
                            backends=RLLIB)  # fmt: skip
    snapshot_every: int = option(5, "refresh one snapshot every N iterations", group="opponents and self-play",
                                 backends=RLLIB)  # fmt: skip
    checkpoint_every: int = option(10, "write the checkpoint every N iterations", backends=RLLIB)
    address: str | None = option(None, "Ray cluster to join (ray://HOST:10001 or auto); default: local Ray",
                                 group=RAY, backends=RLLIB)  # fmt: skip
    num_cpus: int | None = option(None, "CPUs of a local Ray (default: all)", group=RAY, backends=RLLIB)
    num_env_runners: int = option(2, "sampling actors (0: sample in the driver)", group=RAY, backends=RLLIB)
    envs_per_runner: int = option(1, "environments per env runner", group=RAY, backends=RLLIB)
    iterations: int | None = option(None, "training iterations (default 100 without --timesteps and --minutes)",
                                    group="budget", backends=RLLIB)  # fmt: skip
    train_batch_size: int = option(4000, "env steps per iteration (all agents)", group=RAY, backends=RLLIB)
    minibatch_size: int = option(256, "PPO minibatch", group=RAY, backends=RLLIB)
    num_epochs: int = option(4, "passes over each iteration's batch", group=RAY, backends=RLLIB)
    num_learners: int = option(0, "learner actors for the PPO updates (0: one learner in this process)", group=RAY,
                               backends=RLLIB)  # fmt: skip
    num_gpus_per_learner: float = option(0.0, "GPUs of each learner (with --num-learners 0: this machine's)",
                                         group=RAY, backends=RLLIB)  # fmt: skip
    eval_every: int = option(10, "evaluate the learner every N iterations on duplicate deals (0: only at the end)",
                             group="evaluation", backends=RLLIB)  # fmt: skip
    eval_deals: int = option(100, "duplicate deals per evaluation and opponent (x seats games)", group="evaluation",
                             backends=RLLIB)  # fmt: skip
    eval_opponents: tuple[str, ...] | None = option(None, "opponents of the evaluations (default: random,heuristic "
                                                    "where available)", group="evaluation", backends=RLLIB)  # fmt: skip

    def default_out(self) -> str:
        return f"runs/{self.game}-rllib-{time.strftime('%Y%m%d-%H%M%S')}"

    def resumed(self, saved: TrainConfig) -> TrainConfig:
        """The saved run's options, with the budget given now and how this command uses the cluster."""
        now = {k: getattr(self, k) for k in self.CLUSTER_FIELDS}
        if self.iterations is not None:
            now["iterations"] = self.iterations
        return dataclasses.replace(super().resumed(saved), **now)

    def validate_combination(self) -> None:
        if self.minibatch_size > self.train_batch_size:
            raise TrainError(
                f"--minibatch-size {self.minibatch_size} exceeds --train-batch-size {self.train_batch_size}"
            )

    @property
    def iteration_budget(self) -> int | None:
        """``--iterations``, or 100 when no budget is given at all."""
        if self.iterations is None and self.timesteps is None and self.minutes is None:
            return 100
        return self.iterations


# ---- the environment ---------------------------------------------------------------------------


def rllib_observation(obs: dict) -> dict:
    """The AEC observation dict renamed for the masked module."""
    return {"observations": flat_observation(obs), "action_mask": np.asarray(obs["action_mask"], np.float32)}


if HAVE_RLLIB:

    class KortmiljoRLlibEnv(PettingZooEnv):
        """RLlib's PettingZoo wrapper over a kortmiljo AEC env, observations renamed for masking.

        ``env_config``: ``{"game": NAME, "config": {...game options...}}`` (names and plain
        values: it travels to every env runner).
        """

        def __init__(self, env_config: dict):
            from kortmiljo.env.modules import env_module_of

            game = load_game(env_config["game"], **(env_config.get("config") or {}))
            super().__init__(env_module_of(game.name).env(**game.config))
            space = gym.spaces.Dict(
                {
                    "observations": gym.spaces.Box(-np.inf, np.inf, (observation_size(game),), np.float32),
                    "action_mask": gym.spaces.Box(0.0, 1.0, (game.num_actions,), np.float32),
                }
            )
            self.observation_spaces = {a: space for a in self.possible_agents}
            self.observation_space = gym.spaces.Dict(self.observation_spaces)

        def reset(self, *, seed=None, options=None):
            obs, info = super().reset(seed=seed, options=options)
            return {a: rllib_observation(o) for a, o in obs.items()}, info

        def step(self, action):
            agent = self.env.agent_selection  # the engine raises IllegalActionError on an illegal action
            obs, rew, term, trunc, info = super().step({agent: int(action[agent])})
            return {k: rllib_observation(o) for k, o in obs.items()}, rew, term, trunc, info


def make_env(env_config: dict):
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


def module_ids(pool_size: int) -> list[str]:
    return [LEARNER, *(f"snapshot_{i}" for i in range(pool_size))]


# ---- the config, mapped onto RLlib's --------------------------------------------------------------


def rllib_settings(config: RLlibConfig, game: Game) -> dict[str, dict[str, Any]]:
    """The keyword arguments of each ``PPOConfig`` section for this config (no Ray needed)."""
    c = config
    return {
        "environment": {"env": f"kortmiljo_{game.name}", "env_config": {"game": game.name, "config": game.config},
                        "disable_env_checking": True},  # RLlib's checker steps unmasked actions, which ours refuse
        "env_runners": {"num_env_runners": c.num_env_runners, "num_envs_per_env_runner": c.envs_per_runner},
        "learners": {"num_learners": c.num_learners, "num_gpus_per_learner": c.num_gpus_per_learner},
        "multi_agent": {"policies": set(module_ids(c.pool_size)), "policies_to_train": [LEARNER],
                        "num_players": game.num_players, "pool_size": c.pool_size},
        "model": {"fcnet_hiddens": list(c.net), "vf_share_layers": False},
        "training": {"lr": c.lr, "train_batch_size_per_learner": c.train_batch_size,
                     "minibatch_size": c.minibatch_size, "num_epochs": c.num_epochs, "gamma": c.gamma,
                     "lambda_": c.gae_lambda, "entropy_coeff": c.ent_coef},
        "debugging": {"seed": c.seed},
    }  # fmt: skip


def build_config(config: RLlibConfig, game: Game):
    """RLlib's ``PPOConfig`` from :func:`rllib_settings`."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    s = rllib_settings(config, game)
    register_env(s["environment"]["env"], make_env)
    ma = s["multi_agent"]
    module = MaskedPPOTorchRLModule
    specs = {m: RLModuleSpec(module_class=module, model_config=dict(s["model"])) for m in ma["policies"]}
    mapping = functools.partial(self_play_mapping, num_players=ma["num_players"], pool_size=ma["pool_size"])
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(**s["environment"])
        .env_runners(**s["env_runners"])
        .learners(**s["learners"])
        .multi_agent(policies=ma["policies"], policy_mapping_fn=mapping, policies_to_train=ma["policies_to_train"])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(**s["training"])
        .debugging(**s["debugging"])
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


def model_config(game: Game) -> dict:
    import ray

    return {
        "format": FORMAT, "game": game.name, "env_config": game.config, "fingerprint": game.fingerprint(),
        "obs_size": observation_size(game), "include_unseen": True, "action_count": game.num_actions,
        "module_id": LEARNER, "kortmiljo_version": __version__, "ray_version": ray.__version__,
    }  # fmt: skip
