"""Tests of the web app (kortmiljo.server, docs/web.md), and what they share: the app with the
package's agents, a client per browser session, random play by the "human", a records folder."""

from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette 1.x notes that httpx2 will replace httpx in its TestClient
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from kortmiljo.agents.registry import available_agents, make_agent  # noqa: E402

from kortmiljo.core.registry import load_game  # noqa: E402
from kortmiljo.env.aec import CardGameEnv, OrderEnforcing  # noqa: E402
from kortmiljo.records import RecordEpisode, save  # noqa: E402
from kortmiljo.server import create_app  # noqa: E402

AGENTS = ["random", "heuristic", "search"]


def factory(spec: str, game, seed):
    return make_agent(spec, game, seed=seed)


def make_app(**kwargs: Any):
    kwargs.setdefault("agent_factory", factory)
    kwargs.setdefault("agents", AGENTS)
    kwargs.setdefault("move_pad", 0)  # the pacing has tests of its own; the others need no wait
    return create_app(**kwargs)


def client(app) -> TestClient:
    """A client with a cookie jar of its own: one browser session."""
    return TestClient(app)


def opponent_for(game: str) -> str:
    """``heuristic`` where the game has one (the package's games), else ``random`` (the toy)."""
    return "heuristic" if "heuristic" in available_agents(game) else "random"


def play_to_end(c: TestClient, view: dict, rng: random.Random, each=None, max_moves: int = 5000) -> dict:
    """Random legal moves by the human until the game ends; ``each(response)`` sees every answer."""
    for _ in range(max_moves):
        if view["status"] != "playing":
            return view
        assert view["legal"], "the human is on move while the game runs"
        move = rng.choice(view["legal"])["name"]
        r = c.post(f"/api/games/{view['id']}/actions", json={"action": move})
        assert r.status_code == 200, r.text
        if each is not None:
            each(r)
        view = r.json()
    raise AssertionError(f"the game did not end within {max_moves} moves")


def first_deal(game_name: str, seed: int, config: dict | None = None, **options: Any):
    """``(dealer, deck codes)`` of the first deal of ``env.reset(seed=seed)`` of the plain env."""
    env = OrderEnforcing(CardGameEnv(load_game(game_name, **(config or {}))))
    env.reset(seed=seed, options=options or None)
    e = env.unwrapped.engine
    dealer, deck = e.deal_log[0]
    return dealer, [e.deck.code(c) for c in deck]


def record_games(folder: Path, game_name: str = "sproyte", episodes: int = 3, seed: int = 0) -> list:
    """Random games of ``game_name`` recorded with RecordEpisode and saved in ``folder``: one
    ``.json`` file per game and one ``.jsonl`` of all of them. Their records."""
    game = load_game(game_name)
    env = RecordEpisode(OrderEnforcing(CardGameEnv(game)), seats={"player_0": "random"})
    rng = np.random.default_rng(seed)
    records = []
    for ep in range(episodes):
        env.reset(seed=seed + ep)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        rec = env.last_record
        save(rec, folder / f"game{ep}.json")
        records.append(rec)
    save(records, folder / "all.jsonl")
    return records
