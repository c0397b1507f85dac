"""A seeded stateful fuzz of one game's PettingZoo env: legal and refused inputs interleaved.

Each operation is drawn from the fuzzer's own generator (so a run is a pure function of the game,
its configuration and the seed): a legal action (or ``None`` for an agent whose game is over), a
bad action (an illegal index, out of range, a float, a bool, ``None``, a string, …), a non-``None``
action for a dead agent, a good ``reset`` (seeded or not, stacked deck, fixed dealer) or a bad one
(unknown, duplicate or missing cards, a deck given as a ``set``, a bad dealer, ``options="x"``,
``seed=1.5``, ``seed=-1``, …), reading every seat's observation, ``last()``, ``state()`` and the
renderings. After every refused input the whole state must be as it was (:func:`.probes.snapshot`);
reads must change nothing either; after every accepted input the views must be well formed
(:func:`.probes.check_views`, every ``check_every`` operations); every finished episode must
respect the game's facts (:meth:`.probes.Episode.check_end`).

``tests/conformance/test_fuzz.py`` runs a few hundred operations per configuration;
``benchmarks/soak.py`` runs 10⁶ steps per game with the same driver.
"""

from __future__ import annotations

from collections import Counter
from importlib import import_module

import numpy as np

from .probes import (
    Episode,
    assert_unchanged,
    bad_actions,
    bad_resets,
    check_bad_action,
    check_views,
    good_reset,
    random_legal,
    refuses,
    snapshot,
)

# operation -> weight (legal play dominates, so that episodes reach their ends)
OPERATIONS = {
    "act": 70,
    "bad_action": 10,
    "dead_action": 2,
    "bad_reset": 6,
    "good_reset": 2,
    "read": 6,
    "render": 2,
}


class Fuzzer:
    """Fuzz ``kortmiljo.<game>_v<version>.env(**config)`` (see the module docstring).

    ``definition`` is the game's :class:`~kortmiljo.core.game.GameDef`; ``check_every``: check the
    views after every k-th accepted operation (1 in the tests; the soak run may check less often).
    Refused inputs are always checked in full. ``weights`` overrides entries of :data:`OPERATIONS`
    (the soak run makes good resets rare, so that long episodes reach their ends).
    """

    def __init__(
        self, definition, config: dict, seed: int, check_every: int = 1, weights: dict[str, float] | None = None
    ):
        module = import_module(f"kortmiljo.{definition.env_name}")
        self.env = module.env(render_mode="ansi", **config)
        self.raw = self.env.unwrapped
        self.game = self.raw.game
        self.rng = np.random.default_rng(seed)
        self.check_every = max(1, int(check_every))
        self.counts: Counter[str] = Counter()
        self.steps = 0  # accepted actions (the soak run's budget)
        self.episodes = 0  # finished episodes checked against the facts
        unknown = set(weights or {}) - set(OPERATIONS)
        if unknown:
            raise ValueError(f"unknown fuzz operations {sorted(unknown)}; operations: {', '.join(OPERATIONS)}")
        self._ops, w = zip(*{**OPERATIONS, **(weights or {})}.items(), strict=True)
        self._cum = np.cumsum(w) / sum(w)
        self._reset(seed=seed)

    # ---- driving ---------------------------------------------------------------------------
    def run(self, steps: int) -> Counter:
        """Operate until ``steps`` more actions have been accepted; the operation counts."""
        target = self.steps + steps
        while self.steps < target:
            self.operate()
        return self.counts

    def operate(self) -> str:
        op = self._ops[min(int(np.searchsorted(self._cum, self.rng.random(), side="right")), len(self._ops) - 1)]
        if not self.raw.agents:  # every agent has had its last turn: only a reset goes on
            op = "good_reset" if op in ("act", "dead_action") else op
        getattr(self, f"_{op}")()
        self.counts[op] += 1
        if op in ("act", "good_reset") and self.counts["act"] % self.check_every == 0:
            check_views(self.env)
        return op

    # ---- operations --------------------------------------------------------------------------
    def _reset(self, **kwargs) -> None:
        self.env.reset(**kwargs)
        self.episode = Episode(self.game.num_players)

    def _good_reset(self) -> None:
        label, kwargs = good_reset(self.game, self.rng)
        self.counts[f"reset: {label}"] += 1
        self._reset(**kwargs)

    def _bad_reset(self) -> None:
        choices = bad_resets(self.game, self.rng)
        label, kwargs = choices[int(self.rng.integers(len(choices)))]
        before = snapshot(self.env)
        try:
            refuses(lambda: self.env.reset(**kwargs))
        except AssertionError as err:
            raise AssertionError(f"reset({label}: {kwargs!r}) {err}") from None
        assert_unchanged(before, snapshot(self.env), f"the refused reset({label})")

    def _act(self) -> None:
        env, e = self.env, self.raw.engine
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        self.episode.before_step(agent, reward)
        if term or trunc:
            self.episode.infos[agent] = info
            env.step(None)
            if not self.raw.agents:  # the episode's last turn: the books against the facts
                self.episode.check_end(env)
                self.episodes += 1
            return
        seat = e.current_player
        env.step(random_legal(self.rng, obs["action_mask"]))
        self.episode.after_step(seat, e)
        self.steps += 1

    def _bad_action(self) -> None:
        if not self.raw.agents or self._selected_is_dead():
            return self._dead_action()
        choices = bad_actions(self.raw.engine, self.rng, indices=1)  # one kind, one illegal index at most
        label, action = choices[int(self.rng.integers(len(choices)))]
        check_bad_action(self.env, label, action)

    def _dead_action(self) -> None:
        """A dead agent may only step ``None``; PettingZoo refuses anything else before any change."""
        if not self.raw.agents or not self._selected_is_dead():
            return None
        before = snapshot(self.env)
        action = random_legal(self.rng, np.ones(self.game.num_actions))
        refuses(lambda: self.env.step(action))
        assert_unchanged(before, snapshot(self.env), f"the refused dead step({action})")

    def _read(self) -> None:
        """Reading every seat's view, ``last()`` and ``state()`` changes nothing."""
        before = snapshot(self.env)
        for agent in self.raw.possible_agents:
            self.env.observe(agent)
        if self.raw.agents:
            self.env.last()
        self.env.state()
        assert_unchanged(before, snapshot(self.env), "reading the views")

    def _render(self) -> None:
        """Rendering (the env's view and every seat's) returns text and changes nothing."""
        before = snapshot(self.env)
        text = self.env.render()
        assert isinstance(text, str) and text, f"render() gave {text!r}"
        e = self.raw.engine
        for viewer in (None, *range(e.num_players)):
            assert isinstance(e.render(viewer), str)
        assert_unchanged(before, snapshot(self.env), "rendering")

    def _selected_is_dead(self) -> bool:
        agent = self.raw.agent_selection
        return self.raw.terminations[agent] or self.raw.truncations[agent]


def fuzz(
    definition, config: dict, seed: int, steps: int, check_every: int = 1, weights: dict[str, float] | None = None
) -> Fuzzer:
    """Run a :class:`Fuzzer` for ``steps`` accepted actions and return it (its counts and books)."""
    f = Fuzzer(definition, config, seed, check_every, weights)
    f.run(steps)
    return f
