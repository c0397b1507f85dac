"""The web app's limits and its answers under attack (#49; docs/web.md, "Security model").

Sessions are made only by a first game or upload; a session's and a client's games are capped;
only idle games and sessions give way; the opponents' moves are paced so that timing shows no
forced move, and no header depends on the game; an unseeded game draws 128 bits; a replay step
costs a bounded number of engine steps; a failing or hanging agent stops its game with a clear
error; bad input (deep JSON, huge numbers, other scripts' digits) gets a clear 4xx.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time

import numpy as np
import pytest

from kortmiljo.core.registry import load_game

from . import client, make_app, record_games


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def opponent_first(name: str, seed: int) -> int:
    """A seat whose opponents move before it in the game ``name`` dealt with ``seed``."""
    v = new_game(client(make_app()), game=name, seed=seed, seat=0).json()
    first = int(v["log"][0]["seat"][7:]) if v["log"] else 0
    return (first + 1) % load_game(name).num_players


def new_game(c, **body):
    body.setdefault("game", "spokelse")
    body.setdefault("opponents", ["random"])
    return c.post("/api/games", json=body)


# ---- sessions ------------------------------------------------------------------------------------
def test_reading_makes_no_session_and_cookieless_floods_evict_nobody():
    clock = Clock()
    app = make_app(max_sessions=3, clock=clock)
    victim = client(app)
    gid = new_game(victim).json()["id"]
    for _ in range(50):  # cookie-less reads: no session, no cookie
        r = client(app).get("/api/catalog")
        assert "set-cookie" not in r.headers
        assert client(app).get(f"/api/games/{gid}").status_code == 404
    assert len(app.state.sessions) == 1
    for _ in range(2):  # two more sessions fill the store
        assert new_game(client(app)).status_code == 201
    r = new_game(client(app))  # no session is idle: refused, nobody evicted
    assert r.status_code == 503 and "sessions" in r.json()["error"]
    assert victim.get(f"/api/games/{gid}").status_code == 200


def test_an_idle_session_gives_way_but_one_with_an_active_game_does_not():
    clock = Clock()
    app = make_app(max_sessions=2, clock=clock, idle_after=60)
    victim, other = client(app), client(app)
    gid = new_game(victim).json()["id"]
    new_game(other)
    clock.t += 120
    victim.get(f"/api/games/{gid}")  # the victim plays on; the other session is idle
    third = client(app)
    assert new_game(third).status_code == 201
    assert victim.get(f"/api/games/{gid}").status_code == 200


def test_games_per_session_are_capped_and_the_sessions_own_idle_game_gives_way():
    clock = Clock()
    app = make_app(max_games_per_session=2, clock=clock, idle_after=60)
    c = client(app)
    first, second = (new_game(c).json()["id"] for _ in range(2))
    r = new_game(c)
    assert r.status_code == 429
    assert "this session holds 2 games" in r.json()["error"]
    clock.t += 61
    c.get(f"/api/games/{second}")  # second stays active, first is idle
    assert new_game(c).status_code == 201
    assert c.get(f"/api/games/{first}").status_code == 404
    assert c.get(f"/api/games/{second}").status_code == 200


def test_games_per_client_address_are_capped():
    app = make_app(max_games_per_client=3)
    for _ in range(3):
        assert new_game(client(app)).status_code == 201  # three sessions, one address ("testclient")
    r = new_game(client(app))
    assert r.status_code == 429 and "client address holds 3 games" in r.json()["error"]


def test_a_full_server_drops_an_idle_game_never_an_active_one():
    clock = Clock()
    app = make_app(max_games=3, clock=clock, idle_after=60, max_games_per_client=None)
    players = [client(app) for _ in range(3)]
    ids = [new_game(c).json()["id"] for c in players]
    r = new_game(client(app))
    assert r.status_code == 503 and "none is idle" in r.json()["error"]
    clock.t += 61
    players[0].get(f"/api/games/{ids[0]}")  # active again; ids[1] is now the oldest idle game
    assert new_game(client(app)).status_code == 201
    assert players[0].get(f"/api/games/{ids[0]}").status_code == 200
    assert players[1].get(f"/api/games/{ids[1]}").status_code == 404
    assert players[2].get(f"/api/games/{ids[2]}").status_code == 200


def test_a_lost_game_says_games_are_lost_on_restart():
    c = client(make_app())
    new_game(c)
    r = c.get("/api/games/" + "A" * 22)
    assert r.status_code == 404 and "restarted" in r.json()["error"]


# ---- seeds and headers ---------------------------------------------------------------------------
def test_an_unseeded_game_draws_128_bits_and_a_given_seed_is_honoured():
    app = make_app()
    c = client(app)
    seeds = [app.state.games.peek(new_game(c, game="sproyte").json()["id"]).seed for _ in range(6)]
    assert max(s.bit_length() for s in seeds) > 100  # each is uniform on 2**128; all six under 2**100: p = 2**-168
    assert len(set(seeds)) == 6
    from . import first_deal

    gid = new_game(client(app), game="sproyte", seed=5).json()["id"]
    e = app.state.games.peek(gid).engine
    assert (e.deal_log[0][0], [e.deck.code(x) for x in e.deal_log[0][1]]) == first_deal("sproyte", 5)


def test_no_header_tells_how_long_the_work_took():
    c = client(make_app())
    gid = new_game(c, game="sproyte", opponents=["heuristic"]).json()["id"]
    for r in (c.get(f"/api/games/{gid}"), c.get(f"/api/games/{gid}/record"), c.get("/api/catalog")):
        assert not any(k.lower() in ("server-timing", "x-response-time", "x-process-time") for k in r.headers)


# ---- pacing --------------------------------------------------------------------------------------
def test_every_answer_about_a_game_waits_a_pad_per_opponent_move():
    app = make_app(move_pad=0.5)
    pacing = app.state.pacing
    t = [0.0]
    slept: list[float] = []

    async def sleep(d):
        slept.append(d)

    pacing.now, pacing.sleep = (lambda: t[0]), sleep  # a clock that does not move: work takes no time
    c = client(app)
    v = new_game(c, game="sproyte", opponents=["heuristic"], seat=opponent_first("sproyte", 3), seed=3).json()
    g = app.state.games.peek(v["id"])
    before = len(v["log"])  # the opponents' moves before the human's first
    assert before > 0 and slept == [0.5 * before]
    slept.clear()
    r = c.get(f"/api/games/{v['id']}")  # a second request waits as long: it cannot see the work end sooner
    assert r.status_code == 200 and slept == [0.5 * before]
    t[0] = 10.0
    replies = 0
    while not replies:  # the human moves (a move with no reply waits for nothing) until the opponents reply
        slept.clear()
        logged = len(v["log"])
        v = c.post(f"/api/games/{v['id']}/actions", json={"action": v["legal"][0]["name"]}).json()
        replies = len(v["log"]) - logged - 1
        assert slept == ([pytest.approx(0.5 * replies)] if replies else [])
    assert g.ready_at == pytest.approx(10.0 + 0.5 * replies)
    t[0] = 100.0  # later, nothing waits
    slept.clear()
    c.get(f"/api/games/{v['id']}")
    assert slept == []
    assert pacing.overruns == 0


def test_move_pad_is_bounded():
    with pytest.raises(ValueError, match="move_pad"):
        make_app(move_pad=-1)
    with pytest.raises(ValueError, match="move_pad"):
        make_app(move_pad=10**400)


# ---- agents that fail ----------------------------------------------------------------------------
class Raising:
    def act(self, obs, engine=None):
        raise RuntimeError("boom")


class Hanging:
    def act(self, obs, engine=None):
        time.sleep(30)
        return 0


def failing_factory(spec, game, seed):
    from . import factory

    return (
        {"raising": Raising, "hanging": Hanging}[spec]()
        if spec in ("raising", "hanging")
        else factory(spec, game, seed)
    )


@pytest.mark.parametrize("agent, words", [("raising", "RuntimeError: boom"), ("hanging", "")])
def test_a_failing_opponent_stops_its_game_with_an_error_naming_it(agent, words):
    app = make_app(agent_factory=failing_factory, agents=["random", agent], move_timeout=0.3)
    c = client(app)
    r = new_game(c, game="sproyte", opponents=[agent], seat=opponent_first("sproyte", 1), seed=1)
    assert r.status_code == 500
    msg = r.json()["error"]
    assert f"agent {agent} (player_" in msg and "failed at move 0" in msg and words in msg
    if agent == "hanging":
        assert "0.3" in msg


def test_a_failing_opponent_after_the_start_stops_the_game():
    state = {"fail": False}

    class Flaky:
        def act(self, obs, engine=None):
            if state["fail"]:
                raise SystemExit(3)
            return int(np.flatnonzero(obs["action_mask"])[0])

    app = make_app(agent_factory=lambda spec, game, seed: Flaky(), agents=["flaky"])
    c = client(app)
    v = new_game(c, game="sproyte", opponents=["flaky"], seed=1).json()
    state["fail"] = True
    for _ in range(50):  # the human moves until an opponent is asked again
        r = c.post(f"/api/games/{v['id']}/actions", json={"action": v["legal"][0]["name"]})
        if r.status_code != 200:
            break
        v = r.json()
    assert r.status_code == 500 and "agent flaky" in r.json()["error"] and "SystemExit" in r.json()["error"]
    r2 = c.post(f"/api/games/{v['id']}/actions", json={"action": v["legal"][0]["name"]})
    assert r2.status_code == 409 and "stopped" in r2.json()["error"]
    assert c.get(f"/api/games/{v['id']}/hint").status_code == 409


# ---- bad input -----------------------------------------------------------------------------------
def post_raw(c, path: str, text: str):
    return c.post(path, content=text.encode(), headers={"content-type": "application/json"})


def test_hostile_json_bodies_get_a_clear_400():
    c = client(make_app())
    for text, words in (
        ("[" * 5000 + "]" * 5000, "nested more than"),
        ('{"game": "sproyte", "seed": ' + "9" * 5000 + "}", "digits"),
        ('{"game": "sproyte", "seed": NaN}', "NaN"),
        ('{"game": "sproyte", "seed": 1e999}', "finite"),
        ('{"game": "sproyte", "game": "spokelse"}', "twice"),
    ):
        r = post_raw(c, "/api/games", text)
        assert r.status_code == 400, (text[:40], r.text)
        assert words in r.json()["error"], (words, r.json())


def test_a_huge_or_foreign_digit_seat_is_refused_in_few_words():
    c = client(make_app())
    huge = 10**4000
    r = post_raw(c, "/api/games", '{"game": "sproyte", "seat": "player_' + "1" * 5000 + '"}')
    assert r.status_code == 422 and len(r.json()["error"]) < 300
    r = new_game(c, game="sproyte", seat="player_\u0661")  # ARABIC-INDIC DIGIT ONE
    assert r.status_code == 422 and "player_0..player_2" in r.json()["error"]
    r = post_raw(c, "/api/games", '{"game": "sproyte", "seat": ' + str(huge)[:40] + "}")
    assert r.status_code == 422 and len(r.json()["error"]) < 300


def test_replay_step_numbers_and_seats(tmp_path):
    app = make_app(records_dir=tmp_path)
    record_games(tmp_path, "sproyte", episodes=1)
    c = client(app)
    name = next(r["name"] for r in c.get("/api/records").json()["records"] if r["name"].endswith(".json"))
    assert c.get(f"/api/replays/{name}/step/\u0663").status_code == 422  # ARABIC-INDIC DIGIT THREE
    assert c.get(f"/api/replays/{name}/step/3", params={"seat": "1"}).status_code == 200
    r = c.get(f"/api/replays/{name}/step/3", params={"seat": "\u0661"})
    assert r.status_code == 422 and "player_0" in r.json()["error"]


def test_a_slow_body_gets_408():
    from kortmiljo.server.requests import read_body
    from kortmiljo.server.sessions import ApiError

    class Slow:
        headers = {"content-type": "application/json"}

        async def stream(self):
            yield b"{"
            await asyncio.sleep(5)
            yield b"}"

    with pytest.raises(ApiError) as err:
        asyncio.run(read_body(Slow(), 1000, timeout=0.1))
    assert err.value.status == 408 and "0.1 s" in err.value.message


# ---- replays -------------------------------------------------------------------------------------
def test_a_replay_step_costs_a_bounded_number_of_engine_steps(tmp_path, monkeypatch):
    from kortmiljo.records import restore, to_text
    from kortmiljo.server.views import Positions, record_log, replay_step

    rec = record_games(tmp_path, "spokelse", episodes=1)[0]
    cache = Positions(rec, every=16)
    engine_type = type(cache.engine_at(0))
    n = len(rec.actions)
    logs = {seat: record_log(rec, seat) for seat in (None, 1)}
    for seat in (None, 1):  # the first request of a view restores the record once
        replay_step(rec, n, seat, log=logs[seat], cache=cache)
    counted = [0]
    original = engine_type.step

    def step(self, action):
        counted[0] += 1
        return original(self, action)

    monkeypatch.setattr(engine_type, "step", step)
    for k in [n, *np.random.default_rng(0).integers(0, n + 1, 12).tolist()]:
        for seat in (None, 1):
            counted[0] = 0
            got = replay_step(rec, int(k), seat, log=logs[seat], cache=cache)
            assert counted[0] < 16, (k, seat, counted[0])
            monkeypatch.setattr(engine_type, "step", original)  # the reference replays in full
            e = restore(rec, step=int(k)).unwrapped.engine
            viewer = None if seat is None or e.terminal or e.truncated else seat
            assert got["table"] == json.loads(json.dumps(e.table(viewer)))
            assert got["text"] == to_text(rec, seat=seat, step=int(k))
            monkeypatch.setattr(engine_type, "step", step)


def test_replay_steps_over_http_match_the_library(tmp_path):
    from kortmiljo.records import restore, to_text

    rec = record_games(tmp_path, "sproyte", episodes=1)[0]
    c = client(make_app(records_dir=tmp_path))
    name = next(r["name"] for r in c.get("/api/records").json()["records"] if r["name"].endswith(".json"))
    for k in (0, 7, len(rec.actions) // 2, len(rec.actions)):
        for seat in (None, 1):
            got = c.get(f"/api/replays/{name}/step/{k}", params={} if seat is None else {"seat": seat}).json()
            assert got["text"] == to_text(rec, seat=seat, step=k)
            e = restore(rec, step=k).unwrapped.engine
            viewer = None if seat is None or e.terminal or e.truncated else seat
            assert got["table"] == json.loads(json.dumps(e.table(viewer)))


# ---- files ---------------------------------------------------------------------------------------
def test_files_are_written_with_the_umask_not_0600(tmp_path):
    from kortmiljo.core.files import atomic_write

    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "a.json", "{}")
        assert stat.S_IMODE(os.stat(tmp_path / "a.json").st_mode) == 0o644
        os.chmod(tmp_path / "a.json", 0o640)
        atomic_write(tmp_path / "a.json", "{}")  # replacing keeps the mode
        assert stat.S_IMODE(os.stat(tmp_path / "a.json").st_mode) == 0o640
    finally:
        os.umask(old)


def test_an_unseeded_game_has_no_seed_in_its_in_play_record():
    app = make_app()
    c = client(app)
    v = new_game(c, game="sproyte", opponents=["random"]).json()
    rec = c.get(f"/api/games/{v['id']}/record").json()
    assert rec["seed"] is None and rec["redacted_for"] == v["seat"]
    assert None in rec["deals"][0]["deck"]  # the other hands are hidden


def test_an_answer_that_ends_in_a_failure_is_paced_by_the_moves_made_before_it():
    calls: list[int] = []

    class FailsOnItsSecondMove:
        def act(self, obs, engine=None):
            if calls:
                calls.append(1)
                if len(calls) == 3:
                    raise RuntimeError("boom")
            return int(np.flatnonzero(obs["action_mask"])[0])

    app = make_app(agent_factory=lambda spec, game, seed: FailsOnItsSecondMove(), agents=["f"], move_pad=0.5)
    slept: list[float] = []

    async def sleep(d):
        slept.append(d)

    t = [10.0]
    app.state.pacing.now, app.state.pacing.sleep = (lambda: t[0]), sleep
    c = client(app)
    v = new_game(c, game="sproyte", opponents=["f"], seed=2).json()
    g = app.state.games.peek(v["id"])
    calls.append(0)  # from now on the second opponent move fails
    for _ in range(50):
        t[0] += 100  # the earlier answers' pace has passed
        slept.clear()
        logged = len(g.log)
        r = c.post(f"/api/games/{v['id']}/actions", json={"action": v["legal"][0]["name"]})
        if r.status_code != 200:
            break
        v = r.json()
    assert r.status_code == 500 and "boom" in r.json()["error"]
    made = len(g.log) - logged - 1  # the opponents' moves of this answer that were made
    assert made == 1  # the first opponent to move after the flag moved, the second failed
    assert slept == [pytest.approx(0.5)]


def test_a_refused_game_makes_no_session():
    app = make_app()
    for body in ({"game": "nope"}, {"game": "sproyte", "seat": 7}, {"game": "sproyte", "config": {"max_deals": 0}}):
        r = client(app).post("/api/games", json=body)
        assert r.status_code == 422 and "set-cookie" not in r.headers
    assert len(app.state.sessions) == 0
