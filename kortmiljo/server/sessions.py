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

from ..core.game import Game
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
    ):
        n = game.num_players
        if sorted(opponents) != [s for s in range(n) if s != seat]:
            raise ValueError(f"opponents must name every seat but {seat}, got {sorted(opponents)}")
        self.id = game_id or new_id()
        self.owner = owner
        self.game = game
        self.seat = seat
        self.seed = seed
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
        """Let the opponents play until the human is on move or the game has ended."""
        e = self.engine
        for _ in range(MAX_OPPONENT_MOVES):
            if self.over or e.current_player == self.seat:
                return
            s = e.current_player
            policy = self.policies[s]
            action = policy.act(e.observation(s), e if getattr(policy, "needs_engine", False) else None)
            self._step(int(action))
        raise RuntimeError(f"the opponents made {MAX_OPPONENT_MOVES} moves without the human's turn coming")

    def act(self, name: Any) -> None:
        """The human's move ``name`` (an action name), then the opponents' replies.

        An unknown name, a move that is not legal now, or a move after the end is
        :class:`ApiError` 409 with the human's legal moves (nothing else: no engine message)."""
        legal = self.legal_names()
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
        if not self.human_to_move:
            raise ApiError(409, "a hint is for the human's move, and it is not the human's move now")
        policy = self.hint_agents.get(agent)
        if policy is None:
            policy = factory(agent, self.game, self.seed + 1000 + self.seat)
            if len(self.hint_agents) >= 8:
                self.hint_agents.pop(next(iter(self.hint_agents)))
            self.hint_agents[agent] = policy
        e = self.engine
        obs = e.observation(self.seat)
        live = e.clone() if getattr(policy, "needs_engine", False) else None  # the game is not the agent's to move
        explain = getattr(policy, "act_explained", None)
        if explain is not None:
            action, probs, value = explain(obs, live)
        else:
            action, probs, value = policy.act(obs, live), None, None
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
    """The store holds ``max_games`` games and none is idle."""


class GameStore:
    """At most ``max_games`` games; a game untouched for ``idle_timeout`` seconds is dropped.

    When the store is full, a new game evicts the least recently used *idle* game: one that has
    ended, or that no request has touched for ``idle_after`` seconds. If none is idle, :meth:`add`
    raises :class:`StoreFull` (the app answers 503). Expired games are swept on every call.
    """

    def __init__(
        self,
        max_games: int = 1000,
        idle_timeout: float = 1800.0,
        idle_after: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        if max_games < 1:
            raise ValueError(f"max_games must be >= 1, got {max_games!r}")
        if not idle_timeout > 0:
            raise ValueError(f"idle_timeout must be > 0 seconds, got {idle_timeout!r}")
        self.max_games = int(max_games)
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

    def has_room(self) -> bool:
        """Whether :meth:`add` would take a game now (a full store with an idle game has room)."""
        with self._lock:
            self._sweep()
            if len(self._games) < self.max_games:
                return True
            now = self.clock()
            return any(g.over or now - g.last_used >= self.idle_after for g in self._games.values())

    def add(self, game: GameSession) -> None:
        with self._lock:
            self._sweep()
            if len(self._games) >= self.max_games:
                now = self.clock()
                victim = next(
                    (gid for gid, g in self._games.items() if g.over or now - g.last_used >= self.idle_after), None
                )
                if victim is None:
                    raise StoreFull(
                        f"the server is full: it holds {self.max_games} games and none is idle; try again later"
                    )
                del self._games[victim]
            game.touch()
            self._games[game.id] = game

    def get(self, game_id: str, owner: str | None) -> GameSession | None:
        """The game ``game_id`` if ``owner`` started it (None otherwise, as for an unknown id)."""
        with self._lock:
            self._sweep()
            g = self._games.get(game_id) if isinstance(game_id, str) else None
            if g is None or g.owner != owner:
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
    """The browser sessions the server has issued: at most ``max_sessions`` (the least recently
    seen goes first), each dropped after ``idle_timeout`` seconds unseen. Only ids issued here are
    accepted, so a client cannot choose its own. Uploaded records are kept per session, at most
    ``max_uploads`` each and ``max_uploads_total`` in all (the oldest go first)."""

    def __init__(
        self,
        idle_timeout: float = 1800.0,
        max_sessions: int = 10_000,
        max_uploads: int = 16,
        max_uploads_total: int = 256,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.idle_timeout = float(idle_timeout)
        self.max_sessions = int(max_sessions)
        self.max_uploads = int(max_uploads)
        self.max_uploads_total = int(max_uploads_total)
        self.clock = clock
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._uploads: OrderedDict[tuple[str, str], None] = OrderedDict()  # (session, name), oldest first
        self._lock = threading.Lock()

    def _sweep(self, now: float) -> None:
        while self._sessions:
            sid, s = next(iter(self._sessions.items()))
            if now - s.last_seen < self.idle_timeout and len(self._sessions) <= self.max_sessions:
                break
            self._drop(sid)

    def _drop(self, sid: str) -> None:
        s = self._sessions.pop(sid)
        for name in s.uploads:
            self._uploads.pop((sid, name), None)

    def get_or_create(self, sids: list[str]) -> tuple[Session, bool]:
        """The session of the first cookie value in ``sids`` that this store issued, or a new one
        (``True``: set the cookie)."""
        with self._lock:
            now = self.clock()
            self._sweep(now)
            s = next((self._sessions[x] for x in sids if x in self._sessions), None)
            created = s is None
            if s is None:
                s = Session(new_id(), now)
                self._sessions[s.id] = s
                self._sweep(now)
            s.last_seen = now
            self._sessions.move_to_end(s.id)
            return s, created

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
