"""Rendered games: one set of dice on one table, thrown again and again, as the reader sees a whole evening.

A game is N throws (60 by default) of one dice set (one body, one pip style or poker printing) on one table, under
one lamp, photographed by one camera: a phone held over the table (its pose wanders a little between throws) or a
webcam on a stand (it barely moves). Each throw shows five dice, or one to four of them where the player threw some
again (about one throw in three). A change game swaps the dice set for another from throw K on (the table, camera
and light stay), as when someone brings other dice midway.

Everything is drawn from the renderer's test side (`split="test"`: test tables, test body colours, palettes, inks
and fonts), so the games are not what the models were trained on. Each game writes the layout of
``../shared/dice-photos/*/``: ``images/`` and ``labels.csv`` (image, split ``test``, kind, values, boxes), rows in
throw order, so ``benchmarks/learning_bench.py --labels OUT/<game>/labels.csv`` replays it as one game; plus
``game.json`` with what the labels lack (the dice set of each throw, the printed letters, table and camera).

    python -m vision.synth.games OUT_DIR [--throws 60] [--seed S] [--games NAME,...] [--size WxH]

The same (spec, seed, throws, size, change_at) always gives the same pictures; throw i does not depend on how many
throws follow it (a game of 10 throws is the first 10 of the game of 60, the change point aside).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.reading import PIP_FACES
from vision.synth.camera import Camera
from vision.synth.scene import Scene, Setup, _place, compose, new_die
from vision.synth.style import (
    TEST_BACKGROUNDS,
    TEST_BODIES,
    TEST_FONTS,
    TEST_GLITTER,
    TEST_INKS,
    TEST_METALS,
    TEST_VEINS,
    DieDesign,
    SceneStyle,
)
from vision.synth.tables import make_table

SPLIT = "test"
CAMERAS = ("phone", "webcam")
SIZES = {"phone": (1280, 960), "webcam": (1280, 720)}
REFRAME = {"phone": 1.25, "webcam": 1.06}  # the table is drawn this much wider than the view, for the wandering pose
RETHROW_SHARE = 1 / 3

INK = TEST_INKS
WHITE, IVORY, CREAM = TEST_BODIES[0], TEST_BODIES[1], TEST_BODIES[2]
RED_BODY, TEAL_BODY, DARK_BODY, YELLOW_BODY = TEST_BODIES[3], TEST_BODIES[5], TEST_BODIES[6], TEST_BODIES[7]
GREEN_BODY, PURPLE_BODY = TEST_BODIES[10], TEST_BODIES[4]
FONT = {name: f for f in TEST_FONTS for name in [str(f[1])]}


def _poker(
    body: tuple[int, int, int], court: tuple[str, str, str], inks: Sequence[tuple[int, int, int]], **kw: Any
) -> DieDesign:
    return DieDesign(kind="poker", body=body, inks=tuple(inks), printed=("9", "10", *court, "A"), **kw)


def _pip(body: tuple[int, int, int], ink: tuple[int, int, int], **kw: Any) -> DieDesign:
    one = kw.pop("one", ink)
    return DieDesign(kind="pip", body=body, inks=(one,) + (ink,) * 5, printed=PIP_FACES, **kw)


RB = (INK["red"], INK["black"]) * 3  # 9 red, 10 black, J red, ... alternating, as most sets
ALL_BLACK = (INK["black"],) * 6

# The dice sets, each a fixed design from the test palettes: (name, what a person would call it, design).
SETS: dict[str, tuple[str, DieDesign]] = {
    "white": (
        "white plastic, black drilled pips",
        _pip(WHITE, INK["black"], corner=0.2, bevel=0.25, glossy=0.35),
    ),
    "red": (
        "red plastic, white pips",
        _pip(RED_BODY, INK["white"], corner=0.16, bevel=0.3, glossy=0.5),
    ),
    "casino": (
        "translucent teal casino dice, sharp corners, white pips",
        replace(
            _pip(TEAL_BODY, INK["white"], corner=0.04, bevel=0.15, glossy=0.8, pip_scale=0.1, pip_spread=0.26),
            body_kind="translucent",
            opacity=0.45,
        ),
    ),
    "ivory": (
        "ivory, red pips",
        _pip(CREAM, INK["red"], corner=0.24, bevel=0.3, glossy=0.2, pip_scale=0.095, pip_spread=0.25),
    ),
    "dark-marbled": (
        "dark marbled plastic with grey veins, gold pips",
        replace(
            _pip(DARK_BODY, INK["gold"], corner=0.18, bevel=0.3, glossy=0.45),
            body_kind="marbled",
            veins=(TEST_VEINS[7],),
            body_scale=1.3,
            body_seed=5201,
        ),
    ),
    "big-pips": (
        "yellow, big black square pips, a big red one",
        _pip(
            YELLOW_BODY,
            INK["black"],
            one=INK["red"],
            layout="square",
            pip_scale=0.13,
            pip_spread=0.3,
            big_red_one=True,
            corner=0.12,
            bevel=0.2,
            glossy=0.3,
        ),
    ),
    "glitter": (
        "magenta glitter plastic, white pips",
        replace(
            _pip(PURPLE_BODY, INK["white"], corner=0.2, bevel=0.3, glossy=0.6),
            body_kind="glitter",
            veins=(TEST_GLITTER[0], TEST_GLITTER[2]),
            body_seed=5202,
        ),
    ),
    "steel": (
        "brushed steel, engraved black-painted pips",
        replace(
            _pip(TEST_METALS[0], INK["black"], corner=0.1, bevel=0.35, glossy=0.85),
            body_kind="metallic",
            engraved=True,
            paint=0.85,
            body_seed=5203,
        ),
    ),
    "poker-en": (
        "poker, English J Q K, white, big letters with a suit, red and black",
        _poker(
            WHITE,
            ("J", "Q", "K"),
            RB,
            font=FONT["LiberationSans-Bold.ttf"],
            layout="letter_suit",
            suits=("heart", "spade", "diamond", "club", "heart", "spade"),
            letter_height=0.6,
        ),
    ),
    "poker-en-card": (
        "poker, English, ivory, playing-card faces: court pictures, suit symbols for 9 and 10, ink by suit",
        _poker(
            IVORY,
            ("J", "Q", "K"),
            (INK["black"], INK["red"], INK["red"], INK["black"], INK["black"], INK["black"]),
            font=FONT["LiberationSerif-Bold.ttf"],
            layout="card",
            suit_symbols=True,
            suits=("club", "diamond", "heart", "spade", "club", "spade"),
        ),
    ),
    "poker-de": (
        "poker, German B D K, cream, narrow black letters",
        _poker(
            CREAM,
            ("B", "D", "K"),
            ALL_BLACK,
            font=FONT["LiberationSansNarrow-Bold.ttf"],
            layout="letter",
            letter_height=0.66,
        ),
    ),
    "poker-fr": (
        "poker, French V D R, dark grey, white and gold serif letters",
        _poker(
            DARK_BODY,
            ("V", "D", "R"),
            (INK["white"], INK["gold"]) * 3,
            font=FONT["LiberationSerif-Regular.ttf"],
            layout="letter",
            letter_height=0.64,
            stroke=0.03,
        ),
    ),
    "poker-de-green": (
        "poker, German B D K, dark green, white letters with a suit",
        _poker(
            GREEN_BODY,
            ("B", "D", "K"),
            (INK["white"],) * 6,
            font=("hershey", 3),
            layout="letter_suit",
            suits=("spade", "heart", "club", "diamond", "spade", "heart"),
        ),
    ),
}


@dataclass(frozen=True)
class GameSpec:
    """A named game: its dice set (two with ``change``: the second from throw K on), table and camera."""

    name: str
    sets: tuple[str, ...]
    background: str
    camera: str
    distractors: bool = False

    def __post_init__(self) -> None:
        if not 1 <= len(self.sets) <= 2 or any(s not in SETS for s in self.sets):
            raise ValueError(f"sets must be one or two of {sorted(SETS)}, not {self.sets!r}.")
        if self.background not in TEST_BACKGROUNDS:
            raise ValueError(f"background must be a test table {TEST_BACKGROUNDS}, not {self.background!r}.")
        if self.camera not in CAMERAS:
            raise ValueError(f"camera must be one of {CAMERAS}, not {self.camera!r}.")

    @property
    def kind(self) -> str:
        return SETS[self.sets[0]][1].kind

    def describe(self, change_at: int | None = None) -> str:
        first = SETS[self.sets[0]][0]
        if len(self.sets) == 1:
            return first
        at = f"throw {change_at + 1}" if change_at is not None else "throw K"
        return f"{first}; from {at} on: {SETS[self.sets[1]][0]}"


GAMES: tuple[GameSpec, ...] = (
    GameSpec("pip-white", ("white",), "wood_dark", "phone", distractors=True),
    GameSpec("pip-red", ("red",), "gingham", "webcam"),
    GameSpec("pip-casino", ("casino",), "concrete", "phone"),
    GameSpec("pip-ivory", ("ivory",), "marble", "webcam"),
    GameSpec("pip-dark-marbled", ("dark-marbled",), "tiles", "phone"),
    GameSpec("pip-big-pips", ("big-pips",), "tray_round", "phone"),
    GameSpec("pip-glitter", ("glitter",), "wood_dark", "webcam"),
    GameSpec("pip-steel", ("steel",), "gingham", "phone", distractors=True),
    GameSpec("poker-en", ("poker-en",), "concrete", "phone", distractors=True),
    GameSpec("poker-en-card", ("poker-en-card",), "wood_dark", "webcam"),
    GameSpec("poker-de", ("poker-de",), "gingham", "phone"),
    GameSpec("poker-de-green", ("poker-de-green",), "marble", "phone"),
    GameSpec("poker-fr", ("poker-fr",), "tiles", "webcam"),
    GameSpec("change-pip", ("white", "dark-marbled"), "wood_dark", "phone"),
    GameSpec("change-poker", ("poker-en", "poker-fr"), "concrete", "webcam"),
)
GAME_NAMES = tuple(g.name for g in GAMES)


@dataclass
class Throw:
    """One photo of a game: the scene with its labels, which dice set was thrown, and the camera that took it."""

    index: int  # 1-based, as the rows of labels.csv
    scene: Scene
    dice_set: str
    quality: int  # JPEG quality it is stored at

    @property
    def image(self) -> np.ndarray:
        return self.scene.image

    @property
    def name(self) -> str:
        return f"images/throw-{self.index:03d}.jpg"

    def row(self) -> list[str]:
        """The labels.csv row: image, split, kind, values, boxes."""
        return [self.name, SPLIT, self.scene.kind, self.scene.values, self.scene.boxes]


@dataclass
class Game:
    spec: GameSpec
    seed: int
    size: tuple[int, int]
    change_at: int | None  # 0-based index of the first throw of the second set, None for one set
    throws: list[Throw] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)  # table, camera and light as drawn

    def rows(self) -> list[list[str]]:
        return [t.row() for t in self.throws]

    def write(self, out: Path) -> Path:
        """Write ``out/images/*.jpg``, ``out/labels.csv`` and ``out/game.json``; returns ``out``."""
        (out / "images").mkdir(parents=True, exist_ok=True)
        for t in self.throws:
            cv2.imwrite(str(out / t.name), t.image, [cv2.IMWRITE_JPEG_QUALITY, t.quality])
        with open(out / "labels.csv", "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(LABEL_COLUMNS)
            wr.writerows(self.rows())
        meta = {
            "name": self.spec.name,
            "description": self.spec.describe(self.change_at),
            "seed": self.seed,
            "kind": self.spec.kind,
            "size": list(self.size),
            "table": self.spec.background,
            "camera": self.spec.camera,
            "change_at": None if self.change_at is None else self.change_at + 1,
            "sets": {name: SETS[name][0] for name in self.spec.sets},
            **self.info,
            "throws": [
                {
                    "image": t.name,
                    "dice_set": t.dice_set,
                    "dice": len(t.scene.dice),
                    "printed": [d.printed for d in t.scene.dice],
                }
                for t in self.throws
            ],
        }
        (out / "game.json").write_text(json.dumps(meta, indent=1) + "\n")
        return out


LABEL_COLUMNS = ("image", "split", "kind", "values", "boxes")


def parse_boxes(text: str) -> list[tuple[tuple[int, int, int, int], str]]:
    """``x0,y0,x1,y1:face;...`` back to boxes and faces."""
    out = []
    for part in filter(None, text.split(";")):
        coords, face = part.split(":")
        x0, y0, x1, y1 = (int(v) for v in coords.split(","))
        out.append(((x0, y0, x1, y1), face))
    return out


def _stream(seed: int, name: str, *more: int) -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, not {seed!r}.")
    return np.random.default_rng([seed, zlib.crc32(name.encode()), 0x6A3E, *more])


@dataclass(frozen=True)
class _Rig:
    """What stays over a game: the base camera pose, the table drawn once, the lamp and the photo's look."""

    size: tuple[int, int]
    focal: float
    tilt: float  # radians
    roll: float
    distance: float
    ref: Camera  # a wider view from the base pose: the table as drawn
    table: np.ndarray
    allowed: np.ndarray | None
    keep_out: tuple[tuple[float, float, float], ...]
    light: np.ndarray
    ambient: float
    style: SceneStyle
    fx_seed: int
    quality: int
    die_px: float


def _rig(spec: GameSpec, seed: int, size: tuple[int, int] | None) -> _Rig:
    rng = _stream(seed, spec.name, 0)
    W, H = size or SIZES[spec.camera]
    phone = spec.camera == "phone"
    scale = min(W, H) / 960 if phone else min(W, H) / 720
    # letters need more pixels than pips, card faces more still (as the training scenes' smallest dice do)
    least = 1.0 if spec.kind == "pip" else 1.5 if any(SETS[s][1].layout == "card" for s in spec.sets) else 1.3
    if phone:  # held over the table, a little oblique; dice of 50-110 px in a 1280x960 picture
        tilt, fov, die_px = rng.uniform(3, 26), rng.uniform(56, 68), rng.uniform(50 * least, 110) * scale
    else:  # on a stand or the monitor, looking down at a slant; dice of 40-75 px in 720p (letters 52-75, cards 60-75)
        tilt, fov, die_px = rng.uniform(12, 36), rng.uniform(58, 72), rng.uniform(40 * least, 75) * scale
    die_px = max(die_px, 16.0)
    focal = W / 2 / math.tan(math.radians(fov) / 2)
    roll = float(rng.uniform(-math.pi, math.pi))
    distance = focal / die_px + 0.5
    k = REFRAME[spec.camera]
    ref = Camera(round(W * k), round(H * k), focal, math.radians(tilt), roll, distance)
    table = make_table(rng, spec.background, SPLIT, ref, spec.distractors)
    az, el = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(40, 80))
    light = np.array([math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)])
    ambient = float(rng.uniform(0.4, 0.6))
    style = SceneStyle(
        background=spec.background,
        tilt_deg=tilt,
        fov_deg=fov,
        die_px=die_px,
        touching=0.15,
        shadows=True,
        distractors=spec.distractors,
        effects=True,
        blur=float(rng.uniform(0.0, 0.5)) if phone else float(rng.uniform(0.3, 0.9)),
        motion_blur=0.0,
        noise=float(rng.uniform(0.008, 0.025)) if phone else float(rng.uniform(0.015, 0.04)),
        jpeg_quality=0,  # stored once as JPEG by Game.write
        fisheye=0.0,
        greyscale=False,
        vignette=float(rng.uniform(0.1, 0.35)),
        exposure=float(rng.uniform(0.92, 1.08)),
        resample=1.0 if phone else float(rng.uniform(1.0, 1.4)),
        tone=float(rng.uniform(0.85, 1.15)),
        tube=0.0,
        bodies="rich",
    )
    quality = int(rng.integers(88, 96)) if phone else int(rng.integers(75, 91))
    return _Rig(
        (W, H),
        focal,
        math.radians(tilt),
        roll,
        distance,
        ref,
        table.image,
        table.allowed,
        tuple(table.keep_out),
        light,
        ambient,
        style,
        int(rng.integers(0, 2**31)),
        quality,
        die_px,
    )


def _pose(rig: _Rig, phone: bool, rng: np.random.Generator) -> tuple[Camera, np.ndarray]:
    """This throw's camera and its shift over the table (die sides): a hand-held phone wanders by a few degrees and
    a little sideways; a webcam barely moves. Redrawn until the view stays on the table as drawn."""
    W, H = rig.size
    corners = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float64)
    h_ref = rig.ref.plane_homography()
    for _ in range(30):
        if phone:
            d_tilt, d_roll = rng.normal(0, 1.2), rng.normal(0, 2.0)
            zoom, shift = math.exp(rng.normal(0, 0.04)), rng.normal(0, 0.35, 2)
        else:
            d_tilt, d_roll, zoom, shift = rng.normal(0, 0.1), rng.normal(0, 0.1), 1.0, np.zeros(2)
        tilt = min(max(rig.tilt + math.radians(float(np.clip(d_tilt, -3, 3))), 0.0), math.radians(45))
        cam = Camera(W, H, rig.focal, tilt, rig.roll + math.radians(float(np.clip(d_roll, -5, 5))), rig.distance * zoom)
        seen = cam.ray_to_plane(corners)[:, :2] + shift
        uv = cv2.perspectiveTransform(seen[None].astype(np.float64), h_ref)[0]
        if (uv >= 0).all() and (uv[:, 0] <= rig.ref.width - 1).all() and (uv[:, 1] <= rig.ref.height - 1).all():
            return cam, shift
    return Camera(W, H, rig.focal, rig.tilt, rig.roll, rig.distance), np.zeros(2)  # the base view: always on it


def _table_view(rig: _Rig, cam: Camera, shift: np.ndarray) -> np.ndarray:
    """The table as this throw's camera sees it: the same texture, warped from the wider view it was drawn in."""
    back = np.eye(3)
    back[:2, 2] = -shift
    m = cam.plane_homography() @ back @ np.linalg.inv(rig.ref.plane_homography())
    W, H = rig.size
    return np.asarray(cv2.warpPerspective(rig.table, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT))


def throw_sizes(spec: GameSpec, seed: int, throws: int, change_at: int | None = None) -> list[int]:
    """How many dice each throw shows: 5, or a rethrow of 1-4 (about one throw in three; never the first, nor the
    first throw of new dice at ``change_at``: they come to the table with a new turn)."""
    out = []
    for i in range(throws):
        rng = _stream(seed, spec.name, 1, i)
        out.append(5 if i in (0, change_at) or rng.random() >= RETHROW_SHARE else int(rng.integers(1, 5)))
    return out


def render_game(
    spec: GameSpec | str,
    seed: int = 0,
    *,
    throws: int = 60,
    size: tuple[int, int] | None = None,
    change_at: int | None = None,
) -> Game:
    """Render ``throws`` photos of one game. ``change_at`` (0-based throw index, a change game only; default half
    the throws) is the first throw of the second dice set. ``size`` (width, height) overrides the camera's."""
    if isinstance(spec, str):
        spec = game_spec(spec)
    if isinstance(throws, bool) or not isinstance(throws, int) or not 1 <= throws <= 1000:
        raise ValueError(f"throws must be an int in 1..1000, not {throws!r}.")
    if size is not None and not (len(size) == 2 and all(isinstance(v, int) and 64 <= v <= 8192 for v in size)):
        raise ValueError(f"size must be (width, height) ints in 64..8192, not {size!r}.")
    if len(spec.sets) == 1:
        if change_at is not None:
            raise ValueError(f"game {spec.name!r} has one dice set: no change_at.")
    else:
        change_at = throws // 2 if change_at is None else change_at
        if not 1 <= change_at < throws:
            raise ValueError(f"change_at must lie in 1..{throws - 1}, not {change_at!r}.")
    rig = _rig(spec, seed, size)
    phone = spec.camera == "phone"
    game = Game(spec, seed, rig.size, change_at)
    game.info = {
        "camera_tilt_deg": round(math.degrees(rig.tilt), 2),
        "camera_fov_deg": round(float(rig.style.fov_deg or 0), 2),
        "die_px": round(rig.die_px, 1),
        "jpeg_quality": rig.quality,
    }
    sizes = throw_sizes(spec, seed, throws, change_at)
    W, H = rig.size
    for i, n in enumerate(sizes):
        rng = _stream(seed, spec.name, 2, i)
        set_name = spec.sets[1] if change_at is not None and i >= change_at else spec.sets[0]
        design = SETS[set_name][1]
        style = replace(rig.style, designs=(design,))
        if phone:  # the phone sets its exposure anew, and now and then the hand shakes
            style = replace(style, exposure=float((style.exposure or 1.0) * math.exp(rng.normal(0, 0.06))))
            if rng.random() < 0.1:
                style = replace(style, motion_blur=float(rng.uniform(1.5, 3.0) * W / 1280))
        placed = None
        for _try in range(20):
            cam, shift = _pose(rig, phone, rng)
            allowed = None if rig.allowed is None else rig.allowed - shift
            keep = [(x - shift[0], y - shift[1], r) for x, y, r in rig.keep_out]
            small = (0.025 if design.kind == "pip" else 0.03) * min(W, H)
            placed = _place(rng, cam, n, style, allowed, keep, min(small, 0.7 * rig.die_px))
            if placed is not None:
                break
        if placed is None:
            raise RuntimeError(f"could not place {n} dice in throw {i + 1} of {spec.name}")  # pragma: no cover
        dice = []
        for c, yaw in placed:
            tilt = (0.0, 0.0)
            if rng.random() < 0.25:  # resting unevenly
                t = math.radians(4)
                tilt = (float(rng.uniform(-t, t)), float(rng.uniform(-t, t)))
            dice.append(new_die(rng, np.asarray(c), yaw, design, int(rng.integers(1, 7)), tilt))
        setup = Setup(
            seed, design.kind, SPLIT, rng, style, cam, _table_view(rig, cam, shift), rig.light, rig.ambient, dice
        )
        scene = compose(
            setup,
            dice,
            rng,
            copy=False,
            noise_rng=np.random.default_rng([rig.fx_seed, i, 1]),
            photo_rng=np.random.default_rng([rig.fx_seed, 0]),  # the same lamp and white balance in every photo
        )
        game.throws.append(Throw(i + 1, scene, set_name, rig.quality))
    return game


def game_spec(name: str) -> GameSpec:
    for g in GAMES:
        if g.name == name:
            return g
    raise ValueError(f"no game {name!r}; games: {', '.join(GAME_NAMES)}.")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m vision.synth.games",
        description="Render whole games (one dice set on one table, N throws) for benchmarks/learning_bench.py.",
    )
    ap.add_argument("out", type=Path, help="folder to write: one folder per game, each with labels.csv and images/")
    ap.add_argument("--throws", type=int, default=60, help="throws per game (default 60)")
    ap.add_argument("--seed", type=int, default=0, help="seed of every game (default 0)")
    ap.add_argument("--games", default="", help=f"comma-separated names (default all: {','.join(GAME_NAMES)})")
    ap.add_argument(
        "--change-at",
        type=int,
        default=None,
        help="1-based throw where a change game's dice change (default the middle: 31 of 60)",
    )
    ap.add_argument("--size", default="", help="WxH for every game (default 1280x960 phone, 1280x720 webcam)")
    ap.add_argument("--list", action="store_true", help="list the games and their dice, render nothing")
    args = ap.parse_args(argv)
    names = [n for n in args.games.split(",") if n] or list(GAME_NAMES)
    try:
        specs = [game_spec(n) for n in names]
    except ValueError as e:
        ap.error(str(e))
    if args.list:
        for s in specs:
            print(f"{s.name:18} {s.kind:5} {s.camera:6} {s.background:10} {s.describe()}")
        return 0
    size = None
    if args.size:
        try:
            w, h = (int(v) for v in args.size.lower().split("x"))
        except ValueError:
            ap.error(f"--size must be WxH, not {args.size!r}")
        size = (w, h)
    if args.throws < 1:
        ap.error("--throws must be 1 or more")
    total = time.perf_counter()
    for s in specs:
        t0 = time.perf_counter()
        change = None if len(s.sets) == 1 or args.change_at is None else args.change_at - 1
        game = render_game(s, args.seed, throws=args.throws, size=size, change_at=change)
        out = game.write(args.out / s.name)
        dice = sum(len(t.scene.dice) for t in game.throws)
        took = time.perf_counter() - t0
        print(
            f"{out}: {s.kind}, {len(game.throws)} throws, {dice} dice, {game.size[0]}x{game.size[1]} {s.camera} "
            f"on {s.background}, {took:.1f} s; {s.describe(game.change_at)}",
            flush=True,
        )
    print(f"{len(specs)} games in {time.perf_counter() - total:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
