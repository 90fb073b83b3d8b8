"""The table camera in a real browser: frames generated with vision.camsim go to /api/camera/frame (as a phone
used as the table camera posts them), the table watches the open game, the proposal shows on the table and on the
current player's phone, a tap corrects a die, one tap confirms it into the game with its photo, and the table tells
the camera when the turn passes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.conftest import _skip_reason, screenshot
from tests.web.browser.flows import join, new_game, revision, wait_revision

pytestmark = pytest.mark.browser
WRITE = {"X-Becher": "1"}


@pytest.fixture(scope="module")
def cam_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """The real app (threaded, temp database and profile folder) with the camsim ground-truth reader installed."""
    if _skip_reason():
        pytest.skip(_skip_reason() or "")
    from werkzeug.serving import make_server

    from vision.camsim import TruthReader
    from web.app import create_app

    folder: Path = tmp_path_factory.mktemp("camdb")
    app = create_app(
        {
            "DATABASE": str(folder / "becher.sqlite3"),
            "CAMERA_PROFILES": str(folder / "data"),
            "TESTING": True,
            "LIVE_HEARTBEAT": 1.0,
        }
    )
    reader = TruthReader()
    app.extensions["becher.camera"]._readers.update({"auto": reader, "pip": reader, "poker": reader})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}", reader
    finally:
        srv.shutdown()
        app.extensions["becher.shutdown"]()


def feed(page: Any, base: str, reader: Any, video: Any, start: int = 0, stop: int | None = None) -> None:
    """Post the video's frames ``start:stop``, each with its capture time, the reader told what it shows."""
    import cv2

    for frame, truth in list(zip(video.frames, video.truth, strict=True))[start:stop]:
        reader.current = truth
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
        assert ok
        headers = {**WRITE, "Content-Type": "image/jpeg", "X-Frame-Time": f"{truth.t:.3f}"}
        r = page.request.post(f"{base}/api/camera/frame", data=buf.tobytes(), headers=headers)
        assert r.ok, r.text()


def camera(page: Any, base: str) -> dict[str, Any]:
    status: dict[str, Any] = page.request.get(f"{base}/api/camera").json()["camera"]
    return status


def test_a_camera_proposal_is_corrected_and_confirmed_into_the_game(
    cam_server: tuple[str, Any], tablet: Any, phone: Any
) -> None:
    from vision.camsim import TableVideo

    base, reader = cam_server
    game_id = new_game(tablet, base, "bone", ["Anna", "Ben"])
    join(phone, tablet, base)
    video = TableVideo(seed=21).still(0.3)
    before_throw = len(video.frames)
    video.throw([6, 6, 6, 1, 2]).still(0.6)
    # the camera starts: the table notices frames, shows the preview and watches its game
    feed(tablet, base, reader, video, 0, before_throw)
    expect(tablet.locator("#cam-panel")).to_have_class("card cam-panel active")
    tablet.wait_for_function(
        "id => fetch('/api/camera').then(r => r.json()).then(j => j.camera.game === id)", arg=game_id
    )
    expect(tablet.locator("#cam-preview")).to_be_visible()
    feed(tablet, base, reader, video, before_throw)  # the throw, then the dice at rest
    for page in (tablet, phone):
        expect(page.locator("#cam-proposal")).to_be_visible()
        expect(page.locator("#cam-dice .cam-die")).to_have_count(5)
    values = phone.eval_on_selector_all("#cam-dice .cam-die", "els => els.map(e => Number(e.dataset.value))")
    proposal = camera(phone, base)["proposal"]
    assert values == proposal["dice"] and sorted(values) == [1, 2, 6, 6, 6]  # left to right as they lie
    screenshot(tablet, "table-camera-proposal")
    # the phone corrects the 1 (a tap shows the next face: 2) and confirms
    pos = values.index(1)
    phone.locator(f'#cam-dice .cam-die[data-pos="{pos}"]').click()
    expect(phone.locator(f'#cam-dice .cam-die[data-pos="{pos}"]')).to_have_attribute("data-value", "2")
    values[pos] = 2
    screenshot(phone, "phone-camera-proposal")
    before = revision(phone)
    phone.click("#cam-confirm")
    wait_revision(phone, before + 1)
    game = phone.request.get(f"{base}/api/games/{game_id}").json()["game"]
    assert game["state"]["view"]["turn"]["dice"] == values
    assert game["photos"] == {"1": proposal["photo"]}
    expect(tablet.locator("#cam-proposal")).to_be_hidden()  # the table saw the throw entered
    assert camera(tablet, base)["throws"] == 1
    # Anna stands: the turn passes to Ben, and the table tells the camera the next throw is a first throw
    phone.locator("button.choice").first.click()
    wait_revision(tablet, before + 2)
    tablet.wait_for_function("() => fetch('/api/camera').then(r => r.json()).then(j => j.camera.throws === 0)")
    # with auto-confirm on, Ben's throw is entered by the table without a tap (every die certain)
    tablet.check("#cam-auto")
    tablet.wait_for_function("() => fetch('/api/camera').then(r => r.json()).then(j => j.camera.auto_confirm)")
    start = len(video.frames)
    video.throw([5, 5, 4, 3, 1]).still(0.6)
    feed(tablet, base, reader, video, start)
    wait_revision(phone, before + 3)
    game = phone.request.get(f"{base}/api/games/{game_id}").json()["game"]
    assert game["state"]["to_move"] == 1 and sorted(game["state"]["view"]["turn"]["dice"]) == [1, 3, 4, 5, 5]
    assert game["photos"]["3"] == camera(phone, base)["proposal"]["photo"]
    # another table takes the camera for its game: this one does not take it back by itself, but offers to
    other = tablet.request.post(f"{base}/api/games", data={"game": "bone", "players": ["C", "D"]}, headers=WRITE)
    tablet.request.post(f"{base}/api/camera/watch", data={"game": other.json()["game"]["id"]}, headers=WRITE)
    expect(tablet.locator("#cam-take")).to_be_visible()
    assert camera(tablet, base)["game"] != game_id
    tablet.click("#cam-take")
    tablet.wait_for_function(
        "id => fetch('/api/camera').then(r => r.json()).then(j => j.camera.game === id)", arg=game_id
    )
    # the calibration page shows the same camera and says there is no mat in view
    tablet.goto(f"{base}/camera?game={game_id}")
    expect(tablet.locator("#cam-preview")).to_be_visible()
    tablet.click("#cam-check")
    expect(tablet.locator("#cam-check-result")).to_contain_text("No mat found")
    screenshot(tablet, "camera-page")


def test_a_proposal_with_more_dice_than_the_throw_offers_the_surest(cam_server: tuple[str, Any], tablet: Any) -> None:
    # Six dice in view for a throw of five (a die from another game at the edge, flagged): the proposal offers the
    # five surest in their order on the table, says so, and can be confirmed; before, it could only be dismissed.
    base, _reader = cam_server
    game_id = new_game(tablet, base, "bone", ["Anna", "Ben"])
    proposal = {
        "game": game_id, "dice": [3, 6, 6, 2, 5, 4], "faces": ["3", "6", "6", "2", "5", "4"], "held": [],
        "all_five": True, "throw": 1, "auto": False, "uncertain": [2], "photo": None, "issues": [],
        "confidence": [0.97, 0.99, 0.31, 0.95, 0.98, 0.96],
    }  # fmt: skip
    tablet.evaluate("p => document.dispatchEvent(new CustomEvent('becher:camera', { detail: p }))", proposal)
    expect(tablet.locator("#cam-proposal")).to_be_visible()
    values = tablet.eval_on_selector_all("#cam-dice .cam-die", "els => els.map(e => Number(e.dataset.value))")
    assert values == [3, 6, 2, 5, 4]
    expect(tablet.locator("#cam-proposal-note")).to_contain_text("6 dice found; the 5 surest are entered.")
    expect(tablet.locator("#cam-dice .cam-die.uncertain")).to_have_count(0)
    before = revision(tablet)
    tablet.click("#cam-confirm")
    wait_revision(tablet, before + 1)
    game = tablet.request.get(f"{base}/api/games/{game_id}").json()["game"]
    assert game["state"]["view"]["turn"]["dice"] == [3, 6, 2, 5, 4]
