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
hidden-state features an asymmetric critic reads,
:func:`~kortmiljo.core.game.other_seats_privileged_batch`, the same vector as the scalar view's
``privileged_features``), float32 rewards, dones and
one info dict per lane; a finished lane's info carries the game's result fields, the
episode's ``game_reward``/``game_return``/``decisions``, and ``terminal_observation`` (every info has
``TimeLimit.truncated``, as under ``DummyVecEnv``: True where a game's safety cap cut the episode, whose
info then names the cap in ``truncated_by``), and the lane is dealt a new episode at once. The infos are
lean, for speed: mid-episode a lane's info holds only ``seat`` and ``TimeLimit.truncated``, where the scalar
view's holds every key at every step (:data:`~kortmiljo.env.training.VIEW_INFO_KEYS` and the game's, with
the same values where both have a key). Action masks come
from one array: ``action_masks()`` on the env, and ``env_method("action_masks")`` (what
sb3-contrib's ``get_action_masks`` calls) answers from that array without a per-env call.
``env_method("opponents_call", …)`` reaches the shared opponent pool once (not once per
lane); ``env_method("rng_state")``/``("set_rng_state", s, indices=[i])`` read and restore
the lanes' generators for resumable checkpoints, as with the scalar views.

**The batched engine** is the game's (:class:`kortmiljo.core.batched.BatchedEngine`, named by the
game's descriptor); the privileged features and the batched potential come from the descriptor's
``features``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from ..core.engine import check_dealer
from ..core.game import Game
from ..core.options import is_int
from ..core.policy import RandomPolicy
from .aec import SEAT_VIEW_OPTIONS, check_reset_options, check_seed
from .training import _ListSampler, resolve_game


class BatchedSingleSeatVecEnv(VecEnv):
    """The single-seat training view of ``num_envs`` games on one batched engine (module docstring).

    Parameters as :class:`~kortmiljo.env.training.SingleSeatEnv`: ``game`` (a configured game with a
    batched engine, or a registered name with ``config``), ``opponents`` (Policy objects or a pool
    with ``sample(rng)``; default uniform random), ``seat``, ``include_unseen``, ``shaping`` (None,
    ``"auto"``, the game's scalar potential, or a batched potential ``Φ(spec, seats [k], obs [k, D])
    -> [k]``), ``shaping_scale``, ``gamma``, ``privileged`` (append the hidden-state features of
    :func:`~kortmiljo.core.game.other_seats_privileged_batch`, for an asymmetric critic; the same
    vector as the scalar view's), ``seed`` (lane ``i`` seeded with ``seed + i``; None: fresh
    entropy).
    """

    def __init__(
        self,
        game: Game | str,
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
        self.game = resolve_game(game, config)
        self.engine = self.game.new_batched(num_envs, seed=0, autoreset=False)
        e = self.engine
        self.config = dict(self.game.config)
        self.num_players = n = e.num_players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} or None, got {seat!r}")
        self.fixed_seat = seat
        self.include_unseen = include_unseen
        features = self.game.features
        if shaping == "auto":
            shaping = features.potential_batch
        elif isinstance(shaping, str):
            raise ValueError(f"shaping must be a potential function, 'auto' or None, got {shaping!r}")
        elif shaping is not None and shaping is features.potential:  # the game's own, lane-wise
            shaping = features.potential_batch
        self.shaping = shaping
        self.shaping_scale = float(shaping_scale)
        self.gamma = float(gamma)
        if opponents is None:
            opponents = [RandomPolicy(self.game, seed=None if seed is None else seed + 1)]
        self.opponents = opponents if hasattr(opponents, "sample") else _ListSampler(opponents)
        for pol in getattr(self.opponents, "members", lambda: [])():
            if getattr(pol, "needs_engine", False):
                raise ValueError(f"{pol!r} needs the live engine; the vector env steps opponents in batch")
        self.render_mode = None
        self.num_actions = e.num_actions
        self.width = self.game.deck.width
        self.actor_size = e.obs_size + (self.width if include_unseen else 0)
        self._privileged = (lambda seats, lanes: features.privileged_batch(e, seats, lanes)) if privileged else None
        self.privileged_size = features.privileged_size(self.game) if privileged else 0
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
        return self.engine.done()

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
                decks = np.array([self.game.deck.parse_deck(opts[i]["deck"]) for i in group]) if has_deck else None
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
        phi = self.shaping_scale * self.shaping(self.game, self.seat[lanes], obs)
        return np.where(self.engine.terminal[lanes], 0.0, phi)  # Φ = 0 at an end, not at a cut (truncation)

    # ---- VecEnv API -------------------------------------------------------------------------------------
    def _check_reset(self, seeds: list, options: list) -> list[dict]:
        """Every lane's seed and options checked (as the scalar view checks them) before any change."""
        checked = []
        for lane, (seed, opts) in enumerate(zip(seeds, options, strict=True)):
            try:
                check_seed(seed)
                o = check_reset_options(opts, SEAT_VIEW_OPTIONS)
                if "deck" in o:
                    self.game.deck.parse_deck(o["deck"])
                if "dealer" in o:
                    check_dealer(o["dealer"], self.num_players)
                if "seat" in o and (not is_int(o["seat"]) or not 0 <= o["seat"] < self.num_players):
                    raise ValueError(f"options['seat'] must be a seat 0..{self.num_players - 1}, got {o['seat']!r}")
            except ValueError as err:
                raise ValueError(f"lane {lane}: {err}") from None
            checked.append(o)
        return checked

    def reset(self):
        seeds = self._seeds
        options = self._check_reset(seeds, self._options)  # a refused reset changes nothing
        for lane, seed in enumerate(seeds):
            if seed is None:
                continue
            # as SingleSeatEnv.reset(seed=…): a fresh generator, then the opponents' own generators
            rng = self.rngs[lane] = np.random.default_rng(seed)
            for pol in getattr(self.opponents, "members", lambda: [])():
                if hasattr(pol, "seed"):
                    pol.seed(int(rng.integers(2**63)))
        self.engine.seed(rngs=self.rngs)
        if any(s is not None for s in seeds):
            self.engine.new_session([i for i, s in enumerate(seeds) if s is not None])
        obs = self._new_episodes(self._all, options)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        e = self.engine
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
        truncated = e.truncated & ~terminal
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
            lanes_done = finished.tolist()
            results = e.lane_infos(lanes_done, [int(seats[i]) for i in lanes_done])  # the scalar engine's dicts
            for i, res in zip(lanes_done, results, strict=True):
                info = infos[i]
                info.update(res)
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


def native_supported(game: Game) -> str | None:
    """Why ``game`` cannot run on the native vector env, or None (it can)."""
    d = game.definition
    if not d.has_batched:
        return f"{d.name} has no batched engine"
    return d.batched_class.unsupported(game)


def choose_vec(vec: str, game: Game, n_envs: int) -> str:
    """The vector env for ``--vec``: ``"auto"`` → ``"native"`` where the game has a batched engine for
    this configuration and ``n_envs`` reaches its descriptor's ``native_min_lanes`` (below it the
    batched engine's per-call overhead outweighs batching), else ``"dummy"``; explicit choices pass
    through (``"native"`` where it cannot run raises ``ValueError`` saying why)."""
    why = native_supported(game)
    if vec == "auto":
        return "native" if why is None and n_envs >= game.definition.native_min_lanes else "dummy"
    if vec == "native" and why is not None:
        raise ValueError(f"--vec native: {why}")
    return vec
