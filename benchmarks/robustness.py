"""How the reader holds up under camera conditions the photo sets barely show: ``python benchmarks/robustness.py``.

Reads the validation rows of each photo set (train rows the training holds back; never the test rows) as they are
and changed the way other cameras and rooms change a photo: overexposed, dark and noisy, a warm white balance, a
motion streak, out of focus, hard JPEG, a shadow over half the table, low contrast; and resized to another aspect, as
labelling tools export phone photos to 640x640 (squeezed or stretched by 4:3 along one axis); and enlarged, as an HD
webcam or a phone sees the same scene in more pixels (softer than a real one, since nothing is added: the reader should
read the enlarged photo as it reads the photo). Prints the die F1 per
set and change (faces matched per image as multisets, as read_bench does), so two models can be compared on what a
new table will do to them. ``--rows train`` reads the train rows as well: more dice, but ones the models have seen.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.reader import DiceReader  # noqa: E402
from vision.train.data import PHOTO_SETS, load_labels  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from read_bench import Tally  # noqa: E402


def _overexposed(img: np.ndarray) -> np.ndarray:
    return np.clip(img.astype(np.float32) * 1.5 + 20, 0, 255).astype(np.uint8)


def _dark(img: np.ndarray) -> np.ndarray:
    f = img.astype(np.float32) * 0.3 + np.random.default_rng(1).normal(0, 4, img.shape)
    return np.clip(f, 0, 255).astype(np.uint8)


def _warm(img: np.ndarray) -> np.ndarray:
    return np.clip(img.astype(np.float32) * np.array([0.6, 0.9, 1.25]), 0, 255).astype(np.uint8)


def _motion(img: np.ndarray) -> np.ndarray:
    k = np.zeros((9, 9), np.float32)
    k[4, :] = 1 / 9
    return np.asarray(cv2.filter2D(img, -1, k))


def _defocus(img: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.GaussianBlur(img, (0, 0), 1.5))


def _jpeg(img: np.ndarray) -> np.ndarray:
    _ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 20])
    return np.asarray(cv2.imdecode(enc, cv2.IMREAD_COLOR))


def _shadow(img: np.ndarray) -> np.ndarray:
    f = img.astype(np.float32)
    f[:, : img.shape[1] // 2] *= 0.45
    return f.astype(np.uint8)


def _low_contrast(img: np.ndarray) -> np.ndarray:
    f = img.astype(np.float32)
    return np.clip((f - f.mean()) * 0.45 + f.mean(), 0, 255).astype(np.uint8)


def _resized(fx: float, fy: float, interpolation: int = cv2.INTER_AREA) -> Callable[[np.ndarray], np.ndarray]:
    """A photo resized: to another aspect, as labelling tools export phone photos to 640x640 (dice become oblongs), or
    enlarged both ways (bicubic), a large frame to the reader (1000 px and more) of the same scene."""

    def change(img: np.ndarray) -> np.ndarray:
        h, w = img.shape[:2]
        return np.asarray(cv2.resize(img, (round(w * fx), round(h * fy)), interpolation=interpolation))

    return change


CHANGES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "as taken": lambda img: img,
    "overexposed x1.5+20": _overexposed,
    "dark x0.3, noise": _dark,
    "warm white balance": _warm,
    "motion streak 9 px": _motion,
    "out of focus (blur 1.5)": _defocus,
    "JPEG quality 20": _jpeg,
    "shadow over half": _shadow,
    "low contrast x0.45": _low_contrast,
    "squeezed across x0.75": _resized(0.75, 1.0),
    "squeezed down x0.75": _resized(1.0, 0.75),
    "stretched across x1.33": _resized(4 / 3, 1.0),
    "stretched down x1.33": _resized(1.0, 4 / 3),
    "enlarged x2": _resized(2.0, 2.0, cv2.INTER_CUBIC),
    "enlarged x4.5": _resized(4.5, 4.5, cv2.INTER_CUBIC),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=None, help="model folder (default: models/)")
    ap.add_argument("--photos", type=Path, default=ROOT.parent / "shared" / "dice-photos")
    ap.add_argument("--rows", choices=["val", "train"], default="val", help="train: the train rows too")
    ap.add_argument("--changes", nargs="*", default=None, help="only these changes (names as printed)")
    args = ap.parse_args()
    reader = DiceReader(args.models)
    splits = ("val",) if args.rows == "val" else ("train", "val")
    sets = {}
    for name in PHOTO_SETS:
        items = [it for it in load_labels(args.photos / name) if it.split in splits]
        sets[name] = [(cv2.imread(str(it.image)), [str(b.cls + 1) for b in it.boxes]) for it in items]
    print(f"die F1 per set ({args.rows} rows)".ljust(26) + "".join(f"{n[:18]:>20}" for n in sets) + f"{'all':>8}")
    for change, fn in CHANGES.items():
        if args.changes and change not in args.changes:
            continue
        cells, total = [], Tally()
        for rows in sets.values():
            t = Tally()
            for img, faces in rows:
                t.add(faces, reader.read_array(fn(img), "pip"), "pip", 0.0)
            total.absorb(t)
            cells.append(t.f1())
        print(f"{change:26}" + "".join(f"{c:>20.1%}" for c in cells) + f"{total.f1():>8.1%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
