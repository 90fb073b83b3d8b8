"""``becher read IMAGE... [--kind pip|poker|auto] [--count N [--on-table M]] [--json]`` (contract in
guide/ARCHITECTURE.md).

With ``--count`` each image is proposed as the server proposes a photo for a throw of N dice (``vision/count.py``):
what a player sees on the phone, not only what the reader found."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from vision.reading import ImageError, Reading


def _line(path: str, reading: Reading) -> dict[str, Any]:
    out = reading.to_json()
    return {"image": path, **out}


def _text(path: str, reading: Reading) -> str:
    if not reading.dice and not reading.missing:
        faces = "no dice found"
    else:
        # "?" marks a die to check; "+" one the count added from the candidates the reader dropped; "_" an empty
        # place the player taps in
        faces = " ".join(
            d.label + ("+" if d.assumed else "") + ("?" if d.uncertain and not d.assumed else "") for d in reading.dice
        )
        faces = " ".join(filter(None, [faces, *["_"] * reading.missing]))
    notes = list(reading.warnings)
    if reading.count is not None:
        notes.append(f"proposed as a throw of {reading.count}")
        if reading.extra:
            notes.append(f"left out: {' '.join(d.label for d in reading.extra)}")
    note = f"  ({'; '.join(notes)})" if notes else ""
    return f"{path}: {reading.kind}: {faces}{note}"


def _refuse(message: str) -> int:
    print(json.dumps({"ok": False, "error": message}), file=sys.stderr)
    return 2


def read_command(args: argparse.Namespace) -> int:
    """Read each image; one line per image (JSON with --json). Exit 1 when any image could not be read, 2 when the
    reader cannot start or the count makes no sense."""
    from vision.count import fit_count
    from vision.reader import MAX_DICE, get_reader

    count, on_table = getattr(args, "count", None), getattr(args, "on_table", None)
    if on_table is not None and count is None:
        return _refuse("--on-table needs --count: the dice thrown out of those on the table.")
    if count is not None and not 1 <= count <= MAX_DICE:
        return _refuse(f"--count is the dice thrown, 1 to {MAX_DICE}, not {count}.")
    if on_table is not None and count is not None and not count <= on_table <= MAX_DICE:
        return _refuse(f"--on-table is the dice on the table, {count} to {MAX_DICE}, not {on_table}.")

    try:
        reader = get_reader()
    except (FileNotFoundError, OSError, ValueError) as exc:
        print(json.dumps({"ok": False, "error": f"The dice reader cannot start: {exc}"}), file=sys.stderr)
        return 2
    failed = False
    for path in args.images:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
            reading = reader.read_bytes(data, kind=args.kind, count=count)  # as the server reads a throw
            if count is not None:
                reading = fit_count(reading, count, on_table)
        except (OSError, ImageError) as exc:
            failed = True
            message = str(exc) if isinstance(exc, ImageError) else f"Cannot open {path}: {exc.strerror or exc}."
            if args.json:
                print(json.dumps({"image": path, "error": message}, ensure_ascii=False), flush=True)
            else:
                print(f"{path}: error: {message}", file=sys.stderr, flush=True)
            continue
        if args.json:
            print(json.dumps(_line(path, reading), ensure_ascii=False), flush=True)
        else:
            print(_text(path, reading), flush=True)
    return 1 if failed else 0
