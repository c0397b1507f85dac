"""Sprøyte ``heuristic_v0``: ``act_batch`` (numpy over all trick-play rows, for the native
vector env's opponents) decides exactly like ``act`` row by row, tie-breaks included."""

from __future__ import annotations

import numpy as np
import pytest
from kortmiljo.agents import make_agent

from kortmiljo import load_game
from kortmiljo.games.sproyte.game import DONE, GRAND, NULLO, TRUMP, Phase

from .common import CONFIGS, config_id


def _rows(config: dict, seed: int, want: int) -> tuple[list[dict], int, set]:
    """Observations of the seat on move from games of the heuristic mixed with random moves
    (a share of 0 to 1 per game, for odd states), until ``want`` trick-play decisions; the
    kinds seen: (contract, cards on the table) in play, ("exchange", laid or done)."""
    e = load_game("sproyte", **config).new_state()
    h = make_agent("heuristic", "sproyte", config)
    rng = np.random.default_rng(seed)
    rows, n_play, kinds = [], 0, set()
    while n_play < want:
        e.new_episode(rng)
        p_random = rng.random()
        while not (e.terminal or e.truncated):
            obs = e.observation(e.current_player)
            rows.append(obs)
            if e.phase == Phase.PLAY and obs["action_mask"].sum() > 1:
                n_play += 1
                kinds.add((e.contract, len(e.trick)))
            a = h.act(obs)
            if e.phase == Phase.EXCHANGE and obs["action_mask"].sum() > 1:
                kinds.add(("exchange", a == DONE))
            e.step(int(rng.choice(e.legal_actions())) if rng.random() < p_random else a)
    return rows, n_play, kinds


@pytest.mark.parametrize("config", CONFIGS["sproyte"], ids=config_id)
def test_act_batch_equals_act_on_trick_play_and_exchange(config):
    h = make_agent("heuristic", "sproyte", config)
    rows, n_play, kinds = _rows(config, seed=7, want=6000)
    assert n_play >= 6000
    # every contract the variant has, leading, second and third in hand
    contracts = (TRUMP, GRAND, NULLO) if config.get("variant") == "variasjon" else (TRUMP,)
    # and exchange decisions that lay a card down and that stop (tretten has no exchange)
    exchange = set() if config.get("variant") == "tretten" else {("exchange", True), ("exchange", False)}
    assert kinds == {(c, k) for c in contracts for k in range(3)} | exchange
    batch = {k: np.stack([o[k] for o in rows]) for k in rows[0]}
    expected = [h.act(o) for o in rows]
    got = h.act_batch(batch)
    assert got.dtype == np.int64
    assert got.tolist() == expected
    # any sub-batch, in any order, gives the same answers (no cross-row leakage)
    perm = np.random.default_rng(1).permutation(len(rows))[:300]
    sub = {k: v[perm] for k, v in batch.items()}
    assert h.act_batch(sub).tolist() == [expected[i] for i in perm]
