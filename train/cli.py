"""``kortmiljo train GAME`` (also ``python -m train GAME``): MaskablePPO with self-play.

One run directory (``--out``) holds everything::

    model.zip            the model to use (the best by in-loop duplicate evaluation; --keep-last: the last)
    last_model.zip       the policy when training stopped
    best_model.zip       the best-evaluated policy
    config.json          game, configuration, observation and action sizes, kortmiljo version
    args.json            the command's options (``--resume`` reuses them)
    progress.csv         one row per PPO update: timesteps, time, training return, PPO statistics
    eval.csv             one row per evaluation: mean reward and 95% interval per opponent
    report.json          the final report (phases, timings, throughput, evaluations)
    learning_curve.png   evaluation results and training return against timesteps
    tb/                  TensorBoard logs (``tensorboard --logdir DIR/tb``)
    checkpoint/          the latest resumable checkpoint (model + optimizer, timesteps,
                         opponent pool, RNG states), written atomically

Pipeline, every step optional: (1) behaviour cloning of a teacher (``--bc-teacher
search --bc-games 2000``; teacher data are cached under ``--cache``), (2) PPO against an
opponent pool of baselines (``--opponents``) and frozen snapshots of the learner (added
every ``--snapshot-every`` updates, chosen with ``--self-play-prob``), sampled per
episode and seat, with periodic duplicate-deal evaluation that keeps the best model.

Speed on a small CPU, all by default: 64 games at once on the native vector env
(``--vec auto``, :mod:`kortmiljo.env.vector`), rollouts on one torch thread (``--threads``),
each PPO update on all cores up to 4 (``--update-threads``), and the hidden layers of both
in bfloat16 where the CPU multiplies it natively (``--train-precision auto``,
:class:`train.policy.TrainingSpeedups`).

``--minutes`` bounds the wall-clock time of the whole invocation (behaviour-cloning data
collection and fitting included); ``--timesteps`` bounds PPO environment steps. A
killed run continues with ``--resume --out DIR`` (the budget counts time already spent).
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import math
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

GAMES = ("spokelse", "sproyte", "femkortskille")


# ---- arguments ------------------------------------------------------------------------------


def parse_value(text: str) -> Any:
    """``--config`` values: Python/JSON literals (``3``, ``0.5``, ``None``, ``(5,4,3)``, ``true``), else the string."""
    low = text.strip()
    if low.lower() in ("true", "false"):
        return low.lower() == "true"
    if low.lower() in ("none", "null"):
        return None
    try:
        return ast.literal_eval(low)
    except (ValueError, SyntaxError):
        return low


def default_update_threads() -> int:
    """Cores this process may use, at most 4: a PPO update on 512-sample minibatches of a 256-256
    network runs 1.7x faster on 2 threads than on 1 (benchmarks/train_throughput.py), while
    collecting rollouts (one small forward pass per step) is fastest on one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def add_train_precision_option(parser: Any) -> None:
    """``--train-precision`` (the CLI's option; benchmarks/train_throughput.py takes the same)."""
    parser.add_argument(
        "--train-precision",
        choices=("auto", "fp32", "bf16"),
        default="auto",
        help="number format of the hidden layers while training (batched rollout steps and the PPO update; "
        "weights, optimizer, evaluation and play stay float32); auto: bf16 where the CPU multiplies "
        "bfloat16 natively (about 2x faster training there), else fp32",
    )


def resolve_train_precision(choice: str) -> str:
    """``auto`` is ``bf16`` on a CPU with native bfloat16 matrix products, else ``fp32``."""
    if choice != "auto":
        return choice
    from train.policy import native_bf16

    return "bf16" if native_bf16() else "fp32"


def parse_config(items: list[str] | None) -> dict:
    """``--config a=1 --config b=x`` or ``--config a=1,b=x`` → ``{"a": 1, "b": "x"}``."""
    out: dict[str, Any] = {}
    for item in items or []:
        for part in re.split(r",(?=\s*[A-Za-z_]\w*\s*=)", item):
            key, sep, value = part.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"--config expects key=value, got {part!r}")
            out[key.strip()] = parse_value(value)
    return out


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kortmiljo train",
        description="Train a MaskablePPO agent for a kortmiljo game "
        "(self-play, behaviour-cloning pretraining, evaluation).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("game", choices=GAMES)
    p.add_argument(
        "--backend",
        choices=("sb3", "rllib"),
        default="sb3",
        help="sb3: MaskablePPO in this process; rllib: Ray RLlib PPO (docs/rllib.md; --backend rllib --help)",
    )
    p.add_argument(
        "--config", action="append", metavar="KEY=VALUE", help="game option, repeatable (e.g. num_players=3)"
    )
    b = p.add_argument_group("budget")
    b.add_argument(
        "--timesteps",
        type=int,
        default=None,
        help="PPO environment steps (learner decisions); default 200000 without --minutes",
    )
    b.add_argument("--minutes", type=float, default=None, help="wall-clock budget of the whole run, BC included")
    b.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint")
    r = p.add_argument_group("run")
    r.add_argument("--out", default=None, help="run directory (default runs/GAME-YYYYmmdd-HHMMSS)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument(
        "--n-envs",
        type=int,
        default=64,
        help="games played at once (64: the native vector env, about twice the training speed of 8 scalar envs)",
    )
    r.add_argument(
        "--vec",
        choices=("auto", "native", "dummy", "subproc"),
        default="auto",
        help="native: one batched engine for all envs (kortmiljo.env.vector); auto: native where the game has a "
        "batched engine and --n-envs is large enough for it to be faster, else dummy (beats subproc on 2 cores)",
    )
    r.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads while collecting rollouts (1 is fastest for one small batch per step)",
    )
    r.add_argument(
        "--update-threads",
        type=int,
        default=0,
        help="torch threads during each PPO update (large minibatches use several cores well); "
        "0: the cores this process may use, at most 4",
    )
    add_train_precision_option(r)
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--quiet", action="store_true")
    m = p.add_argument_group("model and PPO")
    m.add_argument("--net", default="256,256", help="hidden layer sizes of policy and value networks")
    m.add_argument("--init", default=None, metavar="MODEL", help="start from this model (.zip or run directory)")
    m.add_argument("--lr", type=float, default=3e-4)
    m.add_argument(
        "--n-steps", type=int, default=32, help="rollout steps per env per update (default: 64 x 32 = 2,048 decisions)"
    )
    m.add_argument("--batch-size", type=int, default=512)
    m.add_argument("--n-epochs", type=int, default=4)
    m.add_argument("--gamma", type=float, default=0.995)
    m.add_argument("--gae-lambda", type=float, default=0.95)
    m.add_argument("--clip", type=float, default=0.2)
    m.add_argument("--ent-coef", type=float, default=0.01)
    m.add_argument("--vf-coef", type=float, default=0.5)
    m.add_argument("--target-kl", type=float, default=None)
    m.add_argument("--max-grad-norm", type=float, default=0.5)
    m.add_argument("--no-unseen", action="store_true", help="do not append the unseen-card mask to the observation")
    m.add_argument(
        "--shaping",
        choices=("none", "auto"),
        default="none",
        help="potential-based reward shaping (auto: the game's built-in potential)",
    )
    m.add_argument("--shaping-scale", type=float, default=0.1)
    m.add_argument(
        "--privileged-critic",
        action="store_true",
        help="asymmetric actor-critic: the value network also sees hidden state during training "
        "(the policy never does); see train/policy.py",
    )
    m.add_argument(
        "--reward-scale", type=float, default=1.0, help="multiply the rewards PPO sees (e.g. 0.2 for chip rewards)"
    )
    o = p.add_argument_group("opponents and self-play")
    o.add_argument(
        "--opponents",
        default=None,
        help="baseline opponents, comma-separated agent names (default: random,heuristic where available)",
    )
    o.add_argument(
        "--self-play-prob",
        type=float,
        default=0.5,
        help="chance that an opponent seat gets a learner snapshot (once there is one)",
    )
    o.add_argument(
        "--snapshot-every", type=int, default=10, help="add a learner snapshot to the pool every K updates (0: never)"
    )
    o.add_argument("--pool-size", type=int, default=20, help="snapshots kept (the most recent)")
    e = p.add_argument_group("evaluation")
    e.add_argument("--eval-every", type=int, default=50_000, help="evaluate every N timesteps (0: only at the end)")
    e.add_argument("--eval-deals", type=int, default=200, help="duplicate deals per evaluation (× seats games)")
    e.add_argument("--eval-opponents", default=None, help="default: random,heuristic where available")
    e.add_argument(
        "--select-by",
        default=None,
        help="eval opponent that picks the best model (default: the last of --eval-opponents)",
    )
    e.add_argument("--keep-last", action="store_true", help="model.zip = the last policy, not the best evaluated")
    e.add_argument("--checkpoint-every", type=int, default=10, help="write the resumable checkpoint every K updates")
    c = p.add_argument_group("behaviour cloning (pretraining)")
    c.add_argument(
        "--bc-teacher", default=None, help="agent whose decisions the policy imitates first (e.g. heuristic, search)"
    )
    c.add_argument("--bc-games", type=int, default=1000, help="teacher games to record (cached)")
    c.add_argument(
        "--bc-opponents", default=None, help="opponents of the teacher while recording (default: --opponents)"
    )
    c.add_argument(
        "--bc-minutes", type=float, default=None, help="cap on data-collection time (the data so far are used)"
    )
    c.add_argument("--bc-workers", type=int, default=1, help="processes collecting teacher games")
    c.add_argument("--bc-epochs", type=int, default=10)
    c.add_argument("--bc-lr", type=float, default=1e-3)
    c.add_argument(
        "--bc-aux-coef",
        type=float,
        default=0.0,
        help="keep imitating the teacher during PPO: weight of a BC loss step after each update",
    )
    c.add_argument(
        "--bc-aux-batches", type=int, default=4, help="BC minibatches after each PPO update when --bc-aux-coef > 0"
    )
    c.add_argument("--cache", default="runs/cache", help="teacher-data cache directory")
    return p


# ---- helpers ----------------------------------------------------------------------------------


def atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def atomic_save_model(model: Any, path: Path) -> None:
    tmp = path.with_name(f".{path.stem}.tmp{os.getpid()}.zip")
    model.save(str(tmp))
    os.replace(tmp, path)


def atomic_torch_save(obj: Any, path: Path) -> None:
    import torch

    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def available_agents(game: str, names: list[str], config: dict) -> list[str]:
    """The names that ``make_agent`` can build for this game now (others are skipped)."""
    from agents.registry import make_agent

    ok = []
    for n in names:
        try:
            make_agent(n, game, config, seed=0)
            ok.append(n)
        except (ValueError, ImportError):
            pass
    return ok


def _csv_append(path: Path, row: dict) -> None:
    new = not path.exists()
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)


class Trainer:
    """One training run: builds envs, pool and model, runs BC and PPO, writes everything."""

    def __init__(self, args: argparse.Namespace, config: dict, explicit_budget: dict):
        import torch

        from agents.registry import make_agent
        from kortmiljo import __version__
        from kortmiljo.registry import engine_class

        self.args = args
        self.torch = torch
        torch.set_num_threads(max(1, args.threads))
        self.update_threads = args.update_threads if args.update_threads > 0 else default_update_threads()
        self.train_precision = resolve_train_precision(getattr(args, "train_precision", "auto"))
        self.make_agent = make_agent
        self.game = args.game
        self.engine = engine_class(args.game)(**config)  # validates the configuration
        self.config = dict(self.engine.config)
        self.version = __version__
        self.out = Path(args.out)
        self.ckpt = self.out / "checkpoint"
        self.include_unseen = not args.no_unseen
        self.actor_size = self.engine.layout.size + (self.engine.deck.width if self.include_unseen else 0)
        self.privileged_size = 0
        if args.privileged_critic:
            from kortmiljo.env.training import privileged_features

            probe = engine_class(args.game)(**config)
            probe.new_episode(np.random.default_rng(0))
            self.privileged_size = len(privileged_features(probe, 0))
        self.log = (lambda *a, **k: None) if args.quiet else (lambda *a, **k: print(*a, **k, flush=True))
        default_opp = available_agents(self.game, ["random", "heuristic"], self.config)
        self.opponent_names = args.opponents.split(",") if args.opponents else default_opp
        self.eval_names = args.eval_opponents.split(",") if args.eval_opponents else default_opp
        self.select_by = args.select_by or (self.eval_names[-1] if self.eval_names else None)
        self.state: dict[str, Any] = {
            "phase": "start",
            "elapsed_s": 0.0,
            "updates": 0,
            "best": None,
            "evals": [],
            "snapshots": [],
            "phases": {},
            "bc": None,
        }
        self.explicit_budget = explicit_budget
        self.t_start = time.time()

    # ---- timing -----------------------------------------------------------------------------
    def elapsed(self) -> float:
        return self.state["elapsed_s"] + (time.time() - self.t_start)

    def time_left(self) -> float:
        if self.args.minutes is None:
            return math.inf
        return self.args.minutes * 60 - self.elapsed()

    def model_config(self) -> dict:
        return {
            "format": "kortmiljo-ppo/1",
            "game": self.game,
            "env_config": self.config,
            "obs_size": self.actor_size,
            "privileged_size": self.privileged_size,
            "action_count": len(self.engine.action_names),
            "action_names": list(self.engine.action_names),
            "include_unseen": self.include_unseen,
            "kortmiljo_version": self.version,
            "algo": "MaskablePPO",
            "net": [int(x) for x in self.args.net.split(",") if x],
        }

    # ---- envs and pool ------------------------------------------------------------------------
    def build_pool(self, seed: int):
        from train.pool import OpponentPool

        baselines = [
            self.make_agent(n, self.game, self.config, seed=seed + i) for i, n in enumerate(self.opponent_names)
        ]
        return OpponentPool(
            self.engine,
            baselines,
            self.args.self_play_prob,
            self.args.pool_size,
            self.include_unseen,
            self.privileged_size,
        )

    def build_env(self):
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

        from kortmiljo.env.training import SingleSeatEnv
        from kortmiljo.env.vector import BatchedSingleSeatVecEnv, choose_vec

        a = self.args
        shaping = "auto" if a.shaping == "auto" else None
        vec = choose_vec(a.vec, self.game, a.n_envs)
        if vec != "subproc":
            self.pool = self.build_pool(a.seed * 7919 + 17)
        else:
            self.pool = None
        if vec == "native":
            try:
                self.vec_kind = "native"
                return self._wrap(
                    BatchedSingleSeatVecEnv(
                        self.game, self.config, a.n_envs, self.pool, include_unseen=self.include_unseen,
                        shaping=shaping, shaping_scale=a.shaping_scale, gamma=a.gamma, seed=a.seed * 1000,
                        privileged=a.privileged_critic,
                    )
                )  # fmt: skip
            except ValueError:  # an opponent that needs the live engine (search): scalar views
                if a.vec == "native":
                    raise
                vec = "dummy"

        def make(i: int):
            def thunk():
                pool = self.pool if self.pool is not None else self.build_pool(a.seed * 7919 + 17 + 100 * i)
                return SingleSeatEnv(
                    self.game, self.config, pool, include_unseen=self.include_unseen, shaping=shaping,
                    shaping_scale=a.shaping_scale, gamma=a.gamma, seed=a.seed * 1000 + i,
                    privileged=a.privileged_critic,
                )  # fmt: skip

            return thunk

        fns = [make(i) for i in range(a.n_envs)]
        venv = DummyVecEnv(fns) if vec == "dummy" else SubprocVecEnv(fns, start_method="fork")
        self.vec_kind = vec
        return self._wrap(venv)

    def _wrap(self, venv):
        from stable_baselines3.common.vec_env import VecMonitor

        if self.args.reward_scale != 1.0:
            venv = VecRewardScale(venv, self.args.reward_scale)
        return VecMonitor(venv)

    def add_snapshot(self, name: str, save: bool = True) -> None:
        from agents.trained import clone_policy

        net = clone_policy(self.model.policy)
        seed = int(abs(hash(name)) % 2**31)
        if self.pool is not None:
            self.pool.add_snapshot(net, name, seed)
        else:
            self.venv.env_method("opponents_call", "add_snapshot", net, name, seed)
        if save:
            (self.ckpt / "pool").mkdir(parents=True, exist_ok=True)
            atomic_torch_save(net.state_dict(), self.ckpt / "pool" / f"{name}.pt")
            self.state["snapshots"] = (self.state["snapshots"] + [name])[-self.args.pool_size :]

    # ---- model ----------------------------------------------------------------------------------
    def new_model(self):
        from sb3_contrib import MaskablePPO

        a = self.args
        net = [int(x) for x in a.net.split(",") if x]
        from train.policy import AsymmetricMaskablePolicy, KortmiljoMaskablePolicy

        policy: Any = KortmiljoMaskablePolicy
        policy_kwargs: dict[str, Any] = {"net_arch": {"pi": net, "vf": net}}
        if self.privileged_size:
            policy = AsymmetricMaskablePolicy
            policy_kwargs["actor_dim"] = self.actor_size
        return MaskablePPO(
            policy,
            self.venv,
            learning_rate=a.lr,
            n_steps=a.n_steps,
            batch_size=a.batch_size,
            n_epochs=a.n_epochs,
            gamma=a.gamma,
            gae_lambda=a.gae_lambda,
            clip_range=a.clip,
            ent_coef=a.ent_coef,
            vf_coef=a.vf_coef,
            max_grad_norm=a.max_grad_norm,
            target_kl=a.target_kl,
            policy_kwargs=policy_kwargs,
            tensorboard_log=str(self.out / "tb"),
            seed=a.seed,
            device="cpu",
            verbose=0,
        )

    def current_policy(self, deterministic: bool = True):
        from agents.trained import PPOPolicy

        return PPOPolicy(
            self.engine,
            self.model.policy,
            seed=0,
            deterministic=deterministic,
            include_unseen=self.include_unseen,
            name="learner",
            privileged_size=self.privileged_size,
        )

    # ---- evaluation -------------------------------------------------------------------------------
    def evaluate(self, label: str) -> dict:
        from train.evaluate import duplicate_eval

        t = time.time()
        row: dict[str, Any] = {
            "timesteps": int(self.model.num_timesteps),
            "wall_s": round(self.elapsed(), 1),
            "label": label,
        }
        learner = self.current_policy()
        results = {}
        for i, name in enumerate(self.eval_names):
            opp = self.make_agent(name, self.game, self.config, seed=10_000 + i)
            r = duplicate_eval(self.engine, learner, opp, self.args.eval_deals, seed=self.args.seed * 31 + 12_345)
            results[name] = r
            row[f"{name}_mean"] = round(r["mean_reward"], 4)
            row[f"{name}_ci95"] = round(r["ci95"], 4)
            row[f"{name}_games"] = r["games"]
            self.model.logger.record(f"eval/{name}_mean_reward", r["mean_reward"])
        self.model.policy.set_training_mode(False)
        row["eval_s"] = round(time.time() - t, 1)
        _csv_append(self.out / "eval.csv", row)
        self.state["evals"].append(row)
        text = ", ".join(f"vs {n} {r['mean_reward']:+.3f} ± {r['ci95']:.3f}" for n, r in results.items())
        self.log(f"[eval {label} @ {row['timesteps']} steps, {row['wall_s']:.0f} s] {text}  ({row['eval_s']} s)")
        if self.select_by in results:
            score = results[self.select_by]["mean_reward"]
            best = self.state["best"]
            if best is None or score > best["score"]:
                self.state["best"] = {
                    "score": score,
                    "ci95": results[self.select_by]["ci95"],
                    "timesteps": row["timesteps"],
                    "label": label,
                    "by": self.select_by,
                }
                atomic_save_model(self.model, self.out / "best_model.zip")
                self.log(f"  new best vs {self.select_by}: {score:+.3f}")
        return results

    # ---- checkpoint -------------------------------------------------------------------------------
    def checkpoint(self) -> None:
        """Model + optimizer, then the state that names it (written last, atomically)."""
        self.ckpt.mkdir(parents=True, exist_ok=True)
        name = f"model_{int(self.model.num_timesteps):010d}.zip"
        atomic_save_model(self.model, self.ckpt / name)
        atomic_torch_save(self.torch.get_rng_state(), self.ckpt / "torch_rng.pt")
        st = dict(self.state)
        st["elapsed_s"] = self.elapsed()
        st["model_file"] = name
        st["timesteps"] = int(self.model.num_timesteps)
        st["env_rngs"] = self.venv.env_method("rng_state")
        st["pool_counts"] = self.pool.counts if self.pool is not None else {}
        atomic_write_text(self.ckpt / "state.json", json.dumps(st, indent=1, default=_json_default))
        atomic_write_text(self.ckpt / "config.json", json.dumps(self.model_config(), indent=1))
        for f in self.ckpt.glob("model_*.zip"):
            if f.name != name:
                f.unlink(missing_ok=True)
        keep = {f"{s}.pt" for s in self.state["snapshots"]}
        for f in (self.ckpt / "pool").glob("*.pt") if (self.ckpt / "pool").exists() else []:
            if f.name not in keep:
                f.unlink(missing_ok=True)

    def restore(self) -> None:
        from sb3_contrib import MaskablePPO

        st = json.loads((self.ckpt / "state.json").read_text())
        self.model = MaskablePPO.load(
            str(self.ckpt / st["model_file"]), env=self.venv, device="cpu", tensorboard_log=str(self.out / "tb")
        )
        self.torch.set_rng_state(self.torch.load(self.ckpt / "torch_rng.pt"))
        for k in ("phase", "elapsed_s", "updates", "best", "evals", "phases", "bc"):
            self.state[k] = st.get(k, self.state[k])
        for name in st.get("snapshots", []):
            from agents.trained import clone_policy

            net = clone_policy(self.model.policy, self.torch.load(self.ckpt / "pool" / f"{name}.pt"))
            self.state["snapshots"] = st["snapshots"]
            if self.pool is not None:
                self.pool.add_snapshot(net, name, int(abs(hash(name)) % 2**31))
            else:
                self.venv.env_method("opponents_call", "add_snapshot", net, name, int(abs(hash(name)) % 2**31))
        rngs = st.get("env_rngs")
        if rngs and len(rngs) == self.args.n_envs:
            for i, s in enumerate(rngs):
                self.venv.env_method("set_rng_state", s, indices=[i])
        self.log(
            f"resumed {self.out} at {self.model.num_timesteps} timesteps, {self.state['elapsed_s']:.0f} s spent, "
            f"phase {self.state['phase']}, {len(st.get('snapshots', []))} snapshots in the pool"
        )

    # ---- phases -----------------------------------------------------------------------------------
    def run_bc(self) -> None:
        from kortmiljo.env.training import SHAPING
        from train import bc

        a = self.args
        teacher = a.bc_teacher
        opp_names = a.bc_opponents.split(",") if a.bc_opponents else self.opponent_names
        game, config = self.game, self.config
        make_agent = self.make_agent
        pot = None
        if a.shaping == "auto" and SHAPING.get(game):
            base, scale = SHAPING[game], a.shaping_scale
            pot = _ScaledPotential(base, scale)
        key = bc.cache_key(
            self.engine,
            make_agent(teacher, game, config, seed=0),
            teacher,
            opp_names,
            a.seed,
            self.include_unseen,
            a.gamma,
            f"{a.shaping}:{a.shaping_scale}",
            privileged=bool(self.privileged_size),
        )
        budget = a.bc_minutes * 60 if a.bc_minutes is not None else None
        if self.time_left() < math.inf:
            budget = min(budget or math.inf, max(10.0, self.time_left() * 0.5))
        self.log(
            f"behaviour cloning: recording {a.bc_games} games of {teacher} vs {','.join(opp_names)} (cache {a.cache})"
        )
        bar = None
        if not a.no_progress and not a.quiet:
            from tqdm import tqdm

            bar = tqdm(desc=f"teacher games ({teacher})", unit="chunk", dynamic_ncols=True)

        def progress(k: int, total: int) -> None:
            if bar is not None:
                bar.total = total
                bar.n = k
                bar.refresh()

        t = time.time()
        data, info = bc.collect(
            self.engine,
            lambda s: make_agent(teacher, game, config, seed=s),
            lambda s: [make_agent(n, game, config, seed=s + i) for i, n in enumerate(opp_names)],
            key, a.bc_games, a.seed, Path(a.cache), self.include_unseen, a.gamma, pot,
            budget_s=budget, workers=a.bc_workers, progress=progress, privileged=bool(self.privileged_size),
        )  # fmt: skip
        if bar is not None:
            bar.close()
        t_collect = time.time() - t
        self.log(
            f"  {info['games']} games, {info['decisions']} decisions (teacher return "
            f"{info['teacher_mean_return']:+.3f}); {t_collect:.0f} s now, "
            f"{info['collect_seconds_total']:.0f} s of play in the cache"
        )
        t = time.time()
        fit_budget = max(10.0, self.time_left() * 0.3) if self.time_left() < math.inf else None
        if a.reward_scale != 1.0:  # the value head learns returns as PPO will see them
            data = {**data, "value": data["value"] * np.float32(a.reward_scale)}
        fit = bc.fit(
            self.model.policy,
            data,
            epochs=a.bc_epochs,
            lr=a.bc_lr,
            vf_coef=1.0,
            seed=a.seed,
            budget_s=fit_budget,
            log=self.log,
        )
        self.bc_data = data if a.bc_aux_coef > 0 else None  # kept only for the auxiliary loss (memory)
        self.state["bc"] = {
            "teacher": teacher,
            "opponents": opp_names,
            **info,
            "fit": fit,
            "final_val_acc": fit["epochs"][fit["best_epoch"] - 1]["val_acc"] if fit["best_epoch"] else None,
        }
        self.state["phases"]["bc_collect_s"] = round(t_collect, 1)
        self.state["phases"]["bc_fit_s"] = round(time.time() - t, 1)

    def run_ppo(self) -> None:
        from train.callbacks import TrainingCallback

        a = self.args
        target = a.timesteps if a.timesteps is not None else (10**12 if a.minutes is not None else 200_000)
        remaining = target - self.model.num_timesteps
        if remaining <= 0 or self.time_left() <= 0:
            return
        cb = TrainingCallback(self, target)
        t = time.time()
        steps0 = self.model.num_timesteps
        try:
            self.model.learn(
                total_timesteps=remaining, callback=cb, reset_num_timesteps=False, tb_log_name="ppo", use_masking=True
            )
        finally:
            cb.close()
            self.torch.set_num_threads(max(1, a.threads))  # the update's threads end with it
            dt = time.time() - t
            self.state["phases"]["ppo_s"] = round(self.state["phases"].get("ppo_s", 0.0) + dt, 1)
            self.state["phases"]["ppo_steps"] = self.state["phases"].get("ppo_steps", 0) + int(
                self.model.num_timesteps - steps0
            )

    # ---- main ---------------------------------------------------------------------------------------
    def run(self) -> dict:
        a = self.args
        self.out.mkdir(parents=True, exist_ok=True)
        self.venv = self.build_env()
        resumed = a.resume and (self.ckpt / "state.json").exists()
        if a.resume and not resumed:
            self.log(f"no checkpoint in {self.ckpt}; starting a new run")
        if resumed:
            self.restore()
        else:
            self.model = self.new_model()
            if a.init:
                self.load_init(a.init)
            atomic_write_text(self.out / "args.json", json.dumps(vars(a), indent=1))
        # not saved with the model: a run resumed on another machine picks its own
        self.model.policy.train_dtype = self.torch.bfloat16 if self.train_precision == "bf16" else None
        atomic_write_text(self.out / "config.json", json.dumps(self.model_config(), indent=1))
        from stable_baselines3.common.logger import configure

        tb = self.out / "tb"
        k = len(list(tb.glob("run_*"))) if tb.exists() else 0
        self.model.set_logger(configure(str(tb / f"run_{k}"), ["tensorboard"]))
        self.bc_data = None
        try:
            if self.state["phase"] == "start":
                if a.bc_teacher:
                    self.run_bc()
                    if self.eval_names:
                        self.evaluate("after-bc")
                elif a.init and self.eval_names:
                    self.evaluate("init")
                self.state["phase"] = "ppo"
                self.checkpoint()
            elif a.bc_teacher and a.bc_aux_coef > 0:
                self.reload_bc_data()
            self.run_ppo()
        except KeyboardInterrupt:
            self.log("interrupted: writing a checkpoint (continue with --resume)")
            self.checkpoint()
            raise
        return self.finish()

    def reload_bc_data(self) -> None:
        """The teacher data again after a resume (for ``--bc-aux-coef``), from the cache."""
        info = self.state.get("bc") or {}
        cache = info.get("cache")
        if not cache or not Path(cache).exists():
            return
        parts = [np.load(f) for f in sorted(Path(cache).glob("chunk_*.npz"))]
        self.bc_data = {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "action")}

    def load_init(self, path: str) -> None:
        from sb3_contrib import MaskablePPO

        from agents.trained import check_compatible, read_model_config, resolve_model_path

        p = resolve_model_path(path)
        cfg = read_model_config(p)
        try:
            if cfg is not None:
                check_compatible(cfg, self.engine, str(p))
        except ValueError as err:
            raise SystemExit(f"kortmiljo train: --init: {err}") from err
        src = MaskablePPO.load(str(p), device="cpu").policy.state_dict()
        dst = self.model.policy.state_dict()
        fits = {k: v for k, v in src.items() if k in dst and dst[k].shape == v.shape}
        from train.bc import _is_value_param

        missing = sorted(k for k in dst if k not in fits and not _is_value_param(k))
        if missing:
            raise SystemExit(f"kortmiljo train: --init {path} does not fit --net {self.args.net}: {', '.join(missing)}")
        fresh = sorted(k for k in dst if k not in fits)
        self.model.policy.load_state_dict({**dst, **fits})
        if fresh:  # e.g. a plain model as the actor of a privileged critic
            self.log(f"--init: value network starts fresh ({len(fresh)} tensors of another shape)")
        self.log(f"initialised from {p}")

    def finish(self) -> dict:
        import shutil

        a = self.args
        atomic_save_model(self.model, self.out / "last_model.zip")
        if self.eval_names and (
            not self.state["evals"]
            or self.state["evals"][-1]["timesteps"] != self.model.num_timesteps
            or self.state["evals"][-1]["label"] == "after-bc"
        ):
            if self.model.num_timesteps > 0 or not self.state["evals"]:
                self.evaluate("final")
        self.state["phase"] = "done"
        self.checkpoint()
        best = self.out / "best_model.zip"
        src = self.out / "last_model.zip" if a.keep_last or not best.exists() else best
        tmp = self.out / ".model.zip.tmp"
        shutil.copyfile(src, tmp)
        os.replace(tmp, self.out / "model.zip")
        ph = self.state["phases"]
        best_ = self.state["best"]
        model_is = "last"
        if src.name != "last_model.zip":
            model_is = f"best vs {self.select_by} at {best_['timesteps']} timesteps ({best_['label']})"
        report = {
            "game": self.game,
            "env_config": self.config,
            "kortmiljo_version": self.version,
            "command": "kortmiljo train " + " ".join(sys.argv[1:])
            if sys.argv and "train" in " ".join(sys.argv)
            else None,
            "args": vars(a),
            "model": str(self.out / "model.zip"),
            "model_is": model_is,
            "timesteps": int(self.model.num_timesteps),
            "updates": self.state["updates"],
            "wall_clock_s": round(self.elapsed(), 1),
            "phases": ph,
            "vec_env": getattr(self, "vec_kind", None),
            "torch_threads": {"rollout": self.args.threads, "update": self.update_threads},
            "train_precision": self.train_precision,
            "n_envs": a.n_envs,
            "ppo_env_steps_per_s": round(ph.get("ppo_steps", 0) / ph["ppo_s"], 1) if ph.get("ppo_s") else None,
            "behaviour_cloning": self.state["bc"],
            "best": self.state["best"],
            "evaluations": self.state["evals"],
            "snapshots_in_pool": self.state["snapshots"],
            "opponents": self.opponent_names,
            "self_play_prob": a.self_play_prob,
            "note": "in-loop evaluations are small and the best is selected on them (optimistic); "
            "publish figures from `kortmiljo eval` on >= 4000 duplicate games",
        }
        atomic_write_text(self.out / "report.json", json.dumps(report, indent=1, default=_json_default))
        try:
            from train.report import plot_learning_curve

            plot_learning_curve(self.out)
        except Exception as err:  # a missing plot must not lose a finished run
            self.log(f"(no learning-curve plot: {err})")
        self.log(
            f"done: {report['timesteps']} timesteps in {report['wall_clock_s']:.0f} s; "
            f"model {report['model']} ({report['model_is']})"
        )
        self.venv.close()
        return report


def VecRewardScale(venv, scale: float):
    """``venv`` with its rewards multiplied by ``scale`` (infos, and so the game returns, untouched)."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class _Scale(VecEnvWrapper):
        def reset(self):
            return self.venv.reset()

        def step_wait(self):
            obs, rewards, dones, infos = self.venv.step_wait()
            return obs, rewards * scale, dones, infos

    return _Scale(venv)


class _ScaledPotential:
    """Picklable ``scale × potential`` (for worker processes)."""

    def __init__(self, base, scale: float):
        self.base, self.scale = base, scale

    def __call__(self, engine, seat, obs):
        return self.scale * self.base(engine, seat, obs)


def _json_default(o: Any) -> Any:
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--backend", choices=("sb3", "rllib"), default="sb3")
    backend, rest = pre.parse_known_args(argv)
    if backend.backend == "rllib":  # its own options (--num-env-runners, --address, …)
        from .rllib_backend import main as rllib_main

        return rllib_main(rest)
    parser = build_parser()
    args = parser.parse_args(argv)
    explicit = {"timesteps": args.timesteps, "minutes": args.minutes}
    if args.out is None:
        if args.resume:
            parser.error("--resume needs --out DIR (the run to continue)")
        args.out = f"runs/{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    if args.resume and (Path(args.out) / "args.json").exists():
        saved = json.loads((Path(args.out) / "args.json").read_text())
        for k, v in saved.items():
            if k not in (
                "resume",
                "timesteps",
                "minutes",
                "no_progress",
                "quiet",
                "threads",
                "update_threads",
                "train_precision",
            ):
                setattr(args, k, v)
        for k, v in explicit.items():
            setattr(args, k, v if v is not None else saved.get(k))
    if args.n_envs < 1:
        parser.error("--n-envs must be at least 1")
    if args.threads < 1 or args.update_threads < 0:
        parser.error("--threads must be at least 1 and --update-threads at least 0 (0: automatic)")
    try:
        config = parse_config(args.config)
        trainer = Trainer(args, config, explicit)
    except ValueError as err:
        print(f"kortmiljo train: {err}", file=sys.stderr)
        return 2
    trainer.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
