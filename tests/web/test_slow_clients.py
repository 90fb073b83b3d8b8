"""Slow and stalled clients against the real server (cheroot behind web/gate.py), on loopback only.

Each test opens a bounded number of sockets that send a request slowly (or not at all) and checks that a normal
request still answers in well under a second while they stay open.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_server import Server, Session

pytestmark = pytest.mark.slow
SLOW = 200


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path).start()
    yield srv
    srv.stop()


def timed_get(port: int, path: str = "/api/rules", tls: bool = False) -> tuple[int, float]:
    started = time.perf_counter()
    if tls:
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            "127.0.0.1", port, timeout=10, context=ssl._create_unverified_context()
        )
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        return r.status, time.perf_counter() - started
    finally:
        conn.close()


def open_slow(port: int, count: int, first: bytes) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        if first:
            sock.sendall(first)
        socks.append(sock)
    return socks


def trickle(socks: list[socket.socket], line: bytes) -> None:
    for sock in socks:
        with contextlib.suppress(OSError):
            sock.sendall(line)


def test_two_hundred_slow_header_senders_do_not_delay_a_normal_request(server: Server) -> None:
    """Slowloris: 200 sockets each sending a header line a second; normal requests answer in well under a second."""
    socks = open_slow(server.port, SLOW, b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    try:
        times = []
        for _ in range(4):
            trickle(socks, b"X-Slow: 1\r\n")
            status, took = timed_get(server.port)
            assert status == 200
            times.append(took)
            time.sleep(0.5)
        assert max(times) < 1.0, times
        # one address may keep PER_ADDRESS requests waiting: its oldest ones were closed, its newest are still open
        from web import gate

        socks[0].settimeout(2)
        assert socks[0].recv(100) == b""
        socks[-1].settimeout(0.2)
        with pytest.raises(TimeoutError):
            socks[-1].recv(100)
        assert gate.PER_ADDRESS < SLOW
    finally:
        for sock in socks:
            sock.close()


def test_slow_bodies_and_kept_alive_slow_requests_do_not_delay_others(server: Server) -> None:
    """A body that trickles in, and a second request trickling in on a kept-alive connection, hold no thread."""
    body_socks = open_slow(
        server.port,
        SLOW // 2,
        b"POST /api/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Becher: 1\r\n"
        b"Content-Length: 1000\r\n\r\n{",
    )
    kept = open_slow(server.port, SLOW // 2, b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    try:
        for sock in kept:  # the first request is answered; the second one comes slowly
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            sock.sendall(b"GET /api/rules HTTP/1.1\r\n")
        times = []
        for _ in range(3):
            trickle(body_socks, b" ")
            trickle(kept, b"X-Slow: 1\r\n")
            status, took = timed_get(server.port)
            assert status == 200
            times.append(took)
        assert max(times) < 1.0, times
    finally:
        for sock in body_socks + kept:
            sock.close()


def test_a_request_that_never_completes_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate gives a request REQUEST_TIMEOUT seconds to arrive; after that the connection is closed unanswered.
    (cheroot and the gate in this process, with the timeout shortened, so the test takes two seconds, not fifteen.)"""
    import threading

    from cheroot import wsgi

    from web import gate

    monkeypatch.setattr(gate, "REQUEST_TIMEOUT", 1.5)

    def app(environ: dict[str, object], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
        return [b"ok"]

    server = wsgi.Server(("127.0.0.1", 0), app, numthreads=2)
    server.prepare()
    gate.install(server)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        port = server.bind_addr[1]
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(b"GET / HTTP/1.1\r\n")
        started = time.monotonic()
        assert sock.recv(100) == b""  # closed by the server, without an answer
        assert 1.0 <= time.monotonic() - started <= 4.0
        sock.close()
        status, _ = timed_get(port, "/")
        assert status == 200
    finally:
        server.stop()


def test_stalled_tls_handshakes_do_not_delay_https_requests(tmp_path: Path) -> None:
    """Connections to the HTTPS port that never send a byte, or stop halfway through the handshake, hold nothing."""
    srv = Server(tmp_path, https=True).start()
    silent = open_slow(srv.port, SLOW // 2, b"")
    half = open_slow(srv.port, SLOW // 2, b"\x16\x03\x01\x00\xff\x01")  # a ClientHello's first bytes, then nothing
    try:
        times = []
        for _ in range(3):
            status, took = timed_get(srv.port, tls=True)
            assert status == 200
            times.append(took)
        assert max(times) < 1.0, times
        plain = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        plain.sendall(b"GET /x HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n")
        assert b"301" in plain.recv(4096).split(b"\r\n", 1)[0]
        plain.close()
    finally:
        for sock in silent + half:
            sock.close()
        srv.stop()


def test_the_gate_knows_when_a_request_is_whole() -> None:
    from web import gate

    assert gate.head_end(b"GET / HTTP/1.1\r\nHost: a\r\n") == -1
    assert gate.head_end(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nxy") == len(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
    assert gate.body_length(b"POST / HTTP/1.1\r\nContent-Length: 12\r\n") == 12
    assert gate.body_length(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n") is None
    assert gate.body_length(b"POST / HTTP/1.1\r\ncontent-length: 99999999\r\n") is None
    assert gate.body_length(b"POST / HTTP/1.1\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n") is None


def test_large_bodies_trickling_to_a_refused_route_hold_no_thread(server: Server) -> None:
    """A 'photo' of 5 MB sent a byte a second to a game the sender never joined: refused at once (403) and the
    connection closed, never read to its end by a thread; 100 of them leave normal requests fast."""
    head = (
        b"POST /api/games/abcdefgh/photos HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Becher: 1\r\n"
        b"Content-Type: image/jpeg\r\nContent-Length: 5000000\r\n\r\n"
    )
    socks = open_slow(server.port, 100, head + b"x" * 1000)
    try:
        times = []
        for _ in range(3):
            trickle(socks, b"x")
            status, took = timed_get(server.port)
            assert status == 200
            times.append(took)
        assert max(times) < 1.0, times
        socks[0].settimeout(5)
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := socks[0].recv(4096):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 404") or answer.startswith(b"HTTP/1.1 403"), answer[:80]
        assert b"Connection: close" in answer
    finally:
        for sock in socks:
            sock.close()


def read_answer(sock: socket.socket, timeout: float) -> bytes:
    sock.settimeout(timeout)
    answer = b""
    with contextlib.suppress(ConnectionResetError, TimeoutError, socket.timeout):
        while chunk := sock.recv(4096):
            answer += chunk
    return answer


def test_a_joined_device_trickling_large_photos_holds_two_threads_for_a_bounded_time(server: Server) -> None:
    """The host's own machine may post photos (it owns every game): 5 MB photos sent a byte at a time are read by
    at most two workers per address (the third is refused at once with 503 busy), and each is dropped with 408 once
    it falls below the minimum pace; normal requests stay fast throughout, and the address may upload again after."""
    from web import gate

    game = Session().post(server.base + "/api/games", json={"game": "bone", "players": ["A", "B"]}).json()["game"]
    head = (
        f"POST /api/games/{game['id']}/photos HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Becher: 1\r\n"
        "Content-Type: image/jpeg\r\nContent-Length: 5000000\r\n\r\n"
    ).encode()
    started = time.monotonic()
    slow = open_slow(server.port, 2, head + b"x" * 1000)
    try:
        time.sleep(0.5)  # both are being read by a worker now
        third = open_slow(server.port, 1, head + b"x" * 1000)[0]
        answer = read_answer(third, 5)
        third.close()
        assert answer.startswith(b"HTTP/1.1 503") and b'"busy"' in answer, answer[:200]
        times = []
        answers: dict[int, bytes] = {}
        while time.monotonic() - started < gate.BODY_GRACE_S + 8 and len(answers) < 2:
            trickle(slow, b"x")
            status, took = timed_get(server.port)
            assert status == 200
            times.append(took)
            for i, sock in enumerate(slow):
                sock.settimeout(0.3)
                with contextlib.suppress(TimeoutError, socket.timeout, BlockingIOError, ConnectionResetError):
                    got = sock.recv(4096)
                    if got:
                        answers[i] = answers.get(i, b"") + got
        took_all = time.monotonic() - started
        assert len(answers) == 2, (answers, took_all)
        for answer in answers.values():
            assert answer.startswith(b"HTTP/1.1 408") and b"too slowly" in answer, answer[:200]
        assert gate.BODY_GRACE_S <= took_all < gate.BODY_GRACE_S + 8
        assert max(times) < 1.0, times
        # the slots are free again: the same address uploads a (broken) photo at full speed and gets its answer
        again = open_slow(server.port, 1, head + b"x" * 5_000_000)[0]
        answer = read_answer(again, 10)
        again.close()
        assert answer.startswith(b"HTTP/1.1 4") and not answer.startswith(b"HTTP/1.1 408"), answer[:200]
    finally:
        for sock in slow:
            sock.close()
