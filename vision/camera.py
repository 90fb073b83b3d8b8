"""The camera at the table: frame sources, a session that turns frames into proposed throws, a watcher thread.

Wiring (see docs/camera.md):

- ``CameraSession(reader, profile, config, on_proposal)`` takes frames one at a time (``feed`` for
  arrays, ``feed_jpeg`` for what a browser sends) and calls ``on_proposal(proposal)`` when a throw has
  settled. With a calibrated profile every frame is first rectified to the mat's top view of known
  scale, and the mat's zones apply (dice off the mat ignored, dice in the holding area held).
- ``CameraWatcher(source, reader, on_proposal, profile=..., config=...)`` runs a session in a thread,
  pulling frames from an OpenCV source (``open_source("0")``, a video file, a stream address).
- ``reader_for(kind)`` gives the real dice reader as a callable, loaded on first use.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

import cv2
import numpy as np

from calibration.mat import layout_for
from calibration.profile import Profile
from calibration.rectify import TopView, detect_markers
from vision.decode import probe
from vision.quality import Issue, check_mat
from vision.reading import ImageError, Reading
from vision.settle import Proposal, Reader, SettleConfig, SettleDetector

__all__ = [
    "MAX_FRAME_BYTES",
    "CameraSession",
    "CameraWatcher",
    "CaptureSource",
    "FrameSource",
    "LatestFrame",
    "decode_frame",
    "open_source",
    "parse_source",
    "reader_for",
]

log = logging.getLogger(__name__)
MAX_FRAME_BYTES = 8 * 1024 * 1024
MAX_FRAME_PIXELS = 4096 * 4096
FRAME_FORMATS = frozenset({"JPEG", "MPO", "PNG", "WEBP"})  # what browsers' canvases send
MAT_CHECK_S = 2.0  # how often the mat's markers are looked for (they rarely change)


def parse_source(text: str | int) -> int | str:
    """``"0"`` is the first camera; anything else is a file path or a stream address."""
    if isinstance(text, int):
        if text < 0:
            raise ValueError(f"A camera index is 0 or more, not {text}.")
        return text
    value = str(text).strip()
    if not value:
        raise ValueError("Name a camera: an index like 0, a video file, or a stream address.")
    return int(value) if value.isdigit() else value


class FrameSource(Protocol):
    """Something that gives frames with their time in seconds; ``None`` when it has ended."""

    def read(self) -> tuple[np.ndarray, float] | None: ...

    def close(self) -> None: ...


class CaptureSource:
    """OpenCV capture: a camera index, a video file or a stream address.

    Files are timed by their frame rate (so a test video plays identically however fast it is
    decoded); ``pace=True`` plays them at their real speed, as a demo camera would, and ``loop``
    starts them over at the end. Cameras and streams are timed by the clock.
    """

    def __init__(
        self, source: str | int, pace: bool = False, loop: bool = False, size: tuple[int, int] | None = None
    ) -> None:
        self.source = parse_source(source)
        self.cap = cv2.VideoCapture(self.source)
        if not self.cap.isOpened():
            raise OSError(f"Cannot open the camera or video {source!r}.")
        if size is not None:
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self.is_file = isinstance(self.source, str) and "://" not in self.source
        fps = float(self.cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 1.0 <= fps <= 240.0 else 30.0
        self.pace, self.loop = pace, loop
        self._index = 0
        self._offset = 0.0
        self._start = time.monotonic()

    def read(self) -> tuple[np.ndarray, float] | None:
        ok, frame = self.cap.read()
        if not ok and self.is_file and self.loop and self._index:
            self._offset += self._index / self.fps
            self._index = 0
            self.cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self.cap.read()
        if not ok or frame is None:
            return None
        if not self.is_file:
            return frame, time.monotonic()
        t = self._offset + self._index / self.fps
        self._index += 1
        if self.pace:
            wait = self._start + t - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        return frame, t

    def close(self) -> None:
        self.cap.release()


class LatestFrame:
    """Keeps only the newest frame of a live source, grabbed in its own thread.

    A camera buffers frames while the dice are being read; reading them in turn would lag ever
    further behind the table. This drops the stale ones, so each read gets the frame of now.
    """

    def __init__(self, source: FrameSource) -> None:
        self.source = source
        self._cond = threading.Condition()
        self._item: tuple[np.ndarray, float] | None = None
        self._ended = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._grab, name="becher-grab", daemon=True)
        self._thread.start()

    def _grab(self) -> None:
        try:
            while not self._stop.is_set():
                item = self.source.read()
                with self._cond:
                    if item is None:
                        break
                    self._item = item
                    self._cond.notify_all()
        finally:
            with self._cond:
                self._ended = True
                self._cond.notify_all()

    def read(self) -> tuple[np.ndarray, float] | None:
        with self._cond:
            while self._item is None and not self._ended:
                self._cond.wait(1.0)
            item, self._item = self._item, None
            return item

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2.0)
        self.source.close()


def open_source(text: str | int, pace: bool = True, loop: bool = False) -> FrameSource:
    """A camera or stream (only its newest frame is read), or a video file played at its speed when ``pace``."""
    capture = CaptureSource(text, pace=pace, loop=loop)
    return capture if capture.is_file else LatestFrame(capture)


def decode_frame(data: bytes) -> np.ndarray:
    """A browser's JPEG or PNG frame as BGR; ``ImageError`` when it is not one."""
    if not isinstance(data, bytes | bytearray | memoryview) or not data:
        raise ImageError("The frame is empty.")
    if len(data) > MAX_FRAME_BYTES:
        raise ImageError(f"The frame is larger than {MAX_FRAME_BYTES // (1024 * 1024)} MB.")
    # format and size from the header first: OpenCV would decode TIFF, PPM, EXR... and any size it is handed
    fmt, width, height, _ = probe(bytes(data))
    if fmt not in FRAME_FORMATS:
        raise ImageError("The frame is not a JPEG or PNG image.")
    if width * height > MAX_FRAME_PIXELS:
        raise ImageError(f"A frame of {width}x{height} pixels cannot be used.")
    array = np.frombuffer(bytes(data), np.uint8)
    frame = cv2.imdecode(array, cv2.IMREAD_COLOR)
    if frame is None:
        raise ImageError("The frame is not a JPEG or PNG image.")
    if frame.shape[0] * frame.shape[1] > MAX_FRAME_PIXELS or min(frame.shape[:2]) < 16:
        raise ImageError(f"A frame of {frame.shape[1]}x{frame.shape[0]} pixels cannot be used.")
    return frame


class GameReader(Protocol):
    """A reader told what the watched game knows: its memory of the dice and the count in view."""

    def __call__(self, bgr: np.ndarray, memory: Any = None, count: int | None = None) -> Reading: ...


def reader_for(kind: str = "auto") -> GameReader:
    """The real dice reader as a callable; the model loads on the first frame read, not at import. ``count``: the
    dice in view where the game knows it (all of them: the camera sees the kept dice too)."""
    state: dict[str, Any] = {}

    def read(bgr: np.ndarray, memory: Any = None, count: int | None = None) -> Reading:
        if "reader" not in state:
            from vision.reader import get_reader

            state["reader"] = get_reader()
        result: Reading = state["reader"].read_array(bgr, kind, memory, count)
        return result

    return read


class CameraSession:
    """Frames in, proposals out, for one camera; safe to feed from one thread while others ask for status."""

    def __init__(
        self,
        reader: Reader,
        profile: Profile | None = None,
        config: SettleConfig | None = None,
        on_proposal: Callable[[Proposal], None] | None = None,
        quality: bool = True,
    ) -> None:
        self.reader = reader
        self.config = config or SettleConfig()
        self.on_proposal = on_proposal
        self.quality = quality
        self.lock = threading.RLock()
        self.frames = 0
        self.last_proposal: Proposal | None = None
        self.proposal_frame: np.ndarray | None = None  # the picture (top view when calibrated) it was read from
        self.proposals = 0
        self._latest: np.ndarray | None = None
        self._latest_t = 0.0
        self._mat_issues: list[Issue] = []
        self._mat_checked = -1e9
        self.use_profile(profile)

    def use_profile(self, profile: Profile | None) -> None:
        """Switch calibration; the scene is learned afresh (held dice cannot be told across it)."""
        with self.lock:
            self.profile = profile
            self.view: TopView | None = None
            zones: dict[str, Any] = {}
            if profile is not None and profile.calibrated:
                h = profile.homography_array()
                assert h is not None and profile.mat_mm is not None
                self.view = TopView(h, profile.mat_mm, profile.px_per_mm)
                k = profile.px_per_mm
                zones = {name: [(x * k, y * k) for x, y in poly] for name, poly in profile.zones.items()}
            self.detector = SettleDetector(self.reader, self.config, zones=zones, quality=self.quality)
            self._mat_issues, self._mat_checked = [], -1e9

    def new_turn(self) -> None:
        with self.lock:
            self.detector.new_turn()

    def set_expected_dice(self, n: int | None, known: bool = False) -> None:
        """How many dice the game has in play (five; three on the board; one in a roll-off): fewer in view is waited
        out, more is said; the camera sees the kept dice too, so it is all of them, not the dice thrown. ``known``:
        the watched game's count, not a guess: the dice seen are fitted to it as a photo's are."""
        with self.lock:
            self.config = replace(self.config, expected_dice=n, count_known=known and n is not None)
            self.detector.config = self.config

    def set_auto_confirm(self, on: bool) -> None:
        """Mark later proposals ``auto`` when every die is certain and nothing is wrong (a game setting)."""
        with self.lock:
            self.config = replace(self.config, auto_confirm=bool(on))
            self.detector.config = self.config

    def prepare(self, frame: np.ndarray) -> np.ndarray:
        """The frame the detector sees: the mat's top view when calibrated, else the frame itself."""
        if self.view is None:
            return frame
        if self.profile is not None and self.profile.resolution is not None:
            w, h = self.profile.resolution
            if (frame.shape[1], frame.shape[0]) != (w, h):
                frame = cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA)
        return self.view.warp(frame)

    def _check_mat(self, top: np.ndarray, t: float) -> None:
        if self.view is None or self.profile is None or not self.profile.paper or t - self._mat_checked < MAT_CHECK_S:
            return
        self._mat_checked = t
        layout = layout_for(self.profile.paper)
        seen = detect_markers(top)
        issues = check_mat(len(set(seen) & set(layout.markers)), len(layout.markers))
        k = self.profile.px_per_mm
        moved = [
            i for i, c in seen.items() if i in layout.markers and np.max(np.abs(c / k - layout.marker_points(i))) > 8.0
        ]
        if moved:
            issues.append(Issue("mat_moved", "The mat or the camera has moved: calibrate again."))
        self._mat_issues = issues

    def feed(self, frame: np.ndarray, t: float | None = None) -> Proposal | None:
        t = time.monotonic() if t is None else t
        with self.lock:
            self.frames += 1
            self._latest, self._latest_t = frame, t
            top = self.prepare(frame)
            self._check_mat(top, t)
            proposal = self.detector.feed(top, t)
            if proposal is not None and self._mat_issues:
                proposal = _with_issues(proposal, self._mat_issues)
            if proposal is not None:
                self.last_proposal = proposal
                self.proposal_frame = top
                self.proposals += 1
        if proposal is not None and self.on_proposal is not None:
            try:
                self.on_proposal(proposal)
            except Exception:  # a failing listener must not stop the camera
                log.exception("on_proposal failed")
        return proposal

    def feed_jpeg(self, data: bytes, t: float | None = None) -> dict[str, Any]:
        """One frame from the browser's camera; answers the status, with the proposal when one was made."""
        frame = decode_frame(data)
        proposal = self.feed(frame, t)
        out = self.status()
        out["proposal"] = proposal.to_json() if proposal is not None else None
        return out

    def status(self) -> dict[str, Any]:
        with self.lock:
            out = self.detector.status()
            out["issues"] = out["issues"] + [i.to_json() for i in self._mat_issues]
            out["frames"] = self.frames
            out["proposals"] = self.proposals
            out["calibrated"] = self.view is not None
            out["auto_confirm"] = self.config.auto_confirm
            out["expected_dice"] = self.config.expected_dice
            out["profile"] = self.profile.name if self.profile else None
            return out

    def preview_jpeg(self, top: bool = False, quality: int = 70, width: int = 640) -> bytes | None:
        """The latest frame (or its top view) as JPEG with the last proposal's boxes drawn, for the table view."""
        with self.lock:
            if self._latest is None:
                return None
            image = self.prepare(self._latest) if top else self._latest.copy()
            proposal = self.last_proposal
        if proposal is not None and (top or self.view is None):
            for p, box in enumerate(proposal.boxes):
                colour = (0, 165, 255) if p in proposal.uncertain else (60, 200, 60)
                cv2.rectangle(image, box[:2], box[2:], colour, 2)
                cv2.putText(image, str(p + 1), (box[0], max(10, box[1] - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1)
        if image.shape[1] > width:
            size = (width, round(image.shape[0] * width / image.shape[1]))
            image = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA))
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return buf.tobytes() if ok else None

    def latest_frame(self) -> np.ndarray | None:
        with self.lock:
            return None if self._latest is None else self._latest.copy()


def _with_issues(proposal: Proposal, extra: list[Issue]) -> Proposal:
    issues = proposal.issues + tuple(extra)
    return replace(proposal, issues=issues, auto=False)


class CameraWatcher:
    """Runs a ``CameraSession`` over a frame source in a daemon thread; ``stop()`` ends it and closes the source."""

    def __init__(
        self,
        source: FrameSource | str | int,
        reader: Reader,
        on_proposal: Callable[[Proposal], None] | None = None,
        profile: Profile | None = None,
        config: SettleConfig | None = None,
        session: CameraSession | None = None,
    ) -> None:
        self.source: FrameSource = open_source(source) if isinstance(source, str | int) else source
        self.session = session or CameraSession(reader, profile, config, on_proposal)
        self.error: str | None = None
        self.ended = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="becher-camera", daemon=True)

    def start(self) -> CameraWatcher:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self.source.close()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                item = self.source.read()
                if item is None:
                    break
                frame, t = item
                try:
                    self.session.feed(frame, t)
                except ImageError as exc:
                    self.error = str(exc)
        except Exception as exc:  # the thread must report, not die silently
            log.exception("camera stopped")
            self.error = f"The camera stopped: {exc}"
        finally:
            self.ended.set()

    def status(self) -> dict[str, Any]:
        out = self.session.status()
        out["running"] = self._thread.is_alive()
        out["error"] = self.error
        return out
