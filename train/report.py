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


# ---- the pi recipe's outputs (kortmiljo.train.pi) ---------------------------------------------------


def pi_report(run) -> dict:
    """``report.json`` of a pi run: the plan, and each step's data, fit, gate and margin over the heuristic."""
    c, state = run.config, run.state
    steps = []
    for rec in state["steps"]:
        gate = rec.get("gate", {})
        steps.append({"step": rec["step"], "policy": rec["policy"], "data": rec.get("data"), "fit": rec.get("fit"),
                      "gate": gate or None, "adopted": gate.get("adopted"),
                      "margin_vs_heuristic": gate.get("student_vs_heuristic")})  # fmt: skip
    adopted = [s for s in steps if s["adopted"]]
    return {
        "recipe": "pi", "game": c.game, "game_options": c.game_options, "seed": c.seed, "workers": run.workers,
        "command": c.command_line(), "out": str(run.out), "budget_seconds": run.budget,
        "machine_speed": run.state.get("speed"),
        "elapsed_seconds": state["elapsed_s"],
        "gate_rule": "adopt iff the lower end of the 95 % interval of the per-deal (student - current) "
                     "difference, each against the heuristic on the same fresh deals, is above 0",
        "plan": run.steps, "steps": steps,
        "model": "model.npz" if adopted else None,
        "margin_vs_heuristic": adopted[-1]["margin_vs_heuristic"] if adopted else None,
    }  # fmt: skip


def _interval(m: dict | None) -> str:
    if not m:
        return "not measured"
    lo, hi = m["ci95"]
    return f"{m['mean']:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def _speed_note(report: dict) -> str:
    speed = report.get("machine_speed")
    if not isinstance(speed, dict):
        return ""
    lanes = f" ({speed['data']:g} of that as batched lanes)" if "data" in speed else ""
    phases = (f", a fit {speed['fit']:g} and a gate game {speed['gate']:g} times the reference's"
              if "fit" in speed and "gate" in speed else "")  # fmt: skip
    return (f"; planned for heuristic chunks taking {speed['chunk']:g} times the cost model's reference time{lanes} "
            f"and recording {speed['decisions']:g} times its decisions{phases}")  # fmt: skip


def pi_model_card(report: dict) -> str:
    """``DIR/model.md``, the model card: what the weights are, how they were made, and what they were measured at."""
    lines = [f"# {report['game']}: kortmiljo train --recipe pi", ""]
    if report["model"]:
        lines += ["`model.npz`: safe numpy weights (`kortmiljo.agents.pretrained`); play them with "
                  f"`make_agent('model.npz', game)` or `--agents PATH/model.npz`. Margin against the heuristic "
                  f"(one seat, the gate's deals): {_interval(report['margin_vs_heuristic'])}.", ""]  # fmt: skip
    else:
        lines += ["No step won its gate: the heuristic stays the better policy, and no `model.npz` was written. "
                  "Each step's student is in `steps/`.", ""]  # fmt: skip
    lines += ["Command:", "", f"    {report['command']}", "",
              f"Seed {report['seed']}, {report['workers']} workers, budget {report['budget_seconds'] / 60:.1f} "
              f"minutes, {report['elapsed_seconds'] / 60:.1f} spent{_speed_note(report)}.", "",
              f"Gate rule: {report['gate_rule']}.", "",
              "| step | from | games | decisions | data s | fit s | student − current | vs heuristic | adopted |",
              "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for s in report["steps"]:
        d, f, g = s["data"] or {}, s["fit"] or {}, s["gate"] or {}
        lines.append(f"| {s['step']} | {s['policy']} | {d.get('games', '')} | {d.get('decisions', '')} | "
                     f"{d.get('wall_seconds', '')} | {f.get('wall_seconds', '')} | {_interval(g.get('difference'))} | "
                     f"{_interval(s['margin_vs_heuristic'])} | {s['adopted']} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def plot_pi_curve(report: dict, out: Path) -> Path:
    """``learning_curve.png``: each step's student against the heuristic (95 % intervals), adopted or
    not, against the oracle games played so far."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    games = 0
    for s in report["steps"]:
        games += (s["data"] or {}).get("games", 0)
        m = s["margin_vs_heuristic"]
        if not m:
            continue
        lo, hi = m["ci95"]
        color = "tab:green" if s["adopted"] else "tab:red"
        ax.errorbar([games], [m["mean"]], yerr=[[m["mean"] - lo], [hi - m["mean"]]], marker="o", capsize=3,
                    color=color)  # fmt: skip
        ax.annotate(f"step {s['step']}", (games, m["mean"]), textcoords="offset points", xytext=(5, 5))
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("oracle games played (all steps)")
    ax.set_ylabel("student vs heuristic, mean reward a game")
    ax.set_title(f"{report['game']}: pi steps (green adopted, red not; 95% intervals)")
    fig.tight_layout()
    path, tmp = out / "learning_curve.png", out / ".learning_curve.tmp.png"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)
    return path


def write_pi_outputs(run) -> dict:
    """report.json, DIR/model.md and learning_curve.png of a pi run; its report."""
    import json

    from kortmiljo.core.files import atomic_write

    report = pi_report(run)
    atomic_write(run.out / "report.json", json.dumps(report, indent=1) + "\n")
    atomic_write(run.out / "model.md", pi_model_card(report))
    plot_pi_curve(report, run.out)
    return report
