"""The server under a hostile or careless network: slow clients and big photos, against `becher serve` on loopback.

Slow clients: opens --slow sockets that send a request a header line at a time (one line a second, as slowloris
does), then times --probes normal requests while they stay open; the same with slow bodies and with stalled TLS
handshakes on an --https server.

Big photos: uploads --photos large images at once (an 8000x8000 PNG of a few hundred KB, then an 8000x8000 JPEG)
and prints when each was answered, with what, and the server's peak memory (resident set, sampled every 20 ms from
/proc; Linux only) above what it held before.

    python benchmarks/hostile.py [--slow 200] [--probes 20] [--photos 4]

Aim (issue 35): normal requests well under a second with 200 slow sockets open; four concurrent 8000x8000 uploads
answered within a minute with the server under 1.5 GB.

Strangers (issue 60): a device that never joined the owner's games (its own cookie, and a Host that is not the
host machine's own loopback name, which `becher serve` trusts as owner of everything) sends what the audit sent to
the routes of players, statistics and saved dice sets: another device's set listed, used, overwritten and deleted,
its players renamed and merged, statistics of every id and of one id 13,000 times, numbers that are no numbers on
every route, page and form, bodies that say nothing, OPTIONS, an https Origin, headers past 64 KB; then a game
started from a 480-lesson set by its owner (first unpacked, then cached) and by a stranger. Each line: the request,
the status (what it must be), ms and bytes; the last line says whether every status was the one expected.

    python benchmarks/hostile.py --skip-slow --skip-photos   # the strangers alone, a few seconds

Two more figures of a hostile or careless client (issue 55) have their own scripts, as each takes minutes:
benchmarks/long_games.py (a 1 MB import of a legal game of 20,000 actions, then reads and writes of it) and
benchmarks/photo_memory.py (the server's resident set over hundreds of 12-MP uploads).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import io
import json
import os
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """`becher serve` in a temporary data folder on a free loopback port."""

    def __init__(self, tmp: str, https: bool = False) -> None:
        self.port = free_port()
        self.https = https
        env = {**os.environ, "BECHER_DATA": tmp, "PYTHONUNBUFFERED": "1"}
        cmd = [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        cmd += ["--db", str(Path(tmp) / f"bench-{self.port}.sqlite3")] + (["--https"] if https else [])
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                status, _ = self.get("/api/rules")
                if status == 200:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise SystemExit("the server did not start")
            time.sleep(0.2)

    def connection(self, timeout: float = 60) -> http.client.HTTPConnection:
        if self.https:
            ctx = ssl._create_unverified_context()
            return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout, context=ctx)
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def get(self, path: str) -> tuple[int, bytes]:
        conn = self.connection(10)
        try:
            conn.request("GET", path)
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    def rss_mb(self) -> float:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def probe_times(server: Served, probes: int, tick: Any) -> list[float]:
    times = []
    for _ in range(probes):
        tick()
        started = time.perf_counter()
        try:
            status, _ = server.get("/api/rules")
        except OSError:
            status = 0
        took = time.perf_counter() - started
        times.append(took * 1000 if status == 200 else float("inf"))
        time.sleep(1.0)
    return times


def slow_case(server: Served, label: str, count: int, first: bytes, line: bytes, probes: int) -> None:
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        if first:
            sock.sendall(first)
        socks.append(sock)

    def tick() -> None:
        for sock in socks:
            with contextlib.suppress(OSError):
                if line:
                    sock.sendall(line)

    try:
        times = probe_times(server, probes, tick)
    finally:
        for sock in socks:
            sock.close()
    failed = sum(1 for t in times if t == float("inf"))
    ok = [t for t in times if t != float("inf")] or [float("nan")]
    print(
        f"{label:<44} {count} sockets: normal request ms median {statistics.median(ok):.1f}  "
        f"p95 {pct(ok, 0.95):.1f}  max {max(ok):.1f}  (failed {failed} of {len(times)})"
    )


def trickled_photos_case(server: Served, label: str, count: int, probes: int) -> None:
    """A device that may post photos (here the host's own machine, owner of every game) sends ``count`` 5 MB photos
    a byte a second: how fast normal requests stay, and what each upload is answered (web/gate.py: two read at once
    per address, 503 for the rest; 408 once one falls below the minimum pace)."""
    conn = server.connection(10)
    conn.request(
        "POST",
        "/api/games",
        json.dumps({"game": "bone", "players": ["A", "B"]}),
        {"Content-Type": "application/json", "X-Becher": "1"},
    )
    game = json.loads(conn.getresponse().read())["game"]["id"]
    conn.close()
    head = (
        f"POST /api/games/{game}/photos HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Becher: 1\r\n"
        "Content-Type: image/jpeg\r\nContent-Length: 5000000\r\n\r\n"
    ).encode() + b"x" * 1000
    started = time.monotonic()
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        sock.sendall(head)
        socks.append(sock)
    answers: dict[int, tuple[str, float]] = {}

    def tick() -> None:
        for i, sock in enumerate(socks):
            if i in answers:
                continue
            with contextlib.suppress(OSError):
                sock.sendall(b"x")
                sock.settimeout(0.01)
                got = sock.recv(64)
                if got:
                    answers[i] = (got.split(b" ", 2)[1].decode("latin-1"), time.monotonic() - started)

    try:
        times = probe_times(server, probes, tick)
    finally:
        for sock in socks:
            sock.close()
    ok = [t for t in times if t != float("inf")] or [float("nan")]
    by_status: dict[str, list[float]] = {}
    for status, when in answers.values():
        by_status.setdefault(status, []).append(when)
    told = "  ".join(f"{k}: {len(v)} (by {max(v):.1f} s)" for k, v in sorted(by_status.items()))
    print(
        f"{label:<44} {count} uploads: normal request ms median {statistics.median(ok):.1f}  "
        f"max {max(ok):.1f}  (failed {len(times) - len([t for t in times if t != float('inf')])} of {len(times)})"
    )
    print(f"{'':<44} answered within {probes} s: {told or 'none'}; unanswered {count - len(answers)}")


def big_png() -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (8000, 8000), (30, 70, 40))
    draw = ImageDraw.Draw(img)
    for i in range(12):
        x = 400 + i * 600
        draw.rounded_rectangle((x, 3600, x + 500, 4100), radius=60, fill=(240, 240, 235))
    out = io.BytesIO()
    img.save(out, "PNG", optimize=True)
    return out.getvalue()


def big_jpeg() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.open(io.BytesIO(big_png())).save(out, "JPEG", quality=85)
    return out.getvalue()


def photo_case(server: Served, label: str, data: bytes, count: int) -> None:
    conn = server.connection()
    body = json.dumps({"game": "bone", "players": ["A", "B"]})
    conn.request("POST", "/api/games", body=body, headers={"X-Becher": "1", "Content-Type": "application/json"})
    game = json.loads(conn.getresponse().read())["game"]["id"]
    conn.close()
    from PIL import Image

    small = io.BytesIO()
    Image.new("RGB", (640, 480), (30, 70, 40)).save(small, "JPEG")
    warm = server.connection(120)  # one small photo first, so the reader's models are loaded before measuring
    warm.request(
        "POST",
        f"/api/games/{game}/photos",
        body=small.getvalue(),
        headers={"X-Becher": "1", "Content-Type": "image/jpeg"},
    )
    warm.getresponse().read()
    warm.close()
    time.sleep(1.0)
    before = server.rss_mb()
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], server.rss_mb())
            time.sleep(0.02)

    answers: list[tuple[float, int, str]] = []
    started = time.perf_counter()

    def send() -> None:
        c = server.connection(120)
        try:
            c.request(
                "POST", f"/api/games/{game}/photos", body=data, headers={"X-Becher": "1", "Content-Type": "image/png"}
            )
            r = c.getresponse()
            answer = json.loads(r.read())
            what = answer.get("code") or ("read" if answer.get("reading") else "stored, no reading")
            answers.append((time.perf_counter() - started, r.status, what))
        except OSError as exc:
            answers.append((time.perf_counter() - started, 0, str(exc)))
        finally:
            c.close()

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    senders = [threading.Thread(target=send) for _ in range(count)]
    for t in senders:
        t.start()
    for t in senders:
        t.join(180)
    done.set()
    sampler.join(1)
    answers.sort()
    last = answers[-1][0] if answers else float("nan")
    statuses = ", ".join(f"{s} {w} at {t:.1f} s" for t, s, w in answers)
    print(f"{label:<44} {count} at once ({len(data) // 1024} KB each): last answer after {last:.1f} s")
    print(f"{'':<44} answers: {statuses}")
    print(f"{'':<44} server memory MB: before {before:.0f}  peak {peak[0]:.0f}  (+{peak[0] - before:.0f})")


class Client:
    """One device against the server: its own cookie, a Host that is not a loopback name (so not the host machine)."""

    def __init__(self, server: Served, host: str = "10.0.0.2") -> None:
        self.server = server
        self.headers = {"Host": f"{host}:{server.port}", "X-Becher": "1"}

    def call(self, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, bytes, float]:
        conn = self.server.connection(120)
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        sent = {**self.headers, **({"Content-Type": "application/json"} if body is not None else {}), **headers}
        started = time.perf_counter()
        try:
            conn.request(method, path, body=data, headers=sent)
            r = conn.getresponse()
            answer = r.read()
            cookie = r.getheader("Set-Cookie")
            if cookie and "Cookie" not in self.headers:
                self.headers["Cookie"] = cookie.split(";", 1)[0]
            return r.status, answer, (time.perf_counter() - started) * 1000
        finally:
            conn.close()


def saved_set_of(db: Path, owner: str, name: str, lessons: int = 480) -> int:
    """A saved set of ``lessons`` lessons of ``owner`` written into the server's database beside it (as a game's
    memory saved with ``POST /api/games/<id>/dice-set`` keeps one; the reader is not needed for it)."""
    import sqlite3

    import numpy as np

    sys.path.insert(0, str(ROOT))
    from web.lessons import Lesson, _pack

    rng = np.random.default_rng(0)
    rows = [
        (
            n // 5,
            Lesson(n % 5, n % 6, False, 0.05, "pip", "bench", rng.normal(size=(4, 640)).astype(np.float16).tobytes()),
        )
        for n in range(lessons)
    ]
    with sqlite3.connect(db, timeout=15) as conn:
        cur = conn.execute(
            "INSERT INTO dice_sets (name, kind, model, owner, seen, data, created)"
            " VALUES (?, 'pip', 'bench', ?, ?, ?, 0)",
            (name, owner, lessons, _pack(rows)),
        )
        return int(cur.lastrowid or 0)


def strangers_case(server: Served, db: Path) -> bool:
    """The audit's requests of issue 60 against the new routes; True where every status is the one expected."""
    owner, stranger = Client(server), Client(server)
    status, body, _ = owner.call("POST", "/api/games", {"game": "bone", "players": ["Anna", "Ben"]})
    game = json.loads(body)["game"]["id"]
    device = json.loads(owner.call("GET", "/api/me")[1])["device"]
    stranger.call("POST", "/api/games", {"game": "bone", "players": ["anna", "Cheater"]})
    big = saved_set_of(db, device, "red casino dice")
    players = json.loads(owner.call("GET", "/api/players")[1])["players"]
    anna = next(p["id"] for p in players if p["name"] == "Anna")
    theirs = next(
        p["id"] for p in json.loads(stranger.call("GET", "/api/players")[1])["players"] if p["name"] == "anna"
    )
    new_game = {"game": "bone", "players": ["A", "B"], "dice_set": big}
    numbers = ["%C2%B2", "9" * 5000]
    cases: list[tuple[Client, str, str, Any, dict[str, str], set[int]]] = [
        (Client(server), "GET", "/api/dice-sets (no cookie)", None, {}, {200}),
        (stranger, "POST", "/api/games from another device's set", {**new_game}, {}, {404}),
        (stranger, "DELETE", f"/api/dice-sets/{big}", None, {}, {404}),
        (stranger, "POST", f"/api/players/{anna}", {"name": "Cheater"}, {}, {404}),
        (stranger, "POST", f"/api/players/{theirs}/merge", {"into": anna}, {}, {404}),
        (stranger, "GET", "/api/stats?players=" + ",".join(str(n) for n in range(1, 40)), None, {}, {404}),
        (stranger, "GET", f"/api/stats?game_id={game}", None, {}, {404}),
        (stranger, "GET", "/stats?players=" + ",".join(str(n) for n in range(1, 40)), None, {}, {200}),
        (owner, "GET", "/api/stats?players=" + ",".join([str(anna)] * 13_000), None, {}, {200}),
        (owner, "GET", "/stats?" + "&".join([f"players={anna}"] * 3_000), None, {}, {200}),
        (owner, "GET", "/api/stats?players=" + ",".join(str(n) for n in range(1, 60)), None, {}, {400}),
        (owner, "DELETE", "/api/dice-sets/9223372036854775808", None, {}, {404}),
        *[
            (owner, "GET", f"{route}?player={n}", None, {}, {400})
            for route in ("/api/history", "/api/history.csv", "/api/throws.csv", "/history")
            for n in numbers
        ],
        *[(owner, "GET", f"/api/stats?players={n}", None, {}, {400}) for n in numbers],
        (owner, "GET", "/history?page=" + "9" * 5000, None, {}, {400}),
        (owner, "GET", "/stats?players=%C2%B2", None, {}, {200}),
        *[
            (
                owner,
                "POST",
                f"/phone/{game}/me",
                f"seat={n}".encode(),
                {"Content-Type": "application/x-www-form-urlencoded"},
                {400},
            )
            for n in numbers
        ],
        (owner, "POST", f"/api/games/{game}/seat", {}, {}, {400}),
        (owner, "POST", "/api/camera/watch", {"auto_confirm": True}, {}, {400}),
        (owner, "OPTIONS", "/api/rules", None, {}, {405}),
        (owner, "POST", "/api/games", {"game": "bone", "players": ["A", "B"]}, {"Origin": "https://10.0.0.2"}, {403}),
        (owner, "GET", "/api/rules (70 KB header)", None, {"X-Big": "a" * 70_000}, {431}),
        (owner, "POST", "/api/games from its own 480-lesson set (unpacked)", {**new_game}, {}, {201}),
        (owner, "POST", "/api/games from its own 480-lesson set (cached)", {**new_game}, {}, {201}),
    ]
    right = True
    print(f"{'strangers (issue 60)':<44} status (expected)   ms     bytes")
    for client, method, label, body_, headers, expected in cases:
        path = label.split(" ")[0] if label.startswith("/") else label
        if method == "POST" and path.startswith("/api/games") and "set" in label:
            path = "/api/games"
        try:
            status, answer, ms = client.call(method, path, body_, **headers)
        except (OSError, http.client.HTTPException):
            status, answer, ms = 0, b"", float("nan")
        json_shape = not path.startswith("/api") or answer[:1] == b"{" or status < 400
        right = right and status in expected and json_shape
        shown = label if len(label) <= 60 else label[:57] + "..."
        print(f"  {method:<7} {shown:<60} {status} ({'/'.join(map(str, sorted(expected)))}) {ms:8.1f} {len(answer):8}")
    print(f"{'':<44} every status as expected, every /api error JSON: {'yes' if right else 'NO'}")
    return right


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", type=int, default=200, help="slow sockets at once")
    parser.add_argument("--probes", type=int, default=10, help="normal requests timed per case, one a second")
    parser.add_argument("--photos", type=int, default=4, help="large uploads at once")
    parser.add_argument("--skip-photos", action="store_true")
    parser.add_argument("--skip-slow", action="store_true")
    parser.add_argument("--skip-strangers", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = Served(tmp)
        try:
            if not args.skip_strangers:
                strangers_case(server, Path(tmp) / f"bench-{server.port}.sqlite3")
            if not args.skip_slow:
                slow_case(server, "no slow clients", 0, b"", b"", args.probes)
                head = b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                slow_case(server, "slow headers (a line a second)", args.slow, head, b"X-Slow: 1\r\n", args.probes)
                post = (
                    b"POST /api/join HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Becher: 1\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
                )
                slow_case(server, "slow bodies (a byte a second)", args.slow, post, b" ", args.probes)
                slow_case(server, "connected, never sending", args.slow, b"", b"", args.probes)
                trickled_photos_case(server, "joined device: 5 MB photos, a byte a second", 50, max(args.probes, 15))
            if not args.skip_photos:
                photo_case(server, "8000x8000 PNG uploads", big_png(), args.photos)
                photo_case(server, "8000x8000 JPEG uploads", big_jpeg(), args.photos)
        finally:
            server.stop()
        if not args.skip_slow:
            tls = Served(tmp, https=True)
            try:
                slow_case(tls, "HTTPS: connected, no handshake", args.slow, b"", b"", args.probes)
                slow_case(
                    tls,
                    "HTTPS: handshake started, then stalled",
                    args.slow,
                    b"\x16\x03\x01\x00\xff\x01",
                    b"",
                    args.probes,
                )
            finally:
                tls.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
