"""The options' forms of ``GET /api/catalog`` (``kortmiljo.server.views.option_form``): derived from
each option's declared check, so that the page asks for typed, bounded values; every choice it
offers and every bound it sets agrees with the check the server applies."""

from __future__ import annotations

import json

import pytest

from kortmiljo.core.options import Option, any_of, int_in, is_bool, one_of, optional, seq_of, str_list
from kortmiljo.core.registry import games
from kortmiljo.games.sproyte.game import MAX_DEALS, VARIANTS
from kortmiljo.server.views import MAX_CHOICES, catalog, option_form

from . import client, make_app


@pytest.fixture(scope="module")
def served() -> dict:
    """The catalog as the server sends it: game name → {option name → option}."""
    data = client(make_app()).get("/api/catalog").json()
    return {g["name"]: g for g in data["games"]}


def _cases():
    return [(name, k) for name, d in games().items() for k in d.options]


@pytest.mark.parametrize(("game", "option"), _cases())
def test_every_choice_and_bound_of_a_form_is_what_the_check_accepts(served, game, option):
    d = games()[game]
    opt = d.options[option]
    form = served[game]["options"][option]["form"]
    assert set(form) >= {"input", "choices"}
    assert len(form["choices"]) <= MAX_CHOICES
    for v in form["choices"]:  # as the page sends it back: JSON
        assert opt.check(json.loads(json.dumps(v))), (v, opt.allowed)
    kind = form["input"]
    assert kind in (None, "int", "ints", "names", "json")
    if kind in ("int", "ints"):
        lo, hi = form["min"], form["max"]
        assert isinstance(lo, int) and isinstance(hi, int) and lo <= hi
        one = (lambda x: x) if kind == "int" else (lambda x: [x] * form["length"])
        assert opt.check(one(lo)) and opt.check(one(hi))
        if option != "num_players":  # the bounds are the check's own (num_players: the game's player range)
            assert not opt.check(one(lo - 1)) and not opt.check(one(hi + 1))
        else:
            assert [lo, hi] == list(d.players)
    if kind == "names":
        assert opt.check(["x" * form["longest"]] * form["most"])
        assert not opt.check(["x"] * (form["most"] + 1))
    if kind is None:  # choices only: the default is one of them
        assert any(json.dumps(v) == json.dumps(opt.default) for v in form["choices"]), (opt.default, form)


def test_a_fixed_player_count_is_one_choice_and_a_range_bounds_the_input(served):
    for name, d in games().items():
        form = served[name]["options"].get("num_players", {}).get("form")
        if form is None:
            continue
        lo, hi = d.players
        if lo == hi:
            assert form == {"input": None, "choices": [lo]}
        else:
            assert form["input"] == "int" and (form["min"], form["max"]) == (lo, hi) and form["choices"] == []
    assert served["sproyte"]["options"]["num_players"]["form"] == {"input": None, "choices": [3]}


def test_sproyte_options_are_a_select_of_its_variants_suits_and_a_bounded_deal_cap(served):
    forms = {k: o["form"] for k, o in served["sproyte"]["options"].items()}
    assert forms["variant"] == {"input": None, "choices": list(VARIANTS)}
    assert forms["reward"] == {"input": None, "choices": ["relative", "raw"]}
    # trump's check is a plain function: its choices are the words of `allowed` that it accepts
    assert forms["trump"] == {"input": None, "choices": [None, "S", "H", "D", "C"]}
    assert forms["max_deals"] == {"input": "int", "choices": [None, "auto"], "min": 1, "max": MAX_DEALS}
    assert forms["match_to"]["choices"] == [None] and forms["match_to"]["input"] == "int"
    assert forms["exchange_quota"] == {"input": "ints", "choices": [None], "length": 3, "min": 0, "max": 52}


def _plain(v) -> bool:  # a check that declares nothing
    return v is None or v in ("a", "b")


@pytest.mark.parametrize(
    ("opt", "expected"),
    [
        (Option(2, int_in(1, 9), ""), {"input": "int", "choices": [], "min": 1, "max": 9}),
        (Option(None, optional(int_in(0, 5)), ""), {"input": "int", "choices": [None], "min": 0, "max": 5}),
        (Option(False, is_bool, "True or False"), {"input": None, "choices": [True, False]}),
        (Option("x", one_of("x", "y", 3), ""), {"input": None, "choices": ["x", "y", 3]}),
        (Option(True, one_of(True, 1), ""), {"input": None, "choices": [True, 1]}),  # True and 1 stay two
        (Option(0.5, one_of(0.5, 11), ""), {"input": None, "choices": [0.5, 11]}),
        (
            Option(None, optional(seq_of(int_in(0, 4), 2)), ""),
            {"input": "ints", "choices": [None], "length": 2, "min": 0, "max": 4},
        ),
        (Option(None, optional(str_list(5, 3)), ""), {"input": "names", "choices": [None], "most": 5, "longest": 3}),
        (
            Option("auto", any_of(one_of("auto"), int_in(1, 7)), ""),
            {"input": "int", "choices": ["auto"], "min": 1, "max": 7},
        ),
        (Option(None, _plain, 'None, "a", "b" or "c"'), {"input": None, "choices": [None, "a", "b"]}),
        (
            Option(None, lambda v: v is None or isinstance(v, dict), "None or a mapping"),
            {"input": "json", "choices": [None]},
        ),
        # two free inputs, or more values than a select should hold: typed as JSON
        (Option(1, any_of(int_in(0, 3), int_in(10, 13)), ""), {"input": "json", "choices": []}),
        (Option(0, one_of(*range(MAX_CHOICES + 1)), ""), {"input": "json", "choices": []}),
    ],
)
def test_the_form_of_each_kind_of_check(opt, expected):
    assert option_form(opt) == expected


def test_num_players_is_fixed_or_bounded_by_the_games_range():
    assert option_form(Option(3, one_of(3), ""), (3, 3)) == {"input": None, "choices": [3]}
    assert option_form(Option(4, int_in(1, 99), ""), (3, 8)) == {"input": "int", "choices": [], "min": 3, "max": 8}


def test_the_catalog_is_small_whatever_the_options():
    """Each form is bounded (a long list of values is typed, not listed), so the catalog stays small."""
    data = catalog(games().values(), ["random"])
    assert len(json.dumps(data)) < 32 * 1024
    for g in data["games"]:
        for o in g["options"].values():
            assert len(json.dumps(o["form"])) < 2048
