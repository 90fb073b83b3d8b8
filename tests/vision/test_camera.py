"""Camera sources and sessions, driven by generated video files and pushed JPEG frames (never a real camera)."""

import functools
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.mat import render_mat
from calibration.profile import Profile
from calibration.rectify import detect_markers, fit_mat
from vision.camera import CameraSession, CameraWatcher, CaptureSource, LatestFrame, decode_frame, parse_source
from vision.camsim import FrameTruth, TableVideo, TruthReader, write_video
from vision.reading import ImageError
from vision.settle import Proposal


def turn_video(seed: int = 0) -> TableVideo:
    video = TableVideo(seed=seed).still(0.2).throw([1, 2, 3, 4, 5]).still(0.5)
    video.pick_up([3, 4]).still(0.3)
    values = [d.value for d in video.dice]
    video.throw([*values[:3], 6, 6], held=(0, 1, 2)).still(0.5)
    return video


def test_sources_are_parsed() -> None:
    assert parse_source("0") == 0 and parse_source(" 2 ") == 2 and parse_source(1) == 1
    assert parse_source("rtsp://cam/stream") == "rtsp://cam/stream"
    assert parse_source("videos/throw.avi") == "videos/throw.avi"
    with pytest.raises(ValueError):
        parse_source("  ")
    with pytest.raises(ValueError):
        parse_source(-1)


def test_a_missing_video_cannot_be_opened(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="Cannot open"):
        CaptureSource(str(tmp_path / "none.avi"))


class Truthful:
    """A frame source that tells the truth reader which frame is being read."""

    def __init__(self, source: CaptureSource, reader: TruthReader, truth: list[FrameTruth]) -> None:
        self.source, self.reader, self.truth, self.i = source, reader, truth, 0

    def read(self) -> tuple[np.ndarray, float] | None:
        item = self.source.read()
        if item is not None:
            self.reader.current = self.truth[min(self.i, len(self.truth) - 1)]
            self.i += 1
        return item

    def close(self) -> None:
        self.source.close()


def test_watcher_plays_a_video_file_and_proposes_each_throw(tmp_path: Path) -> None:
    video = turn_video(1)
    path = write_video(tmp_path / "turn.avi", video.frames, video.fps)
    capture = CaptureSource(str(path))
    assert capture.is_file and capture.fps == pytest.approx(30.0)
    reader = TruthReader()
    got: list[Proposal] = []
    watcher = CameraWatcher(Truthful(capture, reader, video.truth), reader, got.append).start()
    assert watcher.ended.wait(20)
    watcher.stop()
    status = watcher.status()
    assert status["frames"] == len(video.frames) and not status["running"] and status["error"] is None
    expected = [e for e in video.events if e.kind == "throw"]
    assert [p.dice for p in got] == [e.dice for e in expected]
    assert [p.held for p in got] == [(), (0, 1, 2)]
    assert status["throws"] == 2


def test_file_source_times_frames_by_their_rate_and_loops(tmp_path: Path) -> None:
    frames = [np.full((48, 64, 3), 40 * i, np.uint8) for i in range(4)]
    path = write_video(tmp_path / "four.avi", frames, fps=10)
    source = CaptureSource(str(path), loop=True)
    times = []
    for _ in range(6):
        item = source.read()
        assert item is not None
        times.append(item[1])
    source.close()
    assert times == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])


def test_browser_frames_are_pushed_as_jpeg() -> None:
    video = turn_video(2)
    reader = TruthReader()
    session = CameraSession(reader)
    answers = []
    for frame, truth in zip(video.frames, video.truth, strict=True):
        reader.current = truth
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        assert ok
        answers.append(session.feed_jpeg(jpeg.tobytes(), truth.t))
    proposals = [a["proposal"] for a in answers if a["proposal"]]
    assert [p["dice"] for p in proposals] == [list(e.dice) for e in video.events if e.kind == "throw"]
    assert proposals[1]["held"] == [0, 1, 2] and proposals[1]["all_five"] is False
    assert answers[-1]["throws"] == 2 and answers[-1]["calibrated"] is False
    preview = session.preview_jpeg()
    assert preview is not None and cv2.imdecode(np.frombuffer(preview, np.uint8), cv2.IMREAD_COLOR).shape == (
        240,
        320,
        3,
    )
    session.new_turn()
    assert session.status()["throws"] == 0


@pytest.mark.parametrize("data", [b"", b"not an image", b"\xff\xd8\xff" + b"\0" * 50])
def test_bad_browser_frames_are_refused_and_change_nothing(data: bytes) -> None:
    session = CameraSession(TruthReader())
    with pytest.raises(ImageError):
        session.feed_jpeg(data)
    assert session.status()["frames"] == 0
    with pytest.raises(ImageError):
        decode_frame(data)


PPM = 1.2  # pixels a millimetre of the flat mat the dice are drawn on
CAM = (480, 360)


@functools.cache
def mat_video(seed: int, cover: bool = False) -> tuple[TableVideo, list[np.ndarray], np.ndarray]:
    """A turn on the A4 mat seen by a tilted camera (frames are shared between tests: do not change them)."""
    if cover:  # the left half of the mat (three of six markers) hidden under a dark cloth
        video, frames, to_cam = mat_video(seed)
        covered = [f.copy() for f in frames]
        for f in covered:
            f[:, : CAM[0] // 2 + 60] = (40, 40, 40)
        return video, covered, to_cam
    flat = render_mat("a4", PPM)
    h, w = flat.shape[:2]
    land = (round(50 * PPM), round(50 * PPM), round(250 * PPM), round(145 * PPM))
    video = TableVideo(size=(w, h), seed=seed, die_px=round(16 * PPM), background=flat, land=land)
    video.still(0.3).throw([3, 3, 6, 2, 5]).still(0.5)
    threes = [p for p, d in enumerate(video.dice) if d.value == 3]
    video.slide(threes, [(110 * PPM, 178 * PPM), (140 * PPM, 178 * PPM)]).still(0.5)
    others = [p for p in range(5) if p not in threes]
    video.pick_up(others).still(0.3)
    video.throw([3 if p in threes else 4 for p in range(5)], held=threes).still(0.5)
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[30, 40], [455, 25], [470, 340], [15, 330]])
    to_cam = cv2.getPerspectiveTransform(src, dst)
    frames = [cv2.warpPerspective(f, to_cam, CAM, borderValue=(70, 70, 70)) for f in video.frames]
    return video, frames, to_cam


def calibrated_profile(frame: np.ndarray) -> Profile:
    fit = fit_mat(detect_markers(frame))
    assert fit is not None and not fit.covered
    return Profile.from_fit("table", fit, "test", (frame.shape[1], frame.shape[0]), px_per_mm=2.0)


def test_calibrated_session_reads_the_top_view_and_holds_dice_in_the_holding_area() -> None:
    video, frames, _ = mat_video(3)
    profile = calibrated_profile(frames[0])
    reader = TruthReader(scale=2.0 / PPM)
    got: list[Proposal] = []
    session = CameraSession(reader, profile, on_proposal=got.append)
    for frame, truth in zip(frames, video.truth, strict=True):
        reader.current = truth
        session.feed(frame, truth.t)
    expected = [e for e in video.events if e.kind == "throw"]
    assert [p.dice for p in got] == [e.dice for e in expected]
    assert got[1].held == expected[1].held and not got[1].all_five
    assert got[0].reading.width == round(297 * 2.0)  # read in the top view, 2 px a millimetre
    assert session.status()["calibrated"] and not session.status()["issues"]
    top = session.preview_jpeg(top=True)
    assert top is not None


def test_half_covered_mat_is_reported() -> None:
    video, frames, _ = mat_video(3, cover=True)
    profile = calibrated_profile(mat_video(3)[1][0])
    reader = TruthReader(scale=2.0 / PPM)
    session = CameraSession(reader, profile, quality=False)
    for frame, truth in zip(frames, video.truth, strict=True):
        reader.current = truth
        session.feed(frame, truth.t)
    codes = {i["code"] for i in session.status()["issues"]}
    assert "mat_covered" in codes


def test_a_camera_moved_after_calibration_is_reported() -> None:
    _, frames, _ = mat_video(3)
    profile = calibrated_profile(frames[0])
    shifted = [np.roll(f, 25, axis=1) for f in frames[:5]]
    session = CameraSession(TruthReader(scale=2.0 / PPM), profile)
    for i, f in enumerate(shifted):
        session.feed(f, i / 30)
    assert "mat_moved" in {i["code"] for i in session.status()["issues"]}


def test_latest_frame_drops_stale_frames() -> None:
    class Burst:
        """A camera that delivers ten frames at once, then ends."""

        def __init__(self) -> None:
            self.i = 0
            self.closed = False

        def read(self) -> tuple[np.ndarray, float] | None:
            if self.i >= 10:
                return None
            self.i += 1
            return np.full((8, 8, 3), self.i, np.uint8), float(self.i)

        def close(self) -> None:
            self.closed = True

    burst = Burst()
    latest = LatestFrame(burst)
    latest._thread.join(2)  # let the grabber drain the burst
    item = latest.read()
    assert item is not None and item[1] == 10.0  # the newest, not the first
    assert latest.read() is None  # ended
    latest.close()
    assert burst.closed
