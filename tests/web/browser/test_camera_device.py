"""This device as the table camera, through the browser's own camera: Chromium's fake capture device plays a generated
table video (a throw of five dice), the camera page takes frames with getUserMedia and posts them, and the real dice
reader on the server proposes the throw that was made."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from tests.web.browser.conftest import TABLET, _skip_reason, launch, screenshot, serving

pytestmark = pytest.mark.browser
WRITE = {"X-Becher": "1"}
THROWN = [6, 6, 6, 1, 2]


def write_y4m(path: Path, frames: list[Any], fps: int) -> Path:
    """Frames as an uncompressed YUV4MPEG2 file, the format Chromium's fake capture device plays (in a loop)."""
    import cv2

    h, w = frames[0].shape[:2]
    with open(path, "wb") as fh:
        fh.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for frame in frames:
            fh.write(b"FRAME\n" + cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())
    return path


@pytest.fixture(scope="module")
def camera_browser(pw_session: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A Chromium of its own whose camera is the generated video; permission is granted without a prompt."""
    from vision.camsim import TableVideo

    video = TableVideo(seed=21).still(1.0).throw(THROWN).still(4.0)
    clip = write_y4m(tmp_path_factory.mktemp("clip") / "table.y4m", video.frames, round(video.fps))
    b = launch(
        pw_session,
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-video-capture={clip}",
    )
    yield b
    b.close()


@pytest.fixture(scope="module")
def real_reader_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real app with the bundled dice reader (nothing stands in for it)."""
    if _skip_reason():
        pytest.skip(_skip_reason() or "")
    folder: Path = tmp_path_factory.mktemp("camdevice")
    config = {"DATABASE": str(folder / "becher.sqlite3"), "CAMERA_PROFILES": str(folder / "data"), "TESTING": True}
    with serving(config) as (base, _):
        yield base


def test_the_browsers_camera_feeds_the_reader_and_the_throw_is_proposed(
    camera_browser: Any, real_reader_server: str
) -> None:
    base = real_reader_server
    ctx = camera_browser.new_context(viewport=TABLET, locale="en-GB")
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    try:
        made = page.request.post(f"{base}/api/games", data={"game": "bone", "players": ["Anna", "Ben"]}, headers=WRITE)
        game_id = made.json()["game"]["id"]
        assert page.request.post(f"{base}/api/camera/watch", data={"game": game_id}, headers=WRITE).ok
        page.goto(f"{base}/camera?game={game_id}")
        # 127.0.0.1 is a secure context, so the page offers this device's camera
        page.click("#device-camera")
        page.wait_for_function("() => document.querySelector('#device-video').videoWidth > 0")
        # the clip loops: its next throw clears the proposal, so it is taken while it stands
        deadline = time.monotonic() + 40
        status: dict[str, Any] = {}
        while time.monotonic() < deadline and not status.get("proposal"):
            page.wait_for_timeout(200)
            status = page.request.get(f"{base}/api/camera").json()["camera"]
        assert status.get("proposal"), status
        assert sorted(status["proposal"]["dice"]) == sorted(THROWN)
        assert status["game"] == game_id and status["frames"] > 0
        screenshot(page, "camera-device-feeding")
    finally:
        ctx.close()
