"""Play a game against agents in the terminal: ``kortmiljo play GAME --opponents heuristic …``.

The person sits in seat ``--seat`` (default 0) and sees the table from that seat (the
engine's ``render(viewer=seat)``, with card symbols), the legal actions by name, and
every move of the other seats as it happens. An action is typed by name (``draw``,
``swap:2``, ``play:QS``, any spelling of a card the game accepts) or by its number in
the list. A typo gets a clear message and the question again; ``help`` or ``?`` lists
the legal actions; ``quit`` or end of input (Ctrl-D) leaves cleanly. At the end the
whole table is shown with the rewards and each seat's result fields.

Everything goes through standard input and output, so a test (or a script) can drive
a game by piping lines in.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

import numpy as np

from kortmiljo.cli import ArgumentParser, add_config_option, fail, int_arg
from kortmiljo.core.game import Game
from kortmiljo.core.options import is_int, parse_options
from kortmiljo.core.registry import game_names, load_game
from kortmiljo.env.aec import CardGameEnv, OrderEnforcing

from .registry import make_agent


class _Quit(Exception):
    pass


def _ask(prompt: str, stdin: TextIO, stdout: TextIO) -> str:
    stdout.write(prompt)
    stdout.flush()
    line = stdin.readline()
    if line == "":  # end of input
        stdout.write("\n")
        raise _Quit
    return line.strip()


def choose_action(engine, legal: list[int], stdin: TextIO, stdout: TextIO) -> int:
    """Ask until the answer names a legal action; ``quit`` or end of input raises _Quit."""
    names = [engine.action_to_string(a) for a in legal]
    listing = "  ".join(f"{i + 1}) {nm}" for i, nm in enumerate(names))
    stdout.write(f"legal actions: {listing}\n")
    while True:
        text = _ask("your move> ", stdin, stdout)
        low = text.lower()
        if low in ("quit", "exit", "q"):
            raise _Quit
        if low in ("help", "?", "h", ""):
            stdout.write(f"type one of: {', '.join(names)} (or its number); quit leaves\n")
            continue
        if text.isdigit() and 1 <= int(text) <= len(legal):
            return legal[int(text) - 1]
        try:
            action = engine.action_from_string(text)
        except ValueError:
            stdout.write(f"{text!r} is not an action; legal now: {', '.join(names)}\n")
            continue
        if action not in legal:
            stdout.write(f"{engine.action_to_string(action)!r} is not legal now; legal now: {', '.join(names)}\n")
            continue
        return action


def _fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)


def play(
    game: Game | str,
    opponents: list[str],
    seat: int = 0,
    seed: int | None = None,
    config: dict | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """One game in the terminal; returns the exit status (0 also when the person quits)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    g = load_game(game, **(config or {})) if isinstance(game, str) else game
    env = OrderEnforcing(CardGameEnv(g))
    engine = env.unwrapped.engine
    n = len(env.possible_agents)
    if not is_int(seat) or not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1} for {n} players, got {seat!r}")
    if seed is not None and (not is_int(seed) or seed < 0):
        raise ValueError(f"--seed must be a non-negative int, got {seed!r}")
    if not opponents:
        raise ValueError("give at least one opponent")
    if len(opponents) > n - 1:  # the extra ones would never play
        raise ValueError(
            f"--opponents names {len(opponents)} agents, but {g.name} with {n} players has only {n - 1} other "
            f"seat{'s' if n > 2 else ''}; give at most {n - 1} (they are cycled over the other seats)"
        )
    seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else seed
    others = [s for s in range(n) if s != seat]
    policies = {}
    names = {}
    for j, s in enumerate(others):
        spec = opponents[j % len(opponents)]
        policies[s] = make_agent(spec, g, seed=seed + 1 + s)
        names[s] = spec
    env.reset(seed=seed)
    stdout.write(f"{g.name}: you are player_{seat}; opponents: ")
    stdout.write(", ".join(f"player_{s} = {names[s]}" for s in others) + f"  (seed {seed})\n")
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    totals = [0.0] * n
    infos: list[dict] = [{} for _ in range(n)]
    try:
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            s = seat_of[agent]
            totals[s] += float(reward)
            if term or trunc:
                infos[s] = dict(info)
                env.step(None)
                continue
            if s == seat:
                stdout.write("\n" + engine.render(seat) + "\n")
                action = choose_action(engine, [int(a) for a in np.flatnonzero(obs["action_mask"])], stdin, stdout)
                stdout.write(f"you (player_{s}): {engine.action_to_string(action)}\n")
            else:
                p = policies[s]
                action = p.act(obs, engine if p.needs_engine else None)
                stdout.write(f"player_{s} ({names[s]}): {engine.action_to_string(action)}\n")
            env.step(action)
    except _Quit:
        stdout.write("game left unfinished.\n")
        return 0
    stdout.write("\n" + engine.render(None) + "\n")
    stdout.write("result:\n")
    for s in range(n):
        who = "you" if s == seat else names[s]
        fields = "  ".join(f"{k}={_fmt(v)}" for k, v in infos[s].items())
        stdout.write(f"  player_{s} ({who}): reward {totals[s]:+g}  {fields}\n")
    mine = totals[seat]
    verdict = (
        "you win"
        if mine > 0 and mine == max(totals)
        else "you lose"
        if mine < 0
        else "a draw"
        if mine == 0
        else "you gain"
    )
    stdout.write(f"{verdict} (reward {mine:+g})\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="kortmiljo play", description="Play a game against agents in the terminal.")
    p.add_argument("game", help=f"the game: {', '.join(game_names())}")
    p.add_argument(
        "--opponents", nargs="+", default=["heuristic"], help="agents for the other seats, cycled (default heuristic)"
    )
    p.add_argument("--seat", type=int_arg(0), default=0, help="your seat, 0 to players-1 (default 0)")
    p.add_argument("--seed", type=int_arg(0), default=None, help="seed of the deal, >= 0 (default: random)")
    add_config_option(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return play(args.game, args.opponents, args.seat, args.seed, parse_options(args.config))
    except ValueError as err:
        return fail("kortmiljo play", err)


if __name__ == "__main__":
    sys.exit(main())
