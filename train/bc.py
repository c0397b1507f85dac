"""Behaviour cloning: pretrain the PPO policy (and its value head) on a teacher's decisions.

:func:`run_bc_phase` is a run's first phase with ``--bc-teacher``: it records teacher games
(:mod:`kortmiljo.train.teacher_data`, cached) and fits the policy to them. :func:`fit` minimises
cross-entropy of the masked policy on the teacher's actions plus ``vf_coef`` × the value
error, on whole games held out (5 %) for validation: decisions of one game share its
outcome, so a random split would reward a value head that memorises outcomes. Each head
keeps its best epoch on the held-out games (the value head overfits much earlier than the
policy), and the report gives the held-out agreement with the teacher.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from kortmiljo.train import teacher_data


class ScaledPotential:
    """Picklable ``scale × potential`` (for worker processes)."""

    def __init__(self, base: Callable, scale: float):
        self.base, self.scale = base, scale

    def __call__(self, state, seat, obs):
        return self.scale * self.base(state, seat, obs)


def run_bc_phase(tr: Any) -> None:
    """Record the teacher's games (``tr``: the :class:`kortmiljo.train.trainer.Trainer`) and fit the policy to them."""
    c, game = tr.config, tr.game
    teacher, opp_names = c.bc_teacher, tr.bc_opponent_names
    base = game.features.potential
    pot = ScaledPotential(base, c.shaping_scale) if c.shaping == "auto" and base is not None else None
    key = teacher_data.cache_key(
        game, tr.make_agent(teacher, seed=0), teacher, opp_names, c.seed, tr.include_unseen, c.gamma,
        f"{c.shaping}:{c.shaping_scale}", privileged=bool(tr.privileged_size),
    )  # fmt: skip
    budget = c.bc_minutes * 60 if c.bc_minutes is not None else None
    if tr.time_left() < math.inf:
        budget = min(budget or math.inf, max(10.0, tr.time_left() * 0.5))
    tr.log(f"behaviour cloning: recording {c.bc_games} games of {teacher} vs {','.join(opp_names)} (cache {c.cache})")
    bar = None
    if not c.no_progress and not c.quiet:
        from tqdm import tqdm

        bar = tqdm(desc=f"teacher games ({teacher})", unit="chunk", dynamic_ncols=True)

    def progress(k: int, total: int) -> None:
        if bar is not None:
            bar.total, bar.n = total, k
            bar.refresh()

    t = time.time()
    data, info = teacher_data.collect(
        game,
        lambda s: tr.make_agent(teacher, seed=s),
        lambda s: [tr.make_agent(n, seed=s + i) for i, n in enumerate(opp_names)],
        key, c.bc_games, c.seed, c.cache, tr.include_unseen, c.gamma, pot,
        budget_s=budget, workers=c.bc_workers, progress=progress, privileged=bool(tr.privileged_size),
    )  # fmt: skip
    if bar is not None:
        bar.close()
    t_collect = time.time() - t
    tr.log(
        f"  {info['games']} games, {info['decisions']} decisions (teacher return "
        f"{info['teacher_mean_return']:+.3f}); {t_collect:.0f} s now, "
        f"{info['collect_seconds_total']:.0f} s of play in the cache"
    )
    t = time.time()
    fit_budget = max(10.0, tr.time_left() * 0.3) if tr.time_left() < math.inf else None
    if c.reward_scale != 1.0:  # the value head learns returns as PPO will see them
        data = {**data, "value": data["value"] * np.float32(c.reward_scale)}
    result = fit(tr.model.policy, data, epochs=c.bc_epochs, lr=c.bc_lr, vf_coef=1.0, seed=c.seed,
                 budget_s=fit_budget, log=tr.log)  # fmt: skip
    tr.bc_data = data if c.bc_aux_coef > 0 else None  # kept only for the auxiliary loss (memory)
    best = result["best_epoch"]
    tr.state["bc"] = {"teacher": teacher, "opponents": opp_names, **info, "fit": result,
                      "final_val_acc": result["epochs"][best - 1]["val_acc"] if best else None}  # fmt: skip
    tr.state["phases"]["bc_collect_s"] = round(t_collect, 1)
    tr.state["phases"]["bc_fit_s"] = round(time.time() - t, 1)


def is_value_param(name: str) -> bool:
    """Whether a policy parameter belongs to the value side (its input may be wider: a privileged critic)."""
    return name.startswith(("value_net.", "mlp_extractor.value_net.", "vf_features_extractor."))
    return name.startswith(("value_net.", "mlp_extractor.value_net.", "vf_features_extractor."))


def fit(
    policy: Any,
    data: dict[str, np.ndarray],
    epochs: int = 10,
    lr: float = 1e-3,
    batch_size: int = 512,
    vf_coef: float = 0.5,
    val_frac: float = 0.05,
    seed: int = 0,
    budget_s: float | None = None,
    log: Callable[[str], None] = print,
) -> dict:
    """Supervised pretraining of an SB3 masked actor-critic policy on teacher data."""
    import torch
    from kortmiljo.agents.trained import actor_logits

    rng = np.random.default_rng(seed)
    n = len(data["action"])
    # hold out whole games: decisions of one game share its outcome, so a random split
    # would reward a value head that memorises outcomes
    games = np.unique(data["game"]) if "game" in data else np.arange(n)
    held = rng.permutation(games)[: int(len(games) * val_frac)] if len(games) > 20 else games[:0]
    is_val = np.isin(data["game"], held) if "game" in data else np.isin(np.arange(n), held)
    val, tr = np.flatnonzero(is_val), np.flatnonzero(~is_val)
    n_val = len(val)
    X = torch.as_tensor(data["obs"])
    Mk = torch.as_tensor(data["mask"])
    A = torch.as_tensor(data["action"].astype(np.int64))
    V = torch.as_tensor(data["value"])
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    policy.set_training_mode(True)
    t0 = time.perf_counter()
    hist = []

    def evaluate(ix) -> tuple[float, float, float]:
        with torch.no_grad():
            logits = actor_logits(policy, X[ix]).masked_fill(~Mk[ix], -1e9)
            ce = torch.nn.functional.cross_entropy(logits, A[ix]).item()
            acc = (logits.argmax(1) == A[ix]).float().mean().item()
            vmse = ((policy.predict_values(X[ix]).flatten() - V[ix]) ** 2).mean().item()
        return acc, ce, vmse

    # early stopping per head: the policy by held-out cross-entropy, the value head by held-out
    # error (it starts memorising game outcomes long before the policy stops improving)
    best_ce, best_vmse, best_pi, best_vf, best_epoch, best_vf_epoch = math.inf, math.inf, None, None, 0, 0
    for ep in range(epochs):
        perm = tr[rng.permutation(len(tr))]
        tot, cnt = 0.0, 0
        policy.set_training_mode(True)
        for b in range(0, len(perm), batch_size):
            ix = torch.as_tensor(perm[b : b + batch_size])
            logits = actor_logits(policy, X[ix]).masked_fill(~Mk[ix], -1e9)
            ce = torch.nn.functional.cross_entropy(logits, A[ix])
            v = policy.predict_values(X[ix]).flatten()
            loss = ce + vf_coef * torch.nn.functional.mse_loss(v, V[ix])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            tot += float(ce.detach()) * len(ix)
            cnt += len(ix)
        policy.set_training_mode(False)
        if n_val:
            acc, vce, vmse = evaluate(torch.as_tensor(val))
            if vce < best_ce:
                best_ce, best_epoch = vce, ep + 1
                best_pi = {k: t.clone() for k, t in policy.state_dict().items() if not is_value_param(k)}
            if vmse < best_vmse:
                best_vmse, best_vf_epoch = vmse, ep + 1
                best_vf = {k: t.clone() for k, t in policy.state_dict().items() if is_value_param(k)}
        else:
            acc = vce = vmse = float("nan")
        hist.append(
            {"epoch": ep + 1, "train_ce": tot / max(cnt, 1), "val_acc": acc, "val_ce": vce, "val_value_mse": vmse}
        )
        log(
            f"  bc epoch {ep + 1}/{epochs}: cross-entropy {tot / max(cnt, 1):.4f}, held-out games: "
            f"agreement {acc:.3f}, value mse {vmse:.4f}"
        )
        if budget_s is not None and time.perf_counter() - t0 > budget_s:
            break
    if best_pi is not None and best_vf is not None:
        policy.load_state_dict({**best_pi, **best_vf})
    policy.set_training_mode(False)
    return {
        "epochs": hist,
        "best_epoch": best_epoch,
        "best_value_epoch": best_vf_epoch,
        "fit_seconds": round(time.perf_counter() - t0, 1),
        "samples": int(n),
        "held_out_samples": int(n_val),
    }
