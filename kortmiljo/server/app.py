"""The web app (docs/web.md): ``create_app(agent_factory=..., records_dir=...)`` → a Starlette app.

Routes (every answer JSON, every error ``{"error": ...}`` with a 4xx or 5xx status):

========================================  =================================================
``GET  /api/catalog``                     the games, their options, the agents
``POST /api/games``                       start a game (201, its view)
``GET  /api/games/{id}``                  the view
``POST /api/games/{id}/actions``          the human's move, then the opponents' (409: illegal)
``GET  /api/games/{id}/hint?agent=``      an agent's policy for the human's move
``GET  /api/games/{id}/record``           redacted while the game runs, full once it ended
``GET  /api/records``                     the records of ``--records DIR``
``GET  /api/records/{name}``              one of them (listed names only)
``POST /api/replays``                     upload a record for this session (201 ``{"name"}``)
``GET  /api/replays/{name}/step/{k}``     the position after move k (``?seat=player_1``)
``/``                                     the page (``kortmiljo/server/static/``)
========================================  =================================================

Security (docs/web.md, "Security model", lists every limit and the test of each promise): a
``kortmiljo_session`` cookie (random, HttpOnly, SameSite=Strict; only ids this server issued are
accepted), set only by a client's first game or upload, binds games and uploads to the session
that made them, and another session gets 404 exactly as for an unknown id; game ids are 128-bit
random, and an unseeded game draws 128 bits; a session holds at most ``max_games_per_session``
games, a client address ``max_games_per_client``, and only idle games and sessions give way; a
body over 64 KiB (a record upload over 4 MiB) is refused with 413 from its ``Content-Length`` or
while it streams, before anything parses it, and one that takes longer than ``read_timeout`` with
408; POST bodies must be ``application/json`` (415 otherwise: a cross-site form cannot send it)
and bounded JSON (:mod:`kortmiljo.core.jsonsafe`); every field is checked before a game is
created; what the human is shown (view, record, hints, errors, headers) depends only on what the
human's seat saw, and the opponents' moves are paced (:class:`~kortmiljo.server.routes.Pacing`) so that timing does not
tell a forced move; an opponent that fails or thinks past ``move_timeout`` stops its game with an
error naming it; an unexpected failure answers 500 ``internal error`` and nothing of the engine.
An optional ``allowed_hosts`` refuses other ``Host`` headers (the CLI sets it for a loopback
bind, against DNS rebinding). The game work runs in the thread pool, under each game's lock, so
one slow agent never stalls the event loop. Connection bounds and read timeouts are the server's
(:mod:`kortmiljo.server.serving`).

The modules: :mod:`.requests` reads requests (bounded bodies, the fields of a new game),
:mod:`.routes` answers them, :mod:`.sessions` holds the games and sessions, :mod:`.views` makes
the JSON, and this one puts them together behind :class:`Guard`. Starlette is imported only when
:func:`create_app` is called (the extra ``kortmiljo[web]``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..core.guard import DEFAULT_MOVE_TIMEOUT
from .replays import LogCache, RecordsDir
from .requests import COOKIE, MAX_BODY, MAX_UPLOAD, SESSION_KEY, build_game, dumps, random_only, read_body
from .sessions import ApiError, GameStore, SessionStore

STATIC = Path(__file__).with_name("static")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"content-security-policy", CSP.encode()),
]


# ---- the ASGI layer around the routes ---------------------------------------------------------------------
def _cookies(headers: list[tuple[bytes, bytes]]) -> list[str]:
    """Every value of the session cookie sent (a browser may send two of one name)."""
    out = []
    for k, v in headers:
        if k == b"cookie":
            for part in v.decode("latin-1").split(";"):
                name, _, value = part.strip().partition("=")
                if name == COOKIE and value:
                    out.append(value)
    return out


def _host(headers: list[tuple[bytes, bytes]]) -> str:
    for k, v in headers:
        if k == b"host":
            h = v.decode("latin-1").strip().lower()
            if h.startswith("["):
                return h[: h.find("]") + 1] if "]" in h else h
            return h.split(":")[0]
    return ""


class Guard:
    """Pure ASGI middleware: the ``Host`` check, the security headers, and the session of the
    cookie (``scope[SESSION_KEY]``, None without one: a session is created only by a request that
    starts a game or uploads a record, which sets the cookie). No header depends on the game."""

    def __init__(self, app, sessions: SessionStore, allowed_hosts: Sequence[str] | None):
        self.app = app
        self.sessions = sessions
        self.allowed = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = scope.get("headers", [])
        extra = list(SECURITY_HEADERS)
        if self.allowed is not None and "*" not in self.allowed and _host(headers) not in self.allowed:
            body = dumps({"error": "this server answers only for " + ", ".join(sorted(self.allowed))})
            await send(
                {
                    "type": "http.response.start",
                    "status": 400,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
                    + extra,
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        cookies = _cookies(headers)
        scope[SESSION_KEY] = self.sessions.get(cookies) if cookies else None
        if scope.get("path", "").startswith("/api/"):
            extra.append((b"cache-control", b"no-store"))

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


# ---- the app ----------------------------------------------------------------------------------------------
def create_app(
    agent_factory: Callable | None = None,
    records_dir: str | None = None,
    *,
    agents: Sequence[str] | None = None,
    max_games: int = 1000,
    max_games_per_session: int = 8,
    max_games_per_client: int = 64,
    idle_timeout: float = 1800.0,
    idle_after: float = 60.0,
    max_sessions: int = 10_000,
    max_uploads: int = 16,
    allowed_hosts: Sequence[str] | None = None,
    clock: Callable[[], float] = time.monotonic,
    static_dir: str | None = None,
    move_pad: float = 0.5,
    move_timeout: float | None = DEFAULT_MOVE_TIMEOUT,
    read_timeout: float = 10.0,
):
    """The web app (see the module docstring and docs/web.md, whose "Security model" lists every
    limit).

    ``agent_factory(spec, game, seed)`` builds the opponents and the hint agents (default: only
    ``random``); ``agents`` are the names a request may ask for (default ``random``, ``heuristic``,
    ``search`` with a factory, ``random`` without); ``records_dir`` is the folder of
    ``GET /api/records``. ``max_games``, ``max_games_per_session``, ``max_games_per_client`` (per
    client address), ``idle_timeout`` and ``idle_after`` bound the games
    (:class:`~kortmiljo.server.sessions.GameStore`), ``max_sessions`` the sessions;
    ``allowed_hosts`` the ``Host`` headers answered (None: any). ``move_pad``: the seconds each
    opponent move takes at least, as the human sees it (:class:`~kortmiljo.server.routes.Pacing`); ``move_timeout``: the
    seconds an agent may think on one move (None: no limit); ``read_timeout``: the seconds a
    request body may take to arrive. ``app.state.games`` is the store, ``app.state.sessions`` the
    sessions, ``app.state.pacing`` the pacing.
    """
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from .routes import Pacing, answer, game_routes, replay_routes

    factory = agent_factory or random_only
    names = list(agents) if agents is not None else (["random", "heuristic", "search"] if agent_factory else ["random"])
    if not names:
        raise ValueError("agents must name at least one agent")
    if move_timeout is not None and not move_timeout > 0:
        raise ValueError(f"move_timeout must be a number of seconds > 0 or None, got {move_timeout!r}")
    if not read_timeout > 0:
        raise ValueError(f"read_timeout must be a number of seconds > 0, got {read_timeout!r}")
    pacing = Pacing(move_pad)
    store = GameStore(
        max_games=max_games,
        idle_timeout=idle_timeout,
        idle_after=idle_after,
        clock=clock,
        per_session=max_games_per_session,
        per_client=max_games_per_client,
    )
    sessions = SessionStore(
        idle_timeout=idle_timeout,
        max_sessions=max_sessions,
        max_uploads=max_uploads,
        clock=clock,
        idle_after=idle_after,
        busy=store.owns_any,
    )
    records = RecordsDir(records_dir) if records_dir is not None else None
    logs = LogCache()

    async def api_not_found(request: Request) -> Response:
        raise ApiError(404, f"no such API route for {request.method} (the routes: docs/web.md)")

    # -- errors --
    async def api_error(request: Request, exc: ApiError) -> Response:
        return answer({"error": exc.message, **exc.extra}, exc.status)

    async def http_error(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/") or exc.status_code != 404:
            return answer({"error": str(exc.detail)}, exc.status_code)
        return Response(str(exc.detail), status_code=exc.status_code, media_type="text/plain")

    async def internal_error(request: Request, exc: Exception) -> Response:
        return answer({"error": "internal error"}, 500)

    folder = Path(static_dir) if static_dir is not None else STATIC
    routes = [
        *game_routes(store, sessions, pacing, names, factory, clock, move_timeout, read_timeout),
        *replay_routes(records, logs, sessions, read_timeout),
        Route("/api/{rest:path}", api_not_found, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
        Mount("/", app=StaticFiles(directory=folder, html=True, check_dir=False), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={ApiError: api_error, HTTPException: http_error, Exception: internal_error},
    )
    app.state.games = store
    app.state.sessions = sessions
    app.state.pacing = pacing
    app.state.agents = names
    app.add_middleware(Guard, sessions=sessions, allowed_hosts=allowed_hosts)
    return app


__all__ = ["COOKIE", "MAX_BODY", "MAX_UPLOAD", "build_game", "create_app", "read_body"]
