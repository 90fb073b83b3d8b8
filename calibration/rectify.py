"""From a camera image of the mat to a top view of known scale, and which zone a point lies in.

The homography maps image pixels to mat millimetres; the top view scales that by ``px_per_mm``,
so a 16 mm die is always about 16 * px_per_mm pixels wide there, whatever the camera.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.mat import ARUCO_DICT, MatLayout, layout_for_ids

__all__ = [
    "MatFit",
    "TopView",
    "detect_markers",
    "fit_mat",
    "point_in_polygon",
    "zone_of",
]

MIN_MARKERS = 2  # one marker gives an exact but shaky fit; two or more are checked against each other


def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)


def detect_markers(bgr: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id -> its four corners (TL, TR, BR, BL) in image pixels, as float32 (4, 2)."""
    if bgr.ndim not in (2, 3) or bgr.size == 0:
        raise ValueError(f"Expected an image, got an array of shape {bgr.shape}.")
    gray = bgr if bgr.ndim == 2 else cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector().detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): np.asarray(c, dtype=np.float32).reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}


@dataclass(frozen=True)
class MatFit:
    """A mat seen in one image: which paper, which markers, the homography image px -> mat mm, its error."""

    layout: MatLayout
    homography: np.ndarray
    seen: tuple[int, ...]
    error_mm: float

    @property
    def expected(self) -> int:
        return len(self.layout.markers)

    @property
    def covered(self) -> bool:
        return len(self.seen) < self.expected


def fit_mat(markers: Mapping[int, np.ndarray]) -> MatFit | None:
    """Fit the mat to detected markers; None when too few of one paper's markers are seen."""
    layout = layout_for_ids(list(markers))
    if layout is None:
        return None
    ids = sorted(i for i in markers if i in layout.markers)
    if len(ids) < MIN_MARKERS:
        return None
    src = np.concatenate([markers[i] for i in ids]).astype(np.float32)
    dst = np.concatenate([layout.marker_points(i) for i in ids]).astype(np.float32)
    h, _ = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
    if h is None:
        return None
    mapped = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
    error = float(np.sqrt(np.mean(np.sum((mapped - dst) ** 2, axis=1))))
    return MatFit(layout, h.astype(np.float64), tuple(ids), error)


def point_in_polygon(point: Sequence[float], polygon: Sequence[Sequence[float]]) -> bool:
    contour = np.asarray(polygon, dtype=np.float32).reshape(-1, 1, 2)
    return bool(cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), False) >= 0)


def zone_of(point: Sequence[float], zones: Mapping[str, Sequence[Sequence[float]]]) -> str | None:
    """The first zone containing ``point`` (same units as the zones), or None when it lies outside all."""
    for name, polygon in zones.items():
        if point_in_polygon(point, polygon):
            return name
    return None


class TopView:
    """Warps camera images to a top view of the mat at ``px_per_mm``, and maps points both ways."""

    def __init__(self, homography: np.ndarray, size_mm: tuple[float, float], px_per_mm: float = 4.0) -> None:
        h = np.asarray(homography, dtype=np.float64)
        if h.shape != (3, 3) or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
            raise ValueError("A homography is an invertible 3x3 matrix of finite numbers.")
        if not px_per_mm > 0 or size_mm[0] <= 0 or size_mm[1] <= 0:
            raise ValueError(f"Scale and mat size must be positive, not {px_per_mm!r} and {size_mm!r}.")
        self.to_mm = h
        self.px_per_mm = float(px_per_mm)
        self.size_mm = (float(size_mm[0]), float(size_mm[1]))
        scale = np.diag([self.px_per_mm, self.px_per_mm, 1.0])
        self.to_top = scale @ h
        self.size = (round(self.size_mm[0] * self.px_per_mm), round(self.size_mm[1] * self.px_per_mm))

    def warp(self, bgr: np.ndarray) -> np.ndarray:
        return cv2.warpPerspective(bgr, self.to_top, self.size, flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))

    def image_to_mm(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.to_mm).reshape(-1, 2)

    def top_to_mm(self, points: np.ndarray) -> np.ndarray:
        return np.asarray(points, dtype=np.float64).reshape(-1, 2) / self.px_per_mm

    def mm_to_image(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.to_mm)).reshape(-1, 2)
