"""Restoring a record gives back every position of the original run, exactly.

Episodes of random legal play are recorded through ``RecordEpisode(env())`` for every registered
game × its descriptor's ``examples`` (the conformance suite's cases, the toy game included) and for
extra configurations with several deals (matches, Femkortskille's void deals and redeals, its
``payments_stay`` pot carried across unseeded resets). At every move the test notes what an agent
can see: every seat's ``observe`` (observation, action mask, ``unseen``), ``rewards``,
``_cumulative_rewards``, ``terminations``, ``truncations``, ``infos`` and ``agent_selection``.
``restore(record, step=k)`` must give back exactly those at move ``k`` (every ``k`` of a short
episode; for a long one a sample with the first, the last and every deal boundary). Every record
also validates against the schema, survives a JSON round trip unchanged and passes ``verify``; a
restored env plays on like any other (its later deals shuffled from a seed derived from the
record's, new cards, the same on every restore).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jsonschema
import numpy as np
import pytest

from kortmiljo import game_def
from kortmiljo.records import Record, RecordEpisode, dumps, loads, restore, schema, verify
from tests.conformance.games import Case, conformance_cases
from tests.conformance.probes import check_views, random_legal

CASES = conformance_cases()
IDS = [c.id for c in CASES]
ALL_STEPS = 80  # episodes up to this many moves are checked at every move; longer ones at a sample
SAMPLE = 12  # random moves checked in a long episode, besides the first, the last and the deal boundaries


@dataclass(frozen=True)
class Extra:
    """A configuration with several deals per episode (or a carried pot), and what to play of it."""

    id: str
    game: str
    config: dict[str, Any]
    episodes: int = 3  # consecutive episodes of one env: the first seeded, then unseeded resets
    keep_multi_deal: int = 0  # play on (up to ``scan`` episodes) until this many have 2+ deals
    scan: int = 0

    def case(self) -> Case:
        return Case(game_def(self.game), dict(self.config), index=-1)


EXTRAS = [
    Extra("spokelse-match21-3p", "spokelse", {"match_to": 21, "num_players": 3}),
    Extra("spokelse-match40-3p", "spokelse", {"match_to": 40, "num_players": 3}, keep_multi_deal=2, scan=12),
    Extra("sproyte-vanlig-match10", "sproyte", {"match_to": 10}, episodes=2),
    Extra("sproyte-variasjon-match10", "sproyte", {"variant": "variasjon", "match_to": 10}, episodes=2),
    Extra("sproyte-tretten-match10", "sproyte", {"variant": "tretten", "match_to": 10}, episodes=2),
    Extra("femkortskille-payments-stay", "femkortskille", {"payments_stay": True}, episodes=8),
    Extra(
        "femkortskille-payments-stay-3p-redeal",
        "femkortskille",
        {"num_players": 3, "payments_stay": True, "ante_on_redeal": True},
        episodes=6,
        keep_multi_deal=2,
        scan=150,
    ),
    Extra(
        "femkortskille-void-deals",
        "femkortskille",
        {"num_players": 3, "max_deals": 3, "ante_on_redeal": True},
        keep_multi_deal=3,
        scan=200,
    ),
    Extra("femkortskille-void-truncates", "femkortskille", {"num_players": 3, "max_deals": 1}, episodes=30),
]
EXTRA_IDS = [x.id for x in EXTRAS]


@lru_cache(maxsize=1)
def validator() -> jsonschema.Draft202012Validator:
    """The shipped schema's validator, built once (``jsonschema.validate`` re-checks the schema per call)."""
    jsonschema.Draft202012Validator.check_schema(schema())
    return jsonschema.Draft202012Validator(schema())


# ---- recording, with what every agent saw at every move ---------------------------------------------
def view(env) -> dict[str, Any]:
    """What the agents can read now, copied."""
    return {
        "observe": {a: {k: np.array(v, copy=True) for k, v in env.observe(a).items()} for a in env.possible_agents},
        "rewards": dict(env.rewards),
        "_cumulative_rewards": dict(env._cumulative_rewards),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "infos": copy.deepcopy(env.infos),
        "agent_selection": env.agent_selection,
    }


def assert_same_view(got: dict[str, Any], want: dict[str, Any], where: str) -> None:
    assert set(got["observe"]) == set(want["observe"]), where
    for agent, parts in want["observe"].items():
        assert set(got["observe"][agent]) == set(parts), f"{where}: {agent}'s observation keys"
        for key, arr in parts.items():
            g = got["observe"][agent][key]
            assert g.dtype == arr.dtype and g.shape == arr.shape, f"{where}: {agent} {key}: {g.dtype}{g.shape}"
            np.testing.assert_array_equal(g, arr, err_msg=f"{where}: {agent} {key}")
    for key in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos", "agent_selection"):
        assert got[key] == want[key], f"{where}: {key} is {got[key]}, the original run had {want[key]}"


@dataclass
class Played:
    record: Record
    views: list[dict[str, Any]]  # views[k]: before move k; views[len(actions)]: after the last move


def play_recorded(env: RecordEpisode, rng: np.random.Generator, seed: int | None, views: bool = True) -> Played:
    """One episode of random legal play through ``env``; its record and (``views``) what was seen at each move."""
    env.reset(seed=seed)
    engine = env.unwrapped.engine
    seen: list[dict[str, Any]] = []
    for _agent in env.agent_iter():
        if views and len(seen) == len(engine.history):  # the first turn at this move (not a dead step)
            seen.append(view(env))
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else random_legal(rng, obs["action_mask"]))
    rec = env.last_record
    assert rec is not None, "the episode ended but RecordEpisode has no record"
    assert len(rec.actions) == len(engine.history)
    assert not views or len(seen) == len(rec.actions) + 1
    assert rec.seed == seed
    return Played(rec, seen)


def play_session(case: Case, episodes: int, keep_multi_deal: int = 0, scan: int = 0) -> list[Played]:
    """``episodes`` consecutive episodes of one env (the first seeded), then up to ``scan`` more of
    which those with two or more deals are kept, until ``keep_multi_deal`` of them are."""
    env = RecordEpisode(case.env())
    rng = np.random.default_rng(case.seed)
    out = [play_recorded(env, rng, case.seed if k == 0 else None) for k in range(episodes)]
    multi = sum(len(p.record.deals) > 1 for p in out)
    for _ in range(scan):
        if multi >= keep_multi_deal:
            break
        p = play_recorded(env, rng, None)
        if len(p.record.deals) > 1:
            out.append(p)
            multi += 1
    assert multi >= keep_multi_deal, f"only {multi} of the episodes had more than one deal"
    return out


def steps_to_check(rec: Record, rng: np.random.Generator) -> list[int]:
    """Every move of a short episode; else the first, the last, each side of every deal boundary and a sample."""
    n = len(rec.actions)
    if n <= ALL_STEPS:
        return list(range(n + 1))
    ks = {0, 1, n - 1, n}
    for i in range(1, n):
        if rec.actions[i]["deal"] != rec.actions[i - 1]["deal"]:
            ks |= {i - 1, i, i + 1}  # before the move that ends a deal, the new deal's first move, its second
    ks |= set(rng.choice(n + 1, size=SAMPLE, replace=False).tolist())
    return sorted(k for k in ks if 0 <= k <= n)


def check_played(p: Played, rng: np.random.Generator, label: str, restores: bool = True) -> None:
    """The record validates, round-trips and verifies; with ``restores``, restoring it reproduces every
    checked move (``steps_to_check``)."""
    rec = p.record
    doc = rec.to_dict()
    validator().validate(doc)
    assert json.loads(json.dumps(doc)) == doc, "the document is not plain JSON"
    back = loads(dumps(rec), source=label)
    assert back == rec, f"{label}: the JSON round trip changed the record"
    assert loads(dumps(rec, indent=None)) == rec
    verify(rec)
    assert [a["deal"] for a in rec.actions] == sorted(a["deal"] for a in rec.actions)
    assert {a["deal"] for a in rec.actions} <= set(range(len(rec.deals)))
    if not restores:
        return
    for k in steps_to_check(rec, rng):
        env = restore(rec, step=k)
        assert len(env.unwrapped.engine.history) == k
        assert_same_view(view(env), p.views[k], f"{label}, restore(step={k}) of {len(rec.actions)}")
    # a record read back from JSON restores the same
    k = len(rec.actions) // 2
    assert_same_view(view(restore(back, step=k)), p.views[k], f"{label}, restore of the JSON copy at step {k}")


def interesting(rec: Record) -> bool:
    """An episode worth restoring move by move besides a session's first ones: several deals, a
    truncation, a carried-in pot."""
    return len(rec.deals) > 1 or rec.status != "finished" or bool(rec.carry and rec.carry.get("pot"))


def check_session(played: list[Played], label: str, seed: int, first: int = 3, more: int = 4) -> None:
    """Every record is checked; restored move by move: the ``first`` episodes and up to ``more``
    interesting ones after them."""
    rng = np.random.default_rng(seed)
    for i, p in enumerate(played):
        restores = i < first or (more > 0 and interesting(p.record))
        more -= restores and i >= first
        check_played(p, rng, f"{label} episode {i}", restores)


# ---- every game × its examples --------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_restore_reproduces_every_move(case):
    played = play_session(case, episodes=2 if case.long else 3)
    assert all(p.record.seed is None for p in played[1:]), "episodes after the first were reset unseeded"
    check_session(played, case.id, case.seed)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_restore_then_play_on_to_the_end(case):
    (p, *_) = played = play_session(case, episodes=2)
    for q in (p, played[-1]):  # a seeded episode and an unseeded one
        check_play_on(case, q.record, np.random.default_rng(case.seed + 1))


def check_play_on(
    case: Case, rec: Record, rng: np.random.Generator, restarts: int = 1, step: int | None = None, views: bool = True
) -> list[list[tuple]]:
    """Restore at ``step`` (None: a random move), play on with other random legal moves to the end,
    then start a fresh episode. Returns each play-on's ``deal_log`` (dealer, deck)."""
    game = case.game()
    full = sorted(game.deck.cards)
    logs = []
    for _ in range(restarts):
        k = int(rng.integers(len(rec.actions) + 1)) if step is None else step
        env = restore(rec, step=k)
        engine = env.unwrapped.engine
        for _turn in range(200_000):
            if not env.agents:
                break
            if views:
                check_views(env)
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else random_legal(rng, obs["action_mask"]))
        else:
            raise AssertionError("the restored episode did not end")
        assert engine.terminal or engine.truncated
        assert len(engine.history) >= k
        # the recorded deals are the record's decks whatever the moves; later ones are fresh shuffles
        for j, (dealer, deck) in enumerate(engine.deal_log):
            assert sorted(deck) == full, f"deal {j} is not a permutation of the deck"
            if j < len(rec.deals):
                assert [game.deck.code(c) for c in deck] == rec.deals[j]["deck"], f"deal {j} is not the record's"
            if j == 0:
                assert dealer == rec.deals[0]["dealer"]
        logs.append([(d, tuple(deck)) for d, deck in engine.deal_log])
        env.reset()  # the restored env is an ordinary one
        assert env.agents and np.flatnonzero(env.last()[0]["action_mask"]).size > 0
    return logs


# ---- configurations with several deals, and a carried pot ------------------------------------------------
@pytest.mark.parametrize("extra", EXTRAS, ids=EXTRA_IDS)
def test_restore_multi_deal_episodes(extra):
    case = extra.case()
    played = play_session(case, extra.episodes, extra.keep_multi_deal, extra.scan)
    check_session(played, extra.id, case.seed)
    recs = [p.record for p in played]
    if case.config.get("payments_stay"):
        pots = [r.carry["pot"] for r in recs]
        assert pots[0] == 0, "a seeded reset starts a new session with an empty pot"
        assert any(pot > 0 for pot in pots), f"no episode carried a pot in: {pots}"
        # the carried pot is what the observations show: restore with another pot and they differ
        rec = next(r for r in recs if r.carry["pot"] > 0)
        other = copy.copy(rec)
        other.carry = {"pot": rec.carry["pot"] + 1}
        a, b = restore(rec, step=0), restore(other, step=0)
        seat = a.agent_selection
        assert not np.array_equal(a.observe(seat)["observation"], b.observe(seat)["observation"])
    if case.config.get("max_deals") == 1:
        assert any(r.status == "truncated" for r in recs), "no void deal truncated an episode"
    if extra.keep_multi_deal:
        assert sum(len(r.deals) > 1 for r in recs) >= extra.keep_multi_deal


MATCHES = [x for x in EXTRAS if x.id in ("spokelse-match40-3p", "sproyte-vanlig-match10", "sproyte-tretten-match10")]


def play_on_past_the_record(extra: Extra, past: int = 1) -> tuple[Case, Record, int, list[tuple]]:
    """A seeded match record (the shortest of a few) and a play-on from its start, with other random
    moves, that dealt ``past`` deals or more past the recorded ones: ``(case, record, the play-on's
    seed, its deal_log)``."""
    case = extra.case()
    env = RecordEpisode(case.env())
    rng = np.random.default_rng(case.seed)
    played = (play_recorded(env, rng, case.seed + s, views=False) for s in range(8))
    rec = min((p.record for p in played), key=lambda r: len(r.deals))
    assert rec.seed is not None
    rng = np.random.default_rng(7)
    for _ in range(60):  # other random moves until the match runs past its recorded deals
        seed = int(rng.integers(2**31))
        (log,) = check_play_on(case, rec, np.random.default_rng(seed), step=0, views=False)
        if len(log) >= len(rec.deals) + past:
            return case, rec, seed, log
    raise AssertionError(f"no play-on dealt {past} deals past the {len(rec.deals)} recorded ones")


@pytest.mark.parametrize("extra", MATCHES, ids=[x.id for x in MATCHES])
def test_restored_match_plays_on_past_its_deals(extra):
    """A restored match played on with other moves keeps the recorded decks for the recorded deals
    (checked in ``check_play_on``) and shuffles the deals past them from a seed derived from the
    record's: the same for every restore of a seeded record given the same moves."""
    case, rec, seed, log = play_on_past_the_record(extra)
    again = check_play_on(case, rec, np.random.default_rng(seed), step=0, views=False)
    assert again == [log], "two restores played on with the same moves dealt different cards past the record"


SPROYTE_MATCHES = [x for x in MATCHES if x.game == "sproyte"]  # long matches: room for two more deals


@pytest.mark.parametrize("extra", SPROYTE_MATCHES, ids=[x.id for x in SPROYTE_MATCHES])
def test_deals_past_the_record_are_not_recorded_decks(extra):
    """The deals past the record are new cards, not the recorded decks over again (the play-on seed
    is derived from the record's; reusing it would deal the original run's later decks anew)."""
    case, rec, _, log = play_on_past_the_record(extra, past=3)
    codes = case.game().deck.code
    recorded = [d["deck"] for d in rec.deals]
    repeats = [
        (j, recorded.index(deck))
        for j, deck in ((j, [codes(c) for c in cards]) for j, (_, cards) in enumerate(log))
        if j >= len(rec.deals) and deck in recorded
    ]
    assert not repeats, f"play-on deals repeating recorded ones (play-on deal, recorded deal): {repeats}"
