"""Photo effects applied after the scene is drawn: light, white balance, lens, blur, noise, JPEG.

Only ``fisheye`` moves pixels; it also moves the label points, so boxes stay exact.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np


def light_field(rng: np.random.Generator, w: int, h: int, strength: float, vignette: float) -> np.ndarray:
    """A smooth multiplicative light map: a lamp off to one side, plus lens vignetting (made small, then enlarged)."""
    sw, sh = max(2, w // 8), max(2, h // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx *= w / sw
    yy *= h / sh
    ang = rng.uniform(0, 2 * math.pi)
    ramp = ((xx - w / 2) * math.cos(ang) + (yy - h / 2) * math.sin(ang)) / max(w, h)
    lx, ly = rng.uniform(-0.3, 1.3) * w, rng.uniform(-0.3, 1.3) * h
    spot = np.exp(-((xx - lx) ** 2 + (yy - ly) ** 2) / (2 * (rng.uniform(0.3, 0.9) * max(w, h)) ** 2))
    field = 1 + strength * (ramp * 1.2 + (spot - 0.5) * 0.8)
    if vignette > 0:
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        field *= 1 - vignette * r2
    return np.asarray(cv2.resize(field.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR))


def fisheye_maps(w: int, h: int, k: float) -> tuple[np.ndarray, np.ndarray]:
    """Remap tables for barrel distortion: output radius r maps to source radius r * (1 + k r^2) / (1 + k)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy, R = w / 2, h / 2, math.hypot(w / 2, h / 2)
    x, y = (xx + 0.5 - cx) / R, (yy + 0.5 - cy) / R
    f = (1 + k * (x * x + y * y)) / (1 + k)
    return (cx + x * f * R - 0.5).astype(np.float32), (cy + y * f * R - 0.5).astype(np.float32)


def fisheye_points(pts: np.ndarray, w: int, h: int, k: float) -> np.ndarray:
    """Where source points land after ``fisheye_maps``: inverts r_s = r_d (1 + k r_d^2) / (1 + k) by Newton steps."""
    cx, cy, R = w / 2, h / 2, math.hypot(w / 2, h / 2)
    x, y = (pts[:, 0] - cx) / R, (pts[:, 1] - cy) / R
    rs = np.sqrt(x * x + y * y)
    rd = rs.copy()
    for _ in range(8):
        g = rd * (1 + k * rd * rd) / (1 + k) - rs
        dg = (1 + 3 * k * rd * rd) / (1 + k)
        rd = rd - g / dg
    scale = np.where(rs > 1e-9, rd / np.maximum(rs, 1e-9), 1.0)
    return np.stack([cx + x * scale * R, cy + y * scale * R], axis=1)


def motion_kernel(length: float, angle: float) -> np.ndarray:
    n = max(3, math.ceil(length) | 1)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(
        k,
        (round((c - dx) * 16), round((c - dy) * 16)),
        (round((c + dx) * 16), round((c + dy) * 16)),
        1.0,
        1,
        cv2.LINE_AA,
        4,
    )
    s = k.sum()
    if s <= 0:
        k[c, c] = 1
        s = 1
    return np.asarray(k / s)


def jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:  # pragma: no cover - OpenCV always encodes uint8 BGR
        return img
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))


@functools.lru_cache(maxsize=1)
def _noise_bank() -> np.ndarray:
    """A fixed field of Gaussian noise; scenes take shifted, flipped windows of it (fast and deterministic)."""
    return np.random.default_rng(0x5E45).standard_normal((BANK, BANK, 3), dtype=np.float32)


BANK = 1024


def noise_field(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    bank = _noise_bank()
    if h <= BANK and w <= BANK:
        oy, ox = int(rng.integers(0, BANK - h + 1)), int(rng.integers(0, BANK - w + 1))
        out = bank[oy : oy + h, ox : ox + w]
    else:
        oy, ox = int(rng.integers(0, BANK)), int(rng.integers(0, BANK))
        out = bank[np.ix_((np.arange(h) + oy) % BANK, (np.arange(w) + ox) % BANK)]
    if rng.random() < 0.5:
        out = out[::-1]
    if rng.random() < 0.5:
        out = out[:, ::-1]
    return out


def sensor_noise(rng: np.random.Generator, img: np.ndarray, sigma: float) -> np.ndarray:
    """Noise stronger in the dark, partly grainy (full resolution) and partly blotchy (half resolution)."""
    h, w = img.shape[:2]
    noise = cv2.resize(noise_field(rng, max(1, h // 2), max(1, w // 2)), (w, h), interpolation=cv2.INTER_LINEAR)
    np.add(noise, noise_field(rng, h, w), out=noise)
    # img + 0.5 sigma noise (1.2 - 0.6 img), in three passes without temporaries
    dark = cv2.multiply(noise, img)
    out = cv2.scaleAdd(noise, 0.6 * sigma, img)
    return np.asarray(cv2.scaleAdd(dark, -0.3 * sigma, out))
