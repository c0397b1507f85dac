"""What the web app's answer times tell the human: forced and unforced opponent moves, side by side.

An opponent whose move is forced (one legal action) answers at once; one with a choice thinks
(``search``: about 0.1 s in Sprøyte). Without pacing, the time of ``POST /api/games/{id}/actions``
then says whether an opponent who followed suit had another card of that suit. With pacing
(``--move-pad``, default 0.5 s) every answer waits ``pad`` seconds per opponent move from the
start of its work, so both kinds take the same time.

The human plays random legal moves against two ``search`` opponents in Sprøyte; each answer is
classed by how many opponent moves it followed (1 or 2) and whether all of them were forced. The
table gives the median and the 10th–90th percentiles of each class, for pad 0 and the given pad,
in one run, and how many answers took longer than their pad (overruns):

    python benchmarks/web_timing.py [--pad 0.5] [--games 4] [--opponent search] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kortmiljo.agents.registry import make_agent  # noqa: E402

from kortmiljo.server import create_app  # noqa: E402


class Counting:
    """An agent that notes, per move, how many legal actions it had."""

    def __init__(self, inner, notes: list[int]):
        self.inner, self.notes = inner, notes
        self.needs_engine = getattr(inner, "needs_engine", False)

    def act(self, obs, engine=None):
        self.notes.append(int(np.count_nonzero(obs["action_mask"])))
        return self.inner.act(obs, engine)


def run(pad: float, games: int, opponent: str, seed: int) -> dict[str, list[float]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    notes: list[int] = []
    app = create_app(
        agent_factory=lambda spec, game, s: Counting(make_agent(spec, game, seed=s), notes),
        agents=[opponent],
        move_pad=pad,
        max_games_per_session=games + 1,
    )
    c = TestClient(app)
    rng = random.Random(seed)
    out: dict[str, list[float]] = {f"{k} {kind}": [] for k in (1, 2) for kind in ("forced", "unforced")}
    for g in range(games):
        v = c.post("/api/games", json={"game": "sproyte", "opponents": [opponent], "seed": seed + g}).json()
        while v["status"] == "playing":
            notes.clear()
            t = time.perf_counter()
            r = c.post(f"/api/games/{v['id']}/actions", json={"action": rng.choice(v["legal"])["name"]})
            took = time.perf_counter() - t
            v = r.json()
            if len(notes) in (1, 2):
                out[f"{len(notes)} {'forced' if max(notes) == 1 else 'unforced'}"].append(took)
    out["overruns"] = [app.state.pacing.overruns, app.state.pacing.answers]
    return out


def summary(xs: list[float]) -> str:
    if not xs:
        return "(none)"
    q = np.percentile(xs, [10, 90])
    return f"{statistics.median(xs) * 1000:8.1f} ms  ({q[0] * 1000:6.1f}–{q[1] * 1000:6.1f}, n={len(xs)})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pad", type=float, default=0.5, help="the pace to compare with no pace (0.5 s)")
    p.add_argument("--games", type=int, default=4)
    p.add_argument("--opponent", default="search")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    results = {}
    print(f"Sprøyte, human random vs 2× {args.opponent}; answer times by opponent moves (median, p10–p90)")
    print(f"{'pad':>5} {'moves':>5}  {'all forced':>38}  {'some unforced':>38}  overruns")
    for pad in (0.0, args.pad):
        r = run(pad, args.games, args.opponent, args.seed)
        results[str(pad)] = r
        over = f"{r['overruns'][0]}/{r['overruns'][1]}"
        for k in (1, 2):
            row = f"{summary(r[f'{k} forced']):>38}  {summary(r[f'{k} unforced']):>38}"
            print(f"{pad:5.2f} {k:5}  {row}  {over if k == 1 else ''}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
