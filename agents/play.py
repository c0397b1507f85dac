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

**Records.** ``--record FILE`` saves the game as a game record (:mod:`kortmiljo.records`,
docs/records.md) when it ends, and also when the person quits (status ``unfinished``), written
atomically; its ``seats`` say ``human`` for the person's seat and the agent spec for the others.
``kortmiljo play --resume FILE`` plays a recorded game on from its last move: the same game,
options and cards, the person in the seat its record marks ``human`` (or ``--seat``), the others
played by ``--opponents`` if given, else by the agents its seats name (except what runs code when
loaded: a plug-in, ``module:attr`` or ``file.py:attr``, or a pickled ``ppo:``/``.zip``/``rllib:``
model; a record must not choose code to run, so such a seat needs ``--opponents``). With ``--record`` the game
is saved again, whole (the recorded moves and the new ones; the same file may be given to both).
A record of a game that is over shows its final table. A file that is not a record that can be
restored (missing, corrupt, of a newer format, redacted) ends with one line naming it.
"""

from __future__ import annotations

import argparse
import re
import sys
from contextlib import nullcontext
from functools import partial
from typing import Any, TextIO

import numpy as np

from kortmiljo.cli import (
    ArgumentParser,
    add_agent_options,
    add_config_option,
    agent_failed,
    check_output_file,
    fail,
    int_arg,
)
from kortmiljo.core.errors import AgentError, printable
from kortmiljo.core.game import Game
from kortmiljo.core.guard import guarded_act, guarded_call, timed_moves
from kortmiljo.core.options import is_int, parse_options
from kortmiljo.core.registry import game_names, load_game
from kortmiljo.env.aec import CardGameEnv, OrderEnforcing

from .plugins import label
from .registry import agent_help, make_agent, spec_kind

HUMAN = "human"  # the person's seat in a record


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
        if text.isascii() and text.isdigit() and len(text) <= 9 and 1 <= int(text) <= len(legal):
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


class MoveLog:
    """What a record needs beyond the engine's own history: per move its phase, trick, deal and any
    annotation, and every seat's return (what :class:`kortmiljo.records.RecordEpisode` keeps)."""

    def __init__(self, engine, seed: int | None, carry: Any, moves: list | None = None, rewards=None):
        self.engine = engine
        self.seed = seed
        self.carry = carry
        self.moves: list[tuple] = list(moves or [])
        self.rewards = [0.0] * engine.num_players if rewards is None else [float(r) for r in rewards]

    def step(self, env, action: int, policy: dict | None = None, value: float | None = None) -> None:
        e = self.engine
        phase, trick = e.moment()
        deal = len(e.deal_log) - 1
        before = len(e.history)
        env.step(action)
        if len(e.history) == before:
            return
        self.moves.append((phase, trick, deal, policy, value))
        for i, x in enumerate(e.rewards):
            self.rewards[i] += float(x)

    def record(self, seats: dict[str, str], event: dict | None = None):
        from kortmiljo.records import build_record

        return build_record(self.engine, self.moves, self.rewards, seats, self.seed, self.carry, event)


def _result(engine, totals, infos, seat: int | None, who: dict[int, str], stdout: TextIO) -> None:
    """The whole table, every seat's reward and result fields, and (for a known seat) the verdict."""
    n = engine.num_players
    stdout.write("\n" + engine.render(None) + "\n")
    stdout.write("result:\n")
    for s in range(n):
        name = "you" if s == seat else printable(who.get(s, "?"))
        fields = "  ".join(f"{k}={_fmt(v)}" for k, v in infos[s].items())
        stdout.write(f"  player_{s} ({name}): reward {totals[s]:+g}  {fields}\n")
    if seat is None:
        return
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


def _opponents(g: Game, n: int, seat: int, opponents: list[Any], seed: int) -> tuple[dict, dict]:
    if not opponents:
        raise ValueError("give at least one opponent")
    if len(opponents) > n - 1:  # the extra ones would never play
        raise ValueError(
            f"--opponents names {len(opponents)} agents, but {g.name} with {n} players has only {n - 1} other "
            f"seat{'s' if n > 2 else ''}; give at most {n - 1} (they are cycled over the other seats)"
        )
    specs = {s: opponents[j % len(opponents)] for j, s in enumerate(x for x in range(n) if x != seat)}
    return _make(g, specs, seed)


def _make(g: Game, specs: dict[int, Any], seed: int) -> tuple[dict, dict]:
    """The policy and the name of each seat; a spec is a string or an object (a Policy, used as it
    is, or anything with ``act(obs)``, wrapped: :func:`kortmiljo.agents.plugins.as_policy`)."""
    policies = {}
    for s, spec in specs.items():
        if isinstance(spec, str):
            # a tournament record numbers an agent seated twice (heuristic#2): the agent is the name before
            policies[s] = make_agent(re.sub(r"#\d+$", "", spec), g, seed=seed + 1 + s)
        else:
            policies[s] = make_agent(spec, g, seed=seed + 1 + s)
    return policies, {s: label(spec) for s, spec in specs.items()}


# the spec kinds whose loading imports or unpickles code, and what each is called in the refusal
RUNS_CODE = {
    "file": "the plug-in",
    "module": "the plug-in",
    "ppo": "the SB3 model",
    "zip": "the SB3 model",
    "rllib": "the RLlib checkpoint",
}


def _from_record(spec: str, seat: int, path: str) -> str:
    """A seat's agent as a record names it; refused where loading it would run code: a plug-in is
    imported, an SB3 model or an RLlib checkpoint unpickled (a record may come from anyone, and must
    not choose what runs here). Agent names and ``.npz`` weights (read without pickle) are taken."""
    what = RUNS_CODE.get(spec_kind(re.sub(r"#\d+$", "", spec)) or "")
    if what:
        raise ValueError(
            f"{path}: player_{seat} was played by {what} {spec!r}, which runs code when loaded; a record does not "
            f"choose that: give --opponents {spec} to play against it"
        )
    return spec


def _play_on(
    env, seat: int, policies: dict, names: dict, stdin, stdout, log: MoveLog, save_to, event, move_timeout=None
) -> int:
    """Play the env on from where it is; save the record to ``save_to`` at the end or on quitting,
    and when an agent fails (its :class:`~kortmiljo.core.errors.AgentError` then goes on up).
    Every agent's move is guarded (:func:`kortmiljo.core.guard.guarded_act`): within
    ``move_timeout`` seconds (None: no limit), and its failure named."""
    engine = env.unwrapped.engine
    n = engine.num_players
    seats = {f"player_{s}": HUMAN if s == seat else names[s] for s in range(n)}

    def save() -> None:
        if save_to is not None:
            from kortmiljo.records import save as save_record

            save_record(log.record(seats, event), save_to)
            stdout.write(f"game record written to {save_to}\n")

    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    try:
        with timed_moves() if move_timeout is not None else nullcontext():
            for agent in env.agent_iter():
                obs, reward, term, trunc, info = env.last()
                s = seat_of[agent]
                if term or trunc:
                    env.step(None)
                    continue
                probs = value = None
                if s == seat:
                    stdout.write("\n" + engine.render(seat) + "\n")
                    legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
                    action = choose_action(engine, legal, stdin, stdout)
                    stdout.write(f"you (player_{s}): {engine.action_to_string(action)}\n")
                else:
                    p = policies[s]
                    live = engine if p.needs_engine else None
                    at = f"move {len(engine.history) + 1} (player_{s})"
                    if save_to is not None:
                        call = partial(p.act_explained, obs, live)
                        action, probs, value = guarded_call(call, agent=names[s], where=at, timeout=move_timeout)
                    else:
                        action = guarded_act(p, obs, live, agent=names[s], where=at, timeout=move_timeout)
                    stdout.write(f"player_{s} ({printable(names[s])}): {engine.action_to_string(action)}\n")
                log.step(env, action, probs, value)
    except _Quit:
        stdout.write("game left unfinished.\n")
        save()
        return 0
    except (KeyboardInterrupt, AgentError):
        save()  # Ctrl-C, or an agent that failed: the moves so far are kept too
        raise
    _result(engine, log.rewards, [engine.info(s) for s in range(n)], seat, names, stdout)
    save()
    return 0


def play(
    game: Game | str,
    opponents: list[Any] | None = None,
    seat: int = 0,
    seed: int | None = None,
    config: dict | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    record: str | None = None,
    move_timeout: float | None = None,
) -> int:
    """One game in the terminal; returns the exit status (0 also when the person quits).

    ``opponents``: agents cycled over the other seats (default ``["heuristic"]``): specs
    (:mod:`kortmiljo.agents.registry`), Policy objects, or any object with ``act(obs)`` (wrapped);
    ``record``: a file to save the game's record in (see the module docstring); ``move_timeout``:
    the longest an agent's move may take, in seconds (None: no limit). An agent that raises, exits
    or takes longer ends the game with an :class:`~kortmiljo.core.errors.AgentError` naming it and
    the move (the record, if asked for, is saved first)."""
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
    check_output_file("--record", record)
    seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else seed
    policies, names = _opponents(g, n, seat, ["heuristic"] if opponents is None else list(opponents), seed)
    env.reset(seed=seed)
    stdout.write(f"{g.name}: you are player_{seat}; opponents: ")
    stdout.write(", ".join(f"player_{s} = {printable(names[s])}" for s in sorted(names)) + f"  (seed {seed})\n")
    log = MoveLog(engine, seed, engine.carry_in())
    return _play_on(env, seat, policies, names, stdin, stdout, log, record, {}, move_timeout)


def resume(
    path: str,
    opponents: list[Any] | None = None,
    seat: int | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    record: str | None = None,
    game: str | None = None,
    move_timeout: float | None = None,
) -> int:
    """Play the game recorded in ``path`` on from its last move (see the module docstring).

    Every problem with the file is a ``ValueError`` whose message names it."""
    from kortmiljo.records import load, restore

    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    rec = load(path)  # a RecordError (a ValueError) names the file, the move and what is wrong
    if game is not None and game != rec.game:
        raise ValueError(f"{path}: the record is a game of {rec.game}, not {game}")
    check_output_file("--record", record)
    env = restore(rec)
    engine = env.unwrapped.engine
    g = engine.game
    n = engine.num_players
    marked = [s for s in range(n) if rec.seats.get(f"player_{s}") == HUMAN]
    if seat is not None and (not is_int(seat) or not 0 <= seat < n):
        raise ValueError(f"--seat must be 0..{n - 1} for {n} players, got {seat!r}")
    you = seat if seat is not None else (marked[0] if marked else None)
    if rec.status != "unfinished":
        who = {s: rec.seats.get(f"player_{s}") or "?" for s in range(n)}
        totals = [rec.rewards[f"player_{s}"] for s in range(n)]
        infos = [rec.infos.get(f"player_{s}", {}) for s in range(n)]
        stdout.write(f"{g.name}: {path} holds a game that is over ({rec.status}, {len(rec.actions)} moves)\n")
        _result(engine, totals, infos, you, who, stdout)
        stdout.write("the game is over: nothing to play on.\n")
        return 0
    if you is None:
        raise ValueError(f"{path}: no seat of the record is marked {HUMAN!r}; give --seat to choose yours")
    seed = rec.seed if rec.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    if opponents is not None:
        policies, names = _opponents(g, n, you, list(opponents), seed)
    else:
        specs = {}
        for s in range(n):
            spec = rec.seats.get(f"player_{s}")
            if s == you:
                continue
            if spec is None or spec == HUMAN:
                who = "a person" if spec == HUMAN else "nobody"
                raise ValueError(f"{path}: player_{s} was played by {who} in the record; give --opponents")
            specs[s] = _from_record(spec, s, path)
        try:
            policies, names = _make(g, specs, seed)
        except ValueError as err:
            raise ValueError(f"{path}: {err} (give --opponents to choose others)") from None
    moves = [(a.get("phase"), a.get("trick"), a["deal"], a.get("policy"), a.get("value")) for a in rec.actions]
    log = MoveLog(engine, rec.seed, rec.carry, moves, [rec.rewards[f"player_{s}"] for s in range(n)])
    stdout.write(f"{g.name}: resumed {path} after {len(rec.actions)} moves; you are player_{you}; opponents: ")
    stdout.write(", ".join(f"player_{s} = {printable(names[s])}" for s in sorted(names)) + "\n")
    return _play_on(env, you, policies, names, stdin, stdout, log, record, rec.event, move_timeout)


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="kortmiljo play", description="Play a game against agents in the terminal.")
    p.add_argument("game", nargs="?", help=f"the game: {', '.join(game_names())} (with --resume: the record's)")
    p.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        metavar="AGENT",
        help=f"agents for the other seats, cycled (default heuristic; with --resume: the record's): {agent_help()} "
        "(see docs/agents.md)",
    )
    p.add_argument(
        "--seat",
        type=int_arg(0),
        default=None,
        help="your seat, 0 to players-1 (default 0; with --resume: the record's)",
    )
    p.add_argument("--seed", type=int_arg(0), default=None, help="seed of the deal, >= 0 (default: random)")
    add_config_option(p)
    p.add_argument(
        "--record", metavar="FILE", help="save the game as a record here when it ends or you quit (JSON, atomically)"
    )
    p.add_argument(
        "--resume",
        metavar="FILE",
        help="play on the game recorded in FILE from its last move (its game, options and cards)",
    )
    add_agent_options(p)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.game is None and args.resume is None:
        parser.error("the following arguments are required: game (or --resume FILE)")
    try:
        if args.resume is not None:
            given = (["--config"] if args.config else []) + (["--seed"] if args.seed is not None else [])
            if given:
                raise ValueError(
                    f"--resume plays on the recorded game, with its options and cards: drop {' and '.join(given)}"
                )
            return resume(
                args.resume,
                args.opponents,
                args.seat,
                record=args.record,
                game=args.game,
                move_timeout=args.move_timeout,
            )
        seat = 0 if args.seat is None else args.seat
        config = parse_options(args.config)
        return play(
            args.game, args.opponents, seat, args.seed, config, record=args.record, move_timeout=args.move_timeout
        )
    except AgentError as err:
        return agent_failed("kortmiljo play", err, args.debug)
    except ValueError as err:
        return fail("kortmiljo play", err)


if __name__ == "__main__":
    sys.exit(main())
