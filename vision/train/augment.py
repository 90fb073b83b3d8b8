"""Photometric and geometric augmentation shared by both trainings (numpy + OpenCV, seeded by the caller's rng).

Heavy on colour: channel shuffles, grey, hue turns and inversion teach the models shape, not the colours of the few
tables and dice in the training photos.
"""

from __future__ import annotations

import cv2
import numpy as np


def colour(img: np.ndarray, rng: np.random.Generator, invert_p: float = 0.0, motion_px: float = 0.0) -> np.ndarray:
    """``motion_px``: the longest motion streak (a shaken phone, a die still rolling), in pixels of ``img``."""
    out = img
    if rng.random() < 0.5:
        out = out[:, :, rng.permutation(3)]
    if rng.random() < 0.3:
        hsv = cv2.cvtColor(np.ascontiguousarray(out), cv2.COLOR_BGR2HSV)
        hsv[:, :, 0] = (hsv[:, :, 0].astype(np.int16) + int(rng.integers(0, 180))) % 180
        if rng.random() < 0.5:
            hsv[:, :, 1] = np.clip(hsv[:, :, 1] * rng.uniform(0.3, 1.5), 0, 255).astype(np.uint8)
        out = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    if rng.random() < 0.25:
        w = rng.dirichlet((1.0, 1.0, 1.0)).astype(np.float32)
        g = out.astype(np.float32) @ w
        out = np.repeat(g[:, :, None], 3, axis=2)
    f: np.ndarray = out.astype(np.float32)
    if rng.random() < 0.8:
        a = rng.uniform(0.55, 1.45)
        b = rng.uniform(-45, 45)
        f = f * a + b + (f.mean() * (1 - a) if rng.random() < 0.5 else 0.0)
    if rng.random() < 0.12:
        # overexposed: a camera metering a dark table blows out white dice, and the pips with them go pale
        f = f * rng.uniform(1.3, 2.0) + rng.uniform(0, 30)
    if rng.random() < 0.3:
        # a lighting gradient across the frame (lamp to one side, shadow)
        h, w_ = f.shape[:2]
        gx, gy = rng.normal(0, 1, 2)
        ramp = (np.linspace(-1, 1, w_)[None, :] * gx + np.linspace(-1, 1, h)[:, None] * gy) * rng.uniform(10, 50)
        f = f + ramp[:, :, None].astype(np.float32)
    f = np.clip(f, 0, 255)
    if rng.random() < 0.3:
        gamma = rng.uniform(0.6, 1.6)
        f = 255.0 * (f / 255.0) ** gamma
    if invert_p and rng.random() < invert_p:
        f = 255.0 - f
    if rng.random() < 0.3:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.4, 1.4))
    if motion_px >= 2 and rng.random() < 0.12:
        f = motion_blur(f, float(rng.uniform(2, motion_px)), float(rng.uniform(0, 180)))
    if rng.random() < 0.3:
        f = f + rng.normal(0, rng.uniform(2, 9), f.shape).astype(np.float32)
    res: np.ndarray = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, enc = cv2.imencode(".jpg", res, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
        dec = cv2.imdecode(enc, cv2.IMREAD_COLOR) if ok else None
        if dec is not None:
            res = np.asarray(dec)
    return res


def motion_blur(img: np.ndarray, length: float, angle_deg: float) -> np.ndarray:
    """A straight streak of ``length`` pixels at ``angle_deg``, as from a camera moved during the exposure."""
    k = int(np.ceil(length)) | 1
    kernel = np.zeros((k, k), np.float32)
    c = k // 2
    a = np.deg2rad(angle_deg)
    dx, dy = np.cos(a) * (length - 1) / 2, np.sin(a) * (length - 1) / 2
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
    kernel /= max(float(kernel.sum()), 1e-6)
    out: np.ndarray = cv2.filter2D(img, -1, kernel, borderType=cv2.BORDER_REPLICATE)
    return out


# photos resized to another aspect (labelling tools export phone photos of 4:3 to 640x640) show dice as oblongs up
# to 4:3; ``--stretch SHARE`` stretches that share of the training items so, in the photo's own axes. Off by default:
# CPU fine-tunes with 0.3 did not read the squeezed photos better (model card, "Stretched photos")
STRETCH_P = 0.0
STRETCH_MAX = 1.4


def similarity(
    cx: float, cy: float, scale: float, angle_deg: float, flip: bool, out: int, aspect: float = 1.0
) -> np.ndarray:
    """2x3 matrix sending (cx, cy) to the centre of an out x out patch, scaled, turned and maybe mirrored; ``aspect``
    first stretches the source x / y by that ratio, keeping areas (and so a die's side as the detector learns it)."""
    a = np.deg2rad(angle_deg)
    c, s = np.cos(a) * scale, np.sin(a) * scale
    m = np.array([[c, -s], [s, c]], dtype=np.float64)
    if flip:
        m = m @ np.array([[-1.0, 0.0], [0.0, 1.0]])
    if aspect != 1.0:
        m = m @ np.diag([aspect**0.5, aspect**-0.5])
    t = np.array([out / 2, out / 2]) - m @ np.array([cx, cy])
    return np.hstack([m, t[:, None]]).astype(np.float32)


def stretch_aspect(rng: np.random.Generator) -> float:
    """The x / y ratio of one training item: 1 mostly, else log-uniform within STRETCH_MAX either way. Off, it draws
    nothing, so a run without ``--stretch`` augments exactly as before the option."""
    if STRETCH_P <= 0.0:
        return 1.0
    u = rng.random(2)
    return float(STRETCH_MAX ** (2 * u[1] - 1)) if u[0] < STRETCH_P else 1.0


def perspective_jitter(m: np.ndarray, out: int, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Affine 2x3 to a 3x3 homography with a little random tilt, as from a camera up to ~40 degrees oblique."""
    h = np.vstack([m, [0, 0, 1]]).astype(np.float64)
    src = np.array([[0, 0], [out, 0], [out, out], [0, out]], dtype=np.float32)
    dst = src + rng.uniform(-amount, amount, (4, 2)).astype(np.float32) * out
    p = np.asarray(cv2.getPerspectiveTransform(src, dst), dtype=np.float64)
    res: np.ndarray = (p @ h).astype(np.float64)
    return res


# the renders draw no die under ~30 px, yet far cameras (rune55-small-far: a quarter of its dice under 22 px, most of
# them blurred) see 9-28 px ones: ``--small SHARE`` shrinks that share of the training crops' dice to such a side
# first, defocused and JPEG-coded at that size as a camera would, so the classifier learns faces from a few pixels.
# Off by default: a run without it draws exactly as before the option
SMALL_P = 0.0
SMALL_SIDE = (9.0, 28.0)


def far_die(
    patch: np.ndarray, side: float, patch_die: float, rng: np.random.Generator
) -> tuple[np.ndarray, float] | None:
    """For a SMALL_P share of the draws, the patch (its die ``patch_die`` px, ``side`` px in its own photo) as a
    camera seeing that die at a side drawn from SMALL_SIDE would, never larger than it was, and that side: resampled,
    maybe defocused and JPEG-coded at its own few pixels. None for the rest, drawing nothing when SMALL_P is 0."""
    if SMALL_P <= 0.0 or rng.random() >= SMALL_P:
        return None
    target = min(float(rng.uniform(*SMALL_SIDE)), side)
    n = max(8, round(patch.shape[0] * target / patch_die))
    small = cv2.resize(patch, (n, n), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.6:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.5:
        ok, enc = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(20, 85))])
        dec = cv2.imdecode(enc, cv2.IMREAD_UNCHANGED) if ok else None
        if dec is not None:
            small = np.asarray(dec).reshape(small.shape)
    return small, n * patch_die / patch.shape[0]
