"""Procedural table tops (wood, felt, paper, cloth, trays, tiles...) drawn in table coordinates.

Textures are made flat in a raster whose unit is the die side, then warped through the camera, so grain, grid lines
and tiles shrink with distance like in a photo. Nothing is downloaded.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.synth.camera import Camera
from vision.synth.style import BGR, TRAIN_FONTS, sample_hue

MAX_RASTER = 1024
MAX_AREA = 0.8  # raster pixels per image pixel, at most


@dataclass
class Table:
    image: np.ndarray  # float32 BGR 0..1, camera view of the table
    allowed: np.ndarray | None = None  # polygon (N, 2) in table coordinates where dice may lie (trays)
    keep_out: list[tuple[float, float, float]] = field(default_factory=list)  # discs (x, y, r) dice must avoid


def _noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """Smooth value noise in 0..1 with features about ``cell`` raster pixels wide."""
    h, w = shape
    sh, sw = max(2, int(h / max(cell, 1e-3)) + 2), max(2, int(w / max(cell, 1e-3)) + 2)
    small = rng.random((sh, sw), dtype=np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _fbm(rng: np.random.Generator, shape: tuple[int, int], cell: float, octaves: int = 4) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    for _ in range(octaves):
        out += amp * _noise(rng, shape, cell)
        total += amp
        amp *= 0.5
        cell /= 2
        if cell < 1:
            break
    return out / total


def _hsv(h: float, s: float, v: float) -> np.ndarray:
    """A BGR colour in 0..1 from OpenCV-style hue (0..180), saturation and value in 0..1."""
    px = np.array([[[h, s * 255, v * 255]]], np.float32).astype(np.uint8)
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0], np.float32) / 255.0


def _mix(p: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> np.ndarray:
    p3 = cv2.merge([p, p, p])
    p3 *= (c1 - c0).astype(np.float32)
    p3 += c0.astype(np.float32)
    return np.asarray(p3)


def _bgr(c: tuple[int, int, int]) -> np.ndarray:
    return np.array(c, np.float32) / 255.0


WOOD_TRAIN = (
    ((150, 190, 220), (110, 150, 190)),
    ((100, 150, 200), (60, 100, 150)),
    ((60, 90, 130), (30, 50, 80)),
    ((170, 205, 230), (130, 175, 210)),
)
WOOD_TEST = (
    ((40, 55, 80), (20, 30, 45)),
    ((120, 125, 130), (85, 90, 95)),
    ((50, 70, 140), (30, 40, 95)),
    ((30, 40, 50), (15, 20, 28)),
)


def _wood(
    rng: np.random.Generator, shape: tuple[int, int], u: float, palettes: tuple[tuple[BGR, BGR], ...]
) -> np.ndarray:
    h, w = shape
    c0, c1 = (_bgr(c) for c in palettes[int(rng.integers(0, len(palettes)))])
    c0 = c0 * rng.uniform(0.9, 1.1)
    yy = np.arange(h, dtype=np.float32)[:, None] / u
    # Figure: the growth rings wander; grain: thin dark lines along them; streaks: fibres along the board.
    warp = _fbm(rng, shape, u * rng.uniform(2, 6), 3) * rng.uniform(0.3, 1.6)
    period = rng.uniform(0.06, 0.35)
    t = (yy + warp) / period
    lines = 1 - np.abs(np.sin(math.pi * t)) ** rng.uniform(0.15, 0.6)
    bands = 0.5 + 0.5 * np.sin(2 * math.pi * t / rng.uniform(3, 9))
    streak = cv2.resize(
        rng.random((max(2, h // 2), max(2, int(w / (u * 2)) + 2)), dtype=np.float32),
        (w, h),
        interpolation=cv2.INTER_LINEAR,
    )
    p = 0.45 * lines + 0.25 * bands + 0.2 * streak + 0.1 * _noise(rng, shape, u * 0.5)
    p = p * rng.uniform(0.35, 1.0)  # pale boards barely show their grain
    img = _mix(np.clip(p, 0, 1), c0, c1)
    if rng.random() < 0.5:  # planks
        plank = rng.uniform(1.5, 5) * u
        seams = (np.arange(h)[:, None] % int(max(plank, 4))) < max(1, u * 0.03)
        img = np.where(seams[..., None], img * 0.55, img)
    return img


def _felt(rng: np.random.Generator, shape: tuple[int, int], u: float, split: str) -> np.ndarray:
    hue = sample_hue(rng, split)
    base = _hsv(hue, rng.uniform(0.35, 0.85), rng.uniform(0.2, 0.65))
    p = 0.85 + 0.15 * _noise(rng, shape, u * 3) + 0.08 * (_noise(rng, shape, max(1.0, u * 0.04)) - 0.5)
    return base[None, None, :] * p[..., None]


def _paper(rng: np.random.Generator, shape: tuple[int, int], u: float, grid: bool) -> np.ndarray:
    tint = _bgr((int(rng.integers(225, 255)), int(rng.integers(230, 255)), int(rng.integers(235, 256))))
    p = 0.93 + 0.05 * _noise(rng, shape, u * 4) + 0.03 * (_noise(rng, shape, max(1.0, u * 0.03)) - 0.5)
    img = tint[None, None, :] * p[..., None]
    if grid:
        h, w = shape
        step = rng.uniform(0.15, 0.5) * u
        line = _bgr(((200, 150, 100), (150, 150, 150), (150, 190, 150), (120, 120, 220))[int(rng.integers(0, 4))])
        thick = max(1.0, u * rng.uniform(0.008, 0.02))
        yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
        on = ((yy % step) < thick) | ((xx % step) < thick if rng.random() < 0.8 else False)
        img = np.where(on[..., None], img * 0.4 + line * 0.6, img)
    return img


def _desk(rng: np.random.Generator, shape: tuple[int, int], u: float) -> np.ndarray:
    """A plain office desk or laminate top: nearly uniform, light, with a faint pattern."""
    grey = rng.uniform(0.55, 0.92)
    tint = np.array([grey * rng.uniform(0.92, 1.05), grey, grey * rng.uniform(0.95, 1.1)], np.float32)
    p = 0.95 + 0.06 * _noise(rng, shape, u * rng.uniform(2, 8)) + 0.025 * (_noise(rng, shape, max(1.0, u * 0.02)) - 0.5)
    if rng.random() < 0.4:  # laminate imitating wood, very faint
        streaks = cv2.resize(_noise(rng, (shape[0], max(2, shape[1] // 30)), 2.0), (shape[1], shape[0]))
        p = p + 0.04 * (streaks - 0.5)
    return np.asarray(np.clip(p, 0, 1.2)[..., None] * tint[None, None, :])


def _cloth(rng: np.random.Generator, shape: tuple[int, int], u: float, split: str) -> np.ndarray:
    h, w = shape
    hue = sample_hue(rng, split)
    base = _hsv(hue, rng.uniform(0.2, 0.8), rng.uniform(0.3, 0.85))
    period = max(2.0, u * rng.uniform(0.03, 0.08))
    yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    weave = 0.5 + 0.25 * np.sin(2 * math.pi * xx / period) * np.sin(2 * math.pi * yy / period)
    p = 0.75 + 0.2 * weave + 0.15 * _noise(rng, shape, u * 2)
    folds = _noise(rng, shape, u * rng.uniform(2, 6))
    return np.asarray(base[None, None, :] * (p * (0.8 + 0.3 * folds))[..., None])


def _noise_table(rng: np.random.Generator, shape: tuple[int, int], u: float, split: str) -> np.ndarray:
    c0 = _hsv(sample_hue(rng, split), rng.uniform(0, 0.7), rng.uniform(0.2, 0.9))
    c1 = _hsv(sample_hue(rng, split), rng.uniform(0, 0.7), rng.uniform(0.2, 0.9))
    return _mix(_fbm(rng, shape, u * rng.uniform(0.3, 3)), c0, c1)


def _carpet(rng: np.random.Generator, shape: tuple[int, int], u: float, split: str) -> np.ndarray:
    h, w = shape
    cell = max(1.0, u * rng.uniform(0.03, 0.08))
    sh, sw = int(h / cell) + 2, int(w / cell) + 2
    palette = np.stack([_hsv(sample_hue(rng, split), rng.uniform(0.2, 0.8), rng.uniform(0.25, 0.8)) for _ in range(4)])
    idx = rng.integers(0, 4, (sh, sw))
    small = palette[idx].astype(np.float32)
    img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return img * (0.8 + 0.3 * _noise(rng, shape, u * 2))[..., None]


def _tiles(rng: np.random.Generator, shape: tuple[int, int], u: float, split: str) -> np.ndarray:
    h, w = shape
    size = rng.uniform(1.5, 5) * u
    base = _hsv(sample_hue(rng, split), rng.uniform(0, 0.5), rng.uniform(0.4, 0.95))
    grout = base * rng.uniform(0.4, 0.7)
    nty, ntx = int(h / size) + 2, int(w / size) + 2
    var = 1 + (rng.random((nty, ntx), dtype=np.float32) - 0.5) * 0.12
    yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    ty, tx = (yy // size).astype(np.int32), (xx // size).astype(np.int32)
    img = base[None, None, :] * var[ty, tx][..., None] * (0.95 + 0.08 * _noise(rng, shape, u))[..., None]
    gw = max(1.0, u * rng.uniform(0.04, 0.12))
    on = ((yy % size) < gw) | ((xx % size) < gw)
    return np.where(on[..., None], grout[None, None, :], img)


def _marble(rng: np.random.Generator, shape: tuple[int, int], u: float, split: str) -> np.ndarray:
    h, w = shape
    c0 = _hsv(sample_hue(rng, split), rng.uniform(0, 0.12), rng.uniform(0.8, 0.97))
    c1 = _hsv(sample_hue(rng, split), rng.uniform(0, 0.3), rng.uniform(0.25, 0.6))
    xx = np.arange(w, dtype=np.float32)[None, :] / u
    yy = np.arange(h, dtype=np.float32)[:, None] / u
    p = 0.25 * _fbm(rng, shape, u * rng.uniform(2, 5), 3)
    for _ in range(int(rng.integers(1, 3))):
        ang = rng.uniform(0, math.pi)
        t = (xx * math.cos(ang) + yy * math.sin(ang)) * rng.uniform(0.2, 0.6)
        t = t + _fbm(rng, shape, u * rng.uniform(1, 3), 4) * rng.uniform(4, 9)
        p = p + rng.uniform(0.4, 0.9) * np.exp(-np.abs(np.sin(t)) / rng.uniform(0.03, 0.12))
    return _mix(np.clip(p, 0, 1).astype(np.float32), c0, c1)


def _gingham(rng: np.random.Generator, shape: tuple[int, int], u: float, split: str) -> np.ndarray:
    h, w = shape
    col = _hsv(sample_hue(rng, split), rng.uniform(0.5, 0.9), rng.uniform(0.4, 0.8))
    white = _bgr((235, 240, 245))
    step = rng.uniform(0.5, 1.5) * u
    yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    a = ((xx % (2 * step)) < step).astype(np.float32)
    b = ((yy % (2 * step)) < step).astype(np.float32)
    p = 0.5 * a + 0.5 * b
    img = _mix(p, white, col)
    return img * (0.9 + 0.15 * _noise(rng, shape, u * 3))[..., None]


def _concrete(rng: np.random.Generator, shape: tuple[int, int], u: float) -> np.ndarray:
    v = rng.uniform(0.35, 0.75)
    p = v * (0.85 + 0.25 * _fbm(rng, shape, u * 2)) + 0.08 * (_noise(rng, shape, max(1.0, u * 0.03)) - 0.5)
    pores = _noise(rng, shape, max(1.0, u * 0.05)) > 0.93
    p = np.where(pores, p * 0.6, p)
    tint = _bgr((int(rng.integers(200, 256)), int(rng.integers(200, 256)), int(rng.integers(200, 256))))
    return np.asarray(p[..., None] * tint[None, None, :])


_LUMA = np.array([0.114, 0.587, 0.299], np.float32)  # BGR


def _dots(rng: np.random.Generator, shape: tuple[int, int], u: float, split: str) -> np.ndarray:
    """Polka-dot or speckled cloth: dots the size of pips with no die around them, which a reader must not count."""
    h, w = shape
    base = _hsv(sample_hue(rng, split), rng.uniform(0, 0.8), rng.uniform(0.15, 0.95))
    for _ in range(20):  # dots that stand out in grey as pips do, a quarter of the scale lighter or darker
        ink = _hsv(sample_hue(rng, split), rng.uniform(0, 0.8), rng.uniform(0.0, 1.0))
        if abs(float(ink @ _LUMA) - float(base @ _LUMA)) >= 0.25:
            break
    else:
        ink = np.full(3, 0.0 if float(base @ _LUMA) > 0.5 else 1.0, np.float32)
    r_mean = max(1.0, u * rng.uniform(0.04, 0.2))
    step = r_mean * rng.uniform(2.5, 6)
    yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    rows = (yy // step).astype(np.int32)
    if rng.random() < 0.5:  # a printed pattern: rows of dots, every other row shifted half a step
        xs = xx + (rows % 2) * (step / 2)
        cols = (xs // step).astype(np.int32)
        dx, dy = xs - (cols + 0.5) * step, yy - (rows + 0.5) * step
        r = np.full((1, 1), r_mean, np.float32)
    else:  # speckles scattered at random, one to a cell of a grid, each its own size
        cols = (xx // step).astype(np.int32)
        nr, nc = int(h // step) + 2, int(w // step) + 2
        rad = (r_mean * rng.uniform(0.6, 1.3, (nr, nc))).astype(np.float32)
        room = np.maximum(step / 2 - rad, 0)
        ox = (rng.uniform(-1, 1, (nr, nc)) * room).astype(np.float32)
        oy = (rng.uniform(-1, 1, (nr, nc)) * room).astype(np.float32)
        dx = xx - (cols + 0.5) * step - ox[rows, cols]
        dy = yy - (rows + 0.5) * step - oy[rows, cols]
        r = rad[rows, cols]
    p = np.clip(r - np.sqrt(dx * dx + dy * dy) + 0.5, 0, 1).astype(np.float32)  # antialiased edge
    return _mix(p, base, ink) * (0.9 + 0.15 * _noise(rng, shape, u * 3))[..., None]


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz"
# the train split's Hershey fonts only: no train table shows a test die's lettering
_HERSHEY = tuple(int(f) for family, f in TRAIN_FONTS if family == "hershey")


def _newsprint(rng: np.random.Generator, shape: tuple[int, int], u: float) -> np.ndarray:
    """A newspaper or magazine under the dice: rows of letters and digits, a few headlines as big as a die's face,
    the way court letters and a 9 or 10 look on a poker die."""
    h, w = shape
    paper = np.array([int(rng.integers(200, 250)), int(rng.integers(205, 250)), int(rng.integers(205, 252))], np.uint8)
    img = np.ascontiguousarray(np.broadcast_to(paper, (h, w, 3)))  # cv2.putText draws on 8 bit images only
    ink = (int(rng.integers(10, 80)),) * 3
    y = 0.0
    while y < h:
        big = rng.random() < 0.15
        px = u * (rng.uniform(0.35, 0.9) if big else rng.uniform(0.08, 0.3))
        font = _HERSHEY[int(rng.integers(0, len(_HERSHEY)))]
        scale = px / 22.0  # Hershey capitals are about 22 px high at scale 1
        thick = max(1, round(px * (0.14 if big else 0.09)))
        y += px * rng.uniform(1.3, 1.8)
        x = float(rng.uniform(-px, px))
        while x < w:
            word = "".join(_LETTERS[int(k)] for k in rng.integers(0, len(_LETTERS), int(rng.integers(1, 9))))
            cv2.putText(img, word, (round(x), round(y)), font, scale, ink, thick, cv2.LINE_AA)
            x += px * (0.75 * len(word) + rng.uniform(0.5, 1.2))
            if x > w or y > h:
                break
    return (img.astype(np.float32) / 255.0) * (0.92 + 0.1 * _noise(rng, shape, u * 4))[..., None]


def _strokes(rng: np.random.Generator, shape: tuple[int, int], u: float, split: str) -> np.ndarray:
    """Pen strokes, doodles and scratches on a plain top: lines and loops that are no die's outline."""
    h, w = shape
    base = _hsv(sample_hue(rng, split), rng.uniform(0, 0.6), rng.uniform(0.3, 0.97))
    img = np.ascontiguousarray(np.broadcast_to(np.round(base * 255).astype(np.uint8), (h, w, 3)))
    dark = rng.random() < 0.7
    for _ in range(int(min(h * w / u**2, 600) * rng.uniform(0.3, 1.2))):
        ink = base * rng.uniform(0.1, 0.5) if dark else np.minimum(base + rng.uniform(0.3, 0.6), 1.0)
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        heading, turn = rng.uniform(0, 2 * math.pi), rng.uniform(-0.6, 0.6)
        step = u * rng.uniform(0.05, 0.15)
        pts = []
        for _ in range(int(rng.integers(4, 30))):
            pts.append((x, y))
            heading += turn + rng.normal(0, 0.4)
            x, y = x + step * math.cos(heading), y + step * math.sin(heading)
        thick = max(1, round(u * rng.uniform(0.01, 0.06)))
        poly = np.round(np.array(pts)).astype(np.int32)
        cv2.polylines(img, [poly], False, tuple(round(float(c) * 255) for c in ink), thick, cv2.LINE_AA)
    return (img.astype(np.float32) / 255.0) * (0.92 + 0.12 * _noise(rng, shape, u * 3))[..., None]


def _tartan(rng: np.random.Generator, shape: tuple[int, int], u: float, split: str) -> np.ndarray:
    """Plaid or striped cloth: bands of several widths and colours, some as wide as a die, crossing like woven
    threads, so that blocks of a die's size and contrast lie under and around the dice."""
    h, w = shape
    colours = []
    for _ in range(int(rng.integers(2, 5))):
        colours.append(_hsv(sample_hue(rng, split), rng.uniform(0.2, 0.9), rng.uniform(0.1, 0.95)))
    if rng.random() < 0.5:  # a light or dark ground thread, as most plaids have
        colours[0] = np.full(3, rng.choice([rng.uniform(0.05, 0.2), rng.uniform(0.8, 0.97)]), np.float32)
    # one sett (the repeat): bands from a hair line to a die and a half wide, mirrored as woven setts are
    widths = u * np.exp(rng.uniform(np.log(0.06), np.log(1.5), int(rng.integers(3, 8))))
    idx = rng.integers(0, len(colours), len(widths))
    widths, idx = np.r_[widths, widths[::-1]], np.r_[idx, idx[::-1]]
    bounds = np.cumsum(widths)

    def bands(n: int) -> np.ndarray:
        pos = np.arange(n, dtype=np.float32) % bounds[-1]
        out: np.ndarray = idx[np.searchsorted(bounds, pos, side="right").clip(0, len(idx) - 1)]
        return out

    table = np.stack(colours).astype(np.float32)
    warp = table[bands(w)][None, :, :]
    if rng.random() < 0.25:  # stripes only
        img = np.broadcast_to(warp, (h, w, 3)).astype(np.float32)
    else:  # warp and weft: each shows half the time along a fine twill diagonal, so their crossings mix
        weft = table[bands(h)][:, None, :]
        thread = max(1.0, u * rng.uniform(0.02, 0.06))
        yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
        twill = (((xx + yy) // thread) % 2)[..., None].astype(np.float32)
        mix = 0.5 + 0.35 * (twill - 0.5)
        img = mix * warp + (1 - mix) * weft
    return np.asarray(img * (0.9 + 0.15 * _noise(rng, shape, u * 3))[..., None], np.float32)


def _tray(
    view: float,
    rng: np.random.Generator,
    shape: tuple[int, int],
    u: float,
    split: str,
    round_: bool,
    to_table: np.ndarray,
    centre_rc: tuple[float, float],
) -> tuple[np.ndarray, np.ndarray]:
    """A dice tray: felt floor inside a leather rim, on another surface. Returns image and floor polygon (table)."""
    _h, _w = shape
    outside = _carpet(rng, shape, u, split) if rng.random() < 0.5 else _wood(rng, shape, u, WOOD_TRAIN)
    img = outside
    cy, cx = centre_rc
    radius = rng.uniform(0.32, 0.55) * view * u
    n = 64 if round_ else 6
    phase = rng.uniform(0, math.pi)
    ang = phase + np.arange(n) * 2 * math.pi / n
    stretch = rng.uniform(0.8, 1.25)
    outer = np.stack([cx + radius * stretch * np.cos(ang), cy + radius * np.sin(ang)], axis=1)
    rim = rng.uniform(0.6, 1.2) * u
    inner = np.stack([cx + (radius - rim) * stretch * np.cos(ang), cy + (radius - rim) * np.sin(ang)], axis=1)
    leather = _hsv(sample_hue(rng, split), rng.uniform(0.3, 0.8), rng.uniform(0.15, 0.5))
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(outer * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    m = (mask.astype(np.float32) / 255)[..., None]
    rim_tex = leather[None, None, :] * (0.8 + 0.3 * _noise(rng, shape, u * 0.7))[..., None]
    img = img * (1 - m) + rim_tex * m
    floor = _felt(rng, shape, u, split)
    mask[:] = 0
    cv2.fillPoly(mask, [np.round(inner * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    m = (mask.astype(np.float32) / 255)[..., None]
    wall = max(0.5, u * rng.uniform(0.05, 0.2))  # the rim's wall shades the floor along its foot
    soft = (cv2.GaussianBlur(mask, (0, 0), wall).astype(np.float32) / 255)[..., None]
    floor = floor * (1 - rng.uniform(0.3, 0.7) * (1 - soft))
    img = img * (1 - m) + floor * m
    keep = radius - rim - 2 * wall
    safe = np.stack([cx + keep * stretch * np.cos(ang), cy + keep * np.sin(ang)], axis=1)
    return img, cv2.perspectiveTransform(safe[None].astype(np.float64), to_table)[0]


SHEET_WORDS = ("9", "10", "J", "Q", "K", "A", "B", "D", "R", "V", "1", "2", "3", "4", "5", "6", "Anna", "Ben",
               "Kai", "Jo", "x", "-", "+", "25", "40", "Full", "Poker", "Str", "12", "30", "=")  # fmt: skip


def _score_sheet(rng: np.random.Generator, img: np.ndarray, cx: float, cy: float, u: float) -> None:
    h, w = img.shape[:2]
    sw, sh = rng.uniform(3, 6) * u, rng.uniform(4, 8) * u
    x0, y0 = int(max(0, cx - sw / 2)), int(max(0, cy - sh / 2))
    x1, y1 = int(min(w, cx + sw / 2)), int(min(h, cy + sh / 2))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return
    paper = np.array([rng.integers(225, 250), rng.integers(235, 252), rng.integers(240, 256)], np.uint8)
    sheet = np.empty((y1 - y0, x1 - x0, 3), np.uint8)  # OpenCV writes text on 8-bit pictures only
    sheet[:] = paper
    ink = ((20, 20, 20), (140, 60, 30), (40, 40, 170))[int(rng.integers(0, 3))]
    rule = tuple(int(v * 0.75) for v in paper)
    fonts = (cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN)
    row = rng.uniform(0.3, 0.6) * u
    y = row
    while y < sheet.shape[0]:
        cv2.line(sheet, (0, round(y)), (sheet.shape[1] - 1, round(y)), rule, 1, cv2.LINE_AA)
        x = rng.uniform(0.1, 0.4) * u
        while x < sheet.shape[1] - row and rng.random() < 0.85:
            word = SHEET_WORDS[int(rng.integers(0, len(SHEET_WORDS)))]
            font = fonts[int(rng.integers(0, len(fonts)))]
            scale = cv2.getFontScaleFromHeight(font, max(3, int(row * 0.6)), 1)
            thick = max(1, int(row / 12))
            cv2.putText(sheet, word, (round(x), round(y - row * 0.2)), font, scale, ink, thick, cv2.LINE_AA)
            x += cv2.getTextSize(word, font, scale, thick)[0][0] + rng.uniform(0.2, 1.0) * u
        y += row
    img[y0:y1, x0:x1] = sheet.astype(np.float32) / 255


def _distractors(
    rng: np.random.Generator, img: np.ndarray, u: float, to_table: np.ndarray, avoid_rc: tuple[float, float, float]
) -> list[tuple[float, float, float]]:
    """Coins, pencils, cards and a dark device edge lying flat on the table; returns discs for dice to avoid."""
    h, w = img.shape[:2]
    keep: list[tuple[float, float, float]] = []
    for _ in range(int(rng.integers(1, 4))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if math.hypot(cx - avoid_rc[1], cy - avoid_rc[0]) < avoid_rc[2]:
            continue
        what = rng.random()
        if what < 0.35:  # coin
            r = rng.uniform(0.4, 0.7) * u
            col = _bgr(((60, 140, 190), (160, 160, 165), (50, 100, 150))[int(rng.integers(0, 3))])
            cv2.circle(img, (round(cx * 16), round(cy * 16)), round(r * 16), col.tolist(), -1, cv2.LINE_AA, 4)
            ring = max(1, round(u * 0.03))
            cv2.circle(
                img, (round(cx * 16), round(cy * 16)), round(r * 0.8 * 16), (col * 0.8).tolist(), ring, cv2.LINE_AA, 4
            )
            rad = r
        elif what < 0.42:  # the dice cup (Becher) standing upside down: a dark ring with a lighter rim
            r = rng.uniform(1.4, 2.2) * u
            body = _hsv(float(rng.uniform(0, 180)), rng.uniform(0.2, 0.7), rng.uniform(0.1, 0.35))
            c16 = (round(cx * 16), round(cy * 16))
            cv2.circle(img, c16, round(r * 16), (body * 0.6).tolist(), -1, cv2.LINE_AA, 4)
            cv2.circle(img, c16, round(r * 0.93 * 16), (body * 1.4).tolist(), max(1, round(u * 0.08)), cv2.LINE_AA, 4)
            cv2.circle(img, c16, round(r * 0.7 * 16), body.tolist(), -1, cv2.LINE_AA, 4)
            rad = r
        elif what < 0.55:  # a score sheet with ruled lines and handwriting-like text: letters that are no dice
            _score_sheet(rng, img, cx, cy, u)
            continue  # dice may lie on paper
        else:
            length = rng.uniform(2, 7) * u
            width = rng.uniform(0.15, 0.35) * u if what < 0.75 else rng.uniform(1.5, 3) * u
            ang = rng.uniform(0, math.pi)
            ca, sa = math.cos(ang), math.sin(ang)
            pts = np.array(
                [[-length / 2, -width / 2], [length / 2, -width / 2], [length / 2, width / 2], [-length / 2, width / 2]]
            ) @ np.array([[ca, sa], [-sa, ca]]) + [cx, cy]
            if what < 0.75:
                col = _bgr(((40, 180, 230), (180, 80, 40), (40, 40, 40), (60, 60, 200))[int(rng.integers(0, 4))])
            elif what < 0.9:
                col = _bgr((235, 238, 240))
            else:
                col = _bgr((45, 45, 50))
            cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], col.tolist(), cv2.LINE_AA, 4)
            rad = math.hypot(length, width) / 2
        tab = cv2.perspectiveTransform(np.array([[[cx, cy]]], np.float64), to_table)[0, 0]
        keep.append((float(tab[0]), float(tab[1]), rad / u + 0.8))
    return keep


Maker = Callable[[np.random.Generator, tuple[int, int], float, str], np.ndarray]
# the tables drawn flat from (rng, raster shape, raster px per die side, split); trays also say where dice may lie
FLAT_TABLES: dict[str, Maker] = {
    "wood": lambda rng, shape, u, split: _wood(rng, shape, u, WOOD_TRAIN),
    "wood_dark": lambda rng, shape, u, split: _wood(rng, shape, u, WOOD_TEST),
    "desk": lambda rng, shape, u, split: _desk(rng, shape, u),
    "felt": _felt,
    "paper": lambda rng, shape, u, split: _paper(rng, shape, u, False),
    "grid_paper": lambda rng, shape, u, split: _paper(rng, shape, u, True),
    "cloth": _cloth,
    "noise": _noise_table,
    "carpet": _carpet,
    "tiles": _tiles,
    "marble": _marble,
    "gingham": _gingham,
    "concrete": lambda rng, shape, u, split: _concrete(rng, shape, u),
    "dots": _dots,
    "newsprint": lambda rng, shape, u, split: _newsprint(rng, shape, u),
    "strokes": _strokes,
    "tartan": _tartan,
}


def make_table(
    rng: np.random.Generator, kind: str, split: str, cam: Camera, distractors: bool, board: bool = False
) -> Table:
    """The table as the camera sees it (float32 BGR), plus where dice may lie. ``board``: a flat table strewn with a
    board game's number tokens and pieces (issue 59: dice among them; drawn by ``vision.synth.phantoms``), which the
    dice may lie on or beside."""
    W, H = cam.width, cam.height
    corners = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float64)
    tab = cam.ray_to_plane(corners)[:, :2]
    theta = rng.uniform(0, math.pi)
    ct, st = math.cos(theta), math.sin(theta)
    rot = np.array([[ct, -st], [st, ct]])  # texture frame -> table
    tex = tab @ rot  # table -> texture frame (rot is orthonormal)
    x0, y0 = (float(v) for v in tex.min(axis=0))
    x1, y1 = (float(v) for v in tex.max(axis=0))
    near = float(np.linalg.norm(tab[2] - tab[3]))
    u = W / max(near, 1e-6)  # raster pixels per die side: the density at the near edge
    u = min(u, MAX_RASTER / (x1 - x0), MAX_RASTER / (y1 - y0), math.sqrt(MAX_AREA * W * H / ((x1 - x0) * (y1 - y0))))
    u = max(u, 2.0)
    w, h = max(2, math.ceil((x1 - x0) * u)), max(2, math.ceil((y1 - y0) * u))
    # raster (col, row) -> texture frame (x, y) -> table (x, y)
    a = np.array([[1 / u, 0, x0], [0, -1 / u, y1], [0, 0, 1]])
    r3 = np.eye(3)
    r3[:2, :2] = rot
    to_table = r3 @ a
    to_image = cam.plane_homography() @ to_table
    shape = (h, w)
    allowed = None
    centre = cam.ray_to_plane(np.array([[W / 2, H / 2]]))[0, :2]
    centre_rc = np.linalg.inv(to_table) @ np.array([centre[0], centre[1], 1.0])
    crc = (float(centre_rc[1] / centre_rc[2]), float(centre_rc[0] / centre_rc[2]))
    if kind in FLAT_TABLES:
        img = FLAT_TABLES[kind](rng, shape, u, split)
    elif kind in ("tray_hex", "tray_round"):
        view = float(np.linalg.norm(tab[1] - tab[0]) + np.linalg.norm(tab[2] - tab[3])) / 2
        img, allowed = _tray(view, rng, shape, u, split, kind == "tray_round", to_table, crc)
    else:
        raise ValueError(f"unknown background {kind!r}")
    img = np.ascontiguousarray(img, dtype=np.float32)
    keep: list[tuple[float, float, float]] = []
    if distractors and allowed is None:
        keep = _distractors(rng, img, u, to_table, (crc[0], crc[1], 2.5 * u))
    if board and allowed is None:
        from vision.synth.phantoms import game_pieces, number_tokens  # it draws on these tables: imported here

        for _ in range(int(rng.integers(2, 5))):  # the raster reaches past the view: a few rows of each
            number_tokens(rng, img, u)
            game_pieces(rng, img, u)
    out = cv2.warpPerspective(img, to_image, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return Table(out, allowed, keep)
