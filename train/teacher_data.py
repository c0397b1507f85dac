"""Teacher games for behaviour cloning, recorded once and cached.

:func:`collect` plays games with the teacher in a random seat against opponents drawn per
seat from a list, recording at each teacher decision the training view's observation
vector, the legal mask, the teacher's action and the return that followed (discounted
like PPO's, minus the shaping potential when shaping is on, so it is a target for the
shaped value function). Data are cached in chunks of games under ``cache_dir`` (keyed by
the game's fingerprint, teacher, teacher source code, opponents, seed and observation
options, :func:`cache_key`), so a rerun or a larger ``--bc-games`` only plays the missing chunks.

With a privileged critic (``--privileged-critic``) each record also carries the hidden
state the critic sees (:func:`kortmiljo.env.training.privileged_features`).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from kortmiljo.agents.base import Policy

from kortmiljo.core.game import Game
from kortmiljo.env.training import flat_observation, privileged_features

CHUNK_GAMES = 25
ARRAYS = ("obs", "mask", "action", "value", "game_return", "game")


def _source_hash(obj: Any) -> str:
    try:
        src = Path(inspect.getsourcefile(type(obj)) or "").read_bytes()
    except (OSError, TypeError):
        src = type(obj).__qualname__.encode()
    return hashlib.sha1(src).hexdigest()[:12]


def cache_key(game: Game, teacher: Policy, teacher_name: str, opponent_names: list[str], seed: int,
              include_unseen: bool, gamma: float, shaping: str, privileged: bool = False) -> str:  # fmt: skip
    """The cache folder's name: everything the recorded arrays depend on."""
    blob = json.dumps(
        {
            "fingerprint": game.fingerprint(),
            "teacher": teacher_name,
            "teacher_src": _source_hash(teacher),
            "opponents": opponent_names,
            "seed": seed,
            "unseen": include_unseen,
            "gamma": gamma,
            "shaping": shaping,
            "chunk": CHUNK_GAMES,
            "format": 3,
            "privileged": privileged,
        },
        sort_keys=True,
        default=str,
    )
    return f"{game.name}-{teacher_name}-{hashlib.sha1(blob.encode()).hexdigest()[:16]}"


def play_chunk(
    game: Game,
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
    e = game.new_state()
    for gi in range(games):
        seat = int(rng.integers(e.num_players))
        opp = [opponents[int(rng.integers(len(opponents)))] for _ in range(e.num_players)]
        e.new_episode(rng)
        rewards: list[float] = []  # per teacher decision: its reward up to the next decision
        phis: list[float] = []
        before = 0.0  # rewards before the first decision go to the first (as in SingleSeatEnv)
        while not (e.terminal or e.truncated):
            p = e.current_player
            o = e.observation(p)
            if p == seat:
                x = flat_observation(o, include_unseen)
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
                e.step(int(opp[p].act(o, e if opp[p].needs_engine else None)))
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


def collect(game: Game, teacher_factory: Callable[[int], Policy], opponent_factory: Callable[[int], list[Policy]],
            key: str, games: int, seed: int, cache_dir: Path, include_unseen: bool, gamma: float,
            potential: Callable | None, budget_s: float | None = None, workers: int = 1,
            progress: Callable[[int, int], None] | None = None,
            privileged: bool = False) -> tuple[dict[str, np.ndarray], dict]:  # fmt: skip
    """Teacher data for ``games`` games (cached chunks reused); stops early when ``budget_s`` runs out."""
    d = Path(cache_dir) / key
    d.mkdir(parents=True, exist_ok=True)
    n_chunks = -(-games // CHUNK_GAMES)
    todo = [j for j in range(n_chunks) if not (d / f"chunk_{j:05d}.npz").exists()]
    t0 = time.perf_counter()
    played_s = 0.0
    if todo:
        args = [(j, seed * 1_000_003 + j) for j in todo]
        init = (game, teacher_factory, opponent_factory, include_unseen, gamma, potential, str(d), privileged)
        if workers > 1:
            import multiprocessing as mp

            with mp.get_context("fork").Pool(workers, initializer=_worker_init, initargs=init) as pool:
                for k, _ in enumerate(pool.imap_unordered(_worker_chunk, args)):
                    if progress:
                        progress(k + 1, len(todo))
                    if budget_s is not None and time.perf_counter() - t0 > budget_s:
                        pool.terminate()
                        break
        else:
            _worker_init(*init)
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
                part = {k: z[k] for k in ARRAYS}
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
        "cache": str(d.resolve()),
    }
    return data, info


def load_cached(cache: str | Path) -> dict[str, np.ndarray] | None:
    """Observations, masks and actions of a cache folder (the auxiliary BC loss after a resume)."""
    files = sorted(Path(cache).glob("chunk_*.npz"))
    if not files:
        return None
    parts = [np.load(f) for f in files]
    return {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "action")}


_W: dict[str, Any] = {}


def _worker_init(game, teacher_factory, opponent_factory, include_unseen, gamma, potential, d, privileged=False):
    import torch

    torch.set_num_threads(1)
    _W.update(game=game, tf=teacher_factory, of=opponent_factory, unseen=include_unseen, gamma=gamma, pot=potential,
              d=Path(d), priv=privileged)  # fmt: skip


def _worker_chunk(arg):
    j, s = arg
    t = time.perf_counter()
    arrays = play_chunk(
        _W["game"], _W["tf"](s), _W["of"](s + 1), CHUNK_GAMES, s, _W["unseen"], _W["gamma"], _W["pot"], _W["priv"]
    )
    _write_npz(_W["d"] / f"chunk_{j:05d}.npz", arrays, {"seconds": time.perf_counter() - t, "games": CHUNK_GAMES})
    return j
