"""`becher serve` as a real process: crash safety under SIGKILL, two writers at once, HTTPS, the banner.

These start the production server (cheroot) as a subprocess on a free loopback port with a temporary database
and data folder, and talk to it over HTTP like the pages do.
"""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import os
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.core import GameLog

pytestmark = pytest.mark.slow
WRITE = {"X-Becher": "1"}


class Answer:
    def __init__(self, status: int, headers: Any, text: str) -> None:
        self.status_code = status
        self.headers = headers
        self.text = text

    def json(self) -> Any:
        return json.loads(self.text)


class Session:
    """A device: its own cookie jar, over the standard library (the test extra has no HTTP client)."""

    def __init__(self, insecure: bool = False) -> None:
        self.cookies = http.cookiejar.CookieJar()
        handlers: list[Any] = [urllib.request.HTTPCookieProcessor(self.cookies)]
        if insecure:
            handlers.append(urllib.request.HTTPSHandler(context=ssl._create_unverified_context()))
        self.opener = urllib.request.build_opener(*handlers)

    def request(self, method: str, url: str, json_body: Any = None, timeout: float = 10) -> Answer:
        data = None if json_body is None else json.dumps(json_body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        if method != "GET":
            headers.update(WRITE)
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=timeout) as r:
                return Answer(r.status, r.headers, r.read().decode())
        except urllib.error.HTTPError as e:
            return Answer(e.code, e.headers, e.read().decode())

    def get(self, url: str, timeout: float = 10) -> Answer:
        return self.request("GET", url, timeout=timeout)

    def post(self, url: str, json: Any = None, timeout: float = 10) -> Answer:
        return self.request("POST", url, json if json is not None else {}, timeout)


DOWN = (urllib.error.URLError, ConnectionError, http.client.HTTPException, TimeoutError, OSError)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, tmp: Path, https: bool = False) -> None:
        self.tmp = tmp
        self.https = https
        self.port = free_port()
        self.proc: subprocess.Popen[str] | None = None
        self.base = f"{'https' if https else 'http'}://127.0.0.1:{self.port}"

    def start(self) -> Server:
        env = {**os.environ, "BECHER_DATA": str(self.tmp / "data"), "PYTHONUNBUFFERED": "1"}
        cmd = [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        cmd += ["--db", str(self.tmp / "games.sqlite3")] + (["--https"] if self.https else [])
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited: {self.proc.stdout.read() if self.proc.stdout else ''}")
            try:
                Session(insecure=True).get(self.base + "/api/rules", timeout=1)
                return self
            except DOWN:
                time.sleep(0.1)
        raise AssertionError("server did not come up within 60 s")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> str:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:  # pragma: no cover - a hang is a failure, but never leave it running
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.stdout.read() if self.proc.stdout else ""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path).start()
    yield srv
    srv.stop()


def next_action(state: dict[str, Any], k: int) -> dict[str, Any]:
    """A valid move read off the rules engine's options: stand after a throw, else throw (dice vary with k)."""
    player = state["to_move"]
    if any(o["action"] == "stand" for o in state["options"]):
        return {"type": "stand", "player": player}
    return {"type": "throw", "player": player, "dice": [(k + i) % 6 + 1 for i in range(5)]}


class Writer(threading.Thread):
    """A device playing one game as fast as the answers come, remembering what the server acknowledged.

    ``known`` is the game's log as this writer knows it from its acknowledged answers; ``pending`` is the change
    sent but not yet answered (at a kill it may or may not have been committed). With ``undo_every`` some changes
    are undos, so a kill can also fall in the middle of one of those.
    """

    def __init__(self, base: str, session: Session, game_id: str, undo_every: int = 0) -> None:
        super().__init__(daemon=True)
        self.base, self.session, self.game_id, self.undo_every = base, session, game_id, undo_every
        start = session.get(f"{base}/api/games/{game_id}?log=1").json()
        self.state: dict[str, Any] = start["game"]["state"]
        self.known: list[dict[str, Any]] = [row["action"] for row in start["log"]]  # acknowledged log (lone writer)
        self.begun = len(self.known)
        self.acked: dict[int, dict[str, Any]] = {}  # action number -> action (writers sharing a game, no undo)
        self.pending: tuple[str, dict[str, Any] | None] | None = None
        self.acks = 0
        self.stop = threading.Event()
        self.failure: str | None = None

    def run(self) -> None:
        url = f"{self.base}/api/games/{self.game_id}"
        k = 0
        while not self.stop.is_set() and self.state["outcome"] is None:
            k += 1
            seen = self.state["actions"]
            undo = self.undo_every and k % self.undo_every == 0 and seen > 0
            action = None if undo else next_action(self.state, k)
            self.pending = ("undo", None) if undo else ("play", action)
            try:
                if undo:
                    r = self.session.post(f"{url}/undo", json={"seen": seen}, timeout=10)
                else:
                    r = self.session.post(f"{url}/actions", json={"seen": seen, "action": action}, timeout=10)
            except DOWN:
                return  # killed: ``pending`` stays what was in flight
            if r.status_code == 409 and r.json()["code"] == "stale":
                self.state = r.json()["game"]["state"]  # a rival wrote first; nothing of ours was stored
                self.pending = None
                continue
            if r.status_code not in (200, 201):
                self.failure = f"{r.status_code} {r.text[:300]}"
                return
            answer = r.json()
            if undo:
                self.known.pop()
            else:
                assert action is not None
                self.known.append(action)
                self.acked[answer["n"]] = action
            self.state = answer["game"]["state"]
            self.pending = None
            self.acks += 1


def normal(action: dict[str, Any]) -> dict[str, Any]:
    """An action as the server stores it (defaults filled in by the rules engine)."""
    return GameLog.new("bone", ["A", "B"], {"rounds": 30}).parse(action).to_json()


def check_after_kill(base: str, session: Session, writers: list[Writer], shared: list[Writer]) -> None:
    """Every acknowledged change is in the restarted server's log; the one in flight is there fully or not at all."""
    for w in writers:
        assert w.failure is None, w.failure
        log = session.get(f"{base}/api/games/{w.game_id}/log").json()["log"]
        stored = [row["action"] for row in log]
        known = [normal(a) for a in w.known]
        allowed = [known]
        if w.pending is not None:
            kind, action = w.pending
            allowed.append(known[:-1] if kind == "undo" else [*known, normal(action or {})])
        assert stored in allowed, (w.game_id, len(stored), len(known), w.pending)
    by_game: dict[str, list[Writer]] = {}
    for w in shared:
        by_game.setdefault(w.game_id, []).append(w)
    for game_id, rivals in by_game.items():
        assert all(w.failure is None for w in rivals), [w.failure for w in rivals]
        stored = [row["action"] for row in session.get(f"{base}/api/games/{game_id}/log").json()["log"]]
        acked = {n: a for w in rivals for n, a in w.acked.items()}
        for n, action in acked.items():
            assert stored[n - 1] == normal(action), (game_id, n)
        in_flight = sum(w.pending is not None for w in rivals)
        last = max([*acked, rivals[0].begun])
        assert last <= len(stored) <= last + in_flight
    for game_id in {w.game_id for w in writers + shared}:
        g = session.get(f"{base}/api/games/{game_id}?log=1").json()
        replay = GameLog.new("bone", ["A", "B"], {"rounds": 30})
        for row in g["log"]:
            replay.play(row["action"])
        assert g["game"]["state"] == replay.summary()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL exists only on POSIX")
def test_sigkill_during_writes_to_several_games_loses_no_acknowledged_change(tmp_path: Path) -> None:
    """Four devices write at once (two games alone, one with undos, two devices racing on a third game); the server
    is killed twice while requests are in flight. After each restart every acknowledged change is there, nothing
    half-done is, the database passes SQLite's integrity check, and every game plays on."""
    owner, phone = Session(), Session()
    srv = Server(tmp_path).start()
    # the phone plays every seat ("shared by all"), racing the owner
    body = {"game": "bone", "players": ["A", "B"], "settings": {"rounds": 30}, "bound_seats": False}
    games = [owner.post(srv.base + "/api/games", json=body).json() for _ in range(3)]
    assert phone.post(srv.base + "/api/join", json={"code": games[2]["join"]["code"]}).status_code == 200
    try:
        for cycle in range(2):
            ids = [g["game"]["id"] for g in games]
            alone = [Writer(srv.base, owner, ids[0]), Writer(srv.base, owner, ids[1], undo_every=4)]
            shared = [Writer(srv.base, owner, ids[2]), Writer(srv.base, phone, ids[2])]
            for w in alone + shared:
                w.start()
            deadline = time.monotonic() + 60
            while sum(w.acks for w in alone + shared) < 40 + 20 * cycle and time.monotonic() < deadline:
                time.sleep(0.002)
            while not all(w.pending for w in alone) and time.monotonic() < deadline:
                time.sleep(0.0005)  # kill only while both lone writers have a request out
            srv.kill()
            for w in alone + shared:
                w.stop.set()
                w.join(15)
            assert sum(w.acks for w in alone + shared) >= 40, [w.failure for w in alone + shared]
            srv = Server(tmp_path).start()
            check_after_kill(srv.base, owner, alone, shared)
            with sqlite3.connect(tmp_path / "games.sqlite3") as db:
                assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        for g in games:  # and every game plays on
            state = owner.get(f"{srv.base}/api/games/{g['game']['id']}").json()["game"]["state"]
            nxt = next_action(state, 1)
            r = owner.post(
                f"{srv.base}/api/games/{g['game']['id']}/actions", json={"seen": state["actions"], "action": nxt}
            )
            assert r.status_code == 201, r.text
    finally:
        srv.stop()


def test_two_writers_at_once_exactly_one_wins(server: Server) -> None:
    """Two devices send a throw for the same state at the same moment, 25 times: one 201, one 409, nothing doubled."""
    owner = Session()
    body = {"game": "bone", "players": ["A", "B"], "settings": {"rounds": 30}, "bound_seats": False}
    created = owner.post(server.base + "/api/games", json=body, timeout=10).json()
    game_id = created["game"]["id"]
    phone = Session()
    joined = phone.post(server.base + "/api/join", json={"code": created["join"]["code"]}, timeout=10)
    assert joined.status_code == 200
    to_move = 0
    winners: list[dict[str, Any]] = []
    for n in range(25):
        actions = [{"type": "throw", "player": to_move, "dice": [d, d, 2, 3, 4]} for d in (5, 6)]
        barrier = threading.Barrier(2)
        results: dict[int, Answer] = {}

        def send(
            i: int,
            session: Session,
            seen: int = n,
            actions: list[dict[str, Any]] = actions,
            barrier: threading.Barrier = barrier,
            results: dict[int, Answer] = results,
        ) -> None:
            barrier.wait()
            url = f"{server.base}/api/games/{game_id}/actions"
            results[i] = session.post(url, json={"seen": seen, "action": actions[i]}, timeout=10)

        threads = [threading.Thread(target=send, args=(i, sess)) for i, sess in enumerate((owner, phone))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert sorted(r.status_code for r in results.values()) == [201, 409], [r.text for r in results.values()]
        won = next(i for i, r in results.items() if r.status_code == 201)
        loser = results[1 - won].json()
        assert loser["code"] == "stale" and loser["game"]["state"]["actions"] == n + 1
        winners.append(actions[won])
        to_move = results[won].json()["game"]["state"]["to_move"]
    log = owner.get(f"{server.base}/api/games/{game_id}/log", timeout=10).json()["log"]
    assert [row["n"] for row in log] == list(range(1, 26))
    assert [row["action"]["dice"] for row in log] == [a["dice"] for a in winners]
    assert [row["action"]["player"] for row in log] == [a["player"] for a in winners]


def test_https_serves_with_a_self_signed_certificate_kept_for_the_next_start(tmp_path: Path) -> None:
    srv = Server(tmp_path, https=True).start()
    try:
        r = Session(insecure=True).get(srv.base + "/api/rules")
        assert r.status_code == 200 and "Secure" in r.headers["Set-Cookie"]
        cert = tmp_path / "data" / "tls" / "becher-cert.pem"
        first = cert.read_bytes()
    finally:
        out = srv.stop()
    assert "https://" in out
    again = Server(tmp_path, https=True).start()
    try:
        assert Session(insecure=True).get(again.base + "/api/rules").status_code == 200
        assert cert.read_bytes() == first
    finally:
        again.stop()


def _plain_http(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request)
        reply = b""
        while chunk := conn.recv(4096):
            reply += chunk
    return reply


def test_plain_http_to_the_https_port_is_sent_to_the_https_address(tmp_path: Path) -> None:
    srv = Server(tmp_path, https=True).start()
    try:
        host = f"127.0.0.1:{srv.port}"
        reply = _plain_http(srv.port, f"GET /join?code=AB12 HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 301 ")
        assert f"Location: https://{host}/join?code=AB12".encode() in head
        assert b"https://" in body
        # a reflected path is escaped in the page; a request that is not HTTP gets a plain hint
        reply = _plain_http(srv.port, f'GET /"><script> HTTP/1.1\r\nHost: {host}\r\n\r\n'.encode())
        assert b"<script>" not in reply.partition(b"\r\n\r\n")[2]
        reply = _plain_http(srv.port, b"HELLO THERE\r\n\r\n")
        assert reply.startswith(b"HTTP/1.1 400 ") and b"https://" in reply
        # the server still speaks TLS to everyone else
        assert Session(insecure=True).get(srv.base + "/api/rules").status_code == 200
    finally:
        srv.stop()


def test_banner_names_the_address_and_database_and_stops_cleanly(server: Server) -> None:
    out = server.stop()
    assert f"http://127.0.0.1:{server.port}/" in out
    assert "games.sqlite3" in out
    assert "stopped" in out


def test_a_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "BECHER_DATA": str(tmp_path / "data")}
        cmd = [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
        done = subprocess.run(
            [*cmd, "--db", str(tmp_path / "g.sqlite3")], env=env, capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 1
    assert "--port" in done.stderr


def test_a_dozen_live_streams_at_once_leave_room_for_requests(server: Server) -> None:
    """More watchers than a table has devices, on the real server: each gets the change, requests still pass."""
    owner = Session()
    body = {"game": "bone", "players": ["A", "B"]}
    created = owner.post(server.base + "/api/games", json=body).json()
    game = created["game"]

    def device_cookie() -> str:
        phone = Session()
        assert phone.post(server.base + "/api/join", json={"code": created["join"]["code"]}).status_code == 200
        return "; ".join(f"{c.name}={c.value}" for c in phone.cookies)

    def next_id(r: http.client.HTTPResponse) -> int:
        while True:
            line = r.readline().decode()
            assert line, "stream ended"
            if line.startswith("id: "):
                return int(line[4:])

    streams = []
    for _ in range(12):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", f"/api/games/{game['id']}/events", headers={"Cookie": device_cookie()})
        r = conn.getresponse()
        assert r.status == 200
        assert next_id(r) == 0
        streams.append((conn, r))
    assert owner.get(server.base + "/api/rules").status_code == 200
    action = {"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5]}
    assert (
        owner.post(f"{server.base}/api/games/{game['id']}/actions", json={"seen": 0, "action": action}).status_code
        == 201
    )
    assert [next_id(r) for _, r in streams] == [1] * 12
    for conn, _ in streams:
        conn.close()


def test_certificate_is_made_for_the_address_and_remade_when_it_changes(tmp_path: Path) -> None:
    from cryptography import x509

    from web.server import ensure_certificate

    def addresses(cert: Path) -> set[str]:
        san = x509.load_pem_x509_certificate(cert.read_bytes()).extensions.get_extension_for_class(
            x509.SubjectAlternativeName
        )
        return {str(v) for v in san.value.get_values_for_type(x509.IPAddress)}

    cert, key = ensure_certificate(tmp_path, ["192.168.1.20"])
    assert b"PRIVATE KEY" in key.read_bytes()
    assert {"192.168.1.20", "127.0.0.1"} <= addresses(cert)
    first = cert.read_bytes()
    assert ensure_certificate(tmp_path, ["192.168.1.20"])[0].read_bytes() == first
    ensure_certificate(tmp_path, ["10.0.0.7"])
    assert "10.0.0.7" in addresses(cert) and cert.read_bytes() != first


def serve_once(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BECHER_DATA": str(tmp_path / "data")}
    cmd = [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("kind", ["text", "directory", "other program"])
def test_a_database_becher_cannot_use_is_one_clear_line_not_a_traceback(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "games.sqlite3"
    if kind == "text":
        db.write_text("my shopping list\n" * 100)
    elif kind == "directory":
        db.mkdir()
    else:
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE games (title TEXT)")
    done = serve_once(tmp_path, "--port", str(free_port()), "--db", str(db))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--db" in done.stderr and str(db) in done.stderr


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_port_out_of_range_is_a_clear_error(tmp_path: Path, port: str) -> None:
    done = serve_once(tmp_path, "--port", port, "--db", str(tmp_path / "g.sqlite3"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "65535" in done.stderr


def test_port_zero_prints_the_port_the_system_gave(tmp_path: Path) -> None:
    env = {**os.environ, "BECHER_DATA": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", "0"]
    proc = subprocess.Popen([*cmd, "--db", str(tmp_path / "g.sqlite3")], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line and ":0/" not in line, line
        url = line.split("Open ", 1)[1].split()[0]
        assert Session().get(url + "api/rules").status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(15)


def test_fresh_machine_makes_the_data_folder(tmp_path: Path) -> None:
    """No --db and no data folder yet: the folder is made and the banner names the database in it."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("BECHER_DATA", "XDG_DATA_HOME")}
    env.update(HOME=str(home), PYTHONUNBUFFERED="1", USERPROFILE=str(home), LOCALAPPDATA=str(home / "AppData"))
    port = free_port()
    cmd = [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                Session().get(f"http://127.0.0.1:{port}/api/rules", timeout=1)
                break
            except DOWN:
                time.sleep(0.1)
        made = [p for p in home.rglob("becher.sqlite3")]
        assert len(made) == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=15)[0]
    assert str(made[0]) in out


def test_one_device_leaving_dead_streams_does_not_take_every_server_thread(server: Server) -> None:
    """A phone that reconnects 80 times without its old connections closing (lost Wi-Fi) must not take the 64
    server threads: its oldest streams are closed, and the table keeps being served."""
    owner = Session()
    game = owner.post(server.base + "/api/games", json={"game": "bone", "players": ["A", "B"]}).json()["game"]
    cookie = "; ".join(f"{c.name}={c.value}" for c in owner.cookies)
    dead = []
    for _ in range(80):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        request = f"GET /api/games/{game['id']}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n\r\n"
        sock.sendall(request.encode())
        dead.append(sock)  # never read, never closed
    try:
        started = time.monotonic()
        assert owner.get(server.base + "/api/rules", timeout=10).status_code == 200
        action = {"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5]}
        r = owner.post(f"{server.base}/api/games/{game['id']}/actions", json={"seen": 0, "action": action})
        assert r.status_code == 201
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", f"/api/games/{game['id']}/events", headers={"Cookie": cookie})
        live = conn.getresponse()
        assert live.status == 200
        assert time.monotonic() - started < 10
        conn.close()
    finally:
        for sock in dead:
            sock.close()


def test_the_printed_qr_code_reads_as_the_address_on_dark_and_light_terminals() -> None:
    """Both colours of every half block are named, so the code is dark on light whatever the terminal's theme."""
    import re

    import cv2
    import numpy as np

    from web.server import qr_lines

    url = "https://192.168.1.20:8000/"
    rows: list[list[int]] = []
    for line in qr_lines(url):
        cells = re.findall(r"\x1b\[(\d+);(\d+)m\u2580", line)
        assert cells and all(f in ("30", "97") and b in ("40", "107") for f, b in cells)
        rows.append([0 if f == "30" else 255 for f, _ in cells])
        rows.append([0 if b == "40" else 255 for _, b in cells])
    image = cv2.resize(np.array(rows, np.uint8), None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    assert cv2.QRCodeDetector().detectAndDecode(image)[0] == url
    assert image[:8, :].min() == 255  # the quiet zone is light


def test_a_second_server_on_the_same_database_refuses_to_start(server: Server, tmp_path: Path) -> None:
    """Its writes would never reach the first server's live streams: one clear line, exit 1, the first unharmed."""
    done = serve_once(tmp_path, "--port", str(free_port()), "--db", str(tmp_path / "games.sqlite3"))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "another Becher server" in done.stderr and str(server.proc.pid if server.proc else "") in done.stderr
    assert Session().get(server.base + "/api/rules").status_code == 200
    other = serve_once(tmp_path, "--port", "70000", "--db", str(tmp_path / "other.sqlite3"))
    assert "another Becher server" not in other.stderr  # another database in the same folder is no conflict


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL exists only on POSIX")
def test_the_database_lock_goes_with_a_killed_server(tmp_path: Path) -> None:
    first = Server(tmp_path).start()
    first.kill()
    second = Server(tmp_path)
    second.port = free_port()
    second.base = f"http://127.0.0.1:{second.port}"
    second.start()
    second.stop()


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_the_database_its_wal_and_the_data_folder_are_the_owners_alone(server: Server, tmp_path: Path) -> None:
    owner = Session()
    assert owner.post(server.base + "/api/games", json={"game": "bone", "players": ["A", "B"]}).status_code == 201
    for name in ("games.sqlite3", "games.sqlite3-wal", "games.sqlite3-shm"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o600, name


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_an_existing_database_readable_by_all_is_made_private(tmp_path: Path) -> None:
    from web.store import Store

    path = tmp_path / "old.sqlite3"
    Store(path).close()
    path.chmod(0o644)
    Store(path).close()
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_the_data_folder_and_tls_key_are_private_from_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key file is created 0600 (never written first and chmod-ed after), even where the umask is open."""
    import web.server as srv

    created: list[int] = []
    real_open = os.open

    def spy(path: Any, flags: int, mode: int = 0o777, *a: Any, **kw: Any) -> int:
        if str(path).endswith((srv.KEY_NAME, srv.KEY_NAME + ".new")):
            created.append(mode)
        return real_open(path, flags, mode, *a, **kw)

    monkeypatch.setattr(os, "open", spy)
    old = os.umask(0)
    try:
        _, key = srv.ensure_certificate(tmp_path / "tls", ["192.168.1.20"])
    finally:
        os.umask(old)
    assert created == [0o600]
    assert key.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "tls").stat().st_mode & 0o777 == 0o700
    data = tmp_path / "data"  # the folder serve_once's BECHER_DATA names, left open by an older version
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    with socket.socket() as busy:  # the server gets as far as opening the database, then finds its port taken
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        done = serve_once(tmp_path, "--port", str(busy.getsockname()[1]))
    assert done.returncode == 1 and "--port" in done.stderr
    assert data.stat().st_mode & 0o777 == 0o700
    assert (data / "becher.sqlite3").stat().st_mode & 0o777 == 0o600


def test_a_server_on_loopback_warns_that_phones_cannot_reach_it_and_says_what_to_run(server: Server) -> None:
    """The QR code names 127.0.0.1, which a phone would open on itself: the banner says so, with the command."""
    out = server.stop()
    assert "phones cannot open the link" in out
    assert "becher serve --host 0.0.0.0" in out and f"--port {server.port}" in out
    # after the address line and the code, so whoever reads only the first line still gets the address
    assert out.index("Open http://127.0.0.1") < out.index("Warning:")


def test_the_loopback_warning_names_only_addresses_phones_cannot_reach() -> None:
    from web.server import loopback_warning

    assert loopback_warning("192.168.1.20", "192.168.1.20", 8000, False) is None
    assert loopback_warning("0.0.0.0", "10.0.0.7", 8000, False) is None
    local = loopback_warning("127.0.0.1", "127.0.0.1", 8000, True, "/tmp/my games.sqlite3")
    assert local is not None and "becher serve --host 0.0.0.0 --https --db '/tmp/my games.sqlite3'" in local
    assert "--port" not in local  # the default port needs no word
    for host in ("localhost", "::1", "127.0.0.2"):
        assert loopback_warning(host, host, 9000, False) is not None
    no_network = loopback_warning("0.0.0.0", "127.0.0.1", 8000, False)  # listening everywhere, but on no network
    assert no_network is not None and "Wi-Fi" in no_network and "--host" not in no_network
