"""The batched Spøkelse engine equals the scalar one, step for step.

Each lane of a :class:`BatchedSpokelse` is shadowed by a scalar :class:`SpokelseEngine`
that deals from the lane's own generator (``lane_rng(seed, lane)``), so both see the same
decks, first dealers and later match deals; both get the same random legal actions. At
every step every seat's observation and ``unseen``, the legal mask, the seat on move, the
rewards and the terminations must be identical (bitwise), and the auto-reset lanes'
final observations must equal the scalar engine's terminal observations.
"""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest

from kortmiljo.core.errors import ConfigError
from kortmiljo.games.spokelse import SpokelseEngine
from kortmiljo.games.spokelse.batched import BatchedSpokelse, lane_rng

OPTION_GRID = [
    {"num_players": n, "jack_points": j, "match_to": m, "reward": r}
    for n, j, m, r in itertools.product((2, 3, 4, 5), (0.5, 11), (None, 21, 40), ("win", "points"))
]

# the teaching variants (short deck, fewer slots, a turn cap), alone and combined with the others
SHORT = ["AS", "2S", "3S", "4S", "8S", "TS", "JS", "QS", "KS", "AH", "5H", "9H", "KH", "8D"]
VARIANT_GRID = [
    {"num_players": 2, "cards": SHORT[:6], "num_slots": 1},
    {"num_players": 2, "cards": SHORT, "num_slots": 2, "match_to": 30, "reward": "points"},
    {"num_players": 3, "cards": SHORT, "num_slots": 3, "jack_points": 11},
    {"num_players": 2, "num_slots": 3, "max_turns": 5},
    {"num_players": 4, "max_turns": 12, "match_to": 60},
    {"num_players": 5, "num_slots": 1, "max_turns": 3, "reward": "points"},
    {"num_players": 2, "cards": SHORT[:8], "num_slots": 2, "max_turns": 4, "match_to": 12},
    {"num_players": 3, "num_slots": 2},
]


def _ids(opts: dict) -> str:
    extra = "".join(
        f"-{k}{len(v) if k == 'cards' else v}" for k, v in opts.items() if k in ("cards", "num_slots", "max_turns")
    )
    n, j, m, r = (
        opts.get(k, d) for k, d in (("num_players", 2), ("jack_points", 0.5), ("match_to", None), ("reward", "win"))
    )
    return f"{n}p-j{j}-m{m}-{r}{extra}"


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    u = rng.random(mask.shape) * mask
    u[mask == 0] = -1.0
    return u.argmax(axis=1)


def _scalar_views(engines: list[SpokelseEngine]) -> tuple[np.ndarray, np.ndarray]:
    n = engines[0].num_players
    obs = np.stack([np.stack([e.observe(v) for v in range(n)]) for e in engines])
    uns = np.stack([np.stack([e.unseen(v) for v in range(n)]) for e in engines])
    return obs, uns


def _assert_same(be: BatchedSpokelse, engines: list[SpokelseEngine], where: str) -> None:
    obs, uns = _scalar_views(engines)
    masks = np.stack([e.legal_mask() for e in engines])
    cps = np.array([e.current_player for e in engines])
    np.testing.assert_array_equal(be.legal_mask(), masks, err_msg=f"legal mask {where}")
    np.testing.assert_array_equal(be.current_player, cps, err_msg=f"current player {where}")
    if not np.array_equal(be.observe_all(), obs):
        lane, seat, pos = np.argwhere(be.observe_all() != obs)[0]
        seg = next(s.name for s in be.layout.segments if s.offset <= pos < s.offset + s.size)
        raise AssertionError(f"observation {where}: lane {lane} seat {seat} segment {seg} (index {pos})")
    np.testing.assert_array_equal(be.unseen_all(), uns, err_msg=f"unseen {where}")
    # the views for the seat on move are the same arrays, gathered
    np.testing.assert_array_equal(be.observation(), obs[np.arange(len(engines)), cps])
    np.testing.assert_array_equal(be.unseen(), uns[np.arange(len(engines)), cps])


def run_lockstep(options: dict, num_envs: int, steps: int, seed: int) -> int:
    """Random legal play in every lane with auto-reset; returns the number of finished games."""
    be = BatchedSpokelse(num_envs, seed=seed, **options)
    n = be.num_players
    rngs = [lane_rng(seed, i) for i in range(num_envs)]
    engines = [SpokelseEngine(**options) for _ in range(num_envs)]
    for e, r in zip(engines, rngs, strict=True):
        e.new_episode(r)
    act_rng = np.random.default_rng(seed + 1)
    games = 0
    for t in range(steps):
        _assert_same(be, engines, f"before step {t}")
        a = _random_actions(be.legal_mask(), act_rng)
        be.step(a)
        for i, e in enumerate(engines):
            e.step(int(a[i]))
        np.testing.assert_array_equal(be.rewards, np.array([e.rewards for e in engines]), err_msg=f"rewards {t}")
        done = np.array([e.terminal for e in engines])
        np.testing.assert_array_equal(be.terminal, done, err_msg=f"terminal at step {t}")
        if done.any():
            for v in range(n):  # each seat's terminal view, as kept before the auto-reset
                lanes, fo, fu = be.final_observation(np.full(num_envs, v))
                np.testing.assert_array_equal(lanes, np.flatnonzero(done))
                for j, i in enumerate(lanes):
                    np.testing.assert_array_equal(fo[j], engines[i].observe(v), err_msg=f"final obs lane {i} seat {v}")
                    np.testing.assert_array_equal(fu[j], engines[i].unseen(v))
            for i in np.flatnonzero(done):
                games += 1
                engines[i].new_episode(rngs[i])
    _assert_same(be, engines, "at the end")
    return games


@pytest.mark.parametrize("options", OPTION_GRID, ids=_ids)
def test_lockstep_random_play(options):
    # random play takes ~4 steps per stock card: about three rounds per lane
    steps = {2: 500, 3: 430, 4: 370, 5: 310}[options["num_players"]]
    games = run_lockstep(options, num_envs=12, steps=steps, seed=zlib.crc32(_ids(options).encode()))
    assert games >= 6  # final steps and (in a match) later deals are covered


@pytest.mark.parametrize("options", VARIANT_GRID, ids=_ids)
def test_lockstep_teaching_variants(options):
    games = run_lockstep(options, num_envs=12, steps=400, seed=zlib.crc32(_ids(options).encode()))
    assert games >= 6


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_GRID + VARIANT_GRID, ids=_ids)
def test_lockstep_random_play_long(options):
    assert run_lockstep(options, num_envs=48, steps=1500, seed=7) >= 48 * 5


def test_thousands_of_games_default_options():
    assert run_lockstep({}, num_envs=64, steps=3200, seed=3) >= 1000


@pytest.mark.parametrize("n", [2, 3, 5])
def test_stacked_decks_dealers_and_masked_lanes(n):
    """Explicit decks and dealers, ``autoreset=False``, and a random subset of lanes per step."""
    B, seed = 10, 11
    rng = np.random.default_rng(seed)
    decks = np.stack([rng.permutation(52) for _ in range(B)])
    dealers = rng.integers(n, size=B)
    opts = {"num_players": n, "match_to": 40, "reward": "points"}
    be = BatchedSpokelse(B, autoreset=False, **opts)
    be.reset(decks, dealers, seed=seed)  # fresh streams: nothing drawn from them yet
    engines = []
    for i in range(B):  # later match deals come from the lane's generator, as in the batch
        e = SpokelseEngine(**opts)
        e.new_episode(lane_rng(seed, i), [e.deck.code(c) for c in decks[i]], int(dealers[i]))
        engines.append(e)
    for t in range(2000):
        _assert_same(be, engines, f"step {t}")
        live = ~be.terminal
        if not live.any():
            break
        lanes = live & (rng.random(B) < 0.6)
        a = _random_actions(be.legal_mask(), rng)
        be.step(a, lanes)
        for i in np.flatnonzero(lanes):
            engines[i].step(int(a[i]))
        for i in range(B):
            want = engines[i].rewards if lanes[i] else [0.0] * n
            np.testing.assert_array_equal(be.rewards[i], want)
        np.testing.assert_array_equal(be.terminal, [e.terminal for e in engines])
    assert be.terminal.all()
    info = be.info()
    for i, e in enumerate(engines):
        for s in range(n):
            assert e.info(s) == {"round_points": info["round_points"][i, s], "match_points": info["match_points"][i, s]}
    # a finished lane is dealt anew by reset(lanes=...)
    be.reset(lanes=[3])
    assert not be.terminal[3] and be.legal_mask()[3].any()


def test_dealer_draw_matches_scalar_including_ties():
    for n in (2, 3, 4, 5):
        be = BatchedSpokelse(1, seed=0, num_players=n)
        perms = np.stack([np.random.default_rng(s).permutation(52) for s in range(3000)])
        want = [be.game.draw_dealer(np.random.default_rng(s)) for s in range(3000)]
        np.testing.assert_array_equal(be._dealers_from(perms), want)


def test_incremental_buffers_equal_from_scratch_encoder():
    be = BatchedSpokelse(32, seed=2, num_players=4, match_to=60)
    rng = np.random.default_rng(0)
    for _ in range(300):
        be.step(_random_actions(be.legal_mask(), rng))
        if _ % 37 == 0:
            obs, ev_tot, ev_cnt = be.encode_lanes(None)
            np.testing.assert_array_equal(obs, be.observe_all())
            np.testing.assert_array_equal(ev_tot.ravel(), be._ev_tot)
            np.testing.assert_array_equal(ev_cnt.ravel(), be._ev_cnt)


def test_bad_options_decks_and_dealers():
    with pytest.raises(ConfigError, match="num_players"):
        BatchedSpokelse(2, num_players=6)
    with pytest.raises(ConfigError, match="unknown option"):
        BatchedSpokelse(2, variant="x")
    with pytest.raises(ValueError, match="num_envs"):
        BatchedSpokelse(0)
    be = BatchedSpokelse(2, seed=0)
    deck = np.arange(52)
    with pytest.raises(ValueError, match="lane 1 is not a permutation"):
        be.reset(np.stack([deck, np.r_[deck[:-1], 0]]), [0, 1])
    with pytest.raises(ValueError, match="dealers"):
        be.reset(np.stack([deck, deck]), [0, 2])
    with pytest.raises(ValueError, match="shape"):
        be.reset(deck[None, :], [0, 1])
