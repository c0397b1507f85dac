"""``Engine.table(viewer)``, the JSON the web app draws the table from, shows each seat exactly the
cards it can locate, and the open view (``viewer=None``) every card.

For random states of every game and example configuration (several episodes, a few hundred states
each, the end of every episode included) and every viewer:

* the table is JSON (``json.dumps``, no NaN) and has the contract's keys (``Engine.table``);
* the card codes it places (``seats[].cards``, ``piles[].cards``, ``trick[].card``) are, as a
  multiset, exactly the cards the viewer can locate (``known_cards``): nothing hidden leaks, and
  nothing the viewer knows is left out; every other place is ``None``, and any other string in the
  table that is a card code of the deck (``facts``: the trump card, the last trick, …) names a card
  the viewer can locate;
* every view has the open view's shape (the same seats with as many cards each, the same piles with
  as many cards, the same trick), each seat holds as many entries as it holds cards, and a card a
  viewer sees in a seat or pile is there in the open view;
* the open view places every card of the deck exactly once, as a code;
* reading the table changes nothing in the engine.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import numpy as np
import pytest

from kortmiljo.core.cards import FRENCH_CODES, KILLE_RANKS

from .games import conformance_cases
from .probes import engine_state, random_legal

CASES = conformance_cases()
IDS = [c.id for c in CASES]

TOP_KEYS = {"phase", "dealer", "to_move", "seats", "piles", "trick", "facts"}
SEAT_KEYS = {"seat", "role", "cards", "labels", "stats", "status"}
PILE_KEYS = {"name", "cards", "count"}
TRICK_KEYS = {"seat", "card"}
STATES = 300  # states checked per configuration (every viewer at each)


def _held(e, s: int) -> int | None:
    """How many cards seat ``s`` holds, for the games this suite knows (None: checked only
    against the open view)."""
    name = e.game.name
    if name == "spokelse":
        return 1 + e.num_slots + (1 if e.hand >= 0 and s == e.current_player else 0)
    if name in ("sproyte", "femkortskille"):
        return len(e.hands[s])
    if name == "toy":
        return 1
    return None


def _places(t: dict) -> dict[tuple, list]:
    """Every place the table puts cards, by a key that is the same in every view."""
    out: dict[tuple, list] = {}
    for seat in t["seats"]:
        out[("seat", seat["seat"])] = list(seat["cards"])
    for i, pile in enumerate(t["piles"]):
        out[("pile", i, pile["name"], pile.get("seat"))] = list(pile["cards"])
    out[("trick",)] = [(p["seat"], p["card"]) for p in t["trick"]]
    return out


def _placed_codes(t: dict) -> list:
    codes = [c for seat in t["seats"] for c in seat["cards"]]
    codes += [c for pile in t["piles"] for c in pile["cards"]]
    codes += [p["card"] for p in t["trick"]]
    return codes


def _other_strings(value: Any, out: list[str]) -> list[str]:
    """Every string in ``value`` (nested), keys included."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _other_strings(k, out)
            _other_strings(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _other_strings(v, out)
    return out


def _strings_outside_places(t: dict) -> list[str]:
    """Every string of the table but the card entries of the places."""
    out: list[str] = []
    for k, v in t.items():
        out.append(k)
        if k == "seats":
            for seat in v:
                _other_strings({a: b for a, b in seat.items() if a != "cards"}, out)
        elif k == "piles":
            for pile in v:
                _other_strings({a: b for a, b in pile.items() if a != "cards"}, out)
        elif k == "trick":
            for p in v:
                _other_strings({a: b for a, b in p.items() if a != "card"}, out)
        else:
            _other_strings(v, out)
    return out


def check_shape(e, t: dict, where: str) -> None:
    json.dumps(t, allow_nan=False)
    assert TOP_KEYS <= set(t), f"{where}: table lacks {sorted(TOP_KEYS - set(t))}"
    over = e.terminal or e.truncated
    assert t["to_move"] == (None if over else f"player_{e.current_player}"), f"{where}: to_move"
    assert t["dealer"] is None or isinstance(t["dealer"], str), f"{where}: dealer"
    assert isinstance(t["facts"], dict), f"{where}: facts is not a dict"
    assert [s["seat"] for s in t["seats"]] == [f"player_{s}" for s in range(e.num_players)], f"{where}: seats"
    for seat in t["seats"]:
        assert SEAT_KEYS <= set(seat), f"{where}: {seat['seat']} lacks {sorted(SEAT_KEYS - set(seat))}"
        assert isinstance(seat["cards"], list) and isinstance(seat["stats"], dict), f"{where}: {seat['seat']}"
        labels = seat["labels"]
        assert labels is None or (isinstance(labels, list) and len(labels) == len(seat["cards"])), (
            f"{where}: {seat['seat']} has {len(seat['cards'])} cards but labels {labels}"
        )
    for pile in t["piles"]:
        assert PILE_KEYS <= set(pile), f"{where}: pile {pile} lacks {sorted(PILE_KEYS - set(pile))}"
        assert pile["count"] == len(pile["cards"]), f"{where}: pile {pile['name']} count {pile['count']}"
    for p in t["trick"]:
        assert TRICK_KEYS <= set(p), f"{where}: trick entry {p}"


def check_view(e, viewer: int | None, t: dict, open_t: dict, codes: frozenset[str], where: str) -> None:
    check_shape(e, t, where)
    placed = _placed_codes(t)
    bad = [c for c in placed if c is not None and c not in codes]
    assert not bad, f"{where}: places hold {bad}, which are not card codes of this deck"
    shown = Counter(c for c in placed if c is not None)
    if viewer is None:
        want = Counter(e.deck.code(c) for c in e.deck.cards)
        assert shown == want and None not in placed, (
            f"{where}: the open view places {dict(shown - want)} too many and {dict(want - shown)} too few, "
            f"{placed.count(None)} as None; it must place every card of the deck once"
        )
    else:
        known = Counter(e.deck.code(c) for c in e.known_cards(viewer))
        assert not shown - known, f"{where}: the table shows {dict(shown - known)}, which the viewer cannot locate"
        assert not known - shown, f"{where}: the table hides {dict(known - shown)}, which the viewer can locate"
        others = [s for s in _strings_outside_places(t) if s in codes and s not in known]
        assert not others, f"{where}: the table names {others} outside its places, which the viewer cannot locate"
        mine, whole = _places(t), _places(open_t)
        assert mine.keys() == whole.keys(), f"{where}: places {sorted(mine)} differ from the open view's"
        for key, cards in mine.items():
            assert len(cards) == len(whole[key]), f"{where}: {key} holds {len(cards)}, the open view {len(whole[key])}"
            if key == ("trick",):
                assert cards == whole[key], f"{where}: the trick {cards} differs from the open view's {whole[key]}"
                continue
            extra = Counter(c for c in cards if c is not None) - Counter(whole[key])
            assert not extra, f"{where}: {key} shows {dict(extra)}, which the open view has elsewhere"
    for s, seat in enumerate(t["seats"]):
        held = _held(e, s)
        if held is not None:
            assert len(seat["cards"]) == held, (
                f"{where}: player_{s} holds {held} cards, the table shows {len(seat['cards'])}"
            )


def _views(e) -> list:
    return [e.observation(s) for s in range(e.num_players)]


def _same_views(a: list, b: list) -> bool:
    return all(all(np.array_equal(x[k], y[k]) for k in x) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_table_shows_each_viewer_what_it_can_locate(case):
    game = case.game()
    d = game.deck
    codes = frozenset(KILLE_RANKS if d.kille else FRENCH_CODES)
    rng = np.random.default_rng(case.seed)
    stride = 4 if case.long else 1  # long episodes: every fourth state, so that several episodes fit
    checked = ends = ep = 0
    while ep < 3 or (checked < STATES and ep < 200):
        e = game.new_state()
        e.new_episode(rng)
        step = 0
        while True:
            over = e.terminal or e.truncated
            if over or (step % stride == 0 and checked < STATES):
                where = f"{case.id} episode {ep} step {step} ({e.moment()[0]})"
                deep = checked % 10 == 0 or over
                if deep:
                    before, views = engine_state(e), _views(e)
                open_t = e.table(None)
                check_view(e, None, open_t, open_t, codes, f"{where}, open view")
                for v in range(e.num_players):
                    check_view(e, v, e.table(v), open_t, codes, f"{where}, player_{v}")
                if deep:
                    assert engine_state(e) == before and _same_views(views, _views(e)), (
                        f"{where}: table() changed the engine"
                    )
                checked += 1
            if over:
                ends += 1
                break
            e.step(random_legal(rng, e.legal_mask()))
            step += 1
        ep += 1
    assert checked >= STATES and ends == ep, f"{case.id}: only {checked} states, {ends} ends checked"


@pytest.mark.parametrize("case", [c for c in CASES if c.index == 0], ids=[c.id for c in CASES if c.index == 0])
def test_the_checks_catch_a_leak_and_a_hidden_card(case):
    """A table that shows one hidden card, or hides one the viewer knows, fails ``check_view``."""
    game = case.game()
    codes = frozenset(KILLE_RANKS if game.deck.kille else FRENCH_CODES)
    rng = np.random.default_rng(case.seed)
    e = game.new_state()
    e.new_episode(rng)
    e.step(random_legal(rng, e.legal_mask()))
    open_t, t = e.table(None), e.table(0)
    check_view(e, 0, t, open_t, codes, "as dealt")
    hidden = [(i, j) for i, s in enumerate(t["seats"]) for j, c in enumerate(s["cards"]) if c is None]
    shown = [(i, j) for i, s in enumerate(t["seats"]) for j, c in enumerate(s["cards"]) if c is not None]
    assert hidden and shown
    i, j = hidden[0]
    leak = json.loads(json.dumps(t))
    leak["seats"][i]["cards"][j] = open_t["seats"][i]["cards"][j]
    with pytest.raises(AssertionError, match="cannot locate"):
        check_view(e, 0, leak, open_t, codes, "leak")
    i, j = shown[0]
    hide = json.loads(json.dumps(t))
    hide["seats"][i]["cards"][j] = None
    with pytest.raises(AssertionError, match="hides"):
        check_view(e, 0, hide, open_t, codes, "hidden")
    named = json.loads(json.dumps(t))
    named["facts"]["oops"] = open_t["seats"][hidden[0][0]]["cards"][hidden[0][1]]
    if Counter(_placed_codes(t))[named["facts"]["oops"]] == 0:  # a kille copy the viewer knows is no leak
        with pytest.raises(AssertionError, match="outside its places"):
            check_view(e, 0, named, open_t, codes, "named")
