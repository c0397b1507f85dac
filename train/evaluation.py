"""Quick duplicate-deal evaluation used *during* training (the learning curve, best-model gating).

The published figures come from the tournament (``kortmiljo eval``, ``kortmiljo.agents.tournament``);
this evaluator is the fast in-loop check: one learner against one opponent policy in
every other seat, each deal replayed with the learner in every seat (same deck, same
dealer, the same seed for any later deal of the episode), so card luck cancels.
Learner decisions of all running games are batched into one ``act_batch`` call, which
makes a neural learner several times cheaper than one forward pass per decision.

Result: the learner's mean reward per game, its 95% Student-t interval over deals
(:func:`kortmiljo.agents.stats.mean_ci`; each deal's mean over the seat rotation is one sample; ``ci95``
is the half width), and win/loss/draw shares by reward sign.
"""

from __future__ import annotations

import numpy as np
from kortmiljo.agents.base import Policy
from kortmiljo.agents.stats import mean_ci

from kortmiljo.core.game import Game


def duplicate_eval(game: Game, learner: Policy, opponent: Policy, deals: int, seed: int = 0, batch: int = 64) -> dict:
    """Play ``deals`` deals × every learner seat; the learner's results (see the module docstring)."""
    n = game.num_players
    master = np.random.default_rng(seed)
    jobs = []  # (deal index, learner seat, deck, dealer, episode seed)
    for d in range(deals):
        deck = [game.deck.code(c) for c in master.permutation(game.deck.cards)]
        dealer = int(master.integers(n))
        ep_seed = int(master.integers(2**63))
        for s in range(n):
            jobs.append((d, s, deck, dealer, ep_seed))
    opponent.seed(int(master.integers(2**63)))
    learner.seed(int(master.integers(2**63)))
    rewards = np.zeros(len(jobs))
    decisions = 0
    for start in range(0, len(jobs), batch):
        chunk = jobs[start : start + batch]
        games = []
        for _, _seat, deck, dealer, ep_seed in chunk:
            state = game.new_state()
            state.new_episode(np.random.default_rng(ep_seed), deck=deck, dealer=dealer)
            games.append(state)
        totals = np.zeros(len(chunk))
        active = list(range(len(chunk)))
        while active:
            waiting = []
            for i in active:
                e, s = games[i], chunk[i][1]
                while not (e.terminal or e.truncated) and e.current_player != s:
                    p = e.current_player
                    e.step(int(opponent.act(e.observation(p), e if opponent.needs_engine else None)))
                    totals[i] += e.rewards[s]
                if not (e.terminal or e.truncated):
                    waiting.append(i)
            if waiting:
                obs = [games[i].observation(chunk[i][1]) for i in waiting]
                if learner.needs_engine:
                    acts = [learner.act(o, games[i]) for o, i in zip(obs, waiting, strict=True)]
                else:
                    acts = learner.act_batch({k: np.stack([o[k] for o in obs]) for k in obs[0]})
                for i, a in zip(waiting, acts, strict=True):
                    games[i].step(int(a))
                    totals[i] += games[i].rewards[chunk[i][1]]
                decisions += len(waiting)
            active = waiting
        rewards[start : start + len(chunk)] = totals
    mean, _, hi = mean_ci(rewards.reshape(deals, n).mean(axis=1))
    return {
        "opponent": opponent.name,
        "deals": deals,
        "games": len(jobs),
        "mean_reward": mean,
        "ci95": hi - mean,
        "win": float((rewards > 0).mean()),
        "loss": float((rewards < 0).mean()),
        "draw": float((rewards == 0).mean()),
        "learner_decisions": decisions,
    }
