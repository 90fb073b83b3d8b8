"""Synthetic photos of dice on tables, with exact labels: training and test data for the dice reader.

No labelled photos of poker dice exist, so poker dice are rendered; pip dice are rendered too, on tables and in
colours the real photo sets lack. See docs/synth.md for what varies and how train and test differ.

    from vision.synth import render_scene, render_face
    scene = render_scene(7, kind="poker", n_dice=5)
    scene.image            # BGR uint8, 640x480
    scene.dice[0].box      # (x0, y0, x1, y1): the whole die as seen
    scene.dice[0].face     # "Q"; .printed "D" on a German or French die; .value 4
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from vision.synth.scene import Scene, SceneDie, render, rng_for
from vision.synth.style import (
    BACKGROUNDS,
    SPLITS,
    TEST_BACKGROUNDS,
    TRAIN_BACKGROUNDS,
    DieDesign,
    SceneStyle,
    check_kind_split,
    sample_design,
)
from vision.synth.video import Video, VideoFrame, render_video

__all__ = [
    "BACKGROUNDS",
    "SPLITS",
    "TEST_BACKGROUNDS",
    "TRAIN_BACKGROUNDS",
    "DieDesign",
    "Scene",
    "SceneDie",
    "SceneStyle",
    "Video",
    "VideoFrame",
    "render_face",
    "render_face_labelled",
    "render_scene",
    "render_video",
    "sample_design",
]


def render_scene(
    seed: int,
    *,
    kind: str = "pip",
    n_dice: int | None = None,
    size: tuple[int, int] = (640, 480),
    split: str = "train",
    style: SceneStyle | None = None,
    values: Sequence[int] | None = None,
) -> Scene:
    """A photo-like scene of ``n_dice`` dice (0..40; drawn from the seed when None) with exact labels.

    The same (seed, kind, split, size, style, values) always gives the same image. ``split`` picks disjoint pools of
    die designs and tables; the split is also part of the random stream, so seed 3 of "train" and of "test" are
    unrelated. ``values`` pins the ranks (1..6) shown, one per die, for scenes with known faces.
    """
    return render(seed, kind, n_dice, tuple(size) if isinstance(size, list) else size, split, style, values=values)


def render_face(
    seed: int,
    *,
    kind: str = "pip",
    value: int | None = None,
    size: int = 64,
    split: str = "train",
    style: SceneStyle | None = None,
) -> np.ndarray:
    """A ``size`` x ``size`` BGR crop of one die, centred on it like a detector's box crop, at a random rotation.

    The die's whole outline fills about 70-95% of the crop; touching neighbours may show at the border. ``value``
    is the rank 1..6 of the top face (drawn from the seed when None); use ``render_face_labelled`` to get it back.
    """
    return render_face_labelled(seed, kind=kind, value=value, size=size, split=split, style=style)[0]


def render_face_labelled(
    seed: int,
    *,
    kind: str = "pip",
    value: int | None = None,
    size: int = 64,
    split: str = "train",
    style: SceneStyle | None = None,
) -> tuple[np.ndarray, SceneDie]:
    """``render_face`` plus the centre die's label (its box and quad in crop pixels)."""
    check_kind_split(kind, split)
    if isinstance(size, bool) or not isinstance(size, int) or not 16 <= size <= 1024:
        raise ValueError(f"size must be an int in 16..1024, not {size!r}.")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6):
        raise ValueError(f"value must be a rank 1..6, not {value!r}.")
    rng = rng_for(seed, kind, split, salt=1)
    canvas = int(min(max(3 * size, 96), 512))
    st = style or SceneStyle()
    if st.die_px is None:
        st = replace(st, die_px=canvas * float(rng.uniform(0.26, 0.36)))
    if st.fov_deg is None:  # a die seen from a normal distance, not a close-up: it spans 3-12 degrees of view
        st = replace(st, fov_deg=float(rng.uniform(12, 40)))
    if st.distractors is None:
        st = replace(st, distractors=False)
    n = 1 if rng.random() < 0.6 else int(rng.integers(2, 5))
    scene = render(seed, kind, n, (canvas, canvas), split, st, centre_die=True, top_rank=value)
    die = scene.dice[0]
    x0, y0, x1, y1 = die.box
    side = max(x1 - x0, y1 - y0) / rng.uniform(0.7, 0.95)
    cx = (x0 + x1) / 2 + rng.uniform(-0.05, 0.05) * side
    cy = (y0 + y1) / 2 + rng.uniform(-0.05, 0.05) * side
    src = np.array(
        [[cx - side / 2, cy - side / 2], [cx + side / 2, cy - side / 2], [cx + side / 2, cy + side / 2]], np.float32
    )
    dst = np.array([[0, 0], [size, 0], [size, size]], np.float32)
    m = cv2.getAffineTransform(src, dst)
    scale = size / side
    img = scene.image
    if scale < 0.7:  # pre-shrink so the warp does not alias
        img = cv2.GaussianBlur(img, (0, 0), 0.45 / scale)
    crop = cv2.warpAffine(img, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    def mapped(pts: np.ndarray) -> np.ndarray:
        return np.asarray(pts @ m[:, :2].T + m[:, 2])

    quad = mapped(np.array(die.top_quad))

    def box_of(b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        p = mapped(np.array([[b[0], b[1]], [b[2], b[3]]], np.float64))
        x0, y0 = max(0, int(np.floor(p[0, 0]))), max(0, int(np.floor(p[0, 1])))
        return (x0, y0, max(x0 + 1, min(size, int(np.ceil(p[1, 0])))), max(y0 + 1, min(size, int(np.ceil(p[1, 1])))))

    box, tq = box_of(die.box), box_of(die.top_box)
    label = replace(
        die,
        box=box,
        top_box=tq,
        top_quad=tuple((round(float(x), 2), round(float(y), 2)) for x, y in quad),
        px=round(die.px * scale, 2),
    )
    return np.ascontiguousarray(crop), label
