"""Invariants of Femkortskille over many random episodes, against references written here.

The unseen reference rebuilds every seat's knowledge from the deal's deck order, the
dealer and the action history alone (by action name), independently of the engine's
incremental bookkeeping.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kortmiljo.games.femkortskille import FemkortskilleEngine, Phase
from kortmiljo.games.femkortskille.game import LOC_DISCARDED, LOC_HAND, LOC_PLAYED, LOC_STOCK

CONFIGS = [
    {"num_players": 3},
    {},
    {"num_players": 5},
    {"num_players": 8},
    {"skituppslag": True},
    {"knock_stake": 2},
    {"payments_stay": True},
    {"auktion": True},
    {"poker": True},
    {"poker": True, "num_players": 7},
    {"ante_on_redeal": True, "max_deals": 2},
    {"num_players": 6, "skituppslag": True, "knock_stake": 1, "payments_stay": True, "auktion": True, "poker": True},
]


def reference_known(e: FemkortskilleEngine) -> list[list[int]]:
    """Copies of each rank each seat can locate, replayed from deck, dealer and history."""
    n, names, deck = e.num_players, e.action_names, e.deal_deck
    order = [(e.dealer + 1 + i) % n for i in range(n)]
    hands = {s: [] for s in range(n)}
    for i in range(3 * n):
        hands[order[i % n]].append(deck[i] >> 1)
    stock = [c >> 1 for c in deck[3 * n :]]
    hist = [(s, names[a]) for s, a in e.history[e.deal_start :]]
    discards = {s: [] for s in range(n)}
    played: list[int] = []
    shown: tuple[int, list[int]] | None = None
    knockers, waiting = set(), []
    i = 0
    for s in order:  # the circle
        if i == len(hist):
            break
        seat, name = hist[i]
        assert seat == s, "the circle runs in seat order from forhånd"
        i += 1
        if name == "show":
            shown = (s, hands[s])
            break
        if name == "knock" or name.startswith("bet:"):
            knockers.add(s)
        elif name == "lura":
            waiting.append(s)
    else:
        for s in waiting:  # the waiting players, in seat order from forhånd
            if i == len(hist):
                break
            assert hist[i][0] == s
            if hist[i][1] == "knock":
                knockers.add(s)
            i += 1
        else:
            if len(knockers) >= 2:
                for s in order:
                    if s in knockers:
                        hands[s] += stock[:2]
                        stock = stock[2:]
    pending = dict.fromkeys(range(n), 0)
    for seat, name in hist[i:]:
        kind, _, rank = name.partition(":")
        if kind == "discard":
            r = names.index(name) - names.index("discard:blaren")
            hands[seat].remove(r)
            discards[seat].append(r)
            pending[seat] += 1
        elif kind == "done":
            hands[seat] += stock[: pending[seat]]
            stock = stock[pending[seat] :]
        elif kind == "play":
            r = names.index(name) - 3
            hands[seat].remove(r)
            played.append(r)
    out = []
    for v in range(n):
        kn = [0] * 21
        seen = hands[v] + discards[v] + played + (shown[1] if shown and shown[0] != v else [])
        for r in seen:
            kn[r] += 1
        out.append(kn)
    return out


def reference_unseen(e: FemkortskilleEngine) -> np.ndarray:
    u = np.zeros((e.num_players, 42), dtype=np.int8)
    for v, kn in enumerate(reference_known(e)):
        for r, k in enumerate(kn):
            u[v, 2 * r] = k < 2  # unseen copies fill the low bit first
            u[v, 2 * r + 1] = k < 1
    return u


def check_cards(e: FemkortskilleEngine) -> None:
    """Every card in exactly one place, consistent with the engine's containers and the phase."""
    n = e.num_players
    every = [c for h in e.hands for c in h] + [c for p in e.played for c in p]
    every += [c for d in e.discards for c in d] + e.stock[e.stock_pos :]
    assert sorted(every) == list(range(42))
    loc = e.locations()
    assert loc.min() >= 0
    counts = np.bincount(loc, minlength=LOC_STOCK + 1)
    for s in range(n):
        assert counts[LOC_HAND + s] == len(e.hands[s])
        assert counts[LOC_PLAYED + s] == len(e.played[s])
        assert counts[LOC_DISCARDED + s] == len(e.discards[s])
    assert counts[LOC_STOCK] == len(e.stock) - e.stock_pos
    if e.phase == Phase.PLAY:  # every player in the tricks has 5 cards minus those played
        for s in e.in_play:
            assert len(e.hands[s]) + len(e.played[s]) == 5


def check_legal(e: FemkortskilleEngine) -> None:
    legal = e.legal_actions()
    assert np.flatnonzero(e.legal_mask()).tolist() == legal
    if e.terminal or e.truncated:
        assert legal == []
        return
    assert legal, "a live state always has a legal action"
    if e.phase == Phase.PLAY:  # överstickstvång, written out here
        ranks = [c >> 1 for c in e.hands[e.current_player]]
        if e.trick_ranks and any(r > e.highest for r in ranks):
            want = {r for r in ranks if r > e.highest}
        else:
            want = set(ranks)
        assert legal == [3 + r for r in sorted(want)]


def check_chips(e: FemkortskilleEngine) -> None:
    assert sum(e.net) + e.pot - e.pot_carried == pytest.approx(0.0)
    assert e.pot >= 0


def random_episode(e, rng, on_step=None) -> None:
    e.new_episode(rng)
    while not (e.terminal or e.truncated):
        if on_step:
            on_step(e)
        legal = e.legal_actions()
        e.step(legal[rng.integers(len(legal))])
    if on_step:
        on_step(e)


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_invariants_over_random_episodes(config):
    e = FemkortskilleEngine(**config)
    rng = np.random.default_rng(sum(map(ord, str(config))))

    def check(e):
        check_cards(e)
        check_legal(e)
        check_chips(e)
        assert np.array_equal(np.stack([e.unseen(s) for s in range(e.num_players)]), reference_unseen(e))

    rewards = 0.0
    for _ in range(250):  # 3000 episodes over all configurations
        random_episode(e, rng, check)
        rewards += sum(e.rewards)
        assert e.rewards == [float(x) for x in e.net]
        assert sum(e.rewards) + e.pot - e.pot_carried == pytest.approx(0.0)
        if not config.get("payments_stay"):
            assert sum(e.rewards) == pytest.approx(0.0) and e.pot == 0


@given(seed=st.integers(0, 2**32 - 1), config=st.sampled_from(CONFIGS), stop=st.integers(0, 60))
@settings(max_examples=150, deadline=None)
def test_resample_keeps_the_seat_view_and_is_consistent(seed, config, stop):
    e = FemkortskilleEngine(**config)
    rng = np.random.default_rng(seed)
    e.new_episode(rng)
    for _ in range(stop):
        if e.terminal or e.truncated:
            break
        legal = e.legal_actions()
        e.step(legal[rng.integers(len(legal))])
    for seat in range(e.num_players):
        r = e.resample(seat, np.random.default_rng(seed + seat))
        assert np.array_equal(r.observe(seat), e.observe(seat))
        assert np.array_equal(r.unseen(seat), e.unseen(seat))
        assert r.hands[seat] == e.hands[seat] and r.played == e.played
        check_cards(r)
        for s in range(e.num_players):
            if s != seat:  # the others' views follow their new cards
                assert np.array_equal(r.unseen(s), r.reference_unseen(s))
                assert all((c >> 1) <= e.cap[s] for c in r.hands[s])  # failed överstick caps hold
        # the original is untouched and the copy plays on by the rules
        assert all(np.array_equal(e.unseen(s), e.reference_unseen(s)) for s in range(e.num_players))
        while not (r.terminal or r.truncated):
            legal = r.legal_actions()
            r.step(legal[rng.integers(len(legal))])
            check_cards(r)
            check_chips(r)
