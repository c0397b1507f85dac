"""The batched engine equals the scalar one, lane for lane and step for step, for every game that has
one and every example configuration it supports.

Lane ``i`` of a batch seeded with ``seed`` owns the stream ``lane_rng(seed, i)``, and the scalar
engine that shadows it deals with ``new_episode`` from that same stream (see
:mod:`kortmiljo.core.batched`), so both see the same decks, dealers and later deals. Both get the
same random legal actions; at every step the masks, every seat's observation and ``unseen``, the
seats on move, the rewards, the terminations and truncations must be identical (bitwise), and a
finished lane's infos equal the scalar engine's. A lane does not depend on the batch size; an
illegal action in one lane, or any action in a finished lane, is refused before any lane changes.
Only the members every batched engine has are used
(``BatchedEngine``'s contract), so a new game's batched engine is checked without a line here.
"""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.core.batched import lane_rng

from .games import batched_cases, conformance_cases

CASES = batched_cases(conformance_cases())
IDS = [c.id for c in CASES]


def _eq(got, want, what: str) -> None:
    """``np.testing.assert_array_equal``, at the cost of ``np.array_equal`` when they agree."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or not np.array_equal(got, want):
        np.testing.assert_array_equal(got, want, err_msg=what)


def _actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per lane (0 where a lane has none)."""
    u = rng.random(mask.shape)
    u[mask == 0] = -1.0
    return u.argmax(axis=1)


def _assert_lanes_equal(be, engines, where: str) -> None:
    B, n = len(engines), engines[0].num_players
    _eq(be.legal_mask(), np.stack([e.legal_mask() for e in engines]), f"mask {where}")
    _eq(be.current_player, [e.current_player for e in engines], f"player on move {where}")
    for seat in range(n):
        seats = np.full(B, seat)
        want = np.stack([e.observe(seat) for e in engines])
        got = be.observe(seats)
        if not np.array_equal(got, want):
            lane, pos = np.argwhere(got != want)[0]
            seg = next(s.name for s in be.layout.segments if s.offset <= pos < s.offset + s.size)
            raise AssertionError(
                f"observation {where}: lane {lane} seat {seat} segment {seg} (index {pos}): "
                f"batched {got[lane, pos]}, scalar {want[lane, pos]}"
            )
        _eq(be.unseen(seats), np.stack([e.unseen(seat) for e in engines]), f"unseen of seat {seat} {where}")
    # the default seats are the ones on move
    on_move = np.stack([e.observe(e.current_player) for e in engines])
    _eq(be.observe(), on_move, f"observe() of the seats on move {where}")


def _assert_step_results(be, engines, stepped: np.ndarray, where: str) -> None:
    want = np.array([e.rewards if stepped[i] else [0.0] * e.num_players for i, e in enumerate(engines)])
    _eq(be.rewards, want, f"rewards {where}")
    _eq(be.truncated, [e.truncated for e in engines], f"truncated {where}")
    _eq(be.terminal, [e.terminal for e in engines], f"terminal {where}")
    _eq(be.done(), [e.terminal or e.truncated for e in engines], f"done {where}")


def _seeded(case, B: int, seed: int, autoreset: bool):
    """A batch and its scalar shadows, every lane dealt from its own fresh stream."""
    game = case.game()
    be = game.new_batched(B, seed=seed, autoreset=autoreset)
    be.seed(seed)  # fresh streams, whatever the constructor drew from them
    be.reset()
    rngs = [lane_rng(seed, i) for i in range(B)]
    engines = [game.new_state() for _ in range(B)]
    for e, r in zip(engines, rngs, strict=True):
        e.new_episode(r)
    return be, engines, rngs


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_seeded_lanes_with_autoreset_replay_scalar_engines(case):
    B, seed = 4, case.seed
    be, engines, rngs = _seeded(case, B, seed, autoreset=True)
    act_rng = np.random.default_rng(seed + 1)
    finished = 0
    for t in range(100 if case.long else 200):
        _assert_lanes_equal(be, engines, f"before step {t}")
        a = _actions(be.legal_mask(), act_rng)
        be.step(a)
        for i, e in enumerate(engines):
            e.step(int(a[i]))
        _assert_step_results(be, engines, np.ones(B, dtype=bool), f"at step {t}")
        for i, e in enumerate(engines):  # the batch has dealt these lanes anew from their streams
            if e.terminal or e.truncated:
                finished += 1
                e.new_episode(rngs[i])
    _assert_lanes_equal(be, engines, "at the end")
    if not case.long:  # (a long episode, a match say, may not end in these steps)
        assert finished >= B, "too few episodes ended to check the auto-reset"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_stacked_decks_dealers_and_lane_subsets(case):
    """Decks and dealers given, ``autoreset=False``, a random subset of lanes stepped each time;
    a finished lane keeps its final state (and infos) until it is dealt anew from its stream."""
    B, seed = 4, case.seed + 7
    game = case.game()
    rng = np.random.default_rng(seed)
    codes = [game.deck.code(c) for c in game.deck.cards]
    decks = [[codes[j] for j in rng.permutation(len(codes))] for _ in range(B)]
    dealers = rng.integers(game.num_players, size=B)
    be = game.new_batched(B, seed=seed, autoreset=False)
    be.seed(seed)
    be.reset(np.array([game.deck.parse_deck(d) for d in decks]), dealers)
    rngs = [lane_rng(seed, i) for i in range(B)]
    engines = [game.new_state() for _ in range(B)]
    for i, e in enumerate(engines):
        e.new_episode(rngs[i], decks[i], int(dealers[i]))
    finished = 0
    for t in range(100 if case.long else 200):
        _assert_lanes_equal(be, engines, f"before step {t}")
        done = be.done()
        if done.any():
            lanes = np.flatnonzero(done)
            infos = be.lane_infos(lanes.tolist(), [0] * len(lanes))
            for lane, info in zip(lanes.tolist(), infos, strict=True):
                assert info == engines[lane].info(0), f"infos of lane {lane} at step {t}"
            for seat in range(game.num_players):
                got = be.lane_infos(lanes.tolist(), [seat] * len(lanes))
                assert got == [engines[lane].info(seat) for lane in lanes.tolist()]
            be.reset(lanes=lanes)  # from the lanes' streams, as new_episode(rng) draws
            for lane in lanes.tolist():
                engines[lane].new_episode(rngs[lane])
            finished += len(lanes)
            _assert_lanes_equal(be, engines, f"after dealing lanes {lanes.tolist()} anew at step {t}")
        stepped = rng.random(B) < 0.6
        a = _actions(be.legal_mask(), rng)
        be.step(a, stepped)
        for i in np.flatnonzero(stepped).tolist():
            engines[i].step(int(a[i]))
        _assert_step_results(be, engines, stepped, f"at step {t}")
    if not case.long:
        assert finished >= 1


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_an_illegal_lane_action_is_refused_before_any_lane_changes(case):
    B, seed = 4, case.seed
    be, engines, rngs = _seeded(case, B, seed, autoreset=False)
    act_rng = np.random.default_rng(seed)
    a = _actions(be.legal_mask(), act_rng)  # one step into the game
    be.step(a)
    for i, e in enumerate(engines):
        e.step(int(a[i]))
    if be.done().all():  # every lane ended at once: deal them anew
        be.reset()
        for e, r in zip(engines, rngs, strict=True):
            e.new_episode(r)
    mask, live = be.legal_mask(), ~be.done()
    lane = int(act_rng.choice(np.flatnonzero(live)))
    illegal = np.flatnonzero(mask[lane] == 0)
    for bad in [*illegal[:3].tolist(), -1, mask.shape[1]]:
        a = _actions(mask, act_rng)
        a[lane] = bad
        with pytest.raises(ValueError, match=f"lane {lane}"):
            be.step(a, live)  # every other stepped lane's action is legal
        _assert_lanes_equal(be, engines, f"after the refused action {bad} in lane {lane}")
        _eq(be.done(), ~live, "done lanes")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_lane_does_not_depend_on_the_batch_size(case):
    seed, steps = case.seed, 40
    small, _, _ = _seeded(case, 2, seed, autoreset=True)
    large, _, _ = _seeded(case, 5, seed, autoreset=True)
    rng = np.random.default_rng(seed)
    for t in range(steps):
        a = _actions(large.legal_mask(), rng)
        small.step(a[:2])
        large.step(a)
        _eq(small.legal_mask(), large.legal_mask()[:2], f"mask at step {t}")
        _eq(small.rewards, large.rewards[:2], f"rewards at step {t}")
        for seat in range(small.num_players):
            seats = np.full(2, seat)
            _eq(small.observe(seats), large.observe(np.full(5, seat))[:2], f"observation at step {t}")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_finished_lane_without_autoreset_refuses_steps(case):
    be, _, _ = _seeded(case, 3, case.seed, autoreset=False)
    rng = np.random.default_rng(case.seed)
    for _ in range(50_000):
        done = be.done()
        if done.any():
            break
        be.step(_actions(be.legal_mask(), rng))
    lane = int(np.flatnonzero(be.done())[0])
    assert not be.legal_mask()[lane].any(), "a finished lane still has legal actions"
    assert be.legal_actions(lane) == []
    a = _actions(be.legal_mask(), rng)
    with pytest.raises(ValueError, match=f"lane {lane}"):
        be.step(a, np.arange(3) == lane)
