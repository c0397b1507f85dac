"""The ``kortmiljo`` command: ``eval``, ``play`` and ``train`` subcommands.

Each subcommand lives with its code (agents/, train/); this file only dispatches,
so ``kortmiljo --help`` stays fast and light.
"""

from __future__ import annotations

import sys
from importlib import import_module

COMMANDS = {
    "eval": ("agents.tournament", "duplicate-deal tournament between agents, with confidence intervals"),
    "play": ("agents.play", "play a game against agents in the terminal"),
    "train": ("train.cli", "train a MaskablePPO agent with self-play"),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: kortmiljo {eval,play,train} GAME [options]   (kortmiljo COMMAND --help for details)\n")
        for name, (_, text) in COMMANDS.items():
            print(f"  {name:6} {text}")
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd not in COMMANDS:
        print(f"kortmiljo: unknown command {cmd!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    return int(import_module(COMMANDS[cmd][0]).main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
