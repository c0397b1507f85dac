"""Serving the web app on uvicorn with a bound on connections and a read timeout.

uvicorn (0.55) bounds neither: its ``limit_concurrency`` answers 503 only once a request has
arrived, so connections that send nothing (or half a request line, a byte a minute) are held
forever, each an open file, until the process runs out of them and locks everyone out; its
keep-alive timeout starts only after a first answer. :func:`bounded_protocol` is uvicorn's own
h11 protocol with three checks added where the connection is made and where each answer ends:

* at most ``max_connections`` open connections, and ``max_per_client`` from one client address:
  a connection over either is answered ``503`` and closed at once, before it is read;
* ``read_timeout`` seconds for a request's line and headers to arrive, from the moment the
  connection opens or the previous answer ends: a connection that has not sent a whole request
  head by then is closed (the body has its own limit, :func:`kortmiljo.server.requests.read_body`);
* the size of a request head stays uvicorn's (``h11_max_incomplete_event_size``, 16 KiB).

A reverse proxy in front (docs/web.md, "Security model") does the same and more; these bounds keep
the server whole where there is none. :func:`run` is ``kortmiljo serve``'s entry.
"""

from __future__ import annotations

import asyncio
from typing import Any

DEFAULT_MAX_CONNECTIONS = 256
DEFAULT_MAX_PER_CLIENT = 32
DEFAULT_READ_TIMEOUT = 10.0

_BUSY_BODY = b'{"error":"too many open connections; try again in a moment"}'
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n"
    b"content-length: %d\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY)
)


class Bounds:
    """What :func:`bounded_protocol` adds to uvicorn's ``H11Protocol`` (see the module docstring): a
    mixin, so that this module imports uvicorn only when a server is made. The bounds are class
    attributes, set by :func:`bounded_protocol`."""

    max_connections = DEFAULT_MAX_CONNECTIONS
    max_per_client = DEFAULT_MAX_PER_CLIENT
    read_timeout = DEFAULT_READ_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._read_timer: asyncio.TimerHandle | None = None
        host = self.client[0] if self.client else None
        same = sum(1 for c in self.connections if getattr(c, "client", None) and c.client[0] == host)
        if len(self.connections) > self.max_connections or (host is not None and same > self.max_per_client):
            transport.write(_BUSY)
            transport.close()
            return
        self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._read_timer = self.loop.call_later(self.read_timeout, self._on_read_timeout)

    def _disarm(self) -> None:
        timer = getattr(self, "_read_timer", None)
        if timer is not None:
            timer.cancel()
            self._read_timer = None

    def _on_read_timeout(self) -> None:
        self._read_timer = None
        if self.cycle is None or self.cycle.response_complete:  # no request head has come since
            if not self.transport.is_closing():
                self.transport.close()

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle and self.cycle is not None:  # a whole request head arrived
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def bounded_protocol(
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    max_per_client: int = DEFAULT_MAX_PER_CLIENT,
    read_timeout: float = DEFAULT_READ_TIMEOUT,
) -> type:
    """uvicorn's ``H11Protocol`` with :class:`Bounds` and these bounds (for ``uvicorn.Config(http=...)``)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    for name, value in (("max_connections", max_connections), ("max_per_client", max_per_client)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1_000_000:
            raise ValueError(f"{name} must be an int from 1 to 1,000,000, got {value!r}")
    if not (isinstance(read_timeout, (int, float)) and 0 < read_timeout <= 3600):
        raise ValueError(f"read_timeout must be a number of seconds from 0 to 3600 (not 0), got {read_timeout!r}")
    attrs = {"max_connections": max_connections, "max_per_client": max_per_client, "read_timeout": float(read_timeout)}
    return type("Bounds", (Bounds, H11Protocol), attrs)


def config(app: Any, host: str, port: int, **bounds: Any):
    """The ``uvicorn.Config`` that serves ``app`` with :func:`bounded_protocol`'s ``bounds``."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=bounded_protocol(**bounds),
        log_level="warning",
        access_log=False,
        server_header=False,
        timeout_keep_alive=5,
    )


def run(app: Any, host: str, port: int, **bounds: Any) -> None:
    """Serve ``app`` until interrupted (``kortmiljo serve``)."""
    import uvicorn

    uvicorn.Server(config(app, host, port, **bounds)).run()


__all__ = [
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_MAX_PER_CLIENT",
    "DEFAULT_READ_TIMEOUT",
    "Bounds",
    "bounded_protocol",
    "config",
    "run",
]
