"""Photos with no dice in them, only what tables have: every die a reader reports on one is a phantom (issue 51).

Two halves, both seeded and reproducible:

* **cut from real photos**: windows of the dice-free parts of the shared photo sets' ``train`` rows (never their test
  or unseen rows), far from every labelled die: the screw holes and clips of trays, felt, wood, paper and the dust
  on them, as real cameras saw them. Split ``test`` takes the rows the training holds back by its hash (``val``),
  ``train`` the others, so a model may learn from one half and be measured on the other;
* **rendered**: a table texture (the renderer's train or test tables) strewn with crumbs, dust and specks, screw
  holes, coins, buttons, rings, paper clips, pens, printed dots and shadows, a board game's number tokens and pieces,
  at a die size the picture does not show.

    from vision.synth.phantoms import phantom_set
    images = phantom_set(200, seed=0, split="test")   # BGR uint8 arrays
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.synth.effects import light_field, sensor_noise
from vision.synth.style import SPLITS, TEST_BACKGROUNDS, TRAIN_BACKGROUNDS
from vision.synth.tables import FLAT_TABLES

PHOTO_SETS = ("webcam-white-dice", "rune55-phone-tray", "rune55-fisheye-webcam", "rune55-small-far")
MIN_WINDOW = 128  # px: a cut smaller than this shows too little of a table to be a photo
CLEAR = 1.0  # a window keeps this many labelled sides (at least) away from every labelled die's edge
SIZES = ((640, 480), (480, 640), (800, 600), (1280, 720))


def _free_windows(shape: tuple[int, int], boxes: list[tuple[float, float, float, float]], rng: np.random.Generator,
                  tries: int = 60) -> tuple[int, int, int, int] | None:
    """The largest of a few random windows that keep clear of every box (grown by CLEAR of its side), or None."""
    h, w = shape
    mask = np.zeros((h, w), np.uint8)
    for x0, y0, x1, y1 in boxes:
        grow = CLEAR * max(x1 - x0, y1 - y0) + 4
        cv2.rectangle(mask, (int(x0 - grow), int(y0 - grow)), (int(x1 + grow), int(y1 + grow)), 1, -1)
    integral = cv2.integral(mask)
    best: tuple[int, int, int, int] | None = None
    for _ in range(tries):
        ww = int(rng.integers(MIN_WINDOW, max(MIN_WINDOW + 1, w + 1)))
        hh = int(np.clip(ww * rng.uniform(0.6, 1.4), MIN_WINDOW, h))
        if ww > w or hh > h:
            continue
        x, y = int(rng.integers(0, w - ww + 1)), int(rng.integers(0, h - hh + 1))
        taken = integral[y + hh, x + ww] - integral[y, x + ww] - integral[y + hh, x] + integral[y, x]
        if taken == 0 and (best is None or ww * hh > (best[2] - best[0]) * (best[3] - best[1])):
            best = (x, y, x + ww, y + hh)
    return best


def photo_cuts(root: Path, count: int, seed: int, split: str) -> list[np.ndarray]:
    """``count`` dice-free windows of the photo sets' train rows (``split`` test: the rows hashed to validation)."""
    from vision.train.data import load_labels

    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    want = "val" if split == "test" else "train"
    by_set = [
        [it for it in load_labels(root / name) if it.split == want and it.image is not None]
        for name in PHOTO_SETS
        if (root / name / "labels.csv").is_file()
    ]
    by_set = [items for items in by_set if items]
    if not by_set:
        return []
    rng = np.random.default_rng([seed, 51, SPLITS.index(split)])
    out: list[np.ndarray] = []
    for k in range(count * 20):  # the sets in turn: crowded photos of one set leave little room, others much
        if len(out) >= count:
            break
        items = by_set[k % len(by_set)]
        it = items[int(rng.integers(0, len(items)))]
        assert it.image is not None
        img = cv2.imread(str(it.image), cv2.IMREAD_COLOR)
        if img is None:
            continue
        win = _free_windows(img.shape[:2], [(b.x0, b.y0, b.x1, b.y1) for b in it.boxes], rng)
        if win is not None:
            x0, y0, x1, y1 = win
            out.append(np.ascontiguousarray(img[y0:y1, x0:x1]))
    return out


Draw = Callable[[np.random.Generator, np.ndarray, float], None]


def _spots(rng: np.random.Generator, img: np.ndarray, u: float, n: tuple[int, int], size: tuple[float, float],
           dark: bool) -> None:
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(*n))):
        r = max(0.6, rng.uniform(*size) * u)
        col = rng.uniform(0.05, 0.3, 3) if dark else rng.uniform(0.75, 1.0, 3)
        axes = (max(1, round(r * 16)), max(1, round(r * rng.uniform(0.5, 1.0) * 16)))
        centre = (round(rng.uniform(0, w) * 16), round(rng.uniform(0, h) * 16))
        cv2.ellipse(img, centre, axes, rng.uniform(0, 180), 0, 360, col.tolist(), -1, cv2.LINE_AA, 4)


def _crumbs(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """Crumbs: pale or brown irregular bits a tenth to a third of a die's side."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(3, 25))):
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.05, 0.17) * u
        k = int(rng.integers(5, 9))
        ang = np.sort(rng.uniform(0, 2 * math.pi, k))
        rad = r * rng.uniform(0.5, 1.2, k)
        pts = np.stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)], 1)
        col = np.array([0.45, 0.62, 0.78]) * rng.uniform(0.5, 1.2) if rng.random() < 0.6 else rng.uniform(0.8, 1, 3)
        cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], np.clip(col, 0, 1).tolist(), cv2.LINE_AA, 4)


def _dust(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """Dust and specks: dark and light dots of a pip's size and smaller."""
    _spots(rng, img, u, (10, 60), (0.01, 0.08), dark=bool(rng.random() < 0.6))


def _screw_holes(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """Screw heads and holes: dark discs with a light rim, often in a row or a grid, as on a tray or a board."""
    h, w = img.shape[:2]
    r = rng.uniform(0.06, 0.25) * u
    step = rng.uniform(1.5, 5) * u
    x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
    ang = rng.uniform(0, math.pi)
    rows = int(rng.integers(1, 3))
    for i in range(int(rng.integers(2, 7))):
        for j in range(rows):
            cx = x0 + i * step * math.cos(ang) - j * step * math.sin(ang)
            cy = y0 + i * step * math.sin(ang) + j * step * math.cos(ang)
            c16 = (round(cx * 16), round(cy * 16))
            cv2.circle(img, c16, round(r * 1.3 * 16), (0.75, 0.75, 0.78), -1, cv2.LINE_AA, 4)
            cv2.circle(img, c16, round(r * 16), (0.08, 0.08, 0.1), -1, cv2.LINE_AA, 4)


def _coins(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """Coins: metal discs of about a die's size with a rim and a relief."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(1, 4))):
        r = rng.uniform(0.35, 0.65) * u
        c16 = (round(rng.uniform(0, w) * 16), round(rng.uniform(0, h) * 16))
        col = np.array(((0.25, 0.55, 0.75), (0.63, 0.63, 0.65), (0.2, 0.4, 0.6))[int(rng.integers(0, 3))])
        cv2.circle(img, c16, round(r * 16), col.tolist(), -1, cv2.LINE_AA, 4)
        cv2.circle(img, c16, round(r * 0.85 * 16), (col * 0.75).tolist(), max(1, round(u * 0.03)), cv2.LINE_AA, 4)
        cv2.circle(img, c16, round(r * 0.3 * 16), (col * 1.25).clip(0, 1).tolist(), -1, cv2.LINE_AA, 4)


def _buttons(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """Buttons: a disc with two or four holes, pips on a round body."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(1, 5))):
        r = rng.uniform(0.2, 0.6) * u
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        col = rng.uniform(0.1, 0.95, 3)
        cv2.circle(img, (round(cx * 16), round(cy * 16)), round(r * 16), col.tolist(), -1, cv2.LINE_AA, 4)
        holes = 2 if rng.random() < 0.4 else 4
        a0 = rng.uniform(0, math.pi)
        for k in range(holes):
            a = a0 + 2 * math.pi * k / holes
            hx, hy = cx + 0.35 * r * math.cos(a), cy + 0.35 * r * math.sin(a)
            cv2.circle(img, (round(hx * 16), round(hy * 16)), max(1, round(0.12 * r * 16)), (col * 0.3).tolist(), -1,
                       cv2.LINE_AA, 4)


def _rings(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """Finger rings and washers: a thin bright circle."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(1, 3))):
        r = rng.uniform(0.2, 0.5) * u
        c16 = (round(rng.uniform(0, w) * 16), round(rng.uniform(0, h) * 16))
        col = (0.3, 0.7, 0.85) if rng.random() < 0.5 else (0.8, 0.8, 0.82)
        cv2.circle(img, c16, round(r * 16), col, max(1, round(r * 0.25)), cv2.LINE_AA, 4)


def _clips(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """Paper clips and round clips: loops of wire."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(1, 4))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ln, wd = rng.uniform(0.6, 1.4) * u, rng.uniform(0.2, 0.35) * u
        ang = rng.uniform(0, 180)
        col = rng.uniform(0.4, 0.9, 3).tolist()
        t = max(1, round(u * 0.04))
        for s in (1.0, 0.7):
            box = ((cx, cy), (ln * s, wd * s), ang)
            cv2.ellipse(img, box, col, t, cv2.LINE_AA)


def _pens(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """Pens and pencils: long rounded bars with a cap."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(1, 3))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ln, wd, ang = rng.uniform(2, 6) * u, rng.uniform(0.12, 0.3) * u, rng.uniform(0, math.pi)
        d = np.array([math.cos(ang), math.sin(ang)]) * ln / 2
        a, b = np.array([cx, cy]) - d, np.array([cx, cy]) + d
        col = rng.uniform(0.05, 0.9, 3)
        cv2.line(img, tuple(np.round(a * 16).astype(int)), tuple(np.round(b * 16).astype(int)), col.tolist(),
                 max(1, round(wd)), cv2.LINE_AA, 4)
        cv2.circle(img, tuple(np.round(b * 16).astype(int)), max(1, round(wd * 0.6 * 16)), (col * 0.5).tolist(), -1,
                   cv2.LINE_AA, 4)


def _printed_dots(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """Printed dots: a patch of a polka-dot or halftone print, dots of a pip's size in a grid."""
    h, w = img.shape[:2]
    x0, y0 = rng.uniform(0, w * 0.7), rng.uniform(0, h * 0.7)
    pw, ph = rng.uniform(1.5, 5) * u, rng.uniform(1.5, 5) * u
    step = rng.uniform(0.2, 0.5) * u
    r = step * rng.uniform(0.15, 0.35)
    col = rng.uniform(0.0, 0.9, 3).tolist()
    y, row = y0, 0
    while y < y0 + ph:
        x = x0 + (step / 2 if row % 2 else 0)
        while x < x0 + pw:
            cv2.circle(img, (round(x * 16), round(y * 16)), max(1, round(r * 16)), col, -1, cv2.LINE_AA, 4)
            x += step
        y += step
        row += 1


def _shadow(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """A soft shadow of something off the picture: a dark blurred blob."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    cv2.ellipse(mask, ((rng.uniform(0, w), rng.uniform(0, h)), (rng.uniform(1, 5) * u, rng.uniform(1, 5) * u),
                       rng.uniform(0, 180)), 1.0, -1)
    k = int(max(3, u * 0.6)) | 1
    mask = cv2.GaussianBlur(mask, (k, k), 0) * rng.uniform(0.2, 0.5)
    img *= (1 - mask)[..., None]


def number_tokens(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """A board game's number tokens: pale discs of about a die's size with a printed number and a row of dots under
    it (issue 59: read as a "9" or a "10" at 0.9-1.0), some in a row as on a board."""
    h, w = img.shape[:2]
    x, y = rng.uniform(0, w), rng.uniform(0, h)
    step, ang = rng.uniform(1.3, 3.0) * u, rng.uniform(0, 2 * math.pi)
    body = rng.uniform(0.7, 0.95, 3) * np.array([0.8, 0.92, 1.0])
    for _ in range(int(rng.integers(1, 6))):
        r = rng.uniform(0.3, 0.6) * u
        c16 = (round(x * 16), round(y * 16))
        cv2.circle(img, c16, round(r * 16), (body * 0.7).tolist(), -1, cv2.LINE_AA, 4)
        cv2.circle(img, c16, round(r * 0.92 * 16), body.tolist(), -1, cv2.LINE_AA, 4)
        n = int(rng.integers(2, 13))
        ink = (0.1, 0.1, 0.75) if n in (6, 8) or rng.random() < 0.2 else (0.08, 0.08, 0.08)
        text, scale = str(n), r / 22
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_TRIPLEX, scale, max(1, round(r / 10)))
        mask = np.zeros(img.shape[:2], np.uint8)  # putText draws on 8 bits only: drawn as a mask, then inked
        cv2.putText(mask, text, (round(x - tw / 2), round(y + th / 3)), cv2.FONT_HERSHEY_TRIPLEX, scale, 255,
                    max(1, round(r / 10)), cv2.LINE_AA)
        a = mask.astype(np.float32)[..., None] / 255
        img[:] = img * (1 - a) + np.array(ink, np.float32) * a
        dots = 6 - abs(7 - n)
        for k in range(dots):
            dx = (k - (dots - 1) / 2) * r * 0.18
            cv2.circle(img, (round((x + dx) * 16), round((y + r * 0.6) * 16)), max(1, round(r * 0.06 * 16)), ink, -1,
                       cv2.LINE_AA, 4)
        x, y = x + step * math.cos(ang), y + step * math.sin(ang)


def game_pieces(rng: np.random.Generator, img: np.ndarray, u: float) -> None:
    """Board-game pieces seen from above: plain wooden cubes (a blank die's top), little houses, meeples and
    roads, in one player's colour or several."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(2, 9))):
        cx, cy, a = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0, 2 * math.pi)
        col = rng.uniform(0.05, 0.95, 3)
        s = rng.uniform(0.3, 0.9) * u
        shape = int(rng.integers(0, 4))
        if shape == 0:  # a cube: a square with a lighter top and a darker side
            pts = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * s / 2
        elif shape == 1:  # a house: a pentagon
            pts = np.array([[-1, 1], [-1, -0.2], [0, -1], [1, -0.2], [1, 1]], np.float64) * s / 2
        elif shape == 2:  # a meeple: head, arms, legs
            pts = np.array([[-0.2, -1], [0.2, -1], [0.3, -0.6], [1, -0.3], [0.9, 0], [0.35, 0], [0.8, 1], [0.2, 1],
                            [0, 0.5], [-0.2, 1], [-0.8, 1], [-0.35, 0], [-0.9, 0], [-1, -0.3], [-0.3, -0.6]],
                           np.float64) * s / 2
        else:  # a road: a long bar
            pts = np.array([[-2, -0.3], [2, -0.3], [2, 0.3], [-2, 0.3]], np.float64) * s / 2
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        poly = pts @ rot.T + (cx, cy)
        side = poly + np.array([math.cos(a + 0.8), math.sin(a + 0.8)]) * s * 0.12
        cv2.fillPoly(img, [np.round(side * 16).astype(np.int32)], (col * 0.55).tolist(), cv2.LINE_AA, 4)
        cv2.fillPoly(img, [np.round(poly * 16).astype(np.int32)], col.tolist(), cv2.LINE_AA, 4)


THINGS: tuple[Draw, ...] = (_crumbs, _dust, _screw_holes, _coins, _buttons, _rings, _clips, _pens, _printed_dots,
                            _shadow, number_tokens, game_pieces)


def rendered(rng: np.random.Generator, split: str) -> np.ndarray:
    """A table of the split's textures strewn with a few of ``THINGS``, as a camera sees it (light, noise)."""
    w, h = SIZES[int(rng.integers(0, len(SIZES)))]
    names = [n for n in (TRAIN_BACKGROUNDS if split == "train" else TEST_BACKGROUNDS) if n in FLAT_TABLES]
    u = rng.uniform(30, 110) * w / 640  # px a die's side would have here
    img = FLAT_TABLES[names[int(rng.integers(0, len(names)))]](rng, (h, w), u, split)
    img = np.ascontiguousarray(img, dtype=np.float32)
    for k in rng.choice(len(THINGS), size=int(rng.integers(2, 5)), replace=False):
        THINGS[int(k)](rng, img, u)
    img *= light_field(rng, w, h, rng.uniform(0.1, 0.5), rng.uniform(0.0, 0.3))[..., None]
    img = sensor_noise(rng, np.clip(img, 0, 1), rng.uniform(0.01, 0.04))
    out: np.ndarray = np.clip(img * 255, 0, 255).astype(np.uint8)
    return out


def phantom_set(count: int, seed: int = 0, split: str = "test", root: Path | None = None) -> list[np.ndarray]:
    """``count`` photos without dice: half cut from the photo sets (where they are beside the checkout), the rest
    rendered."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    if root is None:
        from vision.train.data import photo_root

        try:
            root = photo_root()
        except FileNotFoundError:
            root = None
    cuts = photo_cuts(root, count // 2, seed, split) if root is not None else []
    rng = np.random.default_rng([seed, 52, SPLITS.index(split)])
    return cuts + [rendered(rng, split) for _ in range(count - len(cuts))]


def main() -> int:
    ap = argparse.ArgumentParser(description="Write a phantom set (photos with no dice) as JPEG files.")
    ap.add_argument("out", type=Path)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split", choices=SPLITS, default="test")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for i, img in enumerate(phantom_set(args.count, args.seed, args.split)):
        cv2.imwrite(str(args.out / f"{i:04d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    print(f"{args.count} photos without dice in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
