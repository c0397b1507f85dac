"""The single-agent training view: one learner seat, the opponents stepped inside.

:class:`SingleSeatEnv` is a ``gymnasium.Env`` for reinforcement-learning libraries
that expect one agent (Stable-Baselines3, sb3-contrib's MaskablePPO). It drives a
kortmiljo engine directly (not the AEC wrapper, for speed) and, per episode:

* draws the **learner's seat** from the env's own seeded RNG (or uses a fixed ``seat``),
  so one policy learns every seat from its own, seat-relative point of view;
* draws an **opponent policy per other seat** from ``opponents`` (a list of
  :class:`kortmiljo.agents.base.Policy` objects, or a pool object with ``sample(rng)``; a
  self-play pool of frozen learner snapshots is one such pool, see ``train/pool.py``);
* steps every opponent move inside ``reset``/``step`` until the learner must decide.

Reward semantics (what SB3 sees as the episode return):

* ``step`` returns the learner's own reward summed over every engine step from its
  action up to its next decision, so a **terminal reward produced on an opponent's
  move** (Spøkelse: the round ends after whoever draws the last stock card) reaches the
  learner on the step that ended its episode.
* Rewards produced by opponent moves **before the learner's first decision** are held
  and added to the reward of its first step, so the episode return always equals the
  learner's game return (plus shaping, if any).
* An episode that **ends before the learner decides at all** (possible in general, e.g.
  a game in which the others settle everything) carries no decision to credit: it is
  dropped and a new episode is dealt transparently, inside the same ``reset``. Its
  reward is *not* carried into the next episode (it would credit the next episode's
  actions with an outcome they did not cause); the count and the dropped reward are
  reported in ``info["skipped_episodes"]`` and ``info["skipped_reward"]``.
* Optional **potential-based shaping** (``shaping=Φ``): the step reward gains
  ``γ·Φ(s') − Φ(s)`` between consecutive learner decision states, with ``Φ = 0`` at the
  end, which leaves the optimal policy unchanged (Ng, Harada & Russell 1999). ``Φ`` sees
  only the learner's own observation. ``shaping="auto"`` takes the game's own potential
(its descriptor's ``features.potential``), if it has one.
* **Truncation** (a game's safety cap, such as Spøkelse's ``max_steps``): ``step`` returns
  ``terminated=False, truncated=True`` with the cap's name in ``info["truncated_by"]``, so
  that SB3 (``DummyVecEnv``: ``info["TimeLimit.truncated"]``) bootstraps the value of the last
  observation. A truncated state is not an end, so shaping keeps its ``Φ`` there.

Observation: ``Box(float32)``, the engine's flat observation vector for the learner's
seat; with ``include_unseen=True`` (the default) the seat's 0/1 ``unseen`` card mask is
appended (``deck.width`` more entries). **Decision**: the unseen mask is the exact set of
cards the learner cannot locate; some layouts only imply it, and a policy learns faster
from it stated. With ``privileged=True`` a vector of hidden state follows
(``privileged_features``: Spøkelse's true slots, ghosts and stock order; elsewhere the
other seats' own observations). It is meant for an asymmetric critic only
(``train/policy.py`` slices the actor's input to the first ``actor_size`` entries); a
policy that read it would cheat.

``action_masks()`` (on the env itself, so it works in any VecEnv) gives the learner's
legal actions as booleans, and ``action_space.sample()`` draws a legal action
(:class:`LegalDiscrete`).

Illegal actions. Gymnasium's contract (and its ``check_env``) expects every action of
the space to be accepted. **Decision**: by default (``illegal_action="penalty"``) an
illegal action abandons the game (the engine refuses it before any change), ends the
episode with reward ``illegal_penalty`` (−1) and says so in ``info["illegal_action"]``;
a masked learner never meets this. ``illegal_action="raise"`` re-raises the engine's
``IllegalActionError`` instead, for debugging.

Infos. ``reset`` and every ``step`` return an ``info`` with the same keys (replay buffers and
vector wrappers that stack infos step by step need that): the view's own :data:`VIEW_INFO_KEYS`

* ``seat`` (int): the learner's seat in this episode;
* ``skipped_episodes`` (int) and ``skipped_reward`` (float): the episodes this ``reset`` dropped
  before the learner's first decision and their reward (see above); 0 on every ``step``;
* ``game_reward`` (float): the step's unshaped reward (0.0 in ``reset``);
* ``game_return`` (float): the episode's unshaped return so far, its return once it has ended;
* ``decisions`` (int): the learner's actions played so far in this episode;
* ``illegal_action`` (str): ``""``, or the engine's message on the step whose illegal action
  abandoned the game;

followed by the game's own info keys (``engine.env_info(seat)``, docs/<game>.md, Infos: neutral
values until the episode ends, the result at its end, ``truncated_by`` naming a cap that cut it),
which every game of the package keeps the same at every step (a plug-in game that keeps the base
``Engine.env_info`` adds its result keys at the end only). An episode has ended when
``terminated`` or ``truncated`` says so, not when a key appears.
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..core.engine import Engine
from ..core.errors import IllegalActionError
from ..core.game import Game, as_game
from ..core.options import is_int
from ..core.policy import RandomPolicy
from ..core.registry import load_game
from .aec import SEAT_VIEW_OPTIONS, check_reset_options, check_seed

Potential = Callable[[Engine, int, np.ndarray], float]

# the view's own info keys, in every info of reset and step (the module docstring, Infos)
VIEW_INFO_KEYS = (
    "seat",
    "skipped_episodes",
    "skipped_reward",
    "game_reward",
    "game_return",
    "decisions",
    "illegal_action",
)


def resolve_game(game: Game | str | Engine, config: dict | None = None) -> Game:
    """The configured game of a training view: a Game, a state's game, or a registered name with
    ``config`` (a convenience at the edge; every layer below works on the Game)."""
    if isinstance(game, str):
        return load_game(game, **(config or {}))
    if config:
        raise ValueError("pass either a configured Game or a game name with config, not both")
    return as_game(game)


def observation_size(game: Game, include_unseen: bool = True) -> int:
    """Length of the training view's observation vector for this configuration."""
    return game.layout.size + (game.deck.width if include_unseen else 0)


def flat_observation(obs: dict[str, np.ndarray], include_unseen: bool = True) -> np.ndarray:
    """The training view's vector built from an AEC observation dict (for trained policies)."""
    if not include_unseen:
        return np.asarray(obs["observation"], dtype=np.float32)
    return np.concatenate(
        [np.asarray(obs["observation"], dtype=np.float32), np.asarray(obs["unseen"], dtype=np.float32)]
    )


def privileged_features(state: Engine, seat: int) -> np.ndarray:
    """The privileged (hidden-state) feature vector of ``seat``: the game's own, else other seats' views."""
    return state.game.features.privileged(state, seat)


def privileged_size(game: Game) -> int:
    """Length of :func:`privileged_features` for this configuration (the game's descriptor says)."""
    return game.features.privileged_size(game)


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws a legal action of its env's current state.

    So ``env.action_space.sample()`` (random rollouts, gymnasium's ``check_env``) never
    proposes an action the engine would refuse; an explicit ``mask`` or ``probability``
    works as usual. The link to the env is a weak reference and is dropped when the
    space is pickled (a copy in another process samples like a plain ``Discrete``).
    """

    def __init__(self, n: int, env: SingleSeatEnv | None = None, seed: int | None = None):
        super().__init__(n, seed=seed)
        self._env = weakref.ref(env) if env is not None else None

    def sample(self, mask=None, probability=None):
        env = self._env() if self._env is not None else None
        if mask is None and probability is None and env is not None:
            mask = env.action_masks().astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_env"] = None
        return state

    def __deepcopy__(self, memo):
        new = LegalDiscrete(int(self.n))
        new._np_random = copy.deepcopy(self._np_random, memo)
        return new


class _ListSampler:
    """Uniform choice from a fixed list of policies."""

    def __init__(self, policies: Sequence[Any]):
        if not policies:
            raise ValueError("opponents must not be empty")
        self.policies = list(policies)

    def sample(self, rng: np.random.Generator):
        return self.policies[int(rng.integers(len(self.policies)))]

    def members(self) -> list:
        return list(self.policies)


class SingleSeatEnv(gymnasium.Env):
    """One learner seat of a kortmiljo game as a gymnasium env (see the module docstring).

    Parameters: ``game`` (a configured :class:`~kortmiljo.core.game.Game`; a registered name
    with ``config``, the game's options, is accepted too), ``opponents`` (Policy objects or a pool with
    ``sample(rng) -> Policy``; default: uniform random), ``seat`` (None: drawn per
    episode), ``include_unseen``, ``shaping`` (a potential ``Φ(engine, seat, obs)``, the
    name ``"auto"`` for the game's built-in one, or None), ``shaping_scale`` and
    ``gamma`` (use the learner's discount), ``illegal_action`` (``"penalty"``: an illegal
    action ends the episode with ``illegal_penalty``, as gymnasium requires every action of
    the space to be accepted; ``"raise"``: the engine's ``IllegalActionError``), ``seed``.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: Game | str,
        config: dict | None = None,
        opponents: Sequence[Any] | Any | None = None,
        *,
        seat: int | None = None,
        include_unseen: bool = True,
        shaping: Potential | str | None = None,
        shaping_scale: float = 1.0,
        gamma: float = 0.99,
        privileged: bool = False,
        illegal_action: str = "penalty",
        illegal_penalty: float = -1.0,
        seed: int | None = None,
        render_mode: str | None = None,
    ):
        super().__init__()
        if illegal_action not in ("penalty", "raise"):
            raise ValueError(f"illegal_action must be 'penalty' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.game = resolve_game(game, config)
        self.engine = e = self.game.new_state()
        self.config = dict(self.game.config)
        self.num_players = e.num_players
        if seat is not None and not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be 0..{self.num_players - 1} or None, got {seat!r}")
        self.fixed_seat = seat
        self.include_unseen = include_unseen
        if shaping == "auto":
            shaping = self.game.features.potential
        elif isinstance(shaping, str):
            raise ValueError(f"shaping must be a potential function, 'auto' or None, got {shaping!r}")
        self.shaping = shaping
        self.shaping_scale = float(shaping_scale)
        self.gamma = float(gamma)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r} is not allowed; use None or 'ansi'")
        self.render_mode = render_mode
        if opponents is None:
            opponents = [RandomPolicy(self.game, seed=None if seed is None else seed + 1)]
        self.opponents = opponents if hasattr(opponents, "sample") else _ListSampler(opponents)

        self.num_actions = self.game.num_actions
        self.actor_size = observation_size(self.game, include_unseen)
        self.privileged = privileged
        self.privileged_size = privileged_size(self.game) if privileged else 0
        self.obs_size = self.actor_size + self.privileged_size
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(self.obs_size,), dtype=np.float32)
        self.action_space = LegalDiscrete(self.num_actions, self)
        self.seat = 0
        self._opp: list[Any] = []
        self._phi = 0.0
        self._pending = 0.0
        self._last_mask = np.ones(self.num_actions, dtype=bool)
        self._skipped = 0
        self._abandoned = False
        self._skipped_reward = 0.0
        self._game_return = 0.0
        self._decisions = 0
        if seed is not None:
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)

    # ---- helpers ----------------------------------------------------------------------------
    def _learner_obs(self) -> np.ndarray:
        e = self.engine
        parts = [e.observe(self.seat)]
        if self.include_unseen:
            parts.append(e.unseen(self.seat).astype(np.float32))
        if self.privileged:
            parts.append(privileged_features(e, self.seat))
        return np.concatenate(parts) if len(parts) > 1 else parts[0].copy()

    def _done(self) -> bool:
        return self.engine.terminal or self.engine.truncated or self._abandoned

    def _run_opponents(self) -> float:
        """Step opponents until the learner is on move or the episode ends; the learner's rewards."""
        e = self.engine
        total = 0.0
        while not self._done() and e.current_player != self.seat:
            s = e.current_player
            pol = self._opp[s]
            a = pol.act(e.observation(s), e if getattr(pol, "needs_engine", False) else None)
            e.step(int(a))
            total += e.rewards[self.seat]
        return total

    def _info(self, game_reward: float, illegal: str = "", skipped: int = 0, skipped_reward: float = 0.0) -> dict:
        """The info of ``reset`` and ``step``: the same keys every time (the module docstring, Infos)."""
        return {
            **self.engine.env_info(self.seat),
            "seat": self.seat,
            "skipped_episodes": skipped,
            "skipped_reward": skipped_reward,
            "game_reward": game_reward,
            "game_return": float(self._game_return),
            "decisions": self._decisions,
            "illegal_action": illegal,
        }

    def _potential(self, obs: np.ndarray) -> float:
        if self.shaping is None or self.engine.terminal or self._abandoned:  # Φ = 0 at an end, not at a cut
            return 0.0
        return self.shaping_scale * float(self.shaping(self.engine, self.seat, obs))

    # ---- gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        # everything is checked before anything changes: a refused reset leaves the env as it was
        seed = check_seed(seed)
        options = check_reset_options(options, SEAT_VIEW_OPTIONS)
        self.engine.check_episode(options.get("deck"), options.get("dealer"))
        if "seat" in options and (not is_int(options["seat"]) or not 0 <= options["seat"] < self.num_players):
            raise ValueError(f"options['seat'] must be a seat 0..{self.num_players - 1}, got {options['seat']!r}")
        super().reset(seed=seed)
        rng = self.np_random
        if seed is not None:
            self.engine.new_session()  # state carried between episodes (a pot) starts afresh
            # opponents' own RNGs follow the env's seed, so a seeded reset is reproducible
            for pol in getattr(self.opponents, "members", lambda: [])():
                if hasattr(pol, "seed"):
                    pol.seed(int(rng.integers(2**63)))
        skipped, skipped_reward = 0, 0.0
        self._abandoned = False
        for _ in range(10_000):
            self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(self.num_players))
            if "seat" in options:
                self.seat = int(options["seat"])
            self._opp = [None if s == self.seat else self.opponents.sample(rng) for s in range(self.num_players)]
            self.engine.new_episode(rng, options.get("deck"), options.get("dealer"))
            r = self._run_opponents()
            if not self._done():
                break
            skipped += 1  # the episode ended before the learner decided: deal a new one
            skipped_reward += r
            if "deck" in options:
                raise ValueError("the stacked deck ends the episode before the learner's first decision")
        else:
            raise RuntimeError("10,000 episodes in a row ended before the learner's first decision")
        self._skipped += skipped
        self._skipped_reward += skipped_reward
        self._pending = r
        self._game_return = 0.0
        self._decisions = 0
        obs = self._learner_obs()
        self._phi = self._potential(obs)
        self._last_mask = self.engine.legal_mask().astype(bool)
        return obs, self._info(0.0, skipped=skipped, skipped_reward=float(skipped_reward))

    def step(self, action):
        e = self.engine
        if self._done():
            raise RuntimeError("step() called on a finished episode; call reset() first")
        try:
            e.step(int(action))  # raises IllegalActionError (a ValueError) before any change
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise
            # gymnasium's contract: every action of the space is a valid input. The game is
            # abandoned (the engine is unchanged), the learner gets the penalty, the episode ends.
            self._last_mask = np.ones(self.num_actions, dtype=bool)
            self._abandoned = True
            self._game_return += self.illegal_penalty
            info = self._info(self.illegal_penalty, illegal=str(err))
            return self._learner_obs(), self.illegal_penalty - self._phi, True, False, info
        r = e.rewards[self.seat] + self._pending
        r += self._run_opponents()  # a terminal reward may come on an opponent's move
        self._pending = 0.0
        self._decisions += 1
        self._game_return += r
        obs = self._learner_obs()
        terminated, truncated = bool(e.terminal), bool(e.truncated and not e.terminal)
        game_r = r
        if self.shaping is not None:
            phi_next = self._potential(obs)
            r = r + self.gamma * phi_next - self._phi
            self._phi = phi_next
        if terminated or truncated:
            self._last_mask = np.ones(self.num_actions, dtype=bool)
        else:
            self._last_mask = e.legal_mask().astype(bool)
        return obs, float(r), terminated, truncated, self._info(float(game_r))

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool). All True once the episode is over (nothing to mask)."""
        return self._last_mask.copy()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        return self.engine.render(None if self._done() else self.seat)

    # ---- pool access for VecEnv.env_method ---------------------------------------------------
    def opponents_call(self, method: str, *args, **kwargs):
        """Call ``method`` on the opponent pool (for ``VecEnv.env_method`` with SubprocVecEnv)."""
        return getattr(self.opponents, method)(*args, **kwargs)

    def rng_state(self) -> dict:
        """The env RNG's state (JSON-able), for resumable training checkpoints."""
        return dict(self.np_random.bit_generator.state)

    def set_rng_state(self, state: dict) -> None:
        self.np_random.bit_generator.state = state

    @property
    def skipped_episodes(self) -> int:
        return self._skipped
