"""``becher read IMAGE... [--kind pip|poker|auto] [--json]`` (contract in guide/ARCHITECTURE.md)."""

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
    if not reading.dice:
        faces = "no dice found"
    else:
        faces = " ".join(d.label + ("?" if d.uncertain else "") for d in reading.dice)
    note = f"  ({'; '.join(reading.warnings)})" if reading.warnings else ""
    return f"{path}: {reading.kind}: {faces}{note}"


def read_command(args: argparse.Namespace) -> int:
    """Read each image; one line per image (JSON with --json). Exit 1 when any image could not be read."""
    from vision.reader import get_reader

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
            reading = reader.read_bytes(data, kind=args.kind)
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
