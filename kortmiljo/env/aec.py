"""The one PettingZoo AEC adapter that serves every kortmiljo engine.

Everything game-specific comes from the configured game and its engine: seats, the
action table, the observation layout, rewards and infos. The adapter adds what PettingZoo users
expect: spaces built once per configuration, seeding (``reset(seed=…)`` reproducible,
an unseeded ``reset`` continues the stream), stacked decks and a fixed dealer through
``options``, cumulative rewards, the dead-agent protocol, ``render`` and ``state()``.
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from ..core.game import Game, GameDef
from ..core.options import is_int, names_of, short_repr


def check_seed(seed: Any) -> int | None:
    """A ``reset`` seed: None or a non-negative int (``ValueError`` saying so otherwise)."""
    if seed is None:
        return None
    if not is_int(seed) or seed < 0:
        raise ValueError(f"seed must be None or a non-negative int, got {short_repr(seed)}")
    return int(seed)


# the ``reset`` options that set up an episode, in ``Engine.new_episode``'s order: the stacked deck
# and dealer of the first deal (the rules contract), then what a record restores: the stacked decks
# of later deals and the state carried in from an earlier episode
EPISODE_OPTIONS = ("deck", "dealer", "later_decks", "carry")


# the ``reset`` options of the single-seat training views (``SingleSeatEnv`` and the native vector env):
# the first deal's stacked deck and dealer, and the learner's seat
SEAT_VIEW_OPTIONS = ("deck", "dealer", "seat")


class UnknownResetOptionWarning(UserWarning):
    """``reset(options=...)`` of the PettingZoo env got a key it does not read (it is ignored)."""


def _near(key: Any, allowed: tuple[str, ...]) -> str | None:
    """The allowed key that ``key`` misspells, if it reads as one (case, a letter or two), else None."""
    if not isinstance(key, str) or len(key) > 40:
        return None
    found = difflib.get_close_matches(key.lower().strip(), allowed, n=1, cutoff=0.75)
    return found[0] if found else None


def check_reset_options(options: Any, allowed: tuple[str, ...] = EPISODE_OPTIONS, *, unknown: str = "raise") -> dict:
    """``reset`` options: None or a mapping whose keys are all in ``allowed`` (:data:`EPISODE_OPTIONS`
    by default), so that a misspelt key (``"dealr"``) never deals the episode as if it were not there.

    A key outside ``allowed`` raises ``ValueError`` naming the allowed keys. With ``unknown="warn"``
    (the PettingZoo env: PettingZoo's own ``api_test`` and ``parallel_test`` call
    ``reset(options={"options": 1})`` and require it to work) only a key that reads as a misspelt
    allowed one (``"Dealer"``, ``"dealr"``, ``"decks"``) raises; any other gives an
    :class:`UnknownResetOptionWarning` in the same words and is ignored."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(
            f"options must be None or a dict such as {{'dealer': 0, 'deck': [...]}}, got {short_repr(options)}"
        )
    keys = [k for k in options if k not in allowed]
    if keys:
        message = f"unknown reset option(s) {names_of(keys)}; the allowed keys are {', '.join(map(repr, allowed))}"
        near = {k: _near(k, allowed) for k in keys}
        if unknown != "warn" or any(near.values()):
            hint = "; ".join(f"{short_repr(k)}: did you mean {m!r}?" for k, m in near.items() if m)
            raise ValueError(f"{message}{' (' + hint + ')' if hint else ''}")
        warnings.warn(f"{message} (the unknown ones are ignored)", UnknownResetOptionWarning, stacklevel=3)
    return {k: v for k, v in options.items() if k in allowed}


class CardGameEnv(AECEnv):
    """A PettingZoo ``AECEnv`` over any configured :class:`~kortmiljo.core.game.Game`."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "is_parallelizable": False, "render_fps": 1}

    def __init__(self, game: Game, render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode={render_mode!r} is not allowed; use None, 'ansi' or 'human'")
        if not isinstance(game, Game):
            raise TypeError(f"CardGameEnv takes a configured Game (kortmiljo.load_game(...)), got {game!r}")
        self.game = game
        self.engine = game.new_state()
        self.render_mode = render_mode
        self.metadata = {**CardGameEnv.metadata, "name": game.env_name}
        e = self.engine
        n = e.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents: list[str] = []
        num_actions = len(e.action_names)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low=-np.inf, high=np.inf, shape=(e.layout.size,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8),
                "unseen": spaces.Box(low=0, high=1, shape=(e.deck.width,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.state_space = spaces.Box(low=-np.inf, high=np.inf, shape=(e.state_size,), dtype=np.float32)
        self._rng: np.random.Generator | None = None
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}

    # PettingZoo looks these up per agent; one object per configuration
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---- episode --------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # everything is checked before anything changes: a refused reset leaves the env as it was
        seed = check_seed(seed)
        options = check_reset_options(options, unknown="warn")
        episode = [options.get(k) for k in EPISODE_OPTIONS]
        self.engine.check_episode(*episode)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
            # a new random stream is a new session: an engine that carries state from one
            # episode to the next (Femkortskille payments_stay's pot) starts afresh
            self.engine.new_session()
        self.engine.new_episode(self._rng, *episode)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        # the same keys at every step (the engine's neutral values until the episode ends)
        self.infos = {a: self.engine.env_info(i) for i, a in enumerate(self.agents)}
        self._had_reward = False
        self.agent_selection = self.possible_agents[self.engine.current_player]

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        e = self.engine
        if action is None:
            e.raise_illegal(action, e.legal_actions())
        e.step(action)  # raises IllegalActionError before any change
        self._cumulative_rewards[agent] = 0.0
        rewards = e.rewards
        if any(rewards) or self._had_reward:
            self._had_reward = any(rewards)
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = float(rewards[i])
                self._cumulative_rewards[a] += float(rewards[i])
        if e.terminal or e.truncated:
            for i, a in enumerate(self.possible_agents):
                self.terminations[a] = e.terminal
                self.truncations[a] = e.truncated and not e.terminal
                self.infos[a] = e.env_info(i)
            # every seat gets one last turn to see its final reward, from the acting seat on
            self.agent_selection = self.possible_agents[(self._seat[agent] + 1) % e.num_players]
        else:
            self.agent_selection = self.possible_agents[e.current_player]
        if self.render_mode == "human":
            self.render()

    # ---- views ------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.engine.observation(self._seat[agent])

    def state(self) -> np.ndarray:
        return self.engine.global_state()

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        e = self.engine
        viewer = None if (e.terminal or e.truncated) else e.current_player
        text = e.render(viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ---- names ------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        return self.game.action_to_string(action)

    def action_from_string(self, text: str) -> int:
        return self.game.action_from_string(text)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with a direct ``last()``.

    The stock wrapper resolves every attribute that ``AECEnv.last`` reads through two
    ``__getattr__`` layers, which costs about a fifth of a step here; the checks are the same.
    """

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)


def _forward(name: str, guarded: bool = True) -> property:
    """A read-only attribute of the wrapped env, with the wrapper's before-reset check.

    Class attributes bypass ``__getattr__``, which the AEC loop would otherwise walk
    through twice for every ``agent_selection``, ``agents`` or ``rewards`` it reads.
    """

    def get(self):
        if guarded and not self.__dict__.get("_has_reset", False):
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get)


for _name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos"):
    setattr(OrderEnforcing, _name, _forward(_name))
OrderEnforcing._cumulative_rewards = _forward("_cumulative_rewards", guarded=False)


def make_env_fns(definition: GameDef):
    """``env`` and ``raw_env`` for a game module, wrapped per PettingZoo conventions.

    ``env()`` adds only ``OrderEnforcingWrapper``: illegal and out-of-range actions
    already raise a clear error from the engine, and PettingZoo's penalty wrapper
    (``TerminateIllegalWrapper``) stays opt-in.
    """

    def raw_env(render_mode: str | None = None, **config: Any) -> CardGameEnv:
        return CardGameEnv(definition.configure(**config), render_mode=render_mode)

    def env(render_mode: str | None = None, **config: Any) -> AECEnv:
        return OrderEnforcing(raw_env(render_mode=render_mode, **config))

    raw_env.__doc__ = f"The unwrapped {definition.env_name} AEC environment (see the module docstring)."
    env.__doc__ = f"The {definition.env_name} AEC environment wrapped per PettingZoo conventions."
    return env, raw_env
