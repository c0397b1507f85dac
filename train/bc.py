"""Behaviour cloning: pretrain the PPO policy (and its value head) on a teacher's decisions.

``collect`` plays games with the teacher in a random seat against opponents drawn per
seat from a list, recording at each teacher decision the training view's observation
vector, the legal mask, the teacher's action and the return that followed (discounted
like PPO's, minus the shaping potential when shaping is on, so it is a target for the
shaped value function). Data are cached in chunks of games under ``cache_dir`` (keyed by
game, configuration, teacher, teacher source code, opponents, seed and observation
size), so a rerun or a larger ``--bc-games`` only plays the missing chunks.

With a privileged critic (``--privileged-critic``) each record also carries the hidden
state the critic sees (:func:`kortmiljo.env.training.privileged_features`).

``fit`` minimises cross-entropy of the masked policy on the teacher's actions plus
``vf_coef`` × the value error, on whole games held out (5 %) for validation: decisions of
one game share its outcome, so a random split would reward a value head that memorises
outcomes. Each head keeps its best epoch on the held-out games (the value head overfits
much earlier than the policy), and the report gives the held-out agreement with the
teacher.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Policy
from kortmiljo.core.engine import Engine
from kortmiljo.env.training import privileged_features

CHUNK_GAMES = 25


def _source_hash(obj: Any) -> str:
    try:
        src = Path(inspect.getsourcefile(type(obj)) or "").read_bytes()
    except (OSError, TypeError):
        src = type(obj).__qualname__.encode()
    return hashlib.sha1(src).hexdigest()[:12]


def cache_key(
    engine: Engine,
    teacher: Policy,
    teacher_name: str,
    opponent_names: list[str],
    seed: int,
    include_unseen: bool,
    gamma: float,
    shaping: str,
    privileged: bool = False,
) -> str:
    blob = json.dumps(
        {
            "game": engine.NAME,
            "config": engine.config,
            "teacher": teacher_name,
            "teacher_src": _source_hash(teacher),
            "opponents": opponent_names,
            "seed": seed,
            "unseen": include_unseen,
            "obs": engine.layout.size,
            "gamma": gamma,
            "shaping": shaping,
            "chunk": CHUNK_GAMES,
            "format": 2,
            "privileged": privileged,
        },
        sort_keys=True,
        default=str,
    )
    return f"{engine.NAME}-{teacher_name}-{hashlib.sha1(blob.encode()).hexdigest()[:16]}"


def _obs(e: Engine, seat: int) -> dict[str, np.ndarray]:
    return {"observation": e.observe(seat), "action_mask": e.legal_mask(), "unseen": e.unseen(seat)}


def play_chunk(
    engine: Engine,
    teacher: Policy,
    opponents: list[Policy],
    games: int,
    seed: int,
    include_unseen: bool,
    gamma: float,
    potential: Callable | None,
    privileged: bool = False,
) -> dict[str, np.ndarray]:
    """``games`` games with the teacher in a random seat; arrays of its decisions."""
    rng = np.random.default_rng(seed)
    teacher.seed(int(rng.integers(2**63)))
    for o in opponents:
        o.seed(int(rng.integers(2**63)))
    X, M, A, G, R, ID = [], [], [], [], [], []
    e = type(engine)(**engine.config)
    for gi in range(games):
        seat = int(rng.integers(e.num_players))
        opp = [opponents[int(rng.integers(len(opponents)))] for _ in range(e.num_players)]
        e.new_episode(rng)
        rewards: list[float] = []  # per teacher decision: its reward up to the next decision
        phis: list[float] = []
        before = 0.0  # rewards before the first decision go to the first (as in SingleSeatEnv)
        while not (e.terminal or e.truncated):
            p = e.current_player
            if p == seat:
                o = _obs(e, p)
                x = (
                    np.concatenate([o["observation"], o["unseen"].astype(np.float32)])
                    if include_unseen
                    else o["observation"]
                )
                a = int(teacher.act(o, e if teacher.needs_engine else None))
                phis.append(float(potential(e, seat, x)) if potential else 0.0)
                if privileged:  # hidden state for an asymmetric critic (never the actor's input)
                    x = np.concatenate([x, privileged_features(e, seat)])
                X.append(x)
                M.append(o["action_mask"].astype(bool))
                A.append(a)
                rewards.append(0.0)
                e.step(a)
            else:
                pol = opp[p]
                e.step(int(pol.act(_obs(e, p), e if pol.needs_engine else None)))
            if rewards:
                rewards[-1] += e.rewards[seat]
            else:
                before += e.rewards[seat]
        if rewards:
            rewards[0] += before
        g = 0.0
        rets = [0.0] * len(rewards)
        for k in range(len(rewards) - 1, -1, -1):
            g = rewards[k] + gamma * g
            rets[k] = g - phis[k]
        G.extend(rets)
        ID.extend([gi] * len(rets))
        R.append(sum(rewards))
    return {
        "obs": np.asarray(X, dtype=np.float32),
        "mask": np.asarray(M, dtype=bool),
        "action": np.asarray(A, dtype=np.int16),
        "value": np.asarray(G, dtype=np.float32),
        "game_return": np.asarray(R, dtype=np.float32),
        "game": np.asarray(ID, dtype=np.int32),
    }


def _write_npz(path: Path, arrays: dict, meta: dict) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, meta=np.array(json.dumps(meta)), **arrays)
    os.replace(tmp, path)


def collect(
    engine: Engine,
    teacher_factory: Callable[[int], Policy],
    opponent_factory: Callable[[int], list[Policy]],
    key: str,
    games: int,
    seed: int,
    cache_dir: Path,
    include_unseen: bool,
    gamma: float,
    potential: Callable | None,
    budget_s: float | None = None,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    privileged: bool = False,
) -> tuple[dict[str, np.ndarray], dict]:
    """Teacher data for ``games`` games (cached chunks reused); stops early when ``budget_s`` runs out."""
    d = Path(cache_dir) / key
    d.mkdir(parents=True, exist_ok=True)
    n_chunks = -(-games // CHUNK_GAMES)
    todo = [j for j in range(n_chunks) if not (d / f"chunk_{j:05d}.npz").exists()]
    t0 = time.perf_counter()
    played_s = 0.0
    if todo:
        args = [(j, seed * 1_000_003 + j) for j in todo]
        if workers > 1:
            import multiprocessing as mp

            ctx = mp.get_context("fork")
            with ctx.Pool(
                workers,
                initializer=_worker_init,
                initargs=(
                    engine,
                    teacher_factory,
                    opponent_factory,
                    include_unseen,
                    gamma,
                    potential,
                    str(d),
                    privileged,
                ),
            ) as pool:
                for k, _ in enumerate(pool.imap_unordered(_worker_chunk, args)):
                    if progress:
                        progress(k + 1, len(todo))
                    if budget_s is not None and time.perf_counter() - t0 > budget_s:
                        pool.terminate()
                        break
        else:
            _worker_init(
                engine, teacher_factory, opponent_factory, include_unseen, gamma, potential, str(d), privileged
            )
            for k, a in enumerate(args):
                _worker_chunk(a)
                if progress:
                    progress(k + 1, len(todo))
                if budget_s is not None and time.perf_counter() - t0 > budget_s:
                    break
        played_s = time.perf_counter() - t0
    parts, chunk_secs = [], 0.0
    for j in range(n_chunks):
        f = d / f"chunk_{j:05d}.npz"
        if f.exists():
            with np.load(f) as z:
                part = {k: z[k] for k in ("obs", "mask", "action", "value", "game_return", "game")}
                part["game"] = part["game"] + j * CHUNK_GAMES  # unique game ids across chunks
                parts.append(part)
                chunk_secs += json.loads(str(z["meta"]))["seconds"]
    if not parts:
        raise RuntimeError("no behaviour-cloning data collected (budget too small?)")
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    info = {
        "games": int(len(data["game_return"])),
        "decisions": int(len(data["action"])),
        "collect_seconds_this_run": round(played_s, 1),
        "collect_seconds_total": round(chunk_secs, 1),
        "teacher_mean_return": float(data["game_return"].mean()),
        "cache": str(d),
    }
    return data, info


_W: dict[str, Any] = {}


def _worker_init(engine, teacher_factory, opponent_factory, include_unseen, gamma, potential, d, privileged=False):
    import torch

    torch.set_num_threads(1)
    _W.update(
        engine=engine,
        tf=teacher_factory,
        of=opponent_factory,
        unseen=include_unseen,
        gamma=gamma,
        pot=potential,
        d=Path(d),
        priv=privileged,
    )


def _worker_chunk(arg):
    j, s = arg
    t = time.perf_counter()
    arrays = play_chunk(
        _W["engine"], _W["tf"](s), _W["of"](s + 1), CHUNK_GAMES, s, _W["unseen"], _W["gamma"], _W["pot"], _W["priv"]
    )
    _write_npz(_W["d"] / f"chunk_{j:05d}.npz", arrays, {"seconds": time.perf_counter() - t, "games": CHUNK_GAMES})
    return j


def _is_value_param(name: str) -> bool:
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

    from agents.trained import actor_logits

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
                best_pi = {k: t.clone() for k, t in policy.state_dict().items() if not _is_value_param(k)}
            if vmse < best_vmse:
                best_vmse, best_vf_epoch = vmse, ep + 1
                best_vf = {k: t.clone() for k, t in policy.state_dict().items() if _is_value_param(k)}
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
