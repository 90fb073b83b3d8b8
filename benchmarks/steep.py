"""How the reader holds up as the camera tilts: ``python benchmarks/steep.py [--models DIR]``.

Renders train-design scenes (seeds no training uses) with the camera pinned at each tilt, 640x480, and prints die F1
and the recall by position per tilt and kind. Issue 5 asks for straight down to about 40 degrees; real photos are
sometimes steeper, so the default tilts go past it (see the model card, "Steep cameras").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from read_bench import Tally, scene_row  # noqa: E402

from vision.reader import DiceReader  # noqa: E402
from vision.synth import SceneStyle, render_scene  # noqa: E402

SEED0 = 950_000  # train designs, above every seed the training renders (and apart from the validation scenes)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=None, help="model folder (default: models/)")
    ap.add_argument("--scenes", type=int, default=40, help="scenes per tilt and kind")
    ap.add_argument("--tilts", default="0,30,40,45,55", help="camera tilts from straight down, degrees (0-60)")
    ap.add_argument("--kinds", default="pip,poker")
    ap.add_argument("--seed", type=int, default=SEED0)
    args = ap.parse_args()
    reader = DiceReader(args.models)
    for kind in args.kinds.split(","):
        for tilt in (float(t) for t in args.tilts.split(",")):
            tally = Tally()
            for i in range(args.scenes):
                sc = render_scene(args.seed + i, kind=kind, split="train", style=SceneStyle(tilt_deg=tilt))
                data, faces, _kind, spots = scene_row(sc, kind)
                tally.add(faces, reader.read_bytes(data), kind, 0.0, spots)
            found = sum(hit for hit, _n in tally.bands().values())
            print(
                f"{kind:5} tilt {tilt:4.0f}  {tally.labelled:>4} dice  F1 {tally.f1():6.1%}  "
                f"found by position {found / max(tally.labelled, 1):6.1%}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
