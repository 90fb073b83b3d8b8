"""GET /api/games/<id>/advice: the hold advisor for the player to move, its access rules and its refusals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.web.conftest import Device


def advice(device: Device, game_id: str, query: str = "", **kw: Any) -> Any:
    return device.get(f"/api/games/{game_id}/advice{query}", **kw)


def throw(device: Device, game_id: str, player: int, dice: list[Any], held: list[int] | None = None) -> None:
    r = device.play(game_id, {"type": "throw", "player": player, "dice": dice, "held": held or []})
    assert r.status_code == 201, r.json


def test_bone_advice_for_the_player_to_move(client: Device) -> None:
    game = client.create("bone")
    throw(client, game["id"], 0, [6, 1, 6, 6, 6])
    r = advice(client, game["id"])
    assert r.status_code == 200, r.json
    a = r.json["advice"]
    assert (a["game"], a["player"], a["name"], a["throws_left"], a["objective"]) == ("bone", 0, "Anna", 2, "points")
    assert a["dice"] == [6, 1, 6, 6, 6] and a["beat"] is None
    best = a["holds"][0]
    assert best["keep"] == ["6", "6", "6", "6"] and best["held"] == [0, 2, 3, 4] and best["stand"] is False
    assert best["value"] == pytest.approx(50 / 6 + 5 / 6 * (40 + 10 / 6))
    assert [h["value"] for h in a["holds"]] == sorted((h["value"] for h in a["holds"]), reverse=True)
    stand = next(h for h in a["holds"] if h["stand"])
    assert stand["held"] == [0, 1, 2, 3, 4] and stand["value"] == 40.0
    # the advised hold is a throw the game accepts
    throw(client, game["id"], 0, [6, 2, 6, 6, 6], held=best["held"])
    assert advice(client, game["id"]).json["advice"]["throws_left"] == 1


def pokerdice_to_beat(client: Device, first: list[str], second: list[str]) -> str:
    """A poker dice round where Anna stood on ``first`` and Ben has thrown ``second`` once: Ben's hold has a hand to
    beat. Returns the game's id."""
    gid: str = client.create("pokerdice")["id"]
    throw(client, gid, 0, first)
    assert client.play(gid, {"type": "stand", "player": 0}).status_code == 201
    throw(client, gid, 1, second)
    return gid


def test_pokerdice_advice_names_the_hand_to_beat_in_the_devices_language(client: Device) -> None:
    gid = pokerdice_to_beat(client, ["Q", "Q", "Q", "J", "J"], ["A", "A", "A", "10", "9"])
    a = advice(client, gid, headers={"Accept-Language": "de"}).json["advice"]
    assert a["objective"] == "beat" and a["faces"] == ["A", "A", "A", "10", "9"]
    assert a["beat"]["name"] == "Anna" and a["beat"]["category"] == "full_house" and a["beat"]["faces"][0] == "Q"
    assert a["beat"]["label_en"] == "Full House" and a["beat"]["said"]
    best = a["holds"][0]
    assert best["keep"] == ["A", "A", "A"] and 0 < best["value"] < 1
    against_aces = advice(client, gid, "?beat=A,A,A,A,A").json["advice"]
    assert {h["value"] for h in against_aces["holds"]} == {0.0} and against_aces["beat"]["name"] is None


def test_said_labels_follow_the_language(client: Device) -> None:
    gid = pokerdice_to_beat(client, ["Q", "Q", "Q", "J", "9"], ["A", "A", "K", "10", "9"])
    de = advice(client, gid, headers={"Accept-Language": "de"}).json["advice"]["beat"]
    en = advice(client, gid, headers={"Accept-Language": "en"}).json["advice"]["beat"]
    assert en["said"] == "Three of a kind" and de["said"] != en["said"]


def test_sheet_advice_carries_every_open_row(client: Device) -> None:
    game = client.create("sheet", ["Anna"])
    throw(client, game["id"], 0, [6, 6, 5, 2, 1])
    a = advice(client, game["id"]).json["advice"]
    assert a["objective"] == "points" and a["throws_left"] == 2
    rows = {r["row"]: r for r in a["rows"]}
    assert len(rows) == 15 and rows["paar"]["chance"] == 1.0 and rows["summe"]["label_en"] == "Sum"
    assert rows["summe"]["expected"] >= 40.0  # 6+6+5+2+1 doubled as it stands


@pytest.mark.parametrize(
    ("game", "settings", "moves", "needle"),
    [
        ("bone", {}, [], "Throw first"),
        ("classic", {}, [(0, [1, 2, 3, 4, 6])], "no hand to beat"),
        ("classic", {"mode": "bluff"}, [], "under the cup"),
        ("board", {}, [], "board game"),
    ],
)
def test_nothing_to_advise_is_409_illegal(
    client: Device, game: str, settings: dict[str, Any], moves: list[tuple[int, list[int]]], needle: str
) -> None:
    created = client.create(game, **settings)
    for player, dice in moves:
        throw(client, created["id"], player, dice)
    r = advice(client, created["id"])
    assert r.status_code == 409 and r.json["code"] == "illegal" and needle in r.json["error"], r.json


def test_a_finished_game_has_nothing_to_advise(client: Device) -> None:
    game = client.create("bone")
    throw(client, game["id"], 0, [1, 2, 3, 4, 6])
    assert client.post(f"/api/games/{game['id']}/finish").status_code == 200
    r = advice(client, game["id"])
    assert r.status_code == 409 and r.json["code"] == "illegal"


@pytest.mark.parametrize(
    ("query", "needle"),
    [("?beat=1,2,3", "5 dice, not 3"), ("?beat=K,K,K,K,K", "poker-dice face"), ("?beat=1,2,3,4,9", "poker-dice")],
)
def test_bad_beat_is_400(client: Device, query: str, needle: str) -> None:
    game = client.create("classic")
    throw(client, game["id"], 0, [1, 2, 3, 4, 6])
    r = advice(client, game["id"], query)
    assert r.status_code == 400 and r.json["code"] == "malformed" and needle in r.json["error"], r.json


def test_beat_in_the_sheet_is_400(client: Device) -> None:
    game = client.create("sheet", ["Anna"])
    throw(client, game["id"], 0, [6, 6, 5, 2, 1])
    r = advice(client, game["id"], "?beat=1,1,1,1,1")
    assert r.status_code == 400 and "no hand to beat" in r.json["error"]


def test_access_is_that_of_the_other_game_reads(
    client: Device, new_device: Callable[[], Device], join: Callable[[str], Device]
) -> None:
    game = client.create("bone")
    throw(client, game["id"], 0, [6, 6, 6, 2, 1])
    stranger = new_device()
    r = advice(stranger, game["id"])
    assert r.status_code == 403 and r.json["code"] == "forbidden"
    assert advice(join(game["id"]), game["id"]).status_code == 200
    assert advice(client, "nosuchgame").status_code == 404
