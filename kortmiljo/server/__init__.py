"""The web app: play against the agents in a browser, watch replays (docs/web.md).

``create_app(agent_factory=..., records_dir=...)`` gives the Starlette app (the extra
``kortmiljo[web]``; starlette is imported only when it is called); ``kortmiljo serve`` runs it on
uvicorn. The server imports the core, the env and :mod:`kortmiljo.records`, never ``agents``: the
opponents and hints come from the ``agent_factory(spec, game, seed)`` its caller hands it.
"""

from .app import create_app
from .sessions import GameSession, GameStore

__all__ = ["GameSession", "GameStore", "create_app"]
