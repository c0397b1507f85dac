"""The ``kortmiljo`` command: ``eval``, ``play``, ``train``, ``replay``, ``serve``, ``benchmark``,
``leaderboard`` and ``export`` subcommands.

Each subcommand lives with its code (:mod:`kortmiljo.agents`, :mod:`kortmiljo.train`); this file
only dispatches, so ``kortmiljo --help`` stays fast and light, and holds what every subcommand's
command line shares:

* **One-line errors.** Bad input (an unknown game or agent, a bad ``--config``, a value out of
  range, a path that cannot be used) ends a command with one line on stderr that names what was
  wrong and what is allowed, and exit status 2: :class:`ArgumentParser`, :func:`int_arg` (ASCII
  digits only), :func:`seat_arg`, :func:`check_output_file`, :func:`fail` (which escapes control
  characters, :func:`kortmiljo.core.errors.printable`).
* **Agents' failures.** ``eval``, ``benchmark`` and ``play`` take ``--move-timeout`` and
  ``--debug`` (:func:`add_agent_options`); an agent that raises, exits or hangs on a move ends the
  command with one line naming the agent and the move, exit status 2 (:func:`agent_failed`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import traceback
from importlib import import_module
from pathlib import Path

from .core.errors import printable

COMMANDS = {
    "eval": ("kortmiljo.agents.tournament", "duplicate-deal tournament between agents, with confidence intervals"),
    "play": ("kortmiljo.agents.play", "play a game against agents in the terminal"),
    "train": ("kortmiljo.train.cli", "train a MaskablePPO agent with self-play"),
    "replay": ("kortmiljo.records.cli", "print a game record as text, as a seat saw it or open"),
    "serve": ("kortmiljo.agents.serve", "the web app: play against the agents and watch replays in a browser"),
    "benchmark": (
        "kortmiljo.agents.benchmark",
        "the fixed, versioned strength benchmark of an agent against the pool",
    ),
    "leaderboard": (
        "kortmiljo.agents.leaderboard",
        "rank a leaderboard file's benchmark results (openskill)",
    ),
    "export": ("kortmiljo.agents.export", "convert a trained ppo model into the package's safe .npz weights format"),
}
# the pip extra a subcommand needs beyond the core dependencies
EXTRAS = {"train": "train", "serve": "web", "export": "train"}


# ---- what every subcommand's command line shares -----------------------------------------------
class ArgumentParser(argparse.ArgumentParser):
    """``argparse`` whose errors are one line (``kortmiljo eval: argument --games: …``), exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


_ASCII_INT = re.compile(r"-?[0-9]{1,30}")  # int() would also take '١٢', ' 12', '1_2' and 4,300 digits


def _shown(text: str) -> str:
    """``text`` for an error message: quoted, escaped, and cut short if long."""
    return repr(text if len(text) <= 40 else text[:40] + "…")


def _digits_hint(text: str) -> str:
    return " (digits 0-9 only)" if any(c.isdigit() and not c.isascii() for c in text) else ""


def int_arg(lo: int, hi: int | None = None):
    """An argparse ``type``: an int in ``lo..hi``, written in the ASCII digits 0-9 (``int()`` also
    takes other scripts' digits, such as ``١``, and ``1_000``); argparse names the option in the error."""
    words = f"an int from {lo:,} to {hi:,}" if hi is not None else f"an int >= {lo}"

    def parse(text: str) -> int:
        value = int(text) if _ASCII_INT.fullmatch(text) else None
        if value is None or value < lo or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"expected {words}, got {_shown(text)}{_digits_hint(text)}")
        return value

    return parse


def seat_arg(text: str) -> int:
    """An argparse ``type``: a seat, ``player_K`` or ``K``, in the ASCII digits 0-9. The number of
    seats is the game's, so the range is checked later, by what takes the seat."""
    m = re.fullmatch(r"(?:player_)?([0-9]{1,3})", text)
    if m is None:
        raise argparse.ArgumentTypeError(
            f"expected a seat, player_K or K (K = 0, 1, …, in digits 0-9), got {_shown(text)}{_digits_hint(text)}"
        )
    return int(m.group(1))


MAX_MOVE_TIMEOUT = 86_400.0  # a day: a longer limit is a typo, and "none" switches the limit off


def move_timeout_arg(text: str) -> float | None:
    """An argparse ``type``: ``--move-timeout``'s seconds (``2``, ``0.5``) up to a day, or ``0`` or
    ``none`` for no limit (None)."""
    t = text.strip().lower()
    if t == "none":
        return None
    value = float(t) if re.fullmatch(r"[0-9]{1,6}(?:\.[0-9]{0,6})?|\.[0-9]{1,6}", t) else None
    if value is None or value > MAX_MOVE_TIMEOUT:
        raise argparse.ArgumentTypeError(
            f"expected seconds from 0 to {MAX_MOVE_TIMEOUT:,.0f} (0 or none: no limit), "
            f"got {_shown(text)}{_digits_hint(text)}"
        )
    return value or None


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    """``--move-timeout SECONDS`` and ``--debug``, for the commands whose agents make moves (see
    :mod:`kortmiljo.core.guard`): an agent that raises, exits or runs past the time limit on a move
    ends the command with one line naming the agent and the move, and exit status 2."""
    from .core.guard import DEFAULT_MOVE_TIMEOUT

    parser.add_argument(
        "--move-timeout",
        type=move_timeout_arg,
        default=DEFAULT_MOVE_TIMEOUT,
        metavar="SECONDS",
        help=f"the longest an agent may take over one move (default {DEFAULT_MOVE_TIMEOUT:g}; 0 or none: no limit); "
        "an agent that takes longer, raises or exits ends the command with one line naming it and the move",
    )
    parser.add_argument("--debug", action="store_true", help="with an agent's failure, print its traceback too")


def agent_failed(prog: str, err: BaseException, debug: bool = False) -> int:
    """An agent's failure (:class:`~kortmiljo.core.errors.AgentError`) as one line on stderr, after
    its traceback with ``debug``; exit status 2."""
    if debug:
        trace = getattr(err, "trace", None) or "".join(traceback.format_exception(type(err), err, err.__traceback__))
        sys.stderr.write(trace if trace.endswith("\n") else trace + "\n")
    return fail(prog, err)


def add_config_option(parser: argparse.ArgumentParser) -> None:
    """``--config KEY=VALUE …`` (repeatable), read by :func:`kortmiljo.core.options.parse_options`."""
    parser.add_argument(
        "--config",
        nargs="+",
        action="extend",
        default=[],
        metavar="KEY=VALUE",
        help="game options, e.g. num_players=3 exchange_quota=5,4,3",
    )


def check_output_file(option: str, path: str | None) -> None:
    """Refuse, before any work is done, an output file that could not be written at the end:
    a directory, a path below a file, or a folder without write permission (``ValueError``)."""
    if path is None:
        return
    p = Path(path).expanduser().absolute()
    if p.is_dir():
        raise ValueError(f"{option} {path!r} is a directory; give the path of a file to write")
    folder = p.parent
    while not folder.exists():  # the missing folders are made when the file is written
        folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"{option} {path!r} cannot be written: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path!r} cannot be written: no permission to write in {folder}")


def fail(prog: str, err: BaseException | str, status: int = 2) -> int:
    """Print ``prog: message`` as one line on stderr and return ``status``."""
    message = printable(" ".join(str(err).split()))  # a name from a file or an agent: no escapes reach the terminal
    print(f"{prog}: {message}", file=sys.stderr)
    return status


# ---- the dispatcher ------------------------------------------------------------------------------
def usage() -> str:
    names = ",".join(COMMANDS)
    lines = [f"usage: kortmiljo {{{names}}} ARGS [options]   (kortmiljo COMMAND --help for details)", ""]
    width = max(map(len, COMMANDS))
    lines += [f"  {name:{width}} {text}" for name, (_, text) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    if argv[0] == "--version":
        from . import __version__

        print(f"kortmiljo {__version__}")
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd not in COMMANDS:
        return fail("kortmiljo", f"unknown command {cmd!r}; commands: {', '.join(COMMANDS)} (see kortmiljo --help)")
    try:
        module = import_module(COMMANDS[cmd][0])
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] == "kortmiljo":
            raise  # our own code is missing: a broken installation, not missing extras
        extra = EXTRAS.get(cmd)
        hint = f"pip install 'kortmiljo[{extra}]'" if extra else "reinstall kortmiljo"
        return fail(f"kortmiljo {cmd}", f"needs the package {err.name!r}, which is not installed ({hint})", 1)
    try:
        return int(module.main(rest) or 0)
    except SystemExit as exit_:  # argparse's --help and errors: a status for in-process callers too
        code = exit_.code
        if code is None or isinstance(code, int):
            return code or 0
        return fail(f"kortmiljo {cmd}", code, 1)
    except KeyboardInterrupt:
        return fail(f"kortmiljo {cmd}", "interrupted", 130)


if __name__ == "__main__":
    sys.exit(main())
