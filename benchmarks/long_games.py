"""A long game against `becher serve` on loopback: what an import of it costs, and then each read and each write.

A legal Bone game whose tie at the end is played again and again (one round, two players whose hands always tie)
grows by four actions per extra round without end; its log is ~43 bytes an action. This benchmark imports such a game
of --actions actions (the server folds it once), then times --repeat reads (`GET /api/games/<id>`) and writes (a throw
or a stand, `POST /api/games/<id>/actions`), and the same for a game of 20 actions, so the two can be compared.

    python benchmarks/long_games.py [--actions 20000] [--repeat 10]

Aim (issue 55): the import at 1 MB a second or more; reads and writes of the long game about as fast as of the short.
Aim (issue 60): a read and a write of the 20,000-action game at most 50 ms on two cores; its answer carries the
last 40 rounds of the tie (``history_left_out`` says how many more), so it stays a few tens of KB.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.hostile import Served

HEADERS = {"X-Becher": "1"}
AIM_MS = 50.0


def tie_log(actions: int) -> str:
    """A Bone log of ``actions`` actions (a multiple of four): one round, then extra rounds that tie every time."""
    lines = [json.dumps({"becher": 1, "game": "bone", "players": ["Anna", "Ben"], "settings": {"rounds": 1}})]
    for n in range(actions):
        player = (n // 2) % 2
        if n % 2 == 0:
            lines.append(json.dumps({"type": "throw", "player": player, "dice": [6, 6, 6, 5, 5]}))
        else:
            lines.append(json.dumps({"type": "stand", "player": player}))
    return "\n".join(lines) + "\n"


def call(
    conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None, headers: dict[str, str]
) -> tuple[bytes, float]:
    """The answer's bytes and the seconds from sending to its last byte (the client's JSON parsing not counted)."""
    started = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    took = time.perf_counter() - started
    if r.status >= 400:
        raise SystemExit(f"{method} {path}: {r.status} {data[:300]!r}")
    cookie = r.getheader("Set-Cookie")
    if cookie and "Cookie" not in headers:
        headers["Cookie"] = cookie.split(";", 1)[0]
    return data, took


def cpu_s(pid: int) -> float:
    """CPU seconds the server has used (user + system, from /proc; Linux only): unlike wall time, not inflated when
    other programs share the cores."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(server: Served, actions: int, repeat: int) -> tuple[float, float]:
    """Import a game of ``actions`` actions, then time reads and writes of it; returns their medians in ms."""
    text = tie_log(actions).encode()
    conn = server.connection(300)
    headers = {**HEADERS, "Content-Type": "application/x-ndjson"}
    pid = server.proc.pid
    cpu = cpu_s(pid)
    answer, took = call(conn, "POST", "/api/games/import", text, headers)
    cpu = cpu_s(pid) - cpu
    game = json.loads(answer)["game"]
    mb = len(text) / 1e6
    print(
        f"{actions:>6} actions: import {mb:.2f} MB in {took:.2f} s ({mb / took:.2f} MB/s); "
        f"server CPU {cpu:.2f} s ({mb / max(cpu, 0.01):.2f} MB per CPU second)"
    )
    reads, size = [], 0
    cpu = cpu_s(pid)
    for _ in range(repeat):
        data, took = call(conn, "GET", f"/api/games/{game['id']}", None, headers)
        reads.append(took)
        size = len(data)
    read_cpu = (cpu_s(pid) - cpu) / repeat
    writes = []
    seen = game["state"]["actions"]
    jheaders = {**headers, "Content-Type": "application/json"}
    cpu = cpu_s(pid)
    for _ in range(repeat):
        player = (seen // 2) % 2
        action: dict[str, Any] = {"type": "throw", "player": player, "dice": [6, 6, 6, 5, 5]}
        if seen % 2:
            action = {"type": "stand", "player": player}
        body = json.dumps({"seen": seen, "action": action}).encode()
        writes.append(call(conn, "POST", f"/api/games/{game['id']}/actions", body, jheaders)[1])
        seen += 1
    write_cpu = (cpu_s(pid) - cpu) / repeat
    conn.close()
    print(
        f"{'':>6}          read ms median {statistics.median(reads) * 1000:.1f}, max {max(reads) * 1000:.1f}, "
        f"server CPU {read_cpu * 1000:.0f} ms each ({size / 1e6:.2f} MB answer)"
    )
    print(
        f"{'':>6}          write ms median {statistics.median(writes) * 1000:.1f}, max {max(writes) * 1000:.1f}, "
        f"server CPU {write_cpu * 1000:.0f} ms each"
    )
    return statistics.median(reads) * 1000, statistics.median(writes) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = Served(tmp)
        try:
            measure(server, 20, args.repeat)
            read, write = measure(server, args.actions - args.actions % 4, args.repeat)
            aim = "yes" if max(read, write) <= AIM_MS else "NO"
            print(f"aim (issue 60): the long game's median read and write at most {AIM_MS:.0f} ms: {aim}")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
