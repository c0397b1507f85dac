"""The recipes of the ``pretrained_vN`` reference agents, end to end, with the time of each stage.

1. **Teacher games** (:mod:`kortmiljo.train.expert_data`): ``--teacher`` (``search_v0``; the heuristic in
   Spøkelse, where search is at par with it and costs 4,000 times more: ``--teacher heuristic
   --teacher-share 1``) plays, in ``--workers`` processes that share the chunk numbers, for
   ``--collect-minutes`` (a rerun resumes: chunks on disk are kept).
   ``--prior STUDENT.npz`` makes the teacher search guided by an earlier student (expert
   iteration's second stage: only the student's ``--prior-top`` actions and the heuristic's
   move are searched).
2. **Distillation** (:mod:`kortmiljo.train.distill`): an MLP fitted to the teacher's moves, search scores
   and outcomes, written as numpy weights; ``--advisor heuristic_v0`` gives it the heuristic's
   move as an input, ``--warm DIR`` fits cheaper teacher data (heuristic games) first.
3. **Check**: a duplicate-deal tournament of the student against the heuristic.

``--teacher oracle`` is ``pretrained_v2``'s recipe: the teacher games are
:mod:`kortmiljo.train.oracle_data`'s (heuristic games in which every action is scored by one paired rollout
in the real deal; ``--explore`` of the moves random), and the student regresses those scores over
the heuristic's move (``kortmiljo.train.distill --advisor heuristic_v0 --target advantage --margin M``).
``--teacher oracle --policy pretrained_vN`` makes ``pretrained_v(N+1)`` (v3 from v2, v4 from v3): the
same, with that network playing the games and the rollouts, so the scores are its action values and
the student is one step of policy iteration beyond it (still with the heuristic as advisor).
``--all-stages`` scores the stages search leaves to the heuristic too (Sprøyte's exchange),
``--init FILE.npz`` starts the fit from an earlier student, so new data adds to what it learnt, and
``--replay DIR`` fits the earlier steps' data again beside this step's (a replay buffer: their
scores are an older policy's values, but they are many games more).
``--opponents AGENT --opponent-share P`` seats the policy at a table of ``AGENT``s in that share of
the games (:mod:`kortmiljo.train.oracle_data`), so its scores are also those of exploiting that agent.

``python -m kortmiljo.train.reference GAME [--collect-minutes 60] [--workers 2] [--out FILE.npz]``
writes the weights and ``<out>.report.json`` (stage times, data sizes, held-out agreement, the
check's result). The shipped weights were made this way; their reports lie beside them.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
from pathlib import Path

from kortmiljo.core.files import atomic_write


def _collect(job):
    from kortmiljo.train import expert_data, oracle_data

    args, kwargs = job
    if kwargs.pop("oracle", False):
        return oracle_data.collect(*args, **kwargs)
    return expert_data.collect(*args, **kwargs)


def run(game: str, collect_minutes: float, workers: int, data: str, out: str, epochs: int, check_games: int,
        hidden: str = "256,256", teacher: str = "search", share: float = 0.75, prior: str | None = None,
        prior_top: int = 2, advisor: str | None = None, warm: str | None = None, margin: float = 0.1,
        explore: float = 0.05, policy: str = "heuristic", half: bool = False, all_stages: bool = False,
        init: str | None = None, lr: float | None = None, first_chunk: int = 0,
        replay: str | None = None, opponents: str | None = None, opponent_share: float = 0.0) -> dict:  # fmt: skip
    from kortmiljo.agents.registry import make_agent
    from kortmiljo.agents.tournament import run_tournament
    from kortmiljo.train import distill
    from kortmiljo.train.expert_data import chunk_totals

    from kortmiljo.core.registry import load_game

    oracle = teacher == "oracle"
    if oracle:
        from kortmiljo.train.oracle_data import check_table

        check_table(opponents, opponent_share)  # here, before the workers start, not in each of them
        advisor = advisor or "heuristic_v0"  # the scores are taught relative to its move
    elif opponents is not None:
        raise ValueError(f"--opponents needs --teacher oracle (the mixed table is oracle_data's), got {teacher!r}")
    report: dict = {"game": game, "teacher": teacher, "teacher_share": share, "prior": prior, "prior_top": prior_top,
                    "advisor": advisor, "warm": warm, "half": half, "stages": {}}  # fmt: skip
    if oracle:
        report.update(margin=margin, explore=explore, policy=policy, all_stages=all_stages, first_chunk=first_chunk)
        if opponents is not None:
            report.update(opponents=opponents, opponent_share=opponent_share)
    if init:
        report.update(init=init, lr=lr)
    if replay:  # read now: a wrong folder is refused before the collection, not after it
        report["replay"] = {"folders": replay, **chunk_totals(replay.split(","))}
    t = time.time()
    if collect_minutes > 0:
        if oracle:
            kw = {"oracle": True, "policy": policy, "all_stages": all_stages, "opponents": opponents,
                  "opponent_share": opponent_share}  # fmt: skip
            jobs = [((game, data, collect_minutes, first_chunk + w, workers, explore), kw) for w in range(workers)]
        else:
            guide = {"prior": prior, "prior_top": prior_top}
            jobs = [((game, data, collect_minutes, teacher, share, w, workers), guide) for w in range(workers)]
        with mp.get_context("spawn").Pool(workers) as pool:
            pool.map(_collect, jobs)
    meta = chunk_totals(data)
    report["stages"]["teacher_games"] = {"wall_seconds": round(time.time() - t), **meta}
    t = time.time()
    extra = [*(["--advisor", advisor] if advisor else []), *(["--warm", warm] if warm else [])]
    if oracle:
        extra += ["--target", "advantage", "--margin", str(margin)]
    if half:
        extra.append("--half")
    if init:
        extra += ["--init", init]
    if lr is not None:
        extra += ["--lr", str(lr)]
    fit_data = f"{data},{replay}" if replay else data
    distill.main([game, "--data", fit_data, "--out", out, "--epochs", str(epochs), "--hidden", hidden,
                  "--threads", str(workers), *extra])  # fmt: skip
    report["stages"]["distillation"] = {"wall_seconds": round(time.time() - t)}
    t = time.time()
    g = load_game(game)
    r = run_tournament(g, [make_agent(out, g, seed=0)] + ["heuristic"] * (g.num_players - 1), check_games,
                       seed=1, progress=False)  # fmt: skip
    student = next(iter(r["agents"].values()))
    result = {k: student[k] for k in ("mean_reward", "ci95", "win_rate")}
    report["stages"]["check"] = {"wall_seconds": round(time.time() - t), "games": r["games"], "vs_heuristic": result}
    atomic_write(out + ".report.json", json.dumps(report, indent=1) + "\n")
    return report


def recipe_version(teacher: str, policy: str, out: str | None = None) -> int:
    """The ``pretrained_vN`` a recipe makes: search's v1, the heuristic oracle's v2, and one past
    ``pretrained_vN`` (N + 1) for an oracle whose policy is that network.

    Any other policy has no version of its own, so it needs ``--out`` (then 0 is returned)."""
    if teacher != "oracle":
        return 1
    if policy in ("heuristic", "heuristic_v0"):
        return 2
    name, _, n = policy.rpartition("_v")
    if name == "pretrained" and n.isdigit():
        return int(n) + 1
    if out is None:
        raise SystemExit(
            f"--policy {policy}: only the heuristic and pretrained_vN give the weights a version "
            "(v2, vN+1); name the file with --out"
        )
    return 0


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m kortmiljo.train.reference", description=__doc__.split("\n")[0])
    p.add_argument("game")
    p.add_argument("--collect-minutes", type=float, default=60.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--data", default=None, help="teacher-data folder (default runs/expert/GAME/data)")
    p.add_argument("--out", default=None, help="weights file (default agents/weights/GAME_vN.npz, N the recipe's)")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--hidden", default="256,256")
    p.add_argument("--check-games", type=int, default=600)
    p.add_argument("--teacher", default="search", help="the agent imitated (default search), or oracle (v2's recipe)")
    p.add_argument("--teacher-share", type=float, default=0.75, help="chance that a seat is the teacher's")
    p.add_argument("--prior", default=None, help="a student that guides the teacher's search (stage 2)")
    p.add_argument("--prior-top", type=int, default=2)
    p.add_argument("--advisor", default=None, help="an agent whose move is a student input (heuristic_v0)")
    p.add_argument("--warm", default=None, help="cheaper teacher data fitted first (folders, comma-separated)")
    p.add_argument("--margin", type=float, default=0.1, help="--teacher oracle: the student's margin (train.distill)")
    p.add_argument("--explore", type=float, default=0.05, help="--teacher oracle: share of random moves")
    p.add_argument("--policy", default="heuristic", help="--teacher oracle: the agent that plays and rolls out")
    p.add_argument("--half", action="store_true", help="the fit holds its inputs as float16 (train.distill --half)")
    p.add_argument("--all-stages", action="store_true",
                   help="--teacher oracle: score every stage, also those search leaves to the heuristic")  # fmt: skip
    p.add_argument("--first-chunk", type=int, default=0, help="--teacher oracle: the first chunk number (its deals)")
    p.add_argument("--init", default=None, help="an earlier student to go on from (kortmiljo.train.distill --init)")
    p.add_argument("--replay", default=None, help="earlier steps' teacher data fitted too (comma-separated folders)")
    p.add_argument("--lr", type=float, default=None, help="the fit's learning rate (kortmiljo.train.distill's default)")
    p.add_argument("--opponents", default=None, help="--teacher oracle: the agent at the table of a share of the games")
    p.add_argument("--opponent-share", type=float, default=0.0, help="--teacher oracle: that share (with --opponents)")
    a = p.parse_args(argv)
    oracle = a.teacher == "oracle"
    version = recipe_version(a.teacher, a.policy, a.out)
    teacher_dir = ("oracle" if version == 2 else f"oracle_{a.policy}") if oracle else "expert"
    data = a.data or str(Path("runs") / teacher_dir / a.game / "data")
    out = a.out or str(Path(__file__).resolve().parent.parent / "agents" / "weights" / f"{a.game}_v{version}.npz")
    try:
        report = run(
            a.game, a.collect_minutes, a.workers, data, out, a.epochs, a.check_games, a.hidden, a.teacher,
            a.teacher_share, a.prior, a.prior_top, a.advisor, a.warm, a.margin, a.explore, a.policy, a.half,
            a.all_stages, a.init, a.lr, a.first_chunk, a.replay, a.opponents, a.opponent_share,
        )  # fmt: skip
    except ValueError as err:  # a bad folder or setting: say what, without a traceback
        p.error(str(err))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
