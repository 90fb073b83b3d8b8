"""Hardening, round three (issue 60): whose players and saved dice sets they are, and what the new routes let a
stranger do. Each test is one finding of the issue; a stranger is a device that never joined the owner's games.

Saved sets are made here from lessons put into the game directly (``teach``), so that no test needs the dice reader:
what is checked is who may see, use and change them, not what they teach.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from flask import Flask

from tests.web.conftest import BONE_ROUND, Device
from tests.web.test_hostile import snapshot
from web import lessons
from web.lessons import Lesson

Joiner = Callable[[str], Device]


def teach(app: Flask, game_id: str, dice: int = 5, model: str = "m1") -> None:
    """Lessons of ``dice`` dice kept in the game as "show your dice" keeps them (no reader needed)."""
    views = np.arange(4 * 8, dtype=np.float16).tobytes()
    taught = [Lesson(k, k % 6, False, 0.1, "pip", model, views) for k in range(dice)]
    app.extensions["becher.store"].teach_shown(game_id, taught)


def saved_set(app: Flask, device: Device, name: str = "red casino dice", dice: int = 5) -> tuple[str, dict[str, Any]]:
    """A game of ``device`` that learned ``dice`` dice, saved as ``name``: (the game's id, the set)."""
    game = device.create()
    teach(app, game["id"], dice)
    r = device.post(f"/api/games/{game['id']}/dice-set", json={"name": name})
    assert r.status_code == 201, r.json
    return game["id"], r.json["set"]


def set_data(app: Flask, set_id: int) -> tuple[Any, ...]:
    with sqlite3.connect(app.config["DATABASE"]) as db:
        row = db.execute("SELECT name, owner, seen, data, version FROM dice_sets WHERE id = ?", (set_id,)).fetchone()
    return tuple(row)


def stranger_game(new_device: Callable[[], Device], dice: int = 1) -> tuple[Device, str]:
    stranger = new_device()
    game = stranger.create()
    return stranger, game["id"]


# ---------------------------------------------------------------------------------------------- 1. taken over


def test_1_a_stranger_saving_under_the_owners_name_makes_its_own_set_and_never_touches_the_owners(
    app: Flask, client: Device, new_device: Callable[[], Device]
) -> None:
    _, mine = saved_set(app, client, "red casino dice", dice=5)
    before = set_data(app, mine["id"])
    stranger, game_id = stranger_game(new_device)
    teach(app, game_id, 1, model="poisoned")
    r = stranger.post(f"/api/games/{game_id}/dice-set", json={"name": "red casino dice", "replace": True})
    assert r.status_code == 201 and r.json["set"]["id"] != mine["id"], r.json
    assert set_data(app, mine["id"]) == before
    assert client.delete(f"/api/dice-sets/{mine['id']}").status_code == 200  # still the owner's to forget
    assert [s["name"] for s in stranger.get("/api/dice-sets").json["sets"]] == ["red casino dice"]


def test_1_saving_under_a_name_the_device_has_asks_first_then_updates_that_set(app: Flask, client: Device) -> None:
    game_id, mine = saved_set(app, client, "Holzwürfel", dice=3)
    teach(app, game_id, 2)
    url = f"/api/games/{game_id}/dice-set"
    before = set_data(app, mine["id"])
    asked = client.post(url, json={"name": "HOLZWÜRFEL"})
    assert asked.status_code == 409 and asked.json["code"] == "exists", asked.json
    assert "Holzwürfel" in asked.json["error"] and set_data(app, mine["id"]) == before
    assert client.post(url, json={"name": "Holzwürfel", "replace": "yes"}).status_code == 400
    replaced = client.post(url, json={"name": "Holzwürfel", "replace": True})
    assert replaced.status_code == 200 and replaced.json["set"]["id"] == mine["id"]
    assert replaced.json["set"]["seen"] == 5
    assert len(client.get("/api/dice-sets").json["sets"]) == 1


# ---------------------------------------------------------------------------------------------- 2. everyone's


def test_2_a_device_sees_and_uses_only_its_own_sets_and_those_of_games_it_joined(
    app: Flask, client: Device, new_device: Callable[[], Device], join: Joiner
) -> None:
    _, mine = saved_set(app, client)
    stranger = new_device()
    assert stranger.get("/api/dice-sets").json["sets"] == []
    assert Device(app.test_client()).get("/api/dice-sets").json["sets"] == []  # no cookie at all
    game = {"game": "bone", "players": ["A", "B"], "dice_set": mine["id"]}
    refused = stranger.post("/api/games", json=game)
    assert refused.status_code == 404 and refused.json["code"] == "not_found", refused.json
    started = client.post("/api/games", json=game)
    assert started.status_code == 201
    phone = join(started.json["game"]["id"])  # a phone at a game started from the set may start one with it too
    assert [s["id"] for s in phone.get("/api/dice-sets").json["sets"]] == [mine["id"]]
    assert phone.post("/api/games", json=game).status_code == 201


# ---------------------------------------------------------------------------------------------- 3. filled


def test_3_one_device_fills_only_its_own_room_and_the_others_still_save(
    app: Flask, client: Device, new_device: Callable[[], Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    from web import owners

    monkeypatch.setattr(owners, "SETS_PER_DEVICE", 3)
    filler = new_device()
    game = filler.create()
    teach(app, game["id"])
    for n in range(3):
        assert filler.post(f"/api/games/{game['id']}/dice-set", json={"name": f"set {n}"}).status_code == 201
    before = snapshot(app)
    full = filler.post(f"/api/games/{game['id']}/dice-set", json={"name": "one more"})
    assert full.status_code == 409 and full.json["code"] == "full" and "forget one" in full.json["error"], full.json
    assert snapshot(app) == before
    saved_set(app, client, "ours")  # another device saves as before


def test_3_the_bytes_of_a_device_the_address_and_the_whole_server_are_bounded(
    app: Flask, client: Device, new_device: Callable[[], Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    from web import owners

    _, first = saved_set(app, client, "first")
    size = len(set_data(app, first["id"])[3])
    monkeypatch.setattr(owners, "BYTES_PER_DEVICE", size + 10)
    game = client.create()
    teach(app, game["id"])
    r = client.post(f"/api/games/{game['id']}/dice-set", json={"name": "second"})
    assert r.status_code == 409 and r.json["code"] == "full" and "MB" in r.json["error"], r.json
    monkeypatch.setattr(owners, "BYTES_PER_DEVICE", 10**9)
    monkeypatch.setattr(owners, "SETS_PER_ADDRESS", 1)
    other = new_device()  # another cookie from the same address: the address's bound
    game = other.create()
    teach(app, game["id"])
    r = other.post(f"/api/games/{game['id']}/dice-set", json={"name": "second"})
    assert r.status_code == 409 and "network address" in r.json["error"], r.json
    monkeypatch.setattr(owners, "SETS_PER_ADDRESS", 100)
    monkeypatch.setattr(owners, "SETS_IN_ALL", 1)
    r = other.post(f"/api/games/{game['id']}/dice-set", json={"name": "second"})
    assert r.status_code == 409 and "server" in r.json["error"], r.json


# ---------------------------------------------------------------------------------------------- 4. costly work


def test_4_a_game_from_a_set_past_the_rate_limit_never_unpacks_it_and_a_set_is_unpacked_once(
    app: Flask, client: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, mine = saved_set(app, client, dice=40)
    unpacked: list[int] = []
    real = lessons._unpack

    def counting(data: bytes) -> Any:
        unpacked.append(1)
        return real(data)

    monkeypatch.setattr(lessons, "_unpack", counting)
    game = {"game": "bone", "players": ["A", "B"], "dice_set": mine["id"]}
    for _ in range(3):
        assert client.post("/api/games", json=game).status_code == 201
    assert len(unpacked) == 1
    app.config["GAMES_PER_HOUR"] = 0
    refused = client.post("/api/games", json={**game, "dice_set": mine["id"] + 1})
    assert refused.status_code == 429, refused.json  # the rate limit before the set is even looked up
    assert len(unpacked) == 1


def test_4_unpacking_a_full_set_is_fast(app: Flask) -> None:
    import time

    views = np.zeros((4, 640), np.float16).tobytes()
    rows = [(n // 5, Lesson(n % 5, n % 6, bool(n % 7 == 0), 0.5, "pip", "m", views)) for n in range(lessons.LIMIT)]
    data = lessons._pack(rows)
    started = time.perf_counter()
    assert lessons._unpack(data) == rows
    assert time.perf_counter() - started < 0.5  # was 5-7 s: every array decompressed again for each lesson


# ---------------------------------------------------------------------------------------------- 5. players


def player_id(device: Device, name: str) -> int:
    return next(int(p["id"]) for p in device.get("/api/players").json["players"] if p["name"] == name)


def test_5_a_strangers_game_with_the_same_name_is_another_player_it_cannot_rename_the_owners(
    app: Flask, client: Device, new_device: Callable[[], Device]
) -> None:
    client.create(players=["Anna", "Ben"])
    anna = player_id(client, "Anna")
    stranger = new_device()
    stranger.create(players=["anna", "Cheater"])
    theirs = player_id(stranger, "anna")
    assert theirs != anna
    assert anna not in {p["id"] for p in stranger.get("/api/players").json["players"]}
    before = snapshot(app)
    r = stranger.post(f"/api/players/{anna}", json={"name": "Cheater"})
    assert r.status_code == 404, r.json
    r = stranger.post(f"/api/players/{theirs}/merge", json={"into": anna})
    assert r.status_code == 404, r.json
    assert snapshot(app) == before
    assert [p["name"] for p in client.get("/api/players").json["players"]] == ["Anna", "Ben"]
    assert stranger.post(f"/api/players/{theirs}", json={"name": "Annabel"}).status_code == 200


def test_5_a_phone_or_viewer_sees_the_players_of_the_game_but_may_not_rename_them(
    app: Flask, client: Device, new_device: Callable[[], Device], join: Joiner
) -> None:
    game = client.create(players=["Anna", "Ben"])
    client.post(f"/api/games/{game['id']}/access", json={"public": True})
    anna = player_id(client, "Anna")
    for device in (join(game["id"]), new_device()):  # a player's phone, and a viewer of the public game
        seen = device.get("/api/players").json["players"]
        assert {p["name"]: p["mine"] for p in seen} == {"Anna": False, "Ben": False}
        r = device.post(f"/api/players/{anna}", json={"name": "Cheater"})
        assert r.status_code == 403 and r.json["code"] == "forbidden", r.json
        r = device.post(f"/api/players/{anna}/merge", json={"into": player_id(client, "Ben")})
        assert r.status_code == 403
    assert {p["name"]: p["mine"] for p in client.get("/api/players").json["players"]} == {"Anna": True, "Ben": True}
    page = join(game["id"]).get("/players").get_data(as_text=True)
    assert "Anna" in page and 'class="row rename"' not in page


def test_5_an_older_database_gives_each_device_its_own_entries(tmp_path: Any) -> None:
    from web.store import Store

    path = tmp_path / "old.sqlite3"
    store = Store(path)
    conn = store.conn()
    conn.executescript(
        "DROP TABLE players;"
        "CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT NOT NULL, key TEXT NOT NULL UNIQUE,"
        " created REAL NOT NULL);"
    )
    setup = json.dumps({"game": "bone", "players": ["Anna", "Ben"], "settings": {}})
    for gid, owner, created in (("g1", "tablet", 1.0), ("g2", "stranger", 2.0)):
        conn.execute(
            "INSERT INTO games (id, game, setup, owner, code, created, updated) VALUES (?, 'bone', ?, ?, ?, ?, ?)",
            (gid, setup, owner, gid.upper(), created, created),
        )
    conn.execute("INSERT INTO players (id, name, key, created) VALUES (1, 'Anna', 'anna', 1), (2, 'Ben', 'ben', 1)")
    conn.execute("INSERT INTO players (id, name, key, created) VALUES (3, 'Nobody', 'nobody', 1)")
    conn.executemany(
        "INSERT INTO game_players VALUES (?, ?, ?)", [("g1", 0, 1), ("g1", 1, 2), ("g2", 0, 1), ("g2", 1, 2)]
    )
    store.close()
    store = Store(path)
    rows = (
        store.conn()
        .execute(
            "SELECT gp.game_id, p.id, p.name, p.owner FROM game_players gp JOIN players p ON p.id = gp.player_id"
            " ORDER BY 1, 2"
        )
        .fetchall()
    )
    assert [tuple(r) for r in rows][:2] == [("g1", 1, "Anna", "tablet"), ("g1", 2, "Ben", "tablet")]
    assert {(r[2], r[3]) for r in rows[2:]} == {("Anna", "stranger"), ("Ben", "stranger")}
    assert {r[1] for r in rows[2:]}.isdisjoint({1, 2})
    assert store.conn().execute("PRAGMA foreign_key_check").fetchall() == []
    store.close()


# ---------------------------------------------------------------------------------------------- 6. names leak


def test_6_statistics_name_no_player_and_no_game_the_device_may_not_see(
    app: Flask, client: Device, new_device: Callable[[], Device]
) -> None:
    game = client.create(players=["Anna", "Ben"])
    ids = ",".join(str(n) for n in range(1, 40))
    stranger = new_device()
    r = stranger.get(f"/api/stats?players={ids}")
    assert r.status_code == 404 and "Anna" not in r.get_data(as_text=True), r.json
    r = stranger.get(f"/api/stats?game_id={game['id']}")
    none = stranger.get("/api/stats?game_id=zzzzzzzz")  # answered as a game that does not exist: nothing told
    assert r.status_code == none.status_code == 404, r.json
    assert r.json["error"].replace(game["id"], "zzzzzzzz") == none.json["error"]
    assert "stats" not in r.json
    page = stranger.get(f"/stats?players={ids}").get_data(as_text=True)
    assert "Anna" not in page and "Ben" not in page
    anna = player_id(client, "Anna")
    mine = client.get(f"/api/stats?players={anna}&game_id={game['id']}")
    assert mine.status_code == 200 and [p["name"] for p in mine.json["stats"]["players"]] == ["Anna"]


# ---------------------------------------------------------------------------------------------- 7. blow up


def test_7_repeated_players_count_once_and_at_most_50_may_be_named(app: Flask, client: Device) -> None:
    client.create(players=["Anna", "Ben"])
    anna = player_id(client, "Anna")
    r = client.get("/api/stats?players=" + ",".join([str(anna)] * 13_000))
    assert r.status_code == 200 and len(r.json["stats"]["players"]) == 1 and len(r.data) < 20_000
    assert r.json["stats"]["filter"]["players"] == [anna]
    page = client.get("/stats?" + "&".join([f"players={anna}"] * 3000))
    assert page.status_code == 200 and len(page.data) < 40_000  # the query is not echoed back
    r = client.get("/api/stats?players=" + ",".join(str(n) for n in range(1, 52)))
    assert r.status_code == 400 and "at most 50" in r.json["error"], r.json


# ---------------------------------------------------------------------------------------------- 8. 500s


@pytest.mark.parametrize("value", ["%C2%B2", "9" * 5000, "%EF%BC%91", "-1", "1e3"])
@pytest.mark.parametrize(
    "url", ["/api/history?player=", "/api/history.csv?player=", "/api/throws.csv?player=", "/api/stats?players="]
)
def test_8_a_query_number_that_is_no_number_is_a_clear_400(client: Device, url: str, value: str) -> None:
    client.create()
    r = client.get(url + value)
    assert r.status_code == 400 and r.json["code"] == "malformed" and "player" in r.json["error"], r.json
    assert len(r.json["error"]) < 200


@pytest.mark.parametrize(
    "url",
    [
        "/history?player=%C2%B2",
        "/history?player=" + "9" * 5000,
        "/history?page=" + "9" * 5000,
        "/history?page=%C2%B2",
        "/history?page=0",
    ],
)
def test_8_a_page_with_a_bad_number_says_so_in_a_400(client: Device, url: str) -> None:
    r = client.get(url)
    assert r.status_code == 400 and r.mimetype == "text/plain", r.status_code
    assert "parameter" in r.get_data(as_text=True)


def test_8_the_stats_page_with_a_bad_number_says_so(client: Device) -> None:
    r = client.get("/stats?players=%C2%B2")
    assert r.status_code == 200 and "numbers separated by commas" in r.get_data(as_text=True)


@pytest.mark.parametrize("set_id", ["9223372036854775808", "9" * 5000, "%EF%BC%91", "18446744073709551616"])
def test_8_route_numbers_past_any_id_are_404_in_the_error_shape(client: Device, set_id: str) -> None:
    for r in (
        client.delete(f"/api/dice-sets/{set_id}"),
        client.post(f"/api/players/{set_id}", json={"name": "X"}),
        client.post(f"/api/players/{set_id}/merge", json={"into": 1}),
    ):
        assert r.status_code == 404 and r.json["code"] == "not_found", r.json


@pytest.mark.parametrize("seat", ["%C2%B2", "9" * 5000, "2", "-1", "%EF%BC%91"])
def test_8_the_phone_form_with_a_seat_that_is_no_seat_is_a_400_and_changes_nothing(
    app: Flask, client: Device, join: Joiner, seat: str
) -> None:
    game = client.create(bound_seats=True)
    phone = join(game["id"])
    assert phone.post(f"/api/games/{game['id']}/seat", json={"seat": 1}).status_code == 200
    before = snapshot(app)
    r = phone.client.post(
        f"/phone/{game['id']}/me", data="seat=" + seat, content_type="application/x-www-form-urlencoded"
    )
    assert r.status_code == 400 and "players" in r.get_data(as_text=True)
    assert snapshot(app) == before


def test_8_a_me_cookie_with_odd_digits_is_ignored_not_a_500(client: Device) -> None:
    game = client.create()
    client.client.set_cookie("becher_me", f"{game['id']}-\u00b2.{game['id']}-{'9' * 3000}")
    assert client.get(f"/phone/{game['id']}").status_code == 200


# ---------------------------------------------------------------------------------------------- 9. bodies


def test_9_a_seat_body_without_the_seat_is_refused_and_the_seat_kept(client: Device, join: Joiner) -> None:
    game = client.create(bound_seats=True)
    phone = join(game["id"])
    assert phone.post(f"/api/games/{game['id']}/seat", json={"seat": 1}).status_code == 200
    for sent in ({}, {"device": phone.id}, {"sat": 0}):
        r = phone.post(f"/api/games/{game['id']}/seat", json=sent)
        assert r.status_code == 400 and "'seat'" in r.json["error"], r.json
    assert phone.get(f"/api/games/{game['id']}").json["you"]["seat"] == 1
    assert phone.post(f"/api/games/{game['id']}/seat", json={"seat": None}).status_code == 200


@pytest.mark.parametrize("sent", [{}, {"auto_confirm": True}, {"auto_confirm": False}])
def test_9_a_camera_watch_without_the_game_is_refused_and_keeps_watching(client: Device, sent: Any) -> None:
    game = client.create()
    assert client.post("/api/camera/watch", json={"game": game["id"]}).status_code == 200
    r = client.post("/api/camera/watch", json=sent)
    assert r.status_code == 400 and "'game'" in r.json["error"], r.json
    assert client.get("/api/camera").json["camera"]["game"] == game["id"]


def test_9_a_dice_shown_that_teaches_nothing_changes_nothing(app: Flask, client: Device) -> None:
    game = client.create()
    store = app.extensions["becher.store"]
    photo = store.add_photo(game["id"], client.id, b"jpeg", 64, 48)
    reading = {"kind": "pip", "dice": [{"value": 1, "box": [0, 0, 9, 9], "confidence": 0.9}] * 2}
    store.set_reading(photo.id, reading, None)
    before = client.get(f"/api/games/{game['id']}").json["game"]["revision"]
    r = client.post(
        f"/api/games/{game['id']}/dice-shown", json={"photo": photo.id, "dice": [1, 1], "photo_dice": [None, None]}
    )
    assert r.status_code == 400 and "nothing to learn" in r.json["error"], r.json
    assert client.get(f"/api/games/{game['id']}").json["game"]["revision"] == before
    assert store.teach_shown(game["id"], [])["revision"] == before  # and the store keeps nothing of nothing


# ---------------------------------------------------------------------------------------------- 10. smaller


def test_10_the_431_of_an_api_request_is_in_the_error_shape() -> None:
    from web import gate

    answer = gate.too_large(b"GET /api/rules?x=1 HTTP/1.1\r\nHost: h\r\nX-Big: aaaa")
    head, _, text = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431") and b"application/json" in head
    assert int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0]) == len(text)
    body = json.loads(text)
    assert body["ok"] is False and body["status"] == 431 and body["code"] == "too_large"
    assert body["error"].endswith(".")
    assert gate.too_large(b"GET /table/x HTTP/1.1\r\n").startswith(b"HTTP/1.1 431") and b"text/plain" in (
        gate.too_large(b"GET /table/x HTTP/1.1\r\n")
    )


@pytest.mark.parametrize("url", ["/api/rules", "/api/games", "/api/nothing-here", "/api/dice-sets/1"])
def test_10_options_on_the_api_is_a_405_in_the_error_shape(client: Device, url: str) -> None:
    r = client.client.options(url)
    assert r.status_code == 405 and r.json["code"] == "method" and r.json["error"], (url, r.data)
    assert "Access-Control-Allow-Origin" not in r.headers


def test_10_an_https_origin_on_a_plain_http_server_is_refused(app: Flask, client: Device) -> None:
    before = snapshot(app)
    r = client.post("/api/games", json={"game": "bone", "players": ["A", "B"]}, headers={"Origin": "https://localhost"})
    assert r.status_code == 403, r.json
    assert snapshot(app) == before
    ok = client.post("/api/games", json={"game": "bone", "players": ["A", "B"]}, headers={"Origin": "http://localhost"})
    assert ok.status_code == 201


@pytest.mark.parametrize(
    ("name", "needle"), [("red\ndice", "control"), ("red\u202edice", "invisible"), ("x" * 41, "at most 40")]
)
def test_10_a_dice_set_name_is_refused_in_words_about_dice(app: Flask, client: Device, name: str, needle: str) -> None:
    game = client.create()
    teach(app, game["id"])
    r = client.post(f"/api/games/{game['id']}/dice-set", json={"name": name})
    assert r.status_code == 400 and needle in r.json["error"] and "dice" in r.json["error"], r.json
    assert "player" not in r.json["error"]


# ---------------------------------------------------------------------------------------------- saved sets that learn


def ended_game_from(app: Flask, device: Device, set_id: int, learn: int = 3) -> str:
    """A game started from set ``set_id`` that learned ``learn`` dice more and has ended (finished)."""
    r = device.post("/api/games", json={"game": "bone", "players": ["A", "B"], "dice_set": set_id})
    assert r.status_code == 201, r.json
    game_id: str = r.json["game"]["id"]
    teach(app, game_id, learn)
    assert device.post(f"/api/games/{game_id}/finish").status_code == 200
    return game_id


def test_a_set_learns_a_games_throws_when_it_ends_by_its_owner_only(
    app: Flask, client: Device, new_device: Callable[[], Device], join: Joiner
) -> None:
    _, mine = saved_set(app, client, "Holzwürfel", dice=4)
    r = client.post("/api/games", json={"game": "bone", "players": ["A", "B"], "dice_set": mine["id"]})
    game_id = r.json["game"]["id"]
    teach(app, game_id, 3)
    memory = client.get(f"/api/games/{game_id}").json["game"]["memory"]
    assert memory == {
        "seen": 7,
        "corrected": 0,
        "set": "Holzwürfel",
        "set_id": mine["id"],
        "new": 3,
        "set_updated": False,
    }
    url = f"/api/games/{game_id}/dice-set/update"
    playing = client.post(url)
    assert playing.status_code == 409 and "ended" in playing.json["error"]
    phone = join(game_id)
    client.post(f"/api/games/{game_id}/finish")
    before = set_data(app, mine["id"])
    refused = phone.post(url)
    assert refused.status_code == 403, refused.json
    assert new_device().post(url).status_code == 403  # a stranger may not even read the game
    assert set_data(app, mine["id"]) == before
    done = client.post(url)
    assert done.status_code == 200, done.json
    assert done.json["set"] == {**mine, "seen": 7}
    assert done.json["game"]["memory"]["set_updated"] is True
    assert set_data(app, mine["id"])[4] == before[4] + 1  # a new version: no unpacked copy of before is used
    again = client.post(url)
    assert again.status_code == 409
    started = client.post("/api/games", json={"game": "bone", "players": ["A", "B"], "dice_set": mine["id"]})
    assert started.json["game"]["memory"]["seen"] == 7


def test_a_game_not_started_from_a_set_has_nothing_to_update(client: Device) -> None:
    game = client.create()
    client.post(f"/api/games/{game['id']}/finish")
    r = client.post(f"/api/games/{game['id']}/dice-set/update")
    assert r.status_code == 409 and "did not start from saved dice" in r.json["error"]


def test_a_rematch_can_update_the_set_its_first_game_started_from(app: Flask, client: Device) -> None:
    _, mine = saved_set(app, client, dice=2)
    game_id = ended_game_from(app, client, mine["id"], learn=1)
    rematch = client.post(f"/api/games/{game_id}/rematch").json["game"]
    assert rematch["memory"]["set_id"] == mine["id"]
    for action in BONE_ROUND[:1]:
        client.play(rematch["id"], action)
    teach(app, rematch["id"], 2)
    client.post(f"/api/games/{rematch['id']}/finish")
    assert client.post(f"/api/games/{rematch['id']}/dice-set/update").json["set"]["seen"] == 5


# ---------------------------------------------------------------------------------------------- 11. long games


def test_11_a_long_games_answer_carries_its_last_rounds_and_the_full_one_comes_on_request(
    app: Flask, client: Device
) -> None:
    from tests.web.test_hardening import next_tie_action, tie_log
    from web.store import SHOWN_ROUNDS

    r = client.post("/api/games/import", data=tie_log(4000), headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 201
    game = r.json["game"]
    view = game["state"]["view"]
    assert len(view["history"]) == SHOWN_ROUNDS and len(r.data) < 150_000, len(r.data)
    # 4,000 actions: 1,000 settled rounds (the first, then 999 extra ones)
    assert view["history_left_out"] == {"rounds": 1000 - SHOWN_ROUNDS, "extra": 999 - SHOWN_ROUNDS}
    assert view["history"][-1]["number"] == 1000  # the newest rounds are the ones kept
    write = client.play(game["id"], next_tie_action(4000), seen=4000)
    assert write.status_code == 201 and len(write.data) < 150_000
    full = client.get(f"/api/games/{game['id']}?full=1").json["game"]["state"]["view"]
    assert len(full["history"]) == 1000 and "history_left_out" not in full
    short = client.create()
    assert "history_left_out" not in client.get(f"/api/games/{short['id']}").json["game"]["state"]["view"]


def test_11_the_table_page_of_a_long_game_says_what_it_leaves_out_and_counts_every_round(client: Device) -> None:
    from tests.web.test_hardening import tie_log

    lines = tie_log(400).splitlines()
    # the tie settled at last: Anna's hand beats Ben's in the 100th extra round (101 rounds, 61 of them left out)
    lines += [
        json.dumps({"type": "throw", "player": 0, "dice": [6, 6, 6, 6, 5]}),
        json.dumps({"type": "stand", "player": 0}),
        json.dumps({"type": "throw", "player": 1, "dice": [1, 2, 3, 4, 6]}),
        json.dumps({"type": "stand", "player": 1}),
    ]
    r = client.post("/api/games/import", data="\n".join(lines) + "\n", headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 201, r.json
    assert r.json["game"]["state"]["outcome"] is not None
    page = client.get(f"/table/{r.json['game']['id']}").get_data(as_text=True)
    assert "61 earlier rounds are not shown here." in page
    assert "the best hand of 100 extra rounds" in page
