"""``kortmiljo serve [--host 127.0.0.1] [--port 8000] [--records DIR] [--idle-timeout S] [--max-games N]``.

Starts the web app (docs/web.md; :func:`kortmiljo.server.create_app`) on uvicorn: play against
the agents in a browser, watch the records of ``--records DIR`` and uploaded ones. The opponents
and hints are the agents of :func:`agents.registry.make_agent`, by the names a request may use:
``random``, ``heuristic``, ``search`` and their versioned names (``heuristic_v0``, ``search_v0``);
trained models (``ppo:PATH``) are not offered, since a request must never name a file.

It binds to localhost unless told otherwise; bound to a loopback address it answers only requests
whose ``Host`` is a loopback name (against DNS rebinding). Needs the extra ``kortmiljo[web]``
(starlette, uvicorn).
"""

from __future__ import annotations

import argparse
import sys

from kortmiljo.cli import EXTRAS, ArgumentParser, fail, int_arg
from kortmiljo.core.registry import game_names

from .registry import available_agents, make_agent

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def agent_factory(spec: str, game, seed: int | None):
    """The server's agents: :func:`make_agent` by name."""
    return make_agent(spec, game, seed=seed)


def web_agents() -> list[str]:
    """The agent names a web request may ask for: every game's, except those that name a file."""
    names: list[str] = []
    for g in game_names():
        for a in available_agents(g):
            if ":" not in a and a not in names:
                names.append(a)
    first = [a for a in ("random", "heuristic", "search") if a in names]
    return first + [a for a in names if a not in first]


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="kortmiljo serve", description="The web app: play against the agents, watch replays.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int_arg(0, 65535), default=8000, help="port (default 8000)")
    p.add_argument("--records", metavar="DIR", default=None, help="a folder of record files (*.json, *.jsonl) to watch")
    p.add_argument(
        "--idle-timeout", type=positive_float, default=1800.0, metavar="S", help="stop a game idle this long (1800)"
    )
    p.add_argument("--max-games", type=int_arg(1), default=1000, metavar="N", help="games held at most (1000)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import uvicorn

        from kortmiljo.server import create_app
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] in ("kortmiljo", "agents"):
            raise
        hint = f"pip install 'kortmiljo[{EXTRAS.get('serve', 'web')}]'"
        return fail("kortmiljo serve", f"needs the package {err.name!r}, which is not installed ({hint})", 1)
    loopback = args.host.lower() in LOOPBACK
    try:
        app = create_app(
            agent_factory=agent_factory,
            records_dir=args.records,
            agents=web_agents(),
            max_games=args.max_games,
            idle_timeout=args.idle_timeout,
            allowed_hosts=list(LOOPBACK) if loopback else None,
        )
    except ValueError as err:
        return fail("kortmiljo serve", err)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"kortmiljo serve: http://{shown}:{args.port}/  (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", server_header=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
