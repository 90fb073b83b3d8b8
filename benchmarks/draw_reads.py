"""Draw what the reader found on the photos it reads wrong: ``python benchmarks/draw_reads.py SET [--split S]``.

Before deciding what to change, look at the pictures (issue 51): each photo of ``SET`` (a folder of
../shared/dice-photos, or any folder in its labels.csv format) whose dice are not read right as a multiset is written
to ``--out`` with the labelled boxes in white and every reported die in green (sure) or orange (flagged), its face
and confidence beside it, and the candidates the reader dropped in thin grey. A contact sheet of the first misses
(``sheet.jpg``) comes with them.
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

from benchmarks.compare import photo_rows  # noqa: E402
from vision.reader import DiceReader  # noqa: E402
from vision.train.data import load_labels  # noqa: E402


def draw(bgr: np.ndarray, reading: object, labelled: list[tuple[float, float, float, float]]) -> np.ndarray:
    out = bgr.copy()
    t = max(1, round(max(bgr.shape[:2]) / 500))
    for x0, y0, x1, y1 in labelled:
        cv2.rectangle(out, (int(x0), int(y0)), (int(x1), int(y1)), (255, 255, 255), t)
    for d in getattr(reading, "dropped", ()):
        cv2.rectangle(out, d.box[:2], d.box[2:], (140, 140, 140), 1)
    for d in reading.dice:  # type: ignore[attr-defined]
        col = (0, 165, 255) if d.uncertain else (0, 220, 0)
        cv2.rectangle(out, d.box[:2], d.box[2:], col, t)
        cv2.putText(out, f"{d.face} {d.confidence:.2f}", (d.box[0], max(10, d.box[1] - 3)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.4 * t, col, t)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set")
    ap.add_argument("--photos", type=Path, default=ROOT.parent / "shared" / "dice-photos")
    ap.add_argument("--split", default=None, help="test, unseen or val (default: the set's unseen or test rows)")
    ap.add_argument("--models", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "misses")
    ap.add_argument("--all", action="store_true", help="draw every photo, not only the misses")
    args = ap.parse_args()
    folder = args.photos / args.set if not Path(args.set).is_dir() else Path(args.set)
    rows = photo_rows(folder, args.split or "unseen") or photo_rows(folder, args.split or "test")
    boxes = {it.image: [(b.x0, b.y0, b.x1, b.y1) for b in it.boxes] for it in load_labels(folder, fixes={})}
    reader = DiceReader(args.models)
    out = args.out / folder.name
    out.mkdir(parents=True, exist_ok=True)
    tiles = []
    wrong = 0
    for row in rows:
        reading = reader.read_bytes(row.path.read_bytes())
        right = Counter(d.face for d in reading.dice) == Counter(row.faces)
        if right and not args.all:
            continue
        wrong += not right
        got = " ".join(sorted(d.face for d in reading.dice))
        print(f"{row.path.name}: labelled {' '.join(row.faces)}, read {got or '-'}")
        img = draw(cv2.imread(str(row.path)), reading, [b for b in boxes.get(row.path, []) if b[2] > b[0]])
        cv2.imwrite(str(out / (row.path.stem + ".jpg")), img, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if len(tiles) < 24:
            h, w = img.shape[:2]
            s = 320 / max(h, w)
            tile = np.zeros((320, 320, 3), np.uint8)
            small = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
            tile[: small.shape[0], : small.shape[1]] = small
            tiles.append(tile)
    if tiles:
        tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % 6)
        sheet = np.vstack([np.hstack(tiles[i : i + 6]) for i in range(0, len(tiles), 6)])
        cv2.imwrite(str(out / "sheet.jpg"), sheet, [cv2.IMWRITE_JPEG_QUALITY, 85])
    print(f"{wrong} of {len(rows)} photos read wrong; drawn in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
