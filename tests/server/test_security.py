"""The web app's security (docs/web.md, "Security").

* Whole games of every registered game and example configuration are played through the API,
  and every JSON answer during play is checked: every card code in the table, the text, the legal
  moves, a hint and an error message is one the human seat can locate at that moment (the
  server's engine's ``known_cards(human)``, read through ``app.state.games``), and the log equals,
  move for move, the record redacted for the human seat (``kortmiljo.records.redact``).
* Sessions: another session gets 404 exactly as for an unknown id; ids are 128-bit random;
  cookies are HttpOnly and SameSite=Strict, and only ids the server issued are accepted.
* Limits: bodies over 64 KiB (uploads over 4 MiB) are 413 before they are parsed; malformed JSON
  400; other content types 415; idle games are stopped; a full server evicts an idle game or
  answers 503; record names that are not listed (traversal, links out of the folder) are 404.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter

import pytest

from kortmiljo.core.cards import KILLE_NAMES, KILLE_RANKS
from kortmiljo.records import redact

from ..conformance.games import conformance_cases
from . import client, make_app, opponent_for, record_games

CASES = conformance_cases()
FRENCH_CODE = re.compile(r"(?<![A-Za-z0-9])(10|[A2-9TJQK])([SHDC])(?![A-Za-z0-9])")
FRENCH_PRETTY = re.compile(r"(10|[A2-9JQK])([♠♥♦♣])")
SYMBOL = dict(zip("♠♥♦♣", "SHDC", strict=True))
KILLE_WORDS = {w.lower(): code for w, code in zip(KILLE_NAMES, KILLE_RANKS, strict=True) if not w.isdigit()}
KILLE_WORDS.update({code: code for code in KILLE_RANKS if not code.isdigit()})
KILLE_WORDS["värdshus"] = "vardshus"


class Checker:
    """Checks the answers of one game against the server's own engine."""

    def __init__(self, app, game_id: str):
        self.app = app
        self.id = game_id
        self.logs: list[list[dict]] = []
        self.responses = 0

    @property
    def session(self):
        return self.app.state.games.peek(self.id)

    def known(self) -> Counter:
        s = self.session
        return Counter(s.engine.deck.code(c) for c in s.engine.known_cards(s.seat))

    def codes_in_text(self, text: str) -> list[str]:
        deck = self.session.engine.deck
        if deck.kille:
            return [KILLE_WORDS[w.lower()] for w in re.findall(r"[A-Za-zÄäÅåÖö]+", text) if w.lower() in KILLE_WORDS]
        out = [("T" if r == "10" else r) + s for r, s in FRENCH_CODE.findall(text)]
        out += [("T" if r == "10" else r) + SYMBOL[s] for r, s in FRENCH_PRETTY.findall(text)]
        return out

    def codes_in_data(self, data) -> list[str]:
        """Every string in ``data`` that is a card code of the game's deck."""
        deck = self.session.engine.deck
        codes = {deck.code(c) for c in deck.cards}
        out: list[str] = []

        def walk(x):
            if isinstance(x, dict):
                for v in x.values():
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
            elif isinstance(x, str) and x in codes:
                out.append(x)

        walk(data)
        return out

    def located(self, codes, where: str, multiset: bool = False) -> None:
        known = self.known()
        if multiset:
            extra = Counter(codes) - known
        else:
            extra = {c for c in codes if c not in known}
        assert not extra, f"{where} shows {sorted(extra)}, which the human cannot locate"

    def view(self, v: dict) -> None:
        """One view answered during play."""
        self.responses += 1
        if v["status"] != "playing":
            return
        assert v["summary"] is None and all(x == {} for x in v["infos"].values())
        table = v["table"]
        self.located(self.codes_in_data(table), "the table")
        # each card lies in one place: a hand, a pile or the trick (facts may name one again)
        places = [s["cards"] for s in table["seats"]] + [p["cards"] for p in table["piles"]] + [table["trick"]]
        self.located(self.codes_in_data(places), "the table's places", multiset=True)
        self.located(self.codes_in_text(v["text"]), "the text")
        game = self.session.game
        self.located([c for x in v["legal"] if (c := game.named_card(x["name"]))], "the legal moves")
        self.located(self.codes_in_text(json.dumps(v["legal"], ensure_ascii=False)), "the legal labels")
        assert v["legal"] == [] or v["to_move"] == v["seat"]
        self.logs.append(v["log"])

    def error(self, data: dict) -> None:
        self.located(self.codes_in_text(data["error"]), "an error message")
        self.located(self.codes_in_data(data.get("legal", [])), "an error's legal moves")

    def record(self, data: dict) -> None:
        """The record answered during play: the full record so far, redacted for the human."""
        s = self.session
        want = redact(s.record(), s.seat).to_dict()
        data, want = dict(data), dict(want)
        data.pop("created"), want.pop("created")
        assert data == want

    def finish(self) -> None:
        """Every log answered equals the human's redacted view of the moves so far."""
        s = self.session
        view = redact(s.record(), s.seat)
        expected = [(a["seat"], a["action"], a["seen"], a["deal"]) for a in view.actions]
        for log in self.logs:
            got = [(x["seat"], x["action"], x["seen"], x["deal"]) for x in log]
            assert got == expected[: len(got)]
            assert [x["n"] for x in log] == list(range(len(log)))


def play_checked(app, c, case, seed: int, rng: random.Random, max_moves: int = 3000) -> dict:
    body = {"game": case.name, "config": case.config, "opponents": [opponent_for(case.name)], "seed": seed}
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    v = r.json()
    check = Checker(app, v["id"])
    check.view(v)
    check.record(c.get(f"/api/games/{v['id']}/record").json())
    for i in range(max_moves):
        if v["status"] != "playing":
            break
        gid = v["id"]
        if i % 7 == 0:  # an illegal move: the error holds only the human's legal moves
            legal = {x["name"] for x in v["legal"]}
            bad = (
                next(n for n in check.session.game.action_names if n not in legal)
                if len(legal) < len(check.session.game.action_names)
                else "nonsense"
            )
            r = c.post(f"/api/games/{gid}/actions", json={"action": bad})
            assert r.status_code == 409
            check.error(r.json())
        if i % 11 == 0:
            h = c.get(f"/api/games/{gid}/hint", params={"agent": "random"})
            assert h.status_code == 200
            assert set(h.json()["policy"]) <= {x["name"] for x in v["legal"]}
            check.view(c.get(f"/api/games/{gid}").json())
        if i % 13 == 0:
            check.record(c.get(f"/api/games/{gid}/record").json())
        r = c.post(f"/api/games/{gid}/actions", json={"action": rng.choice(v["legal"])["name"]})
        assert r.status_code == 200, r.text
        v = r.json()
        check.view(v)
    else:
        raise AssertionError(f"{case.id}: the game did not end within {max_moves} moves")
    check.finish()
    return v


@pytest.fixture(scope="module")
def app():
    return make_app()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_answer_during_play_shows_only_cards_the_human_can_locate(app, case):
    c = client(app)
    rng = random.Random(case.seed)
    seats = case.game().num_players
    for k, seed in enumerate((case.seed, case.seed + 1)):
        end = play_checked(app, c, case, seed, rng)
        assert end["status"] in ("finished", "truncated")
        assert end["summary"] is not None
        if case.long:
            break
        # another seat too
        if k == 0 and seats > 1:
            case_seat = dict(case.config)
            body = {"game": case.name, "config": case_seat, "seat": seats - 1, "opponents": ["random"], "seed": 5}
            r = c.post("/api/games", json=body)
            assert r.status_code == 201
            chk = Checker(app, r.json()["id"])
            chk.view(r.json())


# ---- sessions and ids ---------------------------------------------------------------------------------
def test_another_session_gets_404_as_for_an_unknown_id(app):
    mine, theirs = client(app), client(app)
    v = mine.post("/api/games", json={"game": "sproyte", "seed": 1}).json()
    mine.get("/api/catalog")
    gid = v["id"]
    unknown = theirs.get("/api/games/" + "A" * 22)
    assert unknown.status_code == 404
    for method, path, body in (
        ("GET", f"/api/games/{gid}", None),
        ("POST", f"/api/games/{gid}/actions", {"action": v["legal"][0]["name"]}),
        ("GET", f"/api/games/{gid}/hint", None),
        ("GET", f"/api/games/{gid}/record", None),
    ):
        r = theirs.request(method, path, json=body)
        assert r.status_code == 404 and r.json() == unknown.json(), (path, r.text)
    assert mine.get(f"/api/games/{gid}").json() == v  # untouched


def test_ids_are_128_bit_random_and_cookies_strict(app):
    ids = set()
    for _ in range(40):
        c = client(app)
        r = c.post("/api/games", json={"game": "spokelse", "opponents": ["random"]})
        cookie = r.headers["set-cookie"]
        assert re.fullmatch(r"kortmiljo_session=[A-Za-z0-9_-]{22}; Path=/; HttpOnly; SameSite=Strict", cookie)
        gid = r.json()["id"]
        assert re.fullmatch(r"[A-Za-z0-9_-]{22}", gid)
        ids.add(gid)
        ids.add(c.cookies["kortmiljo_session"])
    assert len(ids) == 80
    # 22 URL-safe characters: 132 bits, of which secrets.token_urlsafe(16) fills 128 at random
    bits = "".join(format(b, "08b") for gid in ids for b in __import__("base64").urlsafe_b64decode(gid + "=="))
    ones = bits.count("1") / len(bits)
    assert 0.45 < ones < 0.55


def test_a_cookie_the_server_did_not_issue_is_replaced(app):
    c = client(app)
    c.cookies.set("kortmiljo_session", "attacker-chosen-value-0")
    assert "set-cookie" not in c.get("/api/catalog").headers  # reading makes no session
    r = c.post("/api/games", json={"game": "spokelse", "opponents": ["random"]})
    assert "set-cookie" in r.headers and "attacker-chosen" not in r.headers["set-cookie"]
    r2 = c.post("/api/games", json={"game": "spokelse", "opponents": ["random"]})
    assert r2.status_code == 201 and "set-cookie" not in r2.headers  # the issued one is kept


def test_security_headers(app):
    r = client(app).get("/api/catalog")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["cache-control"] == "no-store"


def test_host_header_is_checked_when_allowed_hosts_are_given():
    c = client(make_app(allowed_hosts=["127.0.0.1", "localhost"]))
    assert c.get("/api/catalog", headers={"host": "evil.example"}).status_code == 400
    assert c.get("/api/catalog", headers={"host": "localhost:8000"}).status_code == 200
    assert c.get("/api/catalog", headers={"host": "127.0.0.1:8000"}).status_code == 200


# ---- bodies -----------------------------------------------------------------------------------------------
def test_oversized_bodies_are_413_before_parsing(app):
    c = client(app)
    big = b'{"game": "sproyte", "config": {}, "x": "' + b"a" * (64 * 1024) + b'"}'
    r = c.post("/api/games", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "65,536" in r.json()["error"]

    def chunks():  # no Content-Length: refused while it streams
        for _ in range(100):
            yield b" " * 1024

    r = c.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    r = c.post("/api/replays", content=b" " * (4 * 1024 * 1024 + 1), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "4,194,304" in r.json()["error"]
    v = c.post("/api/games", json={"game": "sproyte", "seed": 1}).json()
    r = c.post(
        f"/api/games/{v['id']}/actions", content=b" " * (65 * 1024), headers={"content-type": "application/json"}
    )
    assert r.status_code == 413


@pytest.mark.parametrize(
    ("body", "ctype", "status"),
    [
        (b"{", "application/json", 400),
        (b'{"game": "sproyte",}', "application/json", 400),
        (b'{"game": "sproyte", "game": "spokelse"}', "application/json", 400),
        (b'{"game": "sproyte", "seed": NaN}', "application/json", 400),
        (b"\xff\xfe", "application/json", 400),
        (b"[" * 20000 + b"]" * 20000, "application/json", 400),
        (b'"sproyte"', "application/json", 400),
        (b'{"game": "sproyte"}', "text/plain", 415),
        (b'{"game": "sproyte"}', "application/x-www-form-urlencoded", 415),
    ],
)
def test_malformed_bodies_are_refused(app, body, ctype, status):
    before = len(app.state.games)
    r = client(app).post("/api/games", content=body, headers={"content-type": ctype})
    assert r.status_code == status, r.text
    assert r.json()["error"]
    assert len(app.state.games) == before


def test_unknown_routes_and_methods_answer_json(app):
    c = client(app)
    assert c.get("/api/nothing").status_code == 404 and c.get("/api/nothing").json()["error"]
    r = c.delete("/api/games")
    assert r.status_code in (404, 405) and r.json()["error"]


# ---- idle games and a full server ---------------------------------------------------------------------------
class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def test_idle_games_are_stopped_after_the_timeout():
    clock = Clock()
    app = make_app(idle_timeout=100, clock=clock)
    c = client(app)
    a = c.post("/api/games", json={"game": "sproyte", "seed": 1}).json()["id"]
    clock.t += 60
    b = c.post("/api/games", json={"game": "sproyte", "seed": 2}).json()["id"]
    clock.t += 50  # a: 110 s idle, b: 50 s
    assert c.get(f"/api/games/{a}").status_code == 404
    assert c.get(f"/api/games/{b}").status_code == 200
    clock.t += 99
    assert c.get(f"/api/games/{b}").status_code == 200  # each request keeps it alive
    assert len(app.state.games) == 1


def test_a_full_server_evicts_the_oldest_idle_game_or_answers_503():
    clock = Clock()
    app = make_app(max_games=2, idle_timeout=1000, idle_after=60, clock=clock)
    c = client(app)
    a = c.post("/api/games", json={"game": "sproyte", "seed": 1}).json()["id"]
    clock.t += 10
    b = c.post("/api/games", json={"game": "sproyte", "seed": 2}).json()["id"]
    r = c.post("/api/games", json={"game": "sproyte", "seed": 3})
    assert r.status_code == 503 and "full" in r.json()["error"]
    assert len(app.state.games) == 2
    clock.t += 55  # a: 65 s idle, b: 55 s
    d = c.post("/api/games", json={"game": "sproyte", "seed": 4})
    assert d.status_code == 201
    assert c.get(f"/api/games/{a}").status_code == 404
    assert c.get(f"/api/games/{b}").status_code == 200
    # a game that has ended is idle at once
    v = c.get(f"/api/games/{b}").json()
    from . import play_to_end

    play_to_end(c, v, random.Random(0))
    assert c.post("/api/games", json={"game": "sproyte", "seed": 5}).status_code == 201
    assert c.get(f"/api/games/{b}").status_code == 404


# ---- record names -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def records_app(tmp_path_factory):
    root = tmp_path_factory.mktemp("sandbox")
    folder = root / "records"
    folder.mkdir()
    record_games(folder, "spokelse", episodes=1)
    secret = root / "secret.json"
    secret.write_text((folder / "game0.json").read_text())
    os.symlink(secret, folder / "escape.json")  # a link out of the folder
    os.symlink(folder / "game0.json", folder / "inside.json")  # a link within it
    (folder / ".hidden.json").write_text((folder / "game0.json").read_text())
    sub = folder / "sub"
    sub.mkdir()
    (sub / "deep.json").write_text((folder / "game0.json").read_text())
    return make_app(records_dir=str(folder)), folder


def test_only_listed_record_names_are_served(records_app):
    app, folder = records_app
    c = client(app)
    names = [x["name"] for x in c.get("/api/records").json()["records"]]
    assert names == ["all.jsonl:0", "game0.json", "inside.json"]
    for bad in (
        "escape.json",
        ".hidden.json",
        "sub",
        "..",
        ".",
        "..%2Fsecret.json",
        "%2E%2E%2Fsecret.json",
        "sub%2Fdeep.json",
        "%2Fetc%2Fpasswd",
        "..%5Csecret.json",
        str(folder / "game0.json").replace("/", "%2F"),
        "game0.json%00",
    ):
        for path in (f"/api/records/{bad}", f"/api/replays/{bad}/step/0"):
            r = c.get(path)
            listing = r.status_code == 200 and "records" in r.json()  # the client made "/records/." "/records"
            assert r.status_code in (400, 404) or listing, (path, r.status_code)
            assert "secret" not in r.text and str(folder) not in r.text
    # paths as a client that does not normalise them sends them (uvicorn decodes %2F into the path)
    for raw in (
        b"/api/records/../secret.json",
        b"/api/records/..%2Fsecret.json",
        b"/api/records//etc/passwd",
        b"/api/records/%2E%2E",
        b"/api/replays/..%2F..%2Fsecret.json/step/0",
        b"/../secret.json",
        b"/static/../../secret.json",
        b"/%2E%2E/secret.json",
    ):
        status, body = raw_get(app, raw)
        assert status in (400, 404), (raw, status)
        assert b"kortmiljo-record" not in body
    assert c.get("/api/records/game0.json").status_code == 200


def raw_get(app, raw_path: bytes) -> tuple[int, bytes]:
    """A GET straight to the ASGI app, the path not normalised (as uvicorn passes it on)."""
    import asyncio
    from urllib.parse import unquote

    out: dict = {"body": b""}
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": unquote(raw_path.decode("latin-1")), "raw_path": raw_path, "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 1), "server": ("testserver", 80),
    }  # fmt: skip

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    asyncio.run(app(scope, receive, send))
    return out["status"], out["body"]


def test_record_errors_do_not_name_the_servers_paths(records_app):
    app, folder = records_app
    r = client(app).get("/api/replays/game0.json/step/0", params={"seat": "player_9"})
    assert r.status_code == 422 and str(folder) not in r.json()["error"] and "game0.json" in r.json()["error"]


def test_uploads_are_bounded_per_session():
    import tempfile
    from pathlib import Path

    from kortmiljo.records import dumps

    c = client(make_app(max_uploads=3))
    with tempfile.TemporaryDirectory() as d:
        rec = record_games(Path(d), "spokelse", episodes=1)[0]
    names = [c.post("/api/replays", content=dumps(rec), headers={"content-type": "application/json"}).json()["name"]
             for _ in range(5)]  # fmt: skip
    assert len(set(names)) == 5
    alive = [n for n in names if c.get(f"/api/replays/{n}/step/0").status_code == 200]
    assert alive == names[-3:]


# ---- the checks catch leaks ----------------------------------------------------------------------------------
def test_the_checks_catch_a_table_that_shows_hidden_cards(app, monkeypatch):
    c = client(app)
    v = c.post("/api/games", json={"game": "sproyte", "seed": 3}).json()
    check = Checker(app, v["id"])
    check.view(v)
    engine = check.session.engine
    honest = type(engine).table
    monkeypatch.setattr(type(engine), "table", lambda self, viewer=None: honest(self, None))
    with pytest.raises(AssertionError, match="cannot locate"):
        check.view(c.get(f"/api/games/{v['id']}").json())


def test_the_checks_catch_a_log_that_names_hidden_moves(app, monkeypatch):
    from kortmiljo.core.registry import load_game

    game_cls = type(load_game("sproyte"))
    monkeypatch.setattr(game_cls, "public_action_name", lambda self, a: self.action_names[a])
    c = client(app)
    v = c.post("/api/games", json={"game": "sproyte", "seed": 3, "seat": 2}).json()  # others discard first
    check = Checker(app, v["id"])
    check.view(v)
    assert any(x["action"].startswith("discard:") and x["action"] != "discard:?" for x in v["log"])
    monkeypatch.undo()
    with pytest.raises(AssertionError):
        check.finish()
