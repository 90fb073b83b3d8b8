"""The app factory: one Flask app with the API, live updates, access control and the pages.

Like Flask's tutorial app, tests build a fresh app with a temporary database through ``create_app(config)``.
"""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import BaseConverter, ValidationError

import web.pages
from companion import numbers
from web import access, api, camera_api, lessons, live, photos
from web.say import say
from web.store import Store

API_CODES = {
    400: "malformed",
    403: "forbidden",
    404: "not_found",
    405: "method",
    408: "too_slow",
    409: "stale",
    413: "too_large",
    415: "not_image",
    429: "too_many",
    503: "busy",
    507: "disk_full",
}

HTTP_MESSAGES = {
    400: "The request could not be understood; check what was sent.",
    404: "There is nothing at this address; check the link or go back to the start page.",
    405: "This address does not take this kind of request; use the method docs/api.md names.",
    413: "What was sent is too large (photos up to 20 MB, other data up to 1 MB); send something smaller.",
}


class WholeConverter(BaseConverter):
    """``<whole:n>`` in a route: ASCII digits only (werkzeug's ``int`` takes any Unicode digit) read by
    companion/numbers.py within JSON's safe integers; anything else is no such address (404), never a number too
    large for SQLite (a 500)."""

    regex = r"[0-9]+"

    def to_python(self, value: str) -> int:
        number = numbers.whole_text(value, 0, numbers.LARGEST)
        if number is None:
            raise ValidationError()
        return number

    def to_url(self, value: Any) -> str:
        return str(int(value))


def data_dir() -> Path:
    """The user's data folder (what platformdirs would give), or $BECHER_DATA."""
    override = os.environ.get("BECHER_DATA")
    if override:
        return Path(override)
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or os.environ.get("APPDATA") or home / "AppData" / "Local")
        return base / "Becher"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Becher"
    return Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "becher"


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(
        DATABASE=None,  # default: becher.sqlite3 in data_dir()
        PHOTO_MAX_SIDE=1600,
        READ_WORKERS=1,  # the reader shares one model per process; reads queue, requests never do
        READ_TIMEOUT=20.0,
        READ_QUEUE=8,  # photos waiting for or in the reader at once; more are stored without a reading
        DECODE_SLOTS=photos.DECODE_SLOTS,  # photos decoded at once (and DECODE_PIXELS pixels among them)
        DECODE_PIXELS=photos.DECODE_PIXELS,
        DECODE_WAIT=photos.DECODE_WAIT_S,  # seconds an upload waits for its turn before 503 busy
        LIVE_HEARTBEAT=15.0,
        LIVE_MAX_STREAMS=48,  # live streams at once (each holds a server thread; `becher serve` has 64)
        LIVE_PER_DEVICE=4,  # streams of one device on one game; a fifth closes its oldest (likely dead) one
        LIVE_PER_DEVICE_ALL=8,  # streams of one device over all games; one more closes its oldest
        LIVE_PER_ADDRESS=16,  # streams from one network address (cookies are free); one more closes its oldest
        GAMES_PER_HOUR=60,  # games one device may start (or import) in an hour: a runaway script, not a family
        GAMES_PER_HOUR_ADDRESS=120,  # the same for one network address (a request without a cookie is a new device)
        IMPORT_ACTIONS_PER_HOUR=60_000,  # actions one network address may import in an hour (a 1 MB log: ~24,000)
        LOCAL_IS_OWNER=False,  # `becher serve` trusts the host's own browser as owner of every game
        JOIN_LANDING="/phone/{id}",
        PUBLIC_URL=None,  # base of join links; default: the address the request came to
        CAMERA=None,
        HTTPS=False,
        MAX_CONTENT_LENGTH=api.PHOTO_LIMIT + api.MULTIPART_SLACK,
    )
    if config:
        app.config.update(config)
    database = app.config["DATABASE"] or str(data_dir() / "becher.sqlite3")
    app.config["DATABASE"] = database

    store = Store(database)
    readers = photos.Readers(int(app.config["READ_WORKERS"]), int(app.config["READ_QUEUE"]))
    hub = live.Hub(
        int(app.config["LIVE_PER_DEVICE"]), int(app.config["LIVE_PER_DEVICE_ALL"]), int(app.config["LIVE_PER_ADDRESS"])
    )
    app.extensions["becher.store"] = store
    app.extensions["becher.readers"] = readers
    app.extensions["becher.memories"] = lessons.Memories()
    app.extensions["becher.sets"] = lessons.Unpacked()  # saved dice sets unpacked, once per version
    app.extensions["becher.decode"] = photos.DecodeSlots(
        int(app.config["DECODE_SLOTS"]), int(app.config["DECODE_PIXELS"]), float(app.config["DECODE_WAIT"])
    )
    app.extensions["becher.hub"] = hub

    app.url_map.converters["whole"] = WholeConverter
    access.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(camera_api.bp)
    from web import records

    app.register_blueprint(records.bp)
    _register_errors(app)
    web.pages.register(app)

    def shutdown() -> None:
        app.extensions["becher.camera"].stop()
        hub.close()
        readers.shutdown()

    app.extensions["becher.shutdown"] = shutdown
    atexit.register(hub.close)
    return app


def _is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def _register_errors(app: Flask) -> None:
    """One error shape on every /api answer (unknown routes included); pages keep Flask's own error pages."""

    @app.errorhandler(api.ApiError)
    def _api_error(exc: api.ApiError) -> Response:
        if _is_api():
            return exc.response()
        # a page's bad query (the history's ?player=²): its sentence as plain text, never as HTML it could hold
        return Response(say(exc.message), status=exc.status, mimetype="text/plain")

    @app.errorhandler(access.Denied)
    def _denied(exc: access.Denied) -> Response | tuple[str, int]:
        if _is_api():
            return api.error_response(exc.status, exc.code, exc.message)
        return say(exc.message), exc.status

    @app.errorhandler(Exception)
    def _other(exc: Exception) -> Any:
        mapped = api.to_api_error(exc)
        if isinstance(exc, HTTPException):
            if not _is_api():
                return exc
            status = exc.code or 500
            message = HTTP_MESSAGES.get(status) or (exc.description or "The request failed.")
            return api.error_response(status, API_CODES.get(status, "error"), message)
        if mapped is not None:
            if _is_api():
                return mapped.response()
            return str(mapped), mapped.status
        app.logger.exception("unexpected error on %s %s", request.method, request.path)
        if _is_api():
            return api.error_response(
                500, "server", "Something went wrong on the server; try again, and report it if it repeats."
            )
        return "Something went wrong on the server; try again.", 500
