"""The Spøkelse heuristic's ``late_take`` option (off in ``heuristic_v0``): only late draws
turn into takes, and ``act``, ``act_seat`` and ``act_batch`` agree."""

from __future__ import annotations

import numpy as np
import pytest
from kortmiljo.agents.spokelse_heuristic import DRAW, TAKE, SpokelseHeuristic

from kortmiljo import load_game
from kortmiljo.games.spokelse import SpokelseEngine

SPOKELSE = load_game("spokelse")  # the configured game the policies are built for


def _late_positions(seed: int, games: int):
    """Observations at draw decisions with at most 5 stock cards left, from v0 self-play."""
    e, v0 = SpokelseEngine(), SpokelseHeuristic(SPOKELSE)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(games):
        e.new_episode(rng)
        while not e.terminal:
            s = e.current_player
            if len(e.stock) <= 5:
                rows.append((e.observation(s), e.clone(), s))
            e.step(v0.act_seat(e, s))
    return rows


def test_late_takes_change_only_late_draw_decisions_and_every_path_agrees():
    late, v0 = SpokelseHeuristic(SPOKELSE, late_take=(5, 0.5)), SpokelseHeuristic(SPOKELSE)
    rows = _late_positions(seed=3, games=300)
    batch = {k: np.stack([o[k] for o, _, _ in rows]) for k in rows[0][0]}
    got = late.act_batch(batch)
    want = [late.act(o) for o, _, _ in rows]
    assert got.tolist() == want
    assert want == [late.act_seat(e, s) for _, e, s in rows]
    changed = [(v0.act(o), a) for (o, _, _), a in zip(rows, want, strict=True) if v0.act(o) != a]
    assert changed and set(changed) == {(DRAW, TAKE)}  # more takes, nothing else


def test_late_take_refuses_negative_settings():
    for bad in ((5, -1.0), (-1, 0.5)):
        with pytest.raises(ValueError, match="late_take"):
            SpokelseHeuristic(SPOKELSE, late_take=bad)
