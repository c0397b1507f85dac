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

# Settings per game and decision stage (see :func:`stage_of`): ``worlds`` per decision, then
# more worlds while the rollout steps stay within ``step_budget`` (up to ``max_worlds``);
# ``confidence``: standard errors the best action must beat the heuristic's move by;
# ``search=False``: take the heuristic's move without searching. Sized by measurement.
SAMPLE_COST = 60  # sampling a world costs about as much as this many rollout steps (per game below)
DEFAULTS: dict[str, dict[str, dict]] = {
    "spokelse": {"*": {"worlds": 40, "step_budget": 12_000, "max_worlds": 400, "confidence": 2.0}},
    "sproyte": {
        "play": {"worlds": 16, "step_budget": 5_000, "max_worlds": 300, "confidence": 0.0, "sample_cost": 25},
        "exchange": {"search": False},
        "talon": {"worlds": 24, "step_budget": None, "max_worlds": 24, "confidence": 2.0},
    },
    "femkortskille": {
        "play": {"worlds": 32, "step_budget": 4_000, "max_worlds": 400, "confidence": 0.0, "sample_cost": 10},
        "*": {"search": False},
    },
}
GENERIC = {"worlds": 8, "step_budget": None, "max_worlds": 8, "confidence": 2.0}

# the decision stage, from the name of a legal action (the part before ":")
STAGE_OF_ACTION = {
    "sproyte": {"play": "play", "discard": "exchange", "done": "exchange", "take_talon": "talon", "keep": "talon"},
    "femkortskille": {
        "play": "play",
        "knock": "bid",
        "pass": "bid",
        "lura": "bid",
        "show": "bid",
        "bet:": "bid",  # auktion bets (poker's plain "bet" is a betting-round action)
        "discard": "exchange",
        "done": "exchange",
        "check": "betting",
        "bet": "betting",
        "call": "betting",
        "raise": "betting",
        "fold": "betting",
    },
}


def stage_of(game: str, action_names: list[str]) -> str:
    """The decision stage of a decision with these legal actions ("*" where the game has none)."""
    table = STAGE_OF_ACTION.get(game)
    if not table:
        return "*"
    for name in action_names:
        key = name.split(":")[0]
        if key == "bet" and ":" in name:
            key = "bet:"
        if key in table:
            return table[key]
    return "*"


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
        confidence: float | None = None,
        score: str = "reward",
        belief: bool = True,
        max_rollout_steps: int = 20_000,
        stages: dict[str, dict] | None = None,
    ):
        super().__init__(engine, seed)
        self.game = engine.NAME
        # per-stage settings: the game's defaults, then ``stages``, then the plain keyword
        # arguments (which apply to every stage)
        table = {k: dict(v) for k, v in DEFAULTS.get(self.game, {"*": GENERIC}).items()}
        for stage, over in (stages or {}).items():
            table.setdefault(stage, dict(table.get("*", GENERIC))).update(over)
        for cfg in table.values():
            for key, val in (("worlds", worlds), ("max_worlds", max_worlds), ("confidence", confidence)):
                if val is not None:
                    cfg[key] = val
            if step_budget != -1:  # -1: the default budget; None: exactly ``worlds`` worlds
                cfg["step_budget"] = step_budget
            cfg.setdefault("worlds", GENERIC["worlds"])
            cfg.setdefault("step_budget", None)
            cfg.setdefault("confidence", GENERIC["confidence"])
            cfg["worlds"] = int(cfg["worlds"])
            cfg["max_worlds"] = int(max(cfg.get("max_worlds", cfg["worlds"]), cfg["worlds"]))
            cfg.setdefault("sample_cost", SAMPLE_COST)
            cfg.setdefault("search", True)
            if cfg["worlds"] < 1:
                raise ValueError(f"worlds must be >= 1, got worlds={cfg['worlds']}")
        self.settings = table
        main = table.get("play", table.get("*", next(iter(table.values()))))
        self.worlds, self.step_budget, self.max_worlds = main["worlds"], main["step_budget"], main["max_worlds"]
        self.confidence = float(main["confidence"])
        self.rollouts = int(rollouts)
        if self.rollouts < 1:
            raise ValueError(f"rollouts must be >= 1, got {self.rollouts}")
        if tie_break not in ("policy", "index"):
            raise ValueError(f"tie_break must be 'policy' or 'index', got {tie_break!r}")
        self.tie_break = tie_break
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
        self._weigh = getattr(self.rollout_policy, "world_weight", None) if belief else None
        self.last_weights = np.ones(0)  # weight of each column of the last search's scores
        self.last_scores: dict[int, float] = {}  # action -> mean score of the last search (for inspection)
        self.last_stage = ""

    def stage_settings(self, actions: list[int]) -> tuple[str, dict]:
        stage = stage_of(self.game, [self.spec.action_names[a] for a in actions])
        return stage, self.settings.get(stage, self.settings.get("*", GENERIC))

    def act(self, obs: dict[str, np.ndarray], engine: Engine | None = None) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) == 0:
            raise ValueError("no legal action in the observation's action_mask")
        if len(legal) == 1:
            self.last_scores = {int(legal[0]): 0.0}
            return int(legal[0])
        actions = [int(a) for a in legal]
        self.last_stage, cfg = self.stage_settings(actions)
        if not cfg["search"] and not self._is_random:
            self.last_scores = {}
            return int(self.rollout_policy.act(obs))
        if engine is None:
            raise ValueError("search_v0 needs the live engine: call act(obs, engine) (needs_engine=True)")
        seat = engine.current_player
        samples = self.evaluate(engine, seat, actions, cfg)  # (actions, worlds * rollouts)
        w = self.last_weights
        scores = samples.mean(axis=1) if np.all(w == w[0]) else samples @ w / w.sum()
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
        if len(d) < 2:
            m, se = float(d.mean()), 0.0
        elif np.all(w == w[0]):
            m, se = float(d.mean()), float(d.std(ddof=1)) / np.sqrt(len(d))
        else:  # the self-normalized importance-sampling mean and its delta-method error
            m = float(d @ w / w.sum())
            se = float(np.sqrt((w * w) @ (d - m) ** 2)) / float(w.sum())
        return tied[0] if m > cfg["confidence"] * se else default

    def evaluate(self, engine: Engine, seat: int, actions: list[int], cfg: dict | None = None) -> np.ndarray:
        """Scores of each action: an array (actions, worlds * rollouts), paired by column.

        ``worlds`` worlds first; with a ``step_budget``, as many more as the rollout steps
        the first ones took say will fit (at most ``max_worlds`` in all): rollouts shorten
        as the episode nears its end, so late decisions, which the outcome hinges on most
        directly, get many more worlds for the same cost."""
        if cfg is None:
            cfg = self.stage_settings(actions)[1]
        W0, budget, cost = cfg["worlds"], cfg["step_budget"], cfg["sample_cost"]
        first, steps, weights = self._evaluate_worlds(engine, seat, actions, W0)
        self.last_weights = weights
        if budget is None or steps <= 0:
            return first
        per_world = steps / W0 + cost
        extra = min(int((budget - steps - cost * W0) / per_world), cfg["max_worlds"] - W0)
        if extra < 1:
            return first
        more, _, w_more = self._evaluate_worlds(engine, seat, actions, extra)
        self.last_weights = np.concatenate([weights, w_more])
        return np.concatenate([first, more], axis=1)

    def _evaluate_worlds(
        self, engine: Engine, seat: int, actions: list[int], W: int
    ) -> tuple[np.ndarray, int, np.ndarray]:
        """(scores (actions, W * rollouts), rollout steps, weight per column)."""
        R = self.rollouts
        seeds = self.rng.integers(2**63, size=(W, 1 + R))
        worlds = []
        for w in range(W):
            world = self._sample(engine, seat, np.random.default_rng(int(seeds[w, 0])))
            world.rng = np.random.default_rng(int(seeds[w, 1]))  # later deals: our own stream
            worlds.append(world)
        weigh = self._weigh
        weights = np.repeat([float(weigh(world, seat)) if weigh else 1.0 for world in worlds], R)
        if not weights.sum() > 0:
            weights[:] = 1.0
        if self._batch is not None:
            states = [world for world in worlds for _ in actions]
            kw = {"score": self.score} if self.score != "reward" else {}
            got = self._batch(states, seat, [a for _ in worlds for a in actions], **kw)
            if got is not None:  # deterministic rollouts: every repeat would give the same score
                steps = int(getattr(self.rollout_policy, "last_steps", 0))
                return np.repeat(got.reshape(W, len(actions)).T, R, axis=1), steps, weights
        out = np.zeros((len(actions), W * R))
        self._steps = 0
        for w, world in enumerate(worlds):
            world.rng = None  # each rollout gets its own stream below: cloning need not copy one
            for j, a in enumerate(actions):
                for r in range(R):
                    sim = world.clone()
                    sim.rng = np.random.default_rng(int(seeds[w, 1 + r]))
                    self.rollout_policy.seed(int(seeds[w, 1 + r]))
                    out[j, w * R + r] = self._rollout(sim, seat, a)
        return out, self._steps, weights

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
