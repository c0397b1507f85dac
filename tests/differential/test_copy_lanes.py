"""``BatchedEngine.copy_lanes``: copied lanes play on exactly as their source, in every batched engine.

A batch plays random legal moves for a while (lanes mid-game, in different phases), then lanes
2 and 3 become copies of lane 0. Played on with the same actions and equal generators, the
copies must show lane 0's mask, every seat's observation and ``unseen``, rewards, terminations,
seat on move, state and results at every step until the game ends (matches deal their later
deals from the lane's stream), and lane 1 must not change. Each copy also still replays a
scalar engine cloned from lane 0's shadow, with moves of its own. A drift guard fails when an
engine gains a per-lane array that ``LANE_STATE`` does not list.
"""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.core.batched import lane_rng
from kortmiljo.games.femkortskille import FemkortskilleEngine
from kortmiljo.games.femkortskille.batched import BatchedFemkortskille
from kortmiljo.games.spokelse import SpokelseEngine
from kortmiljo.games.spokelse.batched import BatchedSpokelse
from kortmiljo.games.sproyte import SproyteEngine
from kortmiljo.games.sproyte.batched import BatchedSproyte

CASES = [
    (BatchedSproyte, SproyteEngine, {}),
    (BatchedSproyte, SproyteEngine, {"variant": "variasjon"}),
    (BatchedSproyte, SproyteEngine, {"variant": "tretten", "match_to": 10}),
    (BatchedSproyte, SproyteEngine, {"variant": "vanlig", "match_to": 4, "max_deals": 2}),
    (BatchedFemkortskille, FemkortskilleEngine, {}),
    (BatchedFemkortskille, FemkortskilleEngine, {"num_players": 3}),
    (BatchedFemkortskille, FemkortskilleEngine, {"num_players": 6}),
    (BatchedFemkortskille, FemkortskilleEngine, {"num_players": 6, "payments_stay": True, "ante_on_redeal": True}),
    (
        BatchedFemkortskille,
        FemkortskilleEngine,
        {"num_players": 5, "poker": True, "skituppslag": True, "auktion": True, "knock_stake": 1, "max_deals": 2},
    ),
    (BatchedSpokelse, SpokelseEngine, {}),
    (BatchedSpokelse, SpokelseEngine, {"num_players": 3}),
    (BatchedSpokelse, SpokelseEngine, {"num_players": 4}),
    (BatchedSpokelse, SpokelseEngine, {"num_players": 5, "jack_points": 11}),
    (BatchedSpokelse, SpokelseEngine, {"match_to": 21}),
    (BatchedSpokelse, SpokelseEngine, {"num_players": 3, "max_steps": 24}),
    (BatchedSpokelse, SpokelseEngine, {"num_players": 2, "num_slots": 2, "max_turns": 5, "match_to": 30}),
]

# constants built in setup with a lane axis (never changed by a step, so never copied)
CONSTANTS = {
    BatchedSproyte: {
        "_all",  # the lane indices (the base's)
        "_rowbase",  # each lane's and viewer's offset into the flat observation buffer
        "_all3",  # each lane's first row in the [B * 3, S] row view
    },
    BatchedFemkortskille: {"_all", "_all_n"},  # the lane indices; each lane's first row in [B * n, …] views
    BatchedSpokelse: {"_all", "_rowbase"},  # the lane indices; flat offsets of every lane's and viewer's row
}


def _ids(case) -> str:
    cls, _, opts = case
    return cls.NAME + ("-" + "-".join(f"{k}={v}" for k, v in opts.items()) if opts else "")


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    u = rng.random(mask.shape) * mask
    u[mask == 0] = -1.0
    return u.argmax(axis=1)


def _play_to_midgame(cls, opts: dict, seed: int, num_envs: int = 4, shadows: list | None = None):
    """A batch (``autoreset=False``) after a random number of random legal steps in its live lanes,
    with lane 0 still in its game; ``shadows`` (scalar engines, one per lane) get the same moves."""
    act = np.random.default_rng(seed)
    for _ in range(50):
        be = cls(num_envs, seed=seed, autoreset=False, **opts)
        if shadows is not None:
            shadows[:] = [shadows[0].__class__(**opts) for _ in range(num_envs)]
            for i, e in enumerate(shadows):
                e.new_episode(lane_rng(seed, i))
        for _ in range(int(act.integers(1, 60))):
            live = ~be.done()
            if not live[0]:
                break
            a = _random_actions(be.legal_mask(), act)
            be.step(a, live)
            if shadows is not None:
                for i in np.flatnonzero(live):
                    shadows[i].step(int(a[i]))
        if not be.done()[0]:
            return be, act
        seed += 1000
    raise AssertionError("lane 0 ended before every midgame tried")


def _views(be, lanes) -> dict:
    """Everything the lanes show, per lane: mask, every seat's observation and unseen, flags, state, results."""
    lanes = np.asarray(lanes)
    k = len(lanes)
    out = {
        "mask": be.legal_mask()[lanes],
        "rewards": be.rewards[lanes],
        "terminal": be.terminal[lanes],
        "truncated": be.truncated[lanes],
        "current_player": be.current_player[lanes],
        "state": [be.lane_state(int(i)) for i in lanes],
        "legal": [be.legal_actions(int(i)) for i in lanes],
    }
    for s in range(be.num_players):
        out[f"observe{s}"] = be.observe(np.full(k, s), lanes)
        out[f"unseen{s}"] = be.unseen(np.full(k, s), lanes)
    for key, v in be.info().items():
        out[f"info.{key}"] = v[lanes]
    if isinstance(be, BatchedSproyte):
        out["locations"] = be.locations(lanes)
    if isinstance(be, BatchedSpokelse):  # the from-scratch encoder reads state the views do not (discards by seat)
        for key, v in zip(("encoded", "ev_tot", "ev_cnt"), be.encode_lanes(lanes), strict=True):
            out[key] = v
    return out


def _row(views: dict, j: int) -> dict:
    return {k: v[j] for k, v in views.items()}


def _assert_rows_equal(a: dict, b: dict, where: str) -> None:
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key], err_msg=f"{key} {where}")
            assert a[key].dtype == b[key].dtype, (key, where)
        else:
            assert a[key] == b[key], (key, where, a[key], b[key])


@pytest.mark.parametrize("case", CASES, ids=_ids)
@pytest.mark.parametrize("seed", [3, 11])
def test_copies_play_on_exactly_as_the_source(case, seed):
    cls, _, opts = case
    be, act = _play_to_midgame(cls, opts, seed)
    before1 = _row(_views(be, [1]), 0)
    rng1 = be.rngs[1]
    be.copy_lanes(0, [2, 3], rngs=[np.random.default_rng(9), np.random.default_rng(9)])
    be.rngs[0] = np.random.default_rng(9)
    _assert_rows_equal(_row(_views(be, [1]), 0), before1, "lane 1 after the copy")
    assert be.rngs[1] is rng1
    lanes = np.array([0, 2, 3])
    steps = 0
    while True:
        v = _views(be, lanes)
        for j in (1, 2):
            _assert_rows_equal(_row(v, j), _row(v, 0), f"lane {lanes[j]} after {steps} steps")
        if be.done()[0]:
            break
        a0 = _random_actions(be.legal_mask()[:1], act)[0]
        be.step(np.full(be.num_envs, a0), lanes)
        steps += 1
    # nor did stepping the others change it (its rewards are those of the last step, 0 now)
    end1 = _row(_views(be, [1]), 0)
    del end1["rewards"], before1["rewards"]
    _assert_rows_equal(end1, before1, "lane 1 at the end")


def _assert_lane_is_scalar(be, lane: int, e, where: str, stepped: bool) -> None:
    np.testing.assert_array_equal(be.legal_mask()[lane], e.legal_mask(), err_msg=f"mask {where}")
    assert int(be.current_player[lane]) == e.current_player, where
    for s in range(be.num_players):
        np.testing.assert_array_equal(be.observe([s], [lane])[0], e.observe(s), err_msg=f"observe {s} {where}")
        np.testing.assert_array_equal(be.unseen([s], [lane])[0], e.unseen(s), err_msg=f"unseen {s} {where}")
    if stepped:  # the batch's rewards are those of its last step, the scalar engine's of its own
        np.testing.assert_array_equal(be.rewards[lane], e.rewards, err_msg=f"rewards {where}")
    assert bool(be.terminal[lane]) == e.terminal and bool(be.truncated[lane]) == e.truncated, where


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_copies_replay_a_clone_of_the_scalar_engine(case):
    """After the copy (each copy with a deep copy of lane 0's generator) every lane still replays a
    scalar engine: lanes 2 and 3 replay clones of lane 0's, each with moves of its own to the end."""
    cls, scalar, opts = case
    shadows = [scalar(**opts)]
    be, act = _play_to_midgame(cls, opts, 5, shadows=shadows)
    be.copy_lanes(0, np.array([2, 3]))
    shadows[2], shadows[3] = shadows[0].clone(), shadows[0].clone()
    assert be.rngs[2] is not be.rngs[0] and be.rngs[3] is not be.rngs[2]
    live = np.zeros(be.num_envs, dtype=bool)
    for t in range(10_000):
        for i, e in enumerate(shadows):
            _assert_lane_is_scalar(be, i, e, f"lane {i} after {t} steps", bool(live[i]))
        live = ~be.done()
        if not live.any():
            break
        a = _random_actions(be.legal_mask(), act)
        be.step(a, live)
        for i in np.flatnonzero(live):
            shadows[i].step(int(a[i]))


@pytest.mark.parametrize("cls", [BatchedSproyte, BatchedFemkortskille, BatchedSpokelse], ids=lambda c: c.NAME)
def test_final_views_of_auto_reset_lanes_follow_the_copy(cls):
    be = cls(4, seed=7)
    act = np.random.default_rng(7)
    for _ in range(5_000):
        be.step(_random_actions(be.legal_mask(), act))
        if be.final_observation()[0].size:
            break
    lanes, _, _ = be.final_observation()
    src = int(lanes[0])
    dst = np.array([i for i in range(4) if i != src][:2])
    n = be.num_players
    want = [be.final_observation(np.full(4, s)) for s in range(n)]
    has_info = cls is not BatchedSpokelse  # Spøkelse keeps no final_info (its info() stays valid after an end)
    want_info = be.final_info()[1] if has_info else {}
    j = 0  # src's row in the record
    be.copy_lanes(src, dst)
    for s in range(n):
        got_lanes, obs, uns = be.final_observation(np.full(4, s))
        assert set(got_lanes.tolist()) == set(lanes.tolist()) | set(dst.tolist())
        assert got_lanes.tolist() == sorted(got_lanes.tolist())
        for d in dst:
            r = got_lanes.tolist().index(int(d))
            np.testing.assert_array_equal(obs[r], want[s][1][j])
            np.testing.assert_array_equal(uns[r], want[s][2][j])
    if has_info:
        got_lanes, info = be.final_info()
        for key, v in info.items():
            for d in dst:
                np.testing.assert_array_equal(v[got_lanes.tolist().index(int(d))], want_info[key][j])
    # a live lane copied over an auto-reset one takes it out of the record
    other = [i for i in range(4) if i not in got_lanes.tolist()]
    if other:
        be.copy_lanes(other[0], [src])
        assert src not in be.final_observation()[0].tolist()


def _lane_arrays(be, num_envs: int) -> set[str]:
    """Instance arrays that own their data with a lane axis first (or flat, lane-major [B * n])."""
    n = be.num_players
    return {
        k
        for k, v in vars(be).items()
        if isinstance(v, np.ndarray)
        and v.base is None
        and v.ndim
        and (v.shape[0] == num_envs or (v.ndim == 1 and v.shape[0] == num_envs * n))
    }


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_every_per_lane_array_is_lane_state_or_a_known_constant(case):
    cls, _, opts = case
    # two batch sizes, so that an array whose length only happens to equal B (players + 1, …) is left out
    found = _lane_arrays(cls(5, seed=1, **opts), 5) & _lane_arrays(cls(7, seed=1, **opts), 7)
    state = set(cls.LANE_STATE)
    assert len(state) == len(cls.LANE_STATE), "LANE_STATE names an array twice"
    assert found - state - CONSTANTS[cls] == set(), "per-lane arrays missing from LANE_STATE"
    assert state <= found, "LANE_STATE names something that is not an owning per-lane array"
    assert not state & CONSTANTS[cls]


def _snapshot(be) -> tuple:
    return [getattr(be, k).copy() for k in be.LANE_STATE], list(be.rngs), be.legal_mask()


@pytest.mark.parametrize("cls", [BatchedSproyte, BatchedFemkortskille, BatchedSpokelse], ids=lambda c: c.NAME)
@pytest.mark.parametrize(
    "src, dst, rngs, message",
    [
        (4, [1], None, "src must be a lane index 0..3"),
        (-1, [1], None, "src must be a lane index"),
        (True, [1], None, "src must be a lane index"),
        (1.0, [2], None, "src must be a lane index"),
        (0, [4], None, "lane indices must be 0..3"),
        (0, [1, 0], None, "dst must not hold the source lane 0"),
        (2, [True, False, True, False], None, "dst must not hold the source lane 2"),
        (0, [1, 1], None, "dst must not name a lane twice"),
        (0, [1, 2], [np.random.default_rng(1)], r"rngs must hold one generator per dst lane \(2\), got 1"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(cls, src, dst, rngs, message):
    be = cls(4, seed=2, autoreset=False)
    act = np.random.default_rng(2)
    for _ in range(5):
        live = ~be.done()
        be.step(_random_actions(be.legal_mask(), act), live)
    arrays, gens, mask = _snapshot(be)
    with pytest.raises(ValueError, match=message):
        be.copy_lanes(src, dst, rngs=rngs)
    for k, a in zip(be.LANE_STATE, arrays, strict=True):
        np.testing.assert_array_equal(getattr(be, k), a, err_msg=k)
    assert all(x is y for x, y in zip(be.rngs, gens, strict=True))
    np.testing.assert_array_equal(be.legal_mask(), mask)


def test_given_generators_are_used_as_given_and_an_empty_dst_does_nothing():
    be = BatchedSproyte(4, seed=1)
    r = [np.random.default_rng(1), np.random.default_rng(2)]
    be.copy_lanes(1, np.array([True, False, False, True]), rngs=r)
    assert be.rngs[0] is r[0] and be.rngs[3] is r[1]
    arrays, gens, _ = _snapshot(be)
    be.copy_lanes(2, [])
    assert all(x is y for x, y in zip(be.rngs, gens, strict=True))
    for k, a in zip(be.LANE_STATE, arrays, strict=True):
        np.testing.assert_array_equal(getattr(be, k), a, err_msg=k)
