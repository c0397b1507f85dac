"""Issue #51's two-hour target: `kortmiljo train GAME --recipe pi --hours 2`, from nothing but the
heuristic, then the agent paired with search on the same fresh deals, each in one seat against the
heuristic in every other (`benchmarks/paired_margin.py`). Target: the agent's margin is at least two
thirds of search's.

    python benchmarks/two_hours.py sproyte [--hours 2] [--seed 1] [--out runs/two_hours]
    python benchmarks/two_hours.py sproyte --run DIR   # pair an earlier run's agent, no training

Search's games are the expensive half (about 2.5 core-hours for 800 Sprøyte deals); the seeds whose
search runs are kept in `benchmarks/candidates/` (`SEARCH_RUNS`) cost only the agent's games. A run
whose gates adopted no student has the heuristic as its policy: its margin is 0.

Measured on the 2-core development machine, 2026-12-07 (docs/training.md, "Two hours from scratch";
the pairing with `--run`, the run itself by hand with the same command):

| game, run | agent vs heuristic | search (same deals) | ratio | met |
|---|---|---|---|---|
| Sprøyte, `--seed 1` (two steps) | +0.320 [+0.297, +0.343] | +0.324 [+0.299, +0.348] | 0.99 | yes |
| Sprøyte, `--seed 1`, step 0's student | +0.230 [+0.207, +0.253] | +0.324 [+0.299, +0.348] | 0.71 | yes |

(1,600 deals, seeds 90–93.)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

CANDIDATES = Path(__file__).resolve().parent / "candidates"
# the pairing of each game: search's kept runs (--reuse), their seeds, and the games per seed
SEARCH_RUNS = {
    "sproyte": (CANDIDATES / "search_margin_sproyte_s90-93.json", [90, 91, 92, 93], 1200),
    "femkortskille": (None, [94, 95], 4000),
}


def train(game: str, hours: float, seed: int, run: Path) -> None:
    subprocess.run([sys.executable, "-m", "kortmiljo", "train", game, "--recipe", "pi", "--hours", str(hours),
                    "--seed", str(seed), "--out", str(run), "--no-progress"], check=True)  # fmt: skip


def pair(game: str, run: Path, out: Path, workers: int) -> dict:
    """The run's agent against search on the game's deals; the figures of the target."""
    model = run / "model.npz"
    if not model.exists():
        return {"game": game, "run": str(run), "model": None, "ratio": 0.0, "met": False}
    reuse, seeds, games = SEARCH_RUNS[game]
    script = Path(__file__).resolve().parent / "paired_margin.py"
    cmd = [sys.executable, str(script), game, "--agents", str(model), "search", "--games", str(games),
           "--seeds", *map(str, seeds), "--workers", str(workers), "--out", str(out)]  # fmt: skip
    if reuse is not None:
        cmd += ["--reuse", str(reuse)]
    subprocess.run(cmd, check=True)
    r = json.loads(out.read_text())
    agent, search = (m["mean"] for m in r["margins"])
    return {"game": game, "run": str(run), "agent": agent, "search": search, "ratio": agent / search,
            "met": agent >= 2 * search / 3, "deals": r["difference"]["deals"]}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("game", choices=sorted(SEARCH_RUNS))
    p.add_argument("--hours", type=float, default=2.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=Path("runs/two_hours"))
    p.add_argument("--run", type=Path, help="pair this earlier pi run's agent instead of training one")
    p.add_argument("--workers", type=int, default=2, help="processes of the pairing (default 2)")
    a = p.parse_args(argv)
    run = a.run or a.out / a.game
    if a.run is None:
        if run.exists() and any(run.iterdir()):
            p.error(f"{run} already holds files; choose a new --out, or pair it with --run {run}")
        train(a.game, a.hours, a.seed, run)
    r = pair(a.game, run, (a.out if a.run is None else run) / "vs_search.json", a.workers)
    print(json.dumps(r, indent=1))


if __name__ == "__main__":
    main()
