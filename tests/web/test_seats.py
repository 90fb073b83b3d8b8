"""Seats: where a game binds phones to seats (the default for new games), a player's phone acts for its own seat
only; the owner (and the host) act for all; the owner may let every phone act for every seat ("shared by all")."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask

from tests.web.conftest import BONE_ROUND, Device

ANNA_THROWS, ANNA_STANDS, BEN_THROWS = BONE_ROUND[0], BONE_ROUND[1], BONE_ROUND[2]


def bound_game(client: Device) -> dict[str, Any]:
    r = client.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"]})  # no flag: the default
    assert r.status_code == 201 and r.json["game"]["bound_seats"] is True
    assert r.json["you"]["all_seats"] is True  # the owner acts for every seat
    game: dict[str, Any] = r.json["game"]
    return game


def seat(by: Device, game_id: str, number: int | None, **extra: Any) -> Any:
    return by.post(f"/api/games/{game_id}/seat", json={"seat": number, **extra})


def test_a_phone_without_a_seat_is_asked_to_choose_one(client: Device, join: Callable[[str], Device]) -> None:
    game = bound_game(client)
    phone = join(game["id"])
    r = phone.play(game["id"], ANNA_THROWS, seen=0)
    assert r.status_code == 403 and r.json["code"] == "no_seat" and "choose whose phone" in r.json["error"]
    assert client.get(f"/api/games/{game['id']}").json["game"]["state"]["actions"] == 0


def test_a_bound_phone_acts_and_undoes_for_its_own_seat_only(client: Device, join: Callable[[str], Device]) -> None:
    game = bound_game(client)
    gid = game["id"]
    anna, ben = join(gid), join(gid)
    assert seat(anna, gid, 0).json["you"]["seat"] == 0
    assert seat(ben, gid, 1).json["you"] == {**ben.get(f"/api/games/{gid}").json["you"], "seat": 1}
    refused = ben.play(gid, ANNA_THROWS, seen=0)
    assert refused.status_code == 403 and refused.json["code"] == "not_your_seat"
    assert "Ben" in refused.json["error"] and "Anna" in refused.json["error"]
    assert anna.play(gid, ANNA_THROWS, seen=0).status_code == 201
    r = ben.post(f"/api/games/{gid}/undo", json={"seen": 1})
    assert r.status_code == 403 and r.json["code"] == "not_your_seat"
    assert anna.play(gid, ANNA_STANDS, seen=1).status_code == 201
    assert ben.play(gid, BEN_THROWS, seen=2).status_code == 201
    assert ben.post(f"/api/games/{gid}/undo", json={"seen": 3}).status_code == 200  # its own throw
    r = ben.post(f"/api/games/{gid}/undo", json={"seen": 2, "count": 2})  # Anna's actions among them
    assert r.status_code == 403
    assert client.post(f"/api/games/{gid}/undo", json={"seen": 2, "count": 2}).status_code == 200  # the owner
    assert client.play(gid, ANNA_THROWS, seen=0).status_code == 201  # the owner plays for anyone


def test_a_seat_is_one_phones_and_only_the_owner_frees_anothers(
    client: Device, join: Callable[[str], Device]
) -> None:
    game = bound_game(client)
    gid = game["id"]
    anna, other = join(gid), join(gid)
    assert seat(anna, gid, 0).status_code == 200
    taken = seat(other, gid, 0)
    assert taken.status_code == 409 and taken.json["code"] == "seat_taken" and "Anna" in taken.json["error"]
    assert seat(other, gid, 5).status_code == 400
    assert seat(other, gid, 0, device=anna.id).status_code == 403  # a player cannot move another phone
    r = seat(client, gid, None, device=anna.id)  # the owner frees Anna's seat
    assert r.status_code == 200 and {m["device"]: m["seat"] for m in r.json["members"]}[anna.id] is None
    assert seat(other, gid, 0).status_code == 200
    assert seat(other, gid, None).json["you"]["seat"] is None  # a phone may give up its seat
    assert seat(client, gid, 1, device="nobody").status_code == 404


def test_the_owner_may_let_every_phone_act_for_every_seat(client: Device, join: Callable[[str], Device]) -> None:
    game = bound_game(client)
    gid = game["id"]
    phone = join(gid)
    assert phone.post(f"/api/games/{gid}/access", json={"bound_seats": False}).status_code == 403
    r = client.post(f"/api/games/{gid}/access", json={"bound_seats": False})
    assert r.status_code == 200
    assert client.get(f"/api/games/{gid}").json["game"]["bound_seats"] is False
    assert phone.get(f"/api/games/{gid}").json["you"]["all_seats"] is True
    assert phone.play(gid, ANNA_THROWS, seen=0).status_code == 201
    assert phone.play(gid, ANNA_STANDS, seen=1).status_code == 201
    assert phone.play(gid, BEN_THROWS, seen=2).status_code == 201
    created = client.post("/api/games", json={"game": "bone", "players": ["A", "B"], "bound_seats": False})
    assert created.json["game"]["bound_seats"] is False  # or from the start


def test_the_host_acts_for_every_seat(app: Flask, client: Device, new_device: Callable[[], Device]) -> None:
    game = bound_game(new_device())
    app.config["LOCAL_IS_OWNER"] = True
    assert client.play(game["id"], ANNA_THROWS, seen=0).status_code == 201


def test_a_rematch_keeps_the_binding_and_the_seats(client: Device, join: Callable[[str], Device]) -> None:
    game = bound_game(client)
    phone = join(game["id"])
    seat(phone, game["id"], 1)
    again = client.post(f"/api/games/{game['id']}/rematch").json
    assert again["game"]["bound_seats"] is True
    assert phone.get(f"/api/games/{again['game']['id']}").json["you"]["seat"] == 1


def test_an_older_database_gets_the_new_columns_and_its_games_stay_shared(tmp_path: Path) -> None:
    from web.store import SCHEMA, Store

    path = tmp_path / "old.sqlite3"
    old_schema = SCHEMA.replace("    bound_seats INTEGER NOT NULL DEFAULT 0,\n", "").replace("    seat INTEGER,\n", "")
    assert old_schema != SCHEMA
    with sqlite3.connect(path) as db:
        db.executescript(old_schema)
        setup = '{"game": "bone", "players": ["A", "B"], "settings": {}}'
        db.execute(
            "INSERT INTO games (id, game, setup, owner, code, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?)",
            ("g1", "bone", setup, "o", "ABCDEF", 1, 1),
        )
    store = Store(path)
    try:
        assert store.row("g1").bound_seats is False
        assert store.members("g1") == []
    finally:
        store.close()


def test_a_malformed_seat_in_an_action_is_the_rules_refusal_not_a_seat_one(
    client: Device, join: Callable[[str], Device]
) -> None:
    game = bound_game(client)
    phone = join(game["id"])
    seat(phone, game["id"], 0)
    for player in ("0", None, True, 0.0):
        r = phone.play(game["id"], {**ANNA_THROWS, "player": player}, seen=0)
        assert r.status_code == 400 and r.json["code"] == "malformed", player
