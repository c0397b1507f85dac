"""Every size a user gives has a declared maximum, refused before anything is built from it (#49).

Before, ``femkortskille_v0.env(auktion=True, max_bet=10**9)`` built one ``bet:k`` action name per bet
until memory ran out, ``ante``/``knock_stake``/``max_deals`` of 10**309 overflowed in a 500, an error
printed a huge int in full, ``--config`` read Arabic-Indic digits as a number, the batched engines
took any lane count and ``reset(options=...)`` ignored a misspelt key silently.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kortmiljo import load_game
from kortmiljo.core.errors import ConfigError
from kortmiljo.core.options import Option, parse_options, parse_scalar, validate_options
from kortmiljo.core.registry import games
from kortmiljo.env.aec import CardGameEnv

GAMES = sorted(games())
ROOT = Path(__file__).resolve().parents[2]
HUGE = 10**400  # 401 digits: str() still works, but nothing may be built from it
HUGER = 10**5000  # past Python's 4,300-digit limit of str(int)
SCALAR_PROBES = [*range(0, 30), 0.5, 1.5, 11, 52, 100, 1000]


def number_shape(opt: Option) -> int | None:
    """How an option takes a number: 0 alone, n in a list of n, None if it takes no number."""
    probes = SCALAR_PROBES + ([opt.default] if isinstance(opt.default, (int, float)) else [])
    if any(opt.check(x) for x in probes if not isinstance(x, bool)):
        return 0
    for n in range(1, 9):
        if any(opt.check([x] * n) or opt.check(tuple([x] * n)) for x in range(4)):
            return n
    return None


def shaped(value, shape: int):
    return value if shape == 0 else [value] * shape


def numeric_options() -> list[tuple[str, str]]:
    return [
        (game, name) for game in GAMES for name, opt in games()[game].options.items() if number_shape(opt) is not None
    ]


def names_max(message: str, maximum) -> bool:
    return f"{maximum:,}" in message or str(maximum) in message


def test_the_reported_options_have_small_maxima():
    # the options of the report (#49): a bet range, chips and caps that took any int
    found = set(numeric_options())
    maxima = {
        ("femkortskille", "max_bet"): 100,
        ("femkortskille", "ante"): 100,
        ("femkortskille", "knock_stake"): 100,
        ("femkortskille", "max_deals"): 1000,
        ("sproyte", "match_to"): 1000,
        ("sproyte", "max_deals"): 50_050,
        ("sproyte", "exchange_quota"): 52,
        ("spokelse", "match_to"): 1000,
        ("spokelse", "max_steps"): 100_000,
        ("spokelse", "max_turns"): 50_000,
    }
    for (game, name), maximum in maxima.items():
        assert (game, name) in found
        assert games()[game].options[name].maximum == maximum, (game, name)


@pytest.mark.parametrize("game, name", numeric_options())
def test_every_numeric_option_declares_its_maximum(game, name):
    opt = games()[game].options[name]
    shape = number_shape(opt)
    maximum = opt.maximum
    assert maximum is not None, f"{game}.{name} takes numbers but declares no maximum"
    assert opt.check(shaped(maximum, shape)), f"{game}.{name}: its own maximum {maximum} is refused"
    assert not opt.check(shaped(maximum + 1, shape))
    assert not opt.check(shaped(HUGE, shape))
    assert names_max(opt.allowed, maximum), f"{game}.{name}: the words {opt.allowed!r} do not say {maximum}"


@pytest.mark.parametrize("game, name", numeric_options())
def test_one_past_the_maximum_is_refused_naming_the_maximum(game, name):
    opt = games()[game].options[name]
    shape = number_shape(opt)
    # the maximum itself is taken (an option that only works with another gets that one too)
    with pytest.raises(ConfigError, match=rf"{name}=.* is not allowed; {name} must be") as err:
        load_game(game, **{name: shaped(opt.maximum + 1, shape)})
    assert names_max(str(err.value), opt.maximum), str(err.value)


@pytest.mark.parametrize("game, name", numeric_options())
@pytest.mark.parametrize("value", [HUGE, -HUGE, HUGER], ids=["1e400", "-1e400", "1e5000"])
def test_a_huge_int_is_refused_at_once_in_a_short_message(game, name, value):
    opt = games()[game].options[name]
    t0 = time.perf_counter()
    with pytest.raises(ConfigError) as err:
        load_game(game, **{name: shaped(value, number_shape(opt))})
    assert time.perf_counter() - t0 < 1.0
    message = str(err.value)
    assert len(message) < 400 and "digits" in message, message
    assert names_max(message, opt.maximum), message


def test_the_femkortskille_env_refuses_a_large_max_bet_before_building_the_bets():
    from kortmiljo import femkortskille_v0

    with pytest.raises(ConfigError, match=r"max_bet=101 is not allowed; max_bet must be a positive int of at most 100"):
        femkortskille_v0.env(auktion=True, max_bet=101)
    assert len(load_game("femkortskille", auktion=True, max_bet=100).action_names) == 24 + 100


ENV_SCRIPT = """
import time
from kortmiljo import femkortskille_v0
from kortmiljo.core.errors import ConfigError
t0 = time.perf_counter()
try:
    femkortskille_v0.env(auktion=True, max_bet={value})
except ConfigError as err:
    print(f"{{time.perf_counter() - t0:.3f}} {{err}}")
    raise SystemExit(3) from None
"""


@pytest.mark.parametrize("value", ["10**9", "10**400"])
def test_the_femkortskille_env_refuses_a_huge_max_bet_at_once(value):
    # before, max_bet=10**9 built a billion action names until memory ran out (and 10**400 never
    # finished): run apart, with its memory capped, so that the old code fails instead of hanging
    out = run_limited(["-c", ENV_SCRIPT.format(value=value)])
    assert out.returncode == 3, (out.stdout[-500:], out.stderr[-2000:])
    seconds, message = out.stdout.strip().split(" ", 1)
    assert float(seconds) < 1.0
    assert "max_bet must be a positive int of at most 100" in message and len(message) < 200, message


@pytest.mark.parametrize(
    "options", [{"ante": 10**309}, {"knock_stake": 10**309}, {"max_deals": 10**309}, {"ante": 101}]
)
def test_femkortskille_chip_options_past_their_maxima_are_refused(options):
    # before, 10**309 overflowed when the observation was filled (a 500 from the web app)
    with pytest.raises(ConfigError, match=r"is not allowed; .* must be .*at most [\d,]+"):
        load_game("femkortskille", **options)


def test_the_match_and_step_caps_have_maxima():
    for game, options, words in [
        ("sproyte", {"match_to": 1001}, "at most 1,000"),
        ("sproyte", {"match_to": 10, "max_deals": 50_051}, "at most 50,050"),
        ("sproyte", {"exchange_quota": (53, 0, 0)}, "at most 52"),
        ("spokelse", {"match_to": 1001}, "from 1 to 1,000"),
        ("spokelse", {"max_steps": 100_001}, "from 1 to 100,000"),
        ("spokelse", {"max_turns": 50_001}, "from 1 to 50,000"),
    ]:
        with pytest.raises(ConfigError, match=words):
            load_game(game, **options)
    assert load_game("sproyte", match_to=1000).max_deals == 50_050  # "auto" at the largest target
    assert load_game("sproyte", match_to=1000, max_deals=50_050).max_deals == 50_050


def test_a_list_option_is_bounded_in_length():
    with pytest.raises(ConfigError, match="ranks=.*at most 21"):
        load_game("femkortskille", ranks=["1"] * 22)
    with pytest.raises(ConfigError, match="cards=.*at most 52"):
        load_game("spokelse", cards=["AS"] * 10_000)


def test_int_in_requires_an_upper_bound():
    from kortmiljo.core.options import int_in

    with pytest.raises(TypeError):
        int_in(1)
    with pytest.raises(ValueError):
        int_in(5, 1)
    assert int_in(1, 3).maximum == 3


def test_errors_show_a_huge_value_in_a_few_words():
    options = {"n": Option(1, lambda v: v == 1, "1")}
    for value, words in [(HUGE, "401 digits"), (HUGER, "5,001 digits"), ("x" * 100_000, "..."), ([0] * 10**5, "...")]:
        with pytest.raises(ConfigError, match="n=.* is not allowed") as err:
            validate_options("g", options, {"n": value})
        assert len(str(err.value)) < 200 and words in str(err.value), str(err.value)
    with pytest.raises(ConfigError, match="unknown option") as err:
        validate_options("g", options, {"x" * 100_000: 1, HUGE: 2})
    assert len(str(err.value)) < 300


# ---- --config ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["١٢", "１２", "٣.٥", "1_٢", "-٧"])
def test_parse_scalar_reads_ascii_digits_only(text):
    # before, int("١٢") == 12: a number written in other scripts' digits passed as an int
    assert parse_scalar(text) == text


def test_parse_scalar_refuses_more_than_40_digits_and_out_of_range_floats():
    assert parse_scalar("9" * 40) == int("9" * 40)
    assert parse_scalar("-12") == -12 and parse_scalar("1_000") == 1000 and parse_scalar("2.5e3") == 2500.0
    for text in ["9" * 41, "9" * 5000, "1e999", "-1e400"]:
        with pytest.raises(ValueError) as err:
            parse_scalar(text)
        assert len(str(err.value)) < 120, str(err.value)
    with pytest.raises(ValueError, match=r"^--config max_bet: an int of 400 digits") as err:
        parse_options(["auktion=true,max_bet=" + "9" * 400])
    assert "\n" not in str(err.value)


def run_limited(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
    """A command line of this checkout, with its address space capped at 4 GiB (the old code ran
    out of memory building the bets), killed after ``timeout`` seconds."""

    def limit():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    try:
        return subprocess.run(
            [sys.executable, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env,
            preexec_fn=limit if sys.platform.startswith("linux") else None,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(a[:40] for a in args)} ran past {timeout} s")


@pytest.mark.parametrize("config", ["max_bet=" + "9" * 400, "max_bet=1000000000", "ante=10" + "0" * 310])
def test_the_command_line_refuses_a_huge_option_in_one_line_with_exit_2(config):
    agents = ["random"] * 4
    t0 = time.perf_counter()
    out = run_limited(
        ["-m", "kortmiljo", "eval", "femkortskille", "--agents", *agents, "--games", "2", "--config", "auktion=true",
         config, "--no-progress"]
    )  # fmt: skip
    assert time.perf_counter() - t0 < 30
    assert out.returncode == 2, out.stderr[-2000:]
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) < 300, out.stderr[-2000:]
    assert "max_bet" in lines[0] or "ante" in lines[0]


# ---- the web app -----------------------------------------------------------------------------------------


def test_the_web_app_answers_4xx_to_an_option_past_its_maximum():
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from tests.server import client, make_app

    c = client(make_app())
    for config in [{"auktion": True, "max_bet": 101}, {"ante": 10**30}, {"max_deals": 1001}]:
        r = c.post("/api/games", json={"game": "femkortskille", "config": config, "seat": 0})
        assert 400 <= r.status_code < 500, (config, r.status_code, r.text[:300])
        assert len(r.text) < 1000 and next(iter(config.keys() - {"auktion"})) in r.text


# ---- lanes -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [g for g in GAMES if games()[g].batched_class is not None])
def test_a_batch_past_its_lane_bound_is_refused_before_any_array(game):
    from kortmiljo.core.batched import MAX_NUM_ENVS

    g = load_game(game)
    for lanes in [MAX_NUM_ENVS + 1, 10**12, HUGE]:
        t0 = time.perf_counter()
        with pytest.raises(ValueError, match=rf"num_envs must be an int from 1 to {MAX_NUM_ENVS:,}") as err:
            g.new_batched(lanes, seed=0)
        assert time.perf_counter() - t0 < 1.0 and len(str(err.value)) < 200
    assert g.new_batched(2, seed=0).num_envs == 2


def test_the_native_vector_env_refuses_too_many_lanes_and_unknown_reset_options():
    pytest.importorskip("stable_baselines3")
    from kortmiljo.core.batched import MAX_NUM_ENVS
    from kortmiljo.env.vector import BatchedSingleSeatVecEnv

    for lanes in [MAX_NUM_ENVS + 1, 10**12]:
        with pytest.raises(ValueError, match="num_envs must be an int from 1 to"):
            BatchedSingleSeatVecEnv("spokelse", num_envs=lanes)
    vec = BatchedSingleSeatVecEnv("spokelse", num_envs=2, seed=0)
    vec.set_options([{"seat": 0}, {"sead": 1}])
    with pytest.raises(ValueError, match=r"lane 1: unknown reset option.*sead.*'deck', 'dealer', 'seat'"):
        vec.reset()


# ---- reset options -----------------------------------------------------------------------------------------


def view(env: CardGameEnv) -> tuple:
    return (
        env.agent_selection,
        tuple(env.observe(a)["observation"].tobytes() for a in env.possible_agents),
        env.state().tobytes(),
        env.engine.deal_log[0][1][:],
    )


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(
    "options, near", [({"dealr": 0}, "dealer"), ({"Dealer": 1}, "dealer"), ({"decks": []}, "deck"),
                      ({"deck": None, "later_deck": []}, "later_decks")],
)  # fmt: skip
def test_reset_refuses_a_misspelt_option_naming_the_allowed_ones(game, options, near):
    # before, {"dealr": 0} was ignored silently: the episode was dealt as if no dealer were given
    env = CardGameEnv(load_game(game))
    env.reset(seed=1)
    before = view(env)
    with pytest.raises(ValueError, match=r"unknown reset option.*'deck', 'dealer', 'later_decks', 'carry'") as err:
        env.reset(seed=2, options=options)
    assert f"did you mean {near!r}" in str(err.value) and len(str(err.value)) < 300
    assert view(env) == before  # nothing changed, the random stream included
    env.reset(options={"dealer": 0})
    assert env.engine.dealer == 0


@pytest.mark.parametrize("game", GAMES)
def test_reset_warns_of_any_other_unknown_option(game):
    # PettingZoo's api_test passes options={"options": 1} and needs it to work: warned, then ignored
    env = CardGameEnv(load_game(game))
    with pytest.warns(UserWarning, match=r"unknown reset option.*'x{27}\.\.\..*the allowed keys are 'deck'") as rec:
        env.reset(seed=1, options={"x" * 10_000: 1, "dealer": 0})
    assert len(str(rec[0].message)) < 300 and env.engine.dealer == 0
    with pytest.warns(UserWarning, match="options"):
        env.reset(seed=1, options={"options": 1})


def test_the_training_views_refuse_an_unknown_reset_option():
    from kortmiljo.env.training import SingleSeatEnv

    env = SingleSeatEnv("spokelse")
    env.reset(seed=0, options={"seat": 1})
    with pytest.raises(ValueError, match=r"unknown reset option.*sead.*'deck', 'dealer', 'seat'"):
        env.reset(seed=0, options={"sead": 1})


def test_reset_bounds_the_stacked_later_decks():
    from kortmiljo.core.engine import MAX_EPISODE_DEALS

    env = CardGameEnv(load_game("sproyte", match_to=10))
    env.reset(seed=0)
    deck = [env.engine.deck.code(c) for c in env.engine.deal_log[0][1]]
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=f"at most {MAX_EPISODE_DEALS:,} deals"):
        env.reset(options={"deck": deck, "later_decks": [deck] * MAX_EPISODE_DEALS})
    assert time.perf_counter() - t0 < 1.0
    with pytest.raises(ValueError, match="dealer must be a seat 0..2, got <an int of 401 digits>"):
        env.reset(options={"dealer": HUGE})
