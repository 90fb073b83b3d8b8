"""Labelled photos and rendered scenes as training items, with the fixed train/validation split.

The validation split is a stable hash of the image path over ``train`` rows only: calibration and the uncertainty
threshold are chosen on it, and ``test`` rows are never read here except by the benchmark.
"""

from __future__ import annotations

import csv
import ctypes
import ctypes.util
import multiprocessing
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.reading import PIP_FACES, POKER_FACES, PRINTINGS

if TYPE_CHECKING:
    from vision.synth.scene import SceneDie

FACES = PIP_FACES + POKER_FACES  # class index = position; background is len(FACES)
BACKGROUND = len(FACES)
# what the classifier outputs: the faces, background, then the other court printings (their faces' rank at run time)
CLASS_NAMES = (*FACES, "background", *PRINTINGS)
PHOTO_SETS = ("webcam-white-dice", "rune55-phone-tray", "rune55-fisheye-webcam", "rune55-small-far")
VAL_PERCENT = 15
# rendered validation scenes: train-split designs, seeds never used for training (poker ones 10,000 on)
VAL_SYNTH_SEED = 900_000


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float
    cls: int  # index into FACES


@dataclass(frozen=True)
class Item:
    name: str  # set/path, for the split hash and reports
    image: Path | None
    boxes: tuple[Box, ...]
    kind: str
    split: str  # train | val | test


def face_class(kind: str, face: str) -> int:
    faces = PIP_FACES if kind == "pip" else POKER_FACES
    return faces.index(face) + (0 if kind == "pip" else len(PIP_FACES))


def rank_class(cls: np.ndarray) -> np.ndarray:
    """Classifier classes to rank classes: a printing (a German queen "D") counts as its face (Q)."""
    table = np.array([CLASS_NAMES.index(PRINTINGS.get(n, n)) for n in CLASS_NAMES], np.int64)
    out: np.ndarray = table[cls]
    return out


def is_val(name: str) -> bool:
    return zlib.crc32(name.encode()) % 100 < VAL_PERCENT


def parse_boxes(text: str, kind: str) -> tuple[Box, ...]:
    out = []
    for part in filter(None, text.split(";")):
        coords, face = part.rsplit(":", 1)
        x0, y0, x1, y1 = (float(v) for v in coords.split(","))
        out.append(Box(x0, y0, x1, y1, face_class(kind, face.strip())))
    return tuple(out)


LABEL_FIXES = Path(__file__).with_name("label_fixes.csv")


@dataclass(frozen=True)
class LabelFix:
    box: tuple[float, float, float, float]
    label: str  # the face labels.csv gives
    face: str  # the face the die shows, checked by eye


def load_fixes(path: Path = LABEL_FIXES) -> dict[str, list[LabelFix]]:
    """Corrections to the photo sets' labels, by image name (``set/path``): dice whose face was checked by eye."""
    out: dict[str, list[LabelFix]] = {}
    if not path.is_file():
        return out
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            box = tuple(float(v) for v in row["box"].split(","))
            if len(box) != 4:
                raise ValueError(f"{path.name}: {row['image']}: a box is x0,y0,x1,y1, not {row['box']!r}.")
            fix = LabelFix((box[0], box[1], box[2], box[3]), row["label"], row["face"])
            out.setdefault(f"{row['set']}/{row['image']}", []).append(fix)
    return out


def apply_fixes(item: Item, fixes: list[LabelFix]) -> Item:
    """The item with its fixed dice relabelled. A fix must name a die of a train row as labels.csv labels it, so a
    changed labels.csv, or a fix on a test row (which is never to be tuned on), fails loudly."""
    if item.split == "test":
        raise ValueError(f"{LABEL_FIXES.name}: {item.name} is a test row; its labels are not to be changed.")
    boxes = list(item.boxes)
    for fix in fixes:
        at = [k for k, b in enumerate(boxes) if np.allclose((b.x0, b.y0, b.x1, b.y1), fix.box, atol=0.51)]
        if len(at) != 1 or boxes[at[0]].cls != face_class(item.kind, fix.label):
            raise ValueError(f"{LABEL_FIXES.name}: {item.name} has no die {fix.box} labelled {fix.label}.")
        boxes[at[0]] = replace(boxes[at[0]], cls=face_class(item.kind, fix.face))
    return replace(item, boxes=tuple(boxes))


def load_labels(
    folder: Path, set_name: str | None = None, fixes: dict[str, list[LabelFix]] | None = None
) -> list[Item]:
    """Rows of one set's labels.csv; ``train`` rows are split into train and val by a stable hash, and carry the
    corrections of ``label_fixes.csv`` (``fixes``, by default that file)."""
    set_name = set_name or folder.name
    fixes = load_fixes() if fixes is None else fixes
    items = []
    with open(folder / "labels.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            name = f"{set_name}/{row['image']}"
            split = row["split"]
            if split == "train" and is_val(name):
                split = "val"
            item = Item(name, folder / row["image"], parse_boxes(row["boxes"], row["kind"]), row["kind"], split)
            items.append(apply_fixes(item, fixes[name]) if name in fixes else item)
    return items


def photo_root() -> Path:
    here = Path(__file__).resolve().parents[2]
    for cand in (here.parent / "shared" / "dice-photos", here / "shared" / "dice-photos"):
        if cand.is_dir():
            return cand
    raise FileNotFoundError("../shared/dice-photos not found beside the checkout.")


def load_photos(splits: tuple[str, ...] = ("train", "val")) -> list[Item]:
    root = photo_root()
    out: list[Item] = []
    for s in PHOTO_SETS:
        out += [it for it in load_labels(root / s) if it.split in splits]
    return out


def scene_samples(folder: Path, split: str = "train", weight: float | None = None) -> list[Sample]:
    """The ``split`` rows of a folder of labelled scenes laid out as a photo set (labels.csv), such as the Blender
    renders of ``vision.synth.photoreal``; its optional ``printed`` column (what each die shows: "D" for a German
    queen) is what the classifier is taught, as for the flat renders. Rows hashed to ``val`` are held back to measure
    on (``read_bench.py --split val --scenes``). ``weight``: their crops' weight against a flat render's."""
    with open(folder / "labels.csv", newline="", encoding="utf-8") as fh:
        printed = {row["image"]: row.get("printed", "").split() for row in csv.DictReader(fh)}
    out = []
    for it in load_labels(folder, fixes={}):
        if it.split != split:
            continue
        s = to_sample(it)
        s.weight = weight
        shown = printed[it.name.split("/", 1)[1]]
        if shown:
            s.teach = np.array(
                [CLASS_NAMES.index(p if p in PRINTINGS else FACES[c]) for p, c in zip(shown, s.classes, strict=True)]
            )
        out.append(s)
    return out


def read_bgr(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(path)
    return img


@dataclass
class Sample:
    """An image in memory with each die's centre, side (whole top face, px) and class."""

    name: str
    img: np.ndarray
    centres: np.ndarray  # (n, 2) float32
    sides: np.ndarray  # (n,) float32
    classes: np.ndarray  # (n,) int64
    kind: str
    teach: np.ndarray | None = None  # the class to teach per die where it differs: a printing ("D" for a queen)
    # (m, 3) centre x, y and die side of side faces in clear view (renders only): a reader must not take them for tops
    side_spots: np.ndarray | None = None
    weight: float | None = None  # how often its crops are drawn against a render's; None: by its source

    @property
    def taught(self) -> np.ndarray:
        return self.classes if self.teach is None else self.teach


def die_sides(item: Item) -> np.ndarray:
    """Side of each die's top face in pixels.

    ``webcam-white-dice`` boxes hug the pip pattern, not the die: a "1" box is one pip. There the side is the pattern
    box scaled to the face, and a lone pip takes the size of the other dice in the photo (or the set's usual size).
    """
    sides = np.array([max(b.x1 - b.x0, b.y1 - b.y0) for b in item.boxes], dtype=np.float32)
    if not item.name.startswith("webcam-white-dice/") or len(sides) == 0:
        return sides
    cls = np.array([b.cls for b in item.boxes])
    face = sides * 1.3
    others = face[cls != 0]
    fill = float(np.median(others)) if len(others) else 56.0
    face[cls == 0] = fill
    return face


def source_weight(s: Sample, photo_weight: float) -> float:
    """Real photos may count more than renders, which outnumber them many times over."""
    if s.weight is not None:
        return s.weight
    return 1.0 if s.name.startswith("synth-") else photo_weight


def to_sample(item: Item, img: np.ndarray | None = None) -> Sample:
    if img is None:
        assert item.image is not None
        img = read_bgr(item.image)
    centres = np.array([((b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2) for b in item.boxes], dtype=np.float32).reshape(-1, 2)
    classes = np.array([b.cls for b in item.boxes], dtype=np.int64)
    return Sample(item.name, img, centres, die_sides(item), classes, item.kind)


# A steep camera (30-60 degrees from straight down) foreshortens the top face until a side face looks as frontal as
# it: the scenes' own tilt, 0-42 degrees with little mass near 40, left the reader weak there (model card, "Steep
# cameras"). Training can draw a share of its scenes that steep; validation scenes stay as they were.
STEEP_TILT = (30.0, 60.0)


def steep_tilt(seed: int, share: float) -> float | None:
    """The camera tilt of a steep training scene, or None for the scene's own; depends on the seed alone."""
    u = zlib.crc32(f"steep/{seed}".encode()) / 2**32
    if u >= share:
        return None
    return STEEP_TILT[0] + (STEEP_TILT[1] - STEEP_TILT[0]) * u / share


# The chance that a die is placed against another, in a scene drawn as a crowd (``--touching``): scenes draw 0, 0.2 or
# 0.5 themselves, and the rendered games showed touching dice (translucent, steel, poker faces side by side) found as
# one box or in halves (issue 59)
CROWDED = 0.8


def _synth_one(job: tuple[int, str, str, float, str, float, float]) -> Sample:
    from vision.synth import SceneStyle, render_scene

    seed, kind, split, steep, bodies, board, touching = job
    tilt = steep_tilt(seed, steep)
    # a scene among board-game pieces, or a crowd, by its seed alone, drawn apart from the scene's own draws: at 0
    # every scene is the one rendered before
    draws = np.random.default_rng([seed, 59]).random(2)
    among = board > 0 and float(draws[0]) < board
    style = SceneStyle(bodies=bodies, board_games=among)
    if touching > 0 and float(draws[1]) < touching:
        style = replace(style, touching=CROWDED)
    if tilt is not None:
        style = replace(style, tilt_deg=tilt)
    sc = render_scene(seed, kind=kind, split=split, style=style)
    boxes = []
    for d in sc.dice:
        # centre on the top face (what the classifier must read); side of the whole die, as the photo labels
        cx, cy = np.mean(np.asarray(d.top_quad, dtype=np.float32), axis=0)
        half = max(d.box[2] - d.box[0], d.box[3] - d.box[1]) / 2
        boxes.append(Box(cx - half, cy - half, cx + half, cy + half, face_class(kind, d.face)))
    item = Item(f"synth-{kind}/{seed}", None, tuple(boxes), kind, split)
    sample = to_sample(item, sc.image)
    sample.teach = np.array([CLASS_NAMES.index(d.printed if d.printed in PRINTINGS else d.face) for d in sc.dice])
    sample.side_spots = side_spots(sc.dice, sample.sides)
    return sample


SIDE_SHARE = 0.25  # a side face seen at least this big against its top face looks like a face of its own


def side_spots(dice: Sequence[SceneDie], sides: np.ndarray) -> np.ndarray:
    """Centres of the side faces a tilted camera shows clearly, each with its die's side."""
    out = []
    for d, side in zip(dice, sides, strict=True):
        top = cv2.contourArea(np.asarray(d.top_quad, np.float32))
        for q in d.side_quads:
            quad = np.asarray(q, np.float32)
            if cv2.contourArea(quad) >= SIDE_SHARE * top:
                cx, cy = quad.mean(axis=0)
                out.append((cx, cy, float(side)))
    return np.array(out, np.float32).reshape(-1, 3)


def synth_samples(
    n: int,
    kind: str,
    seed0: int,
    split: str = "train",
    jobs: int = 1,
    steep: float = 0.0,
    bodies: str = "rich",
    board: float = 0.0,
    touching: float = 0.0,
) -> list[Sample]:
    """Rendered scenes from vision.synth (poker dice exist only there); empty when it is not available.

    Each scene depends on its seed alone, so ``jobs`` processes render the same scenes as one. ``steep``: the share of
    scenes seen by a steep camera (``STEEP_TILT``). ``bodies``: "rich" (marbled, glitter, translucent... sets, since
    stop 33) or "plain" (the flat bodies every earlier run trained on: docs/synth.md, "Die bodies"). ``board``: the
    share of scenes whose table is strewn with a board game's tokens and pieces (issue 59; 0: as before).
    ``touching``: the share of scenes whose dice lie against each other as often as ``CROWDED`` (0: as before).
    """
    try:
        import vision.synth  # noqa: F401
    except ImportError:
        return []
    todo = [(seed0 + i, kind, split, steep, bodies, board, touching) for i in range(n)]
    if jobs > 1 and n > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            return pool.map(_synth_one, todo, chunksize=4)
    return [_synth_one(j) for j in todo]


# the phantom photos training draws (vision.synth.phantoms, split "train"); measure phantoms on other seeds (or split
# "test", which is never trained on)
PHANTOM_SEED = 51_001


def phantom_samples(count: int, seed: int = PHANTOM_SEED, weight: float | None = 1.0) -> list[Sample]:
    """``count`` photos with no dice (``phantom_set(count, seed, split="train")``: dice-free windows of the photo sets'
    train rows and rendered train tables strewn with coins, buttons, screw holes, printed dots...) as training items
    without a die: their random spots, and the detector's candidates on them, are taught as background.
    ``weight``: their crops' weight against a flat render's."""
    from vision.synth.phantoms import phantom_set

    return [
        Sample(
            f"phantom-train/{seed}/{i}",
            img,
            np.zeros((0, 2), np.float32),
            np.zeros(0, np.float32),
            np.zeros(0, np.int64),
            "pip",
            weight=weight,
        )
        for i, img in enumerate(phantom_set(count, seed=seed, split="train"))
    ]


def release_freed_images() -> bool:
    """Have glibc give every freed block of 64 kB or more back to the system at once. Its default threshold grows
    with the first freed images, so the thousands of rendered scenes and patches freed before training stayed in the
    process: a Lite0 run held 22 GB of 23 and was killed at a checkpoint (model card, "Far dice"); with this, 13 GB.
    False where the C library has no ``mallopt`` (not glibc)."""
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    mallopt = getattr(libc, "mallopt", None)
    m_mmap_threshold = -3
    return bool(mallopt and mallopt(m_mmap_threshold, 64 * 1024) == 1)
