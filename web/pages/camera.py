"""The camera page: print the mat, look through the camera, check the view, save and pick profiles, or make this
device the table camera. Everything it does goes through ``/api/camera`` (web/camera_api.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, render_template, request

bp = Blueprint("camerapage", __name__)


@dataclass(frozen=True)
class CameraPage:
    """Template context of ``camera.html``: the printable mats (paper, label, URL) and the game to go back to."""

    mats: tuple[tuple[str, str, str], ...]
    back_game: str


@bp.get("/camera")
def show() -> Any:
    game = request.args.get("game", "")
    mats = (("a4", "A4", "/api/camera/mat.pdf?paper=a4"), ("letter", "Letter", "/api/camera/mat.pdf?paper=letter"))
    return render_template("camera.html", ctx=CameraPage(mats, game if game.isalnum() else ""))
