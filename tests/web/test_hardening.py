"""Hardening, round two (issue 55): huge numbers, long games, headers past the limit, bodies that are not JSON."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests.web.conftest import BONE_ROUND, Device
from tests.web.test_hostile import png, snapshot
from tests.web.test_server import Server
from tests.web.test_slow_clients import read_answer

HUGE = [10**30, 2**63, -(2**63) - 1, 2**53]


# ---------------------------------------------------------------------------------------------- huge integers


@pytest.mark.parametrize("count", HUGE)
def test_an_undo_of_a_huge_count_is_a_clear_400_and_changes_nothing(app: Flask, client: Device, count: int) -> None:
    game = client.create()
    assert client.play(game["id"], BONE_ROUND[0], seen=0).status_code == 201
    before = snapshot(app)
    r = client.post(f"/api/games/{game['id']}/undo", json={"seen": 1, "count": count})
    assert r.status_code == 400 and r.json["code"] == "malformed", r.json
    assert "count" in r.json["error"]
    assert snapshot(app) == before


@pytest.mark.parametrize("field", ["seen", "revision"])
@pytest.mark.parametrize("value", HUGE)
def test_huge_seen_and_revision_are_a_clear_400(client: Device, field: str, value: int) -> None:
    game = client.create()
    body: dict[str, Any] = {"seen": 0, "revision": 0, "action": BONE_ROUND[0], field: value}
    r = client.post(f"/api/games/{game['id']}/actions", json=body)
    assert r.status_code == 400 and field in r.json["error"], r.json
    assert client.get(f"/api/games/{game['id']}").json["game"]["state"]["actions"] == 0


@pytest.mark.parametrize("value", HUGE)
def test_a_huge_seat_is_a_clear_400(client: Device, value: int) -> None:
    game = client.create()
    r = client.post(f"/api/games/{game['id']}/seat", json={"seat": value})
    assert r.status_code == 400 and "seat" in r.json["error"], r.json


@pytest.mark.parametrize("digits", ["9" * 5000, "9" * 30, "²", "１２", "+3", " 3"])
def test_a_photo_count_that_is_no_small_number_is_a_clear_400(app: Flask, client: Device, digits: str) -> None:
    game = client.create()
    before = snapshot(app)
    r = client.post(f"/api/games/{game['id']}/photos?count={digits}", data=png(), headers={"Content-Type": "image/png"})
    assert r.status_code == 400 and r.json["code"] == "malformed", r.json
    assert "count" in r.json["error"] and len(r.json["error"]) < 200
    assert snapshot(app) == before


@pytest.mark.parametrize(
    "line",
    [
        '{"type": "stand", "player": ' + "9" * 5000 + "}",
        '{"type": "stand", "player": ' + "9" * 4000 + "}",
        '{"type": "throw", "player": 0, "dice": [1, 2, 3, 4, ' + "5" * 40 + "]}",
        '{"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5], "held": [' + "1" * 30 + "]}",
        '{"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 1e999]}',
    ],
)
def test_an_import_line_with_a_huge_number_is_a_clear_400_naming_the_line(
    app: Flask, client: Device, line: str
) -> None:
    header = json.dumps({"becher": 1, "game": "bone", "players": ["A", "B"], "settings": {}})
    before = snapshot(app)
    r = client.post(
        "/api/games/import",
        data=header + "\n" + '{"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5]}\n' + line + "\n",
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert r.status_code == 400 and r.json["code"] == "malformed", r.json
    assert "3" in r.json["error"] and len(r.json["error"]) < 300, r.json["error"]
    assert snapshot(app) == before


@pytest.mark.parametrize("value", ["1" * 40, "9" * 5000, "1e999"])
def test_huge_numbers_in_a_new_games_settings_or_action_are_a_clear_400(client: Device, value: str) -> None:
    raw = '{"game": "bone", "players": ["A", "B"], "settings": {"rounds": ' + value + "}}"
    r = client.post("/api/games", data=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and len(r.json["error"]) < 300, r.json
    game = client.create()
    raw = '{"seen": 0, "action": {"type": "stand", "player": ' + value + "}}"
    r = client.post(f"/api/games/{game['id']}/actions", data=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and len(r.json["error"]) < 300, r.json


LINE = '{"type": "stand", "player": 1' + "0" * 40 + "}"


@pytest.mark.parametrize(
    ("url", "raw", "content_type"),
    [
        ("/api/games/{id}/undo", '{"seen": 0, "count": 1' + "0" * 30 + "}", "application/json"),
        ("/api/games/{id}/undo", "[1" + "0" * 30 + "]", "application/json"),
        ("/api/games/{id}/undo", '{"seen": 0, "count": 0}', "application/json"),
        ("/api/games/import", '{"becher": 1, "game": "bone", "players": ["A", "B"]}\n' + LINE, "text/plain"),
    ],
)
def test_the_number_sentences_are_said_in_every_language(client: Device, url: str, raw: str, content_type: str) -> None:
    game = client.create()
    said = set()
    for lang in ("en", "de", "fr", "it", "es", "pt", "nl", "pl"):
        client.client.set_cookie("becher_lang", lang)
        r = client.post(url.format(id=game["id"]), data=raw, headers={"Content-Type": content_type})
        assert r.status_code == 400
        said.add(r.json["error"])
    assert len(said) == 8, said


def test_a_huge_last_event_id_is_taken_as_none(client: Device, new_device: Callable[[], Device]) -> None:
    game = client.create()
    r = client.get(f"/api/games/{game['id']}/events?last=" + "9" * 5000, buffered=False)
    assert r.status_code == 200
    r.close()


# ---------------------------------------------------------------------------------------------- bodies and headers


@pytest.mark.parametrize(("raw", "content_type"), [(b"", "application/json"), (b"  \n", "application/json"), (b"", "")])
def test_a_seat_with_an_empty_body_is_refused_and_the_seat_kept(
    client: Device, join: Callable[[str], Device], raw: bytes, content_type: str
) -> None:
    game = client.create(bound_seats=True)
    phone = join(game["id"])
    assert phone.post(f"/api/games/{game['id']}/seat", json={"seat": 1}).status_code == 200
    r = phone.post(f"/api/games/{game['id']}/seat", data=raw, headers={"Content-Type": content_type})
    assert r.status_code == 400 and r.json["code"] == "malformed", r.json
    assert '{"seat": 1}' in r.json["error"]
    assert phone.get(f"/api/games/{game['id']}").json["you"]["seat"] == 1
    r = phone.post(f"/api/games/{game['id']}/seat", data=b"seat=1", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and r.json["code"] == "not_json"
    assert phone.get(f"/api/games/{game['id']}").json["you"]["seat"] == 1


def test_the_camera_watch_with_an_empty_body_is_refused_and_keeps_watching(client: Device) -> None:
    game = client.create()
    assert client.post("/api/camera/watch", json={"game": game["id"]}).status_code == 200
    r = client.post("/api/camera/watch", data=b"", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json["code"] == "malformed", r.json
    assert client.get("/api/camera").json["camera"]["game"] == game["id"]
    assert client.post("/api/camera/watch", json={"game": None}).status_code == 200
    assert client.get("/api/camera").json["camera"]["game"] is None


@pytest.mark.parametrize("value", ["0", "yes", "true", "2", " ", "11"])
def test_writes_need_the_header_x_becher_1_exactly_as_the_docs_say(app: Flask, client: Device, value: str) -> None:
    client.create()
    before = snapshot(app)
    r = client.client.post("/api/games", json={"game": "bone", "players": ["A", "B"]}, headers={"X-Becher": value})
    assert r.status_code == 403 and "X-Becher: 1" in r.get_json()["error"], r.get_json()
    assert snapshot(app) == before
    r = client.client.post("/api/games", json={"game": "bone", "players": ["A", "B"]}, headers={"X-Becher": "1"})
    assert r.status_code == 201


# ---------------------------------------------------------------------------------------------- the gate


def test_a_whole_header_block_past_the_limit_is_431(tmp_path: Path) -> None:
    """A 200 KB header line that arrives whole (and at once) is refused as the gate's limit says, not served."""
    from web import gate

    server = Server(tmp_path).start()
    try:
        for size in (gate.HEAD_LIMIT + 10, 200 * 1024):
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
                sock.sendall(b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * size + b"\r\n\r\n")
                answer = read_answer(sock, 10)
            assert answer.startswith(b"HTTP/1.1 431"), answer[:100]
            assert b'"code": "too_large"' in answer and b"application/json" in answer  # the API's error shape
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:  # under the limit: served
            sock.sendall(
                b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Big: "
                + b"a" * 30_000
                + b"\r\n\r\n"
            )
            answer = read_answer(sock, 10)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:100]
    finally:
        server.stop()


class Stalled:
    """cheroot's known-length body over a socket on which nothing more arrives (its timeout runs out)."""

    def __init__(self) -> None:
        self.remaining = 5_000_000
        self.rfile = self

    def read1(self, size: int) -> bytes:
        raise TimeoutError("timed out")

    def readline(self, size: int | None = None) -> bytes:
        raise TimeoutError("timed out")


@pytest.mark.parametrize("how", ["read", "readline"])
def test_a_stalled_large_body_is_408_too_slow(how: str) -> None:
    from werkzeug.exceptions import RequestTimeout

    from web import gate

    body = gate.PacedBody(Stalled(), allowed=True)
    with pytest.raises(RequestTimeout) as caught:
        getattr(body, how)(65536)
    assert "too slowly" in str(caught.value.description)


def test_a_stalled_photo_is_answered_408_too_slow_by_the_api(app: Flask, client: Device) -> None:
    from web import gate

    game = client.create()
    r = client.post(
        f"/api/games/{game['id']}/photos",
        headers={"Content-Type": "image/jpeg"},
        environ_overrides={"wsgi.input": gate.PacedBody(Stalled(), allowed=True), "CONTENT_LENGTH": "5000000"},
    )
    assert r.status_code == 408 and r.json["code"] == "too_slow", r.json


# ---------------------------------------------------------------------------------------------- long games


def tie_log(actions: int) -> str:
    """A legal Bone log that grows without end: one round, then extra rounds that always tie."""
    lines = [json.dumps({"becher": 1, "game": "bone", "players": ["Anna", "Ben"], "settings": {"rounds": 1}})]
    for n in range(actions):
        player = (n // 2) % 2
        action = {"type": "throw", "player": player, "dice": [6, 6, 6, 5, 5]} if n % 2 == 0 else None
        lines.append(json.dumps(action or {"type": "stand", "player": player}))
    return "\n".join(lines) + "\n"


def next_tie_action(seen: int) -> dict[str, Any]:
    player = (seen // 2) % 2
    return (
        {"type": "throw", "player": player, "dice": [6, 6, 6, 5, 5]}
        if seen % 2 == 0
        else {"type": "stand", "player": player}
    )


class Counted:
    """Counts calls of a method of the round games' rules (each fold applies every action; each view builds every
    settled round's JSON unless it is kept)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        from companion.rounds import RoundRules

        self.calls = 0
        original = getattr(RoundRules, name)

        def counting(*args: Any, **kw: Any) -> Any:
            self.calls += 1
            return original(*args, **kw)

        monkeypatch.setattr(RoundRules, name, counting)


def test_a_long_game_is_folded_once_on_import_and_never_again_to_read_write_export_or_advise(
    client: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    applied = Counted(monkeypatch, "apply")
    built = Counted(monkeypatch, "hand_json")
    r = client.post("/api/games/import", data=tie_log(800), headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 201, r.json
    game_id = r.json["game"]["id"]
    assert applied.calls == 800
    applied.calls = built.calls = 0
    for _ in range(3):
        assert client.get(f"/api/games/{game_id}").status_code == 200
    assert client.get(f"/api/games/{game_id}/export").status_code == 200
    assert client.get(f"/api/games/{game_id}/advice").status_code in (200, 409)
    assert applied.calls == 0
    for seen in range(800, 804):  # one extra round more: four actions, one of them settles the round
        assert client.play(game_id, next_tie_action(seen), seen=seen).status_code == 201
    assert applied.calls == 4
    assert built.calls <= 2 * 4  # the new round's hands, not the 400 rounds' before
    r = client.post(f"/api/games/{game_id}/undo", json={"seen": 804, "count": 3})
    assert r.status_code == 200
    assert applied.calls <= 4 + 32  # an undo folds again from the nearest kept state, not from the start
    assert client.get(f"/api/games/{game_id}").json["game"]["state"]["actions"] == 801


def test_a_long_games_answers_are_what_a_fresh_fold_gives(app: Flask, client: Device) -> None:
    """The kept state, the kept round texts and the joined answer text agree with folding the log anew."""
    from companion.core import GameLog
    from web.store import trimmed

    text = tie_log(400)
    r = client.post("/api/games/import", data=text, headers={"Content-Type": "application/x-ndjson"})
    game_id = r.json["game"]["id"]
    for seen in range(400, 406):
        assert client.play(game_id, next_tie_action(seen), seen=seen).status_code == 201
    assert client.post(f"/api/games/{game_id}/undo", json={"seen": 406, "count": 5}).status_code == 200
    answer = client.get(f"/api/games/{game_id}").json["game"]
    fresh = GameLog.from_jsonl(client.get(f"/api/games/{game_id}/export").data.decode())
    assert len(fresh) == 401
    assert answer["state"] == json.loads(json.dumps(trimmed(fresh.summary())))
    full = client.get(f"/api/games/{game_id}?full=1").json["game"]
    assert full["state"] == json.loads(json.dumps(fresh.summary()))
    assert {**full, "state": answer["state"]} == answer
    app.extensions["becher.store"]._logs.clear()  # folded again from the database: the same
    app.extensions["becher.store"]._views.clear()
    assert client.get(f"/api/games/{game_id}").json["game"] == answer


def test_creating_games_is_limited_per_network_address_too(app: Flask, new_device: Callable[[], Device]) -> None:
    """Requests without a cookie are a new device each time; the address's own limit stops them."""
    app.config["GAMES_PER_HOUR_ADDRESS"] = 2
    log = tie_log(8)
    for _ in range(2):
        r = new_device().post("/api/games/import", data=log, headers={"Content-Type": "application/x-ndjson"})
        assert r.status_code == 201
    before = snapshot(app)
    r = new_device().post("/api/games/import", data=log, headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 429 and r.json["code"] == "too_many" and "network address" in r.json["error"]
    r = new_device().post("/api/games", json={"game": "bone", "players": ["A", "B"]})
    assert r.status_code == 429 and r.json["code"] == "too_many"
    assert snapshot(app) == before
    other = new_device()
    r = other.post("/api/games", json={"game": "bone", "players": ["A", "B"]}, environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert r.status_code == 201


def test_imported_actions_are_limited_per_network_address_and_a_refused_log_costs_nothing(
    app: Flask, new_device: Callable[[], Device]
) -> None:
    app.config["IMPORT_ACTIONS_PER_HOUR"] = 100
    assert (
        new_device().post("/api/games/import", data=tie_log(60), headers={"Content-Type": "text/plain"}).status_code
        == 201
    )
    bad = tie_log(32).replace('"stand"', '"sit"', 1)
    assert new_device().post("/api/games/import", data=bad, headers={"Content-Type": "text/plain"}).status_code == 400
    before = snapshot(app)
    r = new_device().post("/api/games/import", data=tie_log(48), headers={"Content-Type": "text/plain"})
    assert r.status_code == 429 and "100 actions" in r.json["error"]
    assert snapshot(app) == before
    assert (
        new_device().post("/api/games/import", data=tie_log(40), headers={"Content-Type": "text/plain"}).status_code
        == 201
    )


def test_a_rematch_counts_as_a_game_started(app: Flask, client: Device) -> None:
    app.config["GAMES_PER_HOUR"] = 2
    game = client.create()
    first = client.post(f"/api/games/{game['id']}/rematch")
    assert first.status_code == 201
    # a second press is the same rematch (issue 53), no new game and nothing counted
    again = client.post(f"/api/games/{game['id']}/rematch")
    assert again.status_code == 201 and again.json["game"]["id"] == first.json["game"]["id"]
    # the rematch of the rematch would be the third game of the hour
    r = client.post(f"/api/games/{first.json['game']['id']}/rematch")
    assert r.status_code == 429 and r.json["code"] == "too_many"


# ---------------------------------------------------------------------------------------------- memory under photos


def test_every_photo_read_hands_mallocs_free_memory_back(client: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    from web import memory

    trimmed: list[int] = []
    monkeypatch.setattr(memory, "trim", lambda: trimmed.append(1))
    game = client.create()
    for _ in range(2):
        r = client.post(f"/api/games/{game['id']}/photos", data=png(), headers={"Content-Type": "image/png"})
        assert r.status_code == 201, r.json
    assert trimmed == [1, 1]


def test_the_server_bounds_malloc_before_it_starts_its_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import sys

    from web import memory, server

    calls: list[int] = []
    monkeypatch.setattr(memory, "bound_malloc", lambda: calls.append(1) or True)
    args = argparse.Namespace(host="127.0.0.1", port=70000, db=None, https=False, camera=None)
    assert server.serve(args) == 2  # refused at once (no such port), after the bound was set
    assert calls == [1]
    if sys.platform.startswith("linux") and memory._LIBC is not None:
        monkeypatch.undo()
        assert memory.bound_malloc() is True
        memory.trim()
