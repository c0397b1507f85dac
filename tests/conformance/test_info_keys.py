"""Stable infos: every step's ``info`` has the same keys with the same types, within and across
episodes of one configuration, for every agent (``env.infos``, not only what ``last()`` shows).

Replay buffers that stack infos step by step (Tianshou's) need it: a key that appears only at the
end of an episode is filled with ``None`` for the earlier steps. Before the end each key holds its
game's documented neutral value (``INFO_NEUTRAL``); at the end it holds the result (the Infos section's
fields, unchanged) plus the numeric twins of the string fields. Only the two fields that the Infos sections
let be ``None`` at the end (Sprøyte's ``trump``, Femkortskille's ``winner``) may change type between
``None`` and ``str``; their ``_id`` twins are ints at every step.
"""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.core.cards import SUITS
from kortmiljo.games.sproyte import CONTRACT_NAMES

from .games import Case, conformance_cases

GAMES = ["spokelse", "sproyte", "femkortskille"]
# configurations that end by a cap, so that ``truncated_by`` is seen set as well as empty
CAPPED = {
    "spokelse": {"max_steps": 20},
    "sproyte": {"match_to": 1000, "max_deals": 1},
    "femkortskille": {"num_players": 3, "max_deals": 1},
}
NULLABLE = {"trump", "winner"}  # docs/<game>.md, Infos: a suit letter or None; the winner's seat name or None
EPISODES = 12


def _cases() -> list[Case]:
    cases = conformance_cases(GAMES)
    by_name = {c.name: c.definition for c in cases}
    cases += [Case(by_name[g], {**cfg}, 100) for g, cfg in CAPPED.items()]
    return cases


CASES = _cases()


def _signature(info: dict) -> dict[str, type]:
    return {k: type(v) for k, v in info.items()}


def _play(case: Case, episodes: int):
    """Yield (step, ended, agent, info) for every agent's info at every step of random legal play."""
    env = case.env()
    rng = np.random.default_rng(case.seed)
    for ep in range(episodes):
        env.reset(seed=case.seed + ep)
        step = 0
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            for a, info in env.infos.items():
                yield step, term or trunc, a, info, env
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            step += 1


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_info_keys_and_types_never_change(case):
    neutral = case.game().new_state().INFO_NEUTRAL
    keys = set(neutral)
    types: dict[str, set[type]] = {k: set() for k in keys}
    ended_seen = truncated_seen = 0
    episodes = 3 if case.long else 3 * EPISODES if case.index == 100 else EPISODES
    for _step, ended, agent, info, env in _play(case, episodes):
        assert set(info) == keys, f"{agent}: keys {sorted(info)}, want {sorted(keys)}"
        for k, t in _signature(info).items():
            types[k].add(t)
        if not ended:
            assert info == neutral, f"{agent} before the end: {info}"
            continue
        ended_seen += 1
        engine = env.unwrapped.engine
        result = engine.info(int(agent.split("_")[1]))
        # the documented result fields are exactly the engine's, values and all
        assert {k: info[k] for k in result} == {k: result[k] for k in result}
        truncated_seen += bool(info["truncated_by"])
        assert bool(info["truncated_by"]) == bool(engine.truncated and not engine.terminal)
        if "contract" in info:
            assert info["contract"] in CONTRACT_NAMES and CONTRACT_NAMES[info["contract_id"]] == info["contract"]
            assert info["trump_id"] == (-1 if info["trump"] is None else SUITS.index(info["trump"]))
        if "winner" in info:
            assert info["winner_id"] == (-1 if info["winner"] is None else int(info["winner"].split("_")[1]))
    assert ended_seen, "no episode ended"
    if case.index == 100:
        assert truncated_seen, "the capped configuration never hit its cap"
    for k, seen in types.items():
        if k in NULLABLE:
            assert seen <= {str, type(None)}, f"{k}: {seen}"
        else:
            assert len(seen) == 1, f"{k} changes type: {seen}"
            assert seen <= {int, float, bool, str}, f"{k}: {seen}"


@pytest.mark.parametrize("game", GAMES)
def test_neutral_values_are_the_documented_ones(game):
    """Numbers 0, flags False, ``_id`` twins -1, strings "" (never None: Tianshou's buffer refuses it)."""
    from kortmiljo import load_game

    for k, v in load_game(game).new_state().INFO_NEUTRAL.items():
        if k.endswith("_id"):
            assert v == -1
        elif isinstance(v, str):
            assert v == ""
        else:
            assert v == 0 and v is not True
