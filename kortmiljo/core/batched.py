"""The batched-engine base: B games of one configured game in lock step, as numpy arrays.

A game's batched engine (``kortmiljo/games/<game>/batched.py``) subclasses
:class:`BatchedEngine`. The base holds what every one shares: the configured game and its
sizes, the lanes and their random streams, the per-lane illegal-action error, and every
optional member with its default, so that callers (the native vector env, benchmarks, tests)
never probe with ``getattr``.

**Random streams.** A lane's stream depends only on the batch seed and the lane index, never
on the batch size, so lane ``i`` of a batch of 8 replays lane ``i`` of a batch of 4096 exactly
(the differential tests rely on it): lane ``i`` owns :func:`lane_rng` ``(seed, i)``, or the
generator passed in ``rngs[i]``, and uses it exactly as the scalar engine's
``new_episode(rng)`` uses its ``rng``.

**What a subclass implements** (each ``[B, …]`` with the lane axis first): ``current_player``
``[B]``, ``rewards [B, n]`` of the last ``step``, ``terminal [B]`` (and ``truncated [B]`` where
episodes can be cut off; the base keeps it all False otherwise), ``reset(decks, dealers,
lanes)``, ``legal_mask() -> [B, A]``, ``legal_actions(lane)``, ``step(actions, lanes)``
(checking every stepped lane before changing any; :meth:`BatchedEngine.raise_illegal` names
the first bad one), ``observe(seats, lanes)``, ``unseen(seats, lanes)`` and ``info()``. It lists
in ``LANE_STATE`` the names of every array that holds per-lane state (each owning its data, lane
axis first, or flat and lane-major ``[B * k]``; not views of them, nor constants built with a lane
axis), which is what :meth:`BatchedEngine.copy_lanes` copies; a cached legal mask is kept in
``_mask`` and the auto-reset lanes' final views in ``_final`` (both None by default), so that a
copy can drop the one and carry the other.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .errors import IllegalActionError
from .game import Game
from .options import is_int, short_repr

# The most lanes of one batched engine (and of the native vector env built on it), checked before any
# array is built: 4× the largest batch benchmarked (B = 4,096, benchmarks/throughput.py). A lane costs
# tens of kilobytes (its arrays and its generator), so the largest batch stays near a gigabyte.
MAX_NUM_ENVS = 16_384


def lane_rng(seed: int | None, lane: int) -> np.random.Generator:
    """The generator of lane ``lane`` for a batch built with ``seed`` (independent of B)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(lane),)))


class BatchedIllegalActionError(IllegalActionError):
    """An illegal action in one lane of a batched step; no lane was changed."""

    def __init__(self, lane: int, agent: str, action: object, legal: list[str]):
        self.lane = lane
        super().__init__(agent, action, legal)
        self.args = (f"lane {lane}: {self.args[0]}",)


class BatchedEngine:
    """Base class of the batched engines (see the module docstring).

    ``Cls(num_envs, seed=None, *, autoreset=True, rngs=None, game=None, **options)``: a
    configured ``game``, or the options of the game named ``NAME``; ``num_envs`` lanes, 1 to
    :data:`MAX_NUM_ENVS` (refused before any array is built). A subclass builds its arrays
    in :meth:`setup`; the base then deals every lane (``reset()``). ``autoreset``: a lane whose
    game ends in ``step`` is dealt a new episode from its stream at the end of that call;
    ``False`` keeps its final state (mask all zeros) until ``reset(lanes=…)``.
    """

    NAME: ClassVar[str]
    # the per-lane state arrays, copied by copy_lanes (see the module docstring)
    LANE_STATE: ClassVar[tuple[str, ...]] = ()

    game: Game
    current_player: np.ndarray
    rewards: np.ndarray
    terminal: np.ndarray
    # the legal mask of every lane while it is cached (None: computed anew when asked for)
    _mask: np.ndarray | None = None
    # the auto-reset lanes' final views, {"lanes": [k], name: [k, …] or {name: [k, …]}} (None: none)
    _final: dict | None = None

    def __init__(
        self,
        num_envs: int = 1,
        seed: int | None = None,
        *,
        autoreset: bool = True,
        rngs: Sequence[np.random.Generator] | None = None,
        game: Game | None = None,
        **options: Any,
    ):
        if not is_int(num_envs) or not 1 <= num_envs <= MAX_NUM_ENVS:
            raise ValueError(f"num_envs must be an int from 1 to {MAX_NUM_ENVS:,}, got {short_repr(num_envs)}")
        if game is None:
            from .registry import load_game

            game = load_game(self.NAME, **options)
        elif options:
            raise ValueError("pass either a configured Game or options, not both")
        why = self.unsupported(game)
        if why:
            raise ValueError(why)
        self.game = game
        self.config = game.config
        self.layout = game.layout
        self.action_names = game.action_names
        self.num_players = game.num_players
        self.num_actions = game.num_actions
        self.obs_size = game.layout.size
        self.width = game.deck.width
        self.num_envs = int(num_envs)
        self.autoreset = bool(autoreset)
        self._all = np.arange(self.num_envs)
        self.truncated = np.zeros(self.num_envs, dtype=bool)
        self.seed(seed, rngs)
        self.setup()
        self.reset()  # the batch starts dealt: each lane's first episode is the first of its stream

    def setup(self) -> None:
        """Build the game's arrays for ``num_envs`` lanes (called once, before the first ``reset``)."""
        raise NotImplementedError

    @classmethod
    def unsupported(cls, game: Game) -> str | None:
        """Why this batched engine cannot play ``game``'s configuration, or None (it can)."""
        return None

    # ---- randomness -----------------------------------------------------------------------
    def seed(self, seed: int | None = None, rngs: Sequence[np.random.Generator] | None = None) -> None:
        """Re-seed every lane's stream (``lane_rng(seed, i)``), or take the given generators."""
        if rngs is not None:
            if len(rngs) != self.num_envs:
                raise ValueError(f"rngs must hold one generator per lane ({self.num_envs}), got {len(rngs)}")
            self.rngs = list(rngs)
            self.seed_sequence = None
            return
        self.seed_sequence = np.random.SeedSequence(seed)
        self.rngs = [np.random.default_rng(c) for c in self.seed_sequence.spawn(self.num_envs)]

    def new_session(self, lanes=None) -> None:  # noqa: B027 (a hook with a no-op default)
        """Forget state carried from one episode to the next in ``lanes`` (as ``Engine.new_session``)."""

    # ---- lanes ------------------------------------------------------------------------------
    def _lanes(self, lanes) -> np.ndarray:
        """``lanes`` (None: all; a bool mask ``[B]``; or indices) as an index array."""
        if lanes is None:
            return self._all
        lanes = np.asarray(lanes)
        if lanes.dtype == bool:
            if lanes.shape != (self.num_envs,):
                raise ValueError(f"a lane mask must have shape ({self.num_envs},), got {lanes.shape}")
            return np.flatnonzero(lanes)
        lanes = lanes.astype(np.int64).reshape(-1)
        if lanes.size and (lanes.min() < 0 or lanes.max() >= self.num_envs):
            raise ValueError(f"lane indices must be 0..{self.num_envs - 1}")
        return lanes

    def copy_lanes(self, src: int, dst, rngs: Sequence[Any] | None = None) -> None:
        """Make lanes ``dst`` (indices or a bool mask, ``src`` not among them) exact copies of lane ``src``.

        Every ``LANE_STATE`` array's rows are copied, the cached mask is dropped, and the record
        ``final_observation``/``final_info`` keep of the last step's auto-reset lanes follows:
        ``dst`` lanes show what ``src`` shows there. Each ``dst`` lane gets its own random
        stream: ``rngs[i]`` for ``dst[i]`` (one generator per lane, used as given), or by default
        a copy of ``src``'s generator (``copy.deepcopy``), so that the copies also deal the same
        later deals. A bad ``src``, ``dst`` or ``rngs`` raises ValueError before anything changes.
        """
        B = self.num_envs
        if not is_int(src) or not 0 <= src < B:
            raise ValueError(f"src must be a lane index 0..{B - 1}, got {short_repr(src)}")
        src = int(src)
        D = self._lanes(dst)
        if np.any(D == src):
            raise ValueError(f"dst must not hold the source lane {src}")
        if np.unique(D).size != D.size:
            raise ValueError("dst must not name a lane twice")
        if rngs is not None:
            rngs = list(rngs)
            if len(rngs) != D.size:
                raise ValueError(f"rngs must hold one generator per dst lane ({D.size}), got {len(rngs)}")
        if D.size == 0:
            return
        for name in self.LANE_STATE:
            a = getattr(self, name)
            if a.shape[0] != B:  # a flat lane-major [B * k] array
                a = a.reshape(B, -1)
            a[D] = a[src]
        self._mask = None
        if self._final is not None:
            self._final = self._copy_final(self._final, src, D)
        for i, d in enumerate(D.tolist()):
            self.rngs[d] = rngs[i] if rngs is not None else copy.deepcopy(self.rngs[src])

    @staticmethod
    def _copy_final(final: dict, src: int, D: np.ndarray) -> dict:
        """``final`` (the ``_final`` record) with lanes ``D`` showing what lane ``src`` shows."""
        L = final["lanes"]
        rows = np.flatnonzero(~np.isin(L, D))
        lanes = L[rows]
        j = np.flatnonzero(L == src)
        if j.size:
            rows = np.concatenate((rows, np.repeat(j, D.size)))
            lanes = np.concatenate((lanes, D))
        order = np.argsort(lanes, kind="stable")
        rows = rows[order]

        def take(v: Any) -> Any:
            return {k: take(x) for k, x in v.items()} if isinstance(v, dict) else v[rows]

        out = take(final)
        out["lanes"] = lanes[order]
        return out

    def done(self) -> np.ndarray:
        """``[B]`` bool: the lanes whose game is over (terminated or truncated)."""
        return self.terminal | self.truncated

    def raise_illegal(self, lane: int, action: Any) -> None:
        """The per-lane :class:`BatchedIllegalActionError`, named as the scalar engine names it."""
        action = action.item() if isinstance(action, np.generic) else action
        names = [self.action_names[x] for x in self.legal_actions(lane)]
        label = self.action_names[action] if is_int(action) and 0 <= action < self.num_actions else action
        raise BatchedIllegalActionError(lane, f"player_{int(self.current_player[lane])}", label, names)

    # ---- results ------------------------------------------------------------------------------
    def lane_infos(self, lanes: Sequence[int], seats: Sequence[int]) -> list[dict]:
        """The scalar engine's ``info(seat)`` for each finished lane (from :meth:`info`)."""
        res = self.info()
        out = []
        for i, s in zip(lanes, seats, strict=True):
            row = {}
            for k, v in res.items():
                x = v[i, s]
                row[k] = x.item() if isinstance(x, np.generic) else x
            out.append(row)
        return out

    # ---- what a game implements ----------------------------------------------------------------------
    def reset(self, decks=None, dealers=None, lanes=None) -> None:
        raise NotImplementedError

    def legal_actions(self, lane: int) -> list[int]:
        raise NotImplementedError

    def info(self) -> dict[str, np.ndarray]:
        raise NotImplementedError
