"""The photo page: the picture behind a score with the reader's box and face on every die (uncertain ones marked),
and what was entered from it. Links to photos from the score block, the history and the proposals open it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, abort, render_template

from vision.reading import face_label
from web.pages import data
from web.pages.model import GamePage, build_game_page
from web.pages.views import HistoryLine, history_lines

bp = Blueprint("photo", __name__)
JSON = dict[str, Any]


@dataclass(frozen=True)
class PhotoBox:
    """One die the reader found, placed in percent of the picture so it scales with it."""

    face: str
    uncertain: bool
    left: float
    top: float
    width: float
    height: float
    confidence: float
    printed: str | None = None  # another printing of the face, as read ("D" for a German queen)

    @property
    def label(self) -> str:
        return face_label(self.face, self.printed)


@dataclass(frozen=True)
class PhotoPage:
    """Template context of ``photo.html``: the photo, the dice read on it, the reader's doubt, and the actions that
    named this photo (what was entered from it, possibly corrected), none while it is not confirmed."""

    page: GamePage
    photo_id: str
    url: str
    width: int
    height: int
    boxes: tuple[PhotoBox, ...]
    read: tuple[str, ...]
    reading_error: str | None
    warnings: tuple[str, ...]
    entered: tuple[HistoryLine, ...]
    entered_dice: tuple[tuple[Any, ...], ...]
    from_camera: bool


def boxes_of(reading: JSON | None, width: int, height: int) -> tuple[PhotoBox, ...]:
    if not reading:
        return ()
    w = float(reading.get("width") or width or 1)
    h = float(reading.get("height") or height or 1)
    out = []
    for d in reading.get("dice") or []:
        x0, y0, x1, y1 = (float(v) for v in d.get("box") or (0, 0, 0, 0))
        out.append(
            PhotoBox(
                face=str(d.get("face", "?")),
                uncertain=bool(d.get("uncertain")),
                left=round(100 * x0 / w, 3),
                top=round(100 * y0 / h, 3),
                width=round(100 * (x1 - x0) / w, 3),
                height=round(100 * (y1 - y0) / h, 3),
                confidence=float(d.get("confidence") or 0.0),
                printed=str(d["printed"]) if d.get("printed") else None,
            )
        )
    return tuple(out)


@bp.get("/photo/<photo_id>")
def show(photo_id: str) -> Any:
    from web.store import NotFound

    try:
        photo = data.store().photo(photo_id)
    except NotFound:
        abort(404)
    loaded = data.load(photo.game_id)  # the same rights as the game's own pages
    page = build_game_page(loaded.game)
    rows = data.history(photo.game_id)
    lines = history_lines(rows, page)
    mine = [(line, r) for line, r in zip(lines, rows, strict=True) if r.get("photo") == photo.id]
    info = photo.to_json()
    reading = photo.reading if isinstance(photo.reading, dict) else None
    width, height = int(info.get("width") or 0), int(info.get("height") or 0)
    ctx = PhotoPage(
        page=page,
        photo_id=photo.id,
        url=str(info.get("url") or f"/api/photos/{photo.id}"),
        width=width,
        height=height,
        boxes=boxes_of(reading, width, height),
        read=tuple(str(d.get("face", "?")) for d in (reading or {}).get("dice") or []),
        reading_error=photo.reading_error,
        warnings=tuple(str(w) for w in (reading or {}).get("warnings") or []),
        entered=tuple(line for line, _ in mine),
        entered_dice=tuple(tuple((r.get("action") or {}).get("dice") or ()) for _, r in mine),
        from_camera=photo.device == "camera",
    )
    return render_template("photo.html", ctx=ctx)
