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


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL exists only on POSIX")
def test_sigkill_mid_game_loses_no_acknowledged_action(tmp_path: Path) -> None:
    srv = Server(tmp_path).start()
    s = Session()
    game = s.post(
        srv.base + "/api/games",
        json={"game": "bone", "players": ["A", "B"], "settings": {"rounds": 30}},
        timeout=10,
    ).json()["game"]
    acked: list[dict[str, Any]] = []
    stop = threading.Event()

    def writer() -> None:
        state = game["state"]
        for n in range(200):
            if stop.is_set():
                return
            action = next_action(state, n)
            try:
                r = s.post(
                    f"{srv.base}/api/games/{game['id']}/actions",
                    json={"seen": n, "action": action},
                    timeout=10,
                )
            except DOWN:
                return
            assert r.status_code == 201, r.text
            acked.append(action)
            state = r.json()["game"]["state"]

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        while len(acked) < 40 and thread.is_alive():
            time.sleep(0.005)
    finally:
        srv.kill()  # in the middle of the writer's stream of actions
    stop.set()
    thread.join(10)
    assert len(acked) >= 40

    again = Server(tmp_path).start()
    try:
        g = s.get(f"{again.base}/api/games/{game['id']}?log=1").json()
        log = [row["action"] for row in g["log"]]
        # every acknowledged action is there, in order; at most the one in flight at the kill is there besides
        assert len(acked) <= len(log) <= len(acked) + 1
        expected = GameLog.new("bone", ["A", "B"], {"rounds": 30})
        for action in log:
            expected.play(action)
        assert [expected.parse(a).to_json() for a in acked] == log[: len(acked)]
        assert g["game"]["state"] == expected.summary()
        # and the game plays on
        nxt = next_action(g["game"]["state"], len(log))
        r = s.post(
            f"{again.base}/api/games/{game['id']}/actions",
            json={"seen": len(log), "action": nxt},
            timeout=10,
        )
        assert r.status_code == 201, r.text
        assert r.json()["game"]["state"]["actions"] == len(log) + 1
    finally:
        again.stop()


def test_two_writers_at_once_exactly_one_wins(server: Server) -> None:
    """Two devices send a throw for the same state at the same moment, 25 times: one 201, one 409, nothing doubled."""
    owner = Session()
    body = {"game": "bone", "players": ["A", "B"], "settings": {"rounds": 30}}
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
