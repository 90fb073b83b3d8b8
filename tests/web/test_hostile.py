"""A hostile or clumsy client: every bad request gets a clear answer in the error shape and changes nothing."""

from __future__ import annotations

import io
import json
import sqlite3
import struct
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from PIL import Image, ImageFile

from tests.web.conftest import BONE_ROUND, WRITE, Device
from tests.web.test_live import Stream
from web import photos
from web.app import create_app
from web.store import Store, Unusable

GAME = {"game": "bone", "players": ["Anna", "Ben"]}


def snapshot(app: Flask) -> list[Any]:
    """Everything the database holds, to show a refused request changed nothing."""
    with sqlite3.connect(app.config["DATABASE"]) as db:
        return [
            db.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("games", "actions", "members", "photos")
        ]


def png(width: int = 64, height: int = 48) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (40, 90, 50)).save(out, "PNG")
    return out.getvalue()


def declared_png(width: int, height: int) -> bytes:
    """A few kilobytes of PNG whose header declares ``width`` x ``height`` pixels (a decompression bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\0" * (width * 3 + 1) * 8, 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


# ---------------------------------------------------------------------------------------------- bodies


@pytest.mark.parametrize(
    ("raw", "content_type", "status", "needle"),
    [
        (b'{"game": "bone", "players": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "application/json", 400, "JSON"),
        (
            b'{"game": "bone", "players": ["A", "B"], "settings": {"x": ' + b"[" * 40 + b"]" * 40 + b"}}",
            "application/json",
            400,
            "nested",
        ),
        (b'{"game": "bone", "players": ["A", "\\ud800"]}', "application/json", 400, "Unicode"),
        (b'{"game": "bone", "players": ["A", "B"], "settings": {"\\udfff": 1}}', "application/json", 400, "Unicode"),
        (b'{"game": "bone", "players": ["A", "B"]}', "text/plain", 415, "application/json"),
        (b"game=bone&players=A", "application/x-www-form-urlencoded", 415, "application/json"),
        (b'{"game": "bone", "players": ["A", "B"], "seen": 1' + b"0" * 5000 + b"}", "application/json", 400, "'seen'"),
        (b'{"game": "bone", "players": ["A", "B"], "settings": {"rounds": NaN}}', "application/json", 400, "JSON"),
        (b'{"game": "bone", "players": ["A", "B"], "settings": {"x": -Infinity}}', "application/json", 400, "JSON"),
    ],
)
def test_bodies_that_are_not_plain_json_objects_are_refused(
    app: Flask, client: Device, raw: bytes, content_type: str, status: int, needle: str
) -> None:
    client.create()
    before = snapshot(app)
    r = client.post("/api/games", data=raw, headers={"Content-Type": content_type})
    assert r.status_code == status, r.json
    assert needle in r.json["error"]
    assert snapshot(app) == before


def test_a_chunked_body_over_the_limit_is_413_not_a_json_error(app: Flask, client: Device) -> None:
    """Without Content-Length the limit applies while reading; the 413 must not turn into 'not valid JSON'."""
    big = json.dumps({**GAME, "pad": "x" * (1024 * 1024 + 10)}).encode()
    r = client.client.post(
        "/api/games",
        input_stream=io.BytesIO(big),
        headers={**WRITE, "Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )
    assert r.status_code == 413 and r.get_json()["code"] == "too_large"
    assert client.get("/api/games").json["games"] == []


@pytest.mark.parametrize("settings", [[], 0, "", False])
def test_settings_that_are_not_an_object_are_refused(client: Device, settings: Any) -> None:
    r = client.post("/api/games", json={**GAME, "settings": settings})
    assert r.status_code == 400 and "settings" in r.json["error"]
    assert client.get("/api/games").json["games"] == []


@pytest.mark.parametrize(
    ("name", "needle"),
    [("x" * 41, "40 characters"), ("Anna\nBen", "control"), ("A\x00B", "control"), ("\x1b[31mred", "control")],
)
def test_player_names_too_long_or_with_control_characters_are_refused(client: Device, name: str, needle: str) -> None:
    r = client.post("/api/games", json={"game": "bone", "players": ["Cem", name]})
    assert r.status_code == 400 and needle in r.json["error"]
    assert len(r.json["error"]) < 200
    assert client.get("/api/games").json["games"] == []


def test_unicode_emoji_and_sql_in_names_are_kept_verbatim(app: Flask, client: Device) -> None:
    names = ["🎲💀 Zoë", "Robert'); DROP TABLE games;--", "x" * 40, "👨‍👩‍👧‍👦", "ß' OR '1'='1", "<b>Ö</b>"]
    game = client.create(players=names)
    assert game["state"]["players"] == names
    again = client.get(f"/api/games/{game['id']}").json["game"]
    assert again["state"]["players"] == names
    assert client.play(game["id"], BONE_ROUND[0], seen=0).status_code == 201
    assert [g["players"] for g in client.get("/api/games").json["games"]] == [names]
    with sqlite3.connect(app.config["DATABASE"]) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone() == (1,)


def test_a_join_name_with_a_lone_surrogate_is_refused(client: Device, new_device: Callable[[], Device]) -> None:
    game = client.create()
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    raw = json.dumps({"code": code, "name": "x"}).replace('"x"', '"\\ud83c"').encode()
    phone = new_device()
    r = phone.post("/api/join", data=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "Unicode" in r.json["error"]
    assert phone.get(f"/api/games/{game['id']}").status_code == 403


def test_a_join_name_with_control_characters_is_refused(client: Device, new_device: Callable[[], Device]) -> None:
    game = client.create()
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    phone = new_device()
    r = phone.post("/api/join", json={"code": code, "name": "Ben\r\nSet-Cookie: x"})
    assert r.status_code == 400 and "control" in r.json["error"]
    assert phone.get(f"/api/games/{game['id']}").status_code == 403


def test_undo_beyond_the_start_says_how_many_there_are_and_changes_nothing(client: Device) -> None:
    game = client.create()
    r = client.post(f"/api/games/{game['id']}/undo", json={"seen": 0})
    assert r.status_code == 409 and r.json["code"] == "illegal"
    assert r.json["error"] == "Nothing can be undone: the game has no actions yet."
    client.play(game["id"], BONE_ROUND[0], seen=0)
    r = client.post(f"/api/games/{game['id']}/undo", json={"seen": 1, "count": 2})
    assert r.status_code == 409 and "Only 1 of the game's actions can be undone, not 2" in r.json["error"]
    assert client.get(f"/api/games/{game['id']}").json["game"]["state"]["actions"] == 1


def test_absurd_ids_are_not_echoed_back_in_full(client: Device) -> None:
    long = "a" * 5000
    for url in (f"/api/games/{long}", f"/api/photos/{long}", f"/api/photos/{long}/reading"):
        r = client.get(url)
        assert r.status_code == 404 and len(r.json["error"]) < 160, url
    game = client.create()
    r = client.play(game["id"], BONE_ROUND[0], seen=0, photo=long)
    assert r.status_code == 400 and len(r.json["error"]) < 160


@pytest.mark.parametrize("path", ["../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "%00", "'; DROP TABLE photos;--"])
def test_path_traversal_in_ids_finds_nothing(client: Device, path: str) -> None:
    for url in (f"/api/photos/{path}", f"/api/games/{path}/export", f"/api/games/{path}"):
        r = client.get(url)
        assert r.status_code == 404 and r.json["code"] == "not_found", url


def test_export_names_the_file_by_game_and_id_only(client: Device) -> None:
    game = client.create(players=['../../x"; filename="evil.sh', "B"])
    r = client.get(f"/api/games/{game['id']}/export")
    assert r.headers["Content-Disposition"] == f'attachment; filename="becher-bone-{game["id"]}.jsonl"'


# ---------------------------------------------------------------------------------------------- import

HEADER = '{"becher": 1, "game": "bone", "players": ["A", "B"], "settings": {}}\n'


def test_import_as_a_plain_body_of_any_text_type_and_as_a_file(client: Device) -> None:
    text = HEADER + json.dumps(BONE_ROUND[0]) + "\n"
    for content_type in ("application/x-ndjson", "application/x-www-form-urlencoded", "application/octet-stream"):
        r = client.post("/api/games/import", data=text, headers={"Content-Type": content_type})
        assert r.status_code == 201 and r.json["game"]["state"]["actions"] == 1, content_type


def test_import_multipart_without_the_log_field_says_which_field(client: Device) -> None:
    r = client.post("/api/games/import", data={"file": (io.BytesIO(HEADER.encode()), "g.jsonl")})
    assert r.status_code == 400 and "'log'" in r.json["error"]
    assert client.get("/api/games").json["games"] == []


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (HEADER + "[" * 100_000 + "]" * 100_000 + "\n", "nested"),
        (HEADER.replace('"B"', '"\\udc00"'), "Unicode"),
        (HEADER.replace('"B"', '"' + "B" * 500 + '"'), "40 characters"),
        (HEADER.replace('"B"', '"B\\u0007"'), "control"),
    ],
)
def test_import_refuses_hostile_logs_and_stores_nothing(app: Flask, client: Device, text: str, needle: str) -> None:
    before = snapshot(app)
    r = client.post("/api/games/import", data=text, headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 400 and needle in r.json["error"], r.json
    assert snapshot(app) == before


# ---------------------------------------------------------------------------------------------- uploads


@pytest.mark.parametrize(
    ("make", "status", "needle"),
    [
        (lambda: png()[:40] + b"\0" * 300, 415, "not an image"),  # header, then garbage
        (lambda: png()[: len(png()) // 2], 415, "not an image"),
        (lambda: b"hello, I am text\n" * 20, 415, "not an image"),
        (lambda: declared_png(50_000, 50_000), 413, "megapixels"),
        (lambda: declared_png(9_000, 8_000), 413, "megapixels"),  # under Pillow's own limit, over Becher's
        (lambda: b"", 415, "empty"),
    ],
)
def test_bad_uploads_are_refused_with_a_message_and_store_nothing(
    app: Flask, client: Device, make: Callable[[], bytes], status: int, needle: str
) -> None:
    game = client.create()
    before = snapshot(app)
    r = client.post(f"/api/games/{game['id']}/photos", data={"photo": (io.BytesIO(make()), "dice.jpg")})
    assert r.status_code == status and needle in r.json["error"], r.json
    assert snapshot(app) == before


def test_a_corrupt_jpeg_is_refused(app: Flask, client: Device) -> None:
    out = io.BytesIO()
    Image.new("RGB", (640, 480), (200, 30, 30)).save(out, "JPEG")
    data = out.getvalue()
    game = client.create()
    before = snapshot(app)
    r = client.post(
        f"/api/games/{game['id']}/photos",
        data=data[:300] + b"\0" * 600 + data[900:1200],
        headers={"Content-Type": "image/jpeg"},
    )
    assert r.status_code == 415 and r.json["code"] == "not_image"
    assert snapshot(app) == before


@pytest.mark.parametrize("fmt", ["ICO", "PPM", "TGA", "PCX"])
def test_image_formats_no_camera_makes_are_refused(client: Device, fmt: str) -> None:
    """Pillow opens dozens of formats (EPS even runs Ghostscript); uploads are kept to photo formats."""
    out = io.BytesIO()
    Image.new("RGB", (32, 32), (200, 30, 30)).save(out, fmt)
    game = client.create()
    r = client.post(f"/api/games/{game['id']}/photos", data={"photo": (io.BytesIO(out.getvalue()), f"x.{fmt}")})
    assert r.status_code == 415 and r.json["code"] == "not_image"


def test_large_jpegs_are_decoded_at_a_reduced_scale() -> None:
    out = io.BytesIO()
    Image.new("RGB", (6400, 4800), (120, 60, 30)).save(out, "JPEG", quality=80)
    prepared = photos.prepare(out.getvalue(), 800)
    assert (prepared.width, prepared.height) == (800, 600)
    assert Image.open(io.BytesIO(prepared.jpeg)).size == (800, 600)


# ---------------------------------------------------------------------------------------------- access on every write


def write_routes(game_id: str, member: str) -> list[tuple[bool, str, str, dict[str, Any]]]:
    """Each unsafe route of a game (owner only?, method, url, request) with a request its owner may make."""
    base = f"/api/games/{game_id}"
    return [
        (False, "POST", f"{base}/actions", {"json": {"seen": 1, "action": BONE_ROUND[1]}}),
        (False, "POST", f"{base}/undo", {"json": {"seen": 1}}),
        (True, "POST", f"{base}/finish", {}),
        (True, "DELETE", base, {}),
        (False, "POST", f"{base}/rematch", {}),
        (True, "POST", f"{base}/access", {"json": {"public": True, "renew_code": True}}),
        (True, "DELETE", f"{base}/members/{member}", {}),
        (False, "POST", f"{base}/photos", {"photo": True}),
    ]


def send(device: Device, method: str, url: str, kw: dict[str, Any]) -> Any:
    if kw.get("photo"):
        kw = {"data": {"photo": (io.BytesIO(png()), "p.png")}}
    if method == "DELETE":
        return device.delete(url, **kw)
    return device.post(url, **kw)


def test_no_write_route_lets_a_device_that_did_not_join_change_anything(
    app: Flask, client: Device, join: Callable[[str], Device], new_device: Callable[[], Device]
) -> None:
    game = client.create()
    client.play(game["id"], BONE_ROUND[0], seen=0)
    phone = join(game["id"])
    other = client.create(players=["Cem", "Dia"])
    player_of_other = join(other["id"])  # joined game B, not game A
    client.post(f"/api/games/{game['id']}/access", json={"public": True})
    viewer = new_device()
    assert viewer.get(f"/api/games/{game['id']}").json["you"]["role"] == "viewer"
    stranger = new_device()
    before = snapshot(app)
    for owner_only, method, url, kw in write_routes(game["id"], phone.id):
        for device in (stranger, viewer, player_of_other) + ((phone,) if owner_only else ()):
            r = send(device, method, url, kw)
            assert r.status_code == 403 and r.json["code"] == "forbidden", (method, url, r.json)
    assert snapshot(app) == before
    # and each of those requests is one the owner may make (so the 403s were about access, nothing else)
    for i in range(len(write_routes("", ""))):
        fresh = client.create()
        client.play(fresh["id"], BONE_ROUND[0], seen=0)
        _, method, url, kw = write_routes(fresh["id"], join(fresh["id"]).id)[i]
        assert send(client, method, url, kw).status_code in (200, 201), (method, url)


def test_every_unsafe_route_refuses_cross_site_requests(app: Flask, client: Device) -> None:
    """Every POST/PUT/PATCH/DELETE the app has (API, uploads, imports, pages), even from the game's owner."""
    game = client.create()
    client.play(game["id"], BONE_ROUND[0], seen=0)
    phone_id = "0" * 16
    lures = [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site", "Origin": "http://sub.localhost"},
    ]
    before = snapshot(app)
    checked = 0
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"GET", "HEAD", "OPTIONS"}):
            url = rule.rule
            for arg in rule.arguments:
                url = url.replace(f"<{arg}>", game["id"] if arg == "game_id" else phone_id)
                url = url.replace(f"<string:{arg}>", "x").replace(f"<path:{arg}>", "x")
            for lure in lures:
                kw: dict[str, Any] = {"headers": {**WRITE, **lure}}
                if url.endswith(("/photos", "/import")):
                    kw["data"] = {"photo": (io.BytesIO(png()), "p.png"), "log": (io.BytesIO(b"{}"), "l.jsonl")}
                else:
                    kw["json"] = {"seen": 1, "action": BONE_ROUND[1], "game": "bone", "players": ["A", "B"]}
                r = client.client.open(url, method=method, **kw)
                assert r.status_code == 403, (method, url, lure, r.status_code)
                if url.startswith("/api/"):
                    assert r.get_json()["code"] == "forbidden"
            r = client.client.open(url, method=method, json={})  # no X-Becher header
            if url.startswith("/api/"):
                assert r.status_code == 403 and "X-Becher" in r.get_json()["error"], (method, url)
            checked += 1
    assert checked >= 11
    assert snapshot(app) == before


def test_the_host_browser_is_owner_only_under_its_own_loopback_name(app: Flask, client: Device) -> None:
    """DNS rebinding: a foreign page re-pointed at 127.0.0.1 comes from loopback, but under its own host name."""
    game = client.create()
    app.config["LOCAL_IS_OWNER"] = True
    rebound = Device(app.test_client())
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.nip.io"):
        r = rebound.get(f"/api/games/{game['id']}", headers={"Host": host})
        assert r.status_code == 403, host
        r = rebound.delete(f"/api/games/{game['id']}", headers={"Host": host, "Origin": f"http://{host}"})
        assert r.status_code == 403, host
    for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000"):
        assert rebound.get(f"/api/games/{game['id']}", headers={"Host": host}).json["you"]["role"] == "owner"


def test_wrong_codes_by_the_qr_link_count_towards_the_same_limit(
    client: Device, new_device: Callable[[], Device]
) -> None:
    from web.access import JOIN_ATTEMPTS

    game = client.create()
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    wrong = "222222" if code != "222222" else "333333"
    guesser = new_device()
    for _ in range(JOIN_ATTEMPTS):
        assert "join_error" in guesser.get(f"/join/{wrong}").headers["Location"]
    r = guesser.post("/api/join", json={"code": code})
    assert r.status_code == 429
    assert "join_error" in guesser.get(f"/join/{code}").headers["Location"]
    assert guesser.get(f"/api/games/{game['id']}").status_code == 403


# ---------------------------------------------------------------------------------------------- live


def test_a_removed_member_stops_getting_changes(client: Device, join: Callable[[str], Device]) -> None:
    game = client.create()
    phone = join(game["id"])
    watching = Stream(phone, f"/api/games/{game['id']}/events")
    assert watching.next()["id"] == "0"
    assert client.delete(f"/api/games/{game['id']}/members/{phone.id}").status_code == 200
    client.play(game["id"], BONE_ROUND[0], seen=0)
    try:
        tail = b"".join(watching._chunks)
    finally:
        watching.close()
    assert b"event:" not in tail  # the stream ended without the change
    assert phone.get(f"/api/games/{game['id']}/events").status_code == 403


def test_a_viewer_stops_getting_changes_when_the_public_view_closes(
    client: Device, new_device: Callable[[], Device]
) -> None:
    game = client.create()
    client.post(f"/api/games/{game['id']}/access", json={"public": True})
    viewer = new_device()
    watching = Stream(viewer, f"/api/games/{game['id']}/events")
    assert watching.next()["data"]["game"]["public"] is True
    client.post(f"/api/games/{game['id']}/access", json={"public": False})
    client.play(game["id"], BONE_ROUND[0], seen=0)
    try:
        tail = b"".join(watching._chunks)
    finally:
        watching.close()
    assert b"event:" not in tail


def test_a_device_reconnecting_again_and_again_closes_its_oldest_streams(app: Flask, client: Device) -> None:
    """Phones that lose the network leave streams the server cannot tell from quiet ones; they must not pile up."""
    game = client.create()
    hub = app.extensions["becher.hub"]
    url = f"/api/games/{game['id']}/events"
    streams = [Stream(client, url) for _ in range(7)]
    for s in streams:
        s.next()
    per_device = app.config["LIVE_PER_DEVICE"]
    assert hub.watchers(game["id"]) == per_device
    for old in streams[: 7 - per_device]:
        assert b"event:" not in b"".join(old._chunks)  # closed by the newer ones
    client.play(game["id"], BONE_ROUND[0], seen=0)
    for s in streams[7 - per_device :]:
        assert s.next()["id"] == "1"
    for s in streams:
        s.close()
    assert hub.watchers() == 0


def test_beyond_the_stream_limit_the_server_says_busy(
    app: Flask, client: Device, join: Callable[[str], Device]
) -> None:
    app.config["LIVE_MAX_STREAMS"] = 2
    game = client.create()
    url = f"/api/games/{game['id']}/events"
    first, second = Stream(client, url), Stream(join(game["id"]), url)
    first.next(), second.next()
    r = join(game["id"]).get(url)
    assert r.status_code == 503 and r.json["code"] == "busy"
    first.close()
    second.close()


# ---------------------------------------------------------------------------------------------- the database file


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    for name, content in (("notes.sqlite3", b"shopping list\n" * 50), ("random.db", bytes(range(256)) * 40)):
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(Unusable, match="not a Becher database"):
            create_app({"DATABASE": str(path)})
        assert path.read_bytes() == content
    with pytest.raises(Unusable, match="Cannot use the database"):
        create_app({"DATABASE": str(tmp_path)})


def test_another_programs_database_is_a_clear_error_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE games (title TEXT, year INTEGER)")
    with pytest.raises(Unusable, match="another program"):
        Store(path)
    with sqlite3.connect(path) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["games"]


def test_a_damaged_database_is_a_clear_error(tmp_path: Path) -> None:
    from companion.core import GameLog

    path = tmp_path / "becher.sqlite3"
    store = Store(path)
    for _ in range(40):
        store.create(GameLog.new("bone", ["A" * 30, "B" * 30], {}), "device")
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) >= 6 * page
    for n in (2, 3, 4, 5):
        data[n * page : n * page + 64] = b"\x5a" * 64
    path.write_bytes(bytes(data))
    with pytest.raises(Unusable, match="damaged"):
        Store(path)


def test_the_database_runs_in_wal_mode_with_full_sync(app: Flask) -> None:
    store: Store = app.extensions["becher.store"]
    conn = store.conn()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_a_stuck_reader_never_holds_more_than_its_queue_and_uploads_still_answer(
    app: Flask, client: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader that hangs: each upload answers after READ_TIMEOUT; beyond READ_QUEUE it answers at once."""
    release = threading.Event()
    monkeypatch.setattr(photos, "read_image", lambda data, kind, memory=None, count=None: release.wait(30) and {})
    app.config["READ_TIMEOUT"] = 0.2
    readers: photos.Readers = app.extensions["becher.readers"]
    limit = app.config["READ_QUEUE"]
    game = client.create()
    try:
        answers = [
            client.post(f"/api/games/{game['id']}/photos", data={"photo": (io.BytesIO(png()), "p.png")})
            for _ in range(limit + 2)
        ]
        assert [r.status_code for r in answers] == [201] * (limit + 2)
        assert all(r.json["reading"] is None for r in answers)
        assert "takes long" in answers[0].json["reading_error"]
        assert "too many photos waiting" in answers[-1].json["reading_error"]
        assert readers.pending == limit
        assert len(client.get(f"/api/games/{game['id']}").json["game"]["photos"]) == 0  # none confirmed yet
    finally:
        release.set()
    deadline = time.monotonic() + 20
    while readers.pending and time.monotonic() < deadline:
        time.sleep(0.05)
    assert readers.pending == 0


def test_closing_waits_for_the_running_read_and_drops_the_waiting_ones() -> None:
    """A memory still being built on a worker when the server closes its store read from a closed connection and
    crashed the test run (a segfault): the store closes only after the running reads end."""
    readers = photos.Readers(workers=1)
    started, ended, ran = threading.Event(), threading.Event(), []

    def running() -> None:
        started.set()
        time.sleep(0.3)
        ended.set()

    first = readers.run(running)
    waiting = readers.run(lambda: ran.append("waited"))
    assert started.wait(5)
    readers.shutdown()
    assert ended.is_set() and first.done()
    assert waiting.cancelled() and ran == []
    assert readers.pending == 0
    with pytest.raises(RuntimeError):
        readers.run(lambda: None)
    assert readers.pending == 0


def test_closing_gives_up_on_a_stuck_read_after_its_timeout() -> None:
    readers, release = photos.Readers(workers=1), threading.Event()
    readers.run(lambda: release.wait(30))
    t0 = time.monotonic()
    readers.shutdown(timeout=0.2)
    assert 0.15 <= time.monotonic() - t0 < 5
    release.set()


def test_no_page_or_answer_may_be_framed_or_sniffed(client: Device) -> None:
    game = client.create()
    for url in (
        "/",
        "/api/games",
        f"/api/games/{game['id']}/export",
        "/api/nowhere",
        f"/api/games/{game['id']}/qr.svg",
    ):
        r = client.get(url)
        assert r.headers["X-Frame-Options"] == "DENY", url
        assert r.headers["X-Content-Type-Options"] == "nosniff", url


@pytest.mark.parametrize("game", ["bone", "classic", "pokerdice", "sheet", "board"])
def test_no_players_and_nine_players_are_refused_for_every_game(client: Device, game: str) -> None:
    for players in ([], [f"P{i}" for i in range(9)]):
        r = client.post("/api/games", json={"game": game, "players": players})
        assert r.status_code == 400 and r.json["code"] == "malformed", (game, len(players))
        assert "player" in r.json["error"]
    assert client.get("/api/games").json["games"] == []


def test_a_device_starting_games_by_the_dozen_is_stopped_and_nothing_is_stored(
    app: Flask, client: Device, new_device: Callable[[], Device]
) -> None:
    app.config["GAMES_PER_HOUR"] = 3
    made = [client.create()["id"] for _ in range(3)]
    log = client.get(f"/api/games/{made[0]}/export").data.decode()
    refused = client.post("/api/games", json={"game": "bone", "players": ["A", "B"]})
    assert refused.status_code == 429 and refused.json["code"] == "too_many" and "3 games" in refused.json["error"]
    imported = client.post("/api/games/import", data=log, headers={"Content-Type": "application/x-ndjson"})
    assert imported.status_code == 429
    assert sorted(g["id"] for g in client.get("/api/games").json["games"]) == sorted(made)
    # another device at the table is not held back, and games started over an hour ago no longer count
    assert new_device().post("/api/games", json={"game": "bone", "players": ["A", "B"]}).status_code == 201
    store: Store = app.extensions["becher.store"]
    with store._write() as conn:
        conn.execute("UPDATE games SET created = created - 3601")
    assert client.post("/api/games", json={"game": "bone", "players": ["A", "B"]}).status_code == 201


@pytest.mark.parametrize("fmt", ["GIF", "TIFF"])
def test_gif_and_tiff_are_refused_from_the_header_as_docs_api_says(
    client: Device, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader opens neither, so they are refused before anything is decoded or stored."""
    out = io.BytesIO()
    Image.new("RGB", (32, 32), (200, 30, 30)).save(out, fmt)
    decoded: list[bool] = []
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: decoded.append(True))
    game = client.create()
    r = client.post(f"/api/games/{game['id']}/photos", data={"photo": (io.BytesIO(out.getvalue()), f"x.{fmt}")})
    assert r.status_code == 415 and r.json["code"] == "not_image"
    assert decoded == []
    doc = " ".join(Path("docs/api.md").read_text(encoding="utf-8").split())
    assert "Only JPEG, PNG, WebP and BMP are opened" in doc and "GIF, TIFF and other formats are refused" in doc


@pytest.mark.parametrize(
    "name",
    ["Anna\u202eneB", "A\u200bnna", "\u2066Ben\u2069", "\ufeffCem", "Do\u200dra", "Ed\u200c", "\u061cFay", "Gus\u2060"],
)
def test_names_with_bidi_overrides_or_zero_width_characters_are_refused(
    client: Device, new_device: Callable[[], Device], name: str
) -> None:
    r = client.post("/api/games", json={"game": "bone", "players": ["Cem", name]})
    assert r.status_code == 400 and "invisible" in r.json["error"]
    game = client.create()
    code = client.get(f"/api/games/{game['id']}/access").json["join"]["code"]
    phone = new_device()
    r = phone.post("/api/join", json={"code": code, "name": name})
    assert r.status_code == 400 and "invisible" in r.json["error"]
    assert [m["name"] for m in client.get(f"/api/games/{game['id']}/access").json["members"]] == [""]


def test_joiners_that_emoji_and_persian_names_need_are_kept(client: Device) -> None:
    names = ["👨\u200d👩\u200d👧", "🏳\ufe0f\u200d🌈", "مهدی\u200cزاده"]
    assert client.create(players=names)["state"]["players"] == names


def test_a_full_disk_is_507_with_a_message_that_says_so_and_saves_nothing_half(app: Flask, client: Device) -> None:
    """SQLite's "database or disk is full", provoked by a page limit on the request thread's connection."""
    game = client.create()
    store = app.extensions["becher.store"]
    conn = store.conn()  # the test client runs requests on this thread, so on this connection
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")
    try:
        created = [client.post("/api/games", json={**GAME, "players": [f"P{i}", "Q" * 40]}) for i in range(30)]
        played = client.play(game["id"], BONE_ROUND[0], seen=0)
        full = [r for r in [*created, played] if r.status_code != 201]
        assert full, "the page limit never filled the database"
        for r in full:
            assert r.status_code == 507 and r.json["code"] == "disk_full" and "disk is full" in r.json["error"]
            assert "report" not in r.json["error"]
        saved = len([r for r in created if r.status_code == 201])
        assert len(client.get("/api/games").json["games"]) == 1 + saved
        actions = client.get(f"/api/games/{game['id']}").json["game"]["state"]["actions"]
        assert actions == (1 if played.status_code == 201 else 0)
    finally:
        conn.execute("PRAGMA max_page_count = 1073741823")
    assert client.post("/api/games", json=GAME).status_code == 201
