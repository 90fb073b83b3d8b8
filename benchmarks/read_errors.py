"""Where the dice reader's errors come from: ``python benchmarks/read_errors.py [--models DIR]``.

For each set's ``test`` rows (``--split val`` or ``train``: the rows a model may be chosen on; rendered poker test
scenes only with the test rows) it prints the detector's own precision and recall (each
candidate matched to the nearest labelled die within half its side), the classifier's accuracy on crops of the
labelled dice (the detector taken out of the question) and on the dice the detector found, how far the detector's
side is off, and the most common confusions. The answer tells which of the two models to work on.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.classify import kind_probs  # noqa: E402
from vision.detect import Candidates  # noqa: E402
from vision.reader import DiceReader  # noqa: E402
from vision.train.data import PHOTO_SETS, Sample, load_labels, synth_samples, to_sample  # noqa: E402

POKER_TEST_SEED = 0  # the scenes of data/synth-poker-test (tools/make_poker_testset.py)


def faces_of(kind: str) -> list[str]:
    return ["1", "2", "3", "4", "5", "6"] if kind == "pip" else ["9", "10", "J", "Q", "K", "A"]


def diagnose(reader: DiceReader, name: str, samples: list[Sample], turns: int | None = None) -> None:
    """``turns``: views per labelled crop (None: as the reader reads, its own turns and more for a crop in doubt)."""
    tp = fp = fn = 0
    crop_right = crop_n = det_right = 0
    ratios: list[float] = []
    confusions: Counter[tuple[str, str]] = Counter()
    for s in samples:
        offset = 0 if s.kind == "pip" else 6
        names = [*faces_of(s.kind), "background"]
        want = s.classes - offset
        if len(s.centres):
            truth = Candidates(s.centres, s.sides, np.ones(len(s.sides), np.float32))
            logits = reader.classifier.logits(s.img, truth, turns)
            pred = kind_probs(logits, s.kind, reader.classifier.temperature).argmax(1)
            crop_right += int((pred == want).sum())
            crop_n += len(want)
            confusions.update((names[a], names[b]) for a, b in zip(want, pred, strict=True) if a != b)
        c = reader.candidates(s.img)
        if len(c) == 0:
            fn += len(s.centres)
            continue
        got = kind_probs(reader.classifier.logits(s.img, c), s.kind, reader.classifier.temperature).argmax(1)
        used: set[int] = set()
        for k in range(len(c)):
            if len(s.centres) == 0:
                fp += 1
                continue
            d = np.hypot(*(s.centres - c.centres[k]).T)
            j = int(np.argmin(d))
            if d[j] < 0.5 * s.sides[j] and j not in used:
                used.add(j)
                tp += 1
                ratios.append(float(c.sides[k] / s.sides[j]))
                det_right += int(got[k] == want[j])
            else:
                fp += 1
        fn += len(s.centres) - len(used)
    r = np.array(ratios) if ratios else np.ones(1)
    print(
        f"{name:24s} detector P {tp / max(tp + fp, 1):6.1%} R {tp / max(tp + fn, 1):6.1%} | "
        f"classifier on labelled crops {crop_right / max(crop_n, 1):6.1%} "
        f"on found dice {det_right / max(tp, 1):6.1%} | "
        f"side found/labelled p10 {np.percentile(r, 10):.2f} median {np.median(r):.2f} p90 {np.percentile(r, 90):.2f}"
    )
    print("    confusions (label > read):", ", ".join(f"{a}>{b} {n}" for (a, b), n in confusions.most_common(8)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=Path, default=ROOT.parent / "shared" / "dice-photos")
    ap.add_argument("--models", type=Path, default=None, help="model folder (default: models/)")
    ap.add_argument("--poker-scenes", type=int, default=120, help="rendered poker test scenes")
    ap.add_argument(
        "--split", choices=("test", "val", "train"), default="test", help="photo rows (val, train: to choose on)"
    )
    ap.add_argument("--sets", nargs="*", default=None, help="only these photo sets")
    ap.add_argument("--one-view", action="store_true", help="labelled crops read in one view, no second look")
    args = ap.parse_args()
    reader = DiceReader(args.models)
    for set_name in args.sets or PHOTO_SETS:
        folder = args.photos / set_name
        if not (folder / "labels.csv").is_file():
            print(f"{set_name}: not found under {args.photos}")
            continue
        rows = [it for it in load_labels(folder) if it.split == args.split]
        diagnose(reader, f"{set_name} ({args.split})", [to_sample(it) for it in rows], 1 if args.one_view else None)
    if args.poker_scenes and args.split == "test":
        diagnose(reader, "synth-poker-test", synth_samples(args.poker_scenes, "poker", POKER_TEST_SEED, split="test"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
