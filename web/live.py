"""Live updates by Server-Sent Events: every change of a game reaches every device watching it.

Each stream holds one server thread and waits on its own queue; a write publishes the new game once (serialized once,
shared by all watchers). Events carry the game's revision as id, and every ``game`` event is the whole game, so a
device that reconnects with ``Last-Event-ID`` catches up by getting the current game, not a replay of missed events.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
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
    a quiet one for many minutes. A device rarely watches a game in more than a few tabs, so when it opens more than
    ``per_device`` streams on one game its oldest ones (most likely dead) are closed, and reconnecting phones never
    pile up threads.
    """

    def __init__(self, per_device: int = 4) -> None:
        self._lock = threading.Lock()
        self._subs: dict[str, set[queue.SimpleQueue[Event]]] = {}
        self._mine: dict[tuple[str, str], deque[queue.SimpleQueue[Event]]] = {}
        self._per_device = max(1, per_device)
        self._closed = False

    def subscribe(self, game_id: str, device: str | None = None) -> queue.SimpleQueue[Event]:
        q: queue.SimpleQueue[Event] = queue.SimpleQueue()
        evicted: list[queue.SimpleQueue[Event]] = []
        with self._lock:
            if self._closed:
                q.put(_CLOSE)
            self._subs.setdefault(game_id, set()).add(q)
            if device is not None:
                mine = self._mine.setdefault((game_id, device), deque())
                mine.append(q)
                while len(mine) > self._per_device:
                    old = mine.popleft()
                    self._subs[game_id].discard(old)
                    evicted.append(old)
        for old in evicted:
            old.put(_CLOSE)
        return q

    def unsubscribe(self, game_id: str, q: queue.SimpleQueue[Event], device: str | None = None) -> None:
        with self._lock:
            subs = self._subs.get(game_id)
            if subs is not None:
                subs.discard(q)
                if not subs:
                    del self._subs[game_id]
            if device is not None:
                mine = self._mine.get((game_id, device))
                if mine is not None:
                    with contextlib.suppress(ValueError):
                        mine.remove(q)
                    if not mine:
                        del self._mine[(game_id, device)]

    def watchers(self, game_id: str | None = None) -> int:
        with self._lock:
            if game_id is not None:
                return len(self._subs.get(game_id, ()))
            return sum(len(s) for s in self._subs.values())

    def publish(self, game_id: str, name: str, payload: Any, event_id: int | None = None) -> None:
        event = Event(name, json.dumps(payload, ensure_ascii=False, separators=(",", ":")), event_id)
        with self._lock:
            subs = list(self._subs.get(game_id, ()))
        for q in subs:
            q.put(event)

    def end_game(self, game_id: str) -> None:
        """Tell every watcher of a deleted game, then close their streams."""
        self.publish(game_id, "deleted", {"id": game_id})
        with self._lock:
            subs = list(self._subs.pop(game_id, ()))
            for key in [k for k in self._mine if k[0] == game_id]:
                del self._mine[key]
        for q in subs:
            q.put(_CLOSE)

    def close(self) -> None:
        """End every stream (server shutdown), so no thread stays blocked on a queue."""
        with self._lock:
            self._closed = True
            subs = [q for s in self._subs.values() for q in s]
            self._subs.clear()
            self._mine.clear()
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
) -> Iterator[str]:
    """The SSE body: subscribe first, then send the current game unless the client already has it, then follow.

    Subscribing before reading the current game means no change can fall between the two; a ``game`` event no newer
    than what was sent is skipped, so publish order between two quick writers does not matter. ``allowed`` is asked
    again before every event and keep-alive: a device removed from the game, or a viewer after the owner closed the
    public view, gets nothing more and its stream ends.
    """
    q = hub.subscribe(game_id, device)
    try:
        yield "retry: 1000\n\n"
        revision, game = current()
        sent = last_id if last_id is not None else -1
        if revision != sent:
            yield Event(
                "game", json.dumps({"game": game}, ensure_ascii=False, separators=(",", ":")), revision
            ).encode()
            sent = revision
        while True:
            try:
                event = q.get(timeout=heartbeat_s)
            except queue.Empty:
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
