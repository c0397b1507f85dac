"""Load test of the web app: a real uvicorn server, many games at once over HTTP.

    python benchmarks/web_load.py [--games 50] [--think 1.0] [--game NAME] [--seed 0] [--move-pad 0] [--json FILE]

Starts ``kortmiljo serve`` in a subprocess on a free loopback port, then plays ``--games`` games
at once with ``httpx.AsyncClient`` (a client, so a session, per game), cycling over the
registered games with heuristic opponents; the "human" plays random legal moves until its game
ends, waiting a random 0..2 × ``--think`` seconds before each (a person takes seconds; ``--think
0`` is a stress test whose latency is mostly queueing: 50 clients that never wait, on a machine
whose cores the server and the clients share). Then it checks that no state bled between the
games: each game's final record (``GET .../record``) loads, replays (``verify``) and restores to
the end, its first deal is the one ``env.reset(seed=S)`` deals, and its moves are the ones that
game's log showed. It reports the errors (any non-2xx answer, exception or failed check; must be
0) and the latency of ``POST /api/games/{id}/actions`` as the client sees it (the human's move
and the opponents' replies, HTTP included): p50, p90, p99, max, per game too. The server runs with
``--move-pad`` 0 unless told (``--move-pad 0.5`` measures what a served human waits), and with
every client's connections and games allowed, since all the clients share one address. Exit
status 1 on any error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kortmiljo.core.registry import game_names, load_game  # noqa: E402
from kortmiljo.env.aec import CardGameEnv, OrderEnforcing  # noqa: E402
from kortmiljo.records import from_dict, redact, restore, verify  # noqa: E402


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, max_games: int, move_pad: float = 0.0) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "kortmiljo", "serve", "--port", str(port), "--max-games", str(max_games)]
    cmd += ["--max-games-per-client", str(max_games), "--max-connections-per-client", str(4 * max_games + 8)]
    cmd += ["--max-connections", str(4 * max_games + 16), "--move-pad", str(move_pad)]
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


async def wait_ready(base: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(base_url=base) as c:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited: {proc.stderr.read().decode()[-2000:]}")
            try:
                if (await c.get("/api/catalog")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise RuntimeError(f"the server did not answer within {timeout} s")


def first_deal(game: str, seed: int) -> tuple[int, list[str]]:
    env = OrderEnforcing(CardGameEnv(load_game(game)))
    env.reset(seed=seed)
    e = env.unwrapped.engine
    return e.deal_log[0][0], [e.deck.code(c) for c in e.deal_log[0][1]]


async def play_one(
    base: str, game: str, seed: int, think: float, latencies: list[tuple[str, float]], errors: list[str]
) -> int:
    """One game to its end; the number of moves the human made."""
    rng = random.Random(seed)
    moves = 0
    async with httpx.AsyncClient(base_url=base, timeout=60.0) as c:
        try:
            if think:  # people do not all arrive in the same millisecond
                await asyncio.sleep(think * rng.random() * 2)
            r = await c.post("/api/games", json={"game": game, "opponents": ["heuristic"], "seed": seed})
            if r.status_code != 201:
                errors.append(f"{game} seed {seed}: POST /api/games {r.status_code} {r.text[:200]}")
                return 0
            view = r.json()
            gid = view["id"]
            while view["status"] == "playing":
                if think:
                    await asyncio.sleep(think * rng.random() * 2)
                move = rng.choice(view["legal"])["name"]
                t = time.perf_counter()
                r = await c.post(f"/api/games/{gid}/actions", json={"action": move})
                took = time.perf_counter() - t
                latencies.append((game, took))
                if r.status_code != 200:
                    errors.append(f"{game} seed {seed}: POST actions {r.status_code} {r.text[:200]}")
                    return moves
                view = r.json()
                moves += 1
            r = await c.get(f"/api/games/{gid}/record")
            if r.status_code != 200:
                errors.append(f"{game} seed {seed}: GET record {r.status_code}")
                return moves
            rec = from_dict(r.json())
            verify(rec)
            env = restore(rec)
            e = env.unwrapped.engine
            if not (e.terminal or e.truncated):
                errors.append(f"{game} seed {seed}: the restored record has not ended")
            if rec.seed != seed or rec.game != game:
                errors.append(f"{game} seed {seed}: the record is of {rec.game} seed {rec.seed}")
            dealer, deck = first_deal(game, seed)
            if (rec.deals[0]["dealer"], rec.deals[0]["deck"]) != (dealer, deck):
                errors.append(f"{game} seed {seed}: the first deal is not env.reset(seed={seed})'s")
            seen = [(x["seat"], x["action"], x["seen"]) for x in view["log"]]
            want = [(a["seat"], a["action"], a["seen"]) for a in redact(rec, view["seat"]).actions]
            if seen != want:
                errors.append(f"{game} seed {seed}: the log differs from the record's moves")
        except Exception as err:  # noqa: BLE001 (every failure is counted and reported)
            errors.append(f"{game} seed {seed}: {type(err).__name__}: {err}")
    return moves


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


async def run(args) -> dict:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(port, max(1000, args.games), args.move_pad)
    try:
        await wait_ready(base, proc)
        names = args.game or game_names()
        latencies: list[tuple[str, float]] = []
        errors: list[str] = []
        t = time.perf_counter()
        moves = await asyncio.gather(
            *(
                play_one(base, names[i % len(names)], args.seed + i, args.think, latencies, errors)
                for i in range(args.games)
            )
        )
        wall = time.perf_counter() - t
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()

    def summary(ms: list[float]) -> dict:
        if not ms:
            return {"n": 0}
        return {
            "n": len(ms),
            "p50": round(statistics.median(ms), 2),
            "p90": round(pct(ms, 90), 2),
            "p99": round(pct(ms, 99), 2),
            "max": round(max(ms), 2),
        }

    ms = [x * 1000 for _, x in latencies]
    return {
        "games": args.games,
        "game_names": names,
        "think_s": args.think,
        "errors": len(errors),
        "error_lines": errors[:20],
        "moves": sum(moves),
        "wall_s": round(wall, 2),
        "moves_per_s": round(sum(moves) / wall, 1) if wall else None,
        "latency_ms": summary(ms),
        "latency_ms_by_game": {g: summary([x * 1000 for h, x in latencies if h == g]) for g in names},
        "move_pad_s": args.move_pad,
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=50, help="games played at once (50)")
    ap.add_argument("--game", action="append", help="play only this game (repeatable; default: every one)")
    ap.add_argument("--think", type=float, default=1.0, help="mean seconds the human waits before each move (1.0)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first game; game i has seed + i")
    ap.add_argument("--move-pad", type=float, default=0.0, help="the server's --move-pad (0: no pacing)")
    ap.add_argument("--json", help="also write the result here")
    args = ap.parse_args(argv)
    out = asyncio.run(run(args))
    lat = out["latency_ms"]
    print(
        f"{out['games']} games ({', '.join(out['game_names'])}), think {out['think_s']} s: {out['moves']} moves in "
        f"{out['wall_s']} s ({out['moves_per_s']} moves/s), errors {out['errors']}"
    )
    print(f"POST .../actions latency ms: p50 {lat['p50']}  p90 {lat['p90']}  p99 {lat['p99']}  max {lat['max']}")
    for g, x in out["latency_ms_by_game"].items():
        if x["n"]:
            print(f"  {g:14} {x['n']:5} moves: p50 {x['p50']}  p90 {x['p90']}  p99 {x['p99']}  max {x['max']}")
    for line in out["error_lines"]:
        print("  error:", line)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 1 if out["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
