"""The camera blueprint (web/camera_api.py) on a test app, fed with generated frames and a ground-truth reader."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from calibration.mat import render_mat
from vision.camsim import TableVideo, TruthReader
from web.app import create_app

WRITE = {"X-Becher": "1"}


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    # the host's own browser (loopback), which may use the camera without a game: its access rule is tested in
    # tests/web/test_camera_access.py
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "becher.sqlite3"),
            "CAMERA_PROFILES": str(tmp_path / "data"),
            "LOCAL_IS_OWNER": True,
        }
    )
    yield app
    app.extensions["becher.shutdown"]()
    app.extensions["becher.store"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def jpeg(frame: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return buf.tobytes()


def post_frame(client: FlaskClient, frame: np.ndarray, t: float | None = None) -> Any:
    headers = {**WRITE, "Content-Type": "image/jpeg"}
    if t is not None:
        headers["X-Frame-Time"] = str(t)
    return client.post("/api/camera/frame", data=jpeg(frame), headers=headers)


def is_error(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.json
    assert r.json["ok"] is False and r.json["code"] == code and r.json["status"] == status
    assert r.json["error"].endswith(".")


def test_status_of_an_idle_camera(client: FlaskClient) -> None:
    r = client.get("/api/camera")
    assert r.status_code == 200
    cam = r.json["camera"]
    assert cam["source"] is None and cam["running"] is False and cam["frames"] == 0 and cam["proposal"] is None
    is_error(client.get("/api/camera/preview.jpg"), 404, "no_frame")


def test_browser_frames_make_proposals_published_to_the_watched_game(app: Flask, client: FlaskClient) -> None:
    game = client.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"]}, headers=WRITE).json["game"]
    reader = TruthReader()
    hub = app.extensions["becher.camera"]
    hub._readers.update({"auto": reader, "pip": reader, "poker": reader})
    r = client.post("/api/camera/watch", json={"game": game["id"], "auto_confirm": True}, headers=WRITE)
    assert r.status_code == 200 and r.json["camera"]["game"] == game["id"] and r.json["camera"]["auto_confirm"]
    events = app.extensions["becher.hub"].subscribe(game["id"])
    video = TableVideo(seed=21).still(0.2).throw([6, 6, 6, 1, 2]).still(0.6)
    answers = []
    for frame, truth in zip(video.frames, video.truth, strict=True):
        reader.current = truth
        answers.append(post_frame(client, frame, truth.t))
    assert all(a.status_code == 200 for a in answers)
    assert reader.told == 5  # Bone's first throw: the reader is told the five dice in view, as a photo's count
    assert hub.session.config.expected_dice == 5 and hub.session.config.count_known  # and what it sees fitted to it
    made = [a.json["camera"]["proposal"] for a in answers if a.json["camera"]["proposal"]]
    assert len(made) == 1
    assert made[0]["dice"] == list(video.events[-1].dice) and made[0]["game"] == game["id"] and made[0]["seq"] == 1
    assert made[0]["auto"] is True and made[0]["held"] == [] and made[0]["throw"] == 1
    photo_event = events.get(timeout=1)  # the picture is kept as the game's photo, like an upload
    assert photo_event.name == "photo" and '"device":"camera"' in photo_event.data
    event = events.get(timeout=1)
    assert event.name == "camera" and '"all_five":true' in event.data
    assert made[0]["photo"] and client.get(f"/api/photos/{made[0]['photo']}").mimetype == "image/jpeg"
    assert client.get("/api/camera").json["camera"]["throws"] == 1
    assert client.post("/api/camera/turn", headers=WRITE).json["camera"]["throws"] == 0
    r = client.get("/api/camera/preview.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg"


def test_bad_frames_are_refused(client: FlaskClient) -> None:
    is_error(client.post("/api/camera/frame", data=b"", headers=WRITE), 400, "malformed")
    r = client.post("/api/camera/frame", data=b"nope", headers={**WRITE, "Content-Type": "image/jpeg"})
    is_error(r, 415, "not_image")
    r = client.post(
        "/api/camera/frame", data=b"x", headers={**WRITE, "Content-Type": "image/jpeg", "X-Frame-Time": "nan"}
    )
    is_error(r, 400, "malformed")
    assert client.get("/api/camera").json["camera"]["frames"] == 0
    assert client.post("/api/camera/frame", data=b"x").status_code == 403  # writes need Becher's header


def test_watching_an_unknown_game_is_refused(client: FlaskClient) -> None:
    r = client.post("/api/camera/watch", json={"game": "nope"}, headers=WRITE)
    assert r.status_code == 404 and r.json["ok"] is False
    is_error(client.post("/api/camera/watch", json={"game": 3}, headers=WRITE), 400, "malformed")
    is_error(
        client.post("/api/camera/watch", json={"game": None, "auto_confirm": "yes"}, headers=WRITE), 400, "malformed"
    )
    assert client.get("/api/camera").json["camera"]["auto_confirm"] is False


def mat_frame() -> np.ndarray:
    flat = render_mat("letter", 1.6)
    h, w = flat.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[20, 30], [610, 15], [625, 455], [10, 440]])
    return cv2.warpPerspective(flat, cv2.getPerspectiveTransform(src, dst), (640, 480))


def test_calibrate_list_use_and_delete_profiles(app: Flask, client: FlaskClient) -> None:
    hub = app.extensions["becher.camera"]
    hub._readers["auto"] = TruthReader()
    is_error(client.post("/api/camera/profiles", json={"name": "table"}, headers=WRITE), 404, "no_frame")
    post_frame(client, np.full((480, 640, 3), 120, np.uint8))
    is_error(client.post("/api/camera/profiles", json={"name": "table"}, headers=WRITE), 422, "no_mat")
    assert client.post("/api/camera/check", headers=WRITE).json["mat"] is None
    post_frame(client, mat_frame())
    check = client.post("/api/camera/check", headers=WRITE).json["mat"]
    assert check["paper"] == "letter" and len(check["markers"]) == 6 and not check["covered"]
    r = client.post("/api/camera/profiles", json={"name": "table"}, headers=WRITE)
    assert r.status_code == 201 and r.json["profile"]["paper"] == "letter" and r.json["profile"]["camera"] == "browser"
    assert client.get("/api/camera").json["camera"]["calibrated"] is True
    is_error(client.post("/api/camera/profiles", json={"name": "../x"}, headers=WRITE), 400, "malformed")
    r = client.post("/api/camera/profiles", json={"name": "plain", "none": True}, headers=WRITE)
    assert r.status_code == 201 and r.json["profile"]["homography"] is None
    listed = client.get("/api/camera/profiles").json
    assert [p["name"] for p in listed["profiles"]] == ["plain", "table"] and listed["current"] == "plain"
    assert client.post("/api/camera/profiles/table/use", headers=WRITE).json["profile"]["name"] == "table"
    assert client.delete("/api/camera/profiles/table", headers=WRITE).json["deleted"] == "table"
    assert client.get("/api/camera").json["camera"]["calibrated"] is False
    is_error(client.delete("/api/camera/profiles/table", headers=WRITE), 404, "not_found")
    is_error(client.post("/api/camera/profiles/table/use", headers=WRITE), 404, "not_found")


def test_the_mat_is_served_as_pdf(client: FlaskClient) -> None:
    for paper in ("a4", "letter"):
        r = client.get(f"/api/camera/mat.pdf?paper={paper}")
        assert r.status_code == 200 and r.mimetype == "application/pdf" and r.data.startswith(b"%PDF")
    is_error(client.get("/api/camera/mat.pdf?paper=a3"), 400, "malformed")


def test_a_host_camera_source_runs_in_a_thread(tmp_path: Path) -> None:
    from vision.camsim import write_video

    video = TableVideo(seed=22).still(0.3)
    path = write_video(tmp_path / "cam.avi", video.frames, video.fps)
    config = {
        "TESTING": True,
        "DATABASE": str(tmp_path / "db.sqlite3"),
        "CAMERA": str(path),
        "CAMERA_PROFILES": str(tmp_path / "data"),
        "LOCAL_IS_OWNER": True,
    }
    app = create_app(config)
    hub = app.extensions["becher.camera"]
    hub._readers["auto"] = TruthReader()
    hub.start()  # `becher serve` starts it on registration; tests start it by hand
    try:
        assert hub.watcher is not None
        for _ in range(100):
            if hub.session.frames >= len(video.frames):
                break
            hub.watcher.ended.wait(0.05)
        status = app.test_client().get("/api/camera").json["camera"]
        assert status["source"] == str(path) and status["frames"] >= len(video.frames) and status["error"] is None
        r = app.test_client().post("/api/camera/frame", data=b"x", headers={**WRITE, "Content-Type": "image/jpeg"})
        is_error(r, 409, "camera_busy")
    finally:
        hub.stop()
        app.extensions["becher.shutdown"]()
        app.extensions["becher.store"].close()
    bad = create_app({**config, "CAMERA": str(tmp_path / "none.avi"), "DATABASE": str(tmp_path / "db2.sqlite3")})
    bad.extensions["becher.camera"].start()
    assert "Cannot open" in bad.test_client().get("/api/camera").json["camera"]["error"]
    bad.extensions["becher.shutdown"]()
    bad.extensions["becher.store"].close()


def test_the_camera_waits_for_the_dice_the_watched_game_has_in_play(app: Flask, client: FlaskClient) -> None:
    # the board throws three dice after a roll-off of one each: the camera follows the game, kept dice included
    board = client.post("/api/games", json={"game": "board", "players": ["Anna", "Ben"]}, headers=WRITE).json["game"]
    r = client.post("/api/camera/watch", json={"game": board["id"]}, headers=WRITE)
    assert r.json["camera"]["expected_dice"] == 1
    bone = client.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"]}, headers=WRITE).json["game"]
    r = client.post("/api/camera/watch", json={"game": bone["id"]}, headers=WRITE)
    assert r.json["camera"]["expected_dice"] == 5
    hub = app.extensions["becher.camera"]
    with hub.lock:
        hub.game_id = board["id"]
    hub.counted = -1e9  # the next frame takes the count again
    reader = TruthReader()
    hub._readers.update({"auto": reader, "pip": reader, "poker": reader})
    video = TableVideo(seed=22).still(0.2).throw([6]).still(0.6)  # the dice are read once they lie still
    for frame, truth in zip(video.frames, video.truth, strict=True):
        reader.current = truth
        post_frame(client, frame, truth.t)
    assert client.get("/api/camera").json["camera"]["expected_dice"] == 1
    assert client.post("/api/camera/watch", json={"game": None}, headers=WRITE).json["camera"]["expected_dice"] == 5
