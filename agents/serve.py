"""``kortmiljo serve [--host 127.0.0.1] [--port 8000] [--records DIR]`` and the limits of docs/web.md.

Starts the web app (docs/web.md; :func:`kortmiljo.server.create_app`) on uvicorn: play against
the agents in a browser, watch the records of ``--records DIR`` and uploaded ones. The opponents
and hints are the agents of :func:`kortmiljo.agents.registry.make_agent`, by the names a request may use:
``random``, ``heuristic``, ``search`` and their versioned names (``heuristic_v0``, ``search_v0``);
trained models (``ppo:PATH``) are not offered, since a request must never name a file.

Every limit of the server has a flag (``--max-games``, ``--max-games-per-session``,
``--max-games-per-client``, ``--max-connections``, ``--max-connections-per-client``,
``--read-timeout``, ``--idle-timeout``, ``--move-pad``, ``--move-timeout``), with the defaults of
docs/web.md's "Security model". It binds to localhost unless told otherwise; bound to a loopback
address it answers only requests whose ``Host`` is a loopback name (against DNS rebinding). Needs
the extra ``kortmiljo[web]`` (starlette, uvicorn).
"""

from __future__ import annotations

import argparse
import sys

from kortmiljo.cli import EXTRAS, ArgumentParser, fail, int_arg
from kortmiljo.core.guard import DEFAULT_MOVE_TIMEOUT
from kortmiljo.core.registry import game_names
from kortmiljo.server.serving import DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PER_CLIENT, DEFAULT_READ_TIMEOUT

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


def seconds(lo: float, hi: float, zero: bool = False):
    """An argparse type: a number of seconds in ``lo..hi`` written in ASCII (0 allowed if ``zero``)."""

    def parse(text: str) -> float:
        value = None
        if text.isascii() and len(text) <= 20:
            try:
                value = float(text)
            except ValueError:
                pass
        if value is None or not (lo <= value <= hi) or (value == 0 and not zero) or value != value:
            least = f"from {lo:g}" if zero else f"over {lo:g}"
            raise argparse.ArgumentTypeError(f"expected a number of seconds {least} up to {hi:g}, got {text[:30]!r}")
        return value

    return parse


positive_float = seconds(0, 7 * 24 * 3600)


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="kortmiljo serve", description="The web app: play against the agents, watch replays.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int_arg(0, 65535), default=8000, help="port (default 8000)")
    p.add_argument("--records", metavar="DIR", default=None, help="a folder of record files (*.json, *.jsonl) to watch")
    p.add_argument(
        "--idle-timeout", type=positive_float, default=1800.0, metavar="S", help="stop a game idle this long (1800)"
    )
    p.add_argument(
        "--max-games", type=int_arg(1, 1_000_000), default=1000, metavar="N", help="games held at most (1000)"
    )
    p.add_argument(
        "--max-games-per-session", type=int_arg(1, 10_000), default=8, metavar="N", help="games of one session (8)"
    )
    p.add_argument(
        "--max-games-per-client", type=int_arg(1, 1_000_000), default=64, metavar="N",
        help="games of one client address (64; behind a proxy every client has the proxy's address)",
    )  # fmt: skip
    p.add_argument(
        "--max-connections", type=int_arg(1, 1_000_000), default=DEFAULT_MAX_CONNECTIONS, metavar="N",
        help=f"open connections at most ({DEFAULT_MAX_CONNECTIONS}); keep it under `ulimit -n`",
    )  # fmt: skip
    p.add_argument(
        "--max-connections-per-client", type=int_arg(1, 1_000_000), default=DEFAULT_MAX_PER_CLIENT, metavar="N",
        help=f"open connections of one client address ({DEFAULT_MAX_PER_CLIENT})",
    )  # fmt: skip
    p.add_argument(
        "--read-timeout", type=seconds(0, 3600), default=DEFAULT_READ_TIMEOUT, metavar="S",
        help=f"seconds a request's head may take to arrive, and its body ({DEFAULT_READ_TIMEOUT:g})",
    )  # fmt: skip
    p.add_argument(
        "--move-pad", type=seconds(0, 60, zero=True), default=0.5, metavar="S",
        help="seconds each opponent move takes at least, so that timing shows no forced move (0.5)",
    )  # fmt: skip
    p.add_argument(
        "--move-timeout", type=seconds(0, 3600), default=DEFAULT_MOVE_TIMEOUT, metavar="S",
        help=f"seconds an agent may think on one move before its game is stopped ({DEFAULT_MOVE_TIMEOUT:g})",
    )  # fmt: skip
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import uvicorn

        from kortmiljo.server import create_app, serving
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] == "kortmiljo":
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
            max_games_per_session=args.max_games_per_session,
            max_games_per_client=args.max_games_per_client,
            idle_timeout=args.idle_timeout,
            allowed_hosts=list(LOOPBACK) if loopback else None,
            move_pad=args.move_pad,
            move_timeout=args.move_timeout,
            read_timeout=args.read_timeout,
        )
        config = serving.config(
            app,
            args.host,
            args.port,
            max_connections=args.max_connections,
            max_per_client=args.max_connections_per_client,
            read_timeout=args.read_timeout,
        )
    except ValueError as err:
        return fail("kortmiljo serve", err)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"kortmiljo serve: http://{shown}:{args.port}/  (Ctrl-C stops)", flush=True)
    uvicorn.Server(config).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
