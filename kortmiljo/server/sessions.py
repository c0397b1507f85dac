"""The web app's games: :class:`GameSession` (one game against the agents) and the bounded
:class:`GameStore` that holds them, with the browser sessions (:class:`SessionStore`) they belong to.

A game is the configured game's AEC env wrapped in :class:`~kortmiljo.records.RecordEpisode`
(seats ``human`` and the opponents' specs), reset with the seed and the ``dealer``/``deck``
options, so a game started with seed S deals exactly as ``env.reset(seed=S)``. After it is
created and after each of the human's moves, the opponents play until the human is on move or
the game has ended. Each move is kept as the human saw it, computed once when it is played
(the rule of :func:`kortmiljo.records.redact`): the public name of another seat's move, and
the cards the human located by it; a move that ends a deal counts only the card its public name
shows, not what the count then reveals. Nothing is replayed per request.

Nothing here imports starlette: the app (:mod:`kortmiljo.server.app`) does the HTTP, this
module the games. Every method that touches a game's engine runs under the game's lock (the app
runs the work in a thread pool, so two requests for one game may arrive together).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..core.errors import AgentError, IllegalActionError
from ..core.game import Game
from ..core.guard import guarded_act, guarded_call
from ..env.aec import CardGameEnv, OrderEnforcing
from ..records import Record, RecordEpisode
from ..records.format import jsonable

HUMAN = "human"  # the human's seat in the record's seats (as ``kortmiljo play`` writes it)
MAX_OPPONENT_MOVES = 100_000  # per request: the opponents yield to the human long before this

AgentFactory = Callable[[str, Game, "int | None"], Any]


class ApiError(Exception):
    """A request the app refuses: the HTTP status, the message (what was wrong and what is
    allowed), and any extra fields of the JSON answer (``legal`` for an illegal move)."""

    def __init__(self, status: int, message: str, **extra: Any):
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def new_id() -> str:
    """A 128-bit random id, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


def label(game: Game, name: str) -> str:
    """An action name for people: ``play:QS`` → ``play Q♠``, ``discard:?`` → ``discard ?``."""
    head, sep, tail = name.partition(":")
    if not sep:
        return name
    card = game.named_card(name)
    if card is None:
        return f"{head} {tail}"
    return f"{head} {game.deck.pretty(game.deck.parse(card))}"


class GameSession:
    """One game of a human seat against agents (see the module docstring).

    ``opponents`` maps every other seat to ``(spec, policy)``. The constructor resets the env and
    lets the opponents play to the human's first move; a bad ``seed``/``options`` raises
    ``ValueError`` before anything is kept.
    """

    def __init__(
        self,
        game: Game,
        seat: int,
        opponents: dict[int, tuple[str, Any]],
        seed: int,
        options: dict[str, Any] | None = None,
        owner: str | None = None,
        game_id: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        move_timeout: float | None = None,
        client: str | None = None,
        agent_seed: int | None = None,
    ):
        n = game.num_players
        if sorted(opponents) != [s for s in range(n) if s != seat]:
            raise ValueError(f"opponents must name every seat but {seat}, got {sorted(opponents)}")
        self.id = game_id or new_id()
        self.owner = owner
        self.game = game
        self.seat = seat
        self.seed = seed
        self.agent_seed = seed if agent_seed is None else agent_seed  # the agents' seeds derive from it
        self.specs = {s: spec for s, (spec, _) in opponents.items()}
        self.policies = {s: policy for s, (_, policy) in opponents.items()}
        self.seats = {f"player_{s}": HUMAN if s == seat else self.specs[s] for s in range(n)}
        self.env = RecordEpisode(OrderEnforcing(CardGameEnv(game)), seats=self.seats)
        self.env.reset(seed=seed, options=dict(options or {}))
        self.engine = self.env.engine
        self.lock = threading.RLock()
        self.log: list[dict[str, Any]] = []  # every move as the human saw it
        self.totals = [0.0] * n
        self.hint_agents: dict[str, Any] = {}
        self._summary: dict[str, Any] | None = None
        self._clock = clock
        self.created = self.last_used = clock()
        self.client = client
        self.move_timeout = move_timeout
        self.failure: str | None = None  # why the game was stopped (an opponent failed), if it was
        self.ready_at = 0.0  # time.monotonic() before which no answer about this game goes out (pacing)
        self.opponent_moves = 0  # the opponents' moves since the app last reset it (its pacing counts them)
        self.play_opponents()

    # ---- state -------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.engine.terminal or self.engine.truncated

    @property
    def status(self) -> str:
        e = self.engine
        return "finished" if e.terminal else "truncated" if e.truncated else "playing"

    @property
    def human_to_move(self) -> bool:
        return not self.over and self.engine.current_player == self.seat

    def touch(self) -> None:
        self.last_used = self._clock()

    def legal_names(self) -> list[str]:
        """The human's legal moves by name (empty unless the human is on move)."""
        if not self.human_to_move:
            return []
        names = self.game.action_names
        return [names[a] for a in self.engine.legal_actions()]

    # ---- moves ---------------------------------------------------------------------------------
    def _step(self, action: int) -> None:
        """Play ``action`` for the seat on move and note the move as the human saw it."""
        e, g, me = self.engine, self.game, self.seat
        mover = e.current_player
        name = g.action_names[action] if mover == me else g.public_action_name(action)
        before = set(e.known_cards(me))
        phase, trick = e.moment()
        deal = len(e.deal_log) - 1
        held = None if mover == me else set(e.known_cards(mover))  # the mover knows what it plays
        self.env.step(action)  # an illegal action raises here, before anything changes
        for i, r in enumerate(e.rewards):
            self.totals[i] += float(r)
        if len(e.deal_log) - 1 == deal and not self.over:
            new = set(e.known_cards(me)) - before
        else:  # the move ended the deal: only what its public name shows counts, not the reveal
            card = g.named_card(name)
            mine = before if held is None else held
            code = g.deck.code
            new = set([c for c in e.deal_log[deal][1] if code(c) == card and c in mine and c not in before][:1])
        self.log.append(
            {
                "n": len(self.log),
                "seat": f"player_{mover}",
                "action": name,
                "label": label(g, name),
                "seen": [g.deck.code(c) for c in sorted(new)],
                "deal": deal,
                "phase": phase,
                "trick": trick,
            }
        )

    def play_opponents(self) -> None:
        """Let the opponents play until the human is on move or the game has ended, counting their
        moves in ``opponent_moves`` (after a failure, those made before it). Each move goes through
        :func:`~kortmiljo.core.guard.guarded_act` with ``move_timeout``: an agent that fails or runs
        out of time stops the game (``failure``) and raises :class:`ApiError` 500 naming the agent
        and the move."""
        e = self.engine
        for _ in range(MAX_OPPONENT_MOVES):
            if self.over or e.current_player == self.seat:
                return
            s = e.current_player
            policy = self.policies[s]
            try:
                action = guarded_act(
                    policy,
                    e.observation(s),
                    e if getattr(policy, "needs_engine", False) else None,
                    agent=f"{self.specs[s]} (player_{s})",
                    where=lambda: f"move {len(self.log)}",
                    timeout=self.move_timeout,
                )
                self._step(int(action))
                self.opponent_moves += 1
            except (AgentError, IllegalActionError) as err:
                self.failure = f"the game was stopped: {err}"
                raise ApiError(500, self.failure) from None
        raise RuntimeError(f"the opponents made {MAX_OPPONENT_MOVES} moves without the human's turn coming")

    def act(self, name: Any) -> None:
        """The human's move ``name`` (an action name), then the opponents' replies.

        An unknown name, a move that is not legal now, or a move after the end is
        :class:`ApiError` 409 with the human's legal moves (nothing else: no engine message)."""
        legal = self.legal_names()
        if self.failure is not None:
            raise ApiError(409, f"{self.failure}; start a new game", legal=[])
        if self.over:
            raise ApiError(409, f"the game is over ({self.status}); no more moves", legal=[])
        if not isinstance(name, str):
            raise ApiError(422, f"action must be a string, the name of a legal move: {', '.join(legal)}", legal=legal)
        try:
            action = self.game.action_from_string(name)
        except ValueError:
            action = None
        if action is None or self.game.action_names[action] not in legal:
            what = "not an action of this game" if action is None else "not legal now"
            raise ApiError(409, f"that move is {what}; the legal moves are: {', '.join(legal)}", legal=legal)
        self._step(action)
        self.play_opponents()

    # ---- hints ---------------------------------------------------------------------------------
    def hint(self, agent: str, factory: AgentFactory) -> dict[str, Any]:
        """What agent ``agent`` would play in the human's seat: the probability of each legal move
        and its value estimate (None where it gives none)."""
        if not self.human_to_move or self.failure is not None:
            raise ApiError(409, "a hint is for the human's move, and it is not the human's move now")
        policy = self.hint_agents.get(agent)
        if policy is None:
            policy = factory(agent, self.game, self.agent_seed + 1000 + self.seat)
            if len(self.hint_agents) >= 8:
                self.hint_agents.pop(next(iter(self.hint_agents)))
            self.hint_agents[agent] = policy
        e = self.engine
        obs = e.observation(self.seat)
        live = e.clone() if getattr(policy, "needs_engine", False) else None  # the game is not the agent's to move
        explain = getattr(policy, "act_explained", None)
        try:
            if explain is not None:
                action, probs, value = guarded_call(
                    lambda: explain(obs, live), agent=agent, where="the hint", timeout=self.move_timeout
                )
            else:
                action = guarded_act(policy, obs, live, agent=agent, where="the hint", timeout=self.move_timeout)
                probs = value = None
        except AgentError as err:
            self.hint_agents.pop(agent, None)  # after a time-out it must not be used again
            raise ApiError(500, f"no hint: {err}") from None
        names = self.game.action_names
        legal = set(e.legal_actions())
        if probs is None:
            probs = {int(action): 1.0}
        policy_out = {}
        for k, p in probs.items():
            idx = self.game.action_from_string(k) if isinstance(k, str) else int(k)
            if idx in legal:
                policy_out[names[idx]] = round(float(p), 6)
        return {"agent": agent, "policy": policy_out, "value": None if value is None else round(float(value), 6)}

    # ---- records -------------------------------------------------------------------------------
    def record(self) -> Record:
        """The full record so far (``unfinished`` while the game runs); never sent while it runs."""
        return self.env.record()

    def public_record(self) -> Record:
        """What the human may have of the record: redacted for the human seat while the game runs,
        the full record once it has ended."""
        from ..records import redact

        rec = self.record()
        return rec if self.over else redact(rec, self.seat)

    def summary(self) -> dict[str, Any] | None:
        """Once the game has ended, every deal's hands as dealt (by the game's ``deal_holders``)."""
        if not self.over:
            return None
        if self._summary is None:
            deals = []
            for d, deal in enumerate(self.record().deals):
                hands: dict[str, list[str]] = {}
                for holder, card in zip(self.game.deal_holders(deal["dealer"]), deal["deck"], strict=True):
                    hands.setdefault(holder, []).append(card)
                deals.append({"deal": d, "dealer": f"player_{deal['dealer']}", "hands": hands})
            self._summary = {"deals": deals}
        return self._summary

    def infos(self) -> dict[str, dict[str, Any]]:
        e = self.engine
        n = self.game.num_players
        return {f"player_{s}": (jsonable(e.info(s)) if self.over else {}) for s in range(n)}


class StoreFull(Exception):
    """No room for a new game or session: the store is full and nothing in it is idle (``status``
    503), or the session or client holds its most games (429)."""

    def __init__(self, message: str, status: int = 503):
        super().__init__(message)
        self.status = status


class GameStore:
    """At most ``max_games`` games, ``per_session`` of one session and ``per_client`` of one client
    address; a game untouched for ``idle_timeout`` seconds is dropped.

    A game is *idle* once it has ended, or when no request has touched it for ``idle_after``
    seconds. Where a new game finds no room, the least recently used idle game of the session (or
    client, or server) that is full gives way; an active game is never dropped for another. If no
    game there is idle, :meth:`add` raises :class:`StoreFull` (the app answers 429 for a session or
    client, 503 for the server). Expired games are swept on every call.
    """

    def __init__(
        self,
        max_games: int = 1000,
        idle_timeout: float = 1800.0,
        idle_after: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        per_session: int | None = None,
        per_client: int | None = None,
    ):
        for name, value in (("max_games", max_games), ("per_session", per_session), ("per_client", per_client)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        if not idle_timeout > 0:
            raise ValueError(f"idle_timeout must be > 0 seconds, got {idle_timeout!r}")
        self.max_games = int(max_games)
        self.per_session = per_session
        self.per_client = per_client
        self.idle_timeout = float(idle_timeout)
        self.idle_after = min(float(idle_after), self.idle_timeout)
        self.clock = clock
        self._games: OrderedDict[str, GameSession] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._games)

    def _sweep(self) -> None:
        now = self.clock()
        while self._games:
            gid, g = next(iter(self._games.items()))
            if now - g.last_used < self.idle_timeout:
                break
            del self._games[gid]

    def _idle(self, g: GameSession, now: float) -> bool:
        return g.over or g.failure is not None or now - g.last_used >= self.idle_after

    def _victims(self, owner: str | None, client: str | None) -> list[str]:
        """The games that must give way for a new one of ``owner`` and ``client`` (StoreFull if one
        cannot): per cap that is reached, the least recently used idle game under it."""
        now = self.clock()
        wait = f"and none has ended or been idle {self.idle_after:g} s; finish or leave one first"
        full = f"the server is full: it holds {self.max_games} games and none is idle; try again later"
        scopes = [  # the session's cap first: its own idle game gives way before anyone else's
            (self.per_session, ("owner", owner), 429, f"this session holds {self.per_session} games {wait}"),
            (self.per_client, ("client", client), 429, f"this client address holds {self.per_client} games {wait}"),
            (self.max_games, None, 503, full),
        ]
        out: list[str] = []
        for cap, key, status, message in scopes:
            if cap is None or (key is not None and key[1] is None):
                continue
            held = [gid for gid, g in self._games.items()
                    if gid not in out and (key is None or getattr(g, key[0]) == key[1])]  # fmt: skip
            if len(held) < cap:
                continue
            victim = next((gid for gid in held if self._idle(self._games[gid], now)), None)
            if victim is None:
                raise StoreFull(message, status)
            out.append(victim)
        return out

    def check_room(self, owner: str | None, client: str | None = None) -> None:
        """Raise :class:`StoreFull` unless :meth:`add` would take a game of ``owner`` and ``client`` now."""
        with self._lock:
            self._sweep()
            self._victims(owner, client)

    def add(self, game: GameSession) -> None:
        with self._lock:
            self._sweep()
            for gid in self._victims(game.owner, game.client):
                del self._games[gid]
            game.touch()
            self._games[game.id] = game

    def owns_any(self, owner: str) -> bool:
        """Whether ``owner`` holds a game that is not idle."""
        with self._lock:
            now = self.clock()
            return any(g.owner == owner and not self._idle(g, now) for g in self._games.values())

    def get(self, game_id: str, owner: str | None) -> GameSession | None:
        """The game ``game_id`` if ``owner`` started it (None otherwise, as for an unknown id)."""
        with self._lock:
            self._sweep()
            g = self._games.get(game_id) if isinstance(game_id, str) else None
            if g is None or owner is None or g.owner != owner:
                return None
            g.touch()
            self._games.move_to_end(game_id)
            return g

    def peek(self, game_id: str) -> GameSession | None:
        """The game ``game_id`` whoever owns it, without touching it (for tests and tools)."""
        with self._lock:
            return self._games.get(game_id)

    def ids(self) -> list[str]:
        with self._lock:
            self._sweep()
            return list(self._games)


class Session:
    """One browser session (the ``kortmiljo_session`` cookie): its uploaded records."""

    def __init__(self, sid: str, now: float):
        self.id = sid
        self.last_seen = now
        self.uploads: OrderedDict[str, Record] = OrderedDict()


class SessionStore:
    """The browser sessions the server has issued. Only ids issued here are accepted, so a client
    cannot choose its own, and a session is issued only when a client starts its first game or
    uploads its first record (:meth:`create`), never for a request that only reads.

    A session unseen for ``idle_timeout`` seconds is dropped. At most ``max_sessions`` are held:
    past that, a new one replaces the least recently seen *idle* session, one unseen for
    ``idle_after`` seconds that holds no active game (``busy(id)`` says whether it does); when none
    is idle, :meth:`create` raises :class:`StoreFull` (503). Uploaded records are kept per
    session, at most ``max_uploads`` each and ``max_uploads_total`` in all (the oldest go first)."""

    def __init__(
        self,
        idle_timeout: float = 1800.0,
        max_sessions: int = 10_000,
        max_uploads: int = 16,
        max_uploads_total: int = 256,
        clock: Callable[[], float] = time.monotonic,
        idle_after: float = 60.0,
        busy: Callable[[str], bool] = lambda sid: False,
    ):
        self.idle_timeout = float(idle_timeout)
        self.idle_after = min(float(idle_after), self.idle_timeout)
        self.max_sessions = int(max_sessions)
        self.max_uploads = int(max_uploads)
        self.max_uploads_total = int(max_uploads_total)
        self.clock = clock
        self.busy = busy
        self._sessions: OrderedDict[str, Session] = OrderedDict()  # least recently seen first
        self._uploads: OrderedDict[tuple[str, str], None] = OrderedDict()  # (session, name), oldest first
        self._lock = threading.Lock()

    def _sweep(self, now: float) -> None:
        while self._sessions:
            sid, s = next(iter(self._sessions.items()))
            if now - s.last_seen < self.idle_timeout:
                break
            self._drop(sid)

    def _drop(self, sid: str) -> None:
        s = self._sessions.pop(sid)
        for name in s.uploads:
            self._uploads.pop((sid, name), None)

    def get(self, sids: list[str]) -> Session | None:
        """The session of the first cookie value in ``sids`` that this store issued (None: none)."""
        with self._lock:
            now = self.clock()
            self._sweep(now)
            s = next((self._sessions[x] for x in sids if x in self._sessions), None)
            if s is not None:
                s.last_seen = now
                self._sessions.move_to_end(s.id)
            return s

    def create(self) -> Session:
        """A new session (the caller sets its cookie); :class:`StoreFull` if the store is full and
        no session in it is idle."""
        with self._lock:
            now = self.clock()
            self._sweep(now)
            if len(self._sessions) >= self.max_sessions:
                victim = next(
                    (sid for sid, s in self._sessions.items()
                     if now - s.last_seen >= self.idle_after and not self.busy(sid)),
                    None,
                )  # fmt: skip
                if victim is None:
                    raise StoreFull(
                        f"the server is full: it holds {self.max_sessions} sessions and none is idle; try again later"
                    )
                self._drop(victim)
            s = Session(new_id(), now)
            self._sessions[s.id] = s
            return s

    def add_upload(self, session: Session, record: Record) -> str:
        with self._lock:
            name = f"upload-{secrets.token_urlsafe(12)}"
            session.uploads[name] = record
            self._uploads[(session.id, name)] = None
            while len(session.uploads) > self.max_uploads:
                old = next(iter(session.uploads))
                del session.uploads[old]
                self._uploads.pop((session.id, old), None)
            while len(self._uploads) > self.max_uploads_total:
                (sid, old), _ = self._uploads.popitem(last=False)
                owner = self._sessions.get(sid)
                if owner is not None:
                    owner.uploads.pop(old, None)
            return name

    def upload(self, session: Session, name: str) -> Record | None:
        with self._lock:
            return session.uploads.get(name)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)


__all__ = ["HUMAN", "ApiError", "GameSession", "GameStore", "Session", "SessionStore", "StoreFull", "label", "new_id"]
