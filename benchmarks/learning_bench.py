"""Does the reader learn the dice on the table? Replays a labelled folder as one game (issue 52).

    python benchmarks/learning_bench.py [--labels FILE ...] [--root DIR] [--split test,unseen] [--json]

Each row of a labels.csv (in the format of ../shared/dice-photos), in file order, is a throw of as many dice as it has
labels. The reader proposes the throw (vision/count.py, with that count); the player confirms it with the true faces.
Each wrong die and each empty place is a tap; a die the proposal left out that is a real die, where a phantom took its
place, is one tap too (the swap). Then the next photo. Played twice: static (the bundled reader, no memory) and
learning (the game's memory taught after every throw, as the server does: each die of the proposal with its confirmed
face, corrections marked, a swapped-out phantom as "not a die").

Rows whose boxes are ``0,0,0,0`` have faces only: the true faces go to the dice found by the likeliest assignment
(equal faces first, then the surest die takes the face left), as a player correcting the values would.

``--phantoms N``: after each game, N photos with no dice (``vision.synth.phantoms``, its test split) are read as
that game's dice, with and without what the game taught: the phantoms a photo and those not flagged.

Without ``--labels`` it replays the test rows of the four photo sets, the two unseen sets, and every rendered game
under data/games/ (``python -m vision.synth.games data/games``).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.count import assign_values, fit_count
from vision.memory import NOT_A_DIE, DiceMemory
from vision.reader import DiceReader, Rules
from vision.reading import Die, Reading
from vision.train.data import FACES, Item, die_sides, parse_boxes, photo_root

SETS = (
    "webcam-white-dice",
    "rune55-phone-tray",
    "rune55-fisheye-webcam",
    "rune55-small-far",
    "skovy-catan-webcam",
    "chase-casino-crops",
)
GAMES = Path(__file__).resolve().parents[1] / "data" / "games"
FIRST = 5  # the throws a memory has not yet seen much: "from the sixth throw on" starts after them


@dataclass
class Throw:
    image: Path
    kind: str
    faces: list[str]  # the true faces
    spots: list[tuple[float, float, float]] | None  # centre x, y, side of each labelled die (None: faces only)


@dataclass
class Play:
    exact: list[bool] = field(default_factory=list)
    taps: list[int] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)  # taps by what they fixed: face, phantom, swap, empty
    ms: list[float] = field(default_factory=list)
    teach_ms: list[float] = field(default_factory=list)
    memory_bytes: int = 0
    memory: DiceMemory | None = None

    def summary(self, change: int | None = None) -> dict[str, Any]:
        later = self.exact[FIRST:]
        out: dict[str, Any] = {
            "exact": _share(self.exact),
            "exact_first_5": _share(self.exact[:FIRST]),
            "exact_after_5": _share(later),
            "taps_per_throw": sum(self.taps) / max(len(self.taps), 1),
            "taps_after_5": sum(self.taps[FIRST:]) / max(len(self.taps[FIRST:]), 1),
            "taps_by_kind": dict(self.kinds),
            # each throw from the sixth on, right (1) or not (0): what benchmarks/learning_diff.py pairs two runs by
            "after_5": "".join("1" if e else "0" for e in later),
        }
        if change is not None:  # a game whose dice change: from the fifth throw after the change on
            out["exact_after_change_5"] = _share(self.exact[change + FIRST :])
        return out


def pct(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{100 * value:.{digits}f}%"


def _share(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def throws_of(labels: Path, splits: set[str] | None, root: Path | None = None) -> list[Throw]:
    """The rows of the labels file ``labels`` (of ``splits``, or all where none of the rows is of them), in file
    order; images relative to ``root`` (default: the file's folder)."""
    folder = root or labels.parent
    with open(labels, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    chosen = [r for r in rows if splits is None or r.get("split") in splits] or rows
    out = []
    for row in chosen:
        kind = row.get("kind") or "pip"
        item = Item(
            f"{labels.parent.name}/{row['image']}",
            folder / row["image"],
            parse_boxes(row["boxes"], kind),
            kind,
            row.get("split", ""),
        )
        faces = [FACES[b.cls] for b in item.boxes]
        if not faces:
            continue  # a photo of no dice is no throw
        boxed = all(b.x1 > b.x0 and b.y1 > b.y0 for b in item.boxes)
        spots = (
            [((b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2, float(s)) for b, s in zip(item.boxes, die_sides(item), strict=True)]
            if boxed
            else None
        )
        out.append(Throw(folder / row["image"], kind, faces, spots))
    return out


@dataclass
class Outcome:
    taps: int
    kinds: Counter[str]
    boxes: list[tuple[int, int, int, int]]  # what the memory learns: these crops ...
    faces: list[int]  # ... with these faces (0-5, or NOT_A_DIE) ...
    corrected: list[bool]  # ... corrected or only confirmed


def confirm(throw: Throw, proposal: Reading) -> Outcome:
    """The player's taps on the proposal and what the confirmed throw teaches."""
    value = {face: k for k, face in enumerate(FACES)}
    truth = [value[f] % 6 for f in throw.faces]
    dice = list(proposal.dice)
    if throw.spots is None:
        return _by_faces(truth, dice, len(throw.faces))
    pairs = _pairs(throw.spots, dice)
    left = [d for d in proposal.extra if d.assumed is None]
    left_pairs = _pairs(throw.spots, left)
    taps = 0
    out = Outcome(0, Counter(), [], [], [])
    found = set(pairs)
    for j, d in enumerate(dice):
        i = next((i for i, jj in pairs.items() if jj == j), None)
        if i is not None:
            right = d.value - 1 == truth[i]
            taps += not right
            out.kinds["face"] += not right
            out.boxes.append(d.box)
            out.faces.append(truth[i])
            out.corrected.append(not right)
            continue
        # a phantom: a left-out real die swaps in for it (one tap), else its value is tapped over
        swap = next((i for i in left_pairs if i not in found), None)
        taps += 1
        out.kinds["phantom" if swap is None else "swap"] += 1
        out.boxes.append(d.box)
        out.faces.append(NOT_A_DIE)
        out.corrected.append(True)
        if swap is not None:
            found.add(swap)
            sd = left[left_pairs[swap]]
            taps += sd.value - 1 != truth[swap]
            out.boxes.append(sd.box)
            out.faces.append(truth[swap])
            out.corrected.append(True)
    taps += max(0, len(throw.faces) - len(dice))  # empty places
    out.kinds["empty"] += max(0, len(throw.faces) - len(dice))
    out.taps = taps
    return out


def _pairs(spots: list[tuple[float, float, float]], dice: list[Die]) -> dict[int, int]:
    """Labelled die -> read die on it: their centres within half the larger of their sides (a box round the whole
    die on a label round its pips is that die, as the player sees it), nearest pairs first, each used once."""
    cand = []
    for i, (x, y, side) in enumerate(spots):
        for j, d in enumerate(dice):
            dist = float(np.hypot((d.box[0] + d.box[2]) / 2 - x, (d.box[1] + d.box[3]) / 2 - y))
            if dist < 0.5 * max(side, d.box[2] - d.box[0], d.box[3] - d.box[1]):
                cand.append((dist, i, j))
    out: dict[int, int] = {}
    used: set[int] = set()
    for _dist, i, j in sorted(cand):
        if i not in out and j not in used:
            out[i] = j
            used.add(j)
    return out


def _by_faces(truth: list[int], dice: list[Die], count: int) -> Outcome:
    """Faces only: the likeliest assignment, as the server makes it (``vision.count.assign_values``)."""
    out = Outcome(0, Counter(), [], [], [])
    for k, value in assign_values([(d.value - 1, d.confidence) for d in dice], truth):
        out.boxes.append(dice[k].box)
        out.faces.append(value)
        out.corrected.append(value != dice[k].value - 1)
    out.taps = len(truth) - sum(not c for c in out.corrected) + max(0, len(dice) - count)
    out.kinds["face"] = out.taps
    return out


def play(reader: DiceReader, throws: list[Throw]) -> tuple[Play, Play]:
    """The game played static and learning side by side, photo by photo (the two reads of a photo in turn, first one
    then the other, so that a busy machine slows both alike)."""
    memory: DiceMemory | None = None
    static, learning = Play(), Play()
    for n, throw in enumerate(throws):
        bgr = cv2.imread(str(throw.image), cv2.IMREAD_COLOR)
        if memory is None:
            memory = reader.memory(throw.kind)
        order = [(static, None), (learning, memory)]
        for result, mem in order if n % 2 else order[::-1]:
            t0 = time.perf_counter()
            reading = reader.read_array(bgr, throw.kind, mem, count=len(throw.faces))  # as the server tells it
            result.ms.append((time.perf_counter() - t0) * 1000)
            proposal = fit_count(reading, len(throw.faces))
            outcome = confirm(throw, proposal)
            result.exact.append(outcome.taps == 0)
            result.taps.append(outcome.taps)
            result.kinds.update(outcome.kinds)
            if mem is not None:
                t0 = time.perf_counter()
                reader.teach(mem, bgr, n, outcome.boxes, outcome.faces, outcome.corrected)
                result.teach_ms.append((time.perf_counter() - t0) * 1000)
    learning.memory_bytes = len(memory.to_bytes()) if memory is not None else 0
    learning.memory = memory
    return static, learning


def phantoms(
    reader: DiceReader, memory: DiceMemory | None, photos: list[np.ndarray], kind: str
) -> tuple[float, float]:
    """Dice reported per photo on photos with no dice, read as the game's dice with what the game taught (``memory``;
    None: the bundled reader), and those not flagged: what a game's memory does against a speck, a token, a hole."""
    found = sure = 0
    for bgr in photos:
        reading = reader.read_array(bgr, kind, memory)
        found += len(reading.dice)
        sure += sum(not d.uncertain for d in reading.dice)
    return found / max(len(photos), 1), sure / max(len(photos), 1)


def change_of(labels: Path) -> int | None:
    """The throw (0-based) at which a rendered game's dice change (its game.json's ``change_at``), None if none."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        at = json.loads((labels.parent / "game.json").read_text(encoding="utf-8")).get("change_at")
        return None if at is None else int(at) - 1
    return None


def default_labels() -> list[Path]:
    root = photo_root()
    out = [root / s / "labels.csv" for s in SETS]
    if GAMES.is_dir():
        out += sorted(GAMES.glob("*/labels.csv"))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labels", type=Path, action="append", help="a labels.csv (repeatable); default: see above")
    ap.add_argument("--root", type=Path, help="the folder of the images (default: the labels file's folder)")
    ap.add_argument("--split", default="test,unseen", help="rows of these splits (all rows where none is of them)")
    ap.add_argument("--models", type=Path, help="a model folder (default: the bundled models)")
    ap.add_argument("--json", action="store_true", help="one JSON object per set")
    ap.add_argument(
        "--phantoms", type=int, default=0, help="after each game, read this many photos with no dice with its memory"
    )
    ap.add_argument("--without", nargs="*", default=[], help="rules switched off (vision.reader.Rules), e.g. unlike")
    args = ap.parse_args()
    reader = DiceReader(args.models, Rules.without(*args.without))
    splits = set(args.split.split(",")) if args.split else None
    empty: list[np.ndarray] = []
    if args.phantoms:
        from vision.synth.phantoms import phantom_set

        empty = phantom_set(args.phantoms, seed=0, split="test")
    for labels in args.labels or default_labels():
        throws = throws_of(labels, splits, args.root)
        name = labels.parent.name
        static, learning = play(reader, throws)
        change = change_of(labels)
        row = {
            "set": name,
            "throws": len(throws),
            "static": static.summary(change),
            "learning": learning.summary(change),
            "ms_static": statistics.median(static.ms),
            "ms_learning": statistics.median(learning.ms),
            "ms_teach": statistics.median(learning.teach_ms),
            "memory_kb": learning.memory_bytes / 1024,
        }
        if empty:
            row["phantoms_static"] = phantoms(reader, None, empty, throws[0].kind)
            row["phantoms_learning"] = phantoms(reader, learning.memory, empty, throws[0].kind)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            s, le = row["static"], row["learning"]
            print(
                f"{name:24s} {len(throws):4d} throws | static exact {pct(s['exact'])} after5 {pct(s['exact_after_5'])} "
                f"taps {s['taps_per_throw']:.3f} | learning exact {pct(le['exact'])} after5 {pct(le['exact_after_5'])} "
                f"taps {le['taps_per_throw']:.3f} first5 {pct(s['exact_first_5'], 0)}->{pct(le['exact_first_5'], 0)} | "
                f"ms {row['ms_static']:.1f} -> {row['ms_learning']:.1f} (teach {row['ms_teach']:.1f}) "
                f"memory {row['memory_kb']:.0f} kB | taps {s['taps_by_kind']} -> {le['taps_by_kind']}"
                + (
                    f" | 5 throws after the change on: {pct(s['exact_after_change_5'])} -> "
                    f"{pct(le['exact_after_change_5'])}"
                    if change is not None
                    else ""
                )
                + (
                    " | phantoms a photo (unflagged) {:.2f} ({:.2f}) -> {:.2f} ({:.2f})".format(
                        *row["phantoms_static"], *row["phantoms_learning"]
                    )
                    if empty
                    else ""
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
