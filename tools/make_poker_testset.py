"""Write a labelled set of rendered dice scenes in the layout of ../shared/dice-photos/*/ (images/ + labels.csv).

    python tools/make_poker_testset.py                      # 300 poker test scenes in data/synth-poker-test/
    python tools/make_poker_testset.py data/synth-pip-test --kind pip --count 200
    python tools/make_poker_testset.py data/synth-poker-train --split train --count 2000 --workers 2
    python tools/make_poker_testset.py data/synth-poker-test-rich --bodies rich   # marbled, glitter, metal... sets

--bodies rich draws the rich die bodies (marbled, swirled, glitter, translucent, pearl, metallic, engraved) from the
split's own palettes; the default is the split's default (test: plain, the benchmark set as it always was).

labels.csv has the columns of the real sets (image, split, kind, values, boxes; poker faces as 9 10 J Q K A, boxes
around the whole die as seen). details.jsonl adds what the real sets lack: the printed letter (D for a German queen),
the top face's box and corners, rotation and the share of the top face that is visible.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.synth import SceneStyle, render_scene


def _one(args: tuple[int, str, str, int, int, Path, int, str | None]) -> tuple[list[str], dict[str, Any]]:
    seed, kind, split, w, h, out, quality, bodies = args
    scene = render_scene(seed, kind=kind, split=split, size=(w, h), style=SceneStyle(bodies=bodies) if bodies else None)
    name = f"images/{kind}-{split}-{seed:06d}.jpg"
    cv2.imwrite(str(out / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    row = [name, split, kind, scene.values, scene.boxes]
    detail = {
        "image": name,
        "seed": seed,
        "background": scene.style.background,
        "bodies": sorted({d.body_kind + ("+engraved" if d.engraved else "") for d in scene.style.designs or ()}),
        "tilt_deg": round(scene.style.tilt_deg or 0.0, 1),
        "dice": [
            {
                "face": d.face,
                "printed": d.printed,
                "box": list(d.box),
                "top_box": list(d.top_box),
                "top_quad": [list(p) for p in d.top_quad],
                "rotation": d.rotation,
                "visible": d.visible,
                "px": d.px,
            }
            for d in scene.dice
        ],
    }
    return row, detail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default="data/synth-poker-test", help="folder to write (created)")
    ap.add_argument("--kind", choices=["poker", "pip"], default="poker")
    ap.add_argument("--split", choices=["train", "test"], default="test")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--size", default="640x480", help="WIDTHxHEIGHT")
    ap.add_argument("--quality", type=int, default=95, help="JPEG quality of the stored images")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument(
        "--bodies", choices=["plain", "rich"], default=None, help="die bodies (default: the split's own; test: plain)"
    )
    a = ap.parse_args(argv)
    try:
        w, h = (int(v) for v in a.size.lower().split("x"))
    except ValueError:
        ap.error(f"--size must look like 640x480, not {a.size!r}")
    if a.count < 1 or a.first_seed < 0 or not 1 <= a.quality <= 100 or a.workers < 1:
        ap.error("--count and --workers must be positive, --first-seed non-negative, --quality in 1..100")
    out = Path(a.out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    jobs = [(s, a.kind, a.split, w, h, out, a.quality, a.bodies) for s in range(a.first_seed, a.first_seed + a.count)]
    t0 = time.perf_counter()
    if a.workers > 1:
        with ProcessPoolExecutor(a.workers) as pool:
            results = list(pool.map(_one, jobs, chunksize=8))
    else:
        results = [_one(j) for j in jobs]
    with open(out / "labels.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["image", "split", "kind", "values", "boxes"])
        wr.writerows(r for r, _ in results)
    with open(out / "details.jsonl", "w") as f:
        for _, d in results:
            f.write(json.dumps(d) + "\n")
    n_dice = sum(len(d["dice"]) for _, d in results)
    print(f"{len(results)} images, {n_dice} dice in {out} ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
