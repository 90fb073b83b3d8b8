"""Fixtures for the server tests: a fresh app and temporary database per test, and devices with their own cookies.

Every /api error answer any test provokes is recorded and checked against the one error shape when the test's app
is torn down (``check_error_shapes``): the shape is enforced on every error path, not only where a test looks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, Response
from flask.testing import FlaskClient

from web.app import create_app

WRITE = {"X-Becher": "1"}


class Device:
    """One phone or tablet: its own cookie jar; writes carry the X-Becher header like Becher's pages do."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    @property
    def id(self) -> str:
        device: str = self.get("/api/me").json["device"]
        return device

    def get(self, url: str, **kw: Any) -> Any:
        return self.client.get(url, **kw)

    def post(self, url: str, json: Any = None, headers: dict[str, str] | None = None, **kw: Any) -> Any:
        return self.client.post(url, json=json, headers={**WRITE, **(headers or {})}, **kw)

    def delete(self, url: str, headers: dict[str, str] | None = None, **kw: Any) -> Any:
        return self.client.delete(url, headers={**WRITE, **(headers or {})}, **kw)

    # -- conveniences for games
    def create(
        self, game: str = "bone", players: list[str] | None = None, bound_seats: bool = False, **settings: Any
    ) -> dict[str, Any]:
        """A new game; its phones share every seat unless ``bound_seats`` (the API's default for new games is bound:
        the tests of seats say so, the others play every seat from any joined phone, as "shared by all")."""
        body = {"game": game, "players": players or ["Anna", "Ben"], "settings": settings, "bound_seats": bound_seats}
        r = self.post("/api/games", json=body)
        assert r.status_code == 201, r.json
        game_json: dict[str, Any] = r.json["game"]
        return game_json

    def play(self, game_id: str, action: dict[str, Any], seen: int | None = None, **extra: Any) -> Any:
        if seen is None:
            seen = self.get(f"/api/games/{game_id}").json["game"]["state"]["actions"]
        return self.post(f"/api/games/{game_id}/actions", json={"seen": seen, "action": action, **extra})


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "becher.sqlite3"),
            "LIVE_HEARTBEAT": 0.2,
            "READ_TIMEOUT": 60.0,
        }
    )
    errors: list[tuple[str, int, Any]] = []

    @app.after_request
    def _record(response: Response) -> Response:
        from flask import request

        if request.path.startswith("/api") and response.status_code >= 400:
            errors.append((request.path, response.status_code, response.get_data(as_text=True)))
        return response

    yield app
    check_error_shapes(errors)
    app.extensions["becher.shutdown"]()
    app.extensions["becher.store"].close()


def check_error_shapes(errors: list[tuple[str, int, Any]]) -> None:
    """Every /api error answer had exactly the documented shape: ok false, status, code, one sentence."""
    for path, status, text in errors:
        body = json.loads(text)
        assert body["ok"] is False, (path, body)
        assert body["status"] == status, (path, body)
        assert isinstance(body["error"], str) and body["error"].strip(), (path, body)
        assert body["error"].rstrip().endswith((".", "!")), (path, body)
        assert "\n" not in body["error"], (path, body)
        assert isinstance(body["code"], str), (path, body)
        assert {"ok", "error", "status", "code"} <= set(body) <= {"ok", "error", "status", "code", "game"}, body


@pytest.fixture
def new_device(app: Flask) -> Callable[[], Device]:
    return lambda: Device(app.test_client())


@pytest.fixture
def client(new_device: Callable[[], Device]) -> Device:
    """The tablet: the device that creates games, so their owner."""
    return new_device()


@pytest.fixture
def join(new_device: Callable[[], Device], client: Device) -> Callable[[str], Device]:
    """A new device joined to a game of ``client`` with the game's code, as a phone scanning the QR code would."""

    def make(game_id: str) -> Device:
        code = client.get(f"/api/games/{game_id}/access").json["join"]["code"]
        phone = new_device()
        r = phone.post("/api/join", json={"code": code})
        assert r.status_code == 200, r.json
        return phone

    return make


BONE_ROUND = [
    {"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5]},
    {"type": "stand", "player": 0},
    {"type": "throw", "player": 1, "dice": [2, 2, 3, 4, 5]},
    {"type": "throw", "player": 1, "dice": [2, 2, 2, 4, 5], "held": [0, 1]},
    {"type": "throw", "player": 1, "dice": [2, 2, 2, 6, 6], "held": [0, 1, 2]},
]
