"""The web app's API (docs/web.md): catalog, games (create, view, move, hint, record), the
records of ``--records DIR``, uploads and replay steps, each against what the library gives."""

from __future__ import annotations

import json
import random

import pytest

from kortmiljo.core.registry import games, load_game
from kortmiljo.records import from_dict, redact, restore, to_text, verify

from . import client, first_deal, make_app, play_to_end, record_games

GAMES = ["spokelse", "sproyte", "femkortskille"]


@pytest.fixture(scope="module")
def app():
    return make_app()


@pytest.fixture()
def c(app):
    return client(app)


def new_game(c, status: int = 201, **body):
    r = c.post("/api/games", json=body)
    assert r.status_code == status, r.text
    return r.json()


# ---- catalog -------------------------------------------------------------------------------------
def test_catalog_lists_every_game_with_its_options_and_the_agents(c):
    data = c.get("/api/catalog").json()
    by_name = {g["name"]: g for g in data["games"]}
    assert set(games()) <= set(by_name)
    for name, d in games().items():
        g = by_name[name]
        assert g["display_name"] == d.display_name
        assert g["players"] == list(d.players)
        assert set(g["options"]) == set(d.options)
        for k, opt in d.options.items():
            assert g["options"][k]["allowed"] == opt.allowed
            json.dumps(g["options"][k]["default"])  # plain JSON
        assert len(g["examples"]) == len(d.examples)
    assert data["agents"] == ["random", "heuristic", "search"]


# ---- one game of each ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_create_view_act_hint_record_for_each_game(c, name):
    v = new_game(c, game=name, opponents=["heuristic"], seed=7)
    n = load_game(name).num_players
    assert v["game"] == name and v["seat"] == "player_0" and v["status"] == "playing"
    assert v["seats"] == {f"player_{s}": "human" if s == 0 else "heuristic" for s in range(n)}
    assert v["to_move"] == "player_0" and v["legal"]
    assert v["summary"] is None and all(x == {} for x in v["infos"].values())
    assert set(v["rewards"]) == set(v["seats"])
    for entry in v["log"]:
        assert set(entry) == {"n", "seat", "action", "label", "seen", "deal", "phase", "trick"}
    assert {"phase", "to_move", "seats", "piles", "trick", "facts"} <= set(v["table"])
    assert c.get(f"/api/games/{v['id']}").json() == v

    legal = [x["name"] for x in v["legal"]]
    for agent in ("heuristic", "random"):
        h = c.get(f"/api/games/{v['id']}/hint", params={"agent": agent}).json()
        assert h["agent"] == agent and h["policy"] and set(h["policy"]) <= set(legal)
        assert abs(sum(h["policy"].values()) - 1) < 1e-4 or agent == "heuristic"

    rec = c.get(f"/api/games/{v['id']}/record").json()
    assert rec["redacted_for"] == "player_0" and rec["seed"] is None and rec["status"] == "unfinished"
    assert len(rec["actions"]) == len(v["log"])
    from_dict(rec)  # a valid (redacted) record

    v2 = c.post(f"/api/games/{v['id']}/actions", json={"action": legal[0]}).json()
    assert v2["log"][: len(v["log"])] == v["log"]
    assert v2["log"][len(v["log"])]["action"] == legal[0]
    assert v2["log"][len(v["log"])]["seat"] == "player_0"

    end = play_to_end(c, v2, random.Random(1))
    assert end["status"] in ("finished", "truncated") and end["legal"] == [] and end["to_move"] is None
    assert end["summary"]["deals"] and all(end["infos"].values())
    full = from_dict(c.get(f"/api/games/{v['id']}/record").json())
    verify(full)
    assert full.redacted_for is None and full.seed == 7 and full.seats == v["seats"]
    assert [a["action"] for a in redact(full, 0).actions] == [e["action"] for e in end["log"]]
    assert [a["seen"] for a in redact(full, 0).actions] == [e["seen"] for e in end["log"]]
    assert full.rewards == end["rewards"]
    # the summary lists every deal's hands as dealt
    g = load_game(name)
    assert len(end["summary"]["deals"]) == len(full.deals)
    for d, deal in zip(end["summary"]["deals"], full.deals, strict=True):
        dealt = [c_ for cards in deal_hands(g, deal).values() for c_ in cards]
        assert sorted(c_ for cards in d["hands"].values() for c_ in cards) == sorted(dealt)
    # the table at the end is the open view
    engine = restore(full).unwrapped.engine
    assert end["table"] == json.loads(json.dumps(engine.table(None)))
    # and the game takes no more moves, nor hints
    r = c.post(f"/api/games/{v['id']}/actions", json={"action": legal[0]})
    assert r.status_code == 409 and r.json()["legal"] == []
    assert c.get(f"/api/games/{v['id']}/hint").status_code == 409


def deal_hands(game, deal):
    out = {}
    for holder, card in zip(game.deal_holders(deal["dealer"]), deal["deck"], strict=True):
        out.setdefault(holder, []).append(card)
    return out


# ---- seeds, seats, decks, dealers -------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_a_seed_deals_as_env_reset_with_that_seed(c, app, name):
    for seed in (0, 12345):
        v = new_game(c, game=name, opponents=["random"], seed=seed)
        engine = app.state.games.peek(v["id"]).engine
        dealer, deck = first_deal(name, seed)
        assert engine.deal_log[0][0] == dealer
        assert [engine.deck.code(x) for x in engine.deal_log[0][1]] == deck
    # the same seed, opponents and moves give the same game
    a = new_game(c, game=name, opponents=["heuristic"], seed=99)
    b = new_game(c, game=name, opponents=["heuristic"], seed=99)
    assert a["id"] != b["id"]
    a.pop("id"), b.pop("id")
    assert a == b


def test_seat_by_name_or_number_and_one_opponent_per_seat(c):
    v = new_game(c, game="sproyte", seat="player_2", opponents=["random", "heuristic"], seed=3)
    assert v["seat"] == "player_2"
    assert v["seats"] == {"player_0": "random", "player_1": "heuristic", "player_2": "human"}
    assert v["to_move"] == "player_2"
    assert new_game(c, game="spokelse", seat=1, opponents="random", seed=3)["seat"] == "player_1"


def test_a_stacked_deck_and_dealer_deal_that_deck(c, app):
    g = load_game("sproyte")
    dealer, deck = first_deal("sproyte", 5)
    deck = deck[::-1]
    v = new_game(c, game="sproyte", opponents=["heuristic"], seed=1, dealer=2, deck=deck)
    e = app.state.games.peek(v["id"]).engine
    assert e.deal_log[0][0] == 2 and [e.deck.code(x) for x in e.deal_log[0][1]] == deck
    mine = [card for holder, card in zip(g.deal_holders(2), deck, strict=True) if holder == "player_0"]
    seat0 = v["table"]["seats"][0]["cards"]
    assert sorted(x for x in seat0 if x is not None) == sorted(mine) or v["log"]  # the hand before any move
    assert v["table"]["dealer"] == "player_2"
    # and the reset options give the same deal as env.reset(seed, options)
    assert first_deal("sproyte", 1, dealer=2, deck=deck) == (2, deck)


def test_config_options_are_applied(c):
    v = new_game(c, game="spokelse", config={"num_players": 3, "jack_points": 11}, opponents=["random"], seed=0)
    assert v["config"]["num_players"] == 3 and v["config"]["jack_points"] == 11
    assert len(v["seats"]) == 3
    v = new_game(c, game="sproyte", config={"variant": "vanlig", "exchange_quota": [2, 2, 2]}, seed=0)
    assert v["config"]["exchange_quota"] == [2, 2, 2]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"game": "chess"}, ["game", "chess", "spokelse"]),
        ({}, ["game", "required"]),
        ({"game": 3}, ["game", "string"]),
        ({"game": "spokelse", "config": {"num_players": 9}}, ["config", "num_players", "2 to 5"]),
        ({"game": "spokelse", "config": {"colour": "red"}}, ["config", "colour", "allowed options"]),
        ({"game": "spokelse", "config": [1]}, ["config", "object"]),
        ({"game": "spokelse", "seat": 5}, ["seat", "player_0..player_1"]),
        ({"game": "spokelse", "seat": "me"}, ["seat"]),
        ({"game": "spokelse", "seat": True}, ["seat"]),
        ({"game": "sproyte", "opponents": ["heuristic", "random", "random"]}, ["opponents", "2 other seats"]),
        ({"game": "sproyte", "opponents": []}, ["opponents"]),
        ({"game": "sproyte", "opponents": ["grandmaster"]}, ["opponents[0]", "grandmaster", "random, heuristic"]),
        ({"game": "sproyte", "opponents": ["ppo:/etc/passwd"]}, ["opponents[0]", "unknown agent"]),
        ({"game": "sproyte", "opponents": [3]}, ["opponents", "list of agent names"]),
        ({"game": "sproyte", "seed": -1}, ["seed"]),
        ({"game": "sproyte", "seed": 1.5}, ["seed"]),
        ({"game": "sproyte", "seed": "1"}, ["seed"]),
        ({"game": "sproyte", "dealer": 3}, ["dealer", "0..2"]),
        ({"game": "sproyte", "deck": ["AS", "AS"]}, ["deck"]),
        ({"game": "sproyte", "deck": "AS KS"}, ["deck", "list"]),
        ({"game": "sproyte", "deck": ["XX"] * 48}, ["deck", "XX"]),
        ({"game": "sproyte", "colour": "red"}, ["unknown field", "colour"]),
    ],
)
def test_bad_game_requests_are_refused_with_what_is_allowed(c, app, body, words):
    before = len(app.state.games)
    r = c.post("/api/games", json=body)
    assert r.status_code in (400, 422), r.text
    message = r.json()["error"]
    for w in words:
        assert w in message, (w, message)
    assert len(app.state.games) == before  # nothing half-created


# ---- moves ------------------------------------------------------------------------------------------------
def test_an_illegal_move_is_409_with_the_legal_moves(c, app):
    v = new_game(c, game="sproyte", opponents=["heuristic"], seed=2)
    legal = [x["name"] for x in v["legal"]]
    for bad in ("play:2C", "fly", "", "discard:" + "X" * 500):
        r = c.post(f"/api/games/{v['id']}/actions", json={"action": bad})
        assert r.status_code == 409, r.text
        assert r.json()["legal"] == legal and "legal moves" in r.json()["error"]
        assert "X" * 50 not in r.json()["error"]
    illegal = next(n for n in load_game("sproyte").action_names if n not in legal)
    r = c.post(f"/api/games/{v['id']}/actions", json={"action": illegal})
    assert r.status_code == 409 and r.json()["legal"] == legal
    for body in ({"action": 3}, {"move": legal[0]}, {"action": legal[0], "also": 1}, [legal[0]]):
        r = c.post(f"/api/games/{v['id']}/actions", json=body)
        assert r.status_code == 422, r.text
    assert c.get(f"/api/games/{v['id']}").json() == v  # nothing moved
    # any spelling of a legal move's card is taken
    card_moves = [x for x in legal if ":" in x]
    if card_moves:
        r = c.post(f"/api/games/{v['id']}/actions", json={"action": card_moves[0].lower()})
        assert r.status_code == 200


def test_hint_refuses_unknown_agents(c):
    v = new_game(c, game="spokelse", opponents=["random"], seed=1)
    r = c.get(f"/api/games/{v['id']}/hint", params={"agent": "ppo:model.zip"})
    assert r.status_code == 422 and "agents: random, heuristic, search" in r.json()["error"]
    h = c.get(f"/api/games/{v['id']}/hint", params={"agent": "search"}).json()
    assert set(h["policy"]) <= {x["name"] for x in v["legal"]} and isinstance(h["value"], float)
    assert c.get(f"/api/games/{v['id']}/hint").json()["agent"] == "heuristic"


# ---- records and replays ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def records(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    recs = record_games(folder, "sproyte", episodes=3)
    (folder / "notes.txt").write_text("not a record")
    (folder / "broken.json").write_text("{")
    return folder, recs


@pytest.fixture(scope="module")
def rc(records):
    return client(make_app(records_dir=str(records[0])))


def test_records_are_listed_and_served_by_their_names(rc, records):
    folder, recs = records
    listed = rc.get("/api/records").json()["records"]
    names = [x["name"] for x in listed]
    assert names == ["all.jsonl:0", "all.jsonl:1", "all.jsonl:2", "game0.json", "game1.json", "game2.json"]
    for x in listed:
        rec = recs[int(x["name"][-1]) if x["name"].startswith("all") else int(x["name"][4])]
        assert x == {"name": x["name"], "game": "sproyte", "status": rec.status, "moves": len(rec.actions),
                     "seats": rec.seats}  # fmt: skip
        got = rc.get(f"/api/records/{x['name']}").json()
        assert from_dict(got) == rec
    for bad in ("notes.txt", "broken.json", "all.jsonl", "game9.json", "all.jsonl:3"):
        assert rc.get(f"/api/records/{bad}").status_code == 404


def test_no_records_folder_lists_nothing(c):
    assert c.get("/api/records").json() == {"records": []}
    assert c.get("/api/records/game0.json").status_code == 404


@pytest.mark.parametrize("seat", [None, "player_0", "player_2"])
def test_replay_steps_restore_the_position_from_a_view(rc, records, seat):
    _, recs = records
    rec = recs[1]
    n = len(rec.actions)
    s = None if seat is None else int(seat[-1])
    for k in (0, 1, n // 2, n):
        q = {} if seat is None else {"seat": seat}
        data = rc.get(f"/api/replays/game1.json/step/{k}", params=q).json()
        assert data["move"] == k and data["moves"] == n
        e = restore(rec, step=k).unwrapped.engine
        viewer = None if s is None or e.terminal or e.truncated else s
        assert data["table"] == json.loads(json.dumps(e.table(viewer)))
        assert data["text"] == to_text(rec, seat=seat, step=k)
        assert len(data["log"]) == k
        if s is not None:
            view = redact(rec, s)
            assert [x["action"] for x in data["log"]] == [a["action"] for a in view.actions[:k]]
            assert [x["seen"] for x in data["log"]] == [a["seen"] for a in view.actions[:k]]
        else:
            assert [x["action"] for x in data["log"]] == [a["action"] for a in rec.actions[:k]]


def test_replay_step_errors(rc, records):
    n = len(records[1][1].actions)
    assert rc.get(f"/api/replays/game1.json/step/{n + 1}").status_code == 422
    assert rc.get("/api/replays/game1.json/step/-1").status_code == 422
    assert rc.get("/api/replays/game1.json/step/x").status_code == 422
    r = rc.get("/api/replays/game1.json/step/0", params={"seat": "player_7"})
    assert r.status_code == 422 and "player_0, player_1, player_2" in r.json()["error"]
    assert rc.get("/api/replays/nope.json/step/0").status_code == 404
    assert rc.get("/api/replays/all.jsonl:2/step/1").status_code == 200


def test_upload_and_step_a_full_record(records):
    c = client(make_app())
    rec = records[1][0]
    r = c.post("/api/replays", content=json.dumps(rec.to_dict()), headers={"content-type": "application/json"})
    assert r.status_code == 201, r.text
    name = r.json()["name"]
    data = c.get(f"/api/replays/{name}/step/5", params={"seat": "player_1"}).json()
    e = restore(rec, step=5).unwrapped.engine
    assert data["table"] == json.loads(json.dumps(e.table(1)))
    assert data["text"] == to_text(rec, seat=1, step=5)
    # an upload is this session's only
    assert client(c.app).get(f"/api/replays/{name}/step/5").status_code == 404
    # and uploads are not record files
    assert c.get(f"/api/records/{name}").status_code == 404


def test_upload_and_step_a_redacted_record(records):
    c = client(make_app())
    rec = records[1][2]
    red = redact(rec, 1)
    name = c.post("/api/replays", json=red.to_dict()).json()["name"]
    n = len(rec.actions)
    for seat in (None, "player_1"):
        q = {} if seat is None else {"seat": seat}
        data = c.get(f"/api/replays/{name}/step/{n // 2}", params=q).json()
        assert data["text"] == to_text(red, seat=1, step=n // 2)
        assert [x["action"] for x in data["log"]] == [a["action"] for a in red.actions[: n // 2]]
        table = data["table"]
        assert table["facts"]["view"] == "as dealt"
        shown = [x for s in table["seats"] for x in s["cards"] if x is not None]
        shown += [x for p in table["piles"] for x in p["cards"] if x is not None]
        assert sorted(shown) == sorted(x for x in red.deals[0]["deck"] if x is not None)
    r = c.get(f"/api/replays/{name}/step/3", params={"seat": "player_0"})
    assert r.status_code == 422 and "redacted for player_1" in r.json()["error"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("{", "not valid JSON"),
        ('{"format": "chess"}', "not a kortmiljo record"),
        ("[]", "JSON object"),
    ],
)
def test_bad_uploads_are_refused_with_the_reason(body, words):
    c = client(make_app())
    r = c.post("/api/replays", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422 and words in r.json()["error"], r.text


def test_an_upload_that_does_not_replay_is_refused(records):
    c = client(make_app())
    doc = records[1][0].to_dict()
    first = doc["actions"][0]["seat"]
    doc["actions"][0]["seat"] = "player_1" if first != "player_1" else "player_2"
    r = c.post("/api/replays", json=doc)
    assert r.status_code == 422 and "move" in r.json()["error"]


# ---- the command line --------------------------------------------------------------------------------------
def test_serve_command_line_checks_its_arguments(capsys):
    from kortmiljo.agents.serve import main, web_agents

    assert main(["--records", "/no/such/folder"]) == 2
    assert "is not a folder" in capsys.readouterr().err
    names = web_agents()
    assert names[:3] == ["random", "heuristic", "search"] and not any(":" in n for n in names)
    with pytest.raises(SystemExit):
        main(["--idle-timeout", "0"])
    with pytest.raises(SystemExit):
        main(["--max-games", "0"])
