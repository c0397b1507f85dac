"""Writing records: :class:`RecordEpisode` records any AEC episode of a kortmiljo env.

The engine already keeps what a record needs (``history``: every move; ``deal_log``: every
deal's dealer and deck), so the wrapper only notes, per move, the public phase and trick and any
annotation the acting agent gave (:meth:`RecordEpisode.annotate`), and adds up the rewards. The
record is built once, when the episode ends (or when :meth:`RecordEpisode.record` asks early).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pettingzoo.utils.wrappers import BaseWrapper

from ..core.engine import Engine
from .format import Record, jsonable, now


def package_version() -> str:
    from .. import __version__

    return __version__


def build_record(
    engine: Any,
    moves: list[tuple],
    rewards: list[float],
    seats: Mapping[str, str | None] | None = None,
    seed: int | None = None,
    carry: Any = None,
    event: Mapping[str, Any] | None = None,
) -> Record:
    """The record of the episode ``engine`` is playing (or has played).

    ``moves[i]`` is ``(phase, trick, deal, policy, value)`` for ``engine.history[i]``;
    ``policy`` maps action indices (or names) to probabilities, or is None.
    """
    game = engine.game
    n = game.num_players
    names = [f"player_{i}" for i in range(n)]
    code = engine.deck.code
    actions = []
    for (seat, action), (phase, trick, deal, policy, value) in zip(engine.history, moves, strict=True):
        a: dict[str, Any] = {"seat": names[seat], "action": game.action_names[action], "deal": deal}
        if phase is not None:
            a["phase"] = phase
        if trick is not None:
            a["trick"] = trick
        if policy is not None:
            a["policy"] = {
                (game.action_names[k] if not isinstance(k, str) else k): round(float(p), 6) for k, p in policy.items()
            }
        if value is not None:
            a["value"] = round(float(value), 6)
        actions.append(a)
    ended = engine.terminal or engine.truncated
    status = "finished" if engine.terminal else "truncated" if engine.truncated else "unfinished"
    seat_specs: dict[str, str | None] = {nm: None for nm in names}
    if seats:
        for k, v in seats.items():
            if k not in seat_specs:
                raise ValueError(f"seats names {k!r}, which is not a seat ({', '.join(names)})")
            seat_specs[k] = None if v is None else str(v)
    return Record(
        game=game.name,
        game_version=game.version,
        env=game.env_name,
        config=jsonable(dict(game.config)),
        seats=seat_specs,
        seed=seed,
        carry=jsonable(carry),
        deals=[{"dealer": d, "deck": [code(c) for c in deck]} for d, deck in engine.deal_log],
        actions=actions,
        status=status,
        rewards={nm: float(r) for nm, r in zip(names, rewards, strict=True)},
        infos={nm: jsonable(engine.info(i)) if ended else {} for i, nm in enumerate(names)},
        kortmiljo=package_version(),
        created=getattr(engine, "created", None) or now(),
        event=dict(event or {}),
    )


class _Ended:
    """What :func:`build_record` reads of an engine whose episode has ended, kept past its next reset."""

    def __init__(self, engine: Any):
        self.game, self.deck = engine.game, engine.deck
        self.history, self.deal_log = engine.history, engine.deal_log  # new lists on every new episode
        self.terminal, self.truncated = engine.terminal, engine.truncated
        self._infos = [engine.info(i) for i in range(engine.num_players)]
        self.created = now()

    def info(self, seat: int) -> dict:
        return self._infos[seat]


class RecordEpisode(BaseWrapper):
    """Records every episode of a kortmiljo AEC env (any wrapper of ``CardGameEnv``).

    ``RecordEpisode(env, seats={"player_0": "heuristic", ...}, on_end=callback)``. Play as usual;
    when an episode ends, ``on_end(record)`` is called and :attr:`last_record` holds it.
    :meth:`record` gives the record of the episode so far at any time (``status`` "unfinished"
    until it ends). An agent that can explain its move calls :meth:`annotate` before ``step``:
    the probabilities of the legal moves and a value estimate are stored with the move.
    """

    def __init__(
        self,
        env,
        seats: Mapping[str, str | None] | None = None,
        on_end: Callable[[Record], Any] | None = None,
        event: Mapping[str, Any] | None = None,
    ):
        super().__init__(env)
        engine = getattr(env.unwrapped, "engine", None)
        if not isinstance(engine, Engine):
            raise TypeError(f"RecordEpisode records kortmiljo envs (CardGameEnv and its wrappers), got {env!r}")
        self.engine = engine
        self._raw = env.unwrapped
        self.seats = dict(seats or {})
        self.event = dict(event or {})
        self.on_end = on_end
        self._last: Record | tuple | None = None
        self._moves: list[tuple] = []
        self._rewards: list[float] = []
        self._note: tuple[Any, Any] = (None, None)
        self._seed: int | None = None
        self._carry: Any = None
        self._ended = True

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        e = self.engine
        self._moves = []
        self._rewards = [0.0] * e.num_players
        self._note = (None, None)
        self._seed = seed
        self._carry = e.carry_in()
        self._ended = False
        self._last = None

    def annotate(self, policy: Mapping[Any, float] | None = None, value: float | None = None) -> None:
        """Store ``policy`` (action index or name → probability) and ``value`` with the next move."""
        self._note = (None if policy is None else dict(policy), value)

    def step(self, action) -> None:
        e = self.engine
        if self._ended or e.terminal or e.truncated:
            self.env.step(action)  # the dead-agent steps at the end record nothing
            return
        phase, trick = e.moment()
        deal = len(e.deal_log) - 1
        self.env.step(action)  # an illegal action raises here, before anything is noted
        policy, value = self._note
        if policy is not None or value is not None:
            self._note = (None, None)
        self._moves.append((phase, trick, deal, policy, value))
        r = e.rewards
        if any(r):
            acc = self._rewards
            for i, x in enumerate(r):
                acc[i] += x
        if e.terminal or e.truncated:
            self._ended = True
            # what the record needs, kept as it is: the record itself is built when first asked for
            self._last = (_Ended(e), self._moves, self._rewards, dict(self.seats), self._seed, self._carry, self.event)
            if self.on_end is not None:
                self.on_end(self.last_record)

    @property
    def last_record(self) -> Record | None:
        """The record of the last episode that ended (None until one has)."""
        if isinstance(self._last, tuple):
            self._last = build_record(*self._last)
        return self._last

    def record(self) -> Record:
        """The record of the current (or last) episode, as far as it has been played."""
        last = self.last_record if self._ended else None
        if last is not None:
            return last
        if not self._rewards:
            raise ValueError("no episode to record yet: call reset() first")
        return build_record(self.engine, self._moves, self._rewards, self.seats, self._seed, self._carry, self.event)

    # the AEC loop reads these every step: direct, not through BaseWrapper.__getattr__
    def last(self, observe: bool = True):
        return self.env.last(observe)


def _forward(name: str) -> property:
    """A read-only attribute of the env, read straight from the unwrapped one (the AEC loop reads
    ``agents`` and ``agent_selection`` every step; a chain of ``__getattr__`` would cost a tenth)."""
    return property(lambda self: getattr(self._raw, name))


for _name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards"):
    setattr(RecordEpisode, _name, _forward(_name))

__all__ = ["RecordEpisode", "build_record"]
