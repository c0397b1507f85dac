"""Shimmy: the OpenSpiel round trip (kortmiljo game → pyspiel game → PettingZoo env through Shimmy).

    python docs/clients/shimmy_openspiel.py --episodes 20

``kortmiljo.openspiel.register`` makes a pyspiel game of any configuration; Shimmy's
``OpenSpielCompatibilityV0(env=game)`` turns it back into a PettingZoo AEC env, which passes
PettingZoo's ``api_test``. Whole episodes show two Shimmy 2.0.1 bugs (OpenSpiel's own
``kuhn_poker`` has them too; docs/clients.md has the figures):

- it adds the last rewards again on every dead step, so the k-th agent to leave gets its final
  reward k times;
- it counts chance nodes (and one more) in the game length and compares that with
  ``max_game_length()`` (decisions only, as OpenSpiel defines it): every Sprøyte deal (48 chance
  nodes) is cut after 45 decisions, and every kuhn_poker episode after its first move.

:class:`FixedOpenSpielCompatibility` below is the workaround: a subclass that counts decisions only
and accumulates rewards once. Reading ``env.game_state.returns()`` at the end also gives the true
returns with the stock class (but not past the truncation).
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
from shimmy import OpenSpielCompatibilityV0

from kortmiljo import openspiel


class FixedOpenSpielCompatibility(OpenSpielCompatibilityV0):
    """Shimmy's wrapper with the game length counting decisions only and no re-added rewards."""

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self.game_length = 0  # Shimmy starts at 1: an episode of exactly max_game_length() decisions is cut

    def _execute_chance_node(self):
        while self.game_state.is_chance_node():  # as Shimmy's, without counting chance outcomes
            actions, probs = zip(*self.game_state.chance_outcomes(), strict=True)
            self.game_state.apply_action(self.np_random.choice(actions, p=probs))

    def step(self, action):
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            # a dead step: Shimmy would accumulate the last rewards into every remaining agent again
            self._end_routine()
            self._choose_next_agent()
            return
        super().step(action)


def play(game_name: str, episodes: int, wrapper=OpenSpielCompatibilityV0, seed: int = 0) -> dict:
    """Random legal play: per episode the summed ``last()`` rewards, OpenSpiel's own returns, whether
    Shimmy truncated it, and how many illegal actions were chosen."""
    env = wrapper(env=pyspiel.load_game(game_name))
    rng = np.random.default_rng(seed)
    rows = []
    for ep in range(episodes):
        env.reset(seed=seed + ep)
        total = dict.fromkeys(env.possible_agents, 0.0)
        truncated, decisions, illegal = False, 0, 0
        for agent in env.agent_iter():
            _, reward, term, trunc, info = env.last()
            total[agent] += reward
            truncated |= trunc
            if term or trunc:
                env.step(None)
                continue
            mask = info["action_mask"]
            action = int(rng.choice(np.flatnonzero(mask)))
            illegal += int(mask[action] == 0)
            env.step(action)
            decisions += 1
        state = env.game_state
        rows.append({"summed": [total[a] for a in env.possible_agents], "decisions": decisions,
                     "returns": list(state.returns()) if state.is_terminal() else None,
                     "truncated": truncated, "illegal": illegal})  # fmt: skip
    return summarize(rows)


def summarize(rows: list[dict]) -> dict:
    done = [r for r in rows if r["returns"] is not None]
    over = [r for r in done if not np.allclose(r["summed"], r["returns"])]
    ratio = [abs(s) / abs(t) for r in over for s, t in zip(r["summed"], r["returns"], strict=True) if t]
    return {
        "episodes": len(rows),
        "truncated": sum(r["truncated"] for r in rows),
        "mean_decisions": float(np.mean([r["decisions"] for r in rows])),
        "wrong_sums": len(over),
        "max_over_count": max(ratio, default=1.0),
        "max_abs_sum": max((abs(sum(r["summed"])) for r in done), default=0.0),
        "illegal": sum(r["illegal"] for r in rows),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=20)
    args = p.parse_args(argv)
    names = [openspiel.register(g) for g in ("spokelse", "sproyte", "femkortskille")] + ["kuhn_poker"]
    for name in names:
        for label, wrapper in (("Shimmy", OpenSpielCompatibilityV0), ("fixed", FixedOpenSpielCompatibility)):
            print(f"{name:24s} {label:7s}", play(name, args.episodes, wrapper))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
