"""Live updates by Server-Sent Events: every change of a game reaches every device watching it.

Each stream holds one server thread and waits on its own queue; a write publishes the new game once (serialized once,
shared by all watchers). Events carry the game's revision as id, and every ``game`` event is the whole game, so a
device that reconnects with ``Last-Event-ID`` catches up by getting the current game, not a replay of missed events.
"""

from __future__ import annotations

import contextlib
import json
import queue
import select
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Event:
    name: str
    data: str
    id: int | None = None

    def encode(self) -> str:
        head = f"id: {self.id}\n" if self.id is not None else ""
        return f"{head}event: {self.name}\ndata: {self.data}\n\n"


_CLOSE = Event("close", "")


class Hub:
    """Fan-out of events per game to subscriber queues; thread-safe.

    Each stream holds a server thread, and a phone that lost the network leaves a stream the server cannot tell from
    a quiet one for many minutes. So one device keeps at most ``per_device`` streams on one game and ``per_device_all``
    over all games, and one network address at most ``per_address`` (one device with a cookie per tab, or a script
    with fresh cookies, is still one machine): opening one more closes that device's (or address's) oldest stream,
    most likely a dead one. Nobody can so take the slots that other games' tablets need, and reconnecting phones
    never pile up threads.
    """

    def __init__(self, per_device: int = 4, per_device_all: int = 8, per_address: int = 16) -> None:
        self._lock = threading.Lock()
        self._subs: dict[str, set[queue.SimpleQueue[Event]]] = {}
        self._who: dict[queue.SimpleQueue[Event], tuple[str, tuple[str, ...]]] = {}  # game, the limits' keys
        self._held: dict[str, deque[queue.SimpleQueue[Event]]] = {}  # a limit's key -> its streams, oldest first
        self._limits = {"g": max(1, per_device), "d": max(1, per_device_all), "a": max(1, per_address)}
        self._closed = False

    def subscribe(
        self, game_id: str, device: str | None = None, address: str | None = None
    ) -> queue.SimpleQueue[Event]:
        q: queue.SimpleQueue[Event] = queue.SimpleQueue()
        keys: list[str] = []
        if device is not None:
            keys += [f"g {game_id} {device}", f"d {device}"]
        if address is not None:
            keys.append(f"a {address}")
        evicted: list[queue.SimpleQueue[Event]] = []
        with self._lock:
            if self._closed:
                q.put(_CLOSE)
            self._subs.setdefault(game_id, set()).add(q)
            self._who[q] = (game_id, tuple(keys))
            for key in keys:
                held = self._held.setdefault(key, deque())
                held.append(q)
                while len(held) > self._limits[key[0]]:
                    old = held[0]
                    self._forget(old)
                    evicted.append(old)
        for old in evicted:
            old.put(_CLOSE)
        return q

    def _forget(self, q: queue.SimpleQueue[Event]) -> None:
        """Remove a stream from every table (under the lock)."""
        who = self._who.pop(q, None)
        if who is None:
            return
        game_id, keys = who
        subs = self._subs.get(game_id)
        if subs is not None:
            subs.discard(q)
            if not subs:
                del self._subs[game_id]
        for key in keys:
            held = self._held.get(key)
            if held is not None:
                with contextlib.suppress(ValueError):
                    held.remove(q)
                if not held:
                    del self._held[key]

    def unsubscribe(self, game_id: str, q: queue.SimpleQueue[Event], device: str | None = None) -> None:
        with self._lock:
            self._forget(q)

    def watchers(self, game_id: str | None = None) -> int:
        with self._lock:
            if game_id is not None:
                return len(self._subs.get(game_id, ()))
            return sum(len(s) for s in self._subs.values())

    def publish(self, game_id: str, name: str, payload: Any, event_id: int | None = None) -> None:
        """Send an event to the game's watchers; a ``str`` payload is JSON text already (a long game's view, made
        once: web.store.Store.text)."""
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        event = Event(name, text, event_id)
        with self._lock:
            subs = list(self._subs.get(game_id, ()))
        for q in subs:
            q.put(event)

    def end_game(self, game_id: str) -> None:
        """Tell every watcher of a deleted game, then close their streams."""
        self.publish(game_id, "deleted", {"id": game_id})
        with self._lock:
            subs = list(self._subs.get(game_id, ()))
            for q in subs:
                self._forget(q)
        for q in subs:
            q.put(_CLOSE)

    def close(self) -> None:
        """End every stream (server shutdown), so no thread stays blocked on a queue."""
        with self._lock:
            self._closed = True
            subs = [q for s in self._subs.values() for q in s]
            self._subs.clear()
            self._who.clear()
            self._held.clear()
        for q in subs:
            q.put(_CLOSE)


def stream(
    hub: Hub,
    game_id: str,
    last_id: int | None,
    current: Callable[[], tuple[int, Any]],
    heartbeat_s: float,
    device: str | None = None,
    allowed: Callable[[], bool] | None = None,
    address: str | None = None,
    gone: Callable[[], bool] | None = None,
    poll_s: float = 1.0,
) -> Iterator[str]:
    """The SSE body: subscribe first, then send the current game unless the client already has it, then follow.

    Subscribing before reading the current game means no change can fall between the two; a ``game`` event no newer
    than what was sent is skipped, so publish order between two quick writers does not matter. ``allowed`` is asked
    again before every event and keep-alive: a device removed from the game, or a viewer after the owner closed the
    public view, gets nothing more and its stream ends. ``gone`` is asked every ``poll_s`` seconds: a client that has
    closed the connection (a tab closed, a page left) frees its slot then, not only at the next keep-alive.
    """
    q = hub.subscribe(game_id, device, address)
    try:
        yield "retry: 1000\n\n"
        revision, game = current()
        sent = last_id if last_id is not None else -1
        if revision != sent:
            text = json.dumps(game, ensure_ascii=False, separators=(",", ":")) if not isinstance(game, str) else game
            yield Event("game", '{"game":' + text + "}", revision).encode()
            sent = revision
        quiet_since = time.monotonic()
        while True:
            wait = heartbeat_s - (time.monotonic() - quiet_since)
            try:
                event = q.get(timeout=max(0.0, min(wait, poll_s) if gone is not None else wait))
            except queue.Empty:
                if gone is not None and gone():
                    return
                if time.monotonic() - quiet_since < heartbeat_s:
                    continue
                quiet_since = time.monotonic()
                if allowed is not None and not allowed():
                    return
                yield ": keep-alive\n\n"
                continue
            if event is _CLOSE:
                return
            if allowed is not None and event.name != "deleted" and not allowed():
                return
            if event.name == "game" and event.id is not None:
                if event.id <= sent:
                    continue
                sent = event.id
            yield event.encode()
            if event.name == "deleted":
                return
    finally:
        hub.unsubscribe(game_id, q, device)


def client_gone(sock: Any) -> bool:
    """Whether the client has closed its side of a live stream's connection. Its reader sends nothing after the
    request, so a socket with something to read has its close waiting (over TLS the close alert comes before the
    end of the stream). ``sock`` is what the server put in the environ (``becher.socket``)."""
    if sock is None:
        return False
    try:
        readable, _, _ = select.select([sock.fileno()], [], [], 0)
        if not readable:
            return False
        if isinstance(sock, ssl.SSLSocket):
            return True
        return socket.socket.recv(sock, 1, socket.MSG_PEEK) == b""
    except (ValueError, OSError):  # closed already
        return True
