"""A photo for a throw is read as that throw's dice: the count the game knows (or the device says), what was assumed."""

from __future__ import annotations

from typing import Any

import cv2
import pytest

from tests.vision.drawing import scene
from tests.web.conftest import BONE_ROUND, Device
from tests.web.test_photos import reader_problem, upload
from web import photos


def png(values: list[int], seed: int = 3) -> bytes:
    img, _ = scene(values, side=64, seed=seed)
    ok, data = cv2.imencode(".png", img)
    assert ok
    return data.tobytes()


def state(device: Device, game_id: str) -> dict[str, Any]:
    result: dict[str, Any] = device.get(f"/api/games/{game_id}").json["game"]["state"]
    return result


@pytest.fixture
def real_reader() -> None:
    problem = reader_problem()
    if problem is not None:
        pytest.skip(f"needs the real dice reader: {problem}")


def test_the_game_knows_five_dice_for_a_first_throw_and_only_the_table_in_a_rethrow(client: Device) -> None:
    game = client.create()
    assert photos.expected_count(state(client, game["id"])) == (5, None)
    assert client.play(game["id"], BONE_ROUND[0]).status_code == 201
    # Anna may throw again: which dice she keeps only her device knows
    assert photos.expected_count(state(client, game["id"])) == (None, 5)
    client.play(game["id"], BONE_ROUND[1])
    assert photos.expected_count(state(client, game["id"])) == (5, None)


def test_a_roll_off_on_the_board_is_one_die_and_a_finished_game_none(client: Device) -> None:
    game = client.create("board")
    assert photos.expected_count(state(client, game["id"])) == (1, None)
    assert photos.expected_count({"game": "bone", "options": []}) == (None, None)
    assert photos.expected_count({"game": "no such game"}) == (None, None)


def test_a_first_throw_photo_of_six_dice_is_proposed_as_five(client: Device, real_reader: None) -> None:
    game = client.create()
    r = upload(client, game["id"], png([1, 2, 3, 4, 5, 6]), query="?kind=pip")
    assert r.status_code == 201, r.json
    reading = r.json["reading"]
    assert reading["count"] == 5 and len(reading["dice"]) == 5
    assert len(reading["extra"]) == 1 and reading["assumed"] == ["extra"] and reading["missing"] == 0
    faces = sorted(d["face"] for d in reading["dice"] + reading["extra"])
    assert faces == ["1", "2", "3", "4", "5", "6"]
    for die in reading["extra"]:  # scaled to the stored photo, like the dice
        x0, y0, x1, y1 = die["box"]
        assert 0 <= x0 < x1 <= r.json["photo"]["width"] and 0 <= y0 < y1 <= r.json["photo"]["height"]
    stored = client.get(f"/api/photos/{r.json['photo']['id']}/reading").json["reading"]
    assert stored == reading


def test_a_rethrow_of_two_dice_proposes_two(client: Device, real_reader: None) -> None:
    game = client.create()
    client.play(game["id"], BONE_ROUND[0])
    r = upload(client, game["id"], png([6, 4, 2]), query="?kind=pip&count=2")
    reading = r.json["reading"]
    assert reading["count"] == 2 and len(reading["dice"]) == 2 and len(reading["extra"]) == 1
    assert reading["assumed"] == ["extra"]
    two = upload(client, game["id"], png([6, 4]), query="?kind=pip&count=2").json["reading"]
    assert sorted(d["value"] for d in two["dice"]) == [4, 6] and two["assumed"] == [] and two["count"] == 2


def test_a_rethrow_photo_with_the_kept_dice_is_proposed_as_the_whole_table(client: Device, real_reader: None) -> None:
    game = client.create()
    client.play(game["id"], BONE_ROUND[0])
    reading = upload(client, game["id"], png([1, 2, 3, 4, 5]), query="?kind=pip&count=2").json["reading"]
    assert reading["count"] == 5 and len(reading["dice"]) == 5 and reading["assumed"] == ["whole"]


def test_without_a_count_in_a_rethrow_the_reading_is_as_read(client: Device, real_reader: None) -> None:
    game = client.create()
    client.play(game["id"], BONE_ROUND[0])
    reading = upload(client, game["id"], png([6, 4, 2]), query="?kind=pip").json["reading"]
    assert len(reading["dice"]) == 3 and "count" not in reading


def test_too_few_dice_leave_places_for_a_tap(client: Device, real_reader: None) -> None:
    game = client.create()
    reading = upload(client, game["id"], png([3, 5, 6]), query="?kind=pip").json["reading"]
    assert reading["count"] == 5 and len(reading["dice"]) + reading["missing"] == 5 and reading["missing"] >= 1
    assert "missing" in reading["assumed"]
    added = [d for d in reading["dice"] if "assumed" in d]
    assert all(d["assumed"] == "added" and d["uncertain"] for d in added)
    assert len(reading["dice"]) - len(added) == 3 and ("added" in reading["assumed"]) == bool(added)


@pytest.mark.parametrize(
    "query", ["?count=0", "?count=31", "?count=two", "?count=-1", "?on_table=x", "?count=4&on_table=2"]
)
def test_a_count_that_is_no_count_is_refused(client: Device, query: str) -> None:
    game = client.create()
    r = upload(client, game["id"], png([1, 2]), query=query)
    assert r.status_code == 400 and r.json["ok"] is False and r.json["status"] == 400
    assert "count" in r.json["error"] or "on_table" in r.json["error"]
