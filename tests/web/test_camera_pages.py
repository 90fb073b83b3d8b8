"""The camera on the pages, through Flask's test client: the calibration page, the table's camera panel and the
proposal box, what the scripts need from the page (the throw a proposal is sent as), and the routes they call."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from web.app import create_app

WRITE = {"X-Becher": "1"}


@pytest.fixture(scope="module")
def cam_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    folder = tmp_path_factory.mktemp("campages")
    app = create_app(
        {"TESTING": True, "DATABASE": str(folder / "becher.sqlite3"), "CAMERA_PROFILES": str(folder / "data")}
    )
    yield app
    app.extensions["becher.shutdown"]()
    app.extensions["becher.store"].close()


@pytest.fixture(scope="module")
def owner(cam_app: Flask) -> FlaskClient:
    return cam_app.test_client()


def new_game(client: FlaskClient, game: str = "bone", players: list[str] | None = None) -> str:
    r = client.post("/api/games", json={"game": game, "players": players or ["Anna", "Ben"]}, headers=WRITE)
    assert r.status_code == 201, r.json
    return str(r.json["game"]["id"])


def words(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="words" type="application/json">(.*?)</script>', html, re.S)
    assert found
    out: dict[str, Any] = json.loads(found.group(1))
    return out


def test_camera_page_is_reachable_from_the_start_page_and_the_table(owner: FlaskClient) -> None:
    game_id = new_game(owner)
    assert 'href="/camera"' in owner.get("/").get_data(as_text=True)
    table = owner.get(f"/table/{game_id}").get_data(as_text=True)
    assert f'href="/camera?game={game_id}"' in table
    html = owner.get(f"/camera?game={game_id}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    # the printable mats, both papers, and they are real PDFs
    for paper in ("a4", "letter"):
        assert f'href="/api/camera/mat.pdf?paper={paper}"' in html
        pdf = owner.get(f"/api/camera/mat.pdf?paper={paper}")
        assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    for control in ('id="cam-preview"', 'id="cam-check"', 'id="cam-save"', 'id="cam-profiles"', 'id="device-camera"'):
        assert control in html
    assert f'href="/table/{game_id}"' in html  # back to the game it came from
    assert "js/camera.js" in html
    assert 'href="/table/' not in owner.get("/camera?game=../x").get_data(as_text=True)


@pytest.mark.parametrize("lang", ["de", "fr", "pl"])
def test_quality_issues_are_said_in_plain_words_of_the_page(owner: FlaskClient, lang: str) -> None:
    """The status gives stable codes (docs/camera.md); the page has a sentence for each, in its own language."""
    said = words(owner.get("/camera", headers={"Accept-Language": lang}).get_data(as_text=True))["camera"]
    codes = ("dark", "bright", "blurred", "cut", "mat_covered", "mat_moved", "blocked", "count", "extra", "outside")
    for code in codes:
        assert said["issues"][code], code
    english = words(owner.get("/camera", headers={"Accept-Language": "en"}).get_data(as_text=True))["camera"]
    assert said["issues"]["dark"] != english["issues"]["dark"]
    assert said["markers"].count("%(") == 4


def test_table_and_phone_carry_the_throw_a_proposal_is_sent_as(owner: FlaskClient) -> None:
    game_id = new_game(owner)
    table = owner.get(f"/table/{game_id}").get_data(as_text=True)
    assert 'id="cam-proposal"' in table and 'id="cam-panel"' in table and 'id="cam-confirm"' in table
    mark = re.search(r'class="camera-throw" data-action="([^"]*)" data-needs="([^"]*)" data-count="(\d)"', table)
    assert mark, "the table part names the throw"
    action = json.loads(mark.group(1).replace("&#34;", '"').replace("&quot;", '"'))
    assert action["type"] == "throw" and action["player"] == 0 and "dice" in mark.group(2)
    # that action, with the dice of a proposal, is what the game takes
    body = {"seen": 0, "action": {**action, "dice": [6, 6, 6, 1, 2]}}
    r = owner.post(f"/api/games/{game_id}/actions", json=body, headers=WRITE)
    assert r.status_code == 201
    phone = owner.get(f"/phone/{game_id}").get_data(as_text=True)
    assert 'id="cam-proposal"' in phone and 'data-me=""' in phone
    mark = re.search(r'class="camera-throw" data-action="([^"]*)" data-needs="([^"]*)"', phone)
    assert mark and "held" in mark.group(2)  # a second throw names the dice kept
    # Anna stands: the throw the page names is now Ben's
    owner.post(
        f"/api/games/{game_id}/actions", json={"seen": 1, "action": {"type": "stand", "player": 0}}, headers=WRITE
    )
    part = owner.get(f"/table/{game_id}/part").get_data(as_text=True)
    assert re.search(r'class="camera-throw"[^>]*data-player="1"', part)


def test_a_viewer_gets_no_camera_controls(cam_app: Flask, owner: FlaskClient) -> None:
    game_id = new_game(owner)
    owner.post(f"/api/games/{game_id}/access", json={"public": True}, headers=WRITE)
    stranger = cam_app.test_client()
    html = stranger.get(f"/table/{game_id}").get_data(as_text=True)
    assert 'id="cam-panel"' not in html and "camera.js" not in html and "camera-throw" in html


def test_the_routes_the_camera_page_calls(owner: FlaskClient, tmp_path: Path) -> None:
    """What camera.js posts, in order: status, a frame from this device, check, save without a mat, list, use,
    delete; and watch and turn from the table."""
    import cv2
    import numpy as np

    assert owner.get("/api/camera").json["camera"]["frames"] == 0
    frame = np.full((480, 640, 3), 90, np.uint8)
    ok, buf = cv2.imencode(".jpg", frame)
    assert ok
    r = owner.post(
        "/api/camera/frame", data=buf.tobytes(), headers={**WRITE, "Content-Type": "image/jpeg", "X-Frame-Time": "1.5"}
    )
    assert r.status_code == 200 and r.json["camera"]["frames"] == 1
    assert owner.get("/api/camera/preview.jpg").mimetype == "image/jpeg"
    check = owner.post("/api/camera/check", headers=WRITE)
    assert check.status_code == 200 and check.json["mat"] is None
    r = owner.post("/api/camera/profiles", json={"name": "kitchen"}, headers=WRITE)
    assert r.status_code == 422 and r.json["code"] == "no_mat"
    r = owner.post("/api/camera/profiles", json={"name": "kitchen", "none": True}, headers=WRITE)
    assert r.status_code == 201
    listed = owner.get("/api/camera/profiles").json
    assert [p["name"] for p in listed["profiles"]] == ["kitchen"] and listed["current"] == "kitchen"
    assert owner.post("/api/camera/profiles/kitchen/use", json={}, headers=WRITE).status_code == 200
    assert owner.delete("/api/camera/profiles/kitchen", headers=WRITE).status_code == 200
    assert owner.get("/api/camera/profiles").json["profiles"] == []
    game_id = new_game(owner)
    r = owner.post("/api/camera/watch", json={"game": game_id, "auto_confirm": False}, headers=WRITE)
    assert r.json["camera"]["game"] == game_id
    assert owner.post("/api/camera/turn", json={}, headers=WRITE).json["camera"]["throws"] == 0
