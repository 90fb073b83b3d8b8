"""Stage 1: where the dice are. An ONNX heatmap net on pretrained features predicts each die's centre and side at
stride 4, at the levels of a pyramid of looks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort


@dataclass(frozen=True)
class Candidates:
    """Die candidates in pixels of the image given to ``detect``: centres (n, 2), sides (n,), scores (n,)."""

    centres: np.ndarray
    sides: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return len(self.scores)

    def select(self, mask: np.ndarray) -> Candidates:
        return Candidates(self.centres[mask], self.sides[mask], self.scores[mask])

    @staticmethod
    def empty() -> Candidates:
        return Candidates(np.zeros((0, 2), np.float32), np.zeros(0, np.float32), np.zeros(0, np.float32))

    @staticmethod
    def joined(*parts: Candidates) -> Candidates:
        return Candidates(
            np.concatenate([c.centres for c in parts]),
            np.concatenate([c.sides for c in parts]),
            np.concatenate([c.scores for c in parts]),
        )


def session(path: Path) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # the detector's and the classifier's thread pools take turns on the same cores: threads that spin waiting for
    # work steal them from the other session (a 640x480 frame: 50-55 ms spinning, 29-39 ms not, two cores)
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


SMALL_DICE = 30.0  # median side at the net's scale, input px, under which a second look at 1.5 x is taken
CANVAS = 160  # input px: a look smaller than this is laid on a canvas this big (Detector.preprocess)
# The pyramid (Detector.pyramid). The net finds dice well from about 18 to 110 px at its input (recall 0.8 or more on
# the validation rows and rendered close-ups, by side; 12-16 px: a third); a level keeps what lies in that band.
BAND_LO = 18.0
BAND_HI = 110.0
SWEET = float(np.sqrt(BAND_LO * BAND_HI))  # input px a die is seen best at (the band's middle, geometrically)
BAND_HI_COARSE = 70.0  # a crop's coarse levels go on until the largest die is this big (a photo's: BAND_HI)
CLOSE_UP = 0.5  # the largest die a photo is read for, as a share of its short side
CROP = 0.9  # ... of a picture smaller than the net's input: a crop around one die
LARGE_FRAME = 1000  # long side, px: a photo or an HD frame, whose fine level is twice its base, not 1.5 x
PIP_AS_DIE = 48.0  # input px at the normal level: a candidate this big may be a close-up's die or pip
BIG_SURE = 0.4  # ... read at least this surely (a faint big one is a cluster of small dice passing for one die)
CLOSE_UP_PIPS = 10  # candidates at the normal level at most, all smaller, for coarse levels to be looked at
MAX_COARSE = 4  # coarse levels at most (a 100 px crop of one die needs three)
MAX_FINE = 2  # finer levels at most, in a large frame (one in a smaller picture)
SECOND_FINE = 24.0  # median side, input px, under which a large frame's first finer level is followed by one at 1.5 x


class Looks(dict[int, tuple[np.ndarray, float]]):
    """The net's maps of one image and their scale, by the look's long side; and the image resized for each look
    (``frames``), from which the next smaller look is resized."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: dict[int, np.ndarray] = {}
        self.canvas = False  # looks smaller than CANVAS are laid on a canvas (a crop around one die)


class Detector:
    """The detector's file and the pyramid policy around it. Since issue 59 the net starts from pretrained features
    and tells a die's body from a speck or its own pips at one scale: one look a level, each die boxed whole (the tiny
    net of before fused two looks a level and saw a close-up's pips as dice; its rules went with it)."""

    band_hi = BAND_HI  # class defaults: a detector made without its file (the stage tests')
    sweet = SWEET

    def __init__(self, path: Path) -> None:
        self.sess = session(path)
        meta = self.sess.get_modelmeta().custom_metadata_map
        self.stride = int(meta.get("stride", "4"))
        self.long_side = int(meta.get("long_side", "320"))
        self.input = self.sess.get_inputs()[0].name
        # the net is taught dice from about 10 px to a die filling its look: a band up to ``band_hi`` input px before
        # a coarser level is needed, and the die size it sees best (of two looks at one die, the one nearer is kept)
        self.band_hi = float(meta.get("band_hi", BAND_HI))
        self.sweet = float(meta.get("sweet", SWEET))

    def preprocess(
        self,
        bgr: np.ndarray,
        long_side: int | None = None,
        frames: dict[int, np.ndarray] | None = None,
        canvas: bool = False,
    ) -> tuple[np.ndarray, float]:
        """Resize the long side to ``long_side`` and pad to a multiple of 32; returns tensor and input/image scale.

        ``frames``: the image already resized for other looks, by long side; the resize starts from the smallest of
        them that is at least as big (a pyramid: a 1080p frame is shrunk from its full size once, not per look).
        ``canvas``: a look smaller than ``CANVAS`` is laid on a canvas of that size (the pyramid's coarse levels of a
        crop around one die)."""
        h, w = bgr.shape[:2]
        target = long_side or self.long_side
        f = target / max(h, w)
        nw, nh = max(1, round(w * f)), max(1, round(h * f))
        src = bgr
        if frames is not None:
            bigger = [k for k in frames if target <= k < max(h, w)]
            if bigger:
                src = frames[min(bigger)]
            # halved by a Gaussian pyramid step while that stays at least as big: cheaper than averaging the area of
            # the whole image down in one go, and kept for the looks after it
            while max(src.shape[:2]) >= 2 * target and min(src.shape[:2]) >= 64:
                src = cv2.pyrDown(src)
                frames[max(src.shape[:2])] = src
        r = target / max(src.shape[:2])
        # area averaging only pays for large reductions (against aliasing); for mild ones it costs ms per look
        small = cv2.resize(src, (nw, nh), interpolation=cv2.INTER_AREA if r < 0.5 else cv2.INTER_LINEAR)
        if frames is not None:
            frames[target] = small
        pw, ph = -(-nw // 32) * 32, -(-nh // 32) * 32
        if canvas and max(nw, nh) < CANVAS:
            # a look so coarse that the picture is smaller than a die's surroundings in training (a crop of one die
            # at a quarter scale): it lies on a canvas of the table's colour, so the die stands on a table again
            ring = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
            fill = [float(v) for v in np.median(ring, axis=0)]
            pad = cv2.copyMakeBorder(small, 0, CANVAS - nh, 0, CANVAS - nw, cv2.BORDER_CONSTANT, value=fill)
        else:
            pad = cv2.copyMakeBorder(small, 0, ph - nh, 0, pw - nw, cv2.BORDER_REPLICATE)
        return np.ascontiguousarray(pad.transpose(2, 0, 1)[None], dtype=np.float32), f

    def infer(self, tensor: np.ndarray) -> np.ndarray:
        out: np.ndarray = self.sess.run(None, {self.input: tensor})[0][0]
        return out

    def postprocess(self, maps: np.ndarray, f: float, shape: tuple[int, int], threshold: float) -> Candidates:
        heat = 1.0 / (1.0 + np.exp(-maps[0]))
        peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
        iy, ix = np.nonzero(peaks)
        if len(iy) == 0:
            return Candidates.empty()
        scores = heat[iy, ix]
        cx = (ix + maps[2, iy, ix]) * self.stride / f
        cy = (iy + maps[3, iy, ix]) * self.stride / f
        sides = np.exp(np.clip(maps[1, iy, ix], 0.0, 7.0)) / f
        inside = (cx >= 0) & (cy >= 0) & (cx < shape[1]) & (cy < shape[0])
        c = Candidates(np.stack([cx, cy], 1).astype(np.float32), sides.astype(np.float32), scores.astype(np.float32))
        return suppress(c.select(inside))

    def look(self, bgr: np.ndarray, long_side: int, looks: Looks | None = None) -> tuple[np.ndarray, float]:
        """The net's maps of the image at one scale and that scale (input px per image px), taken once per ``looks``."""
        if looks is not None and long_side in looks:
            return looks[long_side]
        tensor, f = self.preprocess(bgr, long_side, getattr(looks, "frames", None), getattr(looks, "canvas", False))
        taken = (self.infer(tensor), f)
        if looks is not None:
            looks[long_side] = taken
        return taken

    def detect(
        self, bgr: np.ndarray, threshold: float = 0.25, long_side: int | None = None, looks: Looks | None = None
    ) -> Candidates:
        """Candidates of one look at ``long_side``; ``looks``: the maps already taken of this image, shared between
        calls."""
        maps, f = self.look(bgr, long_side or self.long_side, looks)
        return self.postprocess(maps, f, bgr.shape[:2], threshold)

    def pyramid(self, bgr: np.ndarray, threshold: float, looks: Looks | None = None) -> Candidates:
        """Candidates of every die size, from a pyramid of looks at the net's normal scale and at halves of it.

        Coarser levels are looked at while the largest die the picture may hold (``CLOSE_UP`` of its short side) is
        over ``BAND_HI`` at the coarsest so far, unless the normal level found more than ``CLOSE_UP_PIPS`` candidates
        and none of ``PIP_AS_DIE`` or more (a photo of many small dice is no close-up). A picture smaller than the
        net's input is a crop around one die (``CROP`` of its short side): its coarse levels go on while that is over
        ``BAND_HI_COARSE``, each look on a canvas of its border. A finer level (1.5 x the normal scale, 2 x for a
        large frame) is looked at where the dice found at the normal scale are small there (median under
        ``SMALL_DICE``) or, in a large frame, none were found; in a large frame one more (3 x) where those are
        still small (under ``SECOND_FINE``), one or none; never finer than the picture itself. Each level keeps the
        candidates of the sizes it sees best (``keep_bands``). A block of small dice and the one die it passes for can
        both be kept: the size rule and the count tell them apart, by the dice around them and the dice thrown.
        """
        looks = Looks() if looks is None else looks
        long_side, short_side = max(bgr.shape[:2]), min(bgr.shape[:2])
        crop = long_side <= self.long_side
        biggest = short_side * (CROP if crop else CLOSE_UP)
        looks.canvas = crop
        normal = self.detect(bgr, threshold, self.long_side, looks)
        sides = [self.long_side]
        # a photo of many candidates, all small at the normal level, is no close-up (one die shows ten pips at most):
        # it needs no coarse level
        sure = normal.select(normal.scores >= BIG_SURE)
        big = len(sure) and float(sure.sides.max()) * self.long_side / long_side >= PIP_AS_DIE
        if crop or big or len(normal) <= CLOSE_UP_PIPS:
            top = BAND_HI_COARSE if crop else self.band_hi
            while biggest * sides[-1] / long_side > top and len(sides) <= MAX_COARSE:
                sides.append(max(8, round(sides[-1] / 2)))
        levels = [(self.long_side / long_side, normal)]
        levels += [(s / long_side, self.detect(bgr, threshold, s, looks)) for s in sides[1:]]
        large = long_side >= LARGE_FRAME
        small = SMALL_DICE
        for step in range(MAX_FINE if large else 1):
            f, finest = levels[0]
            fine = round(f * long_side * (2 if large and step == 0 else 1.5))
            if fine > max(long_side, self.long_side * 1.5):
                break  # no finer than the picture itself, but for a small one
            if len(finest) == 0 and not large:
                break
            if len(finest) and float(np.median(finest.sides)) * f >= small:
                break
            levels.insert(0, (fine / long_side, self.detect(bgr, threshold, fine, looks)))
            small = SECOND_FINE  # a second finer level only for dice still small at the first
        return keep_bands(levels, self.long_side / long_side, self.band_hi, self.sweet)


def suppress(c: Candidates, overlap: float = 0.5) -> Candidates:
    """Drop a candidate whose centre lies within ``overlap`` sides of a stronger one (one die, two peaks)."""
    near = gaps(c) <= overlap * np.maximum(c.sides[:, None], c.sides[None, :])
    keep: list[int] = []
    for i in np.argsort(-c.scores):
        if not near[i, keep].any():
            keep.append(int(i))
    return c.select(np.array(sorted(keep), dtype=np.int64))


def gaps(c: Candidates) -> np.ndarray:
    """The distances between every two candidates' centres, (n, n): one matrix, not a Python loop over pairs (a
    look at a frame of many dice has a few hundred pairs)."""
    out: np.ndarray = np.hypot(
        c.centres[:, None, 0] - c.centres[None, :, 0], c.centres[:, None, 1] - c.centres[None, :, 1]
    )
    return out


OVERLAP = 0.8  # a level also keeps dice this much under the size at which the next finer level stops seeing them
OUT_OF_BAND = 10.0  # what being out of its level's band weighs against a candidate, beside its distance from SWEET
SAME_SIZE = 1.8  # two candidates of two levels on one spot within this ratio of sides are one die, seen twice


def part_of_bigger(c: Candidates, over: np.ndarray, coarser: list[Candidates]) -> np.ndarray:
    """Which of ``c`` (those ``over`` their level's band) lie inside a candidate of a coarser level ``SAME_SIZE`` x
    their side or more: a part of what that level saw whole. A crop of one die looked at six times its size shows its
    pips as dice, over the band, where the coarser levels see the die; a pretrained net boxes a pip with its
    neighbours, which then read as a face (chase-casino-crops: the die taken for a block of dice, its pips kept, one
    photo in four; issue 59)."""
    part = np.zeros(len(c), bool)
    for b in coarser:
        for centre, side in zip(b.centres, b.sides, strict=True):
            inside = np.hypot(*(c.centres - centre).T) < 0.5 * side
            part |= over & inside & (side >= SAME_SIZE * c.sides)
    return part


def keep_bands(
    levels: list[tuple[float, Candidates]],
    base: float | None = None,
    band_hi: float = BAND_HI,
    sweet: float = SWEET,
) -> Candidates:
    """The candidates of a pyramid's levels ((scale, candidates), finest first). Each level sees some sizes best: up
    to ``BAND_HI`` input px (the coarsest level: any bigger size too), and from the size at which the next finer level
    stops seeing dice (the finest: any smaller size too). One die seen at two levels is kept once, from the level
    whose band holds it, and of those the one that sees it nearer ``sweet`` (``SWEET``, or as the net's file says); a
    candidate over its level's band stays where no other level saw that die (a die of half the photo, found at the
    normal scale only); one under it goes, the finer level looked for it, but for the coarse levels of a picture
    smaller than the net's input (``base``, the normal level's scale, at least 1: a crop around a translucent die whose
    pips the finer level took for dice). A die and the smaller candidates inside it are both kept, but for one over
    its level's band inside a bigger candidate of a coarser level (``part_of_bigger``: a close-up's pips)."""
    parts, fit = [], []
    for i, (f, c) in enumerate(levels):
        s = c.sides * f
        lo = 0.0 if i == 0 else band_hi * f / levels[i - 1][0] * OVERLAP
        hi = np.inf if i == len(levels) - 1 else band_hi
        # a picture smaller than the net's input is read at its coarse levels above all (a crop around one die): what
        # they see under their band stays there, where the finer level may have seen the die's pips
        coarse = i > 0 and base is not None and base >= 1 and levels[i - 1][0] <= base
        seen = (s >= lo) | coarse
        if hi < np.inf:
            seen &= ~part_of_bigger(c, s > hi, [b for _, b in levels[i + 1 :]])
        parts.append(c.select(seen))
        fit.append(np.abs(np.log(np.maximum(s[seen], 1e-3) / sweet)) + OUT_OF_BAND * (s[seen] > hi))
    c = Candidates.joined(*parts) if parts else Candidates.empty()
    order = np.argsort(np.concatenate(fit) if fit else np.zeros(0), kind="stable")
    big = np.maximum(c.sides[:, None], c.sides[None, :])
    same = (gaps(c) < 0.5 * big) & (big < SAME_SIZE * np.minimum(c.sides[:, None], c.sides[None, :]))
    kept: list[int] = []
    for i in order:
        if not same[i, kept].any():
            kept.append(int(i))
    return c.select(np.array(sorted(kept), dtype=np.int64))
