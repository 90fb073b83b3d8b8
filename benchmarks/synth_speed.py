"""How fast the scene generator is: milliseconds per 640x480 scene and per 64 px face crop (prints figures)."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.synth import SceneStyle, render_face, render_scene

PLAIN = SceneStyle(bodies="plain")  # the renderer before the rich bodies (issue 33): what they cost


def _times(fn: Callable[[int], object], n: int) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds per call; CPU time is the fairer figure on a machine shared with other jobs."""
    wall, cpu = [], []
    for i in range(n):
        t, c = time.perf_counter(), time.process_time()
        fn(i)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return wall, cpu


def _line(name: str, wall: list[float], cpu: list[float]) -> str:
    p95 = sorted(wall)[max(0, int(0.95 * len(wall)) - 1)]
    return (
        f"{name}: median {statistics.median(wall):6.1f} ms wall (p95 {p95:6.1f}), {statistics.median(cpu):6.1f} ms CPU"
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    render_scene(0)  # warm caches (fonts, noise bank)
    for kind in ("pip", "poker"):
        for split in ("train", "test"):
            wall, cpu = _times(lambda i, k=kind, s=split: render_scene(1000 + i, kind=k, split=s), n)
            print(_line(f"scene 640x480 {kind:5} {split:5}", wall, cpu))
        wall, cpu = _times(lambda i, k=kind: render_scene(1000 + i, kind=k, style=PLAIN), n)
        print(_line(f"scene 640x480 {kind:5} train, plain bodies", wall, cpu))
        wall, cpu = _times(lambda i, k=kind: render_face(2000 + i, kind=k, size=64), n)
        print(_line(f"face 64x64    {kind:5}      ", wall, cpu))
        wall, cpu = _times(lambda i, k=kind: render_face(2000 + i, kind=k, size=64, style=PLAIN), n)
        print(_line(f"face 64x64    {kind:5}       plain bodies", wall, cpu))


if __name__ == "__main__":
    main()
