"""Plays generated table videos through the camera pipeline and prints what it proposed.

    python benchmarks/camera_bench.py [--seeds 10] [--reader truth|real] [--size 640x480] [--count]

Scenarios per seed: a turn of three throws with holds; a hand reaching in and out, and one resting
in view; a die rolling off the table; dice pushed aside by hand; a turn on the calibrated mat seen
by a tilted camera (dice set aside in the holding area). ``--reader truth`` answers from the
videos' ground truth, so the figures measure the settle logic alone; ``--reader real`` plays
the photo-like rendered throws (``vision.synth.render_video``: a hand brings the dice, they tumble
with motion blur and settle) through the real dice reader instead.

Prints: throws expected, detected, read right (dice and held positions), false triggers (hands
among them), and the delay from the moment the dice came to rest to the proposal, counted as video
time to the proposing frame plus the wall time spent on that frame (aim: under 0.5 s).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.mat import render_mat
from calibration.profile import Profile
from calibration.rectify import detect_markers, fit_mat
from vision.camera import CameraSession, reader_for
from vision.camsim import Event, FrameTruth, TableVideo, TruthReader
from vision.reading import Die, Reading
from vision.settle import Proposal


@dataclass
class Tally:
    expected: int = 0
    detected: int = 0
    right: int = 0
    false: int = 0
    false_hand: int = 0
    delays: list[float] = field(default_factory=list)
    frame_ms: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("expected", "detected", "right", "false", "false_hand"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.delays += other.delays
        self.frame_ms += other.frame_ms


def score(events: list[Event], proposals: list[tuple[Proposal, float]], window: float = 1.5) -> Tally:
    """Match proposals to scripted events in time: each expected throw may claim one proposal after it settled."""
    tally = Tally()
    unclaimed = list(proposals)
    for event in events:
        match = next(((p, ms) for p, ms in unclaimed if 0 <= p.t_frame - event.t_settle <= window), None)
        if event.kind == "throw" and event.propose:
            tally.expected += 1
            if match is None:
                continue
            unclaimed.remove(match)
            p, ms = match
            tally.detected += 1
            tally.right += p.dice == event.dice and p.held == event.held
            tally.delays.append(p.t_frame - event.t_settle + ms / 1000)
    hands = [e for e in events if e.kind == "hand"]
    for p, _ in unclaimed:
        tally.false += 1
        tally.false_hand += any(0 <= p.t_frame - h.t_settle <= window for h in hands)
    return tally


def play(
    frames: list[np.ndarray], truth: list[FrameTruth], session: CameraSession, reader: TruthReader
) -> tuple[Tally, list[tuple[Proposal, float]]]:
    got: list[tuple[Proposal, float]] = []
    tally = Tally()
    for frame, t in zip(frames, truth, strict=True):
        reader.current = t
        start = time.perf_counter()
        p = session.feed(frame, t.t)
        ms = (time.perf_counter() - start) * 1000
        tally.frame_ms.append(ms)
        if p is not None:
            got.append((p, ms))
    return tally, got


def run(
    video: TableVideo, frames: list[np.ndarray] | None = None, profile: Profile | None = None, scale: float = 1.0
) -> Tally:
    reader = TruthReader(video.kind, scale=scale, seed=video.seed)
    session = CameraSession(reader, profile)
    base, got = play(frames or video.frames, video.truth, session, reader)
    tally = score(video.events, got)
    tally.frame_ms = base.frame_ms
    return tally


def values(video: TableVideo) -> list[int]:
    return [d.value for d in video.dice]


def rng_values(rng: np.random.Generator, n: int) -> list[int]:
    return [int(v) for v in rng.integers(1, 7, n)]


def scenario_turn(seed: int, size: tuple[int, int]) -> TableVideo:
    rng = np.random.default_rng(seed)
    die = size[0] // 12
    v = TableVideo(size=size, seed=seed, die_px=die).still(0.4).throw(rng_values(rng, 5)).still(0.8)
    for _ in range(2):
        keep = sorted(int(p) for p in rng.choice(5, int(rng.integers(1, 4)), replace=False))
        v.pick_up([p for p in range(5) if p not in keep]).still(0.4)
        new = rng_values(rng, 5)
        v.throw([values(v)[p] if p in keep else new[p] for p in range(5)], held=keep).still(0.8)
    return v


def scenario_hand(seed: int, size: tuple[int, int]) -> TableVideo:
    rng = np.random.default_rng(seed)
    v = TableVideo(size=size, seed=seed, die_px=size[0] // 12).throw(rng_values(rng, 5)).still(0.8)
    v.hand(stay=0.0).still(0.6).hand(stay=1.2).still(0.6).hand(stay=0.3, depth=0.8).still(0.8)
    return v


def scenario_roll_off(seed: int, size: tuple[int, int]) -> TableVideo:
    rng = np.random.default_rng(seed)
    v = TableVideo(size=size, seed=seed, die_px=size[0] // 12).throw(rng_values(rng, 5)).still(0.8)
    v.pick_up(list(range(5))).still(0.4)
    v.throw(rng_values(rng, 5), propose=False).roll_off(int(rng.integers(0, 5)), out=6.0).still(1.0)
    return v


def scenario_push_aside(seed: int, size: tuple[int, int]) -> TableVideo:
    rng = np.random.default_rng(seed)
    w, h = size
    die = w // 12
    v = TableVideo(size=size, seed=seed, die_px=die, land=(0, 0, w, int(h * 0.68))).throw(rng_values(rng, 5))
    v.still(0.8)
    keep = sorted(int(p) for p in rng.choice(5, 2, replace=False))
    v.slide(keep, [(w * 0.4, h * 0.88), (w * 0.4 + die * 1.8, h * 0.88)]).still(0.8)
    v.pick_up([p for p in range(5) if p not in keep]).still(0.4)
    new = rng_values(rng, 5)
    v.throw([values(v)[p] if p in keep else new[p] for p in range(5)], held=keep).still(0.8)
    return v


def scenario_mat(seed: int, size: tuple[int, int]) -> tuple[TableVideo, list[np.ndarray], Profile, float]:
    rng = np.random.default_rng(seed)
    ppm = 1.5
    flat = render_mat("a4", ppm)
    fh, fw = flat.shape[:2]
    land = (round(50 * ppm), round(50 * ppm), round(250 * ppm), round(145 * ppm))
    v = TableVideo(size=(fw, fh), seed=seed, die_px=round(16 * ppm), background=flat, land=land)
    v.still(0.4).throw(rng_values(rng, 5)).still(0.8)
    keep = sorted(int(p) for p in rng.choice(5, 2, replace=False))
    v.slide(keep, [(100 * ppm, 178 * ppm), (140 * ppm, 178 * ppm)]).still(0.8)
    v.pick_up([p for p in range(5) if p not in keep]).still(0.4)
    new = rng_values(rng, 5)
    v.throw([values(v)[p] if p in keep else new[p] for p in range(5)], held=keep).still(0.8)
    w, h = size
    src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    jitter = rng.uniform(-0.04, 0.04, (4, 2)) * [w, h]
    corners = [[0.06 * w, 0.1 * h], [0.94 * w, 0.06 * h], [0.97 * w, 0.93 * h], [0.03 * w, 0.9 * h]]
    dst = np.array(corners, np.float32) + jitter
    to_cam = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    frames = [cv2.warpPerspective(f, to_cam, size, borderValue=(70, 70, 70)) for f in v.frames]
    fit = fit_mat(detect_markers(frames[0]))
    if fit is None:
        raise RuntimeError("The mat was not found in the first frame.")
    px_per_mm = 3.0
    profile = Profile.from_fit("bench", fit, "generated", size, px_per_mm=px_per_mm)
    return v, frames, profile, px_per_mm / ppm


def bench_truth(seeds: int, size: tuple[int, int]) -> dict[str, Tally]:
    results: dict[str, Tally] = {}
    makers: dict[str, Callable[[int, tuple[int, int]], TableVideo]] = {
        "turn": scenario_turn,
        "hand": scenario_hand,
        "roll_off": scenario_roll_off,
        "push_aside": scenario_push_aside,
    }
    for name, make in makers.items():
        total = Tally()
        for seed in range(seeds):
            total.add(run(make(seed, size)))
        results[name] = total
    total = Tally()
    for seed in range(seeds):
        v, frames, profile, scale = scenario_mat(seed, size)
        total.add(run(v, frames, profile, scale))
    results["mat"] = total
    return results


class SynthTruth:
    """Answers from a rendered video frame's labels (faces as they are up at that instant, even mid-roll)."""

    def __init__(self) -> None:
        self.frame: Any = None

    def __call__(self, bgr: np.ndarray) -> Reading:
        dice = tuple(Die(d.face, d.value, 0.99, d.box, False, d.kind) for d in self.frame.dice)
        return Reading(self.frame.dice[0].kind if dice else "pip", dice, bgr.shape[1], bgr.shape[0])


def bench_rendered(seeds: int, size: tuple[int, int], real: bool, told: bool = False) -> Tally:
    """Photo-like throws from ``vision.synth.render_video``: empty table, a hand brings the dice, they tumble
    (motion-blurred) and settle. Read with the ground truth, or with the real reader (``told``: told the five dice
    in view, and the dice seen fitted to them, as for a watched game)."""
    from vision.synth import render_video

    tally = Tally()
    for seed in range(seeds):
        kind = "pip" if seed % 2 == 0 else "poker"
        video = render_video(2000 + seed, kind=kind, n_dice=5, size=size, split="test", fps=15, settled_s=3.0)
        truth = SynthTruth()
        reader = reader_for(kind)
        session = CameraSession((functools.partial(reader, count=5) if told else reader) if real else truth)
        session.set_expected_dice(5, known=told)
        t_settle = video.first_settled / video.fps
        tally.expected += 1
        got = []
        for f in video.frames:
            truth.frame = f
            start = time.perf_counter()
            p = session.feed(f.image, f.index / video.fps)
            ms = (time.perf_counter() - start) * 1000
            tally.frame_ms.append(ms)
            if p is not None:
                got.append((p, ms))
        early = [p for p, _ in got if p.t_frame < t_settle]
        late = [(p, ms) for p, ms in got if p.t_frame >= t_settle]
        tally.false += len(early) + max(0, len(late) - 1)
        if late:
            p, ms = late[0]
            tally.detected += 1
            tally.right += sorted(p.dice) == sorted(d.value for d in video.settled)
            tally.delays.append(p.t_frame - t_settle + ms / 1000)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--reader", choices=["truth", "real"], default="truth")
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--count", action="store_true", help="real: the five dice in view known, as a watched game's")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    start = time.perf_counter()
    if args.reader == "truth":
        results = bench_truth(args.seeds, (w, h))
        results["rendered"] = bench_rendered(args.seeds, (w, h), real=False)
    else:
        results = {"rendered": bench_rendered(args.seeds, (w, h), real=True, told=args.count)}
    print(f"camera benchmark: reader={args.reader}, {args.seeds} seeds, {w}x{h} (scripted 30 fps, rendered 15 fps)")
    print(
        f"{'scenario':<12} {'throws':>6} {'detected':>8} {'right':>6} {'false':>6} {'by hand':>7} "
        f"{'delay mean':>10} {'p95':>6} {'max':>6} {'ms/frame':>8}"
    )
    everything = Tally()
    for name, t in results.items():
        everything.add(t)
        print(_row(name, t))
    print(_row("all", everything))
    print(f"({time.perf_counter() - start:.1f} s in all)")
    return 0


def _row(name: str, t: Tally) -> str:
    d = sorted(t.delays)
    mean = f"{statistics.mean(d):.3f}" if d else "-"
    p95 = f"{d[min(len(d) - 1, round(0.95 * (len(d) - 1)))]:.3f}" if d else "-"
    worst = f"{d[-1]:.3f}" if d else "-"
    ms = f"{statistics.mean(t.frame_ms):.1f}" if t.frame_ms else "-"
    return (
        f"{name:<12} {t.expected:>6} {t.detected:>8} {t.right:>6} {t.false:>6} {t.false_hand:>7} "
        f"{mean:>10} {p95:>6} {worst:>6} {ms:>8}"
    )


if __name__ == "__main__":
    sys.exit(main())
