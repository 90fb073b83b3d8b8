"""What each of the reader's special rules pays on validation: ``python benchmarks/rules_bench.py [--models DIR]``.

Reads the validation rows (the train rows the training holds back, rendered validation scenes, large frames; never the
test rows) once with every rule on and once with each rule off (``vision.reader.Rules``), and prints die F1 per set,
the images read entirely right, and the median milliseconds. Two sets are added for the rules that serve photos the
validation sets hardly hold: close-ups (one to three dice of 200-440 px in a 640x480 frame, for the coarse look) and
clusters of tiny touching dice in 12 MP frames (for the finer look and the cluster split). A rule whose removal
costs nothing anywhere is a candidate to go (issue 33, a simpler reader). ``--photoreal FOLDER...`` adds the validation
rows of photographic renders (vision.synth.photoreal), which hold the crowded trays the photo sets have few of.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))

from read_bench import (  # noqa: E402
    PHOTO_SETS,
    Row,
    Tally,
    large_rows,
    run_set,
    scene_row,
    test_rows,
    val_scene_rows,
)

from vision.reader import DiceReader, Rules  # noqa: E402
from vision.train.data import VAL_SYNTH_SEED  # noqa: E402


def closeup_rows(count: int, bodies: str = "plain") -> list[Row]:
    """Close-ups: big dice whose pips alone look like dice showing 1 at the net's normal scale."""
    from vision.synth import SceneStyle, render_scene

    out = []
    for i in range(count):
        kind = "poker" if i % 2 else "pip"
        style = SceneStyle(die_px=float((200, 280, 360, 440)[i % 4]), bodies=bodies)
        sc = render_scene(VAL_SYNTH_SEED + 30_000 + i, kind=kind, n_dice=1 + i % 3, size=(640, 480), style=style)
        out.append(scene_row(sc, kind))
    return out


def cluster_rows(count: int, bodies: str = "plain") -> list[Row]:
    """Tiny dice touching in rows and blocks in a 12 MP frame: one big die to a coarse look."""
    from vision.synth import SceneStyle, render_scene

    out = []
    for i in range(count):
        kind = "poker" if i % 2 else "pip"
        style = SceneStyle(die_px=float((30, 40, 50)[i % 3]), touching=0.95, bodies=bodies)
        sc = render_scene(VAL_SYNTH_SEED + 40_000 + i, kind=kind, n_dice=4 + i % 8, size=(4000, 3000), style=style)
        out.append(scene_row(sc, kind))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=Path, default=ROOT.parent / "shared" / "dice-photos")
    ap.add_argument("--models", type=Path, default=None, help="model folder (default: models/)")
    ap.add_argument("--scenes", type=int, default=200, help="rendered poker validation scenes (half as many pip)")
    ap.add_argument("--large-scenes", type=int, default=60)
    ap.add_argument("--extra-scenes", type=int, default=24, help="close-ups and clusters, each")
    ap.add_argument("--bodies", choices=["plain", "rich"], default="plain", help="die bodies of the rendered scenes")
    ap.add_argument("--rules", nargs="*", default=None, help="only these rules (default: every one)")
    ap.add_argument(
        "--photoreal",
        type=Path,
        nargs="*",
        default=[],
        help="also the validation rows of these folders of photographic renders (vision.synth.photoreal)",
    )
    args = ap.parse_args()
    t0 = time.perf_counter()
    sets: dict[str, list[Row]] = {name: test_rows(args.photos / name, "val") for name in PHOTO_SETS}
    sets["synth-poker-val"] = val_scene_rows(args.scenes, "poker", args.bodies)
    sets["synth-pip-val"] = val_scene_rows(args.scenes // 2, "pip", args.bodies)
    sets["synth-large-val"] = large_rows(args.large_scenes, "train", VAL_SYNTH_SEED + 20_000, args.bodies)
    sets["synth-closeup-val"] = closeup_rows(args.extra_scenes, args.bodies)
    sets["synth-cluster-val"] = cluster_rows(args.extra_scenes, args.bodies)
    for folder in args.photoreal:  # held back from training by the same hash as the photos' rows
        sets[f"{folder.name}-val"] = test_rows(folder, "val")
    sets = {k: v for k, v in sets.items() if v}
    print(f"{sum(map(len, sets.values()))} images in {len(sets)} sets ({time.perf_counter() - t0:.0f} s to load)")
    names = [f.name for f in fields(Rules)]
    for name in args.rules or []:
        if name not in names:
            ap.error(f"unknown rule {name!r}; the rules are {', '.join(names)}")
    configs = [("all rules", Rules())] + [(f"no {n}", Rules.without(n)) for n in (args.rules or names)]
    short = {
        name: name.replace("webcam-white-dice", "webcam").replace("rune55-", "").replace("synth-", "") for name in sets
    }
    print(f"{'die F1':18}" + "".join(f"{short[n][:11]:>12}" for n in sets) + f"{'all':>8}{'allok':>7}{'ms50':>7}")
    for label, rules in configs:
        reader = DiceReader(args.models, rules)
        total, cells = Tally(), []
        for rows in sets.values():
            t = run_set(reader, rows, "auto")
            total.absorb(t)
            cells.append(f"{t.f1():12.1%}")
        r = total.row()
        print(
            f"{label:18}" + "".join(cells) + f"{total.f1():8.1%}{r['all_right']:7.1%}{r['ms_median']:7.1f}", flush=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
