"""Generated table video for the camera's tests and benchmark: throws, settling, held dice, a hand, a die rolling off.

A ``TableVideo`` is written like a script (``still``, ``throw``, ``hand``, ``roll_off``...) and
records, for every frame, the ground truth (each visible die's value and box, whether anything
moved) and, for every scripted event, what a good camera pipeline should propose and when the
scene came to rest. ``TruthReader`` turns that ground truth into ``Reading`` values, so the settle
logic can be tested apart from the dice reader; moving dice read as random faces, as they would.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.reading import PIP_FACES, POKER_FACES, Die, Reading

__all__ = ["Event", "FrameTruth", "TableVideo", "TruthDie", "TruthReader", "write_video"]

_PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


@dataclass
class _Die:
    value: int
    x: float
    y: float
    angle: float
    moving: bool = False
    on_table: bool = True


@dataclass(frozen=True)
class TruthDie:
    value: int
    box: tuple[int, int, int, int]
    moving: bool


@dataclass(frozen=True)
class FrameTruth:
    t: float
    dice: tuple[TruthDie, ...]
    moved: bool  # anything (dice, hand) differs from the previous frame


@dataclass(frozen=True)
class Event:
    """A scripted happening and what should come of it (``dice``/``held`` are by position, as in a Throw)."""

    kind: str  # throw | hand | roll_off | hold
    t_settle: float
    propose: bool
    dice: tuple[int, ...] = ()
    held: tuple[int, ...] = ()


@dataclass
class TableVideo:
    """A scripted video of a table seen from above, ``size`` pixels at ``fps``."""

    size: tuple[int, int] = (320, 240)
    fps: float = 30.0
    die_px: int = 26
    kind: str = "pip"
    seed: int = 0
    noise: float = 2.0
    background: np.ndarray | None = None
    land: tuple[int, int, int, int] | None = None  # where thrown dice come to rest (x0, y0, x1, y1)
    frames: list[np.ndarray] = field(default_factory=list, repr=False)
    truth: list[FrameTruth] = field(default_factory=list, repr=False)
    events: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.kind not in ("pip", "poker"):
            raise ValueError(f"Dice kind is pip or poker, not {self.kind!r}.")
        self.rng = np.random.default_rng(self.seed)
        w, h = self.size
        if self.background is None:
            base = np.zeros((h, w, 3), np.uint8)
            base[:] = (60, 110, 45)  # green felt
            coarse = self.rng.normal(0, 6, (h // 4 + 1, w // 4 + 1)).astype(np.float32)
            texture = np.asarray(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC))[:, :, None]
            self.background = np.clip(base.astype(np.float32) + texture, 0, 255).astype(np.uint8)
        elif self.background.shape[:2] != (h, w):
            raise ValueError(
                f"The background must be {w}x{h}, not {self.background.shape[1]}x{self.background.shape[0]}."
            )
        m = self.die_px
        self.land = self.land or (m, m, w - m, h - m)
        self.dice: list[_Die] = []
        self.hand_at: tuple[float, float] | None = None
        self._last_still: float = 0.0

    # --- time ---------------------------------------------------------------------------------------------------

    @property
    def t(self) -> float:
        return len(self.frames) / self.fps

    def _frames(self, seconds: float) -> int:
        return max(1, round(seconds * self.fps))

    # --- drawing ------------------------------------------------------------------------------------------------

    def _draw_die(self, img: np.ndarray, die: _Die) -> None:
        s = self.die_px / 2
        c, si = math.cos(die.angle), math.sin(die.angle)

        def at(u: float, v: float) -> tuple[int, int]:
            return (round((die.x + u * c - v * si) * 16), round((die.y + u * si + v * c) * 16))

        corners = np.array([at(-s, -s), at(s, -s), at(s, s), at(-s, s)], np.int32)
        cv2.fillConvexPoly(img, corners, (235, 240, 242), cv2.LINE_AA, shift=4)
        cv2.polylines(img, [corners], True, (120, 120, 120), 1, cv2.LINE_AA, shift=4)
        if self.kind == "pip":
            r = max(1.5, self.die_px * 0.09)
            for u, v in _PIPS[die.value]:
                cv2.circle(img, at(u * s * 0.5, v * s * 0.5), round(r * 16), (30, 30, 30), -1, cv2.LINE_AA, shift=4)
        else:
            text = POKER_FACES[die.value - 1]
            scale = self.die_px / 40
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
            red = die.value in (3, 4)
            cv2.putText(
                img,
                text,
                (round(die.x - tw / 2), round(die.y + th / 2)),
                cv2.FONT_HERSHEY_SIMPLEX,
                scale,
                (40, 40, 200) if red else (30, 30, 30),
                2,
                cv2.LINE_AA,
            )

    def _hand_mask(self) -> np.ndarray | None:
        if self.hand_at is None:
            return None
        w, h = self.size
        mask = np.zeros((h, w), np.uint8)
        x, y = self.hand_at
        palm = (round(self.die_px * 2.2), round(self.die_px * 2.6))
        cv2.ellipse(mask, (round(x), round(y)), palm, 0, 0, 360, 255, -1)
        cv2.rectangle(mask, (round(x - palm[0] * 0.8), round(y)), (round(x + palm[0] * 0.8), h + 10), 255, -1)
        for k in range(4):
            fx = x - palm[0] * 0.75 + k * palm[0] * 0.5
            cv2.rectangle(mask, (round(fx - 4), round(y - palm[1] * 1.9)), (round(fx + 4), round(y)), 255, -1)
        return mask

    def _render(self) -> np.ndarray:
        assert self.background is not None
        img = self.background.copy()
        for die in self.dice:
            if die.on_table:
                self._draw_die(img, die)
        mask = self._hand_mask()
        if mask is not None:
            shade = np.linspace(0.85, 1.05, img.shape[1], dtype=np.float32)[None, :, None]
            skin = np.clip(np.array([120, 150, 205], np.float32) * shade, 0, 255).astype(np.uint8)
            skin = np.broadcast_to(skin, img.shape)
            img = np.where(mask[:, :, None] > 0, skin, img)
        if self.noise > 0:
            img = np.clip(img.astype(np.int16) + self.rng.normal(0, self.noise, img.shape).astype(np.int16), 0, 255)
        return np.asarray(img, dtype=np.uint8)

    def _box(self, die: _Die) -> tuple[int, int, int, int]:
        half = self.die_px / 2 * (abs(math.cos(die.angle)) + abs(math.sin(die.angle)))
        w, h = self.size
        return (
            max(0, round(die.x - half)),
            max(0, round(die.y - half)),
            min(w, round(die.x + half)),
            min(h, round(die.y + half)),
        )

    def _emit(self, moved: bool) -> None:
        mask = self._hand_mask()
        w, h = self.size
        seen = []
        for die in self.dice:
            if not die.on_table:
                continue
            box = self._box(die)
            if box[0] >= box[2] - 2 or box[1] >= box[3] - 2:
                continue
            cx, cy = round(die.x), round(die.y)
            if mask is not None and 0 <= cx < w and 0 <= cy < h and mask[cy, cx]:
                continue  # hidden under the hand
            seen.append(TruthDie(die.value, box, die.moving))
        self.frames.append(self._render())
        self.truth.append(FrameTruth(self.t - 1 / self.fps, tuple(seen), moved))

    # --- script -------------------------------------------------------------------------------------------------

    def still(self, seconds: float) -> TableVideo:
        for _ in range(self._frames(seconds)):
            self._emit(False)
        return self

    def _spots(self, n: int, keep: Sequence[_Die]) -> list[tuple[float, float]]:
        assert self.land is not None
        x0, y0, x1, y1 = self.land
        spots: list[tuple[float, float]] = []
        for _ in range(4000):
            if len(spots) == n:
                return spots
            p = (
                float(self.rng.uniform(x0 + self.die_px, x1 - self.die_px)),
                float(self.rng.uniform(y0 + self.die_px, y1 - self.die_px)),
            )
            others = [(d.x, d.y) for d in keep if d.on_table] + spots
            if all(math.dist(p, q) > self.die_px * 1.8 for q in others):
                spots.append(p)
        raise ValueError("No room left to land the dice; use a larger frame or fewer dice.")

    def throw(
        self, values: Sequence[int], held: Sequence[int] = (), seconds: float = 0.6, propose: bool = True
    ) -> TableVideo:
        """Throw every die not ``held`` (positions); they fly in from the top edge and land as ``values``."""
        if any(not 1 <= v <= 6 for v in values):
            raise ValueError("Die values are 1..6.")
        if held and len(values) != len(self.dice):
            raise ValueError("With held dice, give the values of all dice by position.")
        for p in held:
            if self.dice[p].value != values[p]:
                raise ValueError(f"Held die {p} shows {self.dice[p].value}, not {values[p]}.")
        if not held:
            self.dice = [_Die(v, 0, 0, 0, on_table=False) for v in values]
        moving = [i for i in range(len(values)) if i not in held]
        kept = [self.dice[i] for i in held]
        ends = self._spots(len(moving), kept)
        w, _ = self.size
        starts = [(float(self.rng.uniform(0.2 * w, 0.8 * w)), -self.die_px * 1.5) for _ in moving]
        spins = [float(self.rng.uniform(-8, 8)) for _ in moving]
        rests = [float(self.rng.uniform(0, 2 * math.pi)) for _ in moving]  # dice land turned any way
        n = self._frames(seconds)
        for f in range(1, n + 1):
            a = 1 - (1 - f / n) ** 2  # slows down as it lands
            for k, i in enumerate(moving):
                die = self.dice[i]
                die.on_table = True
                die.x = starts[k][0] + (ends[k][0] - starts[k][0]) * a
                die.y = starts[k][1] + (ends[k][1] - starts[k][1]) * a
                die.angle = rests[k] + spins[k] * (1 - a)
                die.moving = f < n
                die.value = int(values[i]) if f > 0.75 * n else int(self.rng.integers(1, 7))
            self._emit(True)
        # Thrown dice take the free positions left to right (the order a camera gives them).
        landed = sorted((self.dice[i] for i in moving), key=lambda d: self._box(d)[:2])
        for i, die in zip(moving, landed, strict=True):
            self.dice[i] = die
        dice = tuple(d.value for d in self.dice)
        self.events.append(Event("throw", self.t, propose, dice, tuple(sorted(held))))
        return self

    def hand(self, stay: float = 0.0, reach: float = 0.4, depth: float = 0.55) -> TableVideo:
        """A hand reaches in from the player's edge, waits ``stay`` seconds still, and goes; no die moves."""
        w, h = self.size
        x = float(self.rng.uniform(0.35 * w, 0.65 * w))
        far, near = h + self.die_px * 6.0, h * (1 - depth)
        n = self._frames(reach)
        for f in range(1, n + 1):
            self.hand_at = (x, far + (near - far) * f / n)
            self._emit(True)
        t_still = self.t
        for _ in range(self._frames(stay) if stay > 0 else 0):
            self._emit(False)
        for f in range(1, n + 1):
            self.hand_at = (x, near + (far - near) * f / n)
            self._emit(True)
        self.hand_at = None
        self.events.append(Event("hand", self.t if stay <= 0 else t_still, False))
        return self

    def roll_off(self, position: int, seconds: float = 0.5, out: float = 2.0) -> TableVideo:
        """Die ``position`` rolls away to the right, ``out`` die sizes beyond the landing area's edge."""
        assert self.land is not None
        die = self.dice[position]
        x_end = self.land[2] + out * self.die_px
        x_start, n = die.x, self._frames(seconds)
        for f in range(1, n + 1):
            die.x = x_start + (x_end - x_start) * f / n
            die.angle += 0.4
            die.moving = f < n
            die.value = int(self.rng.integers(1, 7)) if f < n else die.value
            self._emit(True)
        self.events.append(Event("roll_off", self.t, False))
        return self

    def slide(self, positions: Sequence[int], to: Sequence[tuple[float, float]], seconds: float = 0.4) -> TableVideo:
        """Push dice to new places without turning them (setting dice aside in the holding area)."""
        starts = [(self.dice[p].x, self.dice[p].y) for p in positions]
        n = self._frames(seconds)
        for f in range(1, n + 1):
            for (sx, sy), (ex, ey), p in zip(starts, to, positions, strict=True):
                self.dice[p].x = sx + (ex - sx) * f / n
                self.dice[p].y = sy + (ey - sy) * f / n
                self.dice[p].moving = f < n
            self._emit(True)
        self.events.append(Event("hold", self.t, False))
        return self

    def pick_up(self, positions: Sequence[int]) -> TableVideo:
        """Dice taken off the table (into the cup) between frames."""
        for p in positions:
            self.dice[p].on_table = False
        self._emit(True)
        return self


class TruthReader:
    """A reader that answers from the video's ground truth (set ``current`` before each frame is read).

    ``scale`` maps the video's pixels to those of the frame the pipeline reads (a rectified top view);
    ``offset`` is added after scaling. Moving dice read as a random face with low confidence.
    """

    def __init__(
        self, kind: str = "pip", scale: float = 1.0, offset: tuple[float, float] = (0.0, 0.0), seed: int = 0
    ) -> None:
        self.kind = kind
        self.scale = scale
        self.offset = offset
        self.current: FrameTruth | None = None
        self.calls = 0
        self.told: int | None = None  # the count of dice the last read was told (the watched game's)
        self.rng = np.random.default_rng(seed)

    def __call__(self, bgr: np.ndarray, memory: object = None, count: int | None = None) -> Reading:
        self.calls += 1
        self.told = count
        h, w = bgr.shape[:2]
        faces = PIP_FACES if self.kind == "pip" else POKER_FACES
        dice = []
        for d in self.current.dice if self.current else ():
            x0, y0, x1, y1 = (round(v * self.scale + self.offset[i % 2]) for i, v in enumerate(d.box))
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
            if x0 >= x1 or y0 >= y1:
                continue
            value = int(self.rng.integers(1, 7)) if d.moving else d.value
            conf = 0.4 if d.moving else 0.99
            dice.append(Die(faces[value - 1], value, conf, (x0, y0, x1, y1), d.moving, self.kind))
        return Reading(self.kind, tuple(dice), w, h)


def write_video(path: str | Path, frames: Sequence[np.ndarray], fps: float = 30.0) -> Path:
    """Write frames as MJPG in an .avi, which every OpenCV build can read back."""
    if not frames:
        raise ValueError("No frames to write.")
    h, w = frames[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (w, h))
    if not out.isOpened():
        raise OSError(f"Cannot write a video to {path}.")
    for frame in frames:
        out.write(frame)
    out.release()
    return Path(path)
