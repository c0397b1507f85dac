"""The engine protocol every game implements, with the pieces all games share.

An engine is a pure rules object: no pettingzoo, gymnasium or torch. It deals from
an explicit deck order and dealer, keeps its state in plain lists and small numpy
arrays, and exposes exactly what the one generic AEC adapter
(:mod:`kortmiljo.env.aec`) needs: the seat on move, a legal-action mask, ``step``,
per-step rewards, observations and ``unseen`` per seat, end-of-episode infos and
rendering. Randomness enters only through the ``rng`` given to ``new_episode``
(shuffles of later deals, the first-dealer draw).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .cards import Deck
from .errors import ConfigError, IllegalActionError
from .layout import Layout


@dataclass(frozen=True)
class Option:
    """One constructor option: its default, a validity check and the words for the error."""

    default: Any
    check: Callable[[Any], bool]
    allowed: str


def int_in(lo: int, hi: int | None = None) -> Callable[[Any], bool]:
    return lambda v: (
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) and lo <= v and (hi is None or v <= hi)
    )


def one_of(*values: Any) -> Callable[[Any], bool]:
    return lambda v: v in values


def validate_options(game: str, options: dict[str, Option], given: dict[str, Any]) -> dict[str, Any]:
    """Fill defaults and check every value; unknown keywords and bad values raise ConfigError."""
    unknown = sorted(set(given) - set(options))
    if unknown:
        raise ConfigError(f"{game}: unknown option(s) {', '.join(unknown)}; allowed options: {', '.join(options)}")
    config = {}
    for name, opt in options.items():
        value = given.get(name, opt.default)
        if not opt.check(value):
            raise ConfigError(f"{game}: {name}={value!r} is not allowed; {name} must be {opt.allowed}")
        config[name] = value
    return config


def winners_rewards(n: int, winners: Sequence[int]) -> list[float]:
    """Zero-sum split: each winner +1/|W|, every other seat -1/(n-|W|); all tied → 0."""
    w = len(winners)
    if w == 0 or w == n:
        return [0.0] * n
    out = [-1.0 / (n - w)] * n
    for s in winners:
        out[s] = 1.0 / w
    return out


class Engine(ABC):
    """Base class of the per-game rules engines.

    Subclasses set the class attributes, build ``action_names`` and ``layout`` in
    ``__init__`` (fixed per configuration) and implement the abstract methods.
    Mutable state must be deep-copyable: ``clone`` is ``copy.deepcopy`` unless a game
    overrides it with something faster.
    """

    NAME: ClassVar[str]  # "spokelse"
    ENV_NAME: ClassVar[str]  # "spokelse_v0"
    OPTIONS: ClassVar[dict[str, Option]]

    deck: Deck
    num_players: int
    action_names: tuple[str, ...]
    layout: Layout

    # state every game keeps
    current_player: int = 0
    terminal: bool = False
    truncated: bool = False
    rewards: list[float]
    history: list[tuple[int, int]]  # (seat, action) of this episode, in order

    def __init__(self, **options: Any):
        self.config = validate_options(self.NAME, self.OPTIONS, options)
        self.num_players = self.config.get("num_players", 0)

    # ---- the action table -------------------------------------------------
    def _build_action_index(self) -> None:
        self._action_index = {name.lower(): i for i, name in enumerate(self.action_names)}

    def action_to_string(self, action: int) -> str:
        if not isinstance(action, (int, np.integer)) or not 0 <= action < len(self.action_names):
            raise ValueError(f"action {action!r} is not an index 0..{len(self.action_names) - 1}")
        return self.action_names[action]

    def action_from_string(self, text: str) -> int:
        key = str(text).strip().lower()
        if key in self._action_index:
            return self._action_index[key]
        head, sep, card = key.partition(":")
        if sep:  # accept any spelling of the card ("play:10h", "play:Kuku")
            try:
                canon = f"{head}:{self.deck.code(self.deck.parse(card))}".lower()
                if canon in self._action_index:
                    return self._action_index[canon]
            except ValueError:
                pass
        raise ValueError(
            f"unknown action {text!r} for {self.NAME}; actions are named like {', '.join(self.action_names[:6])}, …"
        )

    # ---- episode ----------------------------------------------------------
    def draw_dealer(self, rng: np.random.Generator) -> int:
        """The first dealer when ``options['dealer']`` is not given."""
        return int(rng.integers(self.num_players))

    def new_session(self) -> None:  # noqa: B027 (a hook with a no-op default, not abstract)
        """Forget state carried from one episode to the next (called on a seeded reset).

        No game but Femkortskille with ``payments_stay`` carries any; the default does nothing.
        """

    def new_episode(
        self, rng: np.random.Generator, deck: Sequence[str] | None = None, dealer: int | None = None
    ) -> None:
        """Start an episode: validate a stacked deck and dealer, or draw them from ``rng``."""
        if dealer is None:
            dealer = self.draw_dealer(rng)
        elif (
            not isinstance(dealer, (int, np.integer)) or isinstance(dealer, bool) or not 0 <= dealer < self.num_players
        ):
            raise ValueError(f"dealer must be a seat 0..{self.num_players - 1}, got {dealer!r}")
        cards = self.deck.parse_deck(deck) if deck is not None else None
        self.rng = rng
        self.history = []
        self.terminal = self.truncated = False
        self.rewards = [0.0] * self.num_players
        self._start(cards, int(dealer))

    def shuffled_deck(self) -> list[int]:
        return [self.deck.cards[i] for i in self.rng.permutation(len(self.deck.cards))]

    @abstractmethod
    def _start(self, deck: list[int] | None, dealer: int) -> None:
        """Reset all state and deal the first deal (``deck`` None → shuffle from ``self.rng``)."""

    # ---- moves ------------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Legal action indices for ``current_player`` (empty once terminal)."""

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(len(self.action_names), dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def step(self, action: int) -> None:
        """Apply ``action`` for ``current_player``; raise IllegalActionError before any mutation."""
        legal = self.legal_actions()
        if action not in legal:
            self.raise_illegal(action, legal)
        self.rewards = [0.0] * self.num_players
        self.history.append((self.current_player, int(action)))
        self._apply(int(action))

    def raise_illegal(self, action: object, legal: list[int]) -> None:
        name = action
        if isinstance(action, (int, np.integer)) and 0 <= action < len(self.action_names):
            name = self.action_names[action]
        raise IllegalActionError(f"player_{self.current_player}", name, [self.action_names[a] for a in legal])

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Apply a legal action; set ``rewards``, ``terminal``/``truncated`` and ``current_player``."""

    # ---- views --------------------------------------------------------------
    @abstractmethod
    def observe(self, seat: int) -> np.ndarray:
        """The flat float32 observation of ``seat`` (perfect recall, seats relative to it)."""

    @abstractmethod
    def unseen(self, seat: int) -> np.ndarray:
        """int8 mask over ``deck.width``: 1 where ``seat`` cannot locate the card right now."""

    @abstractmethod
    def locations(self) -> np.ndarray:
        """Where every card is (int per card position; the game's own codes). For tests and ``state()``."""

    @abstractmethod
    def info(self, seat: int) -> dict:
        """End-of-episode result fields for ``seat`` (RULES.md names them per game)."""

    @abstractmethod
    def render(self, viewer: int | None = None) -> str:
        """A text table from ``viewer``'s point of view (None: public view)."""

    def global_state(self) -> np.ndarray:
        """Every seat's observation plus the true card locations: the AEC ``state()``."""
        parts = [self.observe(s) for s in range(self.num_players)]
        parts.append(self.locations().astype(np.float32))
        return np.concatenate(parts)

    @property
    def state_size(self) -> int:
        return self.layout.size * self.num_players + self.deck.width

    def clone(self) -> Engine:
        return copy.deepcopy(self)

    @abstractmethod
    def resample(self, seat: int, rng: np.random.Generator) -> Engine:
        """A copy in which the cards ``seat`` cannot locate are redealt among their places,
        consistently with everything ``seat`` has observed. ``seat``'s observation is unchanged."""
