"""Photos of throws: upload, limits, downscaled storage, the reading from vision/, the photo behind a score."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from PIL import Image, ImageDraw

from tests.web.conftest import BONE_ROUND, Device
from tests.web.test_live import Stream
from web import photos


def dice_photo(width: int = 2400, height: int = 1800, fmt: str = "PNG", exif_orientation: int | None = None) -> bytes:
    """A real image: five light dice with pips on a dark table."""
    img = Image.new("RGB", (width, height), (30, 70, 40))
    draw = ImageDraw.Draw(img)
    side = width // 10
    for i, pips in enumerate([1, 2, 3, 4, 5]):
        x0, y0 = width // 12 + i * (side + side // 2), height // 3
        draw.rounded_rectangle((x0, y0, x0 + side, y0 + side), radius=side // 8, fill=(240, 240, 235))
        spots = {1: [(2, 2)], 2: [(1, 1), (3, 3)], 3: [(1, 1), (2, 2), (3, 3)]}
        spots[4] = [(1, 1), (1, 3), (3, 1), (3, 3)]
        spots[5] = [*spots[4], (2, 2)]
        r = side // 12
        for gx, gy in spots[pips]:
            cx, cy = x0 + gx * side // 4, y0 + gy * side // 4
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(20, 20, 20))
    out = io.BytesIO()
    if exif_orientation is not None:
        exif = Image.Exif()
        exif[0x0112] = exif_orientation
        img.save(out, fmt, exif=exif)
    else:
        img.save(out, fmt)
    return out.getvalue()


def reader_problem() -> str | None:
    """Why the real dice reader cannot run here, or None when it can."""
    try:
        from vision.reader import get_reader
    except ImportError:
        return "vision.reader is not part of this build yet"
    try:
        get_reader()
    except FileNotFoundError as exc:
        return f"the dice reader's models are not there yet ({exc})"
    return None


def upload(device: Device, game_id: str, data: bytes, name: str = "throw.png", query: str = "") -> Any:
    return device.post(
        f"/api/games/{game_id}/photos{query}",
        data={"photo": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
    )


def test_upload_stores_the_photo_downscaled_and_answers_with_the_reading(client: Device) -> None:
    game = client.create()
    r = upload(client, game["id"], dice_photo(2400, 1800))
    assert r.status_code == 201, r.json
    photo = r.json["photo"]
    assert (photo["width"], photo["height"]) == (1600, 1200)
    assert photo["url"] == f"/api/photos/{photo['id']}"
    stored = client.get(photo["url"])
    assert stored.status_code == 200 and stored.mimetype == "image/jpeg"
    assert Image.open(io.BytesIO(stored.data)).size == (1600, 1200)
    problem = reader_problem()
    if problem is None:
        reading = r.json["reading"]
        assert reading is not None and r.json["reading_error"] is None
        assert (reading["width"], reading["height"]) == (1600, 1200)
        for die in reading["dice"]:
            x0, y0, x1, y1 = die["box"]
            assert 0 <= x0 < x1 <= 1600 and 0 <= y0 < y1 <= 1200
    else:
        assert r.json["reading"] is None and r.json["reading_error"].endswith("by hand.")
    again = client.get(f"/api/photos/{photo['id']}/reading").json
    assert again["reading"] == r.json["reading"] and again["photo"] == photo


def test_reader_reads_the_uploaded_photo(client: Device) -> None:
    problem = reader_problem()
    if problem is not None:
        pytest.skip(f"needs the real dice reader: {problem}")
    game = client.create()
    r = upload(client, game["id"], dice_photo(1200, 900), query="?kind=pip")
    assert r.status_code == 201
    assert r.json["reading"]["kind"] == "pip"
    assert isinstance(r.json["reading"]["dice"], list)


def test_exif_orientation_is_applied_before_storing(client: Device) -> None:
    game = client.create()
    r = upload(client, game["id"], dice_photo(1200, 800, "JPEG", exif_orientation=6), "p.jpg")
    assert r.status_code == 201
    assert (r.json["photo"]["width"], r.json["photo"]["height"]) == (800, 1200)


def test_raw_image_body_is_accepted(client: Device) -> None:
    game = client.create()
    r = client.post(f"/api/games/{game['id']}/photos", data=dice_photo(640, 480), headers={"Content-Type": "image/png"})
    assert r.status_code == 201 and r.json["photo"]["width"] == 640


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        (b"these are not dice", None),
        (b"", None),
        (b"GIF89a broken", None),
        (b'{"dice": [1, 2, 3]}', "application/json"),
    ],
)
def test_what_is_not_an_image_is_refused_with_415(client: Device, data: bytes, content_type: str | None) -> None:
    game = client.create()
    if content_type is None:
        r = upload(client, game["id"], data, "notes.txt")
    else:
        r = client.post(f"/api/games/{game['id']}/photos", data=data, headers={"Content-Type": content_type})
    assert r.status_code == 415 and r.json["code"] == "not_image"
    assert "photo" in r.json["error"] or "image" in r.json["error"]
    assert client.get(f"/api/games/{game['id']}").json["game"]["photos"] == {}


def test_photos_over_20_mb_are_refused_with_413(client: Device) -> None:
    game = client.create()
    big = b"\xff\xd8" + b"\0" * (20 * 1024 * 1024 + 100 * 1024)
    r = client.post(f"/api/games/{game['id']}/photos", data=big, headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 413 and r.json["code"] == "too_large"


def test_images_with_too_many_pixels_are_refused_with_413(client: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    game = client.create()
    r = upload(client, game["id"], dice_photo(200, 150))
    assert r.status_code == 413 and "pixels" in r.json["error"]


def test_bad_kind_and_missing_field_are_400(client: Device) -> None:
    game = client.create()
    assert upload(client, game["id"], dice_photo(64, 48), query="?kind=dominoes").status_code == 400
    r = client.post(
        f"/api/games/{game['id']}/photos",
        data={"image": (io.BytesIO(b"x"), "x.png")},
        content_type="multipart/form-data",
    )
    assert r.status_code == 400 and "'photo'" in r.json["error"]


def test_confirmed_throw_references_its_photo(
    client: Device, join: Callable[[str], Device], new_device: Callable[[], Device]
) -> None:
    game = client.create()
    phone = join(game["id"])
    pid = upload(phone, game["id"], dice_photo(800, 600)).json["photo"]["id"]
    r = phone.play(game["id"], BONE_ROUND[0], seen=0, photo=pid)
    assert r.status_code == 201
    assert r.json["game"]["photos"] == {"1": pid}
    assert client.get(f"/api/games/{game['id']}/log").json["log"][0]["photo"] == pid
    assert client.get(f"/api/photos/{pid}").status_code == 200
    assert new_device().get(f"/api/photos/{pid}").status_code == 403
    assert client.get("/api/photos/pnothere").status_code == 404
    # undoing the throw drops the reference; the photo itself stays until the game is deleted
    client.post(f"/api/games/{game['id']}/undo", json={"seen": 1})
    assert client.get(f"/api/games/{game['id']}").json["game"]["photos"] == {}
    client.delete(f"/api/games/{game['id']}")
    assert client.get(f"/api/photos/{pid}").status_code == 404


def test_a_game_keeps_only_its_latest_unconfirmed_photos(app: Flask, client: Device) -> None:
    app.extensions["becher.store"].loose_photos = 3
    game, other = client.create(), client.create()
    kept_other = upload(client, other["id"], dice_photo(160, 120)).json["photo"]["id"]
    confirmed = upload(client, game["id"], dice_photo(160, 120)).json["photo"]["id"]
    assert client.play(game["id"], BONE_ROUND[0], seen=0, photo=confirmed).status_code == 201
    loose = [upload(client, game["id"], dice_photo(160, 120)).json["photo"]["id"] for _ in range(6)]
    status = {pid: client.get(f"/api/photos/{pid}").status_code for pid in [confirmed, kept_other, *loose]}
    # the photo behind the confirmed throw, the other game's photo and the newest unconfirmed ones (three read ones
    # plus the one just uploaded, not read yet when the pruning ran) stay; the oldest retakes go
    assert status[confirmed] == 200 and status[kept_other] == 200
    assert [status[pid] for pid in loose] == [404, 404, 200, 200, 200, 200]
    assert client.get(f"/api/games/{game['id']}").json["game"]["photos"] == {"1": confirmed}


def test_a_photo_of_another_game_cannot_be_referenced(client: Device) -> None:
    first, second = client.create(), client.create()
    pid = upload(client, first["id"], dice_photo(320, 240)).json["photo"]["id"]
    r = client.play(second["id"], BONE_ROUND[0], seen=0, photo=pid)
    assert r.status_code == 400 and "photo" in r.json["error"]


def test_only_joined_devices_upload_and_not_to_finished_games(client: Device, new_device: Callable[[], Device]) -> None:
    game = client.create()
    assert upload(new_device(), game["id"], dice_photo(64, 48)).status_code == 403
    client.post(f"/api/games/{game['id']}/finish")
    r = upload(client, game["id"], dice_photo(64, 48))
    assert r.status_code == 409 and r.json["code"] == "finished"


def test_a_slow_read_blocks_no_other_request_and_arrives_later(
    app: Flask, client: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader is held on a gate: the upload answers after READ_TIMEOUT, others are served meanwhile."""
    gate = threading.Event()
    started = threading.Event()

    def slow_read(data: bytes, kind: str, memory: object = None, count: object = None) -> dict[str, object]:
        started.set()
        gate.wait(30)
        return {"kind": "pip", "dice": [], "width": 800, "height": 600, "ms": 1.0, "warnings": []}

    monkeypatch.setattr(photos, "read_image", slow_read)
    app.config["READ_TIMEOUT"] = 30.0
    game = client.create()
    watcher = Stream(client, f"/api/games/{game['id']}/events")
    watcher.next()
    answers: list[Any] = []
    uploader = threading.Thread(target=lambda: answers.append(upload(client, game["id"], dice_photo(800, 600))))
    uploader.start()
    assert started.wait(10)
    # while the read hangs, the game is read and played as usual
    assert client.get(f"/api/games/{game['id']}").status_code == 200
    assert client.play(game["id"], BONE_ROUND[0], seen=0).status_code == 201
    assert not answers
    gate.set()
    uploader.join(10)
    r = answers[0]
    assert r.status_code == 201 and r.json["reading"]["width"] == 800
    events = [watcher.next(), watcher.next()]
    photo_event = next(e for e in events if e["event"] == "photo")
    assert photo_event["data"]["reading"]["dice"] == [] and photo_event["data"]["device"] == client.id
    watcher.close()


def test_upload_answers_without_reading_when_the_read_takes_too_long(
    app: Flask, client: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()

    def slow_read(data: bytes, kind: str, memory: object = None, count: object = None) -> dict[str, object]:
        gate.wait(30)
        return {"kind": "pip", "dice": [], "width": 400, "height": 300, "ms": 1.0, "warnings": []}

    monkeypatch.setattr(photos, "read_image", slow_read)
    app.config["READ_TIMEOUT"] = 0.2
    game = client.create()
    r = upload(client, game["id"], dice_photo(400, 300))
    assert r.status_code == 201 and r.json["reading"] is None and "by hand" in r.json["reading_error"]
    gate.set()
    pid = r.json["photo"]["id"]
    for _ in range(200):
        late = client.get(f"/api/photos/{pid}/reading").json
        if late["reading"] is not None:
            break
        threading.Event().wait(0.05)
    assert late["reading"]["width"] == 400 and late["reading_error"] is None


def test_reader_refusal_is_415_and_keeps_no_photo(client: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(data: bytes, kind: str, memory: object = None, count: object = None) -> dict[str, object]:
        raise photos.NotAnImage("The image is too small to show dice; take the photo closer.")

    monkeypatch.setattr(photos, "read_image", refuse)
    game = client.create()
    r = upload(client, game["id"], dice_photo(64, 48))
    assert r.status_code == 415 and "closer" in r.json["error"]


def test_boxes_are_scaled_to_the_stored_photo() -> None:
    reading = {
        "kind": "pip",
        "dice": [{"face": "5", "value": 5, "confidence": 0.9, "box": [400, 300, 600, 500], "uncertain": False}],
        "width": 4000,
        "height": 3000,
        "ms": 3.0,
        "warnings": [],
    }
    scaled = photos.scale_reading(reading, 1600, 1200)
    assert scaled["dice"][0]["box"] == [160, 120, 240, 200]
    assert (scaled["width"], scaled["height"]) == (1600, 1200)
    assert reading["width"] == 4000  # the original is left alone
    assert "played_side" not in scaled
    # the size of the dice in play (the game's memory) is in the photo's pixels like the boxes
    assert photos.scale_reading({**reading, "played_side": 200.0}, 1600, 1200)["played_side"] == 80.0


def test_a_camera_frame_recorded_on_the_host_reaches_watchers_like_an_upload(app: Flask, client: Device) -> None:
    from web.api import record_photo

    game = client.create()
    watcher = Stream(client, f"/api/games/{game['id']}/events")
    watcher.next()
    reading = {
        "kind": "pip",
        "dice": [{"face": "2", "value": 2, "confidence": 0.97, "box": [100, 100, 200, 200], "uncertain": False}],
        "width": 1920,
        "height": 1080,
        "ms": 40.0,
        "warnings": [],
    }
    payload = record_photo(app, game["id"], dice_photo(1920, 1080, "JPEG"), reading)
    event = watcher.next()
    assert event["event"] == "photo" and event["data"] == payload
    assert payload["device"] == "camera" and payload["photo"]["width"] == 1600
    assert payload["reading"]["dice"][0]["box"] == [83, 83, 167, 167]
    pid = payload["photo"]["id"]
    assert client.play(game["id"], BONE_ROUND[0], seen=0, photo=pid).json["game"]["photos"] == {"1": pid}
    watcher.close()


# ---------------------------------------------------------------------------------------------- big photos


def flat_png(width: int, height: int) -> bytes:
    """A large image that compresses to little (the 186 KB 8000x8000 PNG of the issue is one)."""
    out = io.BytesIO()
    Image.new("RGB", (width, height), (30, 70, 40)).save(out, "PNG")
    return out.getvalue()


def test_large_photos_are_decoded_one_after_the_other(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four large PNGs at once: the pixel budget lets one decode at a time; small ones go two at a time."""
    slots = photos.DecodeSlots(slots=2, pixels=12_000_000, wait_s=60)
    big, small = flat_png(3000, 3000), flat_png(1200, 900)
    results: list[photos.Prepared] = []

    def run(data: bytes) -> None:
        results.append(photos.prepare(data, 800, slots))

    for data, most in ((big, 1), (small, 2)):
        slots.peak_active = 0
        threads = [threading.Thread(target=run, args=(data,)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert slots.peak_active == most
    assert len(results) == 8 and all(r.width == 800 for r in results)


def test_a_photo_that_waits_too_long_for_its_turn_is_503_busy_and_stores_nothing(app: Flask, client: Device) -> None:
    slots = photos.DecodeSlots(slots=1, wait_s=0.2)
    app.extensions["becher.decode"] = slots
    game = client.create()
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with slots.hold(1):
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert holding.wait(5)
        r = upload(client, game["id"], dice_photo(400, 300))
        assert r.status_code == 503 and r.json["code"] == "busy"
    finally:
        release.set()
        thread.join(5)
    assert app.extensions["becher.store"].conn().execute("SELECT COUNT(*) FROM photos").fetchone()[0] == 0
    assert upload(client, game["id"], dice_photo(400, 300)).status_code == 201


def test_a_huge_jpeg_is_decoded_reduced_and_a_huge_png_is_read_from_its_downscaled_picture(
    client: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = io.BytesIO()
    Image.new("RGB", (8000, 6000), (30, 70, 40)).save(out, "JPEG", quality=70)
    assert photos.prepare(out.getvalue(), 1600).decoded == (2000, 1500)  # libjpeg's 1/4 scale, never 48 MP
    seen: list[Any] = []

    def spy(data: Any, kind: str, memory: object = None, count: object = None) -> dict[str, object]:
        seen.append(data)
        size = data.size if isinstance(data, Image.Image) else Image.open(io.BytesIO(data)).size
        return {"kind": "pip", "dice": [], "width": size[0], "height": size[1], "ms": 1.0, "warnings": []}

    monkeypatch.setattr(photos, "read_image", spy)
    game = client.create()
    r = upload(client, game["id"], flat_png(8000, 8000))
    assert r.status_code == 201 and r.json["photo"]["width"] == 1600
    assert isinstance(seen[0], Image.Image) and seen[0].size == (1600, 1600)  # no second 64 MP decode
    assert upload(client, game["id"], dice_photo(1200, 900)).status_code == 201
    assert isinstance(seen[1], bytes)  # an ordinary photo: the reader decodes the original, as it was measured
