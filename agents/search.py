"""``search_v0``: determinized Monte Carlo search over the game's heuristic, for every game.

For each decision with more than one legal action:

1. Sample ``worlds`` determinizations with ``engine.resample(seat, rng)``: the cards this
   seat cannot locate are redealt consistently with what it has seen. This is the only
   call made on the live engine (a test hands search an engine stand-in that offers
   nothing else), so the decision cannot depend on the hidden cards; where the game's
   resample is canonical a second test resamples the real hidden cards and checks that
   the seeded decision and its scores do not change.
2. In every world apply each legal action on a clone and play on to the end of the
   episode ``rollouts`` times, every seat driven by the game's heuristic (random play
   where a game has no heuristic). The score of a rollout is this seat's total reward
   from the decision on (``score="points"``: the points margin, where the rollout policy
   can compute it).
3. Pick the action with the best mean score, but leave the heuristic's own move only on
   evidence (below).

Choices worth knowing, each measured in Spøkelse against ``heuristic_v0`` on duplicate deals:

* **Common random numbers.** All actions are scored on the same worlds with the same
  rollout seeds, so the comparison is paired: with win/loss rewards most rollouts agree
  and only the few that an action changes count.
* **Deviate on evidence.** The heuristic is close to the best reply to itself: at 300
  worlds the best action beats its move by about 0.005 wins per decision, and a changed
  move alters the outcome of the round in about one world in a hundred. A plain argmax
  over a few dozen worlds therefore chases noise (-0.30 ± 0.09 per game at 12 worlds),
  so the search keeps the heuristic's move unless the paired difference of the best
  action over it exceeds ``confidence`` standard errors (default 2; at 1 it still lost
  0.07 per game). Ties go to the heuristic's move, then to the lowest index
  (``tie_break="index"``: lowest index only).
* **Belief.** A rollout policy may supply ``sample_world(engine, seat, rng)``, which
  calls ``engine.resample`` and then reweights the redeal by what is known of how
  players play (``belief=False`` turns it off). Uniform redeals are badly biased in
  Spøkelse: players keep their low cards, so their face-down slots lie 2–4 points below
  the mean unseen card and the stock as much above it, and uniform worlds make drawing
  look better than it is.
* **Step budget.** After the first ``worlds`` worlds, more are added while the rollout
  steps stay within ``step_budget`` (at most ``max_worlds``): rollouts shorten towards
  the end of an episode, so late decisions get many more worlds for the same cost.
* **Own random streams.** Each world gets a fresh ``rng`` for the engine's later shuffles
  (redeals, match rounds), drawn from the searcher's own generator, so a rollout neither
  sees the real future deals nor advances the live engine's stream. ``rollouts`` > 1
  only differ where the rollout has randomness (random play, later deals).
* **Speed.** Rollout policies may offer ``act_seat(engine, seat)`` (the same decision read
  straight from the engine) and ``rollout_batch(states, seat, first_actions)`` (many
  rollouts at once in numpy; the Spøkelse heuristic has both, tested equal to ``act``).
  Defaults are sized to tens of milliseconds per decision on one core;
  ``benchmarks/strength.py`` reports the measured cost.
* A rollout that runs past ``max_rollout_steps`` is cut off and scored by the rewards
  it collected so far (a guard; no game should get there).
"""

from __future__ import annotations

import numpy as np

from kortmiljo.core.engine import Engine

from .base import Policy, RandomPolicy

# per game: worlds per decision, then more worlds while the rollout steps stay within the
# budget (up to max_worlds); sized by measurement to tens of milliseconds per decision
SAMPLE_COST = 60  # sampling a world costs about as much as this many rollout steps
DEFAULTS = {
    "spokelse": {"worlds": 40, "step_budget": 12_000, "max_worlds": 400},
    "sproyte": {"worlds": 3, "step_budget": 1_500, "max_worlds": 48},
    "femkortskille": {"worlds": 4, "step_budget": None, "max_worlds": 4},
}


def rollout_policy_for(engine: Engine, seed: int | None = None) -> Policy:
    """The game's heuristic if it has one registered, else uniform random play."""
    from .registry import make_agent

    try:
        return make_agent("heuristic", engine.NAME, dict(engine.config), seed=seed)
    except ValueError:
        return RandomPolicy(engine, seed)


def observation_of(engine: Engine, seat: int) -> dict[str, np.ndarray]:
    """The env-style observation dict of ``seat`` on the engine (mask only for the mover)."""
    if seat == engine.current_player and not (engine.terminal or engine.truncated):
        mask = engine.legal_mask()
    else:
        mask = np.zeros(len(engine.action_names), dtype=np.int8)
    return {"observation": engine.observe(seat), "action_mask": mask, "unseen": engine.unseen(seat)}


class SearchPolicy(Policy):
    """Determinized Monte Carlo with heuristic rollouts (see the module docstring)."""

    name = "search_v0"
    needs_engine = True

    def __init__(
        self,
        engine: Engine,
        seed: int | None = None,
        worlds: int | None = None,
        rollouts: int = 1,
        step_budget: int | None = -1,
        max_worlds: int | None = None,
        tie_break: str = "policy",
        confidence: float = 2.0,
        score: str = "reward",
        belief: bool = True,
        max_rollout_steps: int = 20_000,
    ):
        super().__init__(engine, seed)
        default = DEFAULTS.get(engine.NAME, {"worlds": 8, "step_budget": None, "max_worlds": 8})
        self.worlds = int(worlds if worlds is not None else default["worlds"])
        # -1: the game's default budget; None: exactly ``worlds`` worlds
        self.step_budget = default["step_budget"] if step_budget == -1 else step_budget
        self.max_worlds = int(max_worlds if max_worlds is not None else max(default["max_worlds"], self.worlds))
        self.rollouts = int(rollouts)
        if self.worlds < 1 or self.rollouts < 1:
            raise ValueError(f"worlds and rollouts must be >= 1, got worlds={self.worlds}, rollouts={self.rollouts}")
        if tie_break not in ("policy", "index"):
            raise ValueError(f"tie_break must be 'policy' or 'index', got {tie_break!r}")
        self.tie_break = tie_break
        self.confidence = float(confidence)
        if score not in ("reward", "points"):
            raise ValueError(f"score must be 'reward' or 'points', got {score!r}")
        self.score = score
        self.max_rollout_steps = int(max_rollout_steps)
        self.rollout_policy = rollout_policy_for(engine, seed)
        self._fast = getattr(self.rollout_policy, "act_seat", None)
        self._is_random = isinstance(self.rollout_policy, RandomPolicy)
        self._batch = getattr(self.rollout_policy, "rollout_batch", None)
        sampler = getattr(self.rollout_policy, "sample_world", None) if belief else None
        self._sample = sampler or (lambda engine, seat, rng: engine.resample(seat, rng))
        self.last_scores: dict[int, float] = {}  # action -> mean score of the last search (for inspection)

    def act(self, obs: dict[str, np.ndarray], engine: Engine | None = None) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) == 0:
            raise ValueError("no legal action in the observation's action_mask")
        if len(legal) == 1:
            self.last_scores = {int(legal[0]): 0.0}
            return int(legal[0])
        if engine is None:
            raise ValueError("search_v0 needs the live engine: call act(obs, engine) (needs_engine=True)")
        seat = engine.current_player
        actions = [int(a) for a in legal]
        samples = self.evaluate(engine, seat, actions)  # (actions, worlds * rollouts)
        scores = samples.mean(axis=1)
        self.last_scores = dict(zip(actions, scores.tolist(), strict=True))
        best = scores.max()
        tied = [a for a, s in zip(actions, scores, strict=True) if s >= best - 1e-9]
        if self.tie_break == "index" or self._is_random:
            return tied[0]
        default = int(self.rollout_policy.act(obs))
        if default in tied or default not in actions:
            return default if default in tied else tied[0]
        # deviate from the heuristic's own move only on evidence: the paired difference of
        # the best action over the default must exceed ``confidence`` standard errors
        j, k = actions.index(tied[0]), actions.index(default)
        d = samples[j] - samples[k]
        se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0.0
        return tied[0] if d.mean() > self.confidence * se else default

    def evaluate(self, engine: Engine, seat: int, actions: list[int]) -> np.ndarray:
        """Scores of each action: an array (actions, worlds * rollouts), paired by column.

        ``worlds`` worlds first; with a ``step_budget``, as many more as the rollout steps
        the first ones took say will fit (at most ``max_worlds`` in all): rollouts shorten
        as the episode nears its end, so late decisions, which the outcome hinges on most
        directly, get many more worlds for the same cost."""
        first, steps = self._evaluate_worlds(engine, seat, actions, self.worlds)
        if self.step_budget is None or steps <= 0:
            return first
        per_world = steps / self.worlds + SAMPLE_COST
        extra = min(
            int((self.step_budget - steps - SAMPLE_COST * self.worlds) / per_world), self.max_worlds - self.worlds
        )
        if extra < 1:
            return first
        more, _ = self._evaluate_worlds(engine, seat, actions, extra)
        return np.concatenate([first, more], axis=1)

    def _evaluate_worlds(self, engine: Engine, seat: int, actions: list[int], W: int) -> tuple[np.ndarray, int]:
        R = self.rollouts
        seeds = self.rng.integers(2**63, size=(W, 1 + R))
        worlds = []
        for w in range(W):
            world = self._sample(engine, seat, np.random.default_rng(int(seeds[w, 0])))
            world.rng = np.random.default_rng(int(seeds[w, 1]))  # later deals: our own stream
            worlds.append(world)
        if self._batch is not None:
            states = [world for world in worlds for _ in actions]
            kw = {"score": self.score} if self.score != "reward" else {}
            got = self._batch(states, seat, [a for _ in worlds for a in actions], **kw)
            if got is not None:  # deterministic rollouts: every repeat would give the same score
                steps = int(getattr(self.rollout_policy, "last_steps", 0))
                return np.repeat(got.reshape(W, len(actions)).T, R, axis=1), steps
        out = np.zeros((len(actions), W * R))
        self._steps = 0
        for w, world in enumerate(worlds):
            for j, a in enumerate(actions):
                for r in range(R):
                    sim = world.clone()
                    sim.rng = np.random.default_rng(int(seeds[w, 1 + r]))
                    self.rollout_policy.seed(int(seeds[w, 1 + r]))
                    out[j, w * R + r] = self._rollout(sim, seat, a)
        return out, self._steps

    def _rollout(self, sim: Engine, seat: int, action: int) -> float:
        sim.step(action)
        total = sim.rewards[seat]
        policy, fast = self.rollout_policy, self._fast
        steps = 0
        while not (sim.terminal or sim.truncated) and steps < self.max_rollout_steps:
            s = sim.current_player
            a = fast(sim, s) if fast is not None else policy.act(observation_of(sim, s))
            sim.step(a)
            total += sim.rewards[seat]
            steps += 1
        self._steps += steps + 1
        return float(total)


__all__ = ["SearchPolicy", "DEFAULTS", "rollout_policy_for", "observation_of"]
