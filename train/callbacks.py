"""The SB3 callback that does the bookkeeping of a training run.

Per step: progress bar, the wall-clock budget, the game return of finished episodes.
Per PPO update (at the start of the next rollout, i.e. after ``train()``): a row of
``progress.csv`` and TensorBoard scalars, an optional behaviour-cloning auxiliary
step, a learner snapshot into the opponent pool every ``--snapshot-every`` updates,
an evaluation every ``--eval-every`` timesteps, and the resumable checkpoint every
``--checkpoint-every`` updates.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

import numpy as np
import torch
from kortmiljo.train.checkpoints import append_csv
from stable_baselines3.common.callbacks import BaseCallback

PPO_STATS = (
    "approx_kl",
    "clip_fraction",
    "entropy_loss",
    "value_loss",
    "policy_gradient_loss",
    "explained_variance",
    "loss",
)


class TrainingCallback(BaseCallback):
    def __init__(self, trainer: Any, target_timesteps: int):
        super().__init__(verbose=0)
        self.tr = trainer
        self.target = target_timesteps
        self.returns: deque[float] = deque(maxlen=500)
        self.lengths: deque[int] = deque(maxlen=500)
        self.first = True
        self.bar = None
        self.by_time = trainer.config.timesteps is None and trainer.config.minutes is not None
        evals = trainer.state["evals"]
        self.last_eval = evals[-1]["timesteps"] if evals else 0
        self.t_mark = time.time()
        self.steps_mark = 0
        self.t_rollout = time.time()
        self.overhead = 0.0  # evaluation and checkpoint seconds since the last mark
        self.bc_rng = np.random.default_rng(trainer.config.seed + 99)

    # ---- progress ---------------------------------------------------------------------------
    def _on_training_start(self) -> None:
        self.steps_mark = self.model.num_timesteps
        a = self.tr.config
        if a.no_progress or a.quiet:
            return
        from tqdm import tqdm

        if self.by_time:
            self.bar = tqdm(
                total=int(a.minutes * 60), initial=int(self.tr.elapsed()), unit="s", desc="training", dynamic_ncols=True
            )
        else:
            self.bar = tqdm(
                total=self.target,
                initial=self.model.num_timesteps,
                unit="step",
                desc="training",
                dynamic_ncols=True,
                unit_scale=True,
            )

    def _postfix(self) -> None:
        if self.bar is None:
            return
        d = {"steps": self.model.num_timesteps} if self.by_time else {}
        if self.returns:
            d["return"] = f"{np.mean(self.returns):+.3f}"
        best = self.tr.state.get("best")
        if best:
            d["best"] = f"{best['score']:+.3f}"
        self.bar.set_postfix(d, refresh=False)

    def _on_step(self) -> bool:
        # an episode that ended says so in dones: the single-seat view has game_return in every info (#50)
        for info, done in zip(self.locals.get("infos", ()), self.locals.get("dones", ()), strict=False):
            if done and "game_return" in info:
                self.returns.append(info["game_return"])
                self.lengths.append(info.get("decisions", 0))
        if self.bar is not None:
            n = int(self.tr.elapsed()) if self.by_time else self.model.num_timesteps
            if n != self.bar.n and (self.n_calls % 64 == 0 or self.by_time):
                self.bar.n = min(n, self.bar.total)
                self._postfix()
                self.bar.refresh()
        return self.tr.time_left() > 0

    # ---- per update ---------------------------------------------------------------------------
    def _on_rollout_end(self) -> None:
        torch.set_num_threads(self.tr.update_threads)  # the PPO update comes next
        vals = self.model.logger.name_to_value
        now = time.time()
        steps = self.model.num_timesteps
        # overall: collection + the PPO update, without evaluation and checkpoints
        sps = (steps - self.steps_mark) / max(now - self.t_mark - self.overhead, 1e-9)
        collect_sps = (steps - self.steps_mark) / max(now - self.t_rollout, 1e-9)
        self.t_mark, self.steps_mark, self.overhead = now, steps, 0.0
        row = {
            "timesteps": steps,
            "updates": self.tr.state["updates"],
            "wall_s": round(self.tr.elapsed(), 1),
            "steps_per_s": round(sps, 1),
            "collect_steps_per_s": round(collect_sps, 1),
            "game_return_mean": round(float(np.mean(self.returns)), 4) if self.returns else "",
            "decisions_per_episode": round(float(np.mean(self.lengths)), 1) if self.lengths else "",
            "episodes": len(self.returns),
        }
        for k in PPO_STATS:
            v = vals.get(f"train/{k}")
            row[k] = round(float(v), 5) if v is not None else ""
        append_csv(self.tr.run_dir.progress_csv, row)
        if self.returns:
            self.logger.record("rollout/game_return_mean", float(np.mean(self.returns)))
        self.logger.record("time/steps_per_s", sps)
        self.logger.record("time/collect_steps_per_s", collect_sps)

    def _on_rollout_start(self) -> None:
        torch.set_num_threads(self.tr.config.threads)  # back to collecting
        if self.first:  # no update has happened yet in this learn() call
            self.first = False
            return
        tr, a = self.tr, self.tr.config
        t0 = time.time()
        tr.state["updates"] += 1
        u = tr.state["updates"]
        if a.bc_aux_coef > 0 and tr.bc_data is not None:
            self._bc_aux()
        if a.snapshot_every and u % a.snapshot_every == 0 and a.self_play_prob > 0:
            tr.add_snapshot(f"self_{self.model.num_timesteps:010d}")
        evaluated = False
        if a.eval_every and tr.eval_names and self.model.num_timesteps - self.last_eval >= a.eval_every:
            self.last_eval = self.model.num_timesteps
            tr.evaluate("ppo")
            evaluated = True
            self._postfix()
        if evaluated or (a.checkpoint_every and u % a.checkpoint_every == 0):
            tr.checkpoint()
        self.overhead += time.time() - t0  # evaluation and checkpoints do not count as throughput
        self.t_rollout = time.time()

    def _bc_aux(self) -> None:
        """A few teacher-imitation minibatches with PPO's optimizer (keeps the policy near the teacher)."""
        from kortmiljo.agents.trained import actor_logits

        data, pol = self.tr.bc_data, self.model.policy
        n = len(data["action"])
        pol.set_training_mode(True)
        for _ in range(self.tr.config.bc_aux_batches):
            ix = self.bc_rng.integers(n, size=min(512, n))
            x = torch.as_tensor(data["obs"][ix])
            m = torch.as_tensor(data["mask"][ix])
            y = torch.as_tensor(data["action"][ix].astype(np.int64))
            logits = actor_logits(pol, x).masked_fill(~m, -1e9)
            loss = self.tr.config.bc_aux_coef * torch.nn.functional.cross_entropy(logits, y)
            pol.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(pol.parameters(), self.tr.config.max_grad_norm)
            pol.optimizer.step()
        pol.set_training_mode(False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
