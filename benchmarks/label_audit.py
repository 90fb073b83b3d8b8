"""Which photo labels to check by eye: ``python benchmarks/label_audit.py [--sets NAME,...] [--out DIR]``.

Reads the labelled dice of the ``train`` rows (validation split included; never ``test`` rows) of each photo set, has
the bundled classifier read each die's own crop, and lists the dice it reads as another face, surest first: the die's
box as labels.csv gives it, the label, the face read and its probability. A contact sheet per set (``DIR/SET.png``)
shows each of them enlarged with its number, so a person can count the pips and put the dice that are labelled wrong
into vision/train/label_fixes.csv, which the training reads. The dice listed are often the classifier's errors, not
the label's: only a face counted on the picture goes into the file.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.classify import kind_probs  # noqa: E402
from vision.detect import Candidates  # noqa: E402
from vision.reader import DiceReader  # noqa: E402
from vision.reading import PIP_FACES, POKER_FACES  # noqa: E402
from vision.train.data import PHOTO_SETS, Item, load_labels, photo_root, to_sample  # noqa: E402

TILE = 240  # px per die on the contact sheet
PER_ROW = 6


@dataclass(frozen=True)
class Doubt:
    item: Item
    die: int
    label: str
    read: str
    p: float
    crop: np.ndarray


def doubts(reader: DiceReader, items: list[Item], min_p: float) -> list[Doubt]:
    out = []
    for it in items:
        s = to_sample(it)
        if len(s.centres) == 0:
            continue
        c = Candidates(s.centres, s.sides, np.ones(len(s.sides), np.float32))
        p = kind_probs(reader.classifier.logits(s.img, c), it.kind, reader.classifier.temperature)
        faces = [*(PIP_FACES if it.kind == "pip" else POKER_FACES), "background"]
        offset = 0 if it.kind == "pip" else len(PIP_FACES)
        for k, want in enumerate(s.classes - offset):
            got = int(p[k].argmax())
            if got != want and p[k, got] >= min_p:
                crop = _crop(s.img, s.centres[k], s.sides[k])
                out.append(Doubt(it, k, faces[want], faces[got], float(p[k, got]), crop))
    return sorted(out, key=lambda d: -d.p)


def _crop(img: np.ndarray, centre: np.ndarray, side: float) -> np.ndarray:
    """The die with a die's width of its surroundings on each side, enlarged: its neighbours tell the scale."""
    h = max(float(side), 4.0)
    x0, y0 = int(max(0, centre[0] - h)), int(max(0, centre[1] - h))
    piece = img[y0 : int(centre[1] + h), x0 : int(centre[0] + h)]
    return cv2.resize(piece, (TILE, TILE), interpolation=cv2.INTER_CUBIC)


def sheet(found: list[Doubt]) -> np.ndarray:
    tiles = []
    for n, d in enumerate(found):
        tile = cv2.copyMakeBorder(d.crop, 0, 24, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        text = f"{n}: label {d.label}, read {d.read} {d.p:.2f}"
        cv2.putText(tile, text, (4, TILE + 17), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        tiles.append(tile)
    while len(tiles) % PER_ROW:
        tiles.append(np.full_like(tiles[0], 255))
    return np.vstack([np.hstack(tiles[i : i + PER_ROW]) for i in range(0, len(tiles), PER_ROW)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(PHOTO_SETS))
    ap.add_argument("--min-prob", type=float, default=0.5, help="list a die read as another face this surely")
    ap.add_argument("--out", type=Path, default=Path("/tmp/label-audit"))
    args = ap.parse_args()
    reader = DiceReader()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.sets.split(","):
        items = [it for it in load_labels(photo_root() / name) if it.split in ("train", "val")]
        found = doubts(reader, items, args.min_prob)
        dice = sum(len(it.boxes) for it in items)
        print(f"== {name}: {len(found)} of {dice} labelled dice read as another face with p >= {args.min_prob}")
        for n, d in enumerate(found):
            b = d.item.boxes[d.die]
            box = f"{b.x0:g},{b.y0:g},{b.x1:g},{b.y1:g}"
            image = d.item.name.split("/", 1)[1]
            print(f"{n:4d}  {image}  {box}  label {d.label}  read {d.read}  {d.p:.2f}")
        if found:
            cv2.imwrite(str(args.out / f"{name}.png"), sheet(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
