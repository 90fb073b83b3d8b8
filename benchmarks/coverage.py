"""Does the reader cover what issue 5 asks of it? ``python benchmarks/coverage.py [--scenes 16] [--split test]``.

The photo sets show four cameras; the issue asks for more: dice of about 20 to 400 px, a camera from straight down to
about 40 degrees, 1 to 25 dice, pip and poker dice. This reads rendered scenes pinned along each of those axes, the
rest drawn from the seed (tables, designs, light, blur, noise, JPEG), and prints die precision, recall and F1 per
cell, the share flagged, the precision of the dice not flagged and the median ms, so a weak corner of the envelope
shows before a user finds it.

``--split test`` (default) renders the test designs and tables, never trained on; ``--split train`` renders the train
designs from seeds the training never uses, for choosing between readers without looking at the test scenes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.reader import DiceReader  # noqa: E402
from vision.synth import SceneStyle, render_scene  # noqa: E402
from vision.train.data import VAL_SYNTH_SEED  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from read_bench import Tally, scene_row  # noqa: E402

SEED0 = {"test": 700_000, "train": VAL_SYNTH_SEED + 40_000}  # neither is used by training or the other benchmarks


@dataclass(frozen=True)
class Cell:
    axis: str
    label: str
    size: tuple[int, int]
    die_px: float | None = None
    tilt: float | None = None
    n: int | None = None


def cells() -> list[Cell]:
    out = [
        Cell("die px, 640x480", f"{px}", (640, 480), die_px=px, n=n)
        for px, n in ((20, 12), (28, 10), (40, 8), (60, 6), (90, 5), (140, 3), (220, 2))
    ]
    out += [Cell("die px, 4000x3000", f"{px}", (4000, 3000), die_px=px, n=6) for px in (40, 80, 150, 250, 400)]
    out += [Cell("tilt deg, die 50 px", f"{t}", (640, 480), die_px=50, tilt=t, n=6) for t in (0, 10, 20, 30, 40)]
    out += [Cell("dice, 1280x960, 45 px", f"{n}", (1280, 960), die_px=45, n=n) for n in (1, 5, 10, 15, 20, 25)]
    return out


def line(t: Tally, px: list[float]) -> str:
    r = t.row()
    return (
        f"die {statistics.median(px) if px else 0.0:5.0f} px  {t.labelled:>4} dice  P {r['precision']:6.1%} "
        f"R {r['recall']:6.1%} F1 {t.f1():6.1%}  flagged {r['flagged']:5.1%}  "
        f"not flagged right {r['unflagged_precision']:6.1%}  wrong kind {t.wrong_kind:>2}/{t.images}  "
        f"{r['ms_median']:6.0f} ms"
    )


def read_cell(reader: DiceReader, cell: Cell, kind: str, scenes: int, seed0: int, split: str) -> str:
    tally, px = Tally(), list[float]()
    style = SceneStyle(die_px=cell.die_px, tilt_deg=cell.tilt)
    for i in range(scenes):
        sc = render_scene(seed0 + i, kind=kind, n_dice=cell.n, size=cell.size, split=split, style=style)
        data, faces, _kind, spots = scene_row(sc, kind)
        t0 = time.perf_counter()
        reading = reader.read_bytes(data)
        tally.add(faces, reading, kind, (time.perf_counter() - t0) * 1000, spots)
        px.extend(d.px for d in sc.dice)
    return line(tally, px)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=None, help="model folder (default: models/)")
    ap.add_argument("--scenes", type=int, default=16, help="scenes per cell and kind")
    ap.add_argument("--split", choices=("test", "train"), default="test")
    ap.add_argument("--kinds", default="pip,poker")
    ap.add_argument("--axis", default="", help="only the cells whose axis starts with this")
    args = ap.parse_args()
    reader = DiceReader(args.models)
    axis = ""
    for k, cell in enumerate(cells()):
        if not cell.axis.startswith(args.axis):
            continue
        if cell.axis != axis:
            axis = cell.axis
            print(f"== {axis}", flush=True)
        for kind in args.kinds.split(","):
            seed0 = SEED0[args.split] + 1000 * k + (500 if kind == "poker" else 0)
            print(
                f"  {cell.label:>4} {kind:5} {read_cell(reader, cell, kind, args.scenes, seed0, args.split)}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
