"""``kortmiljo serve``'s connection bounds (kortmiljo.server.serving): a cap on open connections,
per client address too, and a read timeout for idle and half-sent requests, on a real uvicorn
server over loopback sockets."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from . import make_app

pytest.importorskip("uvicorn")

from kortmiljo.server import serving  # noqa: E402

READ_TIMEOUT = 0.5
WAIT = 20.0  # how long a test waits for the server to close a socket (a bound, not a measurement)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    import uvicorn

    port = _free_port()
    config = serving.config(
        make_app(), "127.0.0.1", port, max_connections=6, max_per_client=3, read_timeout=READ_TIMEOUT
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield port
    srv.should_exit = True
    thread.join(10)


def connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(WAIT)
    return s


def closed_by_server(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (raises if it does not in WAIT s)."""
    out = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            return out
        out += chunk


def get(port: int, path: str = "/api/catalog") -> bytes:
    with connect(port) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        return closed_by_server(s)


def settle(port: int) -> None:
    """Wait until the server has let go of the sockets of an earlier test."""
    for _ in range(200):
        if get(port).startswith(b"HTTP/1.1 200"):
            return
        time.sleep(0.05)


def test_an_idle_connection_is_closed_after_the_read_timeout(server):
    settle(server)
    with connect(server) as s:
        assert closed_by_server(s) == b""  # nothing sent, nothing answered: closed


def test_a_request_head_sent_a_byte_at_a_time_is_cut_off(server):
    settle(server)
    with connect(server) as s:
        s.sendall(b"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sent = 0
        try:
            for _ in range(int(WAIT / 0.05)):
                s.sendall(b"X")  # a header that never ends
                sent += 1
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass
        else:
            raise AssertionError("the server kept reading a request head that never ended")
        assert sent * 0.05 < WAIT


def test_connections_over_the_cap_get_503_and_are_closed(server):
    settle(server)
    held = [connect(server) for _ in range(3)]  # the per-client cap
    try:
        with connect(server) as extra:
            answer = closed_by_server(extra)
        assert answer.startswith(b"HTTP/1.1 503") and b"too many open connections" in answer
    finally:
        for s in held:
            s.close()
    settle(server)  # the server is whole again
    assert get(server).startswith(b"HTTP/1.1 200")


def test_a_kept_alive_connection_serves_requests_then_times_out(server):
    settle(server)
    with connect(server) as s:
        for _ in range(3):
            s.sendall(b"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = s.recv(65536)
            assert head.startswith(b"HTTP/1.1 200")
            length = int(head.split(b"content-length: ")[1].split(b"\r\n")[0])
            body = head.split(b"\r\n\r\n", 1)[1]
            while len(body) < length:
                body += s.recv(65536)
        assert closed_by_server(s) == b""


def test_the_bounds_are_checked():
    with pytest.raises(ValueError, match="max_connections"):
        serving.bounded_protocol(max_connections=0)
    with pytest.raises(ValueError, match="read_timeout"):
        serving.bounded_protocol(read_timeout=float("nan"))
