"""Clusters of small dice in 12 MP photos: ``python benchmarks/clusters.py [--models DIR] [--photos N]``.

A phone held high sees a throw as a tight cluster of dice of 25-50 px in a 4000x3000 photo. At the reader's normal
scale such a cluster can pass for one big die whose pips are the dice. This draws clusters (the tests' flat drawn
dice on a drawn table, not renders: a plain case the reader should not miss), reads them, and prints the dice found
(faces matched per photo as multisets), the photos read entirely right, and what the misses looked like.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.vision.drawing import draw_die, table  # noqa: E402
from vision.reader import DiceReader  # noqa: E402


def cluster_photo(rng: np.random.Generator, seed: int) -> tuple[bytes, list[str]]:
    """Three to eight dice of 26-47 px in a row or a block, 1.3-3 sides apart, in a landscape or portrait photo."""
    w, h = (4000, 3000) if seed % 2 == 0 else (3000, 4000)
    img = table(w, h, seed=100 + seed)
    side, n = int(rng.integers(26, 48)), int(rng.integers(3, 9))
    gap = side * float(rng.uniform(1.3, 3.0))
    block = int(rng.integers(1, 4)) > 1
    x0, y0 = int(rng.integers(800, w - 1200)), int(rng.integers(800, h - 1200))
    values = [int(v) for v in rng.integers(1, 7, n)]
    for i, v in enumerate(values):
        col, row = (i % 3, i // 3) if block else (i, 0)
        draw_die(img, int(x0 + col * gap), int(y0 + row * gap), side, v, angle=float(rng.uniform(0, 90)))
    return bytes(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()), [str(v) for v in values]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=None, help="model folder (default: models/)")
    ap.add_argument("--photos", type=int, default=24)
    args = ap.parse_args()
    reader = DiceReader(args.models)
    rng = np.random.default_rng(1)
    dice = found = right = 0
    as_one = 0  # photos read as one die much bigger than the dice: the cluster taken for a die
    for seed in range(args.photos):
        data, want = cluster_photo(rng, seed)
        reading = reader.read_bytes(data, kind="pip")
        hit = sum((Counter(want) & Counter(d.face for d in reading.dice)).values())
        dice, found, right = dice + len(want), found + hit, right + int(hit == len(want) == len(reading.dice))
        as_one += int(len(reading.dice) == 1 and reading.dice[0].box[2] - reading.dice[0].box[0] > 200)
    print(
        f"{args.photos} photos, {dice} dice: found {found} ({found / dice:.1%}), photos read entirely right "
        f"{right} ({right / args.photos:.0%}), photos read as one big die {as_one}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
