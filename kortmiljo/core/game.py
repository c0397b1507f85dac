"""What a game is, in one place: the descriptor, and a game configured from it.

* :class:`GameDef` — the **descriptor**, one per game, defined in
  ``kortmiljo/games/<game>/__init__.py`` as ``GAME``: name, display name and version, the
  options with their defaults and checks, the configured-game, engine and batched-engine
  classes, the player range, the training-view extras (:class:`Features`), the batch size from
  which the native vector env is faster, and the configurations the conformance suite plays.
* :class:`Game` — a descriptor with validated options (``GAME.configure(**options)``): the
  deck, the action table, the observation layout, the :class:`Facts` that generic layers need
  (utility bounds, zero-sum, decisions per seat, multi-deal, chance structure), and the fixed
  numbers the rules engine reads. It is immutable and shared; every layer above the games
  (the AEC adapter, the training views, policies, tournaments, OpenSpiel) is built from one.
* :class:`~kortmiljo.core.engine.Engine` — the mutable state of one episode,
  ``game.new_state()`` (as OpenSpiel's ``Game``/``State`` and PGX's ``Env``/``State``).

A game subclasses :class:`Game` and fills ``deck``, ``action_names`` and ``layout`` in
``setup()``; whatever else ``setup()`` stores on the game (layout offsets, point tables) the
engine reads as its own fixed configuration (see :class:`~kortmiljo.core.engine.Engine`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

import numpy as np

from .cards import Deck
from .errors import ConfigError
from .layout import Layout
from .options import Option, validate_options

Engine = Any  # kortmiljo.core.engine.Engine (which builds on this module)
BatchedEngine = Any  # kortmiljo.core.batched.BatchedEngine


@dataclass(frozen=True)
class Facts:
    """What generic code needs to know about one configuration, so that it never asks for a name.

    ``utility_bounds``: loose but safe bounds on one seat's episode return. ``zero_sum``: the
    seats' returns always sum to 0. ``max_decisions``: an upper bound on one seat's decisions in
    an episode, or None where play can go on without bound. ``multi_deal``: an episode can hold
    more than one deal (a match, a redeal). ``cards_per_deal``: how many cards from the top of a
    deal's deck can ever influence play or observation (OpenSpiel deals exactly these by chance
    nodes, the rest follows in a fixed order). ``carry_over``: an unseeded reset continues state
    from the episode before (Femkortskille ``payments_stay``'s pot), so the bounds hold for an
    episode that starts a session (a seeded reset; every OpenSpiel game), not for later ones.
    """

    utility_bounds: tuple[float, float]
    zero_sum: bool
    max_decisions: int | None
    multi_deal: bool
    cards_per_deal: int
    carry_over: bool = False


def other_seats_privileged(state: Engine, seat: int) -> np.ndarray:
    """Generic privileged features: every other seat's own observation, in relative seat order."""
    n = state.num_players
    return np.concatenate([state.observe((seat + r) % n) for r in range(1, n)]).astype(np.float32)


def other_seats_privileged_size(game: Game) -> int:
    """Length of :func:`other_seats_privileged`: one observation per other seat."""
    return (game.num_players - 1) * game.layout.size


def other_seats_privileged_batch(engine: BatchedEngine, seats: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """:func:`other_seats_privileged` lane-wise on a batched engine."""
    n = engine.num_players
    return np.concatenate([engine.observe((seats + r) % n, lanes) for r in range(1, n)], axis=1)


@dataclass(frozen=True)
class Features:
    """The training view's extras, scalar and batched, equal entry for entry.

    ``potential(state, seat, obs) -> float`` is a shaping potential Φ over the learner's own
    observation vector (None: the game has none); ``potential_batch(game, seats, obs) -> [k]``
    the same for a batch. ``privileged(state, seat)`` and ``privileged_batch(engine, seats,
    lanes)`` are the hidden-state features an asymmetric critic reads (default: the other
    seats' observations), ``privileged_size(game)`` their length; a policy that read them
    would cheat.
    """

    potential: Callable[[Engine, int, np.ndarray], float] | None = None
    potential_batch: Callable[[Game, np.ndarray, np.ndarray], np.ndarray] | None = None
    privileged: Callable[[Engine, int], np.ndarray] = other_seats_privileged
    privileged_batch: Callable[[Any, np.ndarray, np.ndarray], np.ndarray] = other_seats_privileged_batch
    privileged_size: Callable[[Game], int] = other_seats_privileged_size


def _load(target: Any) -> Any:
    """A class given directly, or as ``"module:Name"`` (imported on first use)."""
    if isinstance(target, str):
        mod, _, name = target.partition(":")
        return getattr(import_module(mod), name)
    return target


@dataclass(frozen=True, eq=False)
class GameDef:
    """The descriptor of one game (see the module docstring). Register it with
    :func:`kortmiljo.register_game`, or declare it under the entry point group ``kortmiljo.games``."""

    name: str
    display_name: str
    version: int
    options: Mapping[str, Option]
    game: type[Game]
    engine: type[Engine] | str
    players: tuple[int, int]
    summary: str = ""
    docs: str = ""  # the rules page, relative to the repository (e.g. "docs/spokelse.md")
    batched: type | str | None = None
    native_min_lanes: int = 64  # from this many lanes the native vector env trains faster
    features: Features = field(default_factory=Features)
    examples: tuple[Mapping[str, Any], ...] = ({},)  # configurations every conformance check plays
    history: tuple[str, ...] = ("v0: first release",)

    def __post_init__(self):
        if not self.name.isidentifier() or self.name != self.name.lower():
            raise ValueError(f"a game name must be a lower-case identifier, got {self.name!r}")
        if not isinstance(self.version, int) or self.version < 0:
            raise ValueError(f"{self.name}: version must be an int >= 0, got {self.version!r}")
        lo, hi = self.players
        if not 1 <= lo <= hi:
            raise ValueError(f"{self.name}: players must be (min, max) with 1 <= min <= max, got {self.players!r}")

    @property
    def env_name(self) -> str:
        """The PettingZoo module name: ``spokelse_v0``."""
        return f"{self.name}_v{self.version}"

    def configure(self, **options: Any) -> Game:
        """The game with these options (defaults filled, every value checked)."""
        config = validate_options(self.name, self.options, options)
        return self.game(self, config)

    @property
    def engine_class(self) -> type[Engine]:
        return _load(self.engine)

    @property
    def has_batched(self) -> bool:
        return self.batched is not None

    @property
    def batched_class(self) -> type[BatchedEngine]:
        if self.batched is None:
            raise ValueError(f"{self.name} has no batched engine")
        return _load(self.batched)

    def __repr__(self) -> str:
        return f"GameDef({self.name!r}, v{self.version})"


def _canonical(config: Mapping[str, Any]) -> str:
    return json.dumps(config, sort_keys=True, default=str)


class Game:
    """A game with validated options (see the module docstring). Subclasses implement
    :meth:`setup` and :meth:`compute_facts`; they may refine the options in :meth:`check`."""

    deck: Deck
    action_names: tuple[str, ...]
    layout: Layout
    facts: Facts

    def __init__(self, definition: GameDef, config: dict[str, Any]):
        self.definition = definition
        self.name = definition.name
        self.config = config
        self.check(config)  # cross-option rules; may canonicalise values in place
        self.num_players = int(config.get("num_players", definition.players[0]))
        self.setup()
        self.action_index = {name.lower(): i for i, name in enumerate(self.action_names)}
        self.card_heads = self.find_card_heads()
        self.facts = self.compute_facts()
        self._frozen = True

    def __setattr__(self, key: str, value: Any) -> None:
        if self.__dict__.get("_frozen"):
            raise AttributeError(f"a configured game is immutable; {key!r} cannot be set")
        super().__setattr__(key, value)

    # ---- what a game subclass provides ---------------------------------------------------------
    def check(self, config: dict[str, Any]) -> None:
        """Rules between options (each alone was checked): raise ConfigError; canonicalise in place."""

    def setup(self) -> None:
        """Set ``deck``, ``action_names`` and ``layout``, and any fixed number the engine reads."""
        raise NotImplementedError

    def compute_facts(self) -> Facts:
        raise NotImplementedError

    def draw_dealer(self, rng: np.random.Generator) -> int:
        """The first dealer when ``options["dealer"]`` is not given: uniform unless the rules say how."""
        return int(rng.integers(self.num_players))

    def deal_holders(self, dealer: int) -> list[str]:
        """Who receives each card of a deal's deck (index 0 = top card), as labels such as
        ``"player_1"``, ``"player_1 ghost"``, ``"stock"``: how a record's text form lays out a
        deal. Default: one ``"deck"`` (a game overrides it with its dealing order)."""
        return ["deck"] * len(self.deck)

    def find_card_heads(self) -> frozenset[str]:
        """The action heads that name a card (``play`` in ``play:QS``): those whose every tail is a
        card code, not only numbers (``bet:3``, ``swap:2``). A game may override it."""
        tails: dict[str, list[str]] = {}
        for name in self.action_names:
            head, sep, tail = name.partition(":")
            if sep:
                tails.setdefault(head, []).append(tail)

        codes = {self.deck.code(c).lower() for c in range(self.deck.width)}  # the deck kind's, all of them
        return frozenset(
            h for h, ts in tails.items() if all(t.lower() in codes for t in ts) and not all(t.isdigit() for t in ts)
        )

    def named_card(self, name: str) -> str | None:
        """The card code an action name names (``play:QS`` → ``QS``; ``bet:3``, ``discard:?`` → None)."""
        head, sep, tail = name.partition(":")
        if not sep or head not in self.card_heads:
            return None
        try:
            return self.deck.code(self.deck.parse(tail))
        except ValueError:
            return None

    def public_action_name(self, action: int) -> str:
        """The name of ``action`` as the other seats see it: the name itself, unless the move
        hides a card (a face-down discard is ``"discard:?"``). Redaction and viewers use it; the
        conformance suite checks it against ``unseen``."""
        return self.action_names[action]

    # ---- derived ------------------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        return len(self.action_names)

    @property
    def version(self) -> int:
        return self.definition.version

    @property
    def env_name(self) -> str:
        return self.definition.env_name

    @property
    def features(self) -> Features:
        return self.definition.features

    def new_state(self) -> Engine:
        """A fresh state of one episode; deal it with ``state.new_episode(rng, deck, dealer)``."""
        return self.definition.engine_class(self)

    def new_batched(self, num_envs: int, seed: int | None = None, **kwargs: Any) -> BatchedEngine:
        """The batched engine of ``num_envs`` lanes (``ValueError`` if the game has none)."""
        return self.definition.batched_class(num_envs, seed, game=self, **kwargs)

    # ---- action names -----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if not (isinstance(action, (int, np.integer)) and not isinstance(action, bool)) or not (
            0 <= action < len(self.action_names)
        ):
            raise ValueError(f"action {action!r} is not an index 0..{len(self.action_names) - 1}")
        return self.action_names[action]

    def action_from_string(self, text: str) -> int:
        key = str(text).strip().lower()
        if key in self.action_index:
            return self.action_index[key]
        head, sep, card = key.partition(":")
        if sep:  # accept any spelling of the card ("play:10h", "play:Kuku")
            try:
                canon = f"{head}:{self.deck.code(self.deck.parse(card))}".lower()
                if canon in self.action_index:
                    return self.action_index[canon]
            except ValueError:
                pass
        raise ValueError(
            f"unknown action {text!r} for {self.name}; actions are named like {', '.join(self.action_names[:6])}, …"
        )

    # ---- identity ---------------------------------------------------------------------------------
    def fingerprint(self) -> dict[str, Any]:
        """What a trained model must agree with: game, version, configuration, actions, layout."""
        return {
            "game": self.name,
            "version": self.version,
            "config": json.loads(_canonical(self.config)),
            "action_names": list(self.action_names),
            "layout": [[s.name, s.size] for s in self.layout.segments],
            "deck_width": self.deck.width,
        }

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Game)
            and (self.name, self.version) == (other.name, other.version)
            and _canonical(self.config) == _canonical(other.config)
        )

    def __hash__(self) -> int:
        return hash((self.name, self.version, _canonical(self.config)))

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.config.items() if v != self.definition.options[k].default}
        return f"Game({self.name!r}{''.join(f', {k}={v!r}' for k, v in changed.items())})"

    def __deepcopy__(self, memo):  # immutable: states copied for search share it
        return self

    def __reduce__(self):
        return (_configure, (self.definition, dict(self.config)))


def _configure(definition: GameDef, config: dict[str, Any]) -> Game:
    return definition.configure(**config)


def as_game(game: Any) -> Game:
    """A :class:`Game`, or the game of a state (convenience for callers holding an engine)."""
    if isinstance(game, Game):
        return game
    inner = getattr(game, "game", None)
    if isinstance(inner, Game):
        return inner
    raise TypeError(f"expected a configured kortmiljo Game (kortmiljo.load_game(name, **options)), got {game!r}")


__all__ = [
    "ConfigError",
    "Facts",
    "Features",
    "Game",
    "GameDef",
    "as_game",
    "other_seats_privileged",
    "other_seats_privileged_batch",
    "other_seats_privileged_size",
]
