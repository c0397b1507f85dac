"""Before and after a refactor, in one run: ``benchmarks/throughput.py`` of two checkouts, interleaved.

Each round runs the throughput benchmark of the *before* checkout, then of the *after* checkout
(each with its own code on ``PYTHONPATH``, in a fresh process), so that both see the same
machine load; the table gives, per row, the median over rounds of the CPU-time rate (steadier
than wall clock on a shared machine) on each side and their ratio. Only the kortmiljo rows are
compared (the anchors measure other libraries).

    git worktree add /tmp/before <commit>
    python benchmarks/compare_checkouts.py --before /tmp/before --rounds 3 --seconds 1 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def run_throughput(checkout: Path, args: argparse.Namespace) -> dict[str, float]:
    """One run of ``checkout``'s throughput benchmark: row → CPU-time agent-steps/s (kortmiljo rows)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "throughput.json"
        cmd = [sys.executable, "benchmarks/throughput.py", "--seconds", str(args.seconds)]
        cmd += ["--repeats", str(args.repeats), "--only", args.only, "--json", str(out)]
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        subprocess.run(cmd, cwd=checkout, env=env, check=True, stdout=subprocess.DEVNULL)
        rows = json.loads(out.read_text())["rows"]
    return {r["row"]: r["cpu_steps_per_s"] for r in rows if r["kind"] == "kortmiljo"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, type=Path, help="the checkout to compare against (e.g. a worktree)")
    ap.add_argument("--after", default=HERE, type=Path, help="the checkout under test (default: this one)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians over them are reported")
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one timed run (throughput.py)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per row in one throughput.py call")
    ap.add_argument("--only", default="", help="substring filter on row names (throughput.py --only)")
    args = ap.parse_args(argv)
    for side in (args.before, args.after):
        if not (side / "benchmarks" / "throughput.py").exists():
            print(f"compare_checkouts: {side} has no benchmarks/throughput.py", file=sys.stderr)
            return 2
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for k in range(args.rounds):
        for side, path in (("before", args.before), ("after", args.after)):
            print(f"round {k + 1}/{args.rounds}: {side} ({path})", file=sys.stderr, flush=True)
            runs[side].append(run_throughput(path, args))
    rows = [r for r in runs["after"][0] if all(r in run for run in runs["before"] + runs["after"])]
    print(f"{'row':44} {'before /CPU-s':>14} {'after /CPU-s':>13} {'after/before':>13}")
    for row in rows:
        b = statistics.median(run[row] for run in runs["before"])
        a = statistics.median(run[row] for run in runs["after"])
        print(f"{row:44} {b:14,.0f} {a:13,.0f} {a / b:12.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
