"""The camera under /api/camera: live frames (host camera or the browser's), proposals, calibration, profiles.

Register with one line in ``create_app``: ``app.register_blueprint(camera_api.bp)``. On registration the
blueprint sets up ``app.extensions["becher.camera"]`` (a ``CameraHub``); when ``app.config["CAMERA"]``
names a source (``becher serve --camera 0``) a watcher thread starts reading it. Proposals go to the
game being watched as SSE events named ``camera`` on that game's stream (``/api/games/<id>/events``),
with the proposal's JSON (see docs/camera.md); the table page shows them for a one-tap confirm.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import math
import threading
import time
from pathlib import Path
from typing import Any

import cv2
from flask import Blueprint, Flask, Response, current_app, request
from flask.blueprints import BlueprintSetupState

from calibration.mat import PAPERS, mat_pdf
from calibration.profile import (
    Profile,
    ProfileError,
    delete_profile,
    list_profiles,
    load_profile,
    profiles_dir,
    save_profile,
)
from calibration.rectify import detect_markers, fit_mat
from companion import numbers
from companion.errors import Message
from vision.camera import CameraSession, CameraWatcher, decode_frame, open_source, reader_for
from vision.reading import ImageError, Reading
from vision.settle import Proposal, SettleConfig
from web import access, photos
from web.api import BODY_LIMIT, body, fail, flag, hub_of, ok, record_photo, store_of
from web.say import message_of
from web.store import NotFound

log = logging.getLogger(__name__)
bp = Blueprint("camera", __name__, url_prefix="/api/camera")
FRAME_LIMIT = 8 * 1024 * 1024
COUNT_EVERY_S = 1.0  # how often the camera takes the watched game's count of dice again


class CameraHub:
    """The one camera of this server: a session fed by a host watcher or by browser frames, and where it reports."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.lock = threading.Lock()
        self.kind = "auto"
        self.game_id: str | None = None
        self.seq = itertools.count(1)
        self.last: dict[str, Any] | None = None
        self.folder = Path(app.config.get("CAMERA_PROFILES") or profiles_dir().parent)
        self._readers: dict[str, Any] = {}
        config = SettleConfig(auto_confirm=bool(app.config.get("CAMERA_AUTO_CONFIRM", False)))
        self.session = CameraSession(self.read, self._start_profile(), config, self.on_proposal)
        self.source = app.config.get("CAMERA")
        self.watcher: CameraWatcher | None = None
        self.error: str | None = None
        self.counted = -math.inf  # when the watched game's count of dice was last taken
        self.told: int | None = None  # the dice in view where the watched game knows it, told to the reader

    def expect_dice(self) -> None:
        """The camera waits for the dice the watched game has in play (all of them: kept dice stay in view), five
        where the game does not say (docs/api.md, "The count")."""
        with self.lock:
            game_id = self.game_id
        known = None
        if game_id is not None:
            store: Any = self.app.extensions["becher.store"]
            try:
                count, on_table = photos.expected_count(store.game(game_id)["state"])
            except NotFound:
                count = on_table = None
            known = on_table or count
        self.told = known  # a guess of five waits for dice; the reader is told only a count the game gives
        n = known or 5
        config = self.session.config
        if (config.expected_dice, config.count_known) != (n, known is not None):
            self.session.set_expected_dice(n, known is not None)

    def read(self, bgr: Any) -> Reading:
        """The dice reader for the kind of the game being watched (chosen per frame, loaded once per kind)."""
        now = time.monotonic()
        if now - self.counted >= COUNT_EVERY_S:  # the game moves on (a roll-off of one die, then throws of three)
            self.counted = now
            try:
                self.expect_dice()
            except Exception:  # the count is a help; a frame is read without it rather than not at all
                log.exception("could not take the watched game's count of dice")
        kind = self.kind
        if kind not in self._readers:
            self._readers[kind] = reader_for(kind)
        told: dict[str, Any] = {}
        memory = self.memory()
        if memory is not None:
            # the game's memory of its dice (web/lessons.py) where it has learned any: the camera reads as photos do
            told["memory"] = memory
        if self.told is not None:
            told["count"] = self.told  # and with the game's count, as a photo of a first throw is read
        result: Reading = self._readers[kind](bgr, **told)
        return result

    def memory(self) -> Any:
        with self.lock:
            game_id = self.game_id
        if game_id is None:
            return None
        from web.api import game_memory

        try:
            memory = game_memory(self.app, self.app.extensions["becher.store"], game_id)
        except Exception:  # the memory is a help; a frame is read without it rather than not at all
            log.exception("could not take the watched game's memory of its dice")
            return None
        return memory if memory is not None and len(memory) else None

    def _start_profile(self) -> Profile | None:
        name = self.app.config.get("CAMERA_PROFILE")
        if name:
            try:
                return load_profile(str(name), self.folder)
            except ProfileError:
                log.warning("camera profile %r not found; reading without calibration", name)
                return None
        source = str(self.app.config.get("CAMERA") or "")
        matching = [p for p in list_profiles(self.folder) if p.calibrated and p.camera == source]
        return max(matching, key=lambda p: p.created) if matching else None

    def start(self) -> None:
        if self.source is None or self.watcher is not None:
            return
        try:
            source = open_source(self.source, pace=True, loop=True)  # a video file plays on as a demo camera
        except (OSError, ValueError) as exc:
            log.error("camera %r: %s", self.source, exc)
            self.error = str(exc)
            return
        self.watcher = CameraWatcher(source, self.read, session=self.session).start()

    def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None

    def on_proposal(self, proposal: Proposal) -> None:
        """Store the picture as the game's photo (a ``photo`` event, like an upload) and send the ``camera`` event."""
        with self.lock:
            game_id = self.game_id
        photo_id = None
        frame = self.session.proposal_frame
        if game_id is not None and frame is not None:
            reading = proposal.reading.to_json()
            reading["dice"] = [d.to_json() for d in proposal.ordered]  # by position, held ones where they were
            _, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
            try:
                stored = record_photo(self.app, game_id, jpeg.tobytes(), reading, device="camera")
                photo_id = stored["photo"]["id"]
            except Exception:  # the proposal still goes out; the photo is a record, not the point
                log.exception("could not store the camera's photo for game %s", game_id)
        payload = {"seq": next(self.seq), "game": game_id, "photo": photo_id, **proposal.to_json()}
        with self.lock:
            self.last = payload
        if game_id is not None:
            with self.app.app_context():
                hub_of().publish(game_id, "camera", payload)

    def status(self) -> dict[str, Any]:
        out = self.session.status()
        with self.lock:
            out.update(
                source=None if self.source is None else str(self.source),
                running=bool(self.watcher and self.watcher.status()["running"]),
                error=(self.watcher.error if self.watcher else None) or self.error,
                game=self.game_id,
                kind=self.kind,
                proposal=self.last,
            )
        return out


def camera_of() -> CameraHub:
    hub: CameraHub = current_app.extensions["becher.camera"]
    return hub


@bp.record_once
def _setup(state: BlueprintSetupState) -> None:
    app = state.app
    assert isinstance(app, Flask)
    hub = CameraHub(app)
    app.extensions["becher.camera"] = hub
    if not app.config.get("TESTING"):
        hub.start()
        atexit.register(hub.stop)


# ---------------------------------------------------------------------------------------------- who may use it

OPEN = frozenset({"camera.mat"})  # the printable mat is the same file for everyone
OWNER_ONLY = frozenset({"camera.save", "camera.use", "camera.delete"})  # watch checks its own rule (it names a game)


def camera_role() -> str:
    """``owner`` or ``player`` of the camera for this request, else Denied.

    The camera follows the rule of the game it watches: the host's own browser and the devices joined to that game
    may see and feed it, and its owner may also set it up. While it watches no running game it is free, and a device
    that owns a running game may use it as its owner (it could take it by watching that game anyway); a device that
    joined nothing gets nothing, not even which game is watched.
    """
    if access.is_local():
        return "owner"
    store = store_of()
    device = access.current_device()
    row = watched_row()
    if row is None:
        if store.owns_running_game(device):
            return "owner"
        raise access.Denied("The table camera is not in use; start a game on this device to use it, or ask the host.")
    role = store.role(row.id, device)
    if role in access.WRITE_ROLES:
        return role
    raise access.Denied("The table camera watches another game; only the devices joined to that game may use it.")


def watched_row() -> Any:
    """The running game the camera watches, or None (none, deleted or finished)."""
    game_id = camera_of().game_id
    if game_id is None:
        return None
    try:
        row = store_of().row(game_id)
    except NotFound:
        return None
    return row if row.finished is None else None


@bp.before_request
def _guard() -> None:
    """Bodies up to the frame limit (a chunked one too: 413 beyond), and the camera's access rule on every route."""
    request.max_content_length = (
        FRAME_LIMIT if request.endpoint in ("camera.push_frame", "camera.check") else BODY_LIMIT
    )
    if request.endpoint in OPEN or request.endpoint is None:
        return
    role = camera_role()
    if request.endpoint in OWNER_ONLY and role != "owner":
        raise access.Denied("Only the owner of the game the camera watches may set up the camera; ask at the table.")


# ---------------------------------------------------------------------------------------------- routes


@bp.get("")
def status() -> Response:
    return ok(camera=camera_of().status())


@bp.post("/frame")
def push_frame() -> Response:
    """One frame from the browser's camera (the body is a JPEG or PNG); answers the status and any proposal.

    The header ``X-Frame-Time`` may give the capture time in seconds (``performance.now() / 1000``), so
    stillness is timed by the camera rather than by when frames happen to arrive.
    """
    if request.content_length is not None and request.content_length > FRAME_LIMIT:
        fail(413, "too_large", "A camera frame must be under 8 MB; send a smaller picture.")
    data = frame_body()
    if not data:
        fail(400, "malformed", "Send the frame as the request body (image/jpeg).")
    hub = camera_of()
    if hub.watcher is not None:
        fail(409, "camera_busy", "The host's camera is in use; the browser's camera cannot feed it at the same time.")
    t: float | None = None
    if request.headers.get("X-Frame-Time"):
        t = numbers.seconds_text(request.headers["X-Frame-Time"])
        if t is None:
            fail(400, "malformed", "The header X-Frame-Time must be the capture time in seconds.")
    try:
        answer = hub.session.feed_jpeg(data, t)
    except ImageError as exc:
        fail(415, "not_image", message_of(exc))
    return ok(camera={**hub.status(), "proposal": hub.last if answer["proposal"] else None})


@bp.get("/preview.jpg")
def preview() -> Response:
    top = request.args.get("top") in ("1", "true")
    jpeg = camera_of().session.preview_jpeg(top=top)
    if jpeg is None:
        fail(404, "no_frame", "The camera has sent no picture yet.")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.post("/watch")
def watch() -> Response:
    """Send proposals to this game (``{"game": id, "auto_confirm": bool}``; null stops); the next throw starts a turn.

    With ``auto_confirm`` proposals whose dice are all certain come marked ``"auto": true``: the page enters
    them without waiting for a tap.
    """
    data = body(example='{"game": null}')
    if "game" not in data:  # {} or {"auto_confirm": true} would stop watching: the body must name the game
        fail(400, "malformed", "Send the field 'game': the id of the game to watch, or null to stop.")
    game_id = data.get("game")
    hub = camera_of()
    auto = flag(data, "auto_confirm", hub.session.config.auto_confirm)
    kind = "auto"
    store = store_of()
    current = watched_row()
    device = access.current_device()
    if current is not None and current.id != game_id and access.role_in(store, current, device) != "owner":
        raise access.Denied(
            "The table camera watches another game; only that game's owner may stop it or point it elsewhere."
        )
    if game_id is not None:
        if not isinstance(game_id, str):
            fail(400, "malformed", "The field 'game' must be a game id or null.")
        row = store.row(game_id)
        access.require_owner(store, row)
        kind = str(row.setup.get("settings", {}).get("dice", "auto"))
    hub.kind = kind if kind in ("pip", "poker") else "auto"
    hub.session.set_auto_confirm(auto)
    with hub.lock:
        hub.game_id = game_id
        hub.last = None
    hub.session.new_turn()
    hub.expect_dice()
    return ok(camera=hub.status())


@bp.post("/turn")
def new_turn() -> Response:
    """The turn passed (or the dice were entered by hand): the next throw is a first throw."""
    hub = camera_of()
    hub.session.new_turn()
    hub.expect_dice()
    return ok(camera=hub.status())


@bp.post("/check")
def check() -> Response:
    """Look for the mat in the latest frame: which paper, which markers, how well they fit."""
    frame = _latest_or_body()
    fit = fit_mat(detect_markers(frame))
    if fit is None:
        return ok(mat=None, message="No mat found: at least two of its markers must be in view.")
    return ok(
        mat={
            "paper": fit.layout.paper,
            "markers": list(fit.seen),
            "expected": fit.expected,
            "covered": fit.covered,
            "error_mm": round(fit.error_mm, 3),
        }
    )


def frame_body() -> bytes:
    """The body, 413 beyond FRAME_LIMIT whether it came with a length (refused before reading) or chunked (which
    Werkzeug cuts at the limit without a word)."""
    data = request.get_data(cache=True)
    if request.content_length is None and len(data) >= FRAME_LIMIT:
        fail(413, "too_large", "A camera frame must be under 8 MB; send a smaller picture.")
    return data


def _latest_or_body() -> Any:
    data = frame_body() if request.mimetype.startswith("image/") else b""
    if data:
        try:
            return decode_frame(data)
        except ImageError as exc:
            fail(415, "not_image", message_of(exc))
    frame = camera_of().session.latest_frame()
    if frame is None:
        fail(404, "no_frame", "The camera has sent no picture yet.")
    return frame


@bp.get("/profiles")
def profiles() -> Response:
    hub = camera_of()
    current = hub.session.profile.name if hub.session.profile else None
    return ok(profiles=[p.to_json() for p in list_profiles(hub.folder)], current=current)


@bp.post("/profiles")
def save() -> Response:
    """Calibrate from the latest frame (or ``{"name", "none": true}`` for a profile without a mat) and use it."""
    data = body()
    name = data.get("name")
    if not isinstance(name, str):
        fail(400, "malformed", "The field 'name' must be the profile's name.")
    hub = camera_of()
    frame = hub.session.latest_frame()
    if frame is None:
        fail(404, "no_frame", "The camera has sent no picture yet.")
    resolution = (int(frame.shape[1]), int(frame.shape[0]))
    camera = str(hub.source) if hub.source is not None else "browser"
    try:
        if flag(data, "none"):
            profile = Profile(name=name, camera=camera, resolution=resolution)
        else:
            fit = fit_mat(detect_markers(frame))
            if fit is None:
                fail(422, "no_mat", "No mat found: put the printed mat under the camera with its markers in view.")
            if fit.covered:
                fail(
                    422,
                    "mat_covered",
                    Message(
                        "Only {count} of {expected} markers are in view; uncover the mat.",
                        count=len(fit.seen),
                        expected=fit.expected,
                    ),
                )
            profile = Profile.from_fit(name, fit, camera, resolution)
        save_profile(profile, hub.folder)
    except ProfileError as exc:
        fail(400, "malformed", message_of(exc))
    hub.session.use_profile(profile)
    return ok(201, profile=profile.to_json())


@bp.post("/profiles/<name>/use")
def use(name: str) -> Response:
    hub = camera_of()
    try:
        profile = load_profile(name, hub.folder)
    except ProfileError as exc:
        fail(404, "not_found", message_of(exc))
    hub.session.use_profile(profile)
    return ok(profile=profile.to_json())


@bp.delete("/profiles/<name>")
def delete(name: str) -> Response:
    hub = camera_of()
    try:
        delete_profile(name, hub.folder)
    except ProfileError as exc:
        fail(404, "not_found", message_of(exc))
    if hub.session.profile is not None and hub.session.profile.name == name:
        hub.session.use_profile(None)
    return ok(deleted=name)


@bp.get("/mat.pdf")
def mat() -> Response:
    paper = request.args.get("paper", "a4").lower()
    if paper not in PAPERS:
        fail(400, "malformed", Message("The paper must be one of {papers}.", papers=", ".join(sorted(PAPERS))))
    return Response(
        mat_pdf(paper),
        mimetype="application/pdf",
        headers={"Content-Disposition": f'inline; filename="becher-mat-{paper}.pdf"'},
    )
