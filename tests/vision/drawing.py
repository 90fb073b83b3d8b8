"""Dice drawn with OpenCV for the tests: a rounded light square with dark pips on a textured table."""

from __future__ import annotations

import math

import cv2
import numpy as np

PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def table(w: int, h: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = np.full((h, w, 3), (70, 110, 150), np.uint8)  # wood-ish brown (BGR)
    grain = (np.sin(np.linspace(0, 40, h))[:, None] * 12 + rng.normal(0, 4, (h, w))).astype(np.float32)
    return np.clip(base.astype(np.float32) + grain[:, :, None], 0, 255).astype(np.uint8)


def draw_die(img: np.ndarray, cx: float, cy: float, side: float, value: int, angle: float = 0.0) -> None:
    """A top view of a white die with black pips, turned by ``angle`` degrees, drawn in place."""
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)

    def at(u: float, v: float) -> tuple[int, int]:
        return round(cx + u * c - v * s), round(cy + u * s + v * c)

    half = side / 2
    corners = np.array([at(-half, -half), at(half, -half), at(half, half), at(-half, half)], np.int32)
    cv2.fillConvexPoly(img, corners + 2, (40, 50, 60), lineType=cv2.LINE_AA)  # a little shadow
    cv2.fillConvexPoly(img, corners, (235, 238, 240), lineType=cv2.LINE_AA)
    cv2.polylines(img, [corners], True, (180, 185, 190), max(1, int(side / 30)), cv2.LINE_AA)
    r = max(1, round(side * 0.09))
    for u, v in PIPS[value]:
        cv2.circle(img, at(u * side * 0.27, v * side * 0.27), r, (25, 25, 25), -1, cv2.LINE_AA)


def scene(values: list[int], w: int = 640, h: int = 480, side: float = 70, seed: int = 0) -> tuple[np.ndarray, list]:
    """Dice in a row across a table; returns the image and each die's (cx, cy)."""
    rng = np.random.default_rng(seed)
    img = table(w, h, seed)
    centres = []
    step = w / (len(values) + 1)
    for k, v in enumerate(values):
        cx, cy = step * (k + 1), h / 2 + rng.uniform(-h / 5, h / 5)
        draw_die(img, cx, cy, side, v, float(rng.uniform(0, 90)))
        centres.append((cx, cy))
    return img, centres
