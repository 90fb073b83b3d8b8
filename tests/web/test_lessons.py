"""The server keeps what confirmed throws teach the reader (issue 52): with the action, undone with it, across a
restart, as a saved dice set, into a rematch, gone with the game; bad ``photo_dice`` refused and nothing kept."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests.web.conftest import BONE_ROUND, Device
from tests.web.test_photos import dice_photo, reader_problem, upload
from web import photos
from web.app import create_app

pytestmark = pytest.mark.skipif(reader_problem() is not None, reason=str(reader_problem()))


NOTHING = {"seen": 0, "corrected": 0, "set": None, "set_id": None, "new": 0, "set_updated": False}


def throw_with_photo(device: Device, game_id: str, **extra: Any) -> tuple[Any, dict[str, Any]]:
    """Upload the five-dice photo and confirm the first throw of Bone with it; (answer, the photo's reading)."""
    answer = upload(device, game_id, dice_photo(800, 600)).json
    reading = answer["reading"]
    assert reading is not None and len(reading["dice"]) == 5, answer
    r = device.play(game_id, BONE_ROUND[0], seen=0, photo=answer["photo"]["id"], **extra)
    return r, reading


def memory_of(device: Device, game_id: str) -> dict[str, Any]:
    memory: dict[str, Any] = device.get(f"/api/games/{game_id}").json["game"]["memory"]
    return memory


def test_a_confirmed_throw_teaches_its_dice_and_an_undo_takes_them_back(client: Device) -> None:
    game = client.create()
    assert memory_of(client, game["id"]) == NOTHING
    r, reading = throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, 4])
    assert r.status_code == 201
    # BONE_ROUND's throw is 1 2 3 4 5 and the photo shows 1 2 3 4 5 left to right: any die read otherwise is a
    # correction
    wrong = sum(d["value"] != v for d, v in zip(reading["dice"], [1, 2, 3, 4, 5], strict=True))
    assert r.json["game"]["memory"] == {**NOTHING, "seen": 5, "corrected": wrong, "new": 5}
    undo = client.post(f"/api/games/{game['id']}/undo", json={"seen": 1})
    assert undo.json["game"]["memory"]["seen"] == 0


def test_values_sent_without_photo_dice_go_to_the_likeliest_dice(client: Device) -> None:
    game = client.create()
    r, _ = throw_with_photo(client, game["id"])
    assert r.json["game"]["memory"]["seen"] == 5


@pytest.mark.parametrize(
    ("extra", "word"),
    [
        ({"photo_dice": [0, 1, 2]}, "photo_dice"),  # not one per value
        ({"photo_dice": [0, 0, 1, 2, 3]}, "photo_dice"),  # a die twice
        ({"photo_dice": [0, 1, 2, 3, 9]}, "photo_dice"),  # a die the photo lacks
        ({"photo_dice": [0, 1, 2, 3, True]}, "photo_dice"),
        ({"photo_dice": "0 1 2 3 4"}, "photo_dice"),
        ({"photo_dice": [0, 1, 2, 3, None], "not_dice": [0]}, "not_dice"),  # a die sent both as die and as none
        ({"not_dice": 3}, "not_dice"),
    ],
)
def test_photo_dice_that_do_not_fit_the_photo_are_refused_and_nothing_is_kept(
    client: Device, extra: dict[str, Any], word: str
) -> None:
    game = client.create()
    r, _ = throw_with_photo(client, game["id"], **extra)
    assert r.status_code == 400 and word in r.json["error"]
    after = client.get(f"/api/games/{game['id']}").json["game"]
    assert after["state"]["actions"] == 0 and after["memory"]["seen"] == 0


def test_photo_dice_without_a_photo_are_refused(client: Device) -> None:
    game = client.create()
    r = client.play(game["id"], BONE_ROUND[0], seen=0, photo_dice=[0, 1, 2, 3, 4])
    assert r.status_code == 400 and "photo" in r.json["error"]


def test_dice_said_to_be_none_are_kept_as_not_dice(client: Device) -> None:
    game = client.create()
    r, _ = throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, None], not_dice=[4])
    assert r.status_code == 201
    # four dice learned; the fifth box is kept as "not a die", which is no die seen
    assert r.json["game"]["memory"]["seen"] == 4


def test_what_was_learned_survives_a_restart_and_the_next_photo_is_read_with_it(
    app: Flask, client: Device, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = client.create()
    throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, 4])
    again = create_app({"TESTING": True, "DATABASE": str(tmp_path / "becher.sqlite3"), "READ_TIMEOUT": 60.0})
    try:
        device = Device(again.test_client())
        device.client.set_cookie(
            "becher_device", client.client.get_cookie("becher_device").value  # type: ignore[union-attr]
        )
        assert memory_of(device, game["id"])["seen"] == 5
        seen: list[Any] = []
        real = photos.read_image

        def spy(data: bytes, kind: str, memory: object = None, count: int | None = None) -> dict[str, Any]:
            seen.append(memory)
            return real(data, kind, memory, count)

        monkeypatch.setattr(photos, "read_image", spy)
        answer = upload(device, game["id"], dice_photo(800, 600)).json
        assert answer["reading"] is not None
        assert seen and seen[0] is not None and len(seen[0]) == 5  # type: ignore[arg-type]
    finally:
        again.extensions["becher.shutdown"]()


def test_the_reader_is_told_the_count_of_a_first_throw_not_of_a_rethrow(
    client: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A photo of fewer dice than the throw's count is looked at harder (vision.reader, rule ``split``); in a rethrow
    the photo may show the kept dice or not, so no count goes with it."""
    counts: list[int | None] = []
    real = photos.read_image

    def spy(data: bytes, kind: str, memory: object = None, count: int | None = None) -> dict[str, Any]:
        counts.append(count)
        return real(data, kind, memory, count)

    monkeypatch.setattr(photos, "read_image", spy)
    game = client.create()
    throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, 4])
    upload(client, game["id"], dice_photo(800, 600))
    assert counts == [5, None]


def test_a_saved_dice_set_starts_another_game_and_goes_when_deleted(
    client: Device, new_device: Callable[[], Device], join: Callable[[str], Device]
) -> None:
    game = client.create()
    empty = client.post(f"/api/games/{game['id']}/dice-set", json={"name": "red casino dice"})
    assert empty.status_code == 409
    throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, 4])
    learned = memory_of(client, game["id"])
    assert client.post(f"/api/games/{game['id']}/dice-set", json={"name": ""}).status_code == 400
    assert client.post(f"/api/games/{game['id']}/dice-set", json={"name": "x" * 41}).status_code == 400
    saved = client.post(f"/api/games/{game['id']}/dice-set", json={"name": " red  casino dice "})
    assert saved.status_code == 201
    dice_set = saved.json["set"]
    assert dice_set["name"] == "red casino dice" and dice_set["seen"] == 5 and dice_set["kind"] == "pip"
    assert client.get("/api/dice-sets").json["sets"] == [dice_set] and dice_set["mine"] is True
    r = client.post("/api/games", json={"game": "bone", "players": ["A", "B"], "dice_set": dice_set["id"]})
    assert r.status_code == 201
    assert r.json["game"]["memory"] == {**learned, "set": "red casino dice", "set_id": dice_set["id"], "new": 0}
    assert client.post("/api/games", json={"game": "bone", "players": ["A", "B"], "dice_set": 999}).status_code == 404
    assert new_device().delete(f"/api/dice-sets/{dice_set['id']}").status_code == 404  # a stranger sees none
    phone = join(r.json["game"]["id"])  # a phone at a game started from it sees it, and may not forget it
    assert phone.get("/api/dice-sets").json["sets"] == [{**dice_set, "mine": False}]
    assert phone.delete(f"/api/dice-sets/{dice_set['id']}").status_code == 403
    assert client.delete(f"/api/dice-sets/{dice_set['id']}").status_code == 200
    assert client.get("/api/dice-sets").json["sets"] == []
    # the game started from it keeps what it knew
    assert memory_of(client, r.json["game"]["id"])["seen"] == 5


def test_a_rematch_knows_the_dice_and_a_deleted_game_takes_its_lessons_along(app: Flask, client: Device) -> None:
    game = client.create()
    throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, 4])
    rematch = client.post(f"/api/games/{game['id']}/rematch").json["game"]
    assert rematch["memory"]["seen"] == 5
    client.delete(f"/api/games/{game['id']}")
    conn = app.extensions["becher.store"].conn()
    assert conn.execute("SELECT COUNT(*) FROM lessons WHERE game_id = ?", (game["id"],)).fetchone()[0] == 0
    assert memory_of(client, rematch["id"])["seen"] == 5


def test_the_camera_reads_the_game_it_watches_with_that_game_memory(app: Flask, client: Device) -> None:
    import numpy as np

    from vision.reading import Reading

    game = client.create()
    hub = app.extensions["becher.camera"]
    got: list[Any] = []

    counts: list[int | None] = []

    def reader(bgr: Any, memory: Any = None, count: int | None = None) -> Reading:
        got.append(memory)
        counts.append(count)
        return Reading("pip", (), bgr.shape[1], bgr.shape[0], 1.0)

    hub._readers["pip"] = reader
    frame = np.zeros((48, 64, 3), np.uint8)
    assert client.post("/api/camera/watch", json={"game": game["id"]}).status_code == 200
    hub.read(frame)  # nothing learned yet: read as the bundled reader reads
    throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, 4])
    hub.counted = -math.inf  # the game's count is taken again (once a second)
    hub.read(frame)
    assert client.post("/api/camera/watch", json={"game": None}).status_code == 200
    hub._readers["auto"] = reader
    hub.read(frame)
    assert got[0] is None and got[2] is None
    assert got[1] is not None and len(got[1]) == 5
    # the game's count of dice in view, told as a photo's is: five at the first throw and, the camera seeing the
    # kept dice too, five in the rethrow; no count without a game (the camera's wait for five is only a guess)
    assert counts == [5, 5, None]
    config = hub.session.config
    assert config.expected_dice == 5 and not config.count_known  # without a game five is waited for, not fitted to


def test_dice_shown_outside_a_throw_teach_and_no_undo_takes_them_back(client: Device) -> None:
    game = client.create()
    answer = upload(client, game["id"], dice_photo(800, 600)).json
    pid = answer["photo"]["id"]
    url = f"/api/games/{game['id']}/dice-shown"
    assert client.post(url, json={"photo": pid, "dice": [1, 2, 3]}).status_code == 400  # which die is which?
    assert client.post(url, json={"photo": pid, "dice": [7], "photo_dice": [0]}).status_code == 400
    assert client.post(url, json={"photo": "pnothere", "dice": [1], "photo_dice": [0]}).status_code == 400
    assert client.post(url, json={"photo": pid, "dice": [1, 2], "photo_dice": [0, 9]}).status_code == 400
    before = client.get(f"/api/games/{game['id']}").json["game"]
    r = client.post(url, json={"photo": pid, "dice": [1, 2, 3], "photo_dice": [0, 1, 2], "not_dice": [4]})
    assert r.status_code == 201
    shown = r.json["game"]
    assert shown["memory"]["seen"] == 3 and shown["state"]["actions"] == 0
    assert shown["revision"] > before["revision"]
    # a throw and its undo leave what was shown
    throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, 4])
    assert memory_of(client, game["id"])["seen"] == 8
    client.post(f"/api/games/{game['id']}/undo", json={"seen": 1})
    assert memory_of(client, game["id"])["seen"] == 3
    client.post(f"/api/games/{game['id']}/finish")
    assert client.post(url, json={"photo": pid, "dice": [1], "photo_dice": [0]}).status_code == 409


def test_a_server_keeps_a_bounded_number_of_dice_sets(client: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    from web import owners

    monkeypatch.setattr(owners, "SETS_PER_DEVICE", 2)
    game = client.create()
    throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, 4])
    url = f"/api/games/{game['id']}/dice-set"
    assert client.post(url, json={"name": "one"}).status_code == 201
    assert client.post(url, json={"name": "two"}).status_code == 201
    assert client.post(url, json={"name": "two", "replace": True}).status_code == 200  # the same name replaces
    full = client.post(url, json={"name": "three"})
    assert full.status_code == 409 and full.json["code"] == "full" and "forget one" in full.json["error"]
    assert [s["name"] for s in client.get("/api/dice-sets").json["sets"]] == ["one", "two"]
