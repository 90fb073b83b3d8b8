"""Bad conditions say so instead of guessing: too dark, blurred, dice cut by the frame edge, mat half covered.

Each check returns ``Issue`` values (a stable code for programs, a sentence for people). ``blocking``
issues mean a reading of this frame should not be proposed at all (the person enters the throw or
fixes the light); the others make the proposal need a tap (no auto-confirm).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

__all__ = [
    "BLUR_MIN",
    "DARK_MEAN",
    "DIE_CONTRAST",
    "Issue",
    "assess",
    "box_sharpness",
    "brightness",
    "check_light",
    "check_mat",
    "check_sharpness",
    "cut_dice",
    "scene_sharpness",
]

Box = tuple[int, int, int, int]

DARK_MEAN = 20.0  # mean grey level (0..255) below which the picture is too dark to trust
DARK_TOP = 40.0  # ... or when even its brightest parts (99th percentile) stay below this
DIE_CONTRAST = 8.0  # grey-level spread on a die below which its face cannot be made out
BRIGHT_MEAN = 240.0
BLUR_MIN = 0.36  # sharpness of a die patch (mean |Laplacian| / contrast) below which it is blurred
_PATCH = 48


@dataclass(frozen=True)
class Issue:
    code: str  # dark | bright | blurred | cut | mat_covered | mat_moved | blocked | count | outside
    message: str
    blocking: bool = False

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "blocking": self.blocking}


def _gray(bgr: np.ndarray) -> np.ndarray:
    if not isinstance(bgr, np.ndarray) or bgr.size == 0 or bgr.ndim not in (2, 3):
        raise ValueError("Expected a non-empty image array.")
    return bgr if bgr.ndim == 2 else cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)


def brightness(bgr: np.ndarray) -> float:
    return float(np.mean(_gray(bgr)))


def check_light(bgr: np.ndarray, boxes: Sequence[Box] = ()) -> list[Issue]:
    """Too dark: nearly black overall, or the dice too dim to show their faces (a dark table alone is fine)."""
    gray = _gray(bgr)
    mean = float(np.mean(gray))
    dark = mean < DARK_MEAN or float(np.percentile(gray, 99)) < DARK_TOP
    if not dark and boxes:
        h, w = gray.shape
        spreads = [
            float(gray[max(0, y0) : min(h, y1), max(0, x0) : min(w, x1)].std())
            for x0, y0, x1, y1 in boxes
            if min(h, y1) > max(0, y0) and min(w, x1) > max(0, x0)
        ]
        dark = bool(spreads) and float(np.median(spreads)) < DIE_CONTRAST
    if dark:
        return [Issue("dark", "Too dark to read the dice: turn on a light or move the camera.", True)]
    if mean > BRIGHT_MEAN:
        return [Issue("bright", "The picture is washed out: less light or less exposure.", True)]
    return []


def _patch_sharpness(patch: np.ndarray) -> float | None:
    """Mean |Laplacian| over contrast at a fixed patch size, so it depends neither on zoom nor on contrast."""
    if patch.size == 0 or min(patch.shape[:2]) < 4:
        return None
    small = cv2.resize(patch, (_PATCH, _PATCH), interpolation=cv2.INTER_AREA).astype(np.float32)
    contrast = float(small.std())
    if contrast < 8.0:  # a flat patch says nothing about focus
        return None
    lap = cv2.Laplacian(small, cv2.CV_32F, ksize=3)
    return float(np.mean(np.abs(lap))) / contrast


def box_sharpness(bgr: np.ndarray, box: Box) -> float | None:
    gray = _gray(bgr)
    x0, y0, x1, y1 = (int(v) for v in box)
    h, w = gray.shape
    return _patch_sharpness(gray[max(0, y0) : min(h, y1), max(0, x0) : min(w, x1)])


def scene_sharpness(bgr: np.ndarray, tiles: tuple[int, int] = (8, 6)) -> float | None:
    """Sharpness of the most detailed tiles of the frame, for when no die has been found."""
    gray = _gray(bgr)
    h, w = gray.shape
    values = []
    for r in range(tiles[1]):
        for c in range(tiles[0]):
            tile = gray[r * h // tiles[1] : (r + 1) * h // tiles[1], c * w // tiles[0] : (c + 1) * w // tiles[0]]
            s = _patch_sharpness(tile)
            if s is not None:
                values.append(s)
    if not values:
        return None
    return float(np.percentile(values, 90))


def check_sharpness(bgr: np.ndarray, boxes: Sequence[Box] = ()) -> list[Issue]:
    """Blurred when most dice (or, without dice, the most detailed parts of the frame) lack fine detail."""
    if boxes:
        values = [s for s in (box_sharpness(bgr, b) for b in boxes) if s is not None]
        value = float(np.median(values)) if values else None
    else:
        value = scene_sharpness(bgr)
    if value is not None and value < BLUR_MIN:
        return [Issue("blurred", "The picture is blurred: focus the camera or keep it still.", True)]
    return []


def cut_dice(boxes: Sequence[Box], width: int, height: int, margin: int = 2) -> list[int]:
    """Indices of boxes touching the frame edge: those dice may be cut, and their face only partly seen."""
    return [
        i
        for i, (x0, y0, x1, y1) in enumerate(boxes)
        if x0 <= margin or y0 <= margin or x1 >= width - margin or y1 >= height - margin
    ]


def check_mat(seen: int, expected: int) -> list[Issue]:
    """The mat is half covered when at most half of its markers can be seen."""
    if expected and seen * 2 <= expected:
        return [Issue("mat_covered", f"The mat is half covered: {seen} of its {expected} markers are in view.")]
    return []


def assess(bgr: np.ndarray, boxes: Sequence[Box] = ()) -> list[Issue]:
    """Light, focus and dice at the edge for one frame and the dice boxes read in it."""
    issues = check_light(bgr, boxes)
    if not issues:
        issues += check_sharpness(bgr, boxes)
    h, w = bgr.shape[:2]
    cut = cut_dice(boxes, w, h)
    if cut:
        word = "die is" if len(cut) == 1 else "dice are"
        issues.append(Issue("cut", f"{len(cut)} {word} cut by the edge of the picture: move the camera or the dice."))
    return issues
