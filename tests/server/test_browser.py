"""The web page in a real browser (headless Chromium through Playwright) against a real server.

* a whole game of every game, played by clicking the legal-move buttons (and cards, and keys)
  until the end summary shows every deal's hands;
* every response the browser received during a game holds no card the human seat could not
  locate at that point (checked against the full record, fetched only after the end, replayed
  through the engine);
* a disabled move cannot be played: clicking it sends nothing and changes nothing;
* a replay: step forward and back, jump with the slider, play to the end, switch the seat view,
  the annotations of a move; an uploaded record plays too;
* the options form: built from the descriptors' options (selects of exactly their choices, bounded
  number inputs, a fixed player count shown, not asked), sending typed values the game starts with;
* the end banner (won, lost, a tie, by how much); the facts never over the hand's cards, however
  far the page is scrolled; on Watch the replay's board in view below a long list of records.

Screenshots go to ``tests/server/artifacts/`` (git-ignored). Fixtures: ``conftest.py``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest

MOVE = '[data-testid="move"][data-legal="1"]:not([disabled])'
ANY_MOVE = '[data-testid="move"]'
SUMMARY = '[data-testid="summary"]:not([hidden])'
MAX_HUMAN_MOVES = 400


# ---------------------------------------------------------------- helpers


def open_app(page, hash_: str = "") -> None:
    page.goto(f"/?pace=0{hash_}")
    page.wait_for_selector("body[data-ready='1']")


def start_game(page, game: str, seed: int, opponents: str = "heuristic", seat: str | None = None) -> None:
    page.select_option('[data-testid="game-select"]', game)
    if seat is not None:
        page.select_option('[data-testid="seat-select"]', seat)
    for box in page.locator('[data-testid="opponents"] input').all():
        box.fill(opponents)
    page.fill('[data-testid="seed"]', str(seed))
    page.click('[data-testid="start"]')
    page.wait_for_selector('[data-testid="game"]:not([hidden])')


def log_count(page) -> int:
    return page.locator('[data-testid="move-log"] [data-testid="log-entry"]').count()


def wait_turn(page) -> bool:
    """Wait until the human may move (True) or the game has ended (False)."""
    page.wait_for_selector(f"{MOVE}, {SUMMARY}")
    return page.locator(SUMMARY).count() == 0


def play_one(page, rng: np.random.Generator, how: str = "button") -> None:
    """Play a legal move: a button, a playable card of the hand, or by the keys."""
    before = log_count(page)
    moves = page.locator(MOVE)
    n = moves.count()
    assert n > 0
    k = int(rng.integers(n))
    if how == "keys" and k < 9:
        page.keyboard.press(str(k + 1))
        focused = page.evaluate("document.activeElement.dataset.action")
        assert focused == moves.nth(k).get_attribute("data-action")
        if n > 1:  # the arrows move the focus over the legal moves, and back
            page.keyboard.press("ArrowRight")
            assert page.evaluate("document.activeElement.dataset.action") == moves.nth((k + 1) % n).get_attribute(
                "data-action"
            )
            page.keyboard.press("ArrowLeft")
            assert page.evaluate("document.activeElement.dataset.action") == focused
        page.keyboard.press("Enter")
    elif how == "card" and page.locator("button.card.playable").count():
        page.locator("button.card.playable").first.click()
    else:
        moves.nth(k).click()
    # the move is in the log once the server has answered (the human's own move at least)
    page.locator('[data-testid="move-log"] [data-testid="log-entry"]').nth(before).wait_for(state="attached")


def offered(page) -> tuple[set[str], set[str], set[str]]:
    """The moves the page offers now: (legal buttons, disabled buttons, playable cards)."""
    names = page.eval_on_selector_all(
        '[data-testid="move"], button.card.playable',
        "els => els.map(e => [e.dataset.testid === 'move' ? e.dataset.legal : 'card', e.dataset.action])",
    )
    return tuple({a for kind, a in names if kind == k} for k in ("1", "0", "card"))  # type: ignore[return-value]


def play_to_end(page, seed: int, shots: dict[int, Any] | None = None, game: str | None = None) -> int:
    """Click legal moves until the summary appears; the number of human moves. With ``game``, every
    move offered is checked: the legal buttons and playable cards are the server's legal moves, the
    disabled buttons other actions of the game."""
    from kortmiljo.core.registry import load_game

    actions = set(load_game(game).action_names) if game else None
    rng = np.random.default_rng(seed)
    moves = 0
    while wait_turn(page):
        if shots and moves in shots:
            shots[moves]()
        if actions is not None:
            legal, disabled, cards = offered(page)
            assert legal and legal <= actions and cards <= legal, (legal, cards)
            assert disabled <= actions - legal, disabled - (actions - legal)
        how = ("button", "card", "keys")[moves % 3]
        play_one(page, rng, how)
        moves += 1
        assert moves < MAX_HUMAN_MOVES, "the game does not end"
    return moves


def no_script_errors(page) -> None:
    assert page.errors == [], page.errors


# ---------------------------------------------------------------- what the human may see

FRENCH_CODE = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][SHDC])(?![A-Za-z0-9])")
FRENCH_PRETTY = re.compile(r"(10|[A2-9JQK])([♠♥♦♣])")
WORD = re.compile(r"[A-Za-zÅÄÖåäö]+")


def card_names(game) -> dict[str, set[int]]:
    """Every way a card is written (its code, its pretty name) → the card ints it may be."""
    deck = game.deck
    out: dict[str, set[int]] = {}
    for c in deck.cards:
        for text in (deck.code(c), deck.pretty(c)):
            out.setdefault(text, set()).add(c)
    return out


def cards_in(value: Any, game) -> set[str]:
    """The card names (codes or pretty names, as written) in a JSON value, keys included."""
    names = card_names(game)
    kille = game.deck.kille
    found: set[str] = set()

    def text(s: str) -> None:
        head, sep, tail = s.partition(":")
        for whole in (s, tail if sep else None):  # "5" (a kille card) or "play:5"
            if whole is not None and whole in names:
                found.add(whole)
        if kille:
            found.update(w for w in WORD.findall(s) if w in names)
        else:
            found.update(FRENCH_CODE.findall(s))
            found.update(m.group(0) for m in FRENCH_PRETTY.finditer(s))

    def walk(v: Any) -> None:
        if isinstance(v, str):
            text(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                text(str(k))
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(value)
    return {f for f in found if f in names}


def allowed_cards(record, seat: int) -> list[set[int]]:
    """allowed[n]: the cards ``seat`` has located by move n (the union of ``known_cards`` up to it)."""
    from kortmiljo.records import restore

    engine = restore(record, step=0).unwrapped.engine
    game = engine.game
    known = set(engine.known_cards(seat))
    out = [set(known)]
    for a in record.actions:
        engine.step(game.action_from_string(a["action"]))
        known |= set(engine.known_cards(seat))
        out.append(set(known))
    return out


def check_no_hidden_cards(responses: list[tuple[str, str]], record, seat: int) -> int:
    """Every API response before the end names only cards ``seat`` had located by then; how many
    card names were checked."""
    from kortmiljo.core.registry import load_game

    game = load_game(record.game, **record.config)
    names = card_names(game)
    allowed = allowed_cards(record, seat)
    n, checked = 0, 0
    for url, body in responses:
        if "/api/games" not in url:
            continue  # the catalog names cards in its option examples: the same for every game
        try:
            data = json.loads(body)
        except ValueError:
            continue
        if isinstance(data, dict) and "log" in data and "status" in data:
            if data["status"] != "playing":
                break  # the game has ended: the rules have shown every card
            n = len(data["log"])
        for name in cards_in(data, game):
            checked += 1
            assert names[name] & allowed[n], (
                f"{url}: the answer names {name!r}, a card player_{seat} could not locate after move {n}"
            )
    return checked


# ---------------------------------------------------------------- whole games


@pytest.mark.parametrize(
    ("game", "seed", "opponents"),
    [("spokelse", 7, "heuristic"), ("sproyte", 8, "heuristic"), ("femkortskille", 9, "heuristic")],
)
def test_whole_game(page, live_server, artifacts, game, seed, opponents):
    from kortmiljo.records import from_dict

    responses: list = []
    page.on("response", lambda r: responses.append(r) if "/api/" in r.url else None)
    open_app(page)
    start_game(page, game, seed, opponents)
    table = page.locator('[data-testid="table"]')
    assert table.locator('[data-testid="seat-player_0"]').count() == 1
    assert page.locator('[data-testid="facts"] [data-testid="fact-phase"]').count() == 1

    def mid() -> None:
        # the human's own hand is face up, the others' are not
        me = page.locator(".seat.me [data-testid='hand']")
        assert me.locator('[data-testid="card"]').count() > 0
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(artifacts / f"{game}-playing.png"))

    human_moves = play_to_end(page, seed, {0: mid}, game)
    assert human_moves > 0
    summary = page.locator(SUMMARY)
    assert summary.locator('[data-testid="summary-deal"]').count() >= 1
    assert summary.locator('[data-testid="results"] tbody tr').count() == len(json.loads(responses[-1].text())["seats"])
    dealt = summary.locator('[data-testid="summary-hands"] [data-testid="card"]')
    assert dealt.count() > 0
    assert page.locator('[data-testid="table"] [data-testid="card-back"]').count() == 0  # the open view
    link = summary.locator('[data-testid="download-record"]')
    game_id = json.loads(responses[-1].text())["id"]
    assert link.get_attribute("href") == f"/api/games/{game_id}/record"
    page.screenshot(path=str(artifacts / f"{game}-end.png"), full_page=True)
    bodies = [(r.url, r.text()) for r in responses if r.ok]

    # only now, after the end: the full record, through the page's own session
    full = page.request.get(f"/api/games/{game_id}/record")
    assert full.ok
    record = from_dict(full.json())
    assert record.status in ("finished", "truncated") and not record.redacted
    seat = int(json.loads(bodies[-1][1])["seat"].split("_")[1])
    assert check_no_hidden_cards(bodies, record, seat) > 0
    # the server's own game agrees with the record the page got
    served = live_server.game(game_id)
    assert served is not None and [m["action"] for m in record.actions] == [
        served.game.action_names[a] for _, a in served.engine.history
    ]
    no_script_errors(page)


# ---------------------------------------------------------------- the set-up form

# a field of the options form as the page has it: its control's tag and type, its bounds, its
# select's values (JSON-decoded; "__input__" is the entry of the free input beside the choices)
FIELD = """row => {
  const c = row.querySelector('[data-option]');
  const free = row.querySelectorAll('input[data-option-input], [data-option-input] input');
  const value = (o) => (o.value === '__input__' ? o.value : JSON.parse(o.value));
  return {
    tag: c.tagName, type: c.type || null, fixed: c.dataset.fixed === '1', editable: !c.matches('output'),
    checked: c.type === 'checkbox' ? c.checked : null,
    min: c.getAttribute('min'), max: c.getAttribute('max'), required: Boolean(c.required),
    values: c.tagName === 'SELECT' ? [...c.options].map(value) : null,
    free: [...free].map(i => ({
      min: i.getAttribute('min'), max: i.getAttribute('max'), disabled: i.disabled,
      hidden: i.closest('[hidden]') !== null,
    })),
    inputs: row.querySelectorAll('input, select').length,
  };
}"""


def int_bounds(check) -> tuple[int, int] | None:
    """The (lo, hi) of the int range a descriptor's check declares, if any (read from the check,
    not from the catalog)."""
    from kortmiljo.core.options import any_of, int_in, optional, seq_of

    if isinstance(check, int_in):
        return check.lo, check.hi
    if isinstance(check, (optional, seq_of)):
        return int_bounds(check.check)
    if isinstance(check, any_of):
        found = [b for b in map(int_bounds, check.checks) if b is not None]
        return found[0] if len(found) == 1 else None
    return None


def fields(page, game: str) -> dict[str, dict]:
    page.select_option('[data-testid="game-select"]', game)
    rows = page.locator('[data-testid="options"] [data-field]')
    return {r.get_attribute("data-field"): r.evaluate(FIELD) for r in rows.all()}


def test_options_form_is_built_from_the_descriptors(page, artifacts):
    """Every option of every game gets the control its declared check calls for: a select of
    exactly its choices, a checkbox for True/False, a number input bounded by the check's range,
    and a fixed player count is shown, not asked."""
    from kortmiljo.core.options import is_bool, one_of, optional
    from kortmiljo.core.registry import games
    from kortmiljo.games.sproyte.game import VARIANTS

    open_app(page)
    for name, d in games().items():
        got = fields(page, name)
        assert list(got) == list(d.options), name
        for option, opt in d.options.items():
            f = got[option]
            where = f"{name}.{option}: {f}"
            check = opt.check
            inner = check.check if isinstance(check, optional) else check
            if option == "num_players" and d.players[0] == d.players[1]:
                assert f["fixed"] and not f["editable"] and f["inputs"] == 0, where
                continue
            if check is is_bool:
                assert (f["tag"], f["type"], f["checked"]) == ("INPUT", "checkbox", opt.default), where
            elif isinstance(check, one_of):
                assert f["tag"] == "SELECT" and f["values"] == list(check.values), where
            elif isinstance(inner, one_of):  # optional(one_of(...)): None is a choice too
                assert f["tag"] == "SELECT" and f["values"] == [None, *inner.values], where
            bounds = int_bounds(check)
            if bounds is not None and f["tag"] == "INPUT" and f["type"] == "number":
                lo, hi = bounds
                if option == "num_players":
                    lo, hi = max(lo, d.players[0]), min(hi, d.players[1])
                assert (f["min"], f["max"]) == (str(lo), str(hi)), where
                assert f["required"] == (not isinstance(check, optional)), where  # blank is None where None is allowed
            elif bounds is not None:
                assert f["free"] and all((x["min"], x["max"]) == tuple(map(str, bounds)) for x in f["free"]), where
    sproyte = fields(page, "sproyte")
    assert sproyte["variant"]["values"] == list(VARIANTS)
    assert sproyte["num_players"]["fixed"] and page.locator('[data-testid="opt-num_players"]').inner_text() == "3"
    assert page.locator('[data-field="num_players"] input, [data-field="num_players"] select').count() == 0
    assert sproyte["trump"]["values"] == [None, "S", "H", "D", "C"]
    # the deal cap: "auto", None, or a number from 1 to the bound, whose input waits for "a number"
    from kortmiljo.games.sproyte.game import MAX_DEALS

    assert sproyte["max_deals"]["values"] == [None, "auto", "__input__"]
    assert sproyte["max_deals"]["free"] == [{"min": "1", "max": str(MAX_DEALS), "disabled": True, "hidden": True}]
    assert page.input_value('[data-testid="opt-max_deals"]') == '"auto"'
    assert len(sproyte["exchange_quota"]["free"]) == 3
    page.screenshot(path=str(artifacts / "options-sproyte.png"), full_page=True)
    no_script_errors(page)


def test_options_form_sends_typed_values_and_the_game_starts_with_them(page):
    """Selects, numbers and checkboxes send the typed values the server expects (ints, not strings;
    11, not "11"), only where they differ from the default; the server's game has them."""
    bodies: list[dict] = []
    page.on("request", lambda r: bodies.append(json.loads(r.post_data)) if r.url.endswith("/api/games") else None)
    open_app(page)
    page.select_option('[data-testid="game-select"]', "sproyte")
    page.select_option('[data-testid="opt-variant"]', label="tretten")
    page.select_option('[data-testid="opt-trump"]', label="H")
    page.fill('[data-testid="opt-match_to"]', "2")
    page.select_option('[data-testid="opt-max_deals"]', "__input__")
    page.fill('[data-testid="opt-max_deals-value"]', "40")
    page.select_option('[data-testid="opt-reward"]', label="raw")
    page.fill('[data-testid="seed"]', "5")
    page.click('[data-testid="start"]')
    page.wait_for_selector('[data-testid="game"]:not([hidden])')
    want = {"variant": "tretten", "trump": "H", "match_to": 2, "max_deals": 40, "reward": "raw"}
    assert bodies[-1]["config"] == want
    assert all(type(bodies[-1]["config"][k]) is type(v) for k, v in want.items())
    game_id = page.get_attribute('[data-testid="game"]', "data-game-id")
    config = page.request.get(f"/api/games/{game_id}").json()["config"]
    assert {k: config[k] for k in want} == want and config["num_players"] == 3

    page.click('[data-testid="new-game"]')
    page.select_option('[data-testid="game-select"]', "spokelse")
    page.fill('[data-testid="opt-num_players"]', "3")
    page.select_option('[data-testid="opt-jack_points"]', label="11")
    page.fill('[data-testid="opt-max_steps"]', "")  # blank: None, no cap
    page.fill('[data-testid="seed"]', "")
    page.click('[data-testid="start"]')
    page.wait_for_selector(f'[data-testid="game"]:not([hidden]):not([data-game-id="{game_id}"])')
    want = {"num_players": 3, "jack_points": 11, "max_steps": None}
    assert bodies[-1]["config"] == want and type(bodies[-1]["config"]["jack_points"]) is int
    game_id = page.get_attribute('[data-testid="game"]', "data-game-id")
    config = page.request.get(f"/api/games/{game_id}").json()["config"]
    assert {k: config[k] for k in want} == want

    page.click('[data-testid="new-game"]')
    page.select_option('[data-testid="game-select"]', "femkortskille")
    page.check('[data-testid="opt-auktion"]')
    page.fill('[data-testid="opt-max_bet"]', "7")
    page.fill('[data-testid="opt-ranks"]', "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, kille")
    page.click('[data-testid="start"]')
    page.wait_for_selector(f'[data-testid="game"]:not([hidden]):not([data-game-id="{game_id}"])')
    want = {"auktion": True, "max_bet": 7, "ranks": ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "kille"]}
    assert bodies[-1]["config"] == want
    game_id = page.get_attribute('[data-testid="game"]', "data-game-id")
    config = page.request.get(f"/api/games/{game_id}").json()["config"]
    assert {k: config[k] for k in want} == want
    assert page.locator('[data-testid="error"]').is_hidden()
    no_script_errors(page)


def test_options_form_refuses_a_bad_value_before_sending_and_shows_the_servers_reason(page):
    """The seats follow num_players; a number out of its Option's range is refused by the page
    (nothing is sent); what only the server checks comes back as its message."""
    bodies: list[dict] = []
    page.on("request", lambda r: bodies.append(json.loads(r.post_data)) if r.url.endswith("/api/games") else None)
    open_app(page)
    page.select_option('[data-testid="game-select"]', "spokelse")
    assert page.locator('[data-testid="seat-select"] option').count() == 2
    page.fill('[data-testid="opt-num_players"]', "3")
    assert page.locator('[data-testid="seat-select"] option').count() == 3
    page.select_option('[data-testid="seat-select"]', "player_2")
    assert [i.get_attribute("data-seat") for i in page.locator('[data-testid="opponents"] input').all()] == [
        "player_0",
        "player_1",
    ]
    page.fill('[data-testid="opt-num_slots"]', "9")  # not allowed: 1 to 4
    assert page.locator('[data-testid="opt-num_slots"]:invalid').count() == 1
    page.click('[data-testid="start"]')
    page.fill('[data-testid="opt-num_slots"]', "0")
    page.click('[data-testid="start"]')
    assert bodies == [] and page.locator('[data-testid="game"]').is_hidden()
    message = page.eval_on_selector('[data-testid="opt-num_slots"]', "i => i.validationMessage")
    assert message, "the browser says why"
    page.fill('[data-testid="opt-num_slots"]', "4")  # the default again: not sent
    page.fill('[data-testid="agent-player_0"]', "random")
    page.click('[data-testid="start"]')
    page.wait_for_selector('[data-testid="game"]:not([hidden])')
    assert bodies[-1] == {
        "game": "spokelse",
        "config": {"num_players": 3},
        "seat": "player_2",
        "opponents": ["random", "heuristic"],
    }
    assert page.locator('[data-testid="table"] .seat').count() == 3
    assert page.locator('[data-testid="table"] .seat.me').get_attribute("data-seat") == "player_2"

    # max_bet without auktion: within its range, refused by the server's own rule, which is shown
    page.click('[data-testid="new-game"]')
    page.select_option('[data-testid="game-select"]', "femkortskille")
    page.fill('[data-testid="opt-max_bet"]', "7")
    page.click('[data-testid="start"]')
    page.wait_for_selector('[data-testid="error"]:not([hidden])')
    assert bodies[-1]["config"] == {"max_bet": 7}
    assert "max_bet" in page.inner_text('[data-testid="error"]')
    assert page.locator('[data-testid="game"]').is_hidden()
    no_script_errors(page)


# ---------------------------------------------------------------- the end of a game

QUICK = {"num_players": 3, "hand_size": 1, "extra_cards": 0, "max_deals": 1}  # one card each, one deal


def expected_outcome(rewards: dict[str, float], me: str) -> tuple[str, float]:
    mine = rewards[me]
    best = max(r for s, r in rewards.items() if s != me)
    if mine > best:
        return "won", mine - best
    if mine < best:
        return "lost", best - mine
    return "tie", 0.0


def in_viewport(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] and box["x"] >= 0


def test_end_banner_says_won_or_lost_and_by_how_much(page, artifacts):
    """Quick games of Femkortskille (one card each) until one is won and one lost: the banner says
    so, by the margin of the server's final rewards, in view without scrolling."""
    open_app(page)
    seen: set[str] = set()
    for seed in range(12):
        page.select_option('[data-testid="game-select"]', "femkortskille")
        for k, v in QUICK.items():
            page.fill(f'[data-testid="opt-{k}"]', str(v))
        for box in page.locator('[data-testid="opponents"] input').all():
            box.fill("random")
        page.fill('[data-testid="seed"]', str(seed))
        page.click('[data-testid="start"]')
        page.wait_for_selector('[data-testid="game"]:not([hidden])')
        assert page.locator('[data-testid="banner"]').is_hidden()  # not before the end
        play_to_end(page, seed)
        game_id = page.get_attribute('[data-testid="game"]', "data-game-id")
        view = page.request.get(f"/api/games/{game_id}").json()
        assert view["status"] == "finished" and view["config"]["hand_size"] == 1
        kind, margin = expected_outcome(view["rewards"], view["seat"])
        banner = page.locator('[data-testid="banner"]')
        assert banner.is_visible() and in_viewport(page, '[data-testid="banner"]')
        assert banner.get_attribute("data-outcome") == kind
        assert float(banner.get_attribute("data-margin")) == pytest.approx(margin)
        title = banner.locator('[data-testid="banner-title"]').inner_text()
        assert title == {"won": "You won", "lost": "You lost"}.get(kind, title)
        detail = banner.locator('[data-testid="banner-detail"]').inner_text()
        if kind != "tie":
            assert f"{margin:g} {'ahead of' if kind == 'won' else 'behind'}" in detail, detail
        if kind not in seen:
            page.screenshot(path=str(artifacts / f"end-banner-{kind}.png"))
        seen.add(kind)
        if {"won", "lost"} <= seen:
            break
        page.click('[data-testid="new-game"]')
    assert {"won", "lost"} <= seen, seen
    no_script_errors(page)


OUTCOME = """([rewards, me, status]) => import('/banner.js').then(m => m.outcome(rewards, me, status))"""


@pytest.mark.parametrize(
    ("rewards", "me", "status", "kind", "title", "margin", "place", "words"),
    [
        ({"player_0": 1, "player_1": -1}, "player_0", "finished", "won", "You won", 2, 1, "2 ahead of player_1 (−1)"),
        ({"player_0": -1, "player_1": 1}, "player_0", "finished", "lost", "You lost", 2, 2, "2 behind player_1 (+1)"),
        (
            {"player_0": -1.5, "player_1": 3, "player_2": -1.5},
            "player_2",
            "finished",
            "lost",
            "You lost",
            4.5,
            2,
            "You placed 2nd of 3",
        ),
        (
            {"player_0": 2, "player_1": 2, "player_2": -4},
            "player_1",
            "finished",
            "tie",
            "A tie for first",
            0,
            1,
            "level with player_0",
        ),
        ({"player_0": 0, "player_1": 0}, "player_1", "finished", "tie", "A tie", 0, 1, "Every seat's reward is 0"),
        (
            {"player_0": 5, "player_1": -4, "player_2": -1},
            "player_0",
            "truncated",
            "won",
            "Cut short: you were ahead",
            6,
            1,
            "6 ahead of player_2 (−1)",
        ),
    ],
)
def test_end_banner_outcome_of_final_rewards(page, rewards, me, status, kind, title, margin, place, words):
    """The banner's words for two seats and for several (place, margin to the best or the next best)."""
    open_app(page)
    o = page.evaluate(OUTCOME, [rewards, me, status])
    assert (o["kind"], o["title"], o["place"]) == (kind, title, place)
    assert o["margin"] == pytest.approx(margin)
    assert words in o["detail"], o["detail"]


# ---------------------------------------------------------------- the layout


def overlaps(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


# for each card of the human's hand in view: its box, and whether it is what the page shows at its centre
HAND_IN_VIEW = """() => [...document.querySelectorAll('.seat.me [data-testid="hand"] .card')].map(c => {
  const r = c.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const inView = y > 0 && y < innerHeight && x > 0 && x < innerWidth;
  const top = inView ? document.elementFromPoint(x, y) : null;
  return {box: {x: r.left, y: r.top, width: r.width, height: r.height}, inView, shown: top !== null && c.contains(top)};
})"""


@pytest.mark.parametrize("width", [1280, 800])
def test_facts_never_cover_the_hand_when_scrolling(page, artifacts, width):
    """Scrolled anywhere, at a wide and a narrow window (a laptop's height less the browser's bars),
    no card of the hand is under the facts."""
    page.set_viewport_size({"width": width, "height": 600})
    open_app(page)
    start_game(page, "sproyte", 8, "heuristic")
    assert wait_turn(page)
    page.click(".text-view summary")  # the table as text: a longer page, scrolled further
    facts = page.locator('[data-testid="facts"]')
    top = page.evaluate("document.documentElement.scrollHeight - innerHeight")
    closest = None
    for y in range(0, top + 60, 60):
        page.evaluate(f"window.scrollTo(0, {y})")
        bar = facts.bounding_box()
        cards = page.evaluate(HAND_IN_VIEW)
        assert cards
        for c in cards:
            if not c["inView"]:
                continue
            assert not overlaps(c["box"], bar), f"at scroll {y} a card of the hand is under the facts: {c}, {bar}"
            assert c["shown"], f"at scroll {y} a card of the hand is covered: {c}"
        ys = [c["box"]["y"] for c in cards]
        closest = min(ys) if closest is None else min(closest, *ys)
    assert closest is not None and closest < 100, "the hand never reached the top of the window"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(artifacts / f"play-{width}.png"))
    no_script_errors(page)


# ---------------------------------------------------------------- a disabled move


def test_disabled_move_cannot_be_played(page, artifacts):
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    open_app(page)
    start_game(page, "sproyte", 3, "heuristic")
    rng = np.random.default_rng(0)
    disabled = page.locator('[data-testid="move"][data-legal="0"]')
    for _ in range(60):
        assert wait_turn(page), "the game ended before a move was disabled"
        if disabled.count():
            break
        # prefer "done" in the exchange: the play phase, where one must follow suit, comes sooner
        done = page.locator(f'{MOVE}[data-action="done"]')
        if done.count():
            done.click()
            page.wait_for_selector(f"{MOVE}, {SUMMARY}")
            continue
        play_one(page, rng)
    else:
        pytest.fail("no disabled move came up")
    button = disabled.first
    action = button.get_attribute("data-action")
    assert button.is_disabled()
    assert "illegal" in (button.get_attribute("class") or "")
    page.screenshot(path=str(artifacts / "disabled-move.png"))
    sent, entries = len(posts), log_count(page)
    log_html = page.inner_html('[data-testid="move-log"]')
    button.click(force=True)  # a disabled button gets no click
    button.evaluate("b => b.click()")  # nor a scripted one
    # the card of that move is not a button in the hand
    card = action.split(":", 1)[1]
    hand_card = page.locator(f'.seat.me [data-card="{card}"]')
    assert hand_card.count() == 1
    assert hand_card.evaluate("c => c.tagName") != "BUTTON"
    hand_card.click(force=True)
    page.wait_for_timeout(300)
    assert len(posts) == sent, posts[sent:]
    assert log_count(page) == entries
    assert page.inner_html('[data-testid="move-log"]') == log_html
    assert page.locator(f'[data-testid="move"][data-action="{action}"][data-legal="0"]').count() == 1
    # the legal moves still play
    play_one(page, rng)
    assert len(posts) == sent + 1
    no_script_errors(page)


# ---------------------------------------------------------------- the pace of the opponents' moves


def test_opponent_moves_come_one_by_one(page):
    """At a pace of 1 s the opponents' replies appear one at a time, and the human's moves wait."""
    open_app(page)
    page.fill('[data-testid="pace"]', "1")
    start_game(page, "femkortskille", 4, "random", seat="player_0")
    game_id = page.get_attribute('[data-testid="game"]', "data-game-id")
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert wait_turn(page), "the game ended before the opponents replied with several moves"
        before = log_count(page)
        page.locator(MOVE).nth(int(rng.integers(page.locator(MOVE).count()))).click()
        page.locator('[data-testid="log-entry"]').nth(before).wait_for(state="attached")
        shown = log_count(page)
        total = len(page.request.get(f"/api/games/{game_id}").json()["log"])
        if total - before < 3:
            continue  # fewer than two replies: nothing to pace
        assert shown < total  # the replies are still coming, one a second
        assert page.locator(MOVE).count() == 0  # and the human's moves wait for them
        page.locator('[data-testid="log-entry"]').nth(total - 1).wait_for(state="attached")
        assert log_count(page) == total
        break
    else:
        pytest.fail("the opponents never replied with two moves or more")
    no_script_errors(page)


# ---------------------------------------------------------------- hints


def test_hint_bars(page):
    open_app(page)
    start_game(page, "sproyte", 5, "random")
    assert wait_turn(page)
    page.select_option('[data-testid="hint-agent"]', "heuristic")
    page.click('[data-testid="hint-button"]')
    page.wait_for_selector('[data-testid="hint-bar"]')
    legal = {b.get_attribute("data-action") for b in page.locator(MOVE).all()}
    hinted = {s.get_attribute("data-hint-for") for s in page.locator("[data-hint-for]").all() if s.inner_text().strip()}
    assert hinted and hinted <= legal
    assert page.locator('[data-testid="hint-value"]').inner_text().startswith("heuristic")
    no_script_errors(page)


# ---------------------------------------------------------------- replays


def replay_pos(page) -> str:
    return page.inner_text('[data-testid="replay-pos"]')


def test_replay_player(page, artifacts, records_dir):
    from kortmiljo.records import load

    record = load(records_dir / "sproyte-annotated.json")
    total = len(record.actions)
    open_app(page)
    page.click('[data-testid="tab-watch"]')
    row = page.locator('[data-testid="record-row"][data-name="sproyte-annotated.json"]')
    row.locator('[data-testid="watch-record"]').click()
    page.wait_for_selector('[data-testid="player"][data-step="0"]')
    assert replay_pos(page) == f"0 / {total}"
    log = page.locator('[data-testid="replay-log"] [data-testid="log-entry"]')
    assert log.count() == 0

    page.click('[data-testid="replay-forward"]')
    page.wait_for_selector('[data-testid="player"][data-step="1"]')
    assert log.count() == 1
    # the first move's annotations: a bar per legal move of its policy, and the value
    annot = page.locator('[data-testid="annotations"]')
    assert annot.locator('[data-testid="prob-bar"]').count() == len(record.actions[0]["policy"])
    assert annot.locator('[data-testid="annotation-value"]').inner_text() == f"value {record.actions[0]['value']:.3f}"
    assert annot.locator("li.chosen").get_attribute("data-action") == record.actions[0]["action"]

    page.click('[data-testid="replay-back"]')
    page.wait_for_selector('[data-testid="player"][data-step="0"]')
    assert log.count() == 0

    page.fill('[data-testid="replay-slider"]', "20")
    page.wait_for_selector('[data-testid="player"][data-step="20"]')
    assert replay_pos(page) == f"20 / {total}" and log.count() == 20
    assert page.locator('[data-testid="replay-log"] li.current').get_attribute("data-n") == "19"

    # the open view shows every hand; a seat's view hides the other hands
    table = page.locator('[data-testid="replay-table"]')
    assert table.locator('[data-testid="hand"] [data-testid="card-back"]').count() == 0
    page.select_option('[data-testid="replay-view"]', "player_1")
    page.wait_for_selector('[data-testid="player"][data-view="player_1"][data-step="20"]')
    assert table.locator(".seat.me").get_attribute("data-seat") == "player_1"
    assert table.locator('.seat.me [data-testid="card-back"]').count() == 0
    assert table.locator('[data-testid="seat-player_0"] [data-testid="hand"] [data-testid="card-back"]').count() > 0
    page.screenshot(path=str(artifacts / "replay-seat-view.png"))

    page.click('[data-testid="replay-last"]')
    page.wait_for_selector(f'[data-testid="player"][data-step="{total}"]')
    page.click('[data-testid="replay-first"]')
    page.wait_for_selector('[data-testid="player"][data-step="0"]')
    page.click('[data-testid="replay-play"]')  # plays like a video, at the pace (0: quickly)
    page.wait_for_selector(f'[data-testid="player"][data-step="{total}"]', timeout=30_000)
    assert page.get_attribute('[data-testid="replay-play"]', "aria-pressed") == "false"  # stopped at the end
    assert log.count() == total
    page.screenshot(path=str(artifacts / "replay.png"))
    no_script_errors(page)


def test_replay_upload(page, records_dir):
    from kortmiljo.records import load

    path = records_dir / "spokelse-plain.json"
    total = len(load(path).actions)
    open_app(page, "#watch")
    page.set_input_files('[data-testid="upload"]', str(path))
    page.wait_for_selector('[data-testid="player"][data-step="0"]')
    assert page.inner_text('[data-testid="replay-name"]').startswith("upload-")
    page.fill('[data-testid="replay-slider"]', str(total))
    page.wait_for_selector(f'[data-testid="player"][data-step="{total}"]')
    assert page.locator('[data-testid="no-annotations"]').count() == 1
    no_script_errors(page)


# the piles of each seat, and its stats, as the page shows them: {seat: {"piles": {title: cards}, "tricks": text}}
SEAT_PILES = """t => Object.fromEntries([...t.querySelectorAll('.seat')].map(s => [s.dataset.seat, {
  piles: [...s.querySelectorAll('.seat-piles .pile')].map(p => [
    p.querySelector('[data-testid="pile-title"]').textContent, p.querySelectorAll('.card').length]),
  stats: Object.fromEntries([...s.querySelectorAll('[data-testid="stats"] dt')].map(
    dt => [dt.textContent, dt.nextElementSibling.textContent])),
}]))"""


def test_watch_keeps_the_replay_in_view_and_says_cards_won(page, records_dir, artifacts):
    """With a long list of records, the replay opened from its last row has its board's top in a
    1280x800 window, without scrolling; the list scrolls within a bounded height and opens again.
    A seat's won pile says it counts cards ("cards won 6", three to a trick), beside "tricks 2"."""
    from kortmiljo.records import load, save

    record = load(records_dir / "sproyte-annotated.json")
    many = records_dir / "000-many.jsonl"  # listed first: 40 rows above the others
    save([record] * 40, many)
    try:
        page.set_viewport_size({"width": 1280, "height": 800})
        open_app(page, "#watch")
        rows = page.locator('[data-testid="record-row"]')
        rows.nth(40).wait_for()
        scroll = page.locator('[data-testid="records-scroll"]')
        assert scroll.bounding_box()["height"] <= 0.4 * 800  # the list is bounded, whatever its length
        assert page.evaluate("document.documentElement.scrollHeight") <= 800 + 50
        rows.last.locator('[data-testid="watch-record"]').click()
        page.wait_for_selector('[data-testid="player"][data-step="0"]')
        board = page.locator('[data-testid="replay-table"]').bounding_box()
        controls = page.locator('[data-testid="replay-forward"]').bounding_box()
        assert 0 <= controls["y"] and 0 <= board["y"] < 800 - 200, (controls, board)
        assert page.evaluate("window.scrollY") == 0
        page.screenshot(path=str(artifacts / "watch-many-records.png"))
        page.click('[data-testid="records-box"] summary')  # the list opens again
        assert rows.last.is_visible()
        page.click('[data-testid="records-box"] summary')

        total = len(record.actions)
        page.click('[data-testid="replay-last"]')
        page.wait_for_selector(f'[data-testid="player"][data-step="{total}"]')
        seats = page.locator('[data-testid="replay-table"]').evaluate(SEAT_PILES)
        won_total = 0
        for seat, s in seats.items():
            titles = dict(s["piles"])
            won = [t for t in titles if "won" in t]
            assert won == [f"cards won {titles[won[0]]}"], (seat, titles)
            assert not any(re.search(r"\(\d+\)$", t) for t in titles), titles  # every count says it is cards
            assert titles[won[0]] == 3 * int(s["stats"]["tricks"]), (seat, s)
            won_total += titles[won[0]]
        assert won_total > 0
    finally:
        many.unlink()
    no_script_errors(page)
