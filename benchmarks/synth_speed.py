"""How fast the scene generator is: milliseconds per 640x480 scene and per 64 px face crop (prints figures)."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.synth import render_face, render_scene


def _times(fn: object, n: int) -> list[float]:
    out = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)  # type: ignore[operator]
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    render_scene(0)  # warm caches (fonts, noise bank)
    for kind in ("pip", "poker"):
        for split in ("train", "test"):
            ts = _times(lambda i, k=kind, s=split: render_scene(1000 + i, kind=k, split=s), n)
            print(
                f"scene 640x480 {kind:5} {split:5}: median {statistics.median(ts):6.1f} ms, "
                f"p95 {sorted(ts)[int(0.95 * len(ts)) - 1]:6.1f} ms"
            )
        ts = _times(lambda i, k=kind: render_face(2000 + i, kind=k, size=64), n)
        print(f"face 64x64    {kind:5}      : median {statistics.median(ts):6.1f} ms")


if __name__ == "__main__":
    main()
