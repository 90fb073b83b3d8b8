"""A throw filmed from above: empty table, a hand brings the dice, they tumble (blurred), settle and lie still.

Every frame carries its truth, so camera code (settle detection, reading at rest, covered view) can be tested on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.scene import Scene, SceneDie, _Die, compose, new_die, prepare, rng_for
from vision.synth.style import SceneStyle

PHASES = ("empty", "hand", "rolling", "settled")


@dataclass(frozen=True)
class VideoFrame:
    """One frame: the picture, the phase of the throw, and the dice as they lie in it.

    ``dice`` holds the labels of the dice in view (during "rolling" their faces are what is up at that instant and
    the picture is blurred); ``hand_box`` is where the hand is, or None.
    """

    image: np.ndarray
    phase: str
    dice: tuple[SceneDie, ...]
    hand_box: tuple[int, int, int, int] | None
    index: int


@dataclass(frozen=True)
class Video:
    frames: tuple[VideoFrame, ...]
    fps: float
    kind: str
    seed: int

    @property
    def settled(self) -> list[SceneDie]:
        """The final reading: the dice of the last frame."""
        return list(self.frames[-1].dice)

    @property
    def first_settled(self) -> int:
        """Index of the first frame at rest."""
        return next(f.index for f in self.frames if f.phase == "settled")


def _hand(rng: np.random.Generator, w: int, h: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Entry point on an image edge, hand position near the middle, and the hand's width in pixels."""
    side = int(rng.integers(0, 4))
    t = rng.uniform(0.2, 0.8)
    entry = np.array([[t * w, -0.1 * h], [1.1 * w, t * h], [t * w, 1.1 * h], [-0.1 * w, t * h]][side])
    target = np.array([rng.uniform(0.35, 0.65) * w, rng.uniform(0.35, 0.65) * h])
    return entry, target, float(rng.uniform(0.18, 0.3) * min(w, h))


def _draw_hand(img: np.ndarray, entry: np.ndarray, pos: np.ndarray, width: float, skin: np.ndarray) -> np.ndarray:
    """A forearm from the edge to a fist at ``pos`` with a soft shadow; returns the drawn polygon's points.

    The hand is drawn on a canvas larger than the frame, so the shadow of the arm beyond the edge falls into view
    where it should and nothing wraps round to the opposite edge."""
    h, w = img.shape[:2]
    dy, dx, sigma = round(width * 0.15), round(width * 0.1), width * 0.15
    pad = dy + math.ceil(3 * sigma) + 1
    mask = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    entry, pos = entry + pad, pos + pad
    d = pos - entry
    ang = math.atan2(d[1], d[0])
    p0 = (round(entry[0] * 16), round(entry[1] * 16))
    p1 = (round(pos[0] * 16), round(pos[1] * 16))
    cv2.line(mask, p0, p1, 255, max(2, round(width * 0.8)), cv2.LINE_AA, 4)
    axes = (max(1, round(width * 0.6)), max(1, round(width * 0.5)))
    cv2.ellipse(mask, (round(pos[0]), round(pos[1])), axes, math.degrees(ang), 0, 360, 255, -1, cv2.LINE_AA)
    for k in range(4):  # knuckles
        off = (k - 1.5) * width * 0.22
        fx = pos[0] + math.cos(ang) * width * 0.55 - math.sin(ang) * off
        fy = pos[1] + math.sin(ang) * width * 0.55 + math.cos(ang) * off
        cv2.circle(mask, (round(fx), round(fy)), max(1, round(width * 0.14)), 255, -1, cv2.LINE_AA)
    big = mask.astype(np.float32) / 255
    shadow = cv2.GaussianBlur(big, (0, 0), sigma)[pad - dy : pad - dy + h, pad - dx : pad - dx + w]
    mask, m = mask[pad : pad + h, pad : pad + w], big[pad : pad + h, pad : pad + w]
    img *= (1 - 0.45 * shadow)[..., None]
    shade = cv2.GaussianBlur(m, (0, 0), max(1.0, width * 0.12))  # rounder at the edges
    colour = skin[None, None, :] * (0.6 + 0.4 * shade)[..., None]
    img *= (1 - m)[..., None]
    img += colour * m[..., None]
    ys, xs = np.nonzero(mask > 127)
    return np.array([[xs.min(), ys.min()], [xs.max() + 1, ys.max() + 1]]) if len(xs) else np.zeros((0, 2))


def render_video(
    seed: int,
    *,
    kind: str = "pip",
    n_dice: int | None = None,
    size: tuple[int, int] = (640, 480),
    split: str = "train",
    fps: float = 15.0,
    style: SceneStyle | None = None,
    empty_s: float = 0.5,
    hand_s: float = 0.8,
    rolling_s: float = 1.0,
    settled_s: float = 1.0,
) -> Video:
    """A throw of ``n_dice`` dice as frames with truth. Effects (light, white balance, lens) stay fixed over the
    video; sensor noise changes every frame, as in a real camera. Phases last the given seconds."""
    if not 1 <= fps <= 120:
        raise ValueError(f"fps must lie in [1, 120], not {fps!r}.")
    for name, val in (("empty_s", empty_s), ("hand_s", hand_s), ("rolling_s", rolling_s), ("settled_s", settled_s)):
        if not 0 <= val <= 30:
            raise ValueError(f"{name} must lie in [0, 30] seconds, not {val!r}.")
    setup = prepare(seed, kind, n_dice, size, split, style, salt=2)
    rng = rng_for(seed, kind, split, salt=3)
    W, H = setup.cam.width, setup.cam.height
    entry, target, width = _hand(rng, W, H)
    skin = np.array(
        [[0.55, 0.65, 0.85], [0.45, 0.55, 0.75], [0.25, 0.35, 0.5], [0.6, 0.72, 0.9]][int(rng.integers(0, 4))]
    )
    skin = skin * rng.uniform(0.85, 1.1)
    # Where each die starts rolling: near the hand, tumbling out towards its resting place.
    release = setup.cam.ray_to_plane(target[None, :], 0.5)[0, :2]
    starts = [release + rng.normal(0, 0.6, 2) for _ in setup.dice]
    spins = [rng.uniform(2, 8) * rng.choice([-1, 1]) for _ in setup.dice]
    n_empty, n_hand = round(empty_s * fps), round(hand_s * fps)
    n_roll, n_settled = round(rolling_s * fps), max(1, round(settled_s * fps))
    frames: list[VideoFrame] = []
    fx_seed = int(rng.integers(0, 2**31))

    def photo() -> np.random.Generator:
        """The same lamp, white balance and lens in every frame, whatever dice or hand are in view."""
        return np.random.default_rng([fx_seed, 2])

    def shoot(dice: list[_Die], hand_at: np.ndarray | None, phase: str, sub: list[list[_Die]] | None = None) -> None:
        idx = len(frames)
        box: list[np.ndarray] = []

        def overlay(img: np.ndarray) -> None:
            if hand_at is not None:
                box.append(_draw_hand(img, entry, hand_at, width, skin))

        noise = np.random.default_rng([fx_seed, idx, 1])
        if sub:  # motion blur: the mean of pictures taken during the exposure
            acc = None
            scene: Scene | None = None
            for dk in sub:
                scene = compose(setup, dk, np.random.default_rng([fx_seed, 0]), noise_rng=noise, photo_rng=photo())
                acc = scene.image.astype(np.float32) if acc is None else acc + scene.image
            assert scene is not None and acc is not None
            image = (acc / len(sub) + 0.5).astype(np.uint8)
        else:
            scene = compose(
                setup, dice, np.random.default_rng([fx_seed, 0]), noise_rng=noise, overlay=overlay, photo_rng=photo()
            )
            image = scene.image
        hb = None
        if box and len(box[0]):
            (x0, y0), (x1, y1) = box[0]
            hb = (int(max(0, x0)), int(max(0, y0)), int(min(W, x1)), int(min(H, y1)))
        frames.append(VideoFrame(image, phase, tuple(scene.dice), hb, idx))

    for _ in range(n_empty):
        shoot([], None, "empty")
    for i in range(n_hand):
        t = (i + 1) / max(1, n_hand)
        # In, pause, and out again: the hand holds the dice until it opens at the middle of the phase.
        reach = min(1.0, t * 2.2) if t < 0.6 else max(0.0, 1 - (t - 0.6) * 2.5)
        shoot([], entry + (target - entry) * (1 - (1 - reach) ** 2), "hand")
    for i in range(n_roll):
        subs = []
        for k in range(3):
            t = min(1.0, (i + k / 3) / max(1, n_roll - 1))
            ease = 1 - (1 - t) ** 3
            states = []
            for d, start, spin in zip(setup.dice, starts, spins, strict=True):
                c = start + (d.centre - start) * ease
                yaw = d.yaw + spin * (1 - ease)
                flips = int((1 - ease) * 6)  # tumbling: a new face comes up every stretch of the path
                rank = d.rank if flips == 0 else (d.rank + flips * 2 + int(spin)) % 6 + 1
                states.append(d if flips == 0 and abs(yaw - d.yaw) < 1e-6 else _moved(rng, d, c, yaw, rank))
            subs.append(states)
        shoot(subs[-1], None, "rolling", subs)
    for _ in range(n_settled):
        shoot(setup.dice, None, "settled")
    return Video(tuple(frames), float(fps), kind, seed)


def _moved(rng: np.random.Generator, d: _Die, centre: np.ndarray, yaw: float, rank: int) -> _Die:
    if rank == d.rank:
        return _Die(centre, yaw, d.design, d.rank, d.side_ranks, d.side_turns)
    return new_die(rng, centre, yaw, d.design, rank)


__all__ = ["PHASES", "Video", "VideoFrame", "render_video"]
