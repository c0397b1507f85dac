"""The batched Femkortskille engine equals the scalar one, step for step.

Each lane of a :class:`BatchedFemkortskille` is shadowed by a scalar
:class:`FemkortskilleEngine` that deals from the lane's own generator (``lane_rng(seed,
lane)``), so both see the same first dealers, decks and redeals after void deals, and, with
``payments_stay``, carry the same pot from episode to episode; both get the same random legal
actions. At every step every seat's observation and ``unseen``, the legal mask, the seat on
move, the rewards, terminations and truncations must be identical (bitwise), the auto-reset
lanes' final observations must equal the scalar engine's last ones, and their result fields
its ``info``. Every variant runs at several player counts by default and at every count from
3 to 8 in the slow sweep; skituppslag hands are rare in shuffled decks, so a stacked-deck test
deals them on purpose.
"""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest

from kortmiljo.core.errors import ConfigError
from kortmiljo.games.femkortskille import FemkortskilleEngine
from kortmiljo.games.femkortskille.batched import BatchedFemkortskille, BatchedIllegalActionError, lane_rng
from kortmiljo.games.femkortskille.game import PASS

VARIANTS: dict[str, dict] = {
    "default": {},
    "skituppslag": {"skituppslag": True},
    "knock_stake": {"knock_stake": 2},
    "payments_stay": {"payments_stay": True},
    "auktion": {"auktion": True},
    "auktion_max2_stake": {"auktion": True, "max_bet": 2, "knock_stake": 1},
    "poker": {"poker": True},
    "poker_stay_ante2": {"poker": True, "payments_stay": True, "ante": 2, "knock_stake": 1},
    "redeal_ante_max2": {"ante_on_redeal": True, "max_deals": 2},
    "max_deals1": {"max_deals": 1},
    "everything": {
        "skituppslag": True,
        "knock_stake": 1,
        "payments_stay": True,
        "auktion": True,
        "max_bet": 3,
        "poker": True,
        "ante": 2,
        "ante_on_redeal": True,
        "max_deals": 3,
    },
}
PLAYERS = (3, 4, 5, 6, 7, 8)
# the default run: every variant at two player counts (rotating), every player count with the defaults
# and with everything on; the slow sweep takes the whole product
DEFAULT_GRID = sorted(
    {(name, PLAYERS[(2 * i) % 6]) for i, name in enumerate(VARIANTS)}
    | {(name, PLAYERS[(2 * i + 3) % 6]) for i, name in enumerate(VARIANTS)}
    | {(name, n) for name in ("default", "everything") for n in PLAYERS}
)
FULL_GRID = [(name, n) for name, n in itertools.product(VARIANTS, PLAYERS) if (name, n) not in DEFAULT_GRID]


def _options(name: str, n: int) -> dict:
    return {"num_players": n, **VARIANTS[name]}


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    u = rng.random(mask.shape) * mask
    u[mask == 0] = -1.0
    return u.argmax(axis=1)


def _scalar_views(engines: list[FemkortskilleEngine]) -> tuple[np.ndarray, np.ndarray]:
    n = engines[0].num_players
    obs = np.stack([np.stack([e.observe(v) for v in range(n)]) for e in engines])
    uns = np.stack([np.stack([e.unseen(v) for v in range(n)]) for e in engines])
    return obs, uns


def _assert_same(be: BatchedFemkortskille, engines: list[FemkortskilleEngine], where: str) -> None:
    obs, uns = _scalar_views(engines)
    masks = np.stack([e.legal_mask() for e in engines])
    cps = np.array([e.current_player for e in engines])
    np.testing.assert_array_equal(be.legal_mask(), masks, err_msg=f"legal mask {where}")
    np.testing.assert_array_equal(be.current_player, cps, err_msg=f"current player {where}")
    got = be.observe_all()
    if not np.array_equal(got, obs):
        lane, seat, pos = np.argwhere(got != obs)[0]
        seg = next(s.name for s in be.layout.segments if s.offset <= pos < s.offset + s.size)
        raise AssertionError(
            f"observation {where}: lane {lane} seat {seat} segment {seg} (index {pos}): "
            f"batched {got[lane, seat, pos]}, scalar {obs[lane, seat, pos]}"
        )
    np.testing.assert_array_equal(be.unseen_all(), uns, err_msg=f"unseen {where}")
    # the views for the seat on move, and for any seats, are the same arrays gathered
    ar = np.arange(len(engines))
    np.testing.assert_array_equal(be.observation(), obs[ar, cps])
    np.testing.assert_array_equal(be.unseen(), uns[ar, cps])
    other = (cps + 1) % be.num_players
    np.testing.assert_array_equal(be.observe(other), obs[ar, other])
    np.testing.assert_array_equal(be.unseen(other), uns[ar, other])
    sub = ar[::2]  # some lanes only, as the vector env asks for them
    np.testing.assert_array_equal(be.observe(other[sub], sub), obs[sub, other[sub]])
    np.testing.assert_array_equal(be.observe(None, sub), obs[sub, cps[sub]])
    np.testing.assert_array_equal(be.unseen(other[sub], sub), uns[sub, other[sub]])


def _assert_info(fields: dict[str, np.ndarray], j: int, e: FemkortskilleEngine, lane: int) -> None:
    for s in range(e.num_players):
        got = {k: v[j, s].item() if isinstance(v[j, s], np.generic) else v[j, s] for k, v in fields.items()}
        want = e.info(s)
        # the per-lane arrays carry no key for some lanes only: lane_infos adds it (tests/env/test_truncation.py)
        assert want.pop("truncated_by", None) == ("max_deals" if e.truncated else None)
        assert got == want and [type(got[k]) for k in want] == [type(x) for x in want.values()], (lane, s, got, want)


def run_lockstep(options: dict, num_envs: int, steps: int, seed: int, pass_bias: float = 0.0) -> tuple[int, int]:
    """Random legal play in every lane with auto-reset; returns (finished episodes, truncated ones).
    ``pass_bias``: the chance of passing whenever ``pass`` is legal (void deals, truncations)."""
    be = BatchedFemkortskille(num_envs, seed=seed, **options)
    n = be.num_players
    rngs = [lane_rng(seed, i) for i in range(num_envs)]
    engines = [FemkortskilleEngine(**options) for _ in range(num_envs)]
    for e, r in zip(engines, rngs, strict=True):
        e.new_episode(r)
    act_rng = np.random.default_rng(seed + 1)
    games = truncs = 0
    for t in range(steps):
        _assert_same(be, engines, f"before step {t}")
        mask = be.legal_mask()
        a = _random_actions(mask, act_rng)
        if pass_bias:
            a[(mask[:, PASS] == 1) & (act_rng.random(num_envs) < pass_bias)] = PASS
        be.step(a)
        for i, e in enumerate(engines):
            e.step(int(a[i]))
        np.testing.assert_array_equal(be.rewards, np.array([e.rewards for e in engines]), err_msg=f"rewards {t}")
        term = np.array([e.terminal for e in engines])
        trunc = np.array([e.truncated for e in engines])
        np.testing.assert_array_equal(be.terminal, term, err_msg=f"terminal at step {t}")
        np.testing.assert_array_equal(be.truncated, trunc, err_msg=f"truncated at step {t}")
        done = term | trunc
        if done.any():
            for v in range(n):  # each seat's last view, as kept before the auto-reset
                lanes, fo, fu = be.final_observation(np.full(num_envs, v))
                np.testing.assert_array_equal(lanes, np.flatnonzero(done))
                for j, i in enumerate(lanes):
                    np.testing.assert_array_equal(fo[j], engines[i].observe(v), err_msg=f"final obs lane {i} seat {v}")
                    np.testing.assert_array_equal(fu[j], engines[i].unseen(v))
            lanes, fields = be.final_info()
            for j, i in enumerate(lanes):
                _assert_info(fields, j, engines[i], int(i))
            for i in np.flatnonzero(done):
                games += 1
                truncs += int(trunc[i])
                engines[i].new_episode(rngs[i])  # the same instance: a payments_stay pot carries over
    _assert_same(be, engines, "at the end")
    np.testing.assert_array_equal(be.carry, [e._carry for e in engines])
    return games, truncs


def _check_grid_point(name: str, n: int, num_envs: int, steps: int) -> None:
    short = VARIANTS[name].get("max_deals", 20) <= 2
    seed = zlib.crc32(f"{name}-{n}".encode())
    games, truncs = run_lockstep(_options(name, n), num_envs, steps, seed, pass_bias=0.6 if short else 0.0)
    assert games >= num_envs  # every lane finished at least about once: ends and auto-resets are covered
    if short:
        assert truncs > 0


@pytest.mark.parametrize(("name", "n"), DEFAULT_GRID, ids=[f"{a}-{b}p" for a, b in DEFAULT_GRID])
def test_lockstep_random_play(name, n):
    _check_grid_point(name, n, num_envs=16, steps=100)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "n"), FULL_GRID, ids=[f"{a}-{b}p" for a, b in FULL_GRID])
def test_lockstep_random_play_every_player_count(name, n):
    _check_grid_point(name, n, num_envs=24, steps=200)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(VARIANTS))
def test_thousands_of_episodes_per_variant(name):
    games, _ = run_lockstep(_options(name, 4), num_envs=64, steps=400, seed=3)
    assert games >= 1000


def test_hundreds_of_episodes_default_options():
    games, _ = run_lockstep({}, num_envs=48, steps=100, seed=3)
    assert games >= 300


def _skit_rich_deck(rng: np.random.Generator, n: int, dealer: int) -> np.ndarray:
    """A shuffled deck in which, half the time, some seat is dealt three of the six low cards
    (a skituppslag hand), and sometimes a second seat too."""
    deck = rng.permutation(42)
    fh = (dealer + 1) % n
    for _ in range(2):
        if rng.random() < 0.5:
            seat = int(rng.integers(n))
            want = [(seat - fh) % n + n * j for j in range(3)]  # deck positions of its three cards
            low = [int(np.flatnonzero(deck == c)[0]) for c in rng.choice(6, size=3, replace=False)]
            for p, q in zip(want, low, strict=True):
                deck[[p, q]] = deck[[q, p]]
    return deck


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 3, "skituppslag": True},
        {"num_players": 5, "skituppslag": True, "knock_stake": 1, "payments_stay": True},
        {"num_players": 4, "skituppslag": True, "auktion": True, "poker": True},
        {"num_players": 8, "skituppslag": True, "poker": True, "max_deals": 2},
    ],
    ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()),
)
def test_stacked_decks_dealers_and_masked_lanes(options):
    """Stacked decks (many skituppslag hands) and dealers, ``autoreset=False``, finished lanes
    dealt anew with ``reset(lanes=…)``, and a random subset of lanes stepped each time."""
    B, seed, n = 8, 11, options["num_players"]
    rng = np.random.default_rng(seed)
    be = BatchedFemkortskille(B, autoreset=False, **options)
    engines = [FemkortskilleEngine(**options) for _ in range(B)]
    streams = [lane_rng(seed, i) for i in range(B)]

    def deal(lanes: np.ndarray, seed: int | None = None) -> None:
        dealers = rng.integers(n, size=len(lanes))
        decks = np.stack([_skit_rich_deck(rng, n, int(d)) for d in dealers])
        # the first deal re-seeds the streams (nothing is drawn for a stacked deal): every redeal
        # after a void deal comes from lane_rng(seed, lane), as in the scalar engines
        be.reset(decks, dealers, lanes=lanes, seed=seed)
        for i, d, deck in zip(lanes.tolist(), dealers.tolist(), decks, strict=True):
            engines[i].new_episode(streams[i], [engines[i].deck.code(int(c)) for c in deck], int(d))

    deal(np.arange(B), seed)
    shows = finished = 0
    for t in range(700):
        _assert_same(be, engines, f"step {t}")
        live = ~(be.terminal | be.truncated)
        if not live.all():
            ended = np.flatnonzero(~live)
            info = be.info()
            for i in ended.tolist():
                _assert_info({k: v[i : i + 1] for k, v in info.items()}, 0, engines[i], i)
            assert not be.legal_mask()[ended].any()
            with pytest.raises(BatchedIllegalActionError, match=f"lane {ended[0]}: "):
                be.step(np.zeros(B, dtype=np.int64), lanes=ended[:1])
            finished += len(ended)
            deal(ended)
            continue
        lanes = live & (rng.random(B) < 0.6)
        mask = be.legal_mask()
        a = _random_actions(mask, rng)
        if be.skituppslag:
            shows += int((mask[lanes, be.game.A_SHOW] == 1).sum())
        be.step(a, lanes)
        for i in np.flatnonzero(lanes):
            engines[i].step(int(a[i]))
        for i in range(B):
            want = engines[i].rewards if lanes[i] else [0.0] * n
            np.testing.assert_array_equal(be.rewards[i], want)
        np.testing.assert_array_equal(be.terminal, [e.terminal for e in engines])
        np.testing.assert_array_equal(be.truncated, [e.truncated for e in engines])
    assert shows >= 10 and finished >= 40
    np.testing.assert_array_equal(be.carry, [e._carry for e in engines])


def test_pot_carries_per_lane_and_new_session_empties_it():
    be = BatchedFemkortskille(16, seed=5, payments_stay=True, num_players=3)
    rng = np.random.default_rng(0)
    for _ in range(300):
        be.step(_random_actions(be.legal_mask(), rng))
    assert (be.carry > 0).any()
    lanes = np.flatnonzero(be.carry > 0)[:2]
    be.new_session(lanes)
    assert (be.carry[lanes] == 0).all()
    be.reset(lanes=lanes)
    np.testing.assert_array_equal(be.pot[lanes], 3.0)  # the antes only
    be.reset(seed=1)  # a seeded reset starts every session afresh
    np.testing.assert_array_equal(be.pot, 3.0)


def test_bad_options_decks_and_dealers():
    with pytest.raises(ConfigError, match="num_players"):
        BatchedFemkortskille(2, num_players=9)
    with pytest.raises(ConfigError, match="unknown option"):
        BatchedFemkortskille(2, variant="x")
    with pytest.raises(ValueError, match="num_envs"):
        BatchedFemkortskille(0)
    be = BatchedFemkortskille(2, seed=0)
    deck = np.arange(42)
    with pytest.raises(ValueError, match="lane 1 is not a permutation"):
        be.reset(np.stack([deck, np.r_[deck[:-1], 0]]), [0, 1])
    with pytest.raises(ValueError, match="dealers"):
        be.reset(np.stack([deck, deck]), [0, 4])
    with pytest.raises(ValueError, match="shape"):
        be.reset(deck[None, :], [0, 1])


@pytest.mark.parametrize(
    "option",
    [{"ranks": ["1", "2", "3", "4", "5", "6", "7", "kille"], "num_players": 3}, {"hand_size": 2}, {"extra_cards": 1}],
)
def test_teaching_options_are_refused_not_ignored(option):
    with pytest.raises(ValueError, match="teaching option"):
        BatchedFemkortskille(4, seed=0, **option)
