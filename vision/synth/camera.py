"""A pinhole camera over the table plane (z = 0, z up), tilted from straight down, with optional roll."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np


@dataclass(frozen=True)
class Camera:
    width: int
    height: int
    focal: float  # pixels
    tilt: float  # radians from straight down
    roll: float  # radians about the optical axis
    distance: float  # from the camera to the table point seen at the image centre, in die sides

    @cached_property
    def centre(self) -> np.ndarray:
        return np.array([0.0, -self.distance * math.sin(self.tilt), self.distance * math.cos(self.tilt)])

    @cached_property
    def axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Image right, image down and forward, in world coordinates."""
        s, c = math.sin(self.tilt), math.cos(self.tilt)
        fwd = np.array([0.0, s, -c])
        right = np.array([1.0, 0.0, 0.0])
        down = np.array([0.0, -c, -s])
        cr, sr = math.cos(self.roll), math.sin(self.roll)
        return cr * right + sr * down, -sr * right + cr * down, fwd

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points (N, 3) to pixel coordinates (N, 2) and depth along the optical axis (N,)."""
        r, d, f = self.axes
        p = pts - self.centre
        z = p @ f
        u = self.width / 2 + self.focal * (p @ r) / z
        v = self.height / 2 + self.focal * (p @ d) / z
        return np.stack([u, v], axis=1), z

    def ray_to_plane(self, uv: np.ndarray, z_plane: float = 0.0) -> np.ndarray:
        """Pixels (N, 2) back to points on the horizontal plane z = z_plane (N, 3)."""
        r, d, f = self.axes
        x = (uv[:, 0:1] - self.width / 2) / self.focal
        y = (uv[:, 1:2] - self.height / 2) / self.focal
        dirs = f[None, :] + x * r[None, :] + y * d[None, :]
        c = self.centre
        t = (z_plane - c[2]) / dirs[:, 2]
        return np.asarray(c[None, :] + t[:, None] * dirs)

    def plane_homography(self, z_plane: float = 0.0) -> np.ndarray:
        """3x3 map from table coordinates (x, y, 1) on z = z_plane to pixels."""
        src = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
        pts = np.concatenate([src, np.full((4, 1), z_plane)], axis=1)
        uv, _ = self.project(pts)
        return np.asarray(cv2.getPerspectiveTransform(src.astype(np.float32), uv.astype(np.float32)), np.float64)
