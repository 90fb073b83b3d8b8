"""Live updates: every watcher gets each change, a reconnecting device catches up, deletion ends the stream."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from flask import Flask

from tests.web.conftest import BONE_ROUND, Device
from web.live import Hub, stream


class Stream:
    """Reads Server-Sent Events from a streaming test response, one event (dict of fields) at a time."""

    def __init__(self, device: Device, url: str, headers: dict[str, str] | None = None) -> None:
        self.response = device.client.get(url, headers=headers or {}, buffered=False)
        assert self.response.status_code == 200, self.response.get_data(as_text=True)
        assert self.response.mimetype == "text/event-stream"
        self._chunks: Iterator[bytes] = iter(self.response.response)  # type: ignore[arg-type]
        self._buffer = ""

    def next(self, skip_comments: bool = True) -> dict[str, Any]:
        while True:
            while "\n\n" not in self._buffer:
                self._buffer += next(self._chunks).decode()
            block, self._buffer = self._buffer.split("\n\n", 1)
            fields: dict[str, Any] = {}
            for line in block.split("\n"):
                if line.startswith(":"):
                    fields.setdefault("comment", line[1:].strip())
                    continue
                key, _, value = line.partition(": ")
                fields[key] = value
            if skip_comments and set(fields) <= {"comment", "retry"}:
                continue
            if "data" in fields:
                fields["data"] = json.loads(fields["data"])
            return fields

    def close(self) -> None:
        self.response.close()


def test_watcher_gets_the_current_game_then_every_change(client: Device, join: Callable[[str], Device]) -> None:
    game = client.create()
    phone = join(game["id"])
    tablet = Stream(client, f"/api/games/{game['id']}/events")
    first = tablet.next()
    assert first["event"] == "game" and first["id"] == "0"
    assert first["data"]["game"]["state"]["actions"] == 0
    for n, action in enumerate(BONE_ROUND[:3], start=1):
        answer = phone.play(game["id"], action, seen=n - 1).json["game"]
        event = tablet.next()
        assert event["event"] == "game" and event["id"] == str(n)
        assert event["data"]["game"] == answer
    undo = client.post(f"/api/games/{game['id']}/undo", json={"seen": 3}).json["game"]
    assert tablet.next()["data"]["game"] == undo
    tablet.close()


def test_reconnect_with_last_event_id_catches_up(client: Device) -> None:
    game = client.create()
    url = f"/api/games/{game['id']}/events"
    first = Stream(client, url)
    assert first.next()["id"] == "0"
    first.close()
    # the device is away while two changes happen
    client.play(game["id"], BONE_ROUND[0], seen=0)
    client.play(game["id"], BONE_ROUND[1], seen=1)
    back = Stream(client, url, headers={"Last-Event-ID": "0"})
    event = back.next()
    assert event["id"] == "2" and event["data"]["game"]["state"]["actions"] == 2
    back.close()
    # a device that is up to date gets nothing until the next change, then exactly that change
    current = Stream(client, url + "?last=2")
    assert current.next(skip_comments=False) == {"retry": "1000"}
    assert current.next(skip_comments=False)["comment"] == "keep-alive"
    client.play(game["id"], BONE_ROUND[2], seen=2)
    assert current.next()["id"] == "3"
    current.close()


def test_public_viewer_may_watch_and_deletion_ends_every_stream(
    client: Device, new_device: Callable[[], Device]
) -> None:
    game = client.create()
    client.post(f"/api/games/{game['id']}/access", json={"public": True})
    viewer = Stream(new_device(), f"/api/games/{game['id']}/events")
    assert viewer.next()["data"]["game"]["public"] is True
    client.delete(f"/api/games/{game['id']}")
    event = viewer.next()
    assert event["event"] == "deleted" and event["data"] == {"id": game["id"]}
    try:
        tail = b"".join(viewer._chunks)
    finally:
        viewer.close()
    assert b"event:" not in tail


def test_nine_watchers_on_threads_each_get_every_change(
    app: Flask, client: Device, join: Callable[[str], Device]
) -> None:
    game = client.create(players=[f"P{i}" for i in range(8)])
    phone = join(game["id"])
    seen: list[queue.Queue[int]] = [queue.Queue() for _ in range(9)]
    streams = [Stream(client if i == 0 else join(game["id"]), f"/api/games/{game['id']}/events") for i in range(9)]
    for s in streams:
        assert s.next()["id"] == "0"

    def follow(i: int) -> None:
        got = 0
        while got < 4:
            event = streams[i].next()
            if event.get("event") == "game":  # others (a phone joining: "members") are no change of the game
                seen[i].put(int(event["id"]))
                got += 1

    threads = [threading.Thread(target=follow, args=(i,), daemon=True) for i in range(9)]
    for t in threads:
        t.start()
    for n, action in enumerate(BONE_ROUND[:4]):
        assert phone.play(game["id"], action, seen=n).status_code == 201
    for i in range(9):
        got = [seen[i].get(timeout=10) for _ in range(4)]
        assert got == [1, 2, 3, 4], (i, got)
    for t in threads:
        t.join(timeout=5)
    for s in streams:
        s.close()
    assert app.extensions["becher.hub"].watchers(game["id"]) == 0


def test_stream_skips_game_events_not_newer_than_what_it_sent() -> None:
    hub = Hub()
    body = stream(hub, "g", None, lambda: (5, {"n": 5}), heartbeat_s=0.05)
    assert next(body).startswith("retry")
    assert '"n":5' in next(body)
    hub.publish("g", "game", {"n": 4}, 4)  # an older change published late by a slower writer
    hub.publish("g", "photo", {"p": 1})
    hub.publish("g", "game", {"n": 6}, 6)
    assert next(body) == 'event: photo\ndata: {"p":1}\n\n'
    assert next(body) == 'id: 6\nevent: game\ndata: {"n":6}\n\n'
    hub.close()
    assert list(body) == []
    assert hub.watchers() == 0


# ---------------------------------------------------------------------------------------------- stream slots


def test_one_device_watching_its_own_twelve_games_leaves_slots_for_another_table(
    app: Flask, client: Device, new_device: Callable[[], Device]
) -> None:
    hub = app.extensions["becher.hub"]
    per_device_all = app.config["LIVE_PER_DEVICE_ALL"]
    app.config["LIVE_MAX_STREAMS"] = per_device_all + 1
    streams = []
    for _ in range(12):
        url = f"/api/games/{client.create()['id']}/events"
        for _ in range(4):
            streams.append(Stream(client, url))
            streams[-1].next()
    assert hub.watchers() == per_device_all  # each new one closed this device's oldest
    other = new_device()
    other_game = other.create()
    tablet = Stream(other, f"/api/games/{other_game['id']}/events")  # another game's tablet still gets its stream
    assert tablet.next()["event"] == "game"
    for s in [*streams, tablet]:
        s.close()
    assert hub.watchers() == 0


def test_one_address_with_a_cookie_per_stream_holds_only_its_share(
    app: Flask, client: Device, join: Callable[[str], Device], new_device: Callable[[], Device]
) -> None:
    hub = app.extensions["becher.hub"]
    per_address = app.config["LIVE_PER_ADDRESS"]
    game = client.create()
    url = f"/api/games/{game['id']}/events"
    streams = []
    for _ in range(48):
        streams.append(Stream(join(game["id"]), url))
        streams[-1].next()
    assert hub.watchers() == per_address
    other = new_device()
    other.client.environ_base["REMOTE_ADDR"] = "192.168.1.23"
    theirs = other.create()
    mine = Stream(other, f"/api/games/{theirs['id']}/events")
    assert mine.next()["event"] == "game" and hub.watchers(theirs["id"]) == 1
    for s in [*streams, mine]:
        s.close()


def test_a_closed_connection_frees_its_slot_within_a_second_not_at_the_next_keep_alive() -> None:
    import socket
    import time

    from web import live

    hub = live.Hub()
    server_side, client_side = socket.socketpair()
    body = live.stream(
        hub, "g1", None, lambda: (0, {}), 60.0, "dev", address="10.0.0.2", gone=lambda: live.client_gone(server_side)
    )
    assert next(body).startswith("retry") and next(body).startswith("id: 0")
    assert hub.watchers("g1") == 1 and not live.client_gone(server_side)
    done = threading.Event()

    def drain() -> None:
        for _ in body:
            pass
        done.set()

    threading.Thread(target=drain, daemon=True).start()
    started = time.monotonic()
    client_side.close()
    assert done.wait(5) and time.monotonic() - started < 2.0
    assert hub.watchers() == 0
    server_side.close()
    assert live.client_gone(server_side)
