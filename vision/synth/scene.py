"""Scenes of dice on a table: rounded cubes under a tilted pinhole camera, with shadows, glare and photo effects."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from vision.synth import effects
from vision.synth.camera import Camera
from vision.synth.faces import face_texture, texture_size_for
from vision.synth.style import (
    SPLITS,
    TEST_BACKGROUNDS,
    TRAIN_BACKGROUNDS,
    DieDesign,
    SceneStyle,
    check_kind_split,
    faces_of,
    sample_design,
)
from vision.synth.tables import make_table

KIND_CODE = {"pip": 1, "poker": 2}
MAX_DICE = 40
MAX_TILT = math.radians(4)


@dataclass(frozen=True)
class SceneDie:
    """One die in a rendered scene, with its exact label.

    ``box`` is the whole die's outline as seen (top face plus any visible sides, rounded corners included), like the
    rune55 labels, clipped to the image. ``top_box``/``top_quad`` cover the top face alone (corners in the order of
    the printed face: its top-left, top-right, bottom-right, bottom-left). ``rotation`` is the angle in degrees,
    clockwise, from image-up to the printed face's up direction. ``visible`` is the share of the top face that no
    other die hides.
    """

    box: tuple[int, int, int, int]
    value: int
    face: str
    printed: str
    kind: str
    rotation: float
    top_box: tuple[int, int, int, int]
    top_quad: tuple[tuple[float, float], ...]
    visible: float
    px: float  # the top face's side on screen, pixels
    # visible side faces whose middle no die's top face hides (corners on screen): what a reader must not read
    side_quads: tuple[tuple[tuple[float, float], ...], ...] = ()


@dataclass
class Scene:
    image: np.ndarray  # BGR uint8
    dice: list[SceneDie]
    kind: str
    seed: int
    split: str
    style: SceneStyle = field(default_factory=SceneStyle)

    @property
    def values(self) -> str:
        """Faces space-separated in rank order, as in labels.csv."""
        order = faces_of(self.kind)
        return " ".join(sorted((d.face for d in self.dice), key=order.index))

    @property
    def boxes(self) -> str:
        """``x0,y0,x1,y1:face;...`` as in labels.csv."""
        return ";".join(f"{d.box[0]},{d.box[1]},{d.box[2]},{d.box[3]}:{d.face}" for d in self.dice)


@dataclass
class _Die:
    centre: np.ndarray  # table x, y
    yaw: float
    design: DieDesign
    rank: int
    side_ranks: tuple[int, int, int, int]  # faces +x, -x, +y, -y
    side_turns: tuple[int, int, int, int]
    tilt: tuple[float, float] = (0.0, 0.0)  # small rolls about the die's x and y axes (resting unevenly), radians

    def pose(self) -> tuple[np.ndarray, np.ndarray]:
        """Rotation and centre in the world; the lowest corner touches the table."""
        r = _rot(self.yaw)
        if self.tilt != (0.0, 0.0):
            cx, sx = math.cos(self.tilt[0]), math.sin(self.tilt[0])
            cy, sy = math.cos(self.tilt[1]), math.sin(self.tilt[1])
            r = r @ np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]]) @ np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
        z = float(-(_CUBE @ r.T)[:, 2].min())
        return r, np.array([self.centre[0], self.centre[1], z])


def rng_for(seed: int, kind: str, split: str, salt: int = 0) -> np.random.Generator:
    """Train and test streams never meet: the split is part of the seed sequence."""
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, not {seed!r}.")
    return np.random.default_rng([int(seed), KIND_CODE[kind], SPLITS.index(split) + 11, salt, 0xD1CE])


def _sides(design: DieDesign, rank: int, rng: np.random.Generator) -> tuple[int, int, int, int]:
    opp = design.opposite[rank - 1]
    rest = [r for r in range(1, 7) if r not in (rank, opp)]
    a = rest[int(rng.integers(0, 4))]
    b = design.opposite[a - 1]
    c = next(r for r in rest if r not in (a, b))
    d = design.opposite[c - 1]
    return (a, b, c, d)


def _rot(yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


# the steepest ray through an image corner, degrees from straight down; scenes tilted up to 42 degrees never reach it
CORNER_RAY_MAX = 88.0

# Faces as (normal, corner offsets TL, TR, BR, BL) in the die frame, die centre at origin, side 1.
_H = 0.5
_FACES = {
    "top": ((0, 0, 1), ((-_H, _H, _H), (_H, _H, _H), (_H, -_H, _H), (-_H, -_H, _H))),
    "+x": ((1, 0, 0), ((_H, -_H, _H), (_H, _H, _H), (_H, _H, -_H), (_H, -_H, -_H))),
    "-x": ((-1, 0, 0), ((-_H, _H, _H), (-_H, -_H, _H), (-_H, -_H, -_H), (-_H, _H, -_H))),
    "+y": ((0, 1, 0), ((_H, _H, _H), (-_H, _H, _H), (-_H, _H, -_H), (_H, _H, -_H))),
    "-y": ((0, -1, 0), ((-_H, -_H, _H), (_H, -_H, _H), (_H, -_H, -_H), (-_H, -_H, -_H))),
}
_CIRCLE = np.stack(
    [np.cos(np.linspace(0, 2 * math.pi, 12, endpoint=False)), np.sin(np.linspace(0, 2 * math.pi, 12, endpoint=False))],
    axis=1,
)


def _footprint(c: np.ndarray, yaw: float) -> np.ndarray:
    r = _rot(yaw)[:2, :2]
    sq = np.array([[-_H, -_H], [_H, -_H], [_H, _H], [-_H, _H]])
    return np.asarray(sq @ r.T + c)


def _overlap(a: tuple[np.ndarray, float], b: tuple[np.ndarray, float], gap: float = 0.0) -> bool:
    """Separating-axis test of two unit squares (centre, yaw) on the table, with a required ``gap``."""
    d = b[0] - a[0]
    dist = math.hypot(d[0], d[1])
    if dist >= math.sqrt(2) + gap:  # circumscribed circles apart
        return False
    if dist < 1.0:  # inscribed circles overlap
        return True
    for yaw in (a[1], b[1]):
        for n in ((math.cos(yaw), math.sin(yaw)), (-math.sin(yaw), math.cos(yaw))):
            ra = _H * (
                abs(n[0] * math.cos(a[1]) + n[1] * math.sin(a[1])) + abs(-n[0] * math.sin(a[1]) + n[1] * math.cos(a[1]))
            )
            rb = _H * (
                abs(n[0] * math.cos(b[1]) + n[1] * math.sin(b[1])) + abs(-n[0] * math.sin(b[1]) + n[1] * math.cos(b[1]))
            )
            if abs(d[0] * n[0] + d[1] * n[1]) >= ra + rb + gap - 1e-9:
                return False
    return True


_SIGNS = np.repeat(np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]), len(_CIRCLE), axis=0)
_ROUND = np.tile(_CIRCLE, (4, 1))


def _rounded(corners: np.ndarray, rho: float) -> np.ndarray:
    """Points on a square face (4 corners, 3D) with its corners rounded by ``rho`` in the face's plane."""
    c = corners.mean(axis=0)
    e1 = corners[1] - corners[0]
    e2 = corners[3] - corners[0]  # unit length: faces are unit squares
    coef = _SIGNS * (_H - rho) + _ROUND * rho
    return np.asarray(c + coef[:, :1] * e1 + coef[:, 1:] * e2)


_FACE_CORNERS = {name: np.array(corners, np.float64) for name, (_n, corners) in _FACES.items()}
_CUBE = np.array([[x, y, z] for x in (-_H, _H) for y in (-_H, _H) for z in (-_H, _H)])


@functools.lru_cache(maxsize=64)
def _die_points(rho: float) -> np.ndarray:
    return np.concatenate([_rounded(c, rho) for c in _FACE_CORNERS.values()]) if rho > 0 else _CUBE


def _silhouette(cam: Camera, centre: np.ndarray, yaw: float, rho: float, rot: np.ndarray | None = None,
                origin: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """Outline of the die as drawn on screen: the hull of its six faces, each with rounded corners."""
    r = _rot(yaw) if rot is None else rot
    o = np.array([centre[0], centre[1], _H]) if origin is None else origin
    uv, _ = cam.project(_die_points(rho) @ r.T + o)
    return np.asarray(cv2.convexHull(uv.astype(np.float32))[:, 0, :], np.float64)


def _top_outline(cam: Camera, rot: np.ndarray, origin: np.ndarray, rho: float) -> np.ndarray:
    """Outline of the top face as drawn on screen, rounded corners included."""
    uv, _ = cam.project(_rounded(_FACE_CORNERS["top"], rho) @ rot.T + origin)
    return np.asarray(cv2.convexHull(uv.astype(np.float32))[:, 0, :], np.float64)


def _densify(poly: np.ndarray, step: float = 4.0) -> np.ndarray:
    """Points every ``step`` pixels along a closed polygon, so that a lens warp bends its edges correctly."""
    nxt = np.roll(poly, -1, axis=0)
    k = np.maximum(1, (np.linalg.norm(nxt - poly, axis=1) / step).astype(int))
    idx = np.repeat(np.arange(len(poly)), k)
    t = (np.arange(k.sum()) - np.repeat(np.cumsum(k) - k, k)) / np.repeat(k, k)
    return np.asarray(poly[idx] + t[:, None] * (nxt[idx] - poly[idx]))


def _choose_n(rng: np.random.Generator) -> int:
    r = rng.random()
    if r < 0.15:
        return int(rng.integers(1, 3))
    if r < 0.7:
        return int(rng.integers(3, 7))
    if r < 0.9:
        return int(rng.integers(7, 13))
    return int(rng.integers(13, 26))


def _draw_style(
    rng: np.random.Generator, kind: str, split: str, style: SceneStyle, n: int, size: tuple[int, int]
) -> SceneStyle:
    W, H = size
    backgrounds = TRAIN_BACKGROUNDS if split == "train" else TEST_BACKGROUNDS
    tilt = float(rng.uniform(0, 12)) if rng.random() < 0.45 else float(rng.uniform(12, 42))
    fit = math.sqrt(0.35 * W * H / max(n, 1)) / 1.5
    hi = min(0.6 * min(W, H), fit, 420.0 * max(W, H) / 640)
    n_designs = 1 if rng.random() < 0.8 else 2
    designs = style.designs or tuple(sample_design(rng, kind, split, style.bodies) for _ in range(n_designs))
    # Smallest dice: 20 px at 640x480; poker letters need a little more, card pictures more still.
    least = 0.042 * min(W, H)
    if kind == "poker":
        least *= 1.5 if any(d.layout == "card" for d in designs) else 1.15
    lo = min(max(10.0, least), hi * 0.9)
    die_px = float(math.exp(rng.uniform(math.log(lo), math.log(hi))))
    fx = rng.random() < 0.95 if style.effects else False
    return style.resolved(
        background=backgrounds[int(rng.integers(0, len(backgrounds)))],
        tilt_deg=tilt,
        fov_deg=float(rng.uniform(45, 78)),
        die_px=die_px,
        designs=designs,
        touching=float(rng.choice([0.0, 0.2, 0.5])),
        shadows=bool(rng.random() < 0.85),
        distractors=bool(rng.random() < 0.3),
        blur=float(rng.choice([0.0, rng.uniform(0.3, 1.0), rng.uniform(1.0, 2.2)], p=[0.45, 0.4, 0.15])) if fx else 0.0,
        motion_blur=float(rng.uniform(2, 7)) if fx and rng.random() < 0.12 else 0.0,
        noise=float(rng.uniform(0.005, 0.05)) if fx else 0.0,
        jpeg_quality=int(rng.integers(35, 96)) if fx and rng.random() < 0.8 else 0,
        fisheye=float(rng.uniform(0.1, 0.6)) if fx and rng.random() < 0.12 else 0.0,
        greyscale=bool(fx and rng.random() < 0.12),
        vignette=float(rng.uniform(0, 0.5))
        if fx and rng.random() < 0.9
        else float(rng.uniform(0.5, 0.85))
        if fx
        else 0.0,
        exposure=float(
            rng.choice([rng.uniform(0.85, 1.15), rng.uniform(0.45, 0.85), rng.uniform(1.15, 1.6)], p=[0.7, 0.18, 0.12])
        )
        if fx
        else 1.0,
        resample=float(rng.uniform(1.3, 3.0)) if fx and rng.random() < 0.2 else 1.0,
        tone=float(rng.uniform(0.75, 1.3)) if fx and rng.random() < 0.5 else 1.0,
        tube=float(rng.uniform(0.85, 1.2)) if fx and rng.random() < 0.06 else 0.0,
    )


def _readable(st: SceneStyle, pinned: SceneStyle) -> SceneStyle:
    """Tame drawn blur, resampling and JPEG for small dice, so that every face stays readable by a person."""
    px = (st.die_px or 100.0) * 0.8
    caps: dict[str, Any] = {}
    if pinned.blur is None and st.blur:
        caps["blur"] = min(st.blur, max(0.3, 0.05 * px))
    if pinned.motion_blur is None and st.motion_blur:
        caps["motion_blur"] = min(st.motion_blur, max(1.0, 0.12 * px))
    if pinned.resample is None and st.resample and st.resample > 1:
        caps["resample"] = max(1.0, min(st.resample, 0.07 * px))
    if pinned.jpeg_quality is None and st.jpeg_quality and px < 40:
        caps["jpeg_quality"] = max(st.jpeg_quality, 60)
    return replace(st, **caps) if caps else st


def _place(
    rng: np.random.Generator,
    cam: Camera,
    n: int,
    style: SceneStyle,
    allowed: np.ndarray | None,
    keep_out: list[tuple[float, float, float]],
    min_side: float = 0.0,
) -> list[tuple[np.ndarray, float]] | None:
    W, H = cam.width, cam.height
    placed: list[tuple[np.ndarray, float]] = []
    margin = 2.0 + 0.08 * (style.die_px or 0.0)  # room for a die resting a little tilted
    touching = style.touching or 0.0
    top = np.array(_FACES["top"][1])
    for _ in range(n):
        for _try in range(80):
            if placed and rng.random() < touching:
                c0, y0 = placed[int(rng.integers(0, len(placed)))]
                yaw = y0 + (rng.uniform(-0.12, 0.12) if rng.random() < 0.6 else rng.uniform(0, math.pi / 2))
                axis = y0 + int(rng.integers(0, 4)) * math.pi / 2 + rng.uniform(-0.3, 0.3)
                d = np.array([math.cos(axis), math.sin(axis)])
                step = 1.0
                while step < 1.6 and _overlap((c0, y0), (c0 + d * step, yaw)):
                    step += 0.01
                c = c0 + d * (step + rng.uniform(0, 0.03))
            else:
                uv = np.array([[rng.uniform(0.03, 0.97) * W, rng.uniform(0.03, 0.97) * H]])
                c = cam.ray_to_plane(uv, _H)[0, :2]
                yaw = rng.uniform(0, 2 * math.pi)
            if any(_overlap((c, yaw), p, 0.0) for p in placed):
                continue
            if any(math.hypot(c[0] - x, c[1] - y) < r for x, y, r in keep_out):
                continue
            if allowed is not None:
                fp = _footprint(c, yaw)
                poly = allowed.astype(np.float32)
                if any(cv2.pointPolygonTest(poly, (float(x), float(y)), False) < 0 for x, y in fp):
                    continue
            if min_side > 0:  # far dice under a steep tilt shrink: keep their top faces readable
                uv, _ = cam.project(top @ _rot(yaw).T + np.array([c[0], c[1], _H]))
                if min(np.linalg.norm(uv[1] - uv[0]), np.linalg.norm(uv[3] - uv[0])) < min_side:
                    continue
            sil = _silhouette(cam, c, yaw, 0.0)
            if style.fisheye:  # the lens pushes points outwards: the die must stay in the frame afterwards
                sil = effects.fisheye_points(_densify(sil, 3.0), W, H, style.fisheye)
            if style.tube:
                r = np.hypot(sil[:, 0] - W / 2, sil[:, 1] - H / 2).max()
                if r > style.tube * min(W, H) / 2 * 0.97:
                    continue
            if (
                sil[:, 0].min() < margin
                or sil[:, 1].min() < margin
                or sil[:, 0].max() > W - margin
                or sil[:, 1].max() > H - margin
            ):
                continue
            placed.append((c, float(yaw)))
            break
        else:
            return None
    return placed


def _paste(
    img: np.ndarray,
    rgba: np.ndarray,
    x0: int,
    y0: int,
    shade: np.ndarray | float,
    alpha_scale: np.ndarray | float = 1.0,
) -> np.ndarray:
    """Blend a warped BGRA patch at (x0, y0); returns the alpha actually used."""
    h, w = rgba.shape[:2]
    roi = img[y0 : y0 + h, x0 : x0 + w]
    a = rgba[..., 3:4] * alpha_scale
    roi *= 1 - a
    roi += rgba[..., :3] * shade * a
    return a[..., 0]


@functools.lru_cache(maxsize=64)
def edge_bands(T: int, corner: float) -> np.ndarray:
    """Four soft bands along the left, right, top and bottom edges of a face texture (T x T x 4)."""
    pos = (np.arange(T, dtype=np.float32) + 0.5) / T
    width = 0.05 + corner * 0.15
    near = np.exp(-pos / width)
    far = np.exp(-(1 - pos) / width)
    out = np.empty((T, T, 4), np.float32)
    out[..., 0] = near[None, :]
    out[..., 1] = far[None, :]
    out[..., 2] = near[:, None]
    out[..., 3] = far[:, None]
    return out


def _tex_size(uv: np.ndarray) -> int:
    return texture_size_for(float(max(np.linalg.norm(uv[1] - uv[0]), np.linalg.norm(uv[2] - uv[1]))))


def _face_patch(design: DieDesign, rank: int, uv: np.ndarray, quad: np.ndarray, x0: int, y0: int, w: int,
                h: int) -> tuple[np.ndarray, np.ndarray | float]:  # fmt: skip
    """The face texture warped onto its quad in the die's box, and the alpha scale of a translucent body."""
    tex, ink = face_texture(design, rank, _tex_size(uv))
    warped = _warp_face(tex, quad, x0, y0, w, h)
    if design.opacity >= 1:
        return warped, 1.0
    wink = _warp_face(np.dstack([ink, ink, ink, ink]), quad, x0, y0, w, h)[..., :1]
    return warped, design.opacity + (1 - design.opacity) * wink


def _warp_face(tex: np.ndarray, quad: np.ndarray, x0: int, y0: int, w: int, h: int) -> np.ndarray:
    T = tex.shape[0]
    src = np.array([[-0.5, -0.5], [T - 0.5, -0.5], [T - 0.5, T - 0.5], [-0.5, T - 0.5]], np.float32)
    dst = (quad - 0.5 - np.array([x0, y0])).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(
        tex, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0)
    )


@dataclass
class Setup:
    """Everything fixed for one scene (or one video): style, camera, table, light and the dice at rest."""

    seed: int
    kind: str
    split: str
    rng: np.random.Generator
    style: SceneStyle
    cam: Camera
    table: np.ndarray  # float32 BGR, the camera's view of the empty table
    light: np.ndarray
    ambient: float
    dice: list[_Die]


def check_size(size: tuple[int, int]) -> tuple[int, int]:
    if (not isinstance(size, tuple | list)) or len(size) != 2 or not all(isinstance(v, int) for v in size):
        raise ValueError(f"size must be (width, height) ints, not {size!r}.")
    W, H = int(size[0]), int(size[1])
    if not (16 <= W <= 8192 and 16 <= H <= 8192):
        raise ValueError(f"size must lie between 16 and 8192 pixels a side, not {W}x{H}.")
    return W, H


def prepare(
    seed: int,
    kind: str,
    n_dice: int | None,
    size: tuple[int, int],
    split: str,
    style: SceneStyle | None,
    *,
    centre_die: bool = False,
    top_rank: int | None = None,
    salt: int = 0,
    values: Sequence[int] | None = None,
) -> Setup:
    check_kind_split(kind, split)
    W, H = check_size(size)
    if values is not None:
        if isinstance(values, str | bytes) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise ValueError(f"values must be a sequence of ranks 1..6, not {values!r}.")
        if not all(1 <= v <= 6 for v in values) or len(values) > MAX_DICE:
            raise ValueError(f"values must hold at most {MAX_DICE} ranks in 1..6, not {values!r}.")
        if n_dice is not None and n_dice != len(values):
            raise ValueError(f"n_dice={n_dice} but {len(values)} values.")
        n_dice = len(values)
    if n_dice is not None and (isinstance(n_dice, bool) or not isinstance(n_dice, int) or not 0 <= n_dice <= MAX_DICE):
        raise ValueError(f"n_dice must be an int in 0..{MAX_DICE}, not {n_dice!r}.")
    if style is not None and not isinstance(style, SceneStyle):
        raise ValueError(f"style must be a SceneStyle, not {type(style).__name__}.")
    rng = rng_for(seed, kind, split, salt)
    n = n_dice if n_dice is not None else _choose_n(rng)
    st = _draw_style(rng, kind, split, style or SceneStyle(), max(n, 1), (W, H))
    assert st.designs and st.die_px and st.fov_deg is not None and st.tilt_deg is not None
    for design in st.designs:
        if design.kind != kind:
            raise ValueError(f"a {design.kind} design in a {kind} scene.")
    focal = W / 2 / math.tan(math.radians(st.fov_deg) / 2)
    tilt_deg, die_px = st.tilt_deg, st.die_px
    half_diagonal = math.hypot(W, H) / 2
    if math.degrees(math.atan(half_diagonal / focal)) + tilt_deg > CORNER_RAY_MAX:
        # a steep camera with a wide lens would see the horizon in a corner (after the roll, any corner): narrow the
        # lens until every corner still looks down at the table
        focal = half_diagonal / math.tan(math.radians(CORNER_RAY_MAX - tilt_deg))
        st = replace(st, fov_deg=math.degrees(2 * math.atan(W / 2 / focal)))
    roll = float(rng.uniform(-math.pi, math.pi))
    cam = Camera(W, H, focal, math.radians(tilt_deg), roll, focal / die_px + _H)
    table = make_table(
        rng, st.background or "felt", split, cam, bool(st.distractors) and not centre_die, st.board_games
    )
    placed = None
    if centre_die:
        c = cam.ray_to_plane(np.array([[W / 2, H / 2]]), 1.0)[0, :2]
        placed = [(c, float(rng.uniform(0, 2 * math.pi)))]
        for _ in range(n - 1):  # neighbours touching the centre die, partly in view
            yaw = placed[0][1] + rng.uniform(-0.2, 0.2)
            ax = placed[0][1] + int(rng.integers(0, 4)) * math.pi / 2 + rng.uniform(-0.5, 0.5)
            way = np.array([math.cos(ax), math.sin(ax)])
            step = 1.0
            while any(_overlap(p, (c + way * step, yaw)) for p in placed):
                step += 0.02
            placed.append((c + way * (step + rng.uniform(0, 0.2)), float(yaw)))
    else:
        for _attempt in range(12):
            small = (0.025 if kind == "pip" else 0.03) * min(W, H)  # 12 / 14 px at 640x480
            placed = _place(rng, cam, n, st, table.allowed, table.keep_out, min(small, 0.7 * die_px))
            if placed is not None:
                break
            die_px *= 0.85
            cam = Camera(W, H, focal, cam.tilt, roll, focal / die_px + _H)
            table = make_table(rng, st.background or "felt", split, cam, bool(st.distractors), st.board_games)
        if placed is None:
            raise RuntimeError(f"could not place {n} dice in {W}x{H}")  # pragma: no cover - shrinking always fits
        st = replace(st, die_px=die_px)
    st = _readable(st, style or SceneStyle())
    # Light: direction towards the light, elevation 35..85 degrees.
    az, el = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(35, 85))
    light = np.array([math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)])
    ambient = float(rng.uniform(0.35, 0.65))
    dice: list[_Die] = []
    designs = st.designs or (sample_design(rng, kind, split, st.bodies),)
    for j, (c, yaw) in enumerate(placed):
        design = designs[int(rng.integers(0, len(designs)))]
        rank = int(rng.integers(1, 7))
        if j == 0 and top_rank is not None:
            rank = top_rank
        if values is not None:
            rank = int(values[j])
        tilt = (0.0, 0.0)
        if rng.random() < 0.3:  # resting unevenly on cloth, felt or a crumb
            tilt = (float(rng.uniform(-MAX_TILT, MAX_TILT)), float(rng.uniform(-MAX_TILT, MAX_TILT)))
        dice.append(new_die(rng, np.asarray(c), yaw, design, rank, tilt))
    return Setup(seed, kind, split, rng, st, cam, table.image, light, ambient, dice)


def new_die(
    rng: np.random.Generator,
    centre: np.ndarray,
    yaw: float,
    design: DieDesign,
    rank: int,
    tilt: tuple[float, float] = (0.0, 0.0),
) -> _Die:
    turns = rng.integers(0, 4, 4)
    sides = _sides(design, rank, rng)
    return _Die(centre, yaw, design, rank, sides, (int(turns[0]), int(turns[1]), int(turns[2]), int(turns[3])), tilt)


def compose(
    setup: Setup,
    dice: list[_Die],
    rng: np.random.Generator,
    *,
    copy: bool = True,
    noise_rng: np.random.Generator | None = None,
    overlay: Callable[[np.ndarray], None] | None = None,
    photo_rng: np.random.Generator | None = None,
) -> Scene:
    """Draw ``dice`` on the setup's table and take the photo; ``overlay`` may paint over the dice (a hand).

    ``photo_rng`` draws the camera effects (lamp gradient, white balance, motion-blur angle); a video passes a fresh
    one with the same seed per frame, because drawing the dice consumes ``rng`` by an amount that depends on the dice,
    and the table would otherwise change its light from frame to frame. Scenes leave it None (``rng`` is used)."""
    img = setup.table.copy() if copy else setup.table
    if setup.style.shadows and dice:
        _shadows(rng, img, setup.cam, dice, setup.light)
    labels = _draw_dice(rng, img, setup.cam, dice, setup.light, setup.ambient)
    if overlay is not None:
        overlay(img)
    return _finish(photo_rng or rng, img, labels, setup.style, setup.kind, setup.seed, setup.split, noise_rng=noise_rng)


def render(
    seed: int,
    kind: str,
    n_dice: int | None,
    size: tuple[int, int],
    split: str,
    style: SceneStyle | None,
    *,
    centre_die: bool = False,
    top_rank: int | None = None,
    values: Sequence[int] | None = None,
) -> Scene:
    setup = prepare(seed, kind, n_dice, size, split, style, centre_die=centre_die, top_rank=top_rank, values=values)
    return compose(setup, setup.dice, setup.rng, copy=False)


def _shadows(rng: np.random.Generator, img: np.ndarray, cam: Camera, dice: list[_Die], light: np.ndarray) -> None:
    W, H = cam.width, cam.height
    scale = 4 if min(W, H) >= 256 else 1
    cast = np.zeros((H // scale + 1, W // scale + 1), np.uint8)
    contact = np.zeros_like(cast)
    px = []
    for d in dice:
        rot, origin = d.pose()
        world = _CUBE @ rot.T + origin
        flat = world - (world[:, 2:3] / light[2]) * light[None, :]
        uv, _ = cam.project(flat)
        hull = cv2.convexHull(uv.astype(np.float32))[:, 0, :] / scale
        cv2.fillConvexPoly(cast, np.round(hull * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
        fp = np.concatenate([_footprint(d.centre, d.yaw) * 1.0, np.zeros((4, 1))], axis=1)
        fuv, _ = cam.project(fp)
        cv2.fillConvexPoly(contact, np.round(fuv / scale * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
        px.append(np.linalg.norm(fuv[1] - fuv[0]))
    size = float(np.median(px)) / scale
    soft = cv2.GaussianBlur(cast, (0, 0), max(0.6, size * rng.uniform(0.08, 0.35))).astype(np.float32) / 255
    tight = cv2.GaussianBlur(contact, (0, 0), max(0.6, size * 0.12)).astype(np.float32) / 255
    m = np.maximum(soft * rng.uniform(0.25, 0.6), tight * rng.uniform(0.4, 0.7))
    if scale > 1:
        m = cv2.resize(m, (W // scale * scale + scale, H // scale * scale + scale), interpolation=cv2.INTER_LINEAR)
    img *= (1 - m[:H, :W])[..., None]


def _draw_dice(
    rng: np.random.Generator, img: np.ndarray, cam: Camera, dice: list[_Die], light: np.ndarray, ambient: float
) -> list[dict[str, Any]]:
    W, H = cam.width, cam.height
    cpos = cam.centre
    top_lit = ambient + (1 - ambient) * light[2]
    # Glare: where the mirror image of the light falls on the plane of the top faces.
    refl = np.array([-light[0], -light[1], light[2]])
    t = (cpos[2] - 1.0) / refl[2]
    glare_at = (cpos - t * refl)[:2]
    glare_sigma = rng.uniform(0.6, 2.5)
    depth = [cam.project(np.array([[d.centre[0], d.centre[1], _H]]))[1][0] for d in dice]
    order = np.argsort(-np.array(depth))
    ids = np.full((H, W), -1, np.int16)
    out: list[dict[str, Any]] = [{} for _ in dice]
    tops: list[tuple[Any, ...]] = []
    for i in order:
        d = dice[i]
        design = d.design
        rho = round(design.corner * 0.9, 3)
        rot, origin = d.pose()
        sil = _silhouette(cam, d.centre, d.yaw, rho, rot, origin)
        x0, y0 = max(0, math.floor(sil[:, 0].min()) - 1), max(0, math.floor(sil[:, 1].min()) - 1)
        x1, y1 = min(W, math.ceil(sil[:, 0].max()) + 1), min(H, math.ceil(sil[:, 1].max()) + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        w, h = x1 - x0, y1 - y0
        roi = img[y0:y1, x0:x1]
        # Body behind the faces: the rounded edges, in a darker shade of the body.
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, np.round((sil - 0.5 - [x0, y0]) * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
        edge = np.array(design.body, np.float32)[::1] / 255.0 * (0.55 + 0.25 * ambient)
        if design.body_kind == "translucent":
            _see_through(roi, mask, cam, d, rot, origin, x0, y0, edge)
        else:
            a = (mask.astype(np.float32) / 255.0)[..., None] * design.opacity
            roi *= 1 - a
            roi += edge * a
        ids[y0:y1, x0:x1][mask > 127] = -2
        faces = []
        for name, (normal, corners) in _FACES.items():
            n = rot @ np.array(normal, np.float64)
            fc = origin + rot @ np.mean(np.array(corners), axis=0)
            if n @ (cpos - fc) <= 1e-6:
                continue
            world = np.array(corners) @ rot.T + origin
            uv, z = cam.project(world)
            faces.append((name, n, uv, float(np.mean(z))))
        faces.sort(key=lambda f: -f[3])
        out[i]["sides"] = [uv for name, _n, uv, _z in faces if name != "top"]
        for name, n, uv, _z in faces:
            lit = (ambient + (1 - ambient) * max(0.0, float(n @ light))) / top_lit
            if name == "top":  # after every body and side: no side of a die resting flat can hide a top face
                tops.append((i, uv, lit, rot, origin, rho, sil, (x0, y0, x1, y1)))
                continue
            k = ("+x", "-x", "+y", "-y").index(name)
            quad = np.roll(uv, -d.side_turns[k], axis=0)
            warped, alpha_scale = _face_patch(design, d.side_ranks[k], uv, quad, x0, y0, w, h)
            _paste(roi, warped, 0, 0, lit, alpha_scale)
            ids[y0:y1, x0:x1][warped[..., 3] > 0.5] = -2
    for i, uv, lit, rot, origin, rho, sil, (x0, y0, x1, y1) in tops:
        d = dice[i]
        design = d.design
        w, h = x1 - x0, y1 - y0
        roi = img[y0:y1, x0:x1]
        warped, alpha_scale = _face_patch(design, d.rank, uv, uv, x0, y0, w, h)
        shade = np.full((h, w, 1), lit, np.float32)
        spec = np.zeros((h, w, 1), np.float32)
        gl = design.glossy * rng.uniform(0.6, 1.0)
        # Rounded edges: the ones facing the light catch it, the ones facing away fall darker.
        ex, ey = rot[:, 0], rot[:, 1]
        weights = np.array([-(ex @ light), ex @ light, ey @ light, -(ey @ light)], np.float32)
        weights *= 0.25 + design.bevel
        bands = _warp_face(edge_bands(_tex_size(uv), design.corner), uv, x0, y0, w, h)
        shade = shade + (bands @ weights)[..., None]
        if gl > 0.05:
            hom = cam.plane_homography(1.0)
            gh, gw = max(2, h // 6), max(2, w // 6)
            yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float64)
            grid = np.stack([x0 + xx * w / (gw - 1), y0 + yy * h / (gh - 1)], axis=-1).reshape(1, -1, 2)
            pts = cv2.perspectiveTransform(grid, np.linalg.inv(hom))[0]
            dist2 = ((pts - glare_at) ** 2).sum(axis=1).reshape(gh, gw).astype(np.float32)
            small = gl * np.exp(-dist2 / (2 * glare_sigma**2))
            spec = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
            shade = shade + spec * 1.5
        used = _paste(roi, warped, 0, 0, shade, alpha_scale)
        if gl > 0.05:  # white specular on top of ink too
            roi += spec * 0.6 * (used[..., None] > 0.5)
        top = used > 0.5
        ids[y0:y1, x0:x1][top] = i
        outline = _top_outline(cam, rot, origin, rho)
        out[i].update(sil=sil, quad=uv, outline=outline, area=int(top.sum()), die=d)
    np.clip(img, 0, 1.5, out=img)
    counts = np.bincount(ids[ids >= 0].ravel(), minlength=len(dice))
    for i, o in enumerate(out):
        if "quad" in o:
            o["visible"] = float(counts[i]) / max(1, o["area"])
            o["sides"] = [uv for uv in o["sides"] if _side_in_view(uv, ids)]
    return [o for o in out if "quad" in o]


REFRACTION = 1.5  # plastic's refractive index: what lies inside a clear die looks closer to its top by 1 - 1/n


def _see_through(roi: np.ndarray, mask: np.ndarray, cam: Camera, d: _Die, rot: np.ndarray, origin: np.ndarray,
                 x0: int, y0: int, edge: np.ndarray) -> None:  # fmt: skip
    """A clear coloured body: the table tinted by it, and the ink of the bottom and far faces seen through it,
    raised by refraction (hence offset from where the top face's own pips are under a tilted camera)."""
    design = d.design
    h, w = mask.shape
    m = (mask.astype(np.float32) / 255.0)[..., None]
    body = np.array(design.body, np.float32) / 255.0
    tint = 0.35 + 0.65 * body / max(float(body.max()), 1e-3)
    roi *= 1 - m + m * ((1 - design.opacity) * tint)
    roi += edge * m * design.opacity
    cpos = cam.centre
    hidden = [(name, n) for name, (n, _c) in _FACES.items() if name != "top"] + [("bottom", (0, 0, -1))]
    for name, normal in hidden:
        if name == "bottom":
            corners = _FACE_CORNERS["top"] * np.array([1.0, 1.0, -1.0])
            rank = design.opposite[d.rank - 1]
        else:
            corners = _FACE_CORNERS[name]
            rank = d.side_ranks[("+x", "-x", "+y", "-y").index(name)]
        n = rot @ np.array(normal, np.float64)
        if n @ (cpos - (origin + rot @ corners.mean(axis=0))) > 1e-6:
            continue  # a face in view is drawn as a face
        raised = corners.copy()
        raised[:, 2] += (_H - raised[:, 2]) * (1 - 1 / REFRACTION)
        uv, _ = cam.project(raised @ rot.T + origin)
        # seen blurred through the plastic: a coarser texture does (and is often cached already for a side face)
        _tex, ink = face_texture(design, rank, texture_size_for(0.6 * float(np.linalg.norm(uv[1] - uv[0]))))
        wink = _warp_face(ink, uv, x0, y0, w, h)[..., None] * m * 0.75
        roi *= 1 - wink
        roi += np.array(design.inks[rank - 1], np.float32) / 255.0 * 0.8 * wink


def _side_in_view(uv: np.ndarray, ids: np.ndarray) -> bool:
    """A side face whose middle is in the frame and not under a top face (ids: die index on top faces)."""
    x, y = np.mean(uv, axis=0)
    h, w = ids.shape
    return 0 <= x < w and 0 <= y < h and int(ids[int(y), int(x)]) < 0


def _finish(
    rng: np.random.Generator,
    img: np.ndarray,
    labels: list[dict[str, Any]],
    st: SceneStyle,
    kind: str,
    seed: int,
    split: str,
    noise_rng: np.random.Generator | None = None,
) -> Scene:
    H, W = img.shape[:2]
    if st.effects:
        img *= effects.light_field(rng, W, H, float(rng.uniform(0.0, 0.5)), st.vignette or 0.0)[..., None]
        gains = np.array([rng.uniform(0.85, 1.15), 1.0, rng.uniform(0.85, 1.15)], np.float32)
        img *= gains
    if st.exposure and st.exposure != 1:
        img *= st.exposure
    polys = [(_densify(o["sil"], 2.0), _densify(o["outline"], 2.0)) for o in labels]
    if st.fisheye:
        mx, my = effects.fisheye_maps(W, H, st.fisheye)
        img = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        polys = [
            (effects.fisheye_points(s, W, H, st.fisheye), effects.fisheye_points(q, W, H, st.fisheye)) for s, q in polys
        ]
    if st.tube:  # the inside of a tube around the view: dark outside a soft circle
        yy, xx = np.arange(H, dtype=np.float32)[:, None] - H / 2, np.arange(W, dtype=np.float32)[None, :] - W / 2
        r = np.sqrt(xx * xx + yy * yy) / (st.tube * min(W, H) / 2)
        inside = np.clip((1.0 - r) / 0.04 + 0.5, 0, 1)
        img *= (inside * 0.92 + 0.08 * np.clip(1.6 - r, 0, 1))[..., None]
    if st.blur:
        img = cv2.GaussianBlur(img, (0, 0), st.blur)
    if st.motion_blur:
        img = cv2.filter2D(img, -1, effects.motion_kernel(st.motion_blur, rng.uniform(0, math.pi)))
    if st.resample and st.resample > 1:
        small = (max(8, round(W / st.resample)), max(8, round(H / st.resample)))
        img = cv2.resize(cv2.resize(img, small, interpolation=cv2.INTER_AREA), (W, H), interpolation=cv2.INTER_LINEAR)
    if st.greyscale:
        g = cv2.cvtColor(np.clip(img, 0, 1), cv2.COLOR_BGR2GRAY)
        img = np.repeat(g[..., None], 3, axis=2)
    if st.noise:
        img = effects.sensor_noise(noise_rng or rng, img, st.noise)
    np.clip(img, 0.0, 1.0, out=img)
    out = cv2.convertScaleAbs(img, alpha=255.0)
    if st.tone and st.tone != 1:
        lut = np.clip(255 * (np.arange(256) / 255.0) ** st.tone + 0.5, 0, 255).astype(np.uint8)
        out = cv2.LUT(out, lut)
    if st.jpeg_quality:
        out = effects.jpeg(out, st.jpeg_quality)
    dice = []
    for o, (sil, quad) in zip(labels, polys, strict=True):
        d: _Die = o["die"]
        corners = o["quad"]
        if st.fisheye:
            corners = effects.fisheye_points(corners, W, H, st.fisheye)
        up = (corners[0] + corners[1]) / 2 - (corners[3] + corners[2]) / 2
        rotation = (math.degrees(math.atan2(up[0], -up[1])) + 360) % 360
        side = float(np.mean([np.linalg.norm(corners[(k + 1) % 4] - corners[k]) for k in range(4)]))
        dice.append(
            SceneDie(
                box=_box(sil, W, H),
                value=d.rank,
                face=faces_of(kind)[d.rank - 1],
                printed=d.design.printed[d.rank - 1],
                kind=kind,
                rotation=round(rotation, 2),
                top_box=_box(quad, W, H),
                top_quad=tuple((round(float(x), 2), round(float(y), 2)) for x, y in corners),
                visible=round(o["visible"], 4),
                px=round(side, 2),
                side_quads=tuple(
                    tuple((round(float(x), 2), round(float(y), 2)) for x, y in q)
                    for q in (effects.fisheye_points(q, W, H, st.fisheye) if st.fisheye else q for q in o["sides"])
                ),
            )
        )
    return Scene(out, dice, kind, seed, split, st)


def _box(pts: np.ndarray, W: int, H: int) -> tuple[int, int, int, int]:
    x0 = int(max(0, math.floor(pts[:, 0].min())))
    y0 = int(max(0, math.floor(pts[:, 1].min())))
    x1 = int(min(W, math.ceil(pts[:, 0].max())))
    y1 = int(min(H, math.ceil(pts[:, 1].max())))
    return (x0, y0, max(x1, x0 + 1), max(y1, y0 + 1))
