"""The dice reader: bytes or a BGR frame in, a ``Reading`` out (decode -> detect -> classify -> decide)."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from vision.classify import BACKGROUND, Classifier, choose_kind, confidence, is_die, kind_probs, softmax
from vision.decode import Decoded, decode
from vision.detect import SMALL_DICE, Candidates, Detector, Looks
from vision.reading import KINDS, PIP_FACES, POKER_FACES, Die, ImageError, Reading

MODEL_DIR = Path(__file__).resolve().parents[1] / "models"
DETECTOR_FILE = "dice-detector.onnx"
CLASSIFIER_FILE = "dice-faces.onnx"
MAX_DICE = 60
PIP_AS_DIE = 48.0  # input px at the normal scale: a pip taken for a die is this big only on a close-up
# A large frame (a photo, an HD webcam) can hold dice too small for the net at its trained scale: 50 px dice in a
# 12 MP photo are 5 input px there. Chosen on rendered train-design scenes of 1280x720 to 4000x3000 (model card).
LARGE_FRAME = (
    1000  # long side as decoded, px; the 640 px frames of a webcam and of every benchmark set stay as they were
)
FINER_BELOW = 30.0  # median side at the normal scale, input px, under which a large frame is looked at again finer
FINER_FACTOR = 2  # the finer look's scale against the normal one
# A finer look that found this many dice or fewer is followed by one at 1.5 x its scale (kept when it finds at least
# as many dice): a cluster of tiny dice can pass for one or a few big ones at twice the scale, not at three times. A
# photo of more dice is not a cluster taken for a die, and spares the pass (model card, "Clusters of small dice")
FINER_FEW = 5
ANY_DIE_FIRST = 3  # first-look candidates read at once when asking whether any is a die
# A tight block of tiny dice in a large frame can read as one big die, surely (four dice at its corners: a "4"), at the
# first look. A big candidate of such a frame, with few others, is looked into at SPLIT_FACTOR x the normal scale, and
# where SPLIT_MIN or more dice inside it each read at SPLIT_SURE or more, and not all as ones (the pips of a big die),
# it is those dice. The pips of a real die read as ones, or as twos in pairs, unsurely (model card, "A finer look past
# a false big die")
SPLIT_FACTOR = 3
SPLIT_MIN = 3
SPLIT_SURE = 0.9
# The detector threshold of a large frame's single-scale looks: the finer look and its triggers were chosen with it, and
# at 0.3 (calibrated for fused looks) a row of tiny dice in a 12 MP photo passes for one die showing 3 at the first look
LARGE_DET_THRESHOLD = 0.4
BIG_AT_COARSE_SCALE = 24.0  # side in coarse-look input px from which a die may be one the normal look split
# Dice of one throw are one size, give or take the camera's tilt: a candidate under 0.6 x the median side of the three
# dice read surely (0.8 or more; at least two in the photo) nearest to it, and itself read under 0.7, is a mark of the
# table, a loop of a pen stroke or a letter, not a die. The nearest, not all: a tilted camera shows far dice smaller.
# Chosen on the validation photos and rendered train-design scenes and checked on the train rows, where a larger share
# or a higher bar loses the far dice of a small-far photo (model card, "Size rule"). Nor is a candidate over 1.4 x
# their side that is not sure itself (under 0.8) a die: a patch of a checked cloth seen at the finer look (model
# card, "Bigger than the dice")
SIZE_SURE = 0.8
SIZE_SHARE = 0.6
SIZE_UNSURE = 0.7
SIZE_BIGGER = 1.4
SIZE_NEIGHBOURS = 3


@dataclass(frozen=True)
class Rules:
    """The reader's special rules, each one switchable, so that a benchmark can measure what it pays on validation
    (`benchmarks/rules_bench.py`): a rule stays only where it does (issue 33, a simpler reader)."""

    second_look: bool = True  # dice small at the net's scale: a look at 1.5 x
    coarse_look: bool = True  # close-ups: looks at 1/4 and 1/2 the scale replace the pips read as ones
    finer_look: bool = True  # a large frame of tiny dice: a look at 2 x (and 3 x for a cluster)
    split_clusters: bool = True  # a large frame's big candidate looked into at 3 x: a block of tiny dice
    size_rule: bool = True  # unsure candidates far smaller or bigger than the sure dice near them are dropped
    reread: bool = True  # crops in doubt read again at all eight views

    @classmethod
    def without(cls, *names: str) -> Rules:
        """All rules but ``names``."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(names) - known)
        if unknown:
            raise ValueError(f"unknown rules {unknown}; the rules are {sorted(known)}")
        return cls(**{name: False for name in names})


class DiceReader:
    """Loads both models once; reading is thread-compatible but not meant to be shared by many threads at once."""

    def __init__(self, model_dir: Path | str | None = None, rules: Rules | None = None) -> None:
        folder = Path(model_dir) if model_dir else MODEL_DIR
        for name in (DETECTOR_FILE, CLASSIFIER_FILE):
            if not (folder / name).is_file():
                raise FileNotFoundError(
                    f"Model file {folder / name} is missing; retrain with `python -m vision.train`."
                )
        self.detector = Detector(folder / DETECTOR_FILE)
        self.classifier = Classifier(folder / CLASSIFIER_FILE)
        self.rules = rules or Rules()
        self.classifier.reread = self.rules.reread

    def read_bytes(self, data: bytes, kind: str = "auto") -> Reading:
        t0 = time.perf_counter()
        _check_kind(kind)
        return self._read(decode(data), kind, t0)

    def read_array(self, bgr: np.ndarray, kind: str = "auto") -> Reading:
        t0 = time.perf_counter()
        _check_kind(kind)
        if not isinstance(bgr, np.ndarray) or bgr.dtype != np.uint8 or bgr.ndim != 3 or bgr.shape[2] != 3:
            raise ImageError("A frame must be a BGR uint8 array of shape (height, width, 3).")
        if min(bgr.shape[:2]) < 8:
            raise ImageError(f"The frame is too small ({bgr.shape[1]}x{bgr.shape[0]}).")
        h, w = bgr.shape[:2]
        return self._read(Decoded(bgr, w, h, 1.0), kind, t0)

    def candidates(self, bgr: np.ndarray) -> Candidates:
        return self._find(bgr)

    def _find(self, bgr: np.ndarray) -> Candidates:
        """The candidates: of the first look, or of the finer look of a large frame.

        A large frame's first look is one scale at ``LARGE_DET_THRESHOLD``: the finer look's trigger was tuned on
        it. When no finer look is needed, the dice are big enough for the net's scale and the frame is read like a
        small one, two scales fused at the calibrated threshold: a webcam's 1280x960 frame of a scene reads as its
        640x480 frame does. Only the finer look keeps one scale, since a cluster of tiny dice that is one die at
        twice the scale drags its dice' scores under the threshold when the two are fused (model card, "Large
        frames read as small").
        """
        side = self.detector.long_side
        looks: Looks = {}  # each scale is looked at once, whichever step asks for it
        large = max(bgr.shape[:2]) >= LARGE_FRAME
        small = SMALL_DICE if self.rules.second_look else 0.0
        finer = (
            large
            and self.rules.finer_look
            and self.needs_finer_look(bgr, self.detector.detect(bgr, LARGE_DET_THRESHOLD, side, looks, fuse=False))
        )
        if finer:
            fuse, threshold = False, LARGE_DET_THRESHOLD
            side *= FINER_FACTOR
            # the 3 x look is kept when it finds as many dice as the 2 x one: dice read, not candidates, since at 3 x
            # the table's grain gives more candidates, and soft dice read better at 2 x (model card, "Dice read, not
            # candidates")
            found = self.detector.detect_multiscale(
                bgr,
                threshold,
                small=small,
                long_side=side,
                few=FINER_FEW,
                looks=looks,
                fuse=fuse,
                count=lambda c: int(self._dice(bgr, c).sum()),
            )
        else:
            fuse, threshold = True, self.classifier.det_threshold
            found = self.detector.detect_multiscale(bgr, threshold, small=small, long_side=side, looks=looks, fuse=fuse)
        c = self.coarse_look(bgr, found, side, looks, fuse, threshold) if self.rules.coarse_look else found
        if large and not finer and self.rules.split_clusters:
            c = self._split_clusters(bgr, c)
        if len(c) > MAX_DICE:
            c = c.select(np.argsort(-c.scores)[:MAX_DICE])
        return c

    def needs_finer_look(self, bgr: np.ndarray, first: Candidates) -> bool:
        """A large frame whose first look found nothing, only small dice, or nothing that reads as a die, is looked at
        again at twice the scale.

        The detector reports a tiny die bigger than it is (about 20 input px for a 10 px die), so the trigger is the
        same 30 px as for the second look of a small frame. Dice that are big enough are not looked for finer: at
        twice the scale the table's grain starts to pass for dice.
        """
        long_side = max(bgr.shape[:2])
        if long_side < LARGE_FRAME:
            return False
        if len(first) == 0 or float(np.median(first.sides)) * self.detector.long_side / long_side < FINER_BELOW:
            return True
        # only big candidates: a patch of a mottled table can pass for one big die at this scale and would hide the
        # tiny dice the finer look finds, so it takes a candidate the classifier reads as a die (model card, "A
        # finer look past a false big die")
        return not self._any_die(bgr, first)

    def _any_die(self, bgr: np.ndarray, c: Candidates) -> bool:
        """Whether any candidate reads as a die; the strongest are read first, and where one of them is a die, as in
        most photos, the rest need no reading."""
        order = np.argsort(-c.scores)
        return any(len(part) and self._dice(bgr, c.select(part)).any() for part in np.split(order, [ANY_DIE_FIRST]))

    def _dice(self, bgr: np.ndarray, c: Candidates) -> np.ndarray:
        """Which candidates read as a die of either kind (the cut of ``is_die``)."""
        if len(c) == 0:
            return np.zeros(0, bool)
        logits = self.classifier.logits(bgr, c)
        t, cut = self.classifier.temperature, self.classifier.max_background
        dice: np.ndarray = is_die(kind_probs(logits, "pip", t), cut) | is_die(kind_probs(logits, "poker", t), cut)
        return dice

    def _split_clusters(self, bgr: np.ndarray, found: Candidates) -> Candidates:
        """Big candidates that are blocks of tiny dice, replaced by their dice (see ``SPLIT_FACTOR``)."""
        if not 0 < len(found) <= FINER_FEW:
            return found  # many dice found: the photo is not one block taken for a die
        f = self.detector.long_side / max(bgr.shape[:2])
        keep = np.ones(len(found), bool)
        parts: list[Candidates] = []  # the dice of each big candidate split
        for k in np.nonzero(found.sides * f >= FINER_BELOW)[0]:
            side = float(found.sides[k])
            x0, y0 = (np.maximum(found.centres[k] - 0.75 * side, 0)).astype(int)
            x1, y1 = int(found.centres[k][0] + 0.75 * side), int(found.centres[k][1] + 0.75 * side)
            crop = bgr[y0:y1, x0:x1]
            inner = self.detector.detect(
                crop, LARGE_DET_THRESHOLD, max(32, round(max(crop.shape[:2]) * f * SPLIT_FACTOR)), fuse=False
            )
            inner = Candidates(inner.centres + np.array([x0, y0], np.float32), inner.sides, inner.scores)
            near = np.hypot(*(inner.centres - found.centres[k]).T) if len(inner) else np.zeros(0)
            inner = inner.select((near < 0.55 * side) & (inner.sides < 0.6 * side))
            if len(inner) < SPLIT_MIN:
                continue
            logits = self.classifier.logits(bgr, inner)
            p = kind_probs(logits, choose_kind(logits, inner.scores, inner.sides), self.classifier.temperature)
            dice = is_die(p, self.classifier.max_background)
            sure = p.max(axis=1) >= SPLIT_SURE
            if dice.sum() >= SPLIT_MIN and (sure | ~dice).all() and (p.argmax(axis=1)[dice] != 0).any():
                keep[k] = False
                parts.append(inner.select(dice))
        if keep.all():
            return found
        return Candidates.joined(found.select(keep), *parts)

    def coarse_look(
        self,
        bgr: np.ndarray,
        base: Candidates,
        side: int | None = None,
        looks: Looks | None = None,
        fuse: bool = True,
        threshold: float | None = None,
    ) -> Candidates:
        """Dice too big for the net's scale (a close-up, 200-400 px in a webcam frame) are seen again at 1/4 and 1/2.

        At the normal scale each pip of a big die can pass for a small die showing 1. A die found at a coarse scale
        and read as a face (probability over 0.8) replaces such "ones" inside it, if it has at least as many pips, or
        stands alone where nothing was found. A group of dice seen coarse can look like a face too, but its dice do
        not all read as ones, so it replaces nothing. ``looks``: the maps already taken of this image (the finer
        path's 1/2 look is the normal one); ``fuse``, ``threshold``: as the looks that found ``base`` (by default
        the calibrated threshold).
        """
        side = side or self.detector.long_side
        f0 = side / max(bgr.shape[:2])
        if len(base) and float(base.sides.max()) * f0 < PIP_AS_DIE:
            return base  # only small dice: no close-up here (and a frame of many small dice is read faster)
        threshold = self.classifier.det_threshold if threshold is None else threshold
        for shrink in (4, 2):
            coarse = self.detector.detect(bgr, threshold, side // shrink, looks, fuse)
            base = self._replace_split_dice(bgr, base, coarse, shrink, side)
        return base

    def _replace_split_dice(
        self, bgr: np.ndarray, base: Candidates, coarse: Candidates, shrink: int, look_side: int
    ) -> Candidates:
        f0 = look_side / max(bgr.shape[:2])
        f = f0 / shrink
        drop = np.zeros(len(base), bool)
        add: list[int] = []
        for k in np.nonzero(coarse.sides * f >= BIG_AT_COARSE_SCALE)[0]:
            side = float(coarse.sides[k])
            near = np.hypot(*(base.centres - coarse.centres[k]).T) if len(base) else np.zeros(0)
            # big candidates well inside its face and smaller: pips of it, or other dice if it is a blur of several
            inside = (near < 0.45 * side) & (base.sides < 0.6 * side) & (base.sides * f0 >= PIP_AS_DIE) & ~drop
            if not inside.any() and (near < 0.5 * side).any():
                continue  # the normal look saw this die whole
            big_logits = self.classifier.logits(bgr, coarse.select(np.array([k])))
            big_p = softmax(big_logits)[0, :BACKGROUND]
            if inside.any():
                # pips of a big die look like dice showing 1, and there are no more of them than it has pips (a 9 or
                # 10 of a poker die: up to ten symbols); a group of dice seen coarse can look like a face too, but its
                # dice do not all read as ones
                small = self.classifier.logits(bgr, base.select(inside)).argmax(1)
                face = int(big_p.argmax())
                if not ((small == 0).all() and (face + 1 if face < 6 else 10) >= len(small)):
                    continue
            face_p = float(big_p.max())
            if face_p > 0.8:
                drop |= inside
                add.append(int(k))
        if not add:
            return base
        return Candidates.joined(base.select(~drop), coarse.select(np.array(add)))

    def _read(self, img: Decoded, kind: str, t0: float) -> Reading:
        c = self._find(img.bgr)
        full = self.classifier.model_logits(img.bgr, c)
        logits = self.classifier.merge(full)
        if kind == "auto":
            kind = choose_kind(logits, c.scores, c.sides)
        p = kind_probs(logits, kind, self.classifier.temperature)
        faces = PIP_FACES if kind == "pip" else POKER_FACES
        best_of = np.argmax(p, axis=1)
        confs = confidence(p[np.arange(len(c)), best_of], c.scores, self.classifier.conf_model)
        dice = []
        dice_mask = is_die(p, self.classifier.max_background)
        if self.rules.size_rule:
            dice_mask &= ~off_the_dice_size(c.centres, c.sides, confs, dice_mask)
        for k in np.nonzero(dice_mask)[0]:
            best = int(best_of[k])
            conf = float(confs[k])
            box = _box(c.centres[k], float(c.sides[k]), img)
            if box is None:
                continue
            uncertain = conf < self.classifier.threshold
            printed = None
            if kind == "poker":
                printed = str(self.classifier.printing(full[k : k + 1], 6 + best)[0])
            dice.append(Die(faces[best], best + 1, conf, box, uncertain, kind, printed))
        dice.sort(key=lambda d: (d.box[0], d.box[1]))
        dropped = _dropped(p, c, img, kind, ~dice_mask, self.classifier.conf_model)
        warnings = _warnings(img.bgr)
        ms = (time.perf_counter() - t0) * 1000.0
        return Reading(kind, tuple(dice), img.width, img.height, ms, warnings, dropped)


def _box(centre: np.ndarray, side: float, img: Decoded) -> tuple[int, int, int, int] | None:
    """A candidate's box in the image's pixels, clipped to it; None where nothing of it is left."""
    cx, cy = centre * img.scale
    half = side * img.scale / 2
    box = (
        max(0, round(cx - half)),
        max(0, round(cy - half)),
        min(img.width, round(cx + half)),
        min(img.height, round(cy + half)),
    )
    return box if box[0] < box[2] and box[1] < box[3] else None


def _dropped(
    p: np.ndarray, c: Candidates, img: Decoded, kind: str, mask: np.ndarray, conf_model: list[float] | None
) -> tuple[Die, ...]:
    """The candidates not reported, each as its likeliest face with the chance it is that face (background's share
    lowers it), flagged uncertain: the surest may fill a die the game knows is missing (vision/count.py)."""
    if not mask.any():
        return ()
    faces = PIP_FACES if kind == "pip" else POKER_FACES
    best = np.argmax(p[:, :6], axis=1)
    confs = confidence(p[np.arange(len(c)), best], c.scores, conf_model)
    out = []
    for k in np.nonzero(mask)[0]:
        box = _box(c.centres[k], float(c.sides[k]), img)
        if box is not None:
            out.append(Die(faces[int(best[k])], int(best[k]) + 1, float(confs[k]), box, True, kind))
    out.sort(key=lambda d: -d.confidence)
    return tuple(out)


def off_the_dice_size(centres: np.ndarray, sides: np.ndarray, confs: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Candidates kept so far that are far smaller or bigger than the sure dice near them and not sure themselves.

    One sure die is no measure (it may be the odd one out), so it takes two.
    """
    sure = np.nonzero(keep & (confs >= SIZE_SURE))[0]
    out = np.zeros(len(sides), bool)
    if len(sure) < 2:
        return out
    for k in np.nonzero(keep)[0]:
        near = sure[np.argsort(np.hypot(*(centres[sure] - centres[k]).T))[:SIZE_NEIGHBOURS]]
        size = float(np.median(sides[near]))
        smaller = confs[k] < SIZE_UNSURE and sides[k] < SIZE_SHARE * size
        out[k] = smaller or (confs[k] < SIZE_SURE and sides[k] > SIZE_BIGGER * size)
    return out


def _check_kind(kind: str) -> None:
    if kind != "auto" and kind not in KINDS:
        raise ValueError(f"kind must be 'pip', 'poker' or 'auto', not {kind!r}.")


def _warnings(bgr: np.ndarray) -> tuple[str, ...]:
    small = bgr[::8, ::8]
    mean = float(small.mean())
    out = []
    if mean < 35:
        out.append("The picture is very dark.")
    elif mean > 235:
        out.append("The picture is very bright.")
    return tuple(out)


@functools.cache
def get_reader() -> DiceReader:
    """The process-wide reader with the bundled models, loaded on first use."""
    return DiceReader()
