"""The rules-engine base: the mutable state of one episode of a configured game.

An engine is a pure rules object: no pettingzoo, gymnasium or torch. It deals from
an explicit deck order and dealer, keeps its state in plain lists and small numpy
arrays, and exposes exactly what the one generic AEC adapter
(:mod:`kortmiljo.env.aec`) needs: the seat on move, a legal-action mask, ``step``,
per-step rewards, observations and ``unseen`` per seat, end-of-episode infos and
rendering. Randomness enters only through the ``rng`` given to ``new_episode``
(shuffles of later deals, the first-dealer draw). A copy made for a rollout takes the stream
its owner hands it (``clone(rng=...)``, often a :class:`LazyGenerator`, built only if a later
deal draws from it) instead of a copy of the live one.

What is fixed per configuration (deck, action table, layout, point tables) belongs to
the :class:`~kortmiljo.core.game.Game` the engine is built from; the engine reads it as
its own attributes (copied once at construction), so rules code says ``self.layout`` or
``self.points`` without a second lookup on the hot path.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import numpy as np

from .cards import Deck
from .errors import IllegalActionError
from .game import Game
from .layout import Layout
from .options import is_int, short_repr

# The most deals the reset options of one episode may stack (``deck`` and ``later_decks``): more than
# any capped episode holds (Femkortskille's max_deals is at most 1,000, Sprøyte's 50,050), and a bound
# on the work a reset does before it starts (each stacked deck is parsed and checked).
MAX_EPISODE_DEALS = 100_000


class LazyGenerator:
    """``np.random.default_rng(seed)``, built the first time it is drawn from.

    What a copy of a state made for a rollout draws its later deals from: most rollouts end
    without another deal, and a generator costs about as much to build (or to copy) as the rest
    of a clone, so the one stream a rollout may need is built only when it is used. Any
    attribute of a :class:`numpy.random.Generator` (``permutation``, ``integers``…) builds it
    and is read from it; the draws are exactly those of ``default_rng(seed)``. A copy
    (``copy.deepcopy``, pickle) of one not built yet holds the seed alone, of one built a copy of
    its generator's state.
    """

    __slots__ = ("seed", "_generator")

    def __init__(self, seed: int):
        self.seed = seed
        self._generator: np.random.Generator | None = None

    @property
    def generator(self) -> np.random.Generator:
        """The generator, built now if it was not yet."""
        g = self._generator
        if g is None:
            g = self._generator = np.random.default_rng(self.seed)
        return g

    @property
    def built(self) -> bool:
        """Whether anything has drawn from it (its generator exists)."""
        return self._generator is not None

    def __getattr__(self, name: str) -> Any:  # only names not found above: the Generator's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.generator, name)

    def __deepcopy__(self, memo: dict) -> LazyGenerator:
        new = LazyGenerator(self.seed)
        if self._generator is not None:
            new._generator = copy.deepcopy(self._generator, memo)
        return new

    def __reduce__(self) -> tuple:
        return _lazy_generator, (self.seed, self._generator)

    def __repr__(self) -> str:
        return f"LazyGenerator({self.seed!r}{', built' if self.built else ''})"


def _lazy_generator(seed: int, generator: np.random.Generator | None) -> LazyGenerator:
    new = LazyGenerator(seed)
    new._generator = generator
    return new


# What ``Engine.clone``'s ``rng`` may be: "copy" (an exact copy of the state's own generator), None
# (no generator: the caller sets one before anything is drawn), or the generator the copy draws from.
CloneRng = Literal["copy"] | np.random.Generator | LazyGenerator | None


def _exact_copy(rng: CloneRng) -> bool:
    """Whether ``clone``'s ``rng`` asks for an exact copy of the state's generator (``"copy"``)."""
    if isinstance(rng, str):
        if rng != "copy":
            raise ValueError(f"clone's rng is 'copy', None or a generator, got {rng!r}")
        return True
    return False


def winners_rewards(n: int, winners: Sequence[int]) -> list[float]:
    """Zero-sum split: each winner +1/|W|, every other seat -1/(n-|W|); all tied → 0."""
    w = len(winners)
    if w == 0 or w == n:
        return [0.0] * n
    out = [-1.0 / (n - w)] * n
    for s in winners:
        out[s] = 1.0 / w
    return out


def check_dealer(dealer: Any, n: int) -> int:
    """A dealer seat given in ``options["dealer"]``: an int 0..n-1 (``ValueError`` otherwise)."""
    if not is_int(dealer) or not 0 <= dealer < n:
        raise ValueError(f"dealer must be a seat 0..{n - 1}, got {short_repr(dealer)}")
    return int(dealer)


class Engine(ABC):
    """Base class of the per-game rules engines (the state of one episode).

    ``Engine(game)`` takes a configured :class:`~kortmiljo.core.game.Game`;
    ``Engine(**options)`` configures the game named ``NAME`` first (a convenience for
    tests and notebooks). Subclasses implement the abstract methods. Mutable state must
    be deep-copyable: ``clone`` is ``copy.deepcopy`` (the game itself is shared) unless a
    game overrides it with something faster.
    """

    NAME: ClassVar[str]  # the registered game this engine plays, for Engine(**options)

    game: Game
    deck: Deck
    num_players: int
    action_names: tuple[str, ...]
    layout: Layout
    config: dict[str, Any]

    # state every game keeps
    current_player: int = 0
    terminal: bool = False
    truncated: bool = False
    rewards: list[float]
    history: list[tuple[int, int]]  # (seat, action) of this episode, in order
    deal_log: list[tuple[int, list[int]]]  # (dealer, deck as card ints, top first) of every deal so far

    def __init__(self, game: Game | None = None, **options: Any):
        if game is None:
            from .registry import load_game

            game = load_game(self.NAME, **options)
        elif options:
            raise ValueError("pass either a configured Game or options, not both")
        elif not isinstance(game, Game):
            raise TypeError(f"{type(self).__name__} takes a configured Game, got {game!r}")
        self.__dict__.update(game.__dict__)  # the configuration, read as the engine's own
        del self.__dict__["_frozen"]
        self.game = game

    # ---- the action table -------------------------------------------------
    def action_to_string(self, action: int) -> str:
        return self.game.action_to_string(action)

    def action_from_string(self, text: str) -> int:
        return self.game.action_from_string(text)

    # ---- episode ----------------------------------------------------------
    def draw_dealer(self, rng: np.random.Generator) -> int:
        """The first dealer when ``options['dealer']`` is not given (the game decides how)."""
        return self.game.draw_dealer(rng)

    def new_session(self) -> None:  # noqa: B027 (a hook with a no-op default, not abstract)
        """Forget state carried from one episode to the next (called on a seeded reset).

        No game but Femkortskille with ``payments_stay`` carries any; the default does nothing.
        """

    def check_episode(
        self,
        deck: Sequence[str] | None = None,
        dealer: int | None = None,
        later_decks: Sequence[Sequence[str]] | None = None,
        carry: Any = None,
    ):
        """Validate a stacked deck, a dealer, the stacked decks of later deals and a carried-in
        state without touching any state: ``(cards or None, dealer or None, later card lists,
        carry or None)``; a bad one raises ``ValueError`` saying what is wrong."""
        if dealer is not None:
            dealer = check_dealer(dealer, self.num_players)
        cards = self.deck.parse_deck(deck) if deck is not None else None
        later: list[list[int]] = []
        if later_decks is not None:
            if isinstance(later_decks, (str, bytes)) or not isinstance(later_decks, (list, tuple)):
                raise ValueError(
                    f"later_decks must be a list of stacked decks (one list of card codes per later deal), "
                    f"got {type(later_decks).__name__}"
                )
            if len(later_decks) >= MAX_EPISODE_DEALS:
                raise ValueError(
                    f"later_decks holds {len(later_decks):,} decks; an episode has at most {MAX_EPISODE_DEALS:,} "
                    f"deals, so at most {MAX_EPISODE_DEALS - 1:,} later ones"
                )
            for i, d in enumerate(later_decks):
                try:
                    later.append(self.check_episode(d)[0])
                except ValueError as err:
                    raise ValueError(f"later_decks[{i}]: {err}") from None
        if carry is not None:
            carry = self.check_carry(carry)
        return cards, dealer, later, carry

    def new_episode(
        self,
        rng: np.random.Generator,
        deck: Sequence[str] | None = None,
        dealer: int | None = None,
        later_decks: Sequence[Sequence[str]] | None = None,
        carry: Any = None,
    ) -> None:
        """Start an episode: validate a stacked deck and dealer (before any change), or draw them from ``rng``.

        ``later_decks`` stack the deals after the first (a match, a redeal) in order; deals past
        them are shuffled from ``rng``. ``carry`` is the state carried in from an earlier episode
        (see :meth:`carry_in`); a record restores both.
        """
        cards, dealer, later, carry = self.check_episode(deck, dealer, later_decks, carry)
        if dealer is None:
            dealer = self.draw_dealer(rng)
        self.rng = rng
        self.history = []
        self.terminal = self.truncated = False
        self.rewards = [0.0] * self.num_players
        if carry is not None:
            self.set_carry(carry)
        if cards is None:
            cards = self.shuffled_deck()
        self._later = later[::-1]  # popped from the end
        self.deal_log = [(int(dealer), cards)]
        self._start(cards, int(dealer))

    def next_deck(self, dealer: int) -> list[int]:
        """The deck of a later deal of this episode, dealt by ``dealer``: the next stacked one, else
        a shuffle from the episode's ``rng``. Games call this for every deal after the first, so
        that :attr:`deals` (what a record stores) holds every deal."""
        deck = self._later.pop() if self._later else self.shuffled_deck()
        self.deal_log.append((int(dealer), deck))
        return deck

    def shuffled_deck(self) -> list[int]:
        return [self.deck.cards[i] for i in self.rng.permutation(len(self.deck.cards))]

    # ---- state carried between episodes -----------------------------------------
    def carry_in(self) -> Any:
        """The state this episode started with from the one before (JSON-able), or None.

        Only Femkortskille's ``payments_stay`` pot carries over; other games return None.
        """
        return None

    def check_carry(self, carry: Any) -> Any:
        """A carried-in state for :meth:`new_episode` (``ValueError`` if this game carries none)."""
        raise ValueError(f"{self.game.name} {self.game.config} carries no state between episodes; carry must be None")

    def set_carry(self, carry: Any) -> None:  # noqa: B027 (only games that carry state override it)
        """Start the next episode from this carried-in state (already checked)."""

    # ---- what records and viewers read --------------------------------------------
    def moment(self) -> tuple[str | None, int | None]:
        """The public phase of the game now (``"exchange"``, ``"play"``…) and the trick number
        (from 0) where tricks are played, else None: what a record notes for each move."""
        return None, None

    def table(self, viewer: int | None = None) -> dict[str, Any]:
        """The table as ``viewer`` sees it, as JSON-able data (None: the open view): what the web
        app draws. Card codes only where ``viewer`` can locate the card, ``None`` for a card it
        cannot (the conformance suite checks this). Keys: ``phase``, ``dealer``, ``to_move``,
        ``seats`` (per seat: ``seat``, ``role``, ``cards``, ``labels``, ``stats``, ``status``),
        ``piles`` (``name``, ``cards``, ``count``), ``trick`` (``seat``, ``card``) and ``facts``
        (public numbers and names: pot, trump, contract, scores). This default gives the frame;
        a game fills it in."""
        n = self.num_players
        over = self.terminal or self.truncated
        return {
            "phase": self.moment()[0],
            "dealer": None,
            "to_move": None if over else f"player_{self.current_player}",
            "seats": [
                {"seat": f"player_{s}", "role": None, "cards": [], "labels": None, "stats": {}, "status": None}
                for s in range(n)
            ],
            "piles": [],
            "trick": [],
            "facts": {},
        }

    def known_cards(self, seat: int) -> list[int]:
        """The cards (ints) ``seat`` can locate now: by default those its ``unseen`` clears. A deck
        with identical copies overrides this, since ``unseen`` counts copies, not cards."""
        u = self.unseen(seat)
        return [c for c in self.deck.cards if not u[c]]

    @abstractmethod
    def _start(self, deck: list[int] | None, dealer: int) -> None:
        """Reset all state and deal the first deal from ``deck`` (card ints, top first); later
        deals take their deck from :meth:`next_deck`."""

    # ---- moves ------------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Legal action indices for ``current_player`` (empty once terminal)."""

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(len(self.action_names), dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def is_legal(self, action: int) -> bool:
        """Whether the int ``action`` is legal now (a game may answer without building the list)."""
        return action in self.legal_actions()

    def step(self, action: int) -> None:
        """Apply ``action`` for ``current_player``; raise IllegalActionError before any mutation.

        The one action check of every game: ints and numpy integers are accepted; anything
        else (floats, bools, None, strings), an index out of range and an action that is not
        legal now raise :class:`IllegalActionError` with the same message everywhere.
        """
        if type(action) is not int:
            if not is_int(action):
                self.raise_illegal(action, self.legal_actions())
            action = int(action)
        if not self.is_legal(action):
            self.raise_illegal(action, self.legal_actions())
        self.rewards = [0.0] * self.num_players
        self.history.append((self.current_player, action))
        self._apply(action)

    def raise_illegal(self, action: object, legal: list[int]) -> None:
        index = int(action) if is_int(action) else None
        in_range = index is not None and 0 <= index < len(self.action_names)
        name = self.action_names[index] if index is not None and in_range else action
        reason = None
        if index is None:
            reason = f"an action is an int index 0..{len(self.action_names) - 1}"
        elif not in_range:
            reason = f"there are only actions 0..{len(self.action_names) - 1}"
        names = [self.action_names[a] for a in legal]
        raise IllegalActionError(f"player_{self.current_player}", name, names, reason)

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Apply a legal action; set ``rewards``, ``terminal``/``truncated`` and ``current_player``."""

    # ---- views --------------------------------------------------------------
    @abstractmethod
    def observe(self, seat: int) -> np.ndarray:
        """The flat float32 observation of ``seat`` (perfect recall, seats relative to it)."""

    def decode(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """An observation vector (or a batch ``[..., size]``) cut into its named segments, in layout
        order: :meth:`Layout.split <kortmiljo.core.layout.Layout.split>` of this configuration's layout."""
        return self.layout.split(observation)

    def observation(self, seat: int) -> dict[str, np.ndarray]:
        """The env's observation dict of ``seat`` (the one builder every layer uses): its
        ``observation`` vector, its ``action_mask`` (all zeros unless it is on move) and ``unseen``."""
        if seat == self.current_player and not (self.terminal or self.truncated):
            mask = self.legal_mask()
        else:
            mask = np.zeros(len(self.action_names), dtype=np.int8)
        return {"observation": self.observe(seat), "action_mask": mask, "unseen": self.unseen(seat)}

    @abstractmethod
    def unseen(self, seat: int) -> np.ndarray:
        """int8 mask over ``deck.width``: 1 where ``seat`` cannot locate the card right now."""

    @abstractmethod
    def locations(self) -> np.ndarray:
        """Where every card is (int per card position; the game's own codes). For tests and ``state()``."""

    @abstractmethod
    def info(self, seat: int) -> dict:
        """End-of-episode result fields for ``seat`` (each game's docs page names them)."""

    def env_info(self, seat: int) -> dict:
        """The AEC env's ``info`` of ``seat`` at any step. A game overrides it to give the same
        keys with the same types at every step (neutral values until the episode ends, numeric
        twins of its string fields): replay buffers that stack infos step by step need that.
        The default is the end-of-episode :meth:`info` once the episode is over, else ``{}``."""
        return self.info(seat) if (self.terminal or self.truncated) else {}

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

    def clone(self, rng: CloneRng = "copy") -> Engine:
        """A copy of this state that shares nothing mutable with it (the game is shared).

        ``rng`` is what the copy draws its later deals from: by default (``"copy"``) a copy of this
        state's generator, so that the copy is exact (the same future deals); ``None``: no
        generator, for a copy whose owner sets one before anything is drawn; a generator (or a
        :class:`LazyGenerator`): that one, not copied. A rollout passes its own stream, so the
        generator is not copied only to be overwritten. The default is ``copy.deepcopy``; games
        override it with something faster and keep the parameter (:meth:`clone_rng`)."""
        if _exact_copy(rng):
            return copy.deepcopy(self)  # the generator with the rest
        own = self.__dict__.get("rng")
        new = copy.deepcopy(self, {} if own is None else {id(own): None})  # the generator is not copied
        new.rng = rng  # type: ignore[assignment]
        return new

    def clone_rng(self, new: Engine, rng: CloneRng) -> None:
        """Give the copy ``new`` of this state the generator :meth:`clone`'s ``rng`` asks for (what
        an overriding ``clone`` calls last)."""
        if _exact_copy(rng):
            if "rng" in self.__dict__:  # an exact copy: the same future deals, from its own generator
                new.rng = copy.deepcopy(self.rng)
        else:
            new.rng = rng  # type: ignore[assignment]

    @abstractmethod
    def resample(self, seat: int, rng: np.random.Generator) -> Engine:
        """A copy in which the cards ``seat`` cannot locate are redealt among their places,
        consistently with everything ``seat`` has observed. ``seat``'s observation is unchanged."""
