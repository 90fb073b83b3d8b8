"""Who may use the table camera (web/camera_api.py): the rule of the game it watches, on every camera route."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask

from tests.web.conftest import Device

FRAME_HEADERS = {"Content-Type": "image/jpeg"}


@pytest.fixture
def app(tmp_path: Path, app: Flask) -> Flask:
    app.extensions["becher.camera"].folder = tmp_path / "profiles"
    return app


def frame() -> bytes:
    image = np.full((120, 160, 3), 90, np.uint8)
    return cv2.imencode(".jpg", image)[1].tobytes()


def every_route(game_id: str | None) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        ("GET", "/api/camera", {}),
        ("GET", "/api/camera/preview.jpg", {}),
        ("POST", "/api/camera/frame", {"data": frame(), "headers": FRAME_HEADERS}),
        ("POST", "/api/camera/turn", {"json": {}}),
        ("POST", "/api/camera/check", {"json": {}}),
        ("GET", "/api/camera/profiles", {}),
        ("POST", "/api/camera/profiles", {"json": {"name": "kitchen", "none": True}}),
        ("POST", "/api/camera/profiles/kitchen/use", {"json": {}}),
        ("DELETE", "/api/camera/profiles/kitchen", {}),
        ("POST", "/api/camera/watch", {"json": {"game": game_id}}),
        ("POST", "/api/camera/watch", {"json": {"game": None}}),
    ]


def call(device: Device, method: str, url: str, kw: dict[str, Any]) -> Any:
    if method == "GET":
        return device.get(url)
    if method == "DELETE":
        return device.delete(url)
    return device.post(url, **kw)


def watch(owner: Device, game_id: str | None) -> None:
    r = owner.post("/api/camera/watch", json={"game": game_id})
    assert r.status_code == 200, r.json


def test_a_device_that_joined_nothing_gets_nothing_from_the_camera(
    app: Flask, client: Device, new_device: Callable[[], Device]
) -> None:
    game_id = client.create()["id"]
    watch(client, game_id)
    assert client.post("/api/camera/frame", data=frame(), headers=FRAME_HEADERS).status_code == 200
    stranger = new_device()
    for method, url, kw in every_route(stranger.create()["id"]):
        r = call(stranger, method, url, kw)
        assert r.status_code == 403, (method, url, r.json)
        assert game_id not in r.get_data(as_text=True)
    cam = client.get("/api/camera").json["camera"]
    assert cam["game"] == game_id and cam["frames"] == 1  # the owner's watch and frames are untouched
    assert stranger.get("/api/camera/mat.pdf?paper=a4").status_code == 200  # the printable mat is the same for all


def test_without_any_game_a_device_cannot_even_see_the_camera(new_device: Callable[[], Device]) -> None:
    nobody = new_device()
    for method, url, kw in every_route(None):
        assert call(nobody, method, url, kw).status_code == 403, (method, url)


def test_a_player_of_the_watched_game_uses_the_camera_but_only_the_owner_sets_it_up(
    client: Device, join: Callable[[str], Device]
) -> None:
    game_id = client.create()["id"]
    watch(client, game_id)
    phone = join(game_id)
    assert phone.get("/api/camera").json["camera"]["game"] == game_id
    assert phone.post("/api/camera/frame", data=frame(), headers=FRAME_HEADERS).status_code == 200
    assert phone.get("/api/camera/preview.jpg").mimetype == "image/jpeg"
    assert phone.post("/api/camera/turn", json={}).status_code == 200
    assert phone.get("/api/camera/profiles").status_code == 200
    for method, url, kw in every_route(game_id)[6:]:
        assert call(phone, method, url, kw).status_code == 403, (method, url)
    assert client.get("/api/camera").json["camera"]["game"] == game_id
    assert client.post("/api/camera/profiles", json={"name": "kitchen", "none": True}).status_code == 201
    assert client.post("/api/camera/profiles/kitchen/use", json={}).status_code == 200
    assert client.delete("/api/camera/profiles/kitchen").status_code == 200


def test_another_games_owner_cannot_take_or_stop_the_camera(client: Device, new_device: Callable[[], Device]) -> None:
    game_id = client.create()["id"]
    watch(client, game_id)
    other = new_device()
    theirs = other.create()["id"]
    assert other.post("/api/camera/watch", json={"game": theirs}).status_code == 403
    assert other.post("/api/camera/watch", json={"game": None}).status_code == 403
    assert client.get("/api/camera").json["camera"]["game"] == game_id
    watch(client, None)  # the owner lets it go: now the other owner may take it
    watch(other, theirs)
    assert other.get("/api/camera").json["camera"]["game"] == theirs


def test_the_camera_of_a_deleted_game_is_free_again(client: Device, new_device: Callable[[], Device]) -> None:
    game_id = client.create()["id"]
    watch(client, game_id)
    assert client.delete(f"/api/games/{game_id}").status_code == 200
    other = new_device()
    theirs = other.create()["id"]
    watch(other, theirs)


def test_the_host_may_use_the_camera_without_a_game(app: Flask, client: Device) -> None:
    app.config["LOCAL_IS_OWNER"] = True
    assert client.get("/api/camera").status_code == 200
    app.config["LOCAL_IS_OWNER"] = False
    assert client.get("/api/camera").status_code == 403


def test_a_chunked_frame_over_8_mb_is_413_like_a_sized_one(client: Device) -> None:
    game_id = client.create()["id"]
    watch(client, game_id)
    big = b"\xff\xd8" + b"\0" * (8 * 1024 * 1024 + 10)

    sized = client.post("/api/camera/frame", data=big, headers=FRAME_HEADERS)
    chunked = client.client.post(
        "/api/camera/frame",
        input_stream=io.BytesIO(big),
        headers={**FRAME_HEADERS, "X-Becher": "1", "Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )
    assert sized.status_code == chunked.status_code == 413
    assert sized.json["code"] == chunked.json["code"] == "too_large"
    assert client.get("/api/camera").json["camera"]["frames"] == 0


@pytest.mark.parametrize("fmt", ["TIFF", "PPM", "GIF"])
def test_camera_frames_in_other_formats_are_refused_before_decoding(
    client: Device, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PIL import Image

    watch(client, client.create()["id"])
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 90, 90)).save(out, fmt)
    decoded: list[bool] = []
    real = cv2.imdecode
    monkeypatch.setattr(cv2, "imdecode", lambda *a: decoded.append(True) or real(*a))
    r = client.post("/api/camera/frame", data=out.getvalue(), headers=FRAME_HEADERS)
    assert r.status_code == 415 and r.json["code"] == "not_image"
    assert decoded == []
