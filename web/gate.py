"""A front for cheroot that hands a request to a worker thread only once it has fully arrived.

cheroot gives each connection a worker thread as soon as it is accepted (or as soon as a kept-alive connection has
a byte to read), and the worker then waits for the rest of the request. A client that sends a header line a second
(slowloris) so holds a thread for as long as it likes, and a few hundred such sockets take all 64 of them. Here one
thread, the one that already accepts connections, reads every waiting request without blocking: the TLS handshake,
the request line and headers, and a body of up to ``BODY_IN_GATE`` bytes. A worker gets the connection with those
bytes already in its read buffer, so it never waits on a slow client before the app runs. A request that has not
arrived whole after ``REQUEST_TIMEOUT`` seconds is dropped, and one network address may keep at most
``PER_ADDRESS`` requests waiting (its oldest is dropped), so a flood from one machine costs only its own requests.

Larger bodies (photos and camera frames) are read by the worker after the app has checked who is sending them, so
only a device that may post them gets that far; even then it must keep a minimum pace (``BODY_MIN_RATE`` after
``BODY_GRACE_S``, else 408) and one address may have at most ``BODY_READERS_PER_ADDRESS`` such bodies being read at
once (503 ``busy`` for more), so a joined phone on a bad link, or a joined device that means harm, holds two threads
for a bounded time, never the pool.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import ssl
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from cheroot import connections, errors, wsgi
from cheroot.makefile import MakeFile
from cheroot.server import KnownLengthRFile
from werkzeug.exceptions import RequestTimeout, ServiceUnavailable

from web.say import Message

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 15.0  # seconds from the first byte (or the connection) until the request must be complete
HEAD_LIMIT = 64 * 1024  # request line and headers; a browser sends a few KB
BODY_IN_GATE = 1024 * 1024 + 64 * 1024  # JSON bodies and logs (the API's 1 MB limit) arrive whole before a worker
PER_ADDRESS = 64  # requests waiting to arrive from one network address
WAITING_LIMIT = 4096  # requests waiting in all
TLS_HANDSHAKE = 0x16  # every TLS connection opens with a handshake record
BODY_READERS_PER_ADDRESS = 2  # large bodies being read by workers at once, per network address
BODY_GRACE_S = 10.0  # a large body may start slowly (a phone's radio waking up) ...
BODY_MIN_RATE = 16 * 1024  # ... then must have arrived at this many bytes a second on average (a weak Wi-Fi does 100x)

TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: 39\r\nConnection: close\r\n\r\nThe request's headers are far too long."
)
_TOO_LARGE_JSON = (
    b'{"ok": false, "error": "The request\'s headers are far too long (at most 64 KB); send fewer or shorter ones.", '
    b'"status": 431, "code": "too_large"}'
)
TOO_LARGE_API = (  # the API's one error shape (docs/api.md), in English: the gate answers before any language is known
    b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\n"
    + f"Content-Length: {len(_TOO_LARGE_JSON)}\r\nConnection: close\r\n\r\n".encode()
    + _TOO_LARGE_JSON
)


def too_large(head: bytes | bytearray) -> bytes:
    """The 431 answer for a request whose head starts with ``head``: JSON under /api, else plain text."""
    line = bytes(head[:2048]).split(b"\r\n", 1)[0].split(b" ")
    path = line[1] if len(line) > 1 else b""
    if path.startswith(b"http://") or path.startswith(b"https://"):  # an absolute form: its path
        path = b"/" + path.split(b"/", 3)[-1] if path.count(b"/") >= 3 else b"/"
    return TOO_LARGE_API if path == b"/api" or path.startswith((b"/api/", b"/api?")) else TOO_LARGE


def head_end(buf: bytes | bytearray) -> int:
    """Where the header block ends (index after the blank line), or -1 while it is incomplete."""
    at = buf.find(b"\r\n\r\n")
    if at >= 0:
        return at + 4
    at = buf.find(b"\n\n")  # cheroot also takes bare line feeds
    return at + 2 if at >= 0 else -1


def body_length(head: bytes) -> int | None:
    """The body's length as the headers declare it; None where the worker must read it (chunked, too large, or a
    client that sends the body only after the server's "100 Continue", as curl does)."""
    length = 0
    for line in head.split(b"\n")[1:]:
        name, sep, value = line.partition(b":")
        if not sep:
            continue
        key = name.strip().lower()
        if key in (b"transfer-encoding", b"expect"):  # chunked, or a client waiting for "100 Continue" first
            return None
        if key == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                return 0  # cheroot answers 400 for it; nothing more to wait for
    return length if 0 <= length <= BODY_IN_GATE else None


class Waiting:
    """A connection whose next request is still arriving."""

    __slots__ = ("addr", "buf", "conn", "deadline", "sock", "stage")

    def __init__(self, sock: Any, addr: str, conn: Any, stage: str, buf: bytes = b"") -> None:
        self.sock = sock
        self.addr = addr
        self.conn = conn
        self.stage = stage  # "peek" (TLS port, first byte unseen), "handshake", "request", "plain" (HTTP on TLS)
        self.buf = bytearray(buf)
        self.deadline = time.monotonic() + REQUEST_TIMEOUT

    def close(self) -> None:
        """Close the connection (cheroot's own clean-up calls this on whatever its selector holds)."""
        with contextlib.suppress(OSError):
            if self.conn is not None:
                self.conn.close()
            else:
                self.sock.close()


# cheroot's stubs leave out the manager's private parts that the gate overrides; typed loosely on purpose.
_Manager: Any = connections.ConnectionManager
_Gateway10: Any = wsgi.Gateway_10


class Gate(_Manager):  # type: ignore[misc]
    """cheroot's connection manager, with requests read whole here before a worker takes them."""

    def __init__(self, server: Any, plain_on_tls: Callable[[bytes], bytes] | None = None) -> None:
        super().__init__(server)
        self._waiting: OrderedDict[int, Waiting] = OrderedDict()
        self._plain_on_tls = plain_on_tls
        self._lock = threading.RLock()  # the gate thread, and workers putting back a connection with bytes read

    # -------------------------------------------------------------------- cheroot's hooks

    def put(self, conn: Any) -> None:
        """A kept-alive connection after its answer: its next request goes through the gate too."""
        conn.last_used = time.time()
        if conn.rfile.has_data():  # pipelined bytes already read: they may be only part of a request
            rest = bytes(conn.rfile._read_buf[conn.rfile._read_pos :])
            conn.rfile._reset_read_buf()
            with self._lock:
                self._wait(Waiting(conn.socket, str(conn.remote_addr), conn, "request", rest), fresh=False)
            return
        self._selector.register(conn.socket.fileno(), selectors.EVENT_READ, data=conn)

    def _run(self, expiration_interval: float) -> None:
        last_check = time.time()
        timeout = min(expiration_interval, 0.05) if connections.IS_WINDOWS else expiration_interval
        while not self._stop_requested:
            try:
                active = list(self._selector.select(timeout=timeout))
            except OSError:
                self._remove_invalid_sockets()
                continue
            with self._lock:
                for fd, data in active:
                    if data is self.server:
                        self._accept()
                    elif isinstance(data, Waiting):
                        if self._waiting.get(fd) is data:
                            self._advance(fd, data)
                    else:  # an idle kept-alive connection has its next request coming
                        self._selector.unregister(fd)
                        self._wait(Waiting(data.socket, str(data.remote_addr), data, "request"), fresh=False)
                now = time.time()
                if now - last_check > expiration_interval:
                    self._expire(threshold=now - self.server.timeout)
                    last_check = now

    def _expire(self, threshold: float) -> None:
        idle = [
            (fd, conn)
            for fd, conn in self._selector.connections
            if conn is not self.server and not isinstance(conn, Waiting) and conn.last_used < threshold
        ]
        for fd, conn in idle:
            self._selector.unregister(fd)
            conn.close()
        now = time.monotonic()
        late = [(fd, w) for fd, w in self._waiting.items() if w.deadline < now]
        for fd, w in late:
            self._drop(fd, w)

    @property
    def _num_connections(self) -> int:
        """Idle kept-alive connections only (cheroot limits those); waiting requests have their own limits."""
        return len(self._selector) - 1 - len(self._waiting)

    def close(self) -> None:
        with self._lock:
            for fd, w in list(self._waiting.items()):
                self._drop(fd, w)
        super().close()

    # -------------------------------------------------------------------- the gate

    def _accept(self) -> None:
        try:
            sock, addr = self.server.socket.accept()
        except (BlockingIOError, InterruptedError, TimeoutError):
            return
        except OSError as exc:
            if exc.args and exc.args[0] in errors.socket_errors_to_ignore + errors.socket_errors_nonblocking:
                return
            raise
        connections.prevent_socket_inheritance(sock)
        sock.setblocking(False)
        host = str(addr[0]) if isinstance(addr, tuple) and addr else "local"
        port = addr[1] if isinstance(addr, tuple) and len(addr) > 1 else 0
        if self.server.ssl_adapter is not None:
            waiting = Waiting(sock, host, None, "peek")
        else:
            waiting = Waiting(sock, host, self._connection(sock, MakeFile, host, port, {}), "request")
        self._wait(waiting, fresh=True)

    def _connection(self, sock: Any, makefile: Any, host: str, port: int, ssl_env: dict[str, Any]) -> Any:
        conn = self.server.ConnectionClass(self.server, sock, makefile)
        conn.remote_addr = host
        conn.remote_port = port
        conn.ssl_env = ssl_env
        return conn

    def _wait(self, waiting: Waiting, fresh: bool) -> None:
        """Follow a request until it is complete; one already complete goes straight on."""
        with contextlib.suppress(OSError):
            waiting.sock.settimeout(0)
        fd = waiting.sock.fileno()
        self._waiting[fd] = waiting
        self._limit(waiting.addr)
        if fd not in self._waiting:  # dropped by the limit
            return
        self._selector.register(fd, selectors.EVENT_READ, data=waiting)
        if waiting.buf or not fresh:
            self._advance(fd, waiting)

    def _limit(self, addr: str) -> None:
        """At most PER_ADDRESS requests waiting from one address, WAITING_LIMIT in all: the oldest give way."""
        mine = [(fd, w) for fd, w in self._waiting.items() if w.addr == addr]
        for fd, w in mine[: max(0, len(mine) - PER_ADDRESS)]:
            self._drop(fd, w)
        while len(self._waiting) > WAITING_LIMIT:
            fd, w = next(iter(self._waiting.items()))
            self._drop(fd, w)

    def _drop(self, fd: int, waiting: Waiting) -> None:
        self._waiting.pop(fd, None)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self._selector.unregister(fd)
        waiting.close()

    def _advance(self, fd: int, waiting: Waiting) -> None:
        """Read what has arrived; hand the request on once whole. Never blocks."""
        try:
            if waiting.stage == "peek" and not self._peek(fd, waiting):
                return
            if waiting.stage == "handshake" and not self._handshake(fd, waiting):
                return
            if not self._read(waiting):
                self._drop(fd, waiting)
                return
        except (ssl.SSLError, OSError) as exc:
            log.debug("connection from %s dropped: %s", waiting.addr, exc)
            self._drop(fd, waiting)
            return
        if waiting.stage == "plain":
            self._answer_plain(fd, waiting)
            return
        end = head_end(waiting.buf)
        if end > HEAD_LIMIT or (end < 0 and len(waiting.buf) > HEAD_LIMIT):  # whole or not: past the limit is 431
            self._refuse_head(fd, waiting)
            return
        if end < 0:
            return
        length = body_length(bytes(waiting.buf[:end]))
        if length is not None and len(waiting.buf) < end + length:
            return
        self._hand_on(fd, waiting)

    def _refuse_head(self, fd: int, waiting: Waiting) -> None:
        """431 for headers past HEAD_LIMIT, then close. The rest of what the client sends is not read, so the answer
        goes out before the close (a close with unread bytes resets the connection, and the client may lose it)."""
        self._waiting.pop(fd, None)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self._selector.unregister(fd)
        with contextlib.suppress(OSError):
            waiting.sock.send(too_large(waiting.buf))
            waiting.sock.shutdown(socket.SHUT_WR)
        waiting.close()

    def _peek(self, fd: int, waiting: Waiting) -> bool:
        first = waiting.sock.recv(1, socket.MSG_PEEK)
        if not first:
            raise ConnectionResetError("closed before sending anything")
        if first[0] != TLS_HANDSHAKE:
            waiting.stage = "plain"
            return True
        adapter = self.server.ssl_adapter
        tls = adapter.context.wrap_socket(waiting.sock, server_side=True, do_handshake_on_connect=False)
        tls.setblocking(False)
        waiting.sock = tls
        waiting.stage = "handshake"
        return True

    def _handshake(self, fd: int, waiting: Waiting) -> bool:
        tls = waiting.sock
        try:
            tls.do_handshake()
        except ssl.SSLWantReadError:
            return False
        except ssl.SSLWantWriteError:  # the server's part did not fit in the socket's buffer: rare, retry on read
            return False
        adapter = self.server.ssl_adapter
        host, port = waiting.addr, 0
        with contextlib.suppress(OSError):
            port = int(tls.getpeername()[1])
        waiting.conn = self._connection(tls, adapter.makefile, host, port, adapter.get_environ(tls))
        waiting.stage = "request"
        return True

    @staticmethod
    def _read(waiting: Waiting) -> bool:
        """Take every byte that has arrived; False when the client has closed."""
        while True:
            try:
                chunk = waiting.sock.recv(65536)
            except (BlockingIOError, InterruptedError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                return True
            if not chunk:
                return False
            waiting.buf += chunk
            if len(waiting.buf) > HEAD_LIMIT + BODY_IN_GATE:
                return True

    def _answer_plain(self, fd: int, waiting: Waiting) -> None:
        """Plain HTTP sent to the HTTPS port: once its headers are in, answer with the https:// address."""
        if head_end(waiting.buf) < 0 and len(waiting.buf) < 8192:
            return
        self._waiting.pop(fd, None)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(fd)
        sock = waiting.sock
        reply = self._plain_on_tls(bytes(waiting.buf)) if self._plain_on_tls else b""
        with contextlib.suppress(OSError):
            sock.settimeout(2.0)
            sock.sendall(reply)
            sock.shutdown(socket.SHUT_WR)  # the reply is sent before the close, so the browser reads it
        sock.close()

    def _hand_on(self, fd: int, waiting: Waiting) -> None:
        """The request is whole: put its bytes in the connection's read buffer and give it to a worker."""
        self._waiting.pop(fd, None)
        self._selector.unregister(fd)
        conn = waiting.conn
        waiting.sock.settimeout(self.server.timeout)
        rfile = conn.rfile
        rfile._read_buf = bytes(waiting.buf)
        rfile._read_pos = 0
        conn.last_used = time.time()
        self.server.process_conn(conn)


class BodyReaders:
    """How many large bodies each network address has being read by workers now."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy: dict[str, int] = {}

    def take(self, addr: str) -> bool:
        with self._lock:
            if self._busy.get(addr, 0) >= BODY_READERS_PER_ADDRESS:
                return False
            self._busy[addr] = self._busy.get(addr, 0) + 1
            return True

    def give_back(self, addr: str) -> None:
        with self._lock:
            left = self._busy.get(addr, 0) - 1
            if left > 0:
                self._busy[addr] = left
            else:
                self._busy.pop(addr, None)


READERS = BodyReaders()
BUSY = Message("This device is sending other large uploads now; wait for them to arrive, then send this one again.")
TOO_SLOW = Message("The upload arrived too slowly; move closer to the Wi-Fi and send it again.")


class PacedBody:
    """``wsgi.input`` of a body the gate did not hold whole: read as it arrives (never waiting for a full buffer
    at the client's pace), refused with 408 once it falls below ``BODY_MIN_RATE``, and with 503 where the sender's
    address has ``BODY_READERS_PER_ADDRESS`` bodies being read already. Nothing is refused before the app reads, so
    the app's own checks (who may post, how large) answer first."""

    def __init__(self, inner: Any, allowed: bool) -> None:
        self.inner = inner
        self.allowed = allowed
        self.started = time.monotonic()
        self.got = 0

    def _check(self) -> None:
        if not self.allowed:
            raise ServiceUnavailable(BUSY.render())  # said in the device's language by the app's error handler
        elapsed = time.monotonic() - self.started
        if elapsed > BODY_GRACE_S and self.got < BODY_MIN_RATE * elapsed:
            raise RequestTimeout(TOO_SLOW.render())

    def read(self, size: int | None = -1) -> bytes:
        inner = self.inner
        want = inner.remaining if size is None or size < 0 else min(size, inner.remaining)
        out = bytearray()
        while len(out) < want:
            self._check()
            try:
                chunk = inner.rfile.read1(want - len(out))  # what has arrived, at most one wait on the socket
            except TimeoutError:  # nothing at all for the server's socket timeout: a stalled body is too slow too
                raise RequestTimeout(TOO_SLOW.render()) from None
            if not chunk:
                break
            inner.remaining -= len(chunk)
            inner.rfile.bytes_read += len(chunk)
            self.got += len(chunk)
            out += chunk
        return bytes(out)

    def readline(self, size: int | None = -1) -> bytes:
        self._check()
        try:
            line: bytes = self.inner.readline(None if size is None or size < 0 else size)
        except TimeoutError:
            raise RequestTimeout(TOO_SLOW.render()) from None
        self.got += len(line)
        return line

    def __iter__(self) -> Any:
        return iter(lambda: self.read(65536), b"")

    def close(self) -> None:
        self.inner.close()


class Gateway(_Gateway10):  # type: ignore[misc]
    """cheroot's WSGI 1.0 gateway that also tells the app its socket (so a live stream sees a client leave), and
    that closes the connection after answering a request whose body the app did not read and has not arrived.

    cheroot would read such a body to its end before answering (to keep the connection), at the client's pace:
    20 MB "photos" sent a byte a second to a game the sender never joined, refused at once with 403, would hold a
    thread each for as long as the sender likes. cheroot closes the same way after a 413.
    """

    _reading_for: str | None = None  # the address whose large body this request holds a reader slot for

    def get_environ(self) -> dict[str, Any]:
        env: dict[str, Any] = super().get_environ()
        env["becher.socket"] = self.req.conn.socket
        body = env.get("wsgi.input")
        if isinstance(body, KnownLengthRFile):
            rfile = self.req.conn.rfile
            buffered = len(rfile._read_buf) - rfile._read_pos
            if body.remaining > buffered:  # part of it is still on the wire: the worker will read it
                addr = str(self.req.conn.remote_addr)
                allowed = READERS.take(addr)
                if allowed:
                    self._reading_for = addr
                env["wsgi.input"] = PacedBody(body, allowed)
        return env

    def respond(self) -> Any:
        try:
            return super().respond()
        finally:
            addr = getattr(self, "_reading_for", None)
            if addr is not None:
                self._reading_for = None
                READERS.give_back(addr)

    def start_response(self, status: str, headers: Any, exc_info: Any = None) -> Any:
        result = super().start_response(status, headers, exc_info)
        req = self.req
        remaining = getattr(req.rfile, "remaining", 0) or 0
        if remaining > 0 and not req.chunked_read:
            rfile = req.conn.rfile
            buffered = len(rfile._read_buf) - rfile._read_pos
            if remaining > buffered:  # some of it is still on the wire
                req.close_connection = True
        return result


def install(server: Any, plain_on_tls: Callable[[bytes], bytes] | None = None) -> None:
    """Put the gate in place of cheroot's connection manager (after ``server.prepare()``)."""
    old = server._connections
    server._connections = Gate(server, plain_on_tls)
    with contextlib.suppress(Exception):
        old._selector.close()
    server.gateway = Gateway
