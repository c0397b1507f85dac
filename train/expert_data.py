"""Teacher games for search distillation (expert iteration's data), written in chunks as they finish.

Each game seats the teacher (``search_v0``, or any agent) in every seat with probability
``teacher_share`` (at least one seat) and the game's heuristic in the others, so the student
sees the states of search against search and of search against the heuristic. At every
teacher decision a chunk records:

* ``obs``: the training view's vector (observation + unseen), ``mask``: the legal actions;
* ``action``: the teacher's move; ``q``: the search's mean score of each action it scored
  (NaN for the others, and for all of them where it did not search);
* ``ret``: the seat's return from that decision to the end of the episode (the value target).

Chunks are plain ``.npz`` arrays (no pickles) written atomically, so a collection can be stopped
at any time, resumed (existing chunks are skipped) or run in several processes with disjoint
chunk ranges. ``python -m kortmiljo.train.expert_data GAME --minutes M --out DIR [--prior STUDENT.npz]``.

Chunk ``j``'s games are seeded by ``j`` alone, so a folder's data are fixed by the chunk numbers in
it. ``--minutes`` stops on time, so how much it writes depends on the machine's speed; ``--end J``
writes every chunk ``start, start + step, ...`` below ``J`` however long that takes, the same data on
any machine (a recipe that names its ends is reproducible to the game).

``--prior`` makes the teacher search guided by a student (expert iteration's second stage:
:class:`kortmiljo.agents.search.SearchPolicy` searches only the student's ``--prior-top`` most probable
actions and the heuristic's move).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from kortmiljo.agents.registry import make_agent

from kortmiljo.core.files import atomic_write
from kortmiljo.core.game import Game
from kortmiljo.core.registry import load_game
from kortmiljo.env.training import flat_observation

CHUNK_GAMES = 10
ARRAYS = ("obs", "mask", "action", "q", "ret", "seat", "game")
Folders = str | Path | Sequence[str | Path]  # one folder of chunks, or several (one fit over several steps' data)


def play_chunk(game: Game, teacher, heuristic, games: int, seed: int, teacher_share: float) -> dict[str, np.ndarray]:
    """``games`` games; arrays of every teacher decision (see the module docstring)."""
    rng = np.random.default_rng(seed)
    teacher.seed(int(rng.integers(2**63)))
    heuristic.seed(int(rng.integers(2**63)))
    e = game.new_state()
    n, A = game.num_players, game.num_actions
    X, M, ACT, Q, R, S, ID = [], [], [], [], [], [], []
    for gi in range(games):
        e.new_episode(rng)
        searchers = rng.random(n) < teacher_share
        if not searchers.any():
            searchers[rng.integers(n)] = True
        total = np.zeros(n)
        before: list[float] = []  # the seat's reward before each of its recorded decisions
        seats: list[int] = []
        while not (e.terminal or e.truncated):
            p = e.current_player
            o = e.observation(p)
            if searchers[p]:
                a = int(teacher.act(o, e))
                q = np.full(A, np.nan, dtype=np.float32)
                if getattr(teacher, "last_samples", None) is not None:
                    for k, v in teacher.last_scores.items():
                        q[k] = v
                X.append(flat_observation(o))
                M.append(o["action_mask"].astype(bool))
                ACT.append(a)
                Q.append(q)
                S.append(p)
                ID.append(gi)
                before.append(total[p])
                seats.append(p)
            else:
                a = int(heuristic.act(o))
            e.step(a)
            total += np.asarray(e.rewards, dtype=np.float64)
        R.extend(float(total[p] - b) for p, b in zip(seats, before, strict=True))
    return chunk_arrays(X, M, ACT, Q, R, S, ID, A)


def chunk_arrays(X: list, M: list, ACT: list, Q: list, R: list, S: list, ID: list, A: int) -> dict[str, np.ndarray]:
    """A chunk's arrays (:data:`ARRAYS`) from the per-decision lists a collector gathers."""
    return {
        "obs": np.asarray(X, dtype=np.float32).reshape(len(X), -1),
        "mask": np.asarray(M, dtype=bool).reshape(len(M), A),
        "action": np.asarray(ACT, dtype=np.int16),
        "q": np.asarray(Q, dtype=np.float32).reshape(len(Q), A),
        "ret": np.asarray(R, dtype=np.float32),
        "seat": np.asarray(S, dtype=np.int8),
        "game": np.asarray(ID, dtype=np.int32),
    }


def write_chunk(path: Path, arrays: dict[str, np.ndarray], meta: dict) -> None:
    buf = io.BytesIO()
    np.savez_compressed(buf, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
    atomic_write(path, buf.getvalue())


def load_chunks(folders: Folders, obs_dtype=np.float32, columns=None) -> tuple[dict[str, np.ndarray], dict]:
    """Every chunk of a folder, or of a list of folders, joined (game ids made unique), and totals
    of their metadata.

    The arrays are allocated once and filled chunk by chunk, so millions of decisions, from several
    steps' data, need no second copy. ``columns(part) -> (n, k) array`` appends ``k`` inputs
    computed from each chunk's own float32 arrays (the advisor's move,
    :func:`kortmiljo.train.distill.with_advice`) before ``obs`` is cast to ``obs_dtype``: float16 halves the
    largest array, and keeps the games' fractional inputs (counts over 13 and the like) to within
    2e-4."""
    chunks = _joined(folders)
    total = sum(n for _, n, _ in chunks)
    data: dict[str, np.ndarray] = {}
    end, games = 0, 0
    for f, n, meta in chunks:
        with np.load(f, allow_pickle=False) as z:
            part = {k: z[k] for k in ARRAYS}
        part["game"] = part["game"] + games
        if columns is not None:
            part["obs"] = np.concatenate([part["obs"], np.asarray(columns(part), dtype=np.float32)], axis=1)
        if not data:
            data = {k: np.empty((total, *v.shape[1:]), dtype=obs_dtype if k == "obs" else v.dtype)
                    for k, v in part.items()}  # fmt: skip
        for k, v in part.items():
            data[k][end : end + n] = v
        end += n
        games += int(meta["games"])
    return data, _totals(chunks)


def chunk_totals(folders: Folders) -> dict:
    """:func:`load_chunks`'s totals without loading the arrays (chunks, games, decisions, seconds)."""
    return _totals(_joined(folders))


def _joined(folders: Folders) -> list[tuple[Path, int, dict]]:
    return [c for f in ([folders] if isinstance(folders, (str, Path)) else folders) for c in _chunks(f)]


def _chunks(folder: str | Path) -> list[tuple[Path, int, dict]]:
    """(path, decisions, meta) of each chunk, reading only the small members (an npz member is read
    when asked for)."""
    files = sorted(Path(folder).glob("chunk_*.npz"))
    if not files:
        raise ValueError(f"no chunk_*.npz teacher data in {folder}")
    out = []
    for f in files:
        with np.load(f, allow_pickle=False) as z:
            out.append((f, len(z["action"]), json.loads(bytes(z["meta"]).decode())))
    return out


def _totals(chunks: list[tuple[Path, int, dict]]) -> dict:
    return {
        "chunks": len(chunks),
        "games": sum(int(m["games"]) for _, _, m in chunks),
        "decisions": sum(n for _, n, _ in chunks),
        "seconds": sum(float(m["seconds"]) for _, _, m in chunks),
    }


def collect(game_name: str, out: str | Path, minutes: float, teacher: str = "search", teacher_share: float = 0.75,
            start: int = 0, step: int = 1, max_chunks: int = 100_000, config: dict | None = None,
            prior: str | None = None, prior_top: int = 2) -> int:  # fmt: skip
    """Write chunks ``start, start + step, ...`` into ``out`` until ``minutes`` run out; returns chunks written."""
    game = load_game(game_name, **(config or {}))
    out = Path(out)
    meta = {"fingerprint": game.fingerprint(), "teacher": teacher, "teacher_share": teacher_share}
    guide: dict = {}
    if prior:
        guide = {"prior": make_agent(prior, game, seed=0), "prior_top": prior_top}
        meta.update(prior=prior, prior_top=prior_top)

    def play(j: int) -> dict[str, np.ndarray]:
        teacher_j = make_agent(teacher, game, seed=j, **guide)
        return play_chunk(game, teacher_j, make_agent("heuristic", game, seed=j + 1), CHUNK_GAMES, 1_000_003 * 17 + j,
                          teacher_share)  # fmt: skip

    return write_chunks(out, meta, minutes, range(start, max_chunks, step), play, {"teacher": teacher, "prior": prior})


def write_chunks(out: Path, meta: dict, minutes: float, numbers: range, play, info: dict) -> int:
    """``meta.json``, then chunk ``j`` = ``play(j)`` for each ``j`` of ``numbers`` not on disk yet, until
    ``minutes`` run out (so a collection resumes, and processes with disjoint numbers share a folder);
    returns the chunks written. A folder holding another collection's data (a different ``meta``) is
    refused, so that one folder never mixes teachers, policies or configurations."""
    meta = json.loads(json.dumps(meta))  # as it reads back
    if (out / "meta.json").exists():
        old = json.loads((out / "meta.json").read_text())
        if old != meta:
            keys = ", ".join(sorted(k for k in old.keys() | meta.keys() if old.get(k) != meta.get(k)))
            raise ValueError(f"{out} holds another collection's data (its meta.json differs in: {keys}); "
                             "collect into a new folder, or into this one with the same settings")  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "meta.json", json.dumps(meta, indent=1))
    t_end = time.time() + minutes * 60
    written = 0
    for j in numbers:
        if time.time() >= t_end:
            break
        path = out / f"chunk_{j:05d}.npz"
        if path.exists():
            continue
        t = time.perf_counter()
        arrays = play(j)
        write_chunk(path, arrays, {"seconds": time.perf_counter() - t, "games": CHUNK_GAMES, **info})
        written += 1
    return written


def add_stop_arguments(p: argparse.ArgumentParser) -> None:
    """``--start``, ``--step``, ``--minutes`` and ``--end``: which chunks a process writes, and when it stops."""
    p.add_argument("--start", type=int, default=0, help="the first chunk number")
    p.add_argument("--step", type=int, default=1, help="the gap between chunk numbers (one process each of START..)")
    p.add_argument("--minutes", type=float, help="stop after this many minutes (default 10, or none with --end)")
    p.add_argument("--end", type=int, help="write every chunk below END, however long it takes: the same data anywhere")


def stop_of(p: argparse.ArgumentParser, a: argparse.Namespace, default_end: int) -> tuple[float, int]:
    """(minutes, end) from :func:`add_stop_arguments`' flags; a range with no chunk or a time box of
    no time is refused, before anything is written."""
    if a.start < 0 or a.step < 1:
        p.error(f"--start must be >= 0 and --step >= 1, got --start {a.start} --step {a.step}")
    if a.end is not None and a.end <= a.start:
        p.error(f"--end must be above --start ({a.start}), got {a.end}: no chunk would be written")
    if a.minutes is not None and not a.minutes > 0:
        p.error(f"--minutes must be above 0, got {a.minutes}")
    minutes = a.minutes if a.minutes is not None else (math.inf if a.end is not None else 10.0)
    return minutes, a.end if a.end is not None else default_end


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m kortmiljo.train.expert_data", description=__doc__.split("\n")[0])
    p.add_argument("game")
    p.add_argument("--out", required=True)
    p.add_argument("--teacher", default="search")
    p.add_argument("--teacher-share", type=float, default=0.75)
    add_stop_arguments(p)
    p.add_argument("--prior", default=None, help="a student (agent spec, e.g. STUDENT.npz) that guides the search")
    p.add_argument("--prior-top", type=int, default=2, help="how many of the prior's actions are searched")
    a = p.parse_args(argv)
    minutes, end = stop_of(p, a, default_end=100_000)
    n = collect(a.game, a.out, minutes, a.teacher, a.teacher_share, a.start, a.step, max_chunks=end, prior=a.prior,
                prior_top=a.prior_top)  # fmt: skip
    print(f"{a.game}: wrote {n} chunks of {CHUNK_GAMES} games to {a.out}")


if __name__ == "__main__":
    main()
