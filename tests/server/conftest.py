"""Fixtures of the browser tests: a real uvicorn server on a free loopback port, a ``--records``
folder of a few recorded games, and a headless Chromium driven by Playwright.

The browser tests are skipped, with the reason, where Playwright or a ``chromium`` on the PATH is
missing, unless ``KORTMILJO_REQUIRE_BROWSER`` is set (CI sets it): then a missing browser fails.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
REQUIRE = bool(os.environ.get("KORTMILJO_REQUIRE_BROWSER"))

# the recorded games of the --records folder: (file name, game, config, seed, annotated)
RECORDS = (
    ("sproyte-annotated.json", "sproyte", {}, 11, True),
    ("spokelse-plain.json", "spokelse", {}, 12, False),
    ("femkortskille-plain.json", "femkortskille", {}, 13, False),
)


def missing_browser() -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    why = []
    for module, pip in (("playwright.sync_api", "playwright"), ("starlette", "starlette"), ("uvicorn", "uvicorn")):
        try:
            import_module(module)
        except ImportError:
            why.append(f"{pip} is not installed (pip install {pip})")
    if shutil.which("chromium") is None:
        why.append("no `chromium` on the PATH (apt-get install chromium)")
    return "; ".join(why) or None


def need_browser() -> None:
    why = missing_browser()
    if why is None:
        return
    if REQUIRE:
        pytest.fail(f"KORTMILJO_REQUIRE_BROWSER is set but the browser tests cannot run: {why}")
    pytest.skip(f"browser tests skipped: {why} (set KORTMILJO_REQUIRE_BROWSER=1 to make this a failure)")


def agent_factory(spec: str, game: Any, seed: int | None = None) -> Any:
    """The server's agent factory: ``kortmiljo.agents.registry.make_agent`` for a configured game."""
    from kortmiljo.agents.registry import make_agent

    return make_agent(spec, game, seed=seed)


def record_game(game: str, config: dict, seed: int, annotated: bool):
    """One seeded episode of random legal play, recorded (with made-up annotations on request)."""
    from kortmiljo.core.registry import game_def, load_game
    from kortmiljo.records import RecordEpisode

    n = load_game(game, **config).num_players
    env = RecordEpisode(
        import_module(f"kortmiljo.{game_def(game).env_name}").env(**config),
        seats={f"player_{i}": "random" for i in range(n)},
    )
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if annotated:
            w = rng.random(len(legal)) + 0.05
            env.annotate({int(a): float(p) for a, p in zip(legal, w / w.sum(), strict=True)}, float(rng.uniform(-1, 1)))
        env.step(int(rng.choice(legal)))
        del agent
    return env.last_record


@pytest.fixture(scope="session")
def records_dir(tmp_path_factory) -> Path:
    from kortmiljo.records import save

    folder = tmp_path_factory.mktemp("records")
    for name, game, config, seed, annotated in RECORDS:
        save(record_game(game, config, seed, annotated), folder / name)
    return folder


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """A uvicorn server of the web app in a background thread."""

    def __init__(self, app: Any):
        import uvicorn

        self.app = app
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="kortmiljo-test-server", daemon=True)

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    def game(self, game_id: str):
        """The server-side game (its engine and record), read from the app's store without touching it."""
        return self.app.state.games.peek(game_id)


# module scope: the browser tests live in one module, and Playwright's sync API keeps an event loop
# marked running in this thread while it is open, which asyncio.run() in later modules refuses
@pytest.fixture(scope="module")
def live_server(records_dir) -> Iterator[LiveServer]:
    need_browser()
    from kortmiljo.server import create_app

    app = create_app(agent_factory=agent_factory, records_dir=records_dir, move_pad=0)
    server = LiveServer(app).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser, live_server) -> Iterator[Any]:
    """A fresh browser context (a new ``kortmiljo_session``) on the app, pace 0."""
    context = browser.new_context(viewport={"width": 1280, "height": 860}, base_url=live_server.url)
    context.set_default_timeout(15_000)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.errors = errors  # the test checks no script error happened
    yield pg
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
