"""Load check of the server: 9 devices watching live (8 phones, 1 tablet) while the phones write steadily.

Starts `becher serve` on a free loopback port with a temporary database (or uses --url), creates an 8-player game,
joins 8 phones with the game's code, opens 9 Server-Sent-Event streams, then sends one action every 1/rate seconds
for --seconds, taking turns between the phones. Prints the write latency (send to answer) and the delay until every
one of the 9 streams has seen each change (from sending the write), as median, 95th percentile and maximum.

    python benchmarks/load.py [--seconds 60] [--rate 5] [--watchers 9]

Aim (issue 6): writes under 50 ms median; changes seen everywhere under 200 ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Client:
    """One device over one keep-alive connection, with its own device cookie."""

    def __init__(self, host: str, port: int) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=30)
        self.cookie = ""

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"X-Becher": "1", "Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        data = None if body is None else json.dumps(body)
        self.conn.request(method, path, body=data, headers=headers)
        r = self.conn.getresponse()
        text = r.read()
        cookie = r.getheader("Set-Cookie")
        if cookie and not self.cookie:
            self.cookie = cookie.split(";", 1)[0]
        return r.status, json.loads(text)


class Watcher(threading.Thread):
    """Follows the game's event stream and notes when each revision arrived."""

    def __init__(self, host: str, port: int, path: str, cookie: str) -> None:
        super().__init__(daemon=True)
        self.host, self.port, self.path, self.cookie = host, port, path, cookie
        self.seen: dict[int, float] = {}
        self.ready = threading.Event()
        self.stop = False

    def run(self) -> None:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        conn.request("GET", self.path, headers={"Cookie": self.cookie, "Accept": "text/event-stream"})
        r = conn.getresponse()
        event_id: int | None = None
        while not self.stop:
            line = r.readline()
            if not line:
                return
            text = line.decode().rstrip("\n")
            if text.startswith("id: "):
                event_id = int(text[4:])
            elif text.startswith("data: ") and event_id is not None:
                self.seen.setdefault(event_id, time.perf_counter())
                self.ready.set()
            elif text == "":
                event_id = None


def next_action(state: dict[str, Any], k: int) -> tuple[str, dict[str, Any]]:
    """A valid bone move from the rules engine's options (or an undo once the game is over)."""
    options = state["options"]
    if not options:
        return "undo", {"seen": state["actions"], "count": 1}
    player = state["to_move"]
    if any(o["action"] == "stand" for o in options) and k % 3 != 1:
        action: dict[str, Any] = {"type": "stand", "player": player}
    elif state["view"]["turn"]["throws"] == 0:
        action = {"type": "throw", "player": player, "dice": [(k + i) % 6 + 1 for i in range(5)]}
    else:
        action = {"type": "throw", "player": player, "dice": [(k + i) % 6 + 1 for i in range(5)], "held": []}
    return "actions", {"seen": state["actions"], "action": action}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(url: str, seconds: float, rate: float, watchers: int) -> int:
    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    tablet = Client(host, port)
    players = [f"Player {i + 1}" for i in range(8)]
    status, created = tablet.call(
        "POST",
        "/api/games",
        # the phones take turns whoever is to move, so every phone plays every seat ("shared by all")
        {"game": "bone", "players": players, "settings": {"rounds": 30}, "bound_seats": False},
    )
    assert status == 201, created
    game_id = created["game"]["id"]
    code = created["join"]["code"]
    phones = [Client(host, port) for _ in range(8)]
    for phone in phones:
        status, answer = phone.call("POST", "/api/join", {"code": code})
        assert status == 200, answer
    devices = [tablet, *phones]
    streams = [
        Watcher(host, port, f"/api/games/{game_id}/events", devices[i % len(devices)].cookie) for i in range(watchers)
    ]
    for w in streams:
        w.start()
    for w in streams:
        if not w.ready.wait(10):
            print("a watcher did not connect", file=sys.stderr)
            return 1

    state = created["game"]["state"]
    sent: dict[int, float] = {}
    latencies: list[float] = []
    refused = 0
    period = 1.0 / rate
    start = time.perf_counter()
    k = 0
    while time.perf_counter() - start < seconds:
        due = start + k * period
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        route, body = next_action(state, k)
        phone = phones[k % len(phones)]
        t0 = time.perf_counter()
        status, answer = phone.call("POST", f"/api/games/{game_id}/{route}", body)
        t1 = time.perf_counter()
        k += 1
        if status not in (200, 201):
            refused += 1
            state = answer.get("game", {}).get("state", state)
            continue
        latencies.append((t1 - t0) * 1000)
        revision = answer["game"]["revision"]
        sent[revision] = t0
        state = answer["game"]["state"]

    time.sleep(1.0)
    for w in streams:
        w.stop = True
    delays: list[float] = []
    missing = 0
    for revision, t0 in sent.items():
        arrivals = [w.seen.get(revision) for w in streams]
        if any(a is None for a in arrivals):
            missing += 1
            continue
        delays.append((max(a for a in arrivals if a is not None) - t0) * 1000)

    print(f"server {url}  game {game_id}  {watchers} live watchers  {len(latencies)} writes in {seconds:.0f} s")
    print(
        f"write latency ms: median {statistics.median(latencies):.1f}  p95 {pct(latencies, 0.95):.1f}"
        f"  max {max(latencies):.1f}  (refused {refused})"
    )
    if delays:
        print(
            f"seen by all {watchers} ms: median {statistics.median(delays):.1f}  p95 {pct(delays, 0.95):.1f}"
            f"  max {max(delays):.1f}  (changes not seen by every watcher: {missing})"
        )
    return 0 if refused == 0 and missing == 0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=5.0, help="writes per second")
    parser.add_argument("--watchers", type=int, default=9)
    parser.add_argument("--url", help="use a running server (started with LOCAL access) instead of starting one")
    args = parser.parse_args()
    if args.url:
        return run(args.url, args.seconds, args.rate, args.watchers)
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {**os.environ, "BECHER_DATA": tmp, "PYTHONUNBUFFERED": "1"}
        cmd = [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
        proc = subprocess.Popen(
            [*cmd, "--db", str(Path(tmp) / "load.sqlite3")], cwd=ROOT, env=env, stdout=subprocess.DEVNULL
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        print("the server did not start", file=sys.stderr)
                        return 1
                    time.sleep(0.1)
            return run(f"http://127.0.0.1:{port}", args.seconds, args.rate, args.watchers)
        finally:
            proc.terminate()
            proc.wait(15)


if __name__ == "__main__":
    sys.exit(main())
