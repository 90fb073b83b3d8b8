"""The count's constants weighed offline: ``python benchmarks/count_offline.py dump OUT.jsonl`` then
``python benchmarks/count_offline.py eval OUT.jsonl SPREAD_TOLERANCE=4 "CROWDED=0.6 CROWDED_FACTOR=0.1" ...``.

``vision/count.py`` chooses among what the reader saw, so a change to it needs no second read: ``dump`` replays every
learning_bench game (the shared sets' test and unseen rows and the rendered games of data/games) as learning_bench
does, static and with the game's memory, each photo read with its count, and writes each reading with its dropped
candidates (one JSON line a throw); ``--poker N`` adds compare.py's rendered poker test scenes, read with their count.
``eval`` fits each dumped reading to its count with the constants as they are, then with each setting given (names of
``vision.count``'s module constants, several in one argument apart by spaces), and prints per setting the throws
right, static and with the memory, those won and lost against the constants as they are, and the sets that moved.
Issue 59 weighed the spread of a throw's dice this way (2 -> 4: 2,825 -> 2,831 of 3,006 throws, none lost).

A dump is the reader's of the day: dump again after a change to the reader or the models. A throw's lessons were
taught from the count as it was when dumped, so settings that change many throws of a game are only an estimate of
what learning_bench then reads.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from learning_bench import Throw, confirm

import vision.count as count_module
from vision.reading import Reading

TUNABLE = (
    "SIZE_TOLERANCE",
    "SPREAD_TOLERANCE",
    "ADD_FLOOR",
    "ADD_SIZE",
    "SAME_DIE",
    "CROWDED",
    "CROWDED_FACTOR",
)


def line_of(name: str, mode: str, faces: list[str], spots: Any, kind: str, reading: Reading) -> str:
    """One dumped throw: the set, static or learning, the true faces (and spots), and the reading with its dropped."""
    js = reading.to_json()
    js["dropped"] = [d.to_json() for d in reading.dropped]
    return json.dumps({"set": name, "mode": mode, "faces": faces, "spots": spots, "kind": kind, "reading": js})


def dump(out: Path, poker: int) -> None:
    import cv2
    from compare import CACHE, poker_scenes, written_rows
    from learning_bench import default_labels, throws_of

    from vision.count import fit_count
    from vision.reader import DiceReader

    reader = DiceReader()
    with open(out, "w", encoding="utf-8") as fh:
        for labels in default_labels():
            memory = None
            for n, t in enumerate(throws_of(labels, {"test", "unseen"})):
                bgr = cv2.imread(str(t.image), cv2.IMREAD_COLOR)
                memory = memory or reader.memory(t.kind)
                for mode, mem in (("static", None), ("learning", memory)):
                    reading = reader.read_array(bgr, t.kind, mem, count=len(t.faces))
                    fh.write(line_of(labels.parent.name, mode, t.faces, t.spots, t.kind, reading) + "\n")
                    if mem is not None:
                        taught = confirm(t, fit_count(reading, len(t.faces)))
                        reader.teach(mem, bgr, n, taught.boxes, taught.faces, taught.corrected)
            print(labels.parent.name, flush=True)
        if poker:
            CACHE.mkdir(parents=True, exist_ok=True)
            for row in written_rows("poker-test", poker_scenes, poker):
                if row.faces:
                    bgr = cv2.imread(str(row.path), cv2.IMREAD_COLOR)
                    reading = reader.read_array(bgr, "auto", count=len(row.faces))
                    fh.write(line_of("poker-renders", "static", row.faces, None, reading.kind, reading) + "\n")
            print("poker-renders", flush=True)


def parse_setting(text: str) -> dict[str, float]:
    """``"NAME=VALUE NAME=VALUE"`` to a dict; a name that is not one of the count's constants is refused."""
    out: dict[str, float] = {}
    for part in text.split():
        name, _, value = part.partition("=")
        if name not in TUNABLE or not value:
            raise ValueError(f"{part!r}: a setting is NAME=VALUE with NAME one of {', '.join(TUNABLE)}.")
        out[name] = float(value)
    return out


def right(rows: Iterable[dict[str, Any]], setting: dict[str, float]) -> list[bool]:
    """Per dumped throw, whether the count with ``setting`` proposes it entirely right (learning_bench's taps)."""
    kept = {name: getattr(count_module, name) for name in setting}
    try:
        for name, value in setting.items():
            setattr(count_module, name, value)
        out = []
        for r in rows:
            t = Throw(Path(), r["kind"], r["faces"], [tuple(s) for s in r["spots"]] if r["spots"] else None)
            fitted = count_module.fit_count(Reading.from_json(r["reading"]), len(r["faces"]))
            out.append(confirm(t, fitted).taps == 0)
        return out
    finally:
        for name, value in kept.items():
            setattr(count_module, name, value)


def evaluate(rows: list[dict[str, Any]], settings: list[str]) -> list[str]:
    """A line for the constants as they are, then one per setting against them."""
    base = right(rows, {})
    lines = [_line("as they are", rows, base, base)]
    for text in settings:
        lines.append(_line(text, rows, base, right(rows, parse_setting(text))))
    return lines


def _line(label: str, rows: list[dict[str, Any]], base: list[bool], now: list[bool]) -> str:
    total: dict[str, int] = defaultdict(int)
    moved: dict[str, int] = defaultdict(int)
    for r, b, n in zip(rows, base, now, strict=True):
        total[r["mode"]] += n
        moved[f"{r['set']} ({r['mode']})"] += int(n) - int(b)
    won = sum(n and not b for b, n in zip(base, now, strict=True))
    lost = sum(b and not n for b, n in zip(base, now, strict=True))
    sets = ", ".join(f"{k} {v:+d}" for k, v in sorted(moved.items()) if v)
    counts = ", ".join(f"{mode} {total[mode]}" for mode in sorted(total))
    return f"{label}: right {counts} of {len(rows)}; won {won}, lost {lost}" + (f" ({sets})" if sets else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="read every learning_bench throw once and keep the readings")
    d.add_argument("out", type=Path)
    d.add_argument("--poker", type=int, default=120, help="compare.py's rendered poker scenes too (0: none)")
    e = sub.add_parser("eval", help="the count with other constants on dumped readings")
    e.add_argument("dump", type=Path)
    e.add_argument("settings", nargs="*", help='e.g. SPREAD_TOLERANCE=4 "CROWDED=0.6 CROWDED_FACTOR=0.1"')
    args = ap.parse_args()
    if args.cmd == "dump":
        dump(args.out, args.poker)
        return 0
    for text in args.settings:
        parse_setting(text)  # refused before the work
    rows = [json.loads(line) for line in args.dump.read_text(encoding="utf-8").splitlines() if line.strip()]
    for line in evaluate(rows, args.settings):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
