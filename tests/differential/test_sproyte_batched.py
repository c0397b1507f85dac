"""The batched Sprøyte engine equals the scalar one, step for step.

Each lane of a :class:`BatchedSproyte` is shadowed by a scalar :class:`SproyteEngine` that
deals from the lane's own generator (``lane_rng(seed, lane)``), so both see the same decks,
first dealers and later match deals; both get the same random legal actions. At every step
every seat's observation and ``unseen``, the legal mask, the seat on move, every card's
location, the rewards and the terminations must be identical (bitwise), and the auto-reset
lanes' final observations and results must equal the scalar engine's terminal ones. The
grid covers every form with and without a match, both reward kinds, fixed trumps and
exchange quotas that leave cards in the pile, carry allowances and reach the pile bottom.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from kortmiljo.core.errors import ConfigError
from kortmiljo.games.sproyte import SproyteEngine
from kortmiljo.games.sproyte.batched import BatchedSproyte, lane_rng
from kortmiljo.games.sproyte.game import KEEP, TAKE_TALON

BASE_GRID = [
    {"variant": v, "match_to": m, "reward": r}
    for v in ("vanlig", "variasjon", "tretten")
    for m in (None, 3)
    for r in ("relative", "raw")
]
EXTRA_GRID = [
    {"variant": "vanlig", "trump": "H"},
    {"variant": "vanlig", "trump": "S", "match_to": 4, "reward": "raw"},
    {"variant": "tretten", "trump": "D", "match_to": 5},
    {"variant": "vanlig", "exchange_quota": (0, 0, 0)},
    {"variant": "vanlig", "exchange_quota": (0, 0, 12)},  # all of it carried to the dealer
    {"variant": "vanlig", "exchange_quota": (9, 9, 9)},  # capped by the pile
    {"variant": "variasjon", "exchange_quota": (16, 0, 0)},  # forhånd may reach the shown card
    {"variant": "variasjon", "exchange_quota": (1, 2, 3), "match_to": 4, "reward": "raw"},
    {"variant": "variasjon", "exchange_quota": (6, 6, 6), "match_to": 3},
]
OPTION_GRID = BASE_GRID + EXTRA_GRID


def _ids(opts: dict) -> str:
    return "-".join(f"{k}={'_'.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in opts.items())


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    u = rng.random(mask.shape) * mask
    u[mask == 0] = -1.0
    return u.argmax(axis=1)


def _scalar_views(engines: list[SproyteEngine]) -> tuple[np.ndarray, np.ndarray]:
    obs = np.stack([np.stack([e.observe(v) for v in range(3)]) for e in engines])
    uns = np.stack([np.stack([e.unseen(v) for v in range(3)]) for e in engines])
    return obs, uns


def _assert_same(be: BatchedSproyte, engines: list[SproyteEngine], where: str) -> None:
    obs, uns = _scalar_views(engines)
    masks = np.stack([e.legal_mask() for e in engines])
    cps = np.array([e.current_player for e in engines])
    np.testing.assert_array_equal(be.legal_mask(), masks, err_msg=f"legal mask {where}")
    np.testing.assert_array_equal(be.current_player, cps, err_msg=f"current player {where}")
    np.testing.assert_array_equal(
        be.locations(), np.stack([e.locations() for e in engines]), err_msg=f"locations {where}"
    )
    got = be.observe_all()
    if not np.array_equal(got, obs):
        lane, seat, pos = np.argwhere(got != obs)[0]
        seg = next(s.name for s in be.layout.segments if s.offset <= pos < s.offset + s.size)
        raise AssertionError(
            f"observation {where}: lane {lane} seat {seat} segment {seg} (index {pos}): "
            f"batched {got[lane, seat, pos]} scalar {obs[lane, seat, pos]}"
        )
    np.testing.assert_array_equal(be.unseen_all(), uns, err_msg=f"unseen {where}")
    # the views for the seat on move are the same arrays, gathered
    rows = np.arange(len(engines))
    np.testing.assert_array_equal(be.observation(), obs[rows, cps])
    np.testing.assert_array_equal(be.observe(), obs[rows, cps])
    np.testing.assert_array_equal(be.unseen(), uns[rows, cps])


def run_lockstep(
    options: dict, num_envs: int, steps: int, seed: int, check_every: int = 1, events: dict | None = None
) -> int:
    """Random legal play in every lane with auto-reset; returns the number of finished games
    and counts the rarer events in ``events`` (shown card drawn, talon taken)."""
    be = BatchedSproyte(num_envs, seed=seed, **options)
    rngs = [lane_rng(seed, i) for i in range(num_envs)]
    engines = [SproyteEngine(**options) for _ in range(num_envs)]
    for e, r in zip(engines, rngs, strict=True):
        e.new_episode(r)
    act_rng = np.random.default_rng(seed + 1)
    games = 0
    for t in range(steps):
        if t % check_every == 0:
            _assert_same(be, engines, f"before step {t}")
        mask = be.legal_mask()
        a = _random_actions(mask, act_rng)
        holders = [e.shown_holder for e in engines]
        be.step(a)
        for i, e in enumerate(engines):
            e.step(int(a[i]))
        if events is not None:
            drawn = sum(h < 0 <= e.shown_holder for h, e in zip(holders, engines, strict=True))
            events["shown_drawn"] = events.get("shown_drawn", 0) + drawn
            events["talon_taken"] = events.get("talon_taken", 0) + int((a == TAKE_TALON).sum())
        np.testing.assert_array_equal(be.rewards, np.array([e.rewards for e in engines]), err_msg=f"rewards {t}")
        done = np.array([e.terminal for e in engines])
        np.testing.assert_array_equal(be.terminal, done, err_msg=f"terminal at step {t}")
        if done.any():
            lanes, info = be.final_info()
            np.testing.assert_array_equal(lanes, np.flatnonzero(done))
            for v in range(3):  # each seat's terminal view, as kept before the auto-reset
                lanes, fo, fu = be.final_observation(np.full(num_envs, v))
                np.testing.assert_array_equal(lanes, np.flatnonzero(done))
                for j, i in enumerate(lanes):
                    np.testing.assert_array_equal(fo[j], engines[i].observe(v), err_msg=f"final obs lane {i} seat {v}")
                    np.testing.assert_array_equal(fu[j], engines[i].unseen(v))
                    want = engines[i].info(v)
                    for key, arr in info.items():
                        assert arr[j, v] == want[key], (key, i, v)
            for i in np.flatnonzero(done):
                games += 1
                engines[i].new_episode(rngs[i])
    _assert_same(be, engines, "at the end")
    return games


@pytest.mark.parametrize("options", OPTION_GRID, ids=_ids)
def test_lockstep_random_play(options):
    games = run_lockstep(options, num_envs=8, steps=240, seed=zlib.crc32(_ids(options).encode()))
    assert games >= (4 if options.get("match_to") else 24)  # final steps and later deals are covered


@pytest.mark.slow
@pytest.mark.parametrize(
    "options", OPTION_GRID + [{"variant": v, "match_to": 10} for v in ("vanlig", "tretten")], ids=_ids
)
def test_lockstep_random_play_long(options):
    assert run_lockstep(options, num_envs=48, steps=1500, seed=7) >= 48


@pytest.mark.parametrize("variant", ["vanlig", "variasjon", "tretten"])
def test_thousand_games_per_form(variant):
    """About a thousand random games per form; every step's masks, players, rewards and
    terminations, and the full views every fourth step and at every game's end."""
    steps = {"vanlig": 840, "variasjon": 900, "tretten": 760}[variant]  # random games last 50 / 54 / 42 steps
    events: dict = {}
    assert run_lockstep({"variant": variant}, num_envs=64, steps=steps, seed=3, check_every=4, events=events) >= 1000
    if variant == "variasjon":
        assert events["shown_drawn"] > 100  # draws that reach the bottom of the pile
    if variant == "tretten":
        assert events["talon_taken"] > 300


@pytest.mark.parametrize("variant", ["vanlig", "variasjon", "tretten"])
def test_stacked_decks_dealers_and_masked_lanes(variant):
    """Explicit decks and dealers, ``autoreset=False``, a random subset of lanes per step, and a
    bias towards the rarer actions (taking the talon, long exchanges)."""
    B, seed = 9, 11
    rng = np.random.default_rng(seed)
    opts = {"variant": variant, "match_to": 4, "reward": "raw"}
    be = BatchedSproyte(B, autoreset=False, **opts)
    cards = be.cards
    decks = np.stack([cards[rng.permutation(len(cards))] for _ in range(B)])
    dealers = rng.integers(3, size=B)
    be.reset(decks, dealers, seed=seed)  # fresh streams: nothing drawn from them yet
    engines = []
    for i in range(B):  # later match deals come from the lane's generator, as in the batch
        e = SproyteEngine(**opts)
        e.new_episode(lane_rng(seed, i), [e.deck.code(c) for c in decks[i]], int(dealers[i]))
        engines.append(e)
    for t in range(3000):
        _assert_same(be, engines, f"step {t}")
        live = ~be.terminal
        if not live.any():
            break
        lanes = live & (rng.random(B) < 0.6)
        mask = be.legal_mask()
        a = _random_actions(mask, rng)
        take = mask[:, TAKE_TALON] == 1
        a[take] = np.where(rng.random(take.sum()) < 0.5, TAKE_TALON, KEEP)
        be.step(a, lanes)
        for i in np.flatnonzero(lanes):
            engines[i].step(int(a[i]))
        for i in range(B):
            want = engines[i].rewards if lanes[i] else [0.0] * 3
            np.testing.assert_array_equal(be.rewards[i], want)
        np.testing.assert_array_equal(be.terminal, [e.terminal for e in engines])
    assert be.terminal.all()
    info = be.info()
    for i, e in enumerate(engines):
        for s in range(3):
            assert be.lane_info(i, s) == e.info(s)
            assert {k: info[k][i, s] for k in info} == {k: e.info(s)[k] for k in info}
    # a finished lane is dealt anew by reset(lanes=...)
    be.reset(lanes=[3])
    assert not be.terminal[3] and be.legal_mask()[3].any()


def test_rngs_given_per_lane_are_used_as_new_episode_uses_its_rng():
    rngs = [np.random.default_rng(100 + i) for i in range(4)]
    be = BatchedSproyte(4, rngs=rngs, variant="tretten")
    for i in range(4):
        e = SproyteEngine(variant="tretten")
        e.new_episode(np.random.default_rng(100 + i))
        np.testing.assert_array_equal(be.locations([i])[0], e.locations())
        assert be.dealer[i] == e.dealer


def test_bad_options_decks_and_dealers():
    with pytest.raises(ConfigError, match="variant"):
        BatchedSproyte(2, variant="x")
    with pytest.raises(ConfigError, match="trump"):
        BatchedSproyte(2, variant="variasjon", trump="S")
    with pytest.raises(ConfigError, match="exchange_quota"):
        BatchedSproyte(2, variant="tretten", exchange_quota=(1, 1, 1))
    with pytest.raises(ConfigError, match="unknown option"):
        BatchedSproyte(2, jack_points=3)
    with pytest.raises(ValueError, match="num_envs"):
        BatchedSproyte(0)
    be = BatchedSproyte(2, seed=0)
    deck = be.cards
    with pytest.raises(ValueError, match="lane 1 is not a permutation"):
        be.reset(np.stack([deck, np.r_[deck[:-1], 1]]), [0, 1])  # the two of spades is not in vanlig
    with pytest.raises(ValueError, match="dealers"):
        be.reset(np.stack([deck, deck]), [0, 3])
    with pytest.raises(ValueError, match=r"shape \(2, 48\)"):
        be.reset(np.stack([np.arange(52), np.arange(52)]), [0, 1])


def test_plugs_into_the_vector_env_protocol(monkeypatch):
    vector = pytest.importorskip("kortmiljo.env.vector")
    from kortmiljo.core.batched import BatchedEngine

    be = BatchedSproyte(2, seed=0)
    assert isinstance(be, BatchedEngine)
    env = vector.BatchedSingleSeatVecEnv("sproyte", {"variant": "variasjon", "match_to": 3}, 6, seed=1)
    obs = env.reset()
    assert obs.shape == (6, be.obs_size + 52)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(300):
        obs, r, done, infos = env.step(_random_actions(env.action_masks(), rng))
        for i in np.flatnonzero(done):
            finished += 1
            assert {"tricks", "deal_points", "match_points", "terminal_observation"} <= set(infos[i])
    assert finished > 0
