"""What a seat is shown while a game runs is a function of the seat's information alone.

For every registered game and example configuration, pairs of deals that one seat cannot tell
apart (:mod:`tests.conformance.indistinguishable`: hidden cards swapped between places the seat
cannot see, the same moves replayed, the seat's observations equal at every step) are played
through the web app, with the seat as the human and opponents that replay the deal's moves. At
every one of the human's turns the game view (its table and text), the in-play record (redacted
for the human), the hints and the answer to the human's move are fetched, and each answer, its
status and its headers must be equal within the pair, byte for byte, apart from the game's own id.
A difference means the answer depends on a card the seat cannot locate: the test compares deals,
not our own ``redact()``, so it finds a leak in ``redact()`` as well.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from kortmiljo.agents.registry import available_agents, make_agent

from tests.conformance.games import conformance_cases
from tests.conformance.indistinguishable import Deal, pairs

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from kortmiljo.server import create_app  # noqa: E402

CASES = conformance_cases()
SEED = 7
HINTS_AT = 3  # hints are asked at the human's first few turns (a search hint costs a search)
SKIP_HEADERS = {"date", "set-cookie"}  # the clock, and the session (a cookie per client)


class Script:
    """The opponents of one game: they play the deal's moves in order."""

    def __init__(self, game, moves: tuple[str, ...]):
        self.game, self.moves, self.at = game, moves, 0

    def next(self) -> str:
        if self.at >= len(self.moves):
            raise AssertionError("the script ran out of moves")
        self.at += 1
        return self.moves[self.at - 1]


class Scripted:
    def __init__(self, script: Script):
        self.script = script

    def act(self, obs, engine=None) -> int:
        return self.script.game.action_from_string(self.script.next())


def human_turns(game, deal: Deal, seat: int) -> list[int]:
    """The indices of ``deal``'s moves that ``seat`` makes."""
    e = game.new_state()
    e.new_episode(np.random.default_rng(0), **deal.options)
    turns = []
    for i, name in enumerate(deal.moves):
        if e.current_player == seat:
            turns.append(i)
        e.step(game.action_from_string(name))
    return turns


def answers(case, deal: Deal, seat: int, hint_agents: list[str]) -> list[tuple]:
    """Every answer of the app (status, headers, body with the id blanked) along ``deal``."""
    game = case.game()
    script = Script(game, deal.moves)

    def factory(spec, g, seed):
        return Scripted(script) if spec == "script" else make_agent(spec, g, seed=seed)

    app = create_app(agent_factory=factory, agents=["script", *hint_agents], move_pad=0)
    c = TestClient(app)
    out = []

    def keep(r, what: str, gid: str | None) -> dict:
        body = r.content if gid is None else r.content.replace(gid.encode(), b"<id>")
        headers = sorted((k, v) for k, v in r.headers.items() if k.lower() not in SKIP_HEADERS)
        out.append((what, r.status_code, headers, body))
        return r.json()

    turns = human_turns(game, deal, seat)
    r = c.post(
        "/api/games",
        json={
            "game": case.name,
            "config": case.config,
            "seat": seat,
            "opponents": ["script"],
            "seed": SEED,
            **deal.options,
        },
    )
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    keep(r, "new game", gid)
    for k, i in enumerate(turns):
        assert script.at == i, "the opponents stopped at the human's turn"
        keep(c.get(f"/api/games/{gid}"), f"view at move {i}", gid)
        keep(c.get(f"/api/games/{gid}/record"), f"record at move {i}", gid)
        for agent in hint_agents if k < HINTS_AT else ():
            keep(c.get(f"/api/games/{gid}/hint", params={"agent": agent}), f"hint of {agent} at move {i}", gid)
        if k + 1 < len(turns):  # the opponents' replies stay inside the deal's moves
            keep(c.post(f"/api/games/{gid}/actions", json={"action": script.next()}), f"move {i}", gid)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_what_a_seat_is_shown_depends_only_on_what_it_saw(case, monkeypatch):
    import kortmiljo.records.format as fmt
    import kortmiljo.records.recorder as recorder

    monkeypatch.setattr(fmt, "now", lambda: "2026-01-01T00:00:00Z")
    monkeypatch.setattr(recorder, "now", lambda: "2026-01-01T00:00:00Z")
    game = case.game()
    seat = case.index % game.num_players
    agents = available_agents(case.name)
    hint_agents = ["random"] + [a for a in ("heuristic", "search") if a in agents and not (a == "search" and case.long)]
    checked = 0
    for a, b in pairs(game, seat, case.seed, want=2):
        if not human_turns(game, a, seat):
            continue
        got_a, got_b = answers(case, a, seat, hint_agents), answers(case, b, seat, hint_agents)
        assert len(got_a) == len(got_b)
        for x, y in zip(got_a, got_b, strict=True):
            for part, u, v in zip(("status", "headers", "body"), x[1:], y[1:], strict=True):
                assert u == v, (
                    f"{case.id}, seat {seat}: the {part} of the answer ({x[0]}) differs between two deals the "
                    f"seat cannot tell apart (decks {a.options['deck']} and {b.options['deck']}):\n"
                    f"{u!r:.3000}\n{v!r:.3000}"
                )
        checked += 1
    assert checked, f"{case.id}: no pair of indistinguishable deals with a turn of seat {seat} was found"
