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
human's seat saw, and the opponents' moves are paced (:class:`Pacing`) so that timing does not
tell a forced move; an opponent that fails or thinks past ``move_timeout`` stops its game with an
error naming it; an unexpected failure answers 500 ``internal error`` and nothing of the engine.
An optional ``allowed_hosts`` refuses other ``Host`` headers (the CLI sets it for a loopback
bind, against DNS rebinding). The game work runs in the thread pool, under each game's lock, so
one slow agent never stalls the event loop. Connection bounds and read timeouts are the server's
(:mod:`kortmiljo.server.serving`).

Starlette is imported here only, when :func:`create_app` is called (the extra ``kortmiljo[web]``).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core import jsonsafe
from ..core.errors import ConfigError
from ..core.guard import DEFAULT_MOVE_TIMEOUT
from ..core.options import is_int, short_repr
from ..core.policy import RandomPolicy
from ..core.registry import games
from ..records import RecordError, loads
from ..records.redact import seat_index
from .replays import LogCache, RecordsDir
from .sessions import ApiError, GameSession, GameStore, SessionStore, StoreFull
from .views import catalog, game_view, replay_step

COOKIE = "kortmiljo_session"
MAX_BODY = 64 * 1024
MAX_UPLOAD = 4 * 1024 * 1024
MAX_SEED = 2**63 - 1
DEAL_ENTROPY_BITS = 128  # an unseeded game's seed: secrets.randbits(128)
STATIC = Path(__file__).with_name("static")
SESSION_KEY = "kortmiljo.session"
GAME_FIELDS = ("game", "config", "seat", "opponents", "seed", "dealer", "deck")

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


def random_only(spec: str, game, seed: int | None):
    """The agent factory of a server started without one: only ``random``."""
    if spec != "random":
        raise ValueError(f"unknown agent {spec!r}; this server plays only: random")
    return RandomPolicy(game, seed)


def dumps(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


# ---- request bodies -------------------------------------------------------------------------------
def parse_json(body: bytes) -> Any:
    """Strict, bounded JSON (:func:`kortmiljo.core.jsonsafe.loads`): UTF-8, no NaN or Infinity, no
    key twice in an object, at most 32 levels deep, integers of at most 40 digits (400 otherwise)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "the body is not UTF-8 text") from None
    try:
        return jsonsafe.loads(text, what="the body")
    except ValueError as err:
        raise ApiError(400, str(err)) from None


async def read_body(request, limit: int, timeout: float | None = None) -> bytes:
    """The body, at most ``limit`` bytes (413 from Content-Length, or as soon as the stream passes
    it), of a request that says it is ``application/json`` (415 otherwise), whole within
    ``timeout`` seconds (408 otherwise; None: no limit)."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise ApiError(
            415, f"the body must be JSON, sent with Content-Type: application/json (got {ctype or 'none'!r})"
        )
    length = request.headers.get("content-length")
    if length is not None:
        length = length.strip()
        if not (length.isascii() and length.isdigit()) or len(length) > 18:
            raise ApiError(400, "Content-Length must be a number of bytes")
        if int(length) > limit:
            raise ApiError(413, f"the body is {int(length):,} bytes; at most {limit:,} are allowed")
    import anyio

    body = bytearray()
    try:
        with anyio.fail_after(timeout):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise ApiError(413, f"the body is larger than the {limit:,} bytes allowed")
    except TimeoutError:
        raise ApiError(408, f"the body did not arrive within {timeout:g} s") from None
    return bytes(body)


# ---- starting a game ---------------------------------------------------------------------------------
def _seat(value: Any, n: int, field: str = "seat") -> int:
    s = value
    if isinstance(s, str) and s.startswith("player_") and 0 < len(s) - 7 <= 3 and s[7:].isascii() and s[7:].isdigit():
        s = int(s[7:])
    if not is_int(s) or not 0 <= s < n:
        shown = short_repr(value)
        raise ApiError(422, f"{field}: must be one of player_0..player_{n - 1} (or 0..{n - 1}), got {shown}")
    return int(s)


def build_game(
    doc: Any,
    agents: Sequence[str],
    factory: Callable,
    owner: str | None,
    clock: Callable[[], float],
    **session: Any,
) -> GameSession:
    """A new game from the body of ``POST /api/games``: every field is checked first (422 naming
    the field and what is allowed), and nothing is kept of a refused one. ``session``: more
    keywords of :class:`GameSession` (``client``, ``move_timeout``)."""
    if not isinstance(doc, dict):
        raise ApiError(400, f"the body must be a JSON object with the fields {', '.join(GAME_FIELDS)}")
    unknown = sorted(k for k in doc if k not in GAME_FIELDS)
    if unknown:
        raise ApiError(
            422, f"unknown field(s) {', '.join(map(repr, unknown))}; the fields are {', '.join(GAME_FIELDS)}"
        )
    defs = games()
    name = doc.get("game")
    if not isinstance(name, str) or name not in defs:
        if name is None:
            what = "is required"
        elif isinstance(name, str):
            what = f"{name[:40]!r} is not a game"
        else:
            what = "must be a string"
        raise ApiError(422, f"game: {what}; games: {', '.join(defs)}")
    config = doc.get("config")
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ApiError(422, 'config: must be an object of option names to values, such as {"num_players": 3}')
    try:
        game = defs[name].configure(**config)
    except (ConfigError, ValueError, TypeError) as err:
        raise ApiError(422, f"config: {err}") from None
    n = game.num_players
    seat = _seat(doc.get("seat", 0), n)
    default = "heuristic" if "heuristic" in agents else agents[0]
    opponents = doc.get("opponents", [default])
    if isinstance(opponents, str):
        opponents = [opponents]
    if not isinstance(opponents, list) or not all(isinstance(x, str) for x in opponents):
        raise ApiError(422, f"opponents: must be a list of agent names (agents: {', '.join(agents)})")
    if len(opponents) not in (1, n - 1):
        raise ApiError(
            422,
            f"opponents: {name} with {n} players has {n - 1} other seat{'s' if n > 2 else ''}; give one agent "
            f"for each ({n - 1}) or one for all, not {len(opponents)}",
        )
    for i, spec in enumerate(opponents):
        if spec not in agents:
            shown = spec if len(spec) <= 40 else spec[:40] + "…"
            raise ApiError(422, f"opponents[{i}]: unknown agent {shown!r}; agents: {', '.join(agents)}")
    seed = doc.get("seed")
    if seed is None:  # 128 bits from the OS: the human's own cards must not pin the deal down
        seed, agent_seed = secrets.randbits(DEAL_ENTROPY_BITS), secrets.randbits(62)
    elif not is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise ApiError(
            422, f"seed: must be an int from 0 to {MAX_SEED} or null (a random deal), got {short_repr(seed)}"
        )
    else:
        agent_seed = seed  # a given seed replays the game exactly, the agents' choices included
    options: dict[str, Any] = {}
    state = game.new_state()
    dealer = doc.get("dealer")
    if dealer is not None:
        try:
            state.check_episode(dealer=dealer)
        except ValueError as err:
            raise ApiError(422, f"dealer: {err}") from None
        options["dealer"] = dealer
    deck = doc.get("deck")
    if deck is not None:
        if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
            raise ApiError(422, 'deck: must be a list of card codes, top card first, e.g. ["8S", "JH", ...]')
        try:
            state.check_episode(deck=deck)
        except ValueError as err:
            raise ApiError(422, f"deck: {err}") from None
        options["deck"] = deck
    others = [s for s in range(n) if s != seat]
    policies = {}
    for j, s in enumerate(others):
        spec = opponents[j % len(opponents)]
        try:
            policies[s] = (spec, factory(spec, game, agent_seed + 1 + s))
        except ValueError as err:
            raise ApiError(422, f"opponents: {err}") from None
    try:
        return GameSession(
            game, seat, policies, seed, options, owner=owner, clock=clock, agent_seed=agent_seed, **session
        )
    except (ValueError, TypeError) as err:
        raise ApiError(422, f"the game cannot start: {err}") from None


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


def set_cookie(response, session) -> None:
    response.headers.append("set-cookie", f"{COOKIE}={session.id}; Path=/; HttpOnly; SameSite=Strict")


class Pacing:
    """The pace of the opponents' moves (docs/web.md, "Security model"): an answer that follows
    opponent moves goes out no sooner than ``pad`` seconds a move after its work began, so that
    its timing tells how many moves were made (which the log shows anyway), not how long an agent
    thought (a forced move is quick). ``overruns`` counts answers whose work took longer than
    that; raise ``pad`` if it grows."""

    def __init__(self, pad: float):
        if not (isinstance(pad, (int, float)) and 0 <= pad <= 60):
            raise ValueError(f"move_pad must be a number of seconds from 0 to 60, got {pad!r}")
        self.pad = float(pad)
        self.answers = self.overruns = 0
        self.now: Callable[[], float] = time.monotonic  # the clock and the sleep: tests replace them
        self.sleep: Callable[[float], Any] | None = None  # None: anyio.sleep

    def note(self, g: GameSession, began: float, moves: int) -> None:
        """Set when ``g``'s answers may go out: ``pad`` a move after ``began`` (under ``g``'s lock)."""
        ready = began + self.pad * moves
        self.answers += 1
        if moves and self.now() > ready:
            self.overruns += 1
        g.ready_at = max(g.ready_at, ready)

    async def wait(self, g: GameSession) -> None:
        """Sleep until ``g``'s answers may go out (every answer about a game waits, so that a
        second request cannot see the work end sooner)."""
        import anyio

        delay = g.ready_at - self.now()
        if delay > 0:
            await (self.sleep or anyio.sleep)(delay)


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
    opponent move takes at least, as the human sees it (:class:`Pacing`); ``move_timeout``: the
    seconds an agent may think on one move (None: no limit); ``read_timeout``: the seconds a
    request body may take to arrive. ``app.state.games`` is the store, ``app.state.sessions`` the
    sessions, ``app.state.pacing`` the pacing.
    """
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

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

    def answer(data: Any, status: int = 200) -> Response:
        body = data if isinstance(data, bytes) else dumps(data)
        return Response(body, status_code=status, media_type="application/json")

    def session_of(request: Request):
        return request.scope[SESSION_KEY]

    def client_of(request: Request) -> str | None:
        return request.client.host if request.client is not None else None

    def game_of(request: Request) -> GameSession:
        session = session_of(request)
        g = store.get(request.path_params["game_id"], session.id if session is not None else None)
        if g is None:
            raise ApiError(
                404,
                "no such game: the id is unknown, the game was stopped after being idle, it is not yours, or the "
                "server was restarted (games live in its memory only)",
            )
        return g

    def view_bytes(g: GameSession) -> bytes:
        with g.lock:
            return dumps(game_view(g))

    async def paced(g: GameSession, work: Callable[[], Any]) -> Any:
        """``work()`` in the thread pool, answered no sooner than the game's pace allows."""
        try:
            return await run_in_threadpool(work)
        finally:
            await pacing.wait(g)

    # -- games --
    async def get_catalog(request: Request) -> Response:
        return answer(catalog(games().values(), names))

    async def new_game(request: Request) -> Response:
        doc = parse_json(await read_body(request, MAX_BODY, read_timeout))
        session = session_of(request)
        client = client_of(request)
        owner = session.id if session is not None else None
        try:  # before any work; add() checks again
            store.check_room(owner, client)
        except StoreFull as err:
            raise ApiError(err.status, str(err)) from None
        began = pacing.now()

        def work():
            g = build_game(doc, names, factory, owner, clock, client=client, move_timeout=move_timeout)
            with g.lock:
                pacing.note(g, began, g.opponent_moves)
            return g, view_bytes(g)

        g, body = await run_in_threadpool(work)
        created = session is None  # a session only for a game that started: a refused one makes none
        try:
            if created:
                session = sessions.create()
                g.owner = session.id
            store.add(g)
        except StoreFull as err:
            raise ApiError(err.status, str(err)) from None
        await pacing.wait(g)
        response = answer(body, 201)
        if created:
            set_cookie(response, session)
        return response

    async def get_game(request: Request) -> Response:
        g = game_of(request)
        return answer(await paced(g, lambda: view_bytes(g)))

    async def act(request: Request) -> Response:
        g = game_of(request)
        doc = parse_json(await read_body(request, MAX_BODY, read_timeout))
        if not isinstance(doc, dict) or "action" not in doc or len(doc) != 1:
            raise ApiError(422, 'the body must be {"action": "<name of a legal move>"} and nothing else')

        def work():
            with g.lock:
                began = pacing.now()
                g.opponent_moves = 0
                try:
                    g.act(doc["action"])
                finally:  # a failed move is paced too, by the moves made before it failed
                    pacing.note(g, began, g.opponent_moves)
                return dumps(game_view(g))

        return answer(await paced(g, work))

    async def hint(request: Request) -> Response:
        g = game_of(request)
        agent = request.query_params.get("agent") or ("heuristic" if "heuristic" in names else names[0])
        if agent not in names:
            raise ApiError(422, f"agent: unknown agent {short_repr(agent)}; agents: {', '.join(names)}")

        def work():
            with g.lock:
                try:
                    return g.hint(agent, factory)
                except ValueError as err:
                    raise ApiError(422, f"agent: {err}") from None

        return answer(await paced(g, work))

    async def game_record(request: Request) -> Response:
        g = game_of(request)

        def work():
            with g.lock:
                return dumps(g.public_record().to_dict())

        return answer(await paced(g, work))

    # -- records and replays --
    async def list_records(request: Request) -> Response:
        if records is None:
            return answer({"records": []})
        return answer({"records": await run_in_threadpool(records.listing)})

    def dir_record(name: str):
        found = records.get(name) if records is not None else None
        if found is None:
            raise ApiError(404, "no such record: names are those GET /api/records lists")
        return found

    async def get_record(request: Request) -> Response:
        rec, _ = await run_in_threadpool(dir_record, request.path_params["name"])
        return answer(rec.to_dict())

    async def upload(request: Request) -> Response:
        body = await read_body(request, MAX_UPLOAD, read_timeout)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "the record is not UTF-8 text") from None

        def work():
            try:
                return loads(text, source="the upload")
            except RecordError as err:
                lines = [x for x in text.splitlines() if x.strip()]
                more = (
                    f" (it has {len(lines)} lines: upload one record, not a JSON Lines file)" if len(lines) > 1 else ""
                )
                raise ApiError(422, f"{err}{more}") from None
            except RecursionError:
                raise ApiError(400, "the upload: not valid JSON (nested too deeply)") from None

        rec = await run_in_threadpool(work)
        session = session_of(request)
        created = session is None
        if created:
            try:
                session = sessions.create()
            except StoreFull as err:
                raise ApiError(err.status, str(err)) from None
        name = sessions.add_upload(session, rec)
        response = answer({"name": name}, 201)
        if created:
            set_cookie(response, session)
        return response

    async def step(request: Request) -> Response:
        name = request.path_params["name"]
        k = request.path_params["k"]
        if not (k.isascii() and k.isdigit()) or len(k) > 9:
            raise ApiError(422, f"k: a move number 0, 1, 2, … (ASCII digits) is needed, got {short_repr(k[:20])}")
        seat = request.query_params.get("seat") or None
        session = session_of(request)

        def work():
            rec = sessions.upload(session, name) if session is not None and name.startswith("upload-") else None
            if rec is not None:
                key: tuple = ("upload", session.id, name)
            else:
                rec, key = dir_record(name)
            try:
                s = None if seat is None else seat_index(rec, seat)
                if rec.redacted:
                    own = seat_index(rec, rec.redacted_for)
                    if s is not None and s != own:
                        return replay_step(rec, int(k), s)  # refused, with the reason
                    s = own
                return replay_step(rec, int(k), s, log=logs.get(key, rec, s), cache=logs.positions(key, rec))
            except RecordError as err:
                raise ApiError(422, str(err)) from None

        return answer(await run_in_threadpool(work))

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
        Route("/api/catalog", get_catalog, methods=["GET"]),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game, methods=["GET"]),
        Route("/api/games/{game_id}/actions", act, methods=["POST"]),
        Route("/api/games/{game_id}/hint", hint, methods=["GET"]),
        Route("/api/games/{game_id}/record", game_record, methods=["GET"]),
        Route("/api/records", list_records, methods=["GET"]),
        Route("/api/records/{name}", get_record, methods=["GET"]),
        Route("/api/replays", upload, methods=["POST"]),
        Route("/api/replays/{name}/step/{k}", step, methods=["GET"]),
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


__all__ = ["COOKIE", "MAX_BODY", "MAX_UPLOAD", "build_game", "create_app"]
