"""The learning-curve figure of a run directory (matplotlib, Agg backend, no display needed)."""

from __future__ import annotations

import csv
from pathlib import Path


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def plot_learning_curve(run_dir: str | Path) -> Path:
    """Write ``learning_curve.png``: evaluation means with 95% intervals, and the training return."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = Path(run_dir)
    evals, prog = _read(d / "eval.csv"), _read(d / "progress.csv")
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    names = sorted({k[: -len("_mean")] for r in evals for k in r if k.endswith("_mean")})
    for name in names:
        pts = [
            (int(r["timesteps"]), float(r[f"{name}_mean"]), float(r[f"{name}_ci95"]))
            for r in evals
            if r.get(f"{name}_mean")
        ]
        if pts:
            x, y, e = zip(*pts, strict=True)
            ax1.errorbar(x, y, yerr=e, marker="o", capsize=3, label=f"vs {name}")
    ax1.axhline(0, color="grey", lw=0.8)
    ax1.set_ylabel("mean reward per game (duplicate)")
    game = ""
    if (d / "config.json").exists():
        from kortmiljo.core import jsonsafe

        try:
            cfg = jsonsafe.loads((d / "config.json").read_bytes()[: 1 << 20], what=str(d / "config.json"))
        except (OSError, ValueError):
            cfg = {}  # the title only: a damaged config.json costs the game's name, not the plot
        game = (cfg.get("game") if isinstance(cfg, dict) and isinstance(cfg.get("game"), str) else "") + " "
    ax1.set_title(f"{game}{d}: duplicate-deal evaluations (95% intervals)")
    if names:
        ax1.legend()
    pts = [(int(r["timesteps"]), float(r["game_return_mean"])) for r in prog if r.get("game_return_mean")]
    if pts:
        x, y = zip(*pts, strict=True)
        ax2.plot(x, y, lw=1)
    ax2.axhline(0, color="grey", lw=0.8)
    ax2.set_xlabel("timesteps (learner decisions)")
    ax2.set_ylabel("training game return (last 500 episodes)")
    fig.tight_layout()
    out = d / "learning_curve.png"
    tmp = d / ".learning_curve.tmp.png"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(out)
    return out
