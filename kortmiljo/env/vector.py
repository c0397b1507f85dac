"""A native Stable-Baselines3 ``VecEnv`` of the single-seat training view over a batched engine.

:class:`BatchedSingleSeatVecEnv` is :class:`kortmiljo.env.training.SingleSeatEnv` for
``num_envs`` lanes at once, driving one batched engine instead of ``num_envs`` scalar
engines behind a ``DummyVecEnv``. Per lane it keeps what the scalar view keeps (the
learner's seat, drawn per episode; one opponent policy per other seat, drawn per episode
from ``opponents``; the reward held from before the learner's first decision; the game
return and decision count), and it steps every opponent move of every lane in batch: the
lanes whose seat on move belongs to the same policy object are answered by one
``policy.act_batch`` call (random, heuristic, or a frozen SB3 policy evaluated once per
batch), then one masked ``engine.step``.

**Same as the scalar view, lane for lane.** Lane ``i`` owns the generator that
``SingleSeatEnv(seed=seed + i)`` would own (``np.random.default_rng(seed + i)``; a
``VecEnv.seed(s)`` before a reset gives ``default_rng(s + i)`` as SB3 does), and uses it
in the same order: opponent re-seeding on a seeded reset, the learner's seat, the
opponents, the engine's dealer and deck, later match deals. The rewards follow the scalar
view exactly (the learner's own reward summed from its action to its next decision,
terminal rewards produced by an opponent's move included, rewards before its first
decision added to its first step, episodes that end before it decides dropped and
counted, optional potential-based shaping). With deterministic opponents a lane
therefore replays ``SingleSeatEnv(seed=seed + i)`` inside a ``DummyVecEnv`` step for step
(``tests/env/test_vector.py``); random opponents draw from the policy's own generator once
per batch instead of once per decision, so their choices differ but not their law.

**SB3 plumbing.** ``step_wait`` returns float32 observations ``[B, D]`` (the engine's
observation, plus the ``unseen`` mask with ``include_unseen``, plus with ``privileged`` the
hidden-state features an asymmetric critic reads, :func:`batch_privileged`, the same vector as
the scalar view's ``privileged_features``), float32 rewards, dones and
one info dict per lane; a finished lane's info carries the game's result fields, the
episode's ``game_reward``/``game_return``/``decisions``, and ``terminal_observation`` (every info has
``TimeLimit.truncated``, as under ``DummyVecEnv``), and the lane is dealt a new episode at once. Action masks come
from one array: ``action_masks()`` on the env, and ``env_method("action_masks")`` (what
sb3-contrib's ``get_action_masks`` calls) answers from that array without a per-env call.
``env_method("opponents_call", …)`` reaches the shared opponent pool once (not once per
lane); ``env_method("rng_state")``/``("set_rng_state", s, indices=[i])`` read and restore
the lanes' generators for resumable checkpoints, as with the scalar views.

**The batched-engine protocol** (:class:`BatchedEngine`) is what a game's batched engine
must offer to plug in here; register it in ``BATCHED_ENGINES``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from ..core.engine import Engine
from .training import _ListSampler, spokelse_potential

BATCHED_ENGINES: dict[str, str] = {
    "spokelse": "kortmiljo.games.spokelse.batched:BatchedSpokelse",
    "sproyte": "kortmiljo.games.sproyte.batched:BatchedSproyte",
    "femkortskille": "kortmiljo.games.femkortskille.batched:BatchedFemkortskille",
}


@runtime_checkable
class BatchedEngine(Protocol):
    """What a batched engine must offer the vector env (``BatchedSpokelse`` is the model).

    Construction: ``Cls(num_envs, seed=None, *, autoreset=True, rngs=None, **options)`` with the
    scalar engine's options (validated by it). Attributes: ``spec`` (a scalar engine of the same
    configuration: ``NAME``, ``layout``, ``deck``, ``action_names``, ``config``), ``num_envs``,
    ``num_players``, ``num_actions``, ``obs_size``, ``rngs`` (one generator per lane, used exactly
    as the scalar engine's ``new_episode(rng)`` uses its ``rng``), and per lane
    ``current_player [B]``, ``rewards [B, n]`` (of the last ``step``), ``terminal [B]`` (and
    optionally ``truncated [B]``). The vector env builds it with ``autoreset=False``: a finished
    lane keeps its final state until ``reset(lanes=…)``. Optional: ``new_session(lanes)``, to
    forget state carried between episodes (a pot) on a seeded reset, as ``Engine.new_session``.
    Optional: ``privileged_features(seats, lanes)``, the game's own hidden-state features for an
    asymmetric critic (else the other seats' observations are used).
    """

    spec: Engine
    num_envs: int
    num_players: int
    num_actions: int
    obs_size: int
    rngs: list
    current_player: np.ndarray
    rewards: np.ndarray
    terminal: np.ndarray

    def seed(self, seed: int | None = None, rngs: Sequence[np.random.Generator] | None = None) -> None:
        """Re-seed the lanes' generators, or take the given ones."""

    def reset(self, decks=None, dealers=None, lanes=None) -> None:
        """New episodes in ``lanes``: stacked decks ``[k, deck]`` (card ints) and dealers ``[k]``,
        or drawn from each lane's generator as ``new_episode(rng)`` draws them."""

    def legal_mask(self) -> np.ndarray:
        """``[B, A]`` int8 legal actions of each lane's seat on move (zeros when over)."""

    def step(self, actions: np.ndarray, lanes=None) -> None:
        """Apply ``actions [B]`` in ``lanes`` (bool mask or indices; all by default); an illegal
        action raises a ``ValueError`` naming the lane before any lane changes."""

    def observe(self, seats=None, lanes=None) -> np.ndarray:
        """``[k, obs_size]`` float32 observations of ``seats`` (default: on move) in ``lanes``."""

    def unseen(self, seats=None, lanes=None) -> np.ndarray:
        """``[k, deck width]`` int8 ``unseen`` of ``seats`` in ``lanes``."""

    def info(self) -> dict[str, np.ndarray]:
        """End-of-episode result fields, each ``[B, n]`` (valid where the game is over); object
        arrays for fields that are not numbers (a contract, a suit)."""


def batched_engine_class(game: str) -> type:
    """The batched engine class of ``game``; ``ValueError`` if the game has none yet."""
    target = BATCHED_ENGINES.get(game)
    if target is None:
        raise ValueError(f"{game} has no batched engine yet; games with one: {', '.join(BATCHED_ENGINES)}")
    mod, cls = target.split(":")
    return getattr(import_module(mod), cls)


def has_batched_engine(game: str) -> bool:
    return game in BATCHED_ENGINES


# ---- batched potentials (the scalar ones of ``training.SHAPING``, lane-wise) -----------------------


def spokelse_potential_batch(spec: Engine, seats: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """:func:`kortmiljo.env.training.spokelse_potential` for a batch of learner observations,
    with the same float32 arithmetic, so each entry equals the scalar value exactly."""
    L = spec.layout
    n = spec.num_players
    u = obs[:, L["unseen_mean_points"]][:, 0]
    own_p = obs[:, L["own_slot_points"]]
    own_k = obs[:, L["own_slot_known"]]
    own = own_p.sum(axis=1) + (np.float32(4) - own_k.sum(axis=1)) * u + u
    opp_p = obs[:, L["opp_slot_points"]]
    opp_k = obs[:, L["opp_slot_known"]]
    rest = ((n - 1) * u.astype(np.float64)).astype(np.float32)
    opp = (opp_p.sum(axis=1) + (np.float32(4 * (n - 1)) - opp_k.sum(axis=1)) * u + rest).astype(np.float64) / (n - 1)
    return opp - own.astype(np.float64)


BATCH_SHAPING: dict[str, Callable[[Engine, np.ndarray, np.ndarray], np.ndarray]] = {
    "spokelse": spokelse_potential_batch,
}
_SCALAR_TO_BATCH = {spokelse_potential: spokelse_potential_batch}


# ---- batched privileged features (``training.PRIVILEGED``, lane-wise; for an asymmetric critic) ------------


def other_seats_privileged_batch(engine: Any, seats: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """:func:`kortmiljo.env.training.other_seats_privileged` lane-wise: every other seat's own
    observation, in relative seat order."""
    n = engine.num_players
    return np.concatenate([engine.observe((seats + r) % n, lanes) for r in range(1, n)], axis=1)


def batch_privileged(engine: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``f(seats, lanes)`` giving the privileged features of :func:`kortmiljo.env.training.privileged_features`
    lane-wise: the engine's own ``privileged_features`` (Spøkelse: the hidden cards), else
    :func:`other_seats_privileged_batch`."""
    own = getattr(engine, "privileged_features", None)
    return own if own is not None else (lambda seats, lanes: other_seats_privileged_batch(engine, seats, lanes))


class BatchedSingleSeatVecEnv(VecEnv):
    """The single-seat training view of ``num_envs`` games on one batched engine (module docstring).

    Parameters as :class:`SingleSeatEnv`: ``game`` (a name with a batched engine), ``config``,
    ``opponents`` (Policy objects or a pool with ``sample(rng)``; default uniform random),
    ``seat``, ``include_unseen``, ``shaping`` (None, ``"auto"``, the game's scalar potential, or
    a batched potential ``Φ(spec, seats [k], obs [k, D]) -> [k]``), ``shaping_scale``, ``gamma``,
    ``privileged`` (append the hidden-state features of :func:`batch_privileged`, for an asymmetric
    critic; the same vector as the scalar view's), ``seed`` (lane ``i`` seeded with ``seed + i``;
    None: fresh entropy).
    """

    def __init__(
        self,
        game: str = "spokelse",
        config: dict | None = None,
        num_envs: int = 8,
        opponents: Sequence[Any] | Any | None = None,
        *,
        seat: int | None = None,
        include_unseen: bool = True,
        shaping: Callable | str | None = None,
        shaping_scale: float = 1.0,
        gamma: float = 0.99,
        privileged: bool = False,
        seed: int | None = None,
    ):
        cls = batched_engine_class(game)
        self.engine = cls(num_envs, seed=0, autoreset=False, **(config or {}))
        e = self.engine
        self.template = e.spec
        self.game = game
        self.config = dict(e.config)
        self.num_players = n = e.num_players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} or None, got {seat!r}")
        self.fixed_seat = seat
        self.include_unseen = include_unseen
        if shaping == "auto":
            shaping = BATCH_SHAPING.get(game)
        elif isinstance(shaping, str):
            raise ValueError(f"shaping must be a potential function, 'auto' or None, got {shaping!r}")
        elif shaping is not None and shaping in _SCALAR_TO_BATCH:
            shaping = _SCALAR_TO_BATCH[shaping]
        self.shaping = shaping
        self.shaping_scale = float(shaping_scale)
        self.gamma = float(gamma)
        if opponents is None:
            from agents.base import RandomPolicy

            opponents = [RandomPolicy(self.template, seed=None if seed is None else seed + 1)]
        self.opponents = opponents if hasattr(opponents, "sample") else _ListSampler(opponents)
        for pol in getattr(self.opponents, "members", lambda: [])():
            if getattr(pol, "needs_engine", False):
                raise ValueError(f"{pol!r} needs the live engine; the vector env steps opponents in batch")
        self.render_mode = None
        self.num_actions = e.num_actions
        self.width = self.template.deck.width
        self.actor_size = e.obs_size + (self.width if include_unseen else 0)
        self._privileged = batch_privileged(e) if privileged else None
        self.privileged_size = 0
        if self._privileged is not None:  # sized on lane 0's state
            self.privileged_size = self._privileged(e.current_player[:1], np.arange(1)).shape[1]
        self.obs_dim = self.actor_size + self.privileged_size
        super().__init__(
            num_envs,
            spaces.Box(low=-np.inf, high=np.inf, shape=(self.obs_dim,), dtype=np.float32),
            spaces.Discrete(self.num_actions),
        )
        B = num_envs
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.rngs = [np.random.default_rng(seed + i) for i in range(B)]
        e.seed(rngs=self.rngs)
        self.seat = np.zeros(B, dtype=np.int64)
        self._policies: list[Any] = []  # distinct opponent objects; _opp holds indices into it
        self._policy_index: dict[int, int] = {}
        self._opp = np.full((B, n), -1, dtype=np.int64)
        self._pending = np.zeros(B)
        self._phi = np.zeros(B)
        self._game_return = np.zeros(B)
        self._decisions = np.zeros(B, dtype=np.int64)
        self._mask = np.ones((B, self.num_actions), dtype=bool)
        self._skipped = 0
        self._skipped_reward = 0.0
        self._actions: np.ndarray | None = None
        self._all = np.arange(B)

    # ---- lanes -------------------------------------------------------------------------------------
    def _policy_id(self, pol: Any) -> int:
        key = id(pol)
        j = self._policy_index.get(key)
        if j is None or self._policies[j] is not pol:
            if getattr(pol, "needs_engine", False):
                raise ValueError(f"{pol!r} needs the live engine; the vector env steps opponents in batch")
            j = len(self._policies)
            self._policies.append(pol)
            self._policy_index[key] = j
        return j

    def _compact_policies(self) -> None:
        """Forget policies no lane plays any more (a self-play pool drops old snapshots; holding
        them here would keep their networks alive)."""
        used = np.unique(self._opp[self._opp >= 0])
        remap = np.full(len(self._policies), -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        self._policies = [self._policies[j] for j in used.tolist()]
        self._policy_index = {id(p): j for j, p in enumerate(self._policies)}
        self._opp = np.where(self._opp >= 0, remap[np.maximum(self._opp, 0)], -1)

    def _learner_obs(self, lanes: np.ndarray) -> np.ndarray:
        e = self.engine
        seats = self.seat[lanes]
        o = e.observe(seats, lanes)
        if self.obs_dim == e.obs_size:
            return o
        out = np.empty((len(lanes), self.obs_dim), dtype=np.float32)
        out[:, : e.obs_size] = o
        if self.include_unseen:
            out[:, e.obs_size : self.actor_size] = e.unseen(seats, lanes)
        if self._privileged is not None:
            out[:, self.actor_size :] = self._privileged(seats, lanes)
        return out

    def _done(self) -> np.ndarray:
        trunc = getattr(self.engine, "truncated", None)
        return self.engine.terminal if trunc is None else self.engine.terminal | trunc

    def _run_opponents(self, lanes: np.ndarray) -> np.ndarray:
        """Step opponents in ``lanes`` until each has the learner on move or is over; the
        learner's rewards summed per lane (``[len(lanes)]``, in the order of ``lanes``)."""
        e = self.engine
        B = self.num_envs
        total = np.zeros(B)
        member = np.zeros(B, dtype=bool)
        member[lanes] = True
        actions = np.zeros(B, dtype=np.int64)
        while True:
            cp = e.current_player
            act = member & ~self._done() & (cp != self.seat)
            if not act.any():
                break
            movers = np.flatnonzero(act)
            pid = self._opp[movers, cp[movers]]
            mask = e.legal_mask()
            kinds = np.unique(pid)
            for p in kinds.tolist():
                G = movers if len(kinds) == 1 else movers[pid == p]
                obs = {"observation": e.observe(None, G), "action_mask": mask[G], "unseen": e.unseen(None, G)}
                actions[G] = self._policies[p].act_batch(obs)
            e.step(actions, act)
            total[movers] += e.rewards[movers, self.seat[movers]]
        return total[lanes]

    def _new_episodes(self, lanes: np.ndarray, options: list[dict] | None = None) -> np.ndarray:
        """Deal new episodes in ``lanes`` (drawing seats and opponents from each lane's generator
        in the scalar view's order), run opponents up to the learner's first decision, redeal
        lanes whose episode ended before it; the learner's observations of ``lanes``."""
        e = self.engine
        n = self.num_players
        todo = np.asarray(lanes, dtype=np.int64)
        opts = options or [{} for _ in range(self.num_envs)]
        skipped = np.zeros(self.num_envs, dtype=np.int64)
        skipped_reward = np.zeros(self.num_envs)
        if len(self._policies) > 64:
            self._compact_policies()
        for _ in range(10_000):
            groups: dict[tuple[bool, bool], list[int]] = {}
            for lane in todo.tolist():
                rng, o = self.rngs[lane], opts[lane]
                seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
                if "seat" in o:
                    seat = int(o["seat"])
                self.seat[lane] = seat
                for s in range(n):
                    self._opp[lane, s] = -1 if s == seat else self._policy_id(self.opponents.sample(rng))
                groups.setdefault(("deck" in o, "dealer" in o), []).append(lane)
            for (has_deck, has_dealer), group in groups.items():
                decks = np.array([self.template.deck.parse_deck(opts[i]["deck"]) for i in group]) if has_deck else None
                dealers = np.array([opts[i]["dealer"] for i in group]) if has_dealer else None
                e.reset(decks, dealers, lanes=np.array(group))
            r = self._run_opponents(todo)
            done = self._done()[todo]
            self._pending[todo] = r
            if not done.any():
                break
            again = todo[done]
            if any("deck" in opts[i] for i in again.tolist()):
                raise ValueError("the stacked deck ends the episode before the learner's first decision")
            skipped[again] += 1
            skipped_reward[again] += r[done]
            todo = again
        else:
            raise RuntimeError("10,000 episodes in a row ended before the learner's first decision")
        lanes = np.asarray(lanes, dtype=np.int64)
        self._skipped += int(skipped.sum())
        self._skipped_reward += float(skipped_reward.sum())
        self._game_return[lanes] = 0.0
        self._decisions[lanes] = 0
        obs = self._learner_obs(lanes)
        self._phi[lanes] = self._potential(lanes, obs)
        self._mask[lanes] = e.legal_mask()[lanes].astype(bool)
        for lane in lanes.tolist():
            self.reset_infos[lane] = {
                "seat": int(self.seat[lane]),
                "skipped_episodes": int(skipped[lane]),
                "skipped_reward": float(skipped_reward[lane]),
            }
        return obs

    def _potential(self, lanes: np.ndarray, obs: np.ndarray) -> np.ndarray:
        if self.shaping is None:
            return np.zeros(len(lanes))
        phi = self.shaping_scale * self.shaping(self.template, self.seat[lanes], obs)
        return np.where(self._done()[lanes], 0.0, phi)

    # ---- VecEnv API -------------------------------------------------------------------------------------
    def reset(self):
        seeds, options = self._seeds, self._options
        for lane, seed in enumerate(seeds):
            if seed is None:
                continue
            # as SingleSeatEnv.reset(seed=…): a fresh generator, then the opponents' own generators
            rng = self.rngs[lane] = np.random.default_rng(seed)
            for pol in getattr(self.opponents, "members", lambda: [])():
                if hasattr(pol, "seed"):
                    pol.seed(int(rng.integers(2**63)))
        self.engine.seed(rngs=self.rngs)
        new_session = getattr(self.engine, "new_session", None)
        if new_session is not None and any(s is not None for s in seeds):
            new_session([i for i, s in enumerate(seeds) if s is not None])
        obs = self._new_episodes(self._all, [dict(o or {}) for o in options])
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        e, B = self.engine, self.num_envs
        actions, self._actions = self._actions, None
        if actions is None:
            raise RuntimeError("step_wait() without step_async()")
        e.step(actions)  # raises (a ValueError naming the lane) before any lane changes
        lanes = self._all
        seats = self.seat
        r = e.rewards[lanes, seats] + self._pending
        r += self._run_opponents(lanes)
        self._pending[:] = 0.0
        self._decisions += 1
        self._game_return += r
        game_r = r
        terminal = e.terminal.copy()
        trunc = getattr(e, "truncated", None)
        truncated = np.zeros(B, dtype=bool) if trunc is None else trunc & ~terminal
        dones = terminal | truncated
        obs = self._learner_obs(lanes)
        if self.shaping is not None:
            phi_next = self._potential(lanes, obs)
            r = r + self.gamma * phi_next - self._phi
            self._phi = phi_next
        infos: list[dict[str, Any]] = [
            {"seat": s, "TimeLimit.truncated": t} for s, t in zip(seats.tolist(), truncated.tolist(), strict=True)
        ]
        finished = np.flatnonzero(dones)
        if finished.size:
            lane_info = getattr(e, "lane_info", None)  # the scalar engine's dict, names included
            res = e.info() if lane_info is None else None
            for i in finished.tolist():
                s = int(seats[i])
                info = infos[i]
                if lane_info is not None:
                    info.update(lane_info(i, s))
                else:
                    for k, v in res.items():
                        x = v[i, s]
                        info[k] = x.item() if isinstance(x, np.generic) else x
                info["game_reward"] = float(game_r[i])
                info["game_return"] = float(self._game_return[i])
                info["decisions"] = int(self._decisions[i])
                info["terminal_observation"] = obs[i].copy()
            obs[finished] = self._new_episodes(finished)
        live = np.flatnonzero(~dones)
        if live.size:
            self._mask[live] = e.legal_mask()[live].astype(bool)
        return obs, r.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """``[B, A]`` bool: each lane's legal actions for the learner (a copy of one array)."""
        return self._mask.copy()

    def close(self) -> None:
        pass

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        idx = self._indices(indices)
        if attr_name == "seat":
            return [int(self.seat[i]) for i in idx]
        if attr_name == "np_random":
            return [self.rngs[i] for i in idx]
        value = getattr(self, attr_name)  # AttributeError as SB3 expects for a missing one
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":  # sb3-contrib's get_action_masks: rows of one array
            return list(self._mask[idx])
        if method_name == "rng_state":
            return [self.rngs[i].bit_generator.state for i in idx]
        if method_name == "set_rng_state":
            for i in idx:
                self.rngs[i].bit_generator.state = method_args[0]
            return [None for _ in idx]
        if method_name == "opponents_call":  # one shared pool: call it once
            name, *rest = method_args
            result = getattr(self.opponents, name)(*rest, **method_kwargs)
            return [result for _ in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self):
        raise NotImplementedError("the vector training env does not render")

    @property
    def skipped_episodes(self) -> int:
        return self._skipped


# ---- which vector env a training run should use ---------------------------------------------------------

# Below this many lanes the batched engine's per-call numpy overhead outweighs batching and
# DummyVecEnv of scalar views trains faster. benchmarks/train_throughput.py, 256-256 in float32
# (one thread), decisions/s with PPO updates against DummyVecEnv(8), lanes 8 / 16 / 32 / 64:
# Spøkelse 0.88 / 1.07 / 1.21 / 1.34×, Sprøyte 0.61 / 0.77 / 0.93 / 1.11×,
# Femkortskille 0.54 / 0.69 / 1.00 / 1.23×.
NATIVE_MIN_LANES: dict[str, int] = {"spokelse": 16, "sproyte": 64, "femkortskille": 64}


def choose_vec(vec: str, game: str, n_envs: int) -> str:
    """The vector env for ``--vec``: ``"auto"`` → ``"native"`` where the game has a batched engine
    and ``n_envs >= NATIVE_MIN_LANES[game]`` (where it is faster), else ``"dummy"``; explicit
    choices pass through (``"native"`` for a game without a batched engine raises ``ValueError``)."""
    if vec == "auto":
        fast = has_batched_engine(game) and n_envs >= NATIVE_MIN_LANES.get(game, 64)
        return "native" if fast else "dummy"
    if vec == "native" and not has_batched_engine(game):
        batched_engine_class(game)  # raises, naming the games that have one
    return vec
