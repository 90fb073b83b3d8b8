"""The extra looks for dice the net's normal scale does not fit: close-ups, tiny dice in large frames, and blocks of
tiny dice that pass for one die. Each is one of the reader's rules (``vision.reader.Rules``), kept because validation
shows it pays (model card, "How it reads a photo" and "What each rule pays")."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.classify import BACKGROUND, Classifier, choose_kind, is_die, kind_probs, softmax
from vision.detect import Candidates, Detector, Looks

PIP_AS_DIE = 48.0  # input px at the normal scale: a pip taken for a die is this big only on a close-up
BIG_AT_COARSE_SCALE = 24.0  # side in coarse-look input px from which a die may be one the normal look split
# A large frame (a photo, an HD webcam) can hold dice too small for the net at its trained scale: 50 px dice in a
# 12 MP photo are 5 input px there. Chosen on rendered train-design scenes of 1280x720 to 4000x3000 (model card).
LARGE_FRAME = 1000  # long side as decoded, px; the 640 px frames of a webcam and of every benchmark set never are
FINER_BELOW = 30.0  # median side at the normal scale, input px, under which a large frame is looked at again finer
FINER_FACTOR = 2  # the finer look's scale against the normal one
# A finer look that found this many dice or fewer is followed by one at 1.5 x its scale (kept when it finds at least
# as many dice): a cluster of tiny dice can pass for one or a few big ones at twice the scale, not at three times. A
# photo of more dice is not a cluster taken for a die, and spares the pass (model card, "Clusters of small dice")
FINER_FEW = 5
ANY_DIE_FIRST = 3  # first-look candidates read at once when asking whether any is a die
# The detector threshold of a large frame's single-scale looks: the finer look and its triggers were chosen with it, and
# at 0.3 (calibrated for fused looks) a row of tiny dice in a 12 MP photo passes for one die showing 3 at the first look
LARGE_DET_THRESHOLD = 0.4
# A tight block of tiny dice in a large frame can read as one big die, surely (four dice at its corners: a "4"), at the
# first look. A big candidate of such a frame, with few others, is looked into at SPLIT_FACTOR x the normal scale, and
# where SPLIT_MIN or more dice inside it each read at SPLIT_SURE or more, and not all as ones (the pips of a big die),
# it is those dice. The pips of a real die read as ones, or as twos in pairs, unsurely (model card, "A finer look past
# a false big die")
SPLIT_FACTOR = 3
SPLIT_MIN = 3
SPLIT_SURE = 0.9


def read_as_dice(classifier: Classifier, bgr: np.ndarray, c: Candidates) -> np.ndarray:
    """Which candidates read as a die of either kind (the cut of ``is_die``)."""
    if len(c) == 0:
        return np.zeros(0, bool)
    logits = classifier.logits(bgr, c)
    t, cut = classifier.temperature, classifier.max_background
    dice: np.ndarray = is_die(kind_probs(logits, "pip", t), cut) | is_die(kind_probs(logits, "poker", t), cut)
    return dice


def needs_finer_look(detector: Detector, classifier: Classifier, bgr: np.ndarray, first: Candidates) -> bool:
    """A large frame whose first look found nothing, only small dice, or nothing that reads as a die, is looked at
    again at twice the scale.

    The detector reports a tiny die bigger than it is (about 20 input px for a 10 px die), so the trigger is the same
    30 px as for the second look of a small frame. Dice that are big enough are not looked for finer: at twice the
    scale the table's grain starts to pass for dice.
    """
    long_side = max(bgr.shape[:2])
    if long_side < LARGE_FRAME:
        return False
    if len(first) == 0 or float(np.median(first.sides)) * detector.long_side / long_side < FINER_BELOW:
        return True
    # only big candidates: a patch of a mottled table can pass for one big die at this scale and would hide the tiny
    # dice the finer look finds, so it takes a candidate the classifier reads as a die (model card, "A finer look past
    # a false big die"). The strongest are read first: where one of them is a die, as in most photos, the rest need
    # no reading
    order = np.argsort(-first.scores)
    parts = np.split(order, [ANY_DIE_FIRST])
    return not any(len(part) and read_as_dice(classifier, bgr, first.select(part)).any() for part in parts)


def finer_look(
    detector: Detector, classifier: Classifier, bgr: np.ndarray, small: float, looks: Looks
) -> tuple[Candidates, int]:
    """The candidates of a large frame's look at twice the scale, and that look's long side.

    The 3 x look is kept when it finds as many dice as the 2 x one: dice read, not candidates, since at 3 x the
    table's grain gives more candidates, and soft dice read better at 2 x (model card, "Dice read, not candidates").
    """
    side = detector.long_side * FINER_FACTOR
    count: Callable[[Candidates], int] = lambda c: int(read_as_dice(classifier, bgr, c).sum())  # noqa: E731
    found = detector.detect_multiscale(
        bgr, LARGE_DET_THRESHOLD, small=small, long_side=side, few=FINER_FEW, looks=looks, fuse=False, count=count
    )
    return found, side


def split_clusters(detector: Detector, classifier: Classifier, bgr: np.ndarray, found: Candidates) -> Candidates:
    """Big candidates of a large frame that are blocks of tiny dice, replaced by their dice (see ``SPLIT_FACTOR``)."""
    if not 0 < len(found) <= FINER_FEW:
        return found  # many dice found: the photo is not one block taken for a die
    f = detector.long_side / max(bgr.shape[:2])
    keep = np.ones(len(found), bool)
    parts: list[Candidates] = []  # the dice of each big candidate split
    for k in np.nonzero(found.sides * f >= FINER_BELOW)[0]:
        side = float(found.sides[k])
        x0, y0 = (np.maximum(found.centres[k] - 0.75 * side, 0)).astype(int)
        x1, y1 = int(found.centres[k][0] + 0.75 * side), int(found.centres[k][1] + 0.75 * side)
        crop = bgr[y0:y1, x0:x1]
        inner = detector.detect(
            crop, LARGE_DET_THRESHOLD, max(32, round(max(crop.shape[:2]) * f * SPLIT_FACTOR)), fuse=False
        )
        inner = Candidates(inner.centres + np.array([x0, y0], np.float32), inner.sides, inner.scores)
        near = np.hypot(*(inner.centres - found.centres[k]).T) if len(inner) else np.zeros(0)
        inner = inner.select((near < 0.55 * side) & (inner.sides < 0.6 * side))
        if len(inner) < SPLIT_MIN:
            continue
        logits = classifier.logits(bgr, inner)
        p = kind_probs(logits, choose_kind(logits, inner.scores, inner.sides), classifier.temperature)
        dice = is_die(p, classifier.max_background)
        sure = p.max(axis=1) >= SPLIT_SURE
        if dice.sum() >= SPLIT_MIN and (sure | ~dice).all() and (p.argmax(axis=1)[dice] != 0).any():
            keep[k] = False
            parts.append(inner.select(dice))
    if keep.all():
        return found
    return Candidates.joined(found.select(keep), *parts)


def coarse_look(
    detector: Detector,
    classifier: Classifier,
    bgr: np.ndarray,
    base: Candidates,
    side: int,
    looks: Looks,
    fuse: bool,
    threshold: float,
) -> Candidates:
    """Dice too big for the net's scale (a close-up, 200-400 px in a webcam frame) are seen again at 1/4 and 1/2.

    At the normal scale each pip of a big die can pass for a small die showing 1. A die found at a coarse scale and
    read as a face (probability over 0.8) replaces such "ones" inside it, if it has at least as many pips, or stands
    alone where nothing was found. A group of dice seen coarse can look like a face too, but its dice do not all read
    as ones, so it replaces nothing. ``side``, ``looks``, ``fuse``, ``threshold``: those of the looks that found
    ``base`` (the finer path's 1/2 look is the normal one).
    """
    f0 = side / max(bgr.shape[:2])
    if len(base) and float(base.sides.max()) * f0 < PIP_AS_DIE:
        return base  # only small dice: no close-up here (and a frame of many small dice is read faster)
    for shrink in (4, 2):
        coarse = detector.detect(bgr, threshold, side // shrink, looks, fuse)
        base = _replace_split_dice(classifier, bgr, base, coarse, f0, f0 / shrink)
    return base


def _replace_split_dice(
    classifier: Classifier, bgr: np.ndarray, base: Candidates, coarse: Candidates, f0: float, f: float
) -> Candidates:
    drop = np.zeros(len(base), bool)
    add: list[int] = []
    for k in np.nonzero(coarse.sides * f >= BIG_AT_COARSE_SCALE)[0]:
        side = float(coarse.sides[k])
        near = np.hypot(*(base.centres - coarse.centres[k]).T) if len(base) else np.zeros(0)
        # big candidates well inside its face and smaller: pips of it, or other dice if it is a blur of several
        inside = (near < 0.45 * side) & (base.sides < 0.6 * side) & (base.sides * f0 >= PIP_AS_DIE) & ~drop
        whole = (near < 0.5 * side) & ~inside
        tight = np.zeros_like(inside)  # what the normal look saw of this die too small to read, replaced below
        if not inside.any() and whole.any():
            if (whole & drop).any() or read_as_dice(classifier, bgr, base.select(whole)).any():
                continue  # the normal look saw this die whole (or another coarse candidate already replaced it)
            # it saw the die but too small (a close-up's side is often underrated): its crop holds the pips, not the
            # die, and reads as no die; the coarse candidate replaces it if it reads surely
            tight = whole
        big_p = softmax(classifier.logits(bgr, coarse.select(np.array([k]))))[0, :BACKGROUND]
        if inside.any():
            # pips of a big die look like dice showing 1, and there are no more of them than it has pips (a 9 or 10
            # of a poker die: up to ten symbols); a group of dice seen coarse can look like a face too, but its dice
            # do not all read as ones
            small = classifier.logits(bgr, base.select(inside)).argmax(1)
            face = int(big_p.argmax())
            if not ((small == 0).all() and (face + 1 if face < 6 else 10) >= len(small)):
                continue
        if float(big_p.max()) > 0.8:
            drop |= inside | tight
            add.append(int(k))
    if not add:
        return base
    return Candidates.joined(base.select(~drop), coarse.select(np.array(add)))
