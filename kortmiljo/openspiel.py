"""OpenSpiel interop: any kortmiljo game as a ``pyspiel`` Python game.

>>> import pyspiel
>>> from kortmiljo import openspiel
>>> name = openspiel.register("spokelse", num_players=2)
>>> game = pyspiel.load_game(name)

``register(game, **config)`` builds a pyspiel game type and game from a configured game
(a :class:`~kortmiljo.core.game.Game`, or a registered name with its options), registers
it and returns its name (``kortmiljo_spokelse`` for the default configuration,
``kortmiljo_spokelse_<digest>`` otherwise). Registering the same configuration again
returns the same name. ``pyspiel.load_game(name)`` then works in this process; OpenSpiel
cannot load Python games in another process before ``register`` has run there.

How the game maps onto OpenSpiel:

* **Chance.** Every random event is an explicit chance node, so that CFR can enumerate
  them: first the dealer (uniform over the seats, which is what the engines' first-dealer
  draws amount to; ``register(..., dealer=k)`` fixes it instead), then **one card per
  chance node**, top of the deck first. Outcomes are card kinds: a French card, or a
  kille rank with probability proportional to its copies left. Only as many cards are
  drawn as can ever matter in the deal (Spøkelse with ``max_turns``: the deal, the up
  card and one card per turn; Femkortskille: hands, extra cards and poker draws); the
  rest of the deck follows in a fixed order, which changes nothing a player can observe.
  A chance node with one possible outcome is skipped. Later deals of an episode (a
  Spøkelse or Sprøyte match, a void Femkortskille deal) get their own chance nodes
  after the action that ends the deal. The engine never draws a random number itself.
* **Decisions.** Player actions are the engine's action indices; ``legal_actions`` is
  the engine's legal set (the AEC env's ``action_mask``), ``action_to_string`` its names.
* **Returns.** Each seat's sum of engine rewards (the AEC env's cumulative reward); every
  configuration pays at the end only (``RewardModel.TERMINAL``). The utility is
  ``ZERO_SUM`` unless the configuration is not (Femkortskille ``payments_stay``, Sprøyte
  ``reward="raw"``).
* **Observations** (``perfect_recall=False``): the seat's ``observe(seat)`` vector and
  its ``unseen`` mask, as the tensor pieces ``observation`` and ``unseen``; the string
  names the non-zero entries segment by segment (the segments of the game's layout).
* **Information states** (``perfect_recall=True``): the seat's observation, ``unseen``
  and legal mask at each of its earlier decisions, each with the action it took, then
  the same three now. The observation already keeps everything the seat has seen (the
  package's perfect-recall convention); the sequence of its own decisions makes the
  partition perfect-recall in the game-theoretic sense (an information state determines
  every earlier one of the same seat and the actions taken there), which is what CFR
  and exploitability need. Tensor pieces: ``player`` (one-hot), ``decisions``
  (one row per earlier decision: observation, unseen, legal mask, one-hot action) and
  ``current``. The tensor exists where it stays small: a bound on the decisions per seat
  (``Facts.max_decisions``; a safety cap such as Spøkelse's ``max_steps`` gives one) and at
  most ``MAX_INFO_TENSOR`` floats in all. Elsewhere (Spøkelse without ``max_turns``, whose
  default ``max_steps`` allows thousands of decisions; long matches; a cap set to None) the
  information state has the string form only.
* **Lengths.** ``max_game_length`` is the number of seats times ``Facts.max_decisions`` (so it
  reflects the safety caps), or ``UNBOUNDED_LENGTH`` where a cap is disabled.

Only these two observation types exist (private information of one seat, with public
information); other ``IIGObservationType`` requests raise ``ValueError``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .core.engine import Engine
from .core.game import Game
from .core.registry import load_game

try:
    import pyspiel
except ImportError:  # pragma: no cover - the module documents the dependency
    pyspiel = None

# A generous max_game_length for configurations with no bound (OpenSpiel needs a number).
UNBOUNDED_LENGTH = 100_000
# The largest information-state tensor offered, in floats (4 MB): one row per earlier decision, so
# a cap that allows thousands of decisions would cost megabytes per observer and per call.
MAX_INFO_TENSOR = 1_000_000
MEMO_SIZE = 200_000  # snapshot strings remembered per game (cleared when full)


class _NeedDeal(Exception):
    """Raised inside a trial step when the engine asks for a new shuffled deck."""


def _need_deal() -> list[int]:
    raise _NeedDeal


class _NoRandom:
    """The engine's ``rng``: every random event is a chance node, so any use is a bug."""

    def __getattr__(self, name: str):
        raise RuntimeError(f"kortmiljo.openspiel: the engine asked rng.{name}; all randomness must be a chance node")

    def __deepcopy__(self, memo):
        return self


_NO_RANDOM = _NoRandom()


# ---- the game ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    """Everything fixed per registered configuration (shared, never copied)."""

    name: str
    game: Game
    config: dict
    dealer: int | None
    num_players: int
    num_actions: int
    kinds: tuple[int, ...]  # chance outcome ids: a card, or copy 0 of a kille rank
    copies: tuple[int, ...]  # copies of each kind in the deck
    kind_index: dict
    per_deal: int  # cards drawn by chance in each deal
    max_decisions: int | None
    max_chance_nodes: int
    info_tensor: bool  # whether the information-state tensor is offered (bounded and small)
    multi_deal: bool
    obs_size: int
    width: int
    seg_names: tuple[str, ...]
    seg_id: np.ndarray  # per observation index: its segment
    seg_off: np.ndarray  # per observation index: its offset inside the segment
    memo: dict = field(default_factory=dict)  # vector bytes -> string (snapshots repeat across chance branches)

    def __deepcopy__(self, memo):
        return self

    def new_engine(self) -> Engine:
        return self.game.new_state()

    def code(self, kind: int) -> str:
        return self.game.deck.code(kind)


class _Core:
    """The mutable part of a state, with a cheap deep copy (pyspiel clones by deep-copying attributes)."""

    __slots__ = ("engine", "dealer", "drawn", "left", "pending", "rows", "returns", "last_rewards", "cache", "decks")

    def __init__(self, spec: _Spec):
        self.engine: Engine | None = None
        self.dealer: int | None = spec.dealer
        self.drawn: list[int] = []  # kinds drawn for the deal being dealt
        self.left: list[int] = list(spec.copies)
        self.pending: int | None = None  # a player action waiting for the next deal's chance nodes
        self.rows: list[tuple] = [() for _ in range(spec.num_players)]
        self.returns = [0.0] * spec.num_players
        self.last_rewards = [0.0] * spec.num_players
        self.cache: dict = {}  # strings of this state, cleared by every action
        self.decks: tuple[tuple[str, ...], ...] = ()  # every deal's deck as dealt, top card first

    def __deepcopy__(self, memo):
        new = _Core.__new__(_Core)
        new.engine = None if self.engine is None else self.engine.clone()
        new.dealer = self.dealer
        new.drawn = self.drawn[:]
        new.left = self.left[:]
        new.pending = self.pending
        new.rows = self.rows[:]  # tuples of rows that never change
        new.returns = self.returns[:]
        new.last_rewards = self.last_rewards[:]
        new.cache = self.cache.copy()
        new.decks = self.decks
        return new


class _Row:
    """One earlier decision of a seat: what it saw, its legal mask, the action; text made on demand."""

    __slots__ = ("obs", "unseen", "mask", "action", "_text")

    def __init__(self, obs: np.ndarray, unseen: np.ndarray, mask: np.ndarray, action: int):
        self.obs, self.unseen, self.mask, self.action = obs, unseen, mask, action
        self._text: str | None = None

    def text(self, spec: _Spec) -> str:
        if self._text is None:
            self._text = (
                f"{_vector_string(spec, self.obs, self.unseen, self.mask)} -> {spec.game.action_names[self.action]}"
            )
        return self._text


def _snapshot(spec: _Spec, e: Engine | None, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observation, unseen, legal mask) of ``seat`` now; zeros while the first deal is dealt."""
    if e is None:
        return (
            np.zeros(spec.obs_size, np.float32),
            np.zeros(spec.width, np.float32),
            np.zeros(spec.num_actions, np.float32),
        )
    mask = np.zeros(spec.num_actions, np.float32)
    if not (e.terminal or e.truncated) and e.current_player == seat:
        mask[e.legal_actions()] = 1.0
    return e.observe(seat), e.unseen(seat).astype(np.float32), mask


def _vector_string(spec: _Spec, obs: np.ndarray, unseen: np.ndarray, mask: np.ndarray | None) -> str:
    """Non-zero entries, segment by segment: ``hand[3 17] stock_size[0=0.8]``."""
    key = obs.tobytes() + unseen.tobytes() + (b"" if mask is None else b"m" + mask.tobytes())
    text = spec.memo.get(key)
    if text is None:
        if len(spec.memo) >= MEMO_SIZE:
            spec.memo.clear()
        text = spec.memo[key] = _format_vectors(spec, obs, unseen, mask)
    return text


def _format_vectors(spec: _Spec, obs: np.ndarray, unseen: np.ndarray, mask: np.ndarray | None) -> str:
    parts = []
    nz = np.flatnonzero(obs)
    groups: dict[int, list[str]] = {}
    for seg, off, v in zip(spec.seg_id[nz].tolist(), spec.seg_off[nz].tolist(), obs[nz].tolist(), strict=True):
        groups.setdefault(seg, []).append(str(off) if v == 1.0 else f"{off}={v:.6g}")
    for seg, items in groups.items():  # segments in layout order: nz is sorted
        parts.append(f"{spec.seg_names[seg]}[{' '.join(items)}]")
    u = np.flatnonzero(unseen)
    parts.append(f"unseen[{' '.join(map(str, u))}]")
    if mask is not None:
        names = spec.game.action_names
        parts.append(f"legal[{' '.join(names[a] for a in np.flatnonzero(mask))}]")
    return " ".join(parts)


if pyspiel is not None:

    class KortmiljoGame(pyspiel.Game):
        """A registered kortmiljo configuration as a pyspiel game (one subclass per configuration)."""

        SPEC: _Spec
        GAME_TYPE: Any
        GAME_INFO: Any

        def __init__(self, params=None):
            super().__init__(self.GAME_TYPE, self.GAME_INFO, params or {})
            self.spec = self.SPEC

        def new_initial_state(self):
            return KortmiljoState(self, self.spec)

        def make_py_observer(self, iig_obs_type=None, params=None):
            return KortmiljoObserver(self.spec, iig_obs_type, params)

        def max_chance_nodes_in_history(self):
            return self.spec.max_chance_nodes

    class KortmiljoState(pyspiel.State):
        """One episode: chance nodes for the dealer and the cards, then the engine's decisions."""

        def __init__(self, game, spec: _Spec):
            super().__init__(game)
            self._spec = spec
            self._core = _Core(spec)

        # ---- where we are ----------------------------------------------------------------
        def _dealing(self) -> bool:
            c = self._core
            return c.engine is None or c.pending is not None

        def _needs_chance(self) -> bool:
            """Move the deal on past forced cards; True while a real chance choice is pending."""
            c, spec = self._core, self._spec
            if c.dealer is None:
                return True
            while len(c.drawn) < spec.per_deal:
                open_kinds = [i for i, k in enumerate(c.left) if k]
                if len(open_kinds) > 1:
                    return True
                self._draw(open_kinds[0])
            self._finish_deal()
            return False

        def current_player(self):
            c = self._core
            if self._dealing():
                return pyspiel.PlayerId.CHANCE
            e = c.engine
            if e.terminal or e.truncated:
                return pyspiel.PlayerId.TERMINAL
            return e.current_player

        def is_terminal(self):
            e = self._core.engine
            return e is not None and self._core.pending is None and (e.terminal or e.truncated)

        # ---- chance ------------------------------------------------------------------------
        def chance_outcomes(self):
            c, spec = self._core, self._spec
            if c.dealer is None:
                p = 1.0 / spec.num_players
                return [(s, p) for s in range(spec.num_players)]
            total = sum(c.left)
            return [(spec.kinds[i], k / total) for i, k in enumerate(c.left) if k]

        def _draw(self, i: int) -> None:
            self._core.left[i] -= 1
            self._core.drawn.append(self._spec.kinds[i])

        def _finish_deal(self) -> None:
            """All cards that matter are drawn: the rest follows in a fixed order; deal it."""
            c, spec = self._core, self._spec
            codes = [spec.code(k) for k in c.drawn]
            for i, k in enumerate(c.left):
                codes += [spec.code(spec.kinds[i])] * k
            c.drawn, c.left = [], list(spec.copies)
            c.decks = (*c.decks, tuple(codes))
            if c.engine is None:
                c.engine = spec.new_engine()
                c.engine.new_episode(_NO_RANDOM, codes, c.dealer)
            else:
                e, action = c.engine, c.pending
                deck = e.deck.parse_deck(codes)
                e.shuffled_deck = lambda: deck
                try:
                    self._step_engine(e, action)
                finally:
                    del e.shuffled_deck
                c.pending = None

        # ---- moves -------------------------------------------------------------------------
        def _legal_actions(self, player):
            return sorted(self._core.engine.legal_actions())

        def _apply_action(self, action):
            c, spec = self._core, self._spec
            c.cache = {}
            if self._dealing():
                if c.dealer is None:
                    c.dealer = int(action)
                else:
                    self._draw(spec.kind_index[int(action)])
                self._needs_chance()
                return
            e, seat = c.engine, c.engine.current_player
            c.rows[seat] = (*c.rows[seat], _Row(*_snapshot(spec, e, seat), int(action)))
            if spec.multi_deal:
                # a deal may end and a new one start: try the action on a copy first
                trial = e.clone()
                trial.shuffled_deck = _need_deal
                try:
                    trial.step(int(action))
                except _NeedDeal:
                    c.pending = int(action)
                    self._needs_chance()
                    return
                del trial.shuffled_deck
                c.engine = trial
                self._after_step(trial)
            else:
                self._step_engine(e, int(action))

        def _step_engine(self, e: Engine, action: int) -> None:
            e.step(action)
            self._after_step(e)

        def _after_step(self, e: Engine) -> None:
            c = self._core
            c.last_rewards = [float(r) for r in e.rewards]
            for i, r in enumerate(c.last_rewards):
                c.returns[i] += r

        # ---- names and results ---------------------------------------------------------------
        def _action_to_string(self, player, action):
            spec = self._spec
            if player == pyspiel.PlayerId.CHANCE:
                if self._core.dealer is None:
                    return f"dealer:player_{action}"
                return f"deal:{spec.code(action)}"
            return spec.game.action_names[action]

        def returns(self):
            return list(self._core.returns)

        def rewards(self):
            return list(self._core.last_rewards)

        def __str__(self):
            c = self._core
            if c.engine is None:
                codes = " ".join(self._spec.code(k) for k in c.drawn)
                return f"dealing (dealer {c.dealer}): {codes}"
            return c.engine.render(None)

        # ---- for tests and tools ----------------------------------------------------------------
        @property
        def engine(self) -> Engine | None:
            """The live engine (None until the first deal is dealt). Do not mutate it."""
            return self._core.engine

        @property
        def dealer(self) -> int | None:
            """The first dealer (None until the chance node that draws it)."""
            return self._core.dealer

        @property
        def decks(self) -> list[list[str]]:
            """Every deal's deck so far as card codes, top card first: ``options["deck"]`` of the AEC env."""
            return [list(d) for d in self._core.decks]

    class KortmiljoObserver:
        """Observation (``perfect_recall=False``) or information state (``True``) of one seat."""

        def __init__(self, spec: _Spec, iig_obs_type, params):
            if params:
                raise ValueError(f"kortmiljo observers take no parameters; got {params}")
            if iig_obs_type is None:
                iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
            if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
                raise ValueError(
                    "kortmiljo games offer observations and information states of one seat (public information "
                    "plus that seat's private information); this observation type is not supported"
                )
            self.spec = spec
            self.perfect_recall = bool(iig_obs_type.perfect_recall)
            obs, width, A, n = spec.obs_size, spec.width, spec.num_actions, spec.num_players
            if not self.perfect_recall:
                pieces = [("observation", (obs,)), ("unseen", (width,))]
            elif spec.info_tensor:
                pieces = _info_pieces(n, spec.max_decisions, obs, width, A)
            else:
                pieces = None
            if pieces is None:
                self.tensor = None
                self.dict = {}
            else:
                size = sum(int(np.prod(shape)) for _, shape in pieces)
                self.tensor = np.zeros(size, np.float32)
                self.dict, at = {}, 0
                for name, shape in pieces:
                    k = int(np.prod(shape))
                    self.dict[name] = self.tensor[at : at + k].reshape(shape)
                    at += k

        def set_from(self, state, player):
            if self.tensor is None:
                raise ValueError(
                    f"{self.spec.name} has no information-state tensor: its decisions per seat are unbounded or "
                    f"too many for {MAX_INFO_TENSOR:,} floats (use the string form, or a configuration with a small "
                    "bound such as spokelse max_turns)"
                )
            self.tensor.fill(0.0)
            spec, c = self.spec, state._core
            obs, unseen, mask = _snapshot(spec, c.engine, player)
            if not self.perfect_recall:
                self.dict["observation"][:] = obs
                self.dict["unseen"][:] = unseen
                return
            self.dict["player"][player] = 1.0
            self.dict["current"][:] = np.concatenate([obs, unseen, mask])
            rows = self.dict["decisions"]
            o, w, A = spec.obs_size, spec.width, spec.num_actions
            for i, row in enumerate(c.rows[player]):
                rows[i, :o] = row.obs
                rows[i, o : o + w] = row.unseen
                rows[i, o + w : o + w + A] = row.mask
                rows[i, o + w + A + row.action] = 1.0

        def string_from(self, state, player):
            spec, c = self.spec, state._core
            key = (self.perfect_recall, player)
            text = c.cache.get(key)
            if text is None:
                obs, unseen, mask = _snapshot(spec, c.engine, player)
                if not self.perfect_recall:
                    text = f"p{player} " + _vector_string(spec, obs, unseen, None)
                else:
                    past = [row.text(spec) for row in c.rows[player]]
                    text = " | ".join([f"p{player}", *past, _vector_string(spec, obs, unseen, mask)])
                c.cache[key] = text
            return text


# ---- registration -----------------------------------------------------------------------------

_REGISTERED: dict[str, _Spec] = {}


def _info_pieces(n: int, max_decisions: int, obs: int, width: int, actions: int) -> list[tuple[str, tuple]]:
    """The information-state tensor's pieces: the seat, one row per earlier decision, the present."""
    return [
        ("player", (n,)),
        ("decisions", (max_decisions, obs + width + 2 * actions)),
        ("current", (obs + width + actions,)),
    ]


def _digest(game: str, config: dict, dealer: int | None) -> str:
    text = json.dumps({"game": game, "config": config, "dealer": dealer}, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def register(game: Game | str, *, dealer: int | None = None, name: str | None = None, **config: Any) -> str:
    """Register a configured game (or a registered name with these options) as a pyspiel game;
    return its name.

    ``dealer``: None (default) makes the first dealer a uniform chance node; a seat fixes it
    (``dealer=num_players - 1`` makes player 0 forhånd, the first to move). ``name``
    overrides the generated game name. Bad options raise the game's ``ValueError``.
    """
    if pyspiel is None:
        raise ImportError("kortmiljo.openspiel needs OpenSpiel: pip install open_spiel")
    g = load_game(game, **config)
    n = g.num_players
    if dealer is not None and (isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n):
        raise ValueError(f"dealer must be None (a chance node) or a seat 0..{n - 1}, got {dealer!r}")
    canonical = dict(g.config)
    default = g == g.definition.configure() and dealer is None
    if name is None:
        name = f"kortmiljo_{g.name}" if default else f"kortmiljo_{g.name}_{_digest(g.name, canonical, dealer)}"
    if name in _REGISTERED:
        old = _REGISTERED[name]
        if (old.game, old.dealer) != (g, dealer):
            raise ValueError(f"OpenSpiel game name {name!r} is already registered for another configuration")
        return name
    if name in pyspiel.registered_names():
        raise ValueError(f"OpenSpiel already has a game named {name!r}")

    deck = g.deck
    kinds: list[int] = []
    copies: list[int] = []
    for card in deck.cards:
        kind = card & ~1 if deck.kille else card
        if kinds and kinds[-1] == kind:
            copies[-1] += 1
        else:
            kinds.append(kind)
            copies.append(1)
    layout = g.layout
    facts = g.facts
    bounded = facts.max_decisions is not None
    max_length = n * facts.max_decisions if bounded else UNBOUNDED_LENGTH
    info_size = None
    if bounded:
        pieces = _info_pieces(n, facts.max_decisions, layout.size, deck.width, g.num_actions)
        info_size = sum(int(np.prod(shape)) for _, shape in pieces)
    if not bounded:
        chance_nodes = UNBOUNDED_LENGTH
    elif facts.multi_deal:  # the dealer, then a deal's cards; every later deal follows a decision
        chance_nodes = 1 + facts.cards_per_deal * (1 + max_length)
    else:
        chance_nodes = 1 + facts.cards_per_deal
    spec = _Spec(
        name=name,
        game=g,
        config=canonical,
        dealer=dealer,
        num_players=n,
        num_actions=g.num_actions,
        kinds=tuple(kinds),
        copies=tuple(copies),
        kind_index={k: i for i, k in enumerate(kinds)},
        per_deal=facts.cards_per_deal,
        max_decisions=facts.max_decisions,
        max_chance_nodes=chance_nodes,
        info_tensor=info_size is not None and info_size <= MAX_INFO_TENSOR,
        multi_deal=facts.multi_deal,
        obs_size=layout.size,
        width=deck.width,
        seg_names=tuple(s.name for s in layout.segments),
        seg_id=np.repeat(np.arange(len(layout.segments)), [s.size for s in layout.segments]),
        seg_off=np.concatenate([np.arange(s.size) for s in layout.segments]),
    )
    zero_sum = facts.zero_sum
    low, high = facts.utility_bounds
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"kortmiljo {g.name} {json.dumps(canonical, sort_keys=True, default=str)}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=n,
        min_num_players=n,
        provides_information_state_string=True,
        provides_information_state_tensor=spec.info_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )
    game_info = pyspiel.GameInfo(
        num_distinct_actions=spec.num_actions,
        max_chance_outcomes=max(deck.width, n),
        num_players=n,
        min_utility=low,
        max_utility=high,
        utility_sum=0.0 if zero_sum else None,
        max_game_length=max_length,
    )
    # A class per configuration, as OpenSpiel's own Python games register: pyspiel keeps the
    # creator until after the interpreter has finalized, and a plain closure freed then aborts it.
    game_cls = type(
        f"KortmiljoGame_{name}", (KortmiljoGame,), {"SPEC": spec, "GAME_TYPE": game_type, "GAME_INFO": game_info}
    )
    pyspiel.register_game(game_type, game_cls)
    _REGISTERED[name] = spec
    return name


def registered() -> dict[str, str]:
    """Names registered in this process → their game and configuration, for logs and tools."""
    return {k: f"{s.game.name} {s.config} dealer={s.dealer}" for k, s in _REGISTERED.items()}
