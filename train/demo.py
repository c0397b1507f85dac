"""The README's main job: train a small Spøkelse agent and evaluate it against the baselines.

``python -m kortmiljo.train.demo`` (or ``make demo``), a few minutes on a 2-core laptop:

1. **Behaviour cloning**: the policy network imitates the Spøkelse heuristic on a few
   thousand recorded games (seconds), and its value head learns the outcomes.
2. **PPO**: MaskablePPO fine-tunes it against an opponent pool of the heuristic and frozen
   snapshots of itself, with a duplicate-deal evaluation every 50,000 steps that keeps the
   best model. (Random opponents pull PPO away from the heuristic's play: with them in the
   pool, the in-loop value against the heuristic fell to about -0.12 within three minutes,
   without them to about -0.05.)
3. **Tournament**: the trained agent (``ppo:runs/demo/run/model.zip``) plays duplicate
   deals against random and against the heuristic (``kortmiljo.agents.tournament``, the same code as
   ``kortmiljo eval``), and the tables are printed.

Everything goes to ``runs/demo/`` (git-ignored): the run directory (model, config,
learning curve, TensorBoard logs, report) and ``summary.json``. Rerun the evaluation
alone with ``kortmiljo eval spokelse --agents ppo:runs/demo/run heuristic --games 4000``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m kortmiljo.train.demo", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="runs/demo", help="demo directory (replaced)")
    p.add_argument("--minutes", type=float, default=3.0, help="training budget (behaviour cloning included)")
    p.add_argument("--bc-games", type=int, default=3000, help="heuristic games to imitate")
    p.add_argument("--games", type=int, default=1000, help="tournament games against each baseline")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from kortmiljo.agents.tournament import format_table, run_tournament
    from kortmiljo.train.config import TrainConfig, TrainError
    from kortmiljo.train.trainer import Trainer

    out = Path(args.out)
    run = out / "run"
    if run.exists():
        shutil.rmtree(run)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    print(f"Training a Spøkelse agent for up to {args.minutes:g} minutes (behaviour cloning, then PPO) → {run}")
    config = TrainConfig(
        game="spokelse", out=str(run), seed=args.seed, minutes=args.minutes, bc_teacher="heuristic",
        bc_games=args.bc_games, bc_opponents=("random", "heuristic"), bc_epochs=4, opponents=("heuristic",),
        self_play_prob=0.2, lr=3e-5, clip=0.1, ent_coef=0.001, target_kl=0.02, eval_every=50_000, eval_deals=150,
        eval_opponents=("random", "heuristic"), cache=str(out / "cache"), no_progress=args.no_progress,
    )  # fmt: skip
    try:
        report = Trainer(config).run()
    except TrainError as err:
        print(f"python -m kortmiljo.train.demo: {err}", file=sys.stderr)
        return 2
    train_s = time.time() - t0
    model = f"ppo:{run / 'model.zip'}"
    print(f"\nTrained in {train_s:.0f} s ({report['timesteps']} PPO steps at {report['ppo_env_steps_per_s']} steps/s).")
    print(f"Evaluating {model} with duplicate deals ({args.games} games per opponent):\n")
    tables = {}
    for opponent in ("random", "heuristic"):
        res = run_tournament(
            "spokelse", [model, opponent], games=args.games, seed=args.seed + 1, progress=not args.no_progress
        )
        tables[opponent] = res
        print(format_table(res))
        print()
    summary = {
        "command": "python -m kortmiljo.train.demo " + " ".join(argv if argv is not None else sys.argv[1:]),
        "train_seconds": round(train_s, 1),
        "timesteps": report["timesteps"],
        "ppo_env_steps_per_s": report["ppo_env_steps_per_s"],
        "model": str(run / "model.zip"),
        "model_is": report["model_is"],
        "vs": {
            opp: {"games": r["games"], **{k: r["agents"][model][k] for k in ("mean_reward", "ci95", "win_rate")}}
            for opp, r in tables.items()
        },
        "total_seconds": round(time.time() - t0, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    for opp, r in summary["vs"].items():
        lo, hi = r["ci95"]
        print(
            f"trained agent vs {opp:9}: mean reward {r['mean_reward']:+.3f}  "
            f"95% CI [{lo:+.3f}, {hi:+.3f}]  ({r['games']} games)"
        )
    print(
        f"\nEverything is in {out}/ (learning curve: {run / 'learning_curve.png'}); "
        f"total {summary['total_seconds']:.0f} s."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
