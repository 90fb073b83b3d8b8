"""Games through the API: create, list, open, play, undo, finish, delete, export, import, rematch; every refusal."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from companion.core import GameLog, all_rules
from tests.web.conftest import BONE_ROUND, Device
from web.app import create_app


def test_rules_list_every_registered_game_with_settings_and_help(client: Device) -> None:
    r = client.get("/api/rules")
    assert r.status_code == 200
    ids = [g["id"] for g in r.json["games"]]
    assert ids == [rules.id for rules in all_rules()]
    bone = client.get("/api/rules/bone").json["rules"]
    rounds = next(s for s in bone["settings"] if s["name"] == "rounds")
    assert rounds["default"] == 5 and rounds["help_en"] and rounds["help_de"]


def test_rules_of_unknown_game_is_404(client: Device) -> None:
    r = client.get("/api/rules/chess")
    assert r.status_code == 404
    assert "bone" in r.json["error"]


def test_hand_answers_what_a_throw_is_worth(client: Device) -> None:
    r = client.get("/api/rules/bone/hand?dice=3,3,3,2,2")
    assert r.status_code == 200
    assert r.json["hand"]["points"] == 35
    bad = client.get("/api/rules/bone/hand?dice=3,3,7,2,2")
    assert bad.status_code == 400 and bad.json["code"] == "malformed"


def test_create_answers_the_summary_with_options_from_the_rules(client: Device) -> None:
    r = client.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben", "Cem"], "settings": {"rounds": 2}})
    assert r.status_code == 201
    game = r.json["game"]
    assert game["game"] == "bone" and game["status"] == "playing" and game["revision"] == 0
    state = game["state"]
    assert state == GameLog.new("bone", ["Anna", "Ben", "Cem"], {"rounds": 2}).summary()
    assert state["options"] and state["options"][0]["action"] == "throw"
    assert r.json["you"]["role"] == "owner" and r.json["you"]["can_write"] is True
    assert len(r.json["join"]["code"]) == 6 and r.json["join"]["url"].endswith("/join/" + r.json["join"]["code"])


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"game": "chess", "players": ["A", "B"]}, "no game"),
        ({"game": "bone", "players": ["A"]}, "2 to 8"),
        ({"game": "bone", "players": [f"P{i}" for i in range(9)]}, "2 to 8"),
        ({"game": "bone", "players": ["Anna", "anna"]}, "same name"),
        ({"game": "bone", "players": ["A", " "]}, "name"),
        ({"game": "bone", "players": ["A", "B"], "settings": {"rounds": 0}}, "at least"),
        ({"game": "bone", "players": ["A", "B"], "settings": {"speed": 3}}, "no setting"),
        ({"game": "bone", "players": ["A", "B"], "settings": [1]}, "settings"),
        ({"game": "bone", "players": "A,B"}, "players"),
        ({"players": ["A", "B"]}, "game"),
        ({"game": "bone", "players": ["A", "B"], "public": "yes"}, "public"),
        ([1, 2], "object"),
    ],
)
def test_create_refuses_bad_setup_with_400_and_stores_nothing(client: Device, body: Any, needle: str) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and r.json["code"] == "malformed"
    assert needle in r.json["error"]
    assert client.get("/api/games").json["games"] == []


def test_create_refuses_a_body_that_is_not_json(client: Device) -> None:
    r = client.post("/api/games", data="game=bone", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON" in r.json["error"]


def test_play_a_round_and_the_answer_is_the_rules_engine_summary(client: Device) -> None:
    game = client.create(rounds=1)
    expected = GameLog.new("bone", ["Anna", "Ben"], {"rounds": 1})
    for n, action in enumerate(BONE_ROUND, start=1):
        r = client.play(game["id"], action, seen=n - 1)
        assert r.status_code == 201, r.json
        expected.play(action)
        assert r.json["n"] == n
        assert r.json["game"]["state"] == expected.summary()
        assert r.json["game"]["revision"] == n
    final = client.get(f"/api/games/{game['id']}").json["game"]
    assert final["status"] == "over"
    assert final["state"]["outcome"]["winners"] == [1]
    listed = client.get("/api/games").json["games"][0]
    assert listed["status"] == "over" and listed["actions"] == len(BONE_ROUND)
    assert listed["outcome"]["winners"] == [1]


def test_stale_write_gets_409_with_current_game_and_changes_nothing(client: Device) -> None:
    game = client.create()
    assert client.play(game["id"], BONE_ROUND[0], seen=0).status_code == 201
    r = client.play(game["id"], BONE_ROUND[1], seen=0)
    assert r.status_code == 409 and r.json["code"] == "stale"
    assert r.json["game"]["state"]["actions"] == 1
    r2 = client.play(game["id"], BONE_ROUND[1], seen=2)
    assert r2.status_code == 409 and r2.json["code"] == "stale"
    r3 = client.post(f"/api/games/{game['id']}/actions", json={"seen": 1, "revision": 0, "action": BONE_ROUND[1]})
    assert r3.status_code == 409 and r3.json["code"] == "stale"
    assert client.get(f"/api/games/{game['id']}/log").json["log"][0]["action"]["type"] == "throw"
    assert len(client.get(f"/api/games/{game['id']}/log").json["log"]) == 1


def test_action_against_the_rules_gets_409_illegal_with_the_rules_sentence(client: Device) -> None:
    game = client.create()
    r = client.play(game["id"], {"type": "throw", "player": 1, "dice": [1, 2, 3, 4, 5]}, seen=0)
    assert r.status_code == 409 and r.json["code"] == "illegal"
    assert "Anna" in r.json["error"]
    assert r.json["game"]["state"]["actions"] == 0
    assert client.get(f"/api/games/{game['id']}").json["game"]["revision"] == 0


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"seen": 0, "action": {"type": "fly", "player": 0}}, "no action"),
        ({"seen": 0, "action": {"type": "throw", "player": 0, "dice": [1, 2, 3]}}, "5 dice"),
        ({"seen": 0, "action": {"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 9]}}, "9"),
        ({"seen": 0, "action": {"type": "throw", "player": 5, "dice": [1, 2, 3, 4, 5]}}, "no player"),
        ({"seen": 0, "action": {"type": "throw", "player": 0}}, "dice"),
        ({"seen": 0, "action": "throw"}, "action"),
        ({"action": {"type": "stand", "player": 0}}, "seen"),
        ({"seen": "0", "action": {"type": "stand", "player": 0}}, "seen"),
        ({"seen": -1, "action": {"type": "stand", "player": 0}}, "seen"),
        ({"seen": 0, "action": {"type": "stand", "player": 0}, "photo": 5}, "photo"),
        ({"seen": 0, "action": BONE_ROUND[0], "photo": "pnope"}, "photo"),
    ],
)
def test_malformed_action_gets_400_and_changes_nothing(client: Device, body: dict[str, Any], needle: str) -> None:
    game = client.create()
    r = client.post(f"/api/games/{game['id']}/actions", json=body)
    assert r.status_code == 400 and r.json["code"] == "malformed", r.json
    assert needle in r.json["error"]
    assert client.get(f"/api/games/{game['id']}").json["game"]["revision"] == 0


def test_undo_drops_the_last_actions_and_says_what_it_undid(client: Device) -> None:
    game = client.create()
    for n, action in enumerate(BONE_ROUND[:3]):
        client.play(game["id"], action, seen=n)
    r = client.post(f"/api/games/{game['id']}/undo", json={"seen": 3, "count": 2})
    assert r.status_code == 200
    assert r.json["undone"] == [GameLog.new("bone", ["A", "B"]).parse(a).to_json() for a in BONE_ROUND[1:3]]
    assert r.json["game"]["state"]["actions"] == 1
    assert r.json["game"]["revision"] == 4  # three plays and the undo: the revision only grows
    assert [row["n"] for row in client.get(f"/api/games/{game['id']}/log").json["log"]] == [1]
    # the undone turn can be played differently now
    again = client.play(game["id"], {"type": "throw", "player": 0, "dice": [6, 6, 6, 6, 6], "held": []}, seen=1)
    assert again.status_code == 201


def test_undo_refusals(client: Device) -> None:
    game = client.create()
    client.play(game["id"], BONE_ROUND[0], seen=0)
    base = f"/api/games/{game['id']}/undo"
    too_many = client.post(base, json={"seen": 1, "count": 2})
    assert too_many.status_code == 409 and too_many.json["code"] == "illegal"
    assert client.post(base, json={"seen": 0}).status_code == 409
    assert client.post(base, json={"seen": 1, "count": 0}).status_code == 400
    assert client.post(base, json={}).status_code == 400
    assert client.get(f"/api/games/{game['id']}").json["game"]["state"]["actions"] == 1


def test_finish_makes_the_game_read_only(client: Device, join: Callable[[str], Device]) -> None:
    game = client.create()
    phone = join(game["id"])
    client.play(game["id"], BONE_ROUND[0], seen=0)
    assert phone.post(f"/api/games/{game['id']}/finish").status_code == 403
    r = client.post(f"/api/games/{game['id']}/finish")
    assert r.status_code == 200 and r.json["game"]["status"] == "finished"
    assert client.post(f"/api/games/{game['id']}/finish").status_code == 200
    refused = phone.play(game["id"], BONE_ROUND[1], seen=1)
    assert refused.status_code == 409 and refused.json["code"] == "finished"
    assert client.post(f"/api/games/{game['id']}/undo", json={"seen": 1}).json["code"] == "finished"
    assert phone.get(f"/api/games/{game['id']}").json["you"]["can_write"] is False


def test_delete_removes_game_actions_and_photos(client: Device, join: Callable[[str], Device]) -> None:
    game = client.create()
    phone = join(game["id"])
    client.play(game["id"], BONE_ROUND[0], seen=0)
    assert phone.delete(f"/api/games/{game['id']}").status_code == 403
    r = client.delete(f"/api/games/{game['id']}")
    assert r.status_code == 200 and r.json["deleted"] == game["id"]
    assert client.get(f"/api/games/{game['id']}").status_code == 404
    assert client.delete(f"/api/games/{game['id']}").status_code == 404
    assert client.get("/api/games").json["games"] == []


def test_export_then_import_gives_the_same_game(client: Device, new_device: Callable[[], Device]) -> None:
    game = client.create(rounds=1)
    for n, action in enumerate(BONE_ROUND):
        client.play(game["id"], action, seen=n)
    r = client.get(f"/api/games/{game['id']}/export")
    assert r.status_code == 200 and r.mimetype == "application/x-ndjson"
    assert f"becher-bone-{game['id']}.jsonl" in r.headers["Content-Disposition"]
    text = r.get_data(as_text=True)
    assert GameLog.from_jsonl(text).summary() == client.get(f"/api/games/{game['id']}").json["game"]["state"]

    other = new_device()
    imported = other.post("/api/games/import", data=text, headers={"Content-Type": "application/x-ndjson"})
    assert imported.status_code == 201
    assert imported.json["you"]["role"] == "owner"
    assert imported.json["game"]["id"] != game["id"]
    assert imported.json["game"]["state"] == GameLog.from_jsonl(text).summary()
    as_file = other.post("/api/games/import", data={"log": (__import__("io").BytesIO(text.encode()), "g.jsonl")})
    assert as_file.status_code == 201 and as_file.json["game"]["state"]["actions"] == len(BONE_ROUND)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "empty"),
        ("not json\n", "not JSON"),
        ('{"players": ["A", "B"]}\n', "header"),
        (
            '{"becher": 1, "game": "bone", "players": ["A", "B"], "settings": {}}\n{"type": "stand", "player": 0}\n',
            "cannot be replayed",
        ),
        ('{"becher": 9, "game": "bone", "players": ["A", "B"], "settings": {}}\n', "format"),
    ],
)
def test_import_refuses_bad_logs_with_the_reason(client: Device, text: str, needle: str) -> None:
    r = client.post("/api/games/import", data=text, headers={"Content-Type": "text/plain"})
    assert r.status_code == 400 and needle in r.json["error"]
    assert client.get("/api/games").json["games"] == []


def test_import_refuses_bytes_that_are_not_utf8(client: Device) -> None:
    r = client.post("/api/games/import", data=b"\xff\xfe\x00", headers={"Content-Type": "text/plain"})
    assert r.status_code == 400 and "UTF-8" in r.json["error"]


def test_rematch_copies_setup_and_members(client: Device, join: Callable[[str], Device]) -> None:
    game = client.create(players=["Anna", "Ben", "Cem"], rounds=2)
    phone = join(game["id"])
    client.play(game["id"], BONE_ROUND[0], seen=0)
    r = phone.post(f"/api/games/{game['id']}/rematch")
    assert r.status_code == 201
    new = r.json["game"]
    assert new["id"] != game["id"] and new["state"]["actions"] == 0
    assert new["state"]["players"] == ["Anna", "Ben", "Cem"] and new["state"]["settings"]["rounds"] == 2
    assert client.get(f"/api/games/{new['id']}").json["you"]["can_write"] is True
    assert client.get(f"/api/games/{new['id']}").json["you"]["role"] == "owner"  # the old game's owner keeps it
    assert phone.get(f"/api/games/{new['id']}").json["you"]["role"] == "player"


def test_a_second_rematch_press_answers_the_first_rematch(client: Device, join: Callable[[str], Device]) -> None:
    game = client.create(players=["Anna", "Ben"], rounds=1)
    phone = join(game["id"])
    first = client.post(f"/api/games/{game['id']}/rematch")
    old = client.get(f"/api/games/{game['id']}").json["game"]
    assert old["rematch"] == first.json["game"]["id"] and old["revision"] == game["revision"] + 1
    second = phone.post(f"/api/games/{game['id']}/rematch")
    assert second.status_code == 201 and second.json["game"]["id"] == first.json["game"]["id"]
    assert len([g for g in client.get("/api/games").json["games"] if g["players"] == ["Anna", "Ben"]]) == 2
    client.delete(f"/api/games/{first.json['game']['id']}")  # the rematch deleted: a new press makes another
    third = phone.post(f"/api/games/{game['id']}/rematch")
    assert third.status_code == 201 and third.json["game"]["id"] != first.json["game"]["id"]


def test_log_lists_who_did_what_when(client: Device, join: Callable[[str], Device]) -> None:
    game = client.create()
    phone = join(game["id"])
    client.play(game["id"], BONE_ROUND[0], seen=0)
    phone.play(game["id"], BONE_ROUND[1], seen=1)
    log = client.get(f"/api/games/{game['id']}?log=1").json["log"]
    assert [row["device"] for row in log] == [client.id, phone.id]
    assert [row["action"]["type"] for row in log] == ["throw", "stand"]
    assert all(row["at"].endswith("Z") and row["photo"] is None for row in log)


def test_unknown_game_route_and_method_answer_in_the_error_shape(client: Device) -> None:
    assert client.get("/api/games/nope").status_code == 404
    assert client.play("nope", BONE_ROUND[0], seen=0).status_code == 404
    assert client.get("/api/nowhere").json["code"] == "not_found"
    r = client.client.put("/api/games", headers={"X-Becher": "1"})
    assert r.status_code == 405 and r.get_json()["code"] == "method"


def test_bodies_over_a_megabyte_are_413(client: Device) -> None:
    r = client.post(
        "/api/games", data=b"{" + b" " * (1024 * 1024 + 10) + b"}", headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 413 and r.json["code"] == "too_large"


def test_games_survive_a_new_app_on_the_same_database(app: Flask, client: Device) -> None:
    game = client.create()
    for n, action in enumerate(BONE_ROUND[:3]):
        client.play(game["id"], action, seen=n)
    before = client.get(f"/api/games/{game['id']}").json["game"]
    second = create_app({"TESTING": True, "DATABASE": app.config["DATABASE"]})
    try:
        again = Device(second.test_client())
        again.client.set_cookie("becher_device", client.client.get_cookie("becher_device").value)  # type: ignore[union-attr]
        after = again.get(f"/api/games/{game['id']}").json["game"]
        assert after == before
        assert again.play(game["id"], BONE_ROUND[3], seen=3).status_code == 201
    finally:
        second.extensions["becher.shutdown"]()
        second.extensions["becher.store"].close()


def test_a_server_bug_answers_500_in_the_error_shape(tmp_path: Path) -> None:
    app = create_app({"DATABASE": str(tmp_path / "b.sqlite3")})

    def boom() -> str:
        raise RuntimeError("a bug")

    app.add_url_rule("/api/boom", "boom", boom)
    try:
        r = app.test_client().get("/api/boom")
        assert r.status_code == 500
        assert r.json == {
            "ok": False,
            "error": "Something went wrong on the server; try again, and report it if it repeats.",
            "status": 500,
            "code": "server",
        }
    finally:
        app.extensions["becher.shutdown"]()
        app.extensions["becher.store"].close()


def test_games_beyond_the_cache_fold_again_correctly(client: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    from web import store

    monkeypatch.setattr(store, "CACHED_GAMES", 2)
    games = [client.create() for _ in range(4)]
    for game in games:
        client.play(game["id"], BONE_ROUND[0], seen=0)
    for game in games:
        r = client.play(game["id"], BONE_ROUND[1], seen=1)
        assert r.status_code == 201 and r.json["game"]["state"]["actions"] == 2
    app_store = client.client.application.extensions["becher.store"]
    assert len(app_store._logs) <= 2 and len(app_store._views) <= 2
