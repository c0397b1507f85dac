"""The web app's routes: the games (``/api/catalog``, ``/api/games/...``) and the records and
replays (``/api/records/...``, ``/api/replays/...``), each a list of Starlette routes made by
:func:`game_routes` and :func:`replay_routes` over the stores they share (docs/web.md). Imported
by :func:`kortmiljo.server.create_app` only, since it needs starlette.

Every answer about a game is paced (:class:`Pacing`): it goes out no sooner than ``pad`` seconds
per opponent move after its work began, so its timing tells nothing the log does not.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..core.options import short_repr
from ..core.registry import games
from ..records import RecordError, loads
from ..records.redact import seat_index
from .replays import LogCache, RecordsDir
from .requests import COOKIE, MAX_BODY, MAX_UPLOAD, SESSION_KEY, build_game, dumps, parse_json, read_body
from .sessions import ApiError, GameSession, GameStore, SessionStore, StoreFull
from .views import catalog, game_view, replay_step


def answer(data: Any, status: int = 200) -> Response:
    """A JSON answer (``data`` already encoded, or a value to encode)."""
    body = data if isinstance(data, bytes) else dumps(data)
    return Response(body, status_code=status, media_type="application/json")


def session_of(request: Request):
    """The session of the request's cookie (None: none of ours)."""
    return request.scope[SESSION_KEY]


def client_of(request: Request) -> str | None:
    """The client's address (the per-client caps count by it)."""
    return request.client.host if request.client is not None else None


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


def game_routes(
    store: GameStore,
    sessions: SessionStore,
    pacing: Pacing,
    names: Sequence[str],
    factory: Callable,
    clock: Callable[[], float],
    move_timeout: float | None,
    read_timeout: float,
) -> list[Route]:
    """The routes of the catalog and the games: start one, its view, the human's move, a hint, its
    record (see :func:`kortmiljo.server.create_app` for the arguments)."""

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

    return [
        Route("/api/catalog", get_catalog, methods=["GET"]),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game, methods=["GET"]),
        Route("/api/games/{game_id}/actions", act, methods=["POST"]),
        Route("/api/games/{game_id}/hint", hint, methods=["GET"]),
        Route("/api/games/{game_id}/record", game_record, methods=["GET"]),
    ]


def replay_routes(
    records: RecordsDir | None, logs: LogCache, sessions: SessionStore, read_timeout: float
) -> list[Route]:
    """The routes of the records of ``--records DIR`` (``records``), the uploads and the replay
    steps, whose logs and restored positions ``logs`` keeps."""

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

    return [
        Route("/api/records", list_records, methods=["GET"]),
        Route("/api/records/{name}", get_record, methods=["GET"]),
        Route("/api/replays", upload, methods=["POST"]),
        Route("/api/replays/{name}/step/{k}", step, methods=["GET"]),
    ]


__all__ = ["Pacing", "answer", "game_routes", "replay_routes"]
