"""What the web app reads from a request: bounded bodies and the fields of a new game.

:func:`read_body` takes a body within its size and time bounds, :func:`parse_json` reads it as
bounded JSON (:mod:`kortmiljo.core.jsonsafe`), and :func:`build_game` checks every field of
``POST /api/games`` before a game is made. Each refusal is an :class:`~kortmiljo.server.sessions.ApiError`
that says what was wrong and what is allowed. Nothing here imports starlette (``read_body``
takes any object with ``headers`` and an async ``stream()``).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from ..core import jsonsafe
from ..core.errors import ConfigError
from ..core.options import is_int, short_repr
from ..core.policy import RandomPolicy
from ..core.registry import games
from .sessions import ApiError, GameSession

COOKIE = "kortmiljo_session"
SESSION_KEY = "kortmiljo.session"  # the request scope's key of the session (None: no cookie of ours)
MAX_BODY = 64 * 1024
MAX_UPLOAD = 4 * 1024 * 1024
MAX_SEED = 2**63 - 1
DEAL_ENTROPY_BITS = 128  # an unseeded game's seed: secrets.randbits(128)
GAME_FIELDS = ("game", "config", "seat", "opponents", "seed", "dealer", "deck")


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


__all__ = [
    "COOKIE", "DEAL_ENTROPY_BITS", "GAME_FIELDS", "MAX_BODY", "MAX_SEED", "MAX_UPLOAD", "SESSION_KEY",
    "build_game", "dumps", "parse_json", "random_only", "read_body",
]  # fmt: skip
