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
3. Pick the action with the best (weighted) mean score, but leave the heuristic's own
   move only on evidence where ``confidence`` > 0 (below).

**Stages.** Settings are per game and per decision stage (the heuristic's
``search_settings`` and ``stage_of``: the stage is read off the names of the legal actions, e.g. ``play``,
``exchange``, ``talon`` in Sprøyte, ``bid`` and ``play`` in Femkortskille): how many
worlds, the step budget, the confidence gate, or ``search=False`` to take the
heuristic's move without searching where search was measured not to help.
``stages={"exchange": {...}}`` overrides a stage; the plain keywords (``worlds``,
``step_budget``, ``max_worlds``, ``confidence``) apply to every stage.

Choices worth knowing, each measured against ``heuristic_v0`` on duplicate deals:

* **Common random numbers.** All actions are scored on the same worlds with the same
  rollout seeds, so the comparison is paired: with win/loss rewards most rollouts agree
  and only the few that an action changes count.
* **Deviate on evidence, where the heuristic is near-optimal.** In Spøkelse the heuristic
  is close to the best reply to itself: at 300 worlds the best action beats its move by
  about 0.005 wins per decision, and a plain argmax over a few dozen worlds chases noise
  (-0.30 ± 0.09 per game at 12 worlds), so there the search keeps the heuristic's move
  unless the paired difference of the best action over it exceeds ``confidence`` = 2
  standard errors (at 1 it still lost 0.07 per game). In Sprøyte's trick play the plain
  argmax is best (``confidence`` 0: +0.24 ± 0.14 per game against +0.09 ± 0.12 at 1,
  60 deals each, before the belief below), as long as it has enough worlds (-0.34 ± 0.18
  with 3 to 48). In Femkortskille's tricks the worlds are weighted (below) and few count,
  so a one-standard-error gate keeps the noisy deviations out (+0.15 ± 0.12 at 1, +0.15
  ± 0.13 at 0 over the same 400 deals; the next deals gave +0.11 ± 0.09 at 1 over 600,
  -0.04 ± 0.15 at 0 over 300). Ties go
  to the heuristic's move, then to the lowest index (``tie_break="index"``: lowest only).
* **Belief.** A rollout policy may supply ``sample_world(engine, seat, rng)``, which calls
  ``engine.resample`` and then redeals within the copy by what is known of how players
  play, and ``world_weight(world, seat)``, a likelihood the worlds' scores are weighted by
  (self-normalized importance sampling; the gate then uses its delta-method error);
  ``belief=False`` turns both off. Uniform redeals are badly biased: in Spøkelse players
  keep their low cards, so their face-down slots lie 2–4 points below the mean unseen
  card; in Sprøyte a quarter or more of the hidden trumps and aces land among the
  opponents' discards, where players lay down only low side cards (the belief world:
  +0.31 ± 0.12 against +0.24 ± 0.14 with uniform worlds on the same 60 deals); in
  Femkortskille knockers hold high cards and everybody plays the lowest card it may
  (worlds weighted by both; about one world in eight then counts).
* **Searching what matters.** Sprøyte's exchange has 13 actions per step and full-length
  rollouts; searched (with a screening pass and a one-error gate) it gained +0.02 ± 0.09
  over 60 deals, so it is left to the heuristic. Femkortskille's bidding searched with a
  two-error gate gave +0.07 ± 0.22 against +0.18 ± 0.19 without (the same 200 deals), at
  four times the cost, so only its tricks are searched. More worlds stopped paying: twice
  the budget gave Sprøyte +0.25 ± 0.12 against +0.24 ± 0.14 (uniform worlds) and
  Femkortskille +0.15 ± 0.20 against +0.18 ± 0.19.
* **Step budget.** After the first ``worlds`` worlds, more are added while the rollout
  steps (plus ``sample_cost`` per world) stay within ``step_budget`` (at most
  ``max_worlds``): rollouts shorten towards the end of an episode, so late decisions get
  many more worlds for the same cost.
* **Own random streams.** Each world gets a fresh ``rng`` for the engine's later shuffles
  (redeals, match rounds), drawn from the searcher's own generator, so a rollout neither
  sees the real future deals nor advances the live engine's stream. ``rollouts`` > 1
  only differ where the rollout has randomness (random play, later deals).
* **Speed.** Rollout policies offer ``act_seat(engine, seat)`` (the same decision read
  straight from the engine; every heuristic has it, tested equal to ``act``) and may offer
  ``rollout_batch(states, seat, first_actions)`` (many rollouts at once in numpy; the
  Spøkelse heuristic). Clones made for rollouts do not copy the world's generator
  (``clone(rng=...)`` hands them their own stream), and every stream a rollout gets (the
  engine's later deals, the rollout policy's draws) is a :class:`~kortmiljo.core.engine.LazyGenerator`,
  built only if something draws from it: with a heuristic, in the few rollouts that deal again.
* **A prior over actions** (``prior=POLICY, prior_top=K``; expert iteration's second stage): a
  trained student (anything with ``act_explained``, such as ``pretrained_v1``) names its ``K``
  most probable legal actions, and only those and the heuristic's move are searched; where they
  are one action, it is played without searching. The step budget then buys more worlds for
  each action searched. ``benchmarks/guided_search.py`` measures it against plain search.
* A rollout that runs past ``max_rollout_steps`` is cut off and scored by the rewards
  it collected so far (a guard; no game should get there).

**Explained moves** (:meth:`SearchPolicy.act_explained`, what game records store with a move):
the action is the one :meth:`~SearchPolicy.act` chooses (the same call, the same random
stream). Its probabilities are the search's *world votes*: in every sampled world (every
column of the paired scores) the actions with the best score share that world's vote, the
worlds weighted as the scores are (the belief's importance weights); worlds in which every
action scores the same say nothing and are left out (all of them: uniform). So they tell how
often an action was the best reply, not how much better it was, and the gate above can keep
the heuristic's move even where another action has more votes. The value is the (weighted)
mean score of the chosen action: this seat's reward from the decision to the end of the
episode (the points margin with ``score="points"``). A decision that is not searched (one
legal action, or a stage with ``search=False``, where the heuristic decides) gets probability
1 on the move played, 0 on the other legal moves, and no value.

**Measured strength** (default configurations and settings, search in one seat and the
heuristic in the others, every deal played with search in each seat, per-deal mean
reward with its 95 % Student-t interval; CPU time per decision with more than one
legal action, on one shared core):

* Sprøyte: **+0.36 ± 0.12** per game over 60 deals (180 games, seed 0), +0.33 ± 0.12 over
  60 more (seed 1); 47–52 ms per decision (play decisions about 70 ms, at most about
  100 ms; the exchange is the heuristic's, well under 1 ms). The round robin
  (``benchmarks/strength.py --games-only sproyte``, 180 games): search +0.36 ± 0.13,
  the two heuristic seats -0.18 ± 0.07.
* Femkortskille: **+0.13 ± 0.07** chips per game over 1000 deals (4000 games, seed 0);
  22–25 ms per decision (trick decisions about 40 ms, bids the heuristic's, about 2 ms).
  Round robin (2000 games, seed 0): search +0.27 ± 0.11. The margin is small next to the
  chip swings: the heuristic's lowest-card play is rarely wrong (with the hidden cards in
  view, about 3 % of trick decisions have a better move), and search changes the outcome
  of about one deal in seven.
* Spøkelse: at par, +0.000 ± 0.077 per game over 60 deals (120 games) with the step
  budget, +0.008 ± 0.028 at a fixed 40 worlds (see above for why; unchanged here).

Reproduce with ``pytest -m slow tests/agents/test_search.py`` (the figures above for
seed 0; about 2 and 7 minutes of CPU) and ``python benchmarks/strength.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kortmiljo.core.engine import Engine, LazyGenerator
from kortmiljo.core.game import Game

from .base import GENERIC_SEARCH, Heuristic, Policy, RandomPolicy
from .catalog import heuristic_for

SAMPLE_COST = 60  # sampling a world costs about as much as this many rollout steps (a stage may say otherwise)
GENERIC = GENERIC_SEARCH


class SearchPolicy(Policy):
    """Determinized Monte Carlo with heuristic rollouts (see the module docstring)."""

    name = "search_v0"
    needs_engine = True

    def __init__(
        self,
        game: Game,
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
        sample_world: Callable[[Engine, int, np.random.Generator], Engine] | None = None,
        prior: Policy | None = None,
        prior_top: int = 2,
    ):
        super().__init__(game, seed)
        self.rollout_policy = heuristic_for(self.game, seed)  # the game's heuristic, else random play
        # per-stage settings: the heuristic's, then ``stages``, then the plain keyword
        # arguments (which apply to every stage)
        table = {k: dict(v) for k, v in self.rollout_policy.search_settings.items()}
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
        rp = self.rollout_policy
        self._is_random = isinstance(rp, RandomPolicy)
        # ``sample_world`` replaces the belief (diagnostics only, e.g. a perfect-belief bound in
        # benchmarks/spokelse_ceiling.py: a sampler that reads hidden cards makes search cheat)
        if sample_world is not None:
            self._sample = sample_world
        elif belief:
            self._sample = rp.sample_world
        else:
            self._sample = Heuristic.sample_world.__get__(rp)  # the uniform resample
        self._weigh = rp.world_weight if belief else None
        if prior is not None and not callable(getattr(prior, "act_explained", None)):
            raise ValueError(
                f"prior must be a policy with act_explained (a trained or pretrained agent), got {prior!r:.60}"
            )
        if int(prior_top) < 1:
            raise ValueError(f"prior_top must be >= 1, got {prior_top}")
        self.prior, self.prior_top = prior, int(prior_top)
        self.last_weights = np.ones(0)  # weight of each column of the last search's scores
        self.last_scores: dict[int, float] = {}  # action -> mean score of the last search (for inspection)
        self.last_samples: np.ndarray | None = None  # the last search's paired scores (None: not searched)
        self.last_stage = ""

    def stage_settings(self, actions: list[int]) -> tuple[str, dict]:
        stage = self.rollout_policy.stage_of([self.game.action_names[a] for a in actions])
        return stage, self.settings.get(stage, self.settings.get("*", GENERIC))

    def act(self, obs: dict[str, np.ndarray], engine: Engine | None = None) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) == 0:
            raise ValueError("no legal action in the observation's action_mask")
        self.last_samples = None
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
        default = None  # the heuristic's move, asked after the rollouts (its seeded stream) unless a prior needs it
        if self.prior is not None and len(actions) > self.prior_top:
            default = None if self._is_random else int(self.rollout_policy.act(obs))
            actions = self.candidates(obs, actions, default)
            if len(actions) == 1:  # the prior's only choice is the heuristic's move: nothing to search
                self.last_scores = {actions[0]: 0.0}
                return actions[0]
        seat = engine.current_player
        samples = self.evaluate(engine, seat, actions, cfg)  # (actions, worlds * rollouts)
        self.last_samples = samples
        w = self.last_weights
        scores = samples.mean(axis=1) if np.all(w == w[0]) else samples @ w / w.sum()
        self.last_scores = dict(zip(actions, scores.tolist(), strict=True))
        best = scores.max()
        tied = [a for a, s in zip(actions, scores, strict=True) if s >= best - 1e-9]
        if self.tie_break == "index" or self._is_random:
            return tied[0]
        if default is None:
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

    def candidates(self, obs: dict[str, np.ndarray], actions: list[int], default: int | None) -> list[int]:
        """The actions searched under a prior: its ``prior_top`` most probable legal actions and the
        heuristic's move, in index order (expert iteration's second stage: the student's
        judgement narrows the search, so the same step budget buys more worlds per action)."""
        _, probs, _ = self.prior.act_explained(obs)
        ranked = sorted(actions, key=lambda a: (-float(probs.get(a, 0.0)), a))
        keep = set(ranked[: self.prior_top])
        if default is not None:
            keep.add(default)
        return [a for a in actions if a in keep]

    def act_explained(
        self, obs: dict[str, np.ndarray], engine: Engine | None = None
    ) -> tuple[int, dict[int, float] | None, float | None]:
        """``act``'s move, the search's world votes per legal action and the chosen action's mean
        score (see "Explained moves" in the module docstring); an unsearched move: probability 1 on
        the move (0 on the other legal ones) and no value."""
        action = self.act(obs, engine)
        samples = self.last_samples
        if samples is None:  # not searched: the move is certain (the heuristic's, or the only one)
            return action, {int(a): float(a == action) for a in np.flatnonzero(obs["action_mask"])}, None
        actions = list(self.last_scores)
        return action, world_votes(samples, self.last_weights, actions), float(self.last_scores[action])

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
            world.rng = LazyGenerator(int(seeds[w, 1]))  # later deals: our own stream, built if one is dealt
            worlds.append(world)
        weigh = self._weigh
        weights = np.repeat([float(weigh(world, seat)) if weigh else 1.0 for world in worlds], R)
        if not weights.sum() > 0:
            weights[:] = 1.0
        # a heuristic with batched rollouts answers; the others return None
        states = [world for world in worlds for _ in actions]
        kw = {"score": self.score} if self.score != "reward" else {}
        got = self.rollout_policy.rollout_batch(states, seat, [a for _ in worlds for a in actions], **kw)
        if got is not None:  # deterministic rollouts: every repeat would give the same score
            steps = int(self.rollout_policy.last_steps)
            return np.repeat(got.reshape(W, len(actions)).T, R, axis=1), steps, weights
        out = np.zeros((len(actions), W * R))
        self._steps = 0
        reseed = self._reseed_rollout_policy
        for w, world in enumerate(worlds):
            for j, a in enumerate(actions):
                for r in range(R):
                    # each rollout its own streams, for the engine's later deals and the policy's
                    # draws; generators are built only where something draws (a deal, random play)
                    sim = world.clone(rng=LazyGenerator(int(seeds[w, 1 + r])))
                    reseed(int(seeds[w, 1 + r]))
                    out[j, w * R + r] = self._rollout(sim, seat, a)
        return out, self._steps, weights

    def _reseed_rollout_policy(self, seed: int) -> None:
        """``rollout_policy.seed(seed)``; where that is :class:`Policy`'s own (the shipped heuristics'),
        the generator is made lazily: heuristics draw nothing, so most rollouts never build it."""
        rp = self.rollout_policy
        if type(rp).seed is Policy.seed:
            rp.rng = LazyGenerator(seed)
        else:
            rp.seed(seed)

    def _rollout(self, sim: Engine, seat: int, action: int) -> float:
        sim.step(action)
        total = sim.rewards[seat]
        fast = self.rollout_policy.act_seat
        steps = 0
        while not (sim.terminal or sim.truncated) and steps < self.max_rollout_steps:
            s = sim.current_player
            a = fast(sim, s)
            sim.step(a)
            total += sim.rewards[seat]
            steps += 1
        self._steps += steps + 1
        return float(total)


def world_votes(samples: np.ndarray, weights: np.ndarray, actions: list[int]) -> dict[int, float]:
    """Per action (row of ``samples``), the weighted share of the informative worlds (columns) in
    which it scores best, ties in a world sharing its vote; uniform where no world is informative."""
    best = samples.max(axis=0)
    top = samples >= best - 1e-9
    informative = ~top.all(axis=0)  # a world where every action ties says nothing
    w = np.asarray(weights, dtype=np.float64) * informative
    if not w.sum() > 0:
        return {a: 1.0 / len(actions) for a in actions}
    share = top / top.sum(axis=0)
    probs = share @ w / w.sum()
    probs = probs / probs.sum()
    return {a: float(p) for a, p in zip(actions, probs, strict=True)}


__all__ = ["SearchPolicy", "world_votes"]
