"""Stage 1: where the dice are. A small ONNX heatmap net predicts each die's centre and side at low resolution."""

from __future__ import annotations

from collections.abc import Callable
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


# Every look is fused with one at 2/3 of its scale: the two centre maps averaged (``Detector.detect``). Partners of 0.6,
# 2/3, 0.75, 0.85 and 1.25 all read better than one look on the validation and the train rows; 2/3 costs least, since
# the second look at 1.5 x the scale is fused with the first look itself (model card, "Two scales")
FUSE_SCALE = 2 / 3
SMALL_DICE = 30.0  # median side at the net's scale, input px, under which a second look at 1.5 x is taken
Looks = dict[int, tuple[np.ndarray, float]]  # the net's maps of one image and their scale, by the look's long side


def fuse_side(long_side: int) -> int:
    """The long side of the look fused with one of ``long_side``: 416 -> 277, 624 -> 416, 1248 -> 832."""
    return max(32, round(long_side * FUSE_SCALE))


class Detector:
    def __init__(self, path: Path) -> None:
        self.sess = session(path)
        meta = self.sess.get_modelmeta().custom_metadata_map
        self.stride = int(meta.get("stride", "4"))
        self.long_side = int(meta.get("long_side", "320"))
        self.input = self.sess.get_inputs()[0].name

    def preprocess(self, bgr: np.ndarray, long_side: int | None = None) -> tuple[np.ndarray, float]:
        """Resize the long side to ``long_side`` and pad to a multiple of 32; returns tensor and input/image scale."""
        h, w = bgr.shape[:2]
        f = (long_side or self.long_side) / max(h, w)
        nw, nh = max(1, round(w * f)), max(1, round(h * f))
        # area averaging only pays for large reductions (against aliasing); for mild ones it costs ms per look
        small = cv2.resize(bgr, (nw, nh), interpolation=cv2.INTER_AREA if f < 0.5 else cv2.INTER_LINEAR)
        pw, ph = -(-nw // 32) * 32, -(-nh // 32) * 32
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
        tensor, f = self.preprocess(bgr, long_side)
        taken = (self.infer(tensor), f)
        if looks is not None:
            looks[long_side] = taken
        return taken

    def detect(
        self,
        bgr: np.ndarray,
        threshold: float = 0.25,
        long_side: int | None = None,
        looks: Looks | None = None,
        fuse: bool = True,
    ) -> Candidates:
        """Candidates of one look, its centre logits averaged with a look's at ``FUSE_SCALE`` of its scale.

        One scale alone misses a clear die now and then (a centre at 0.38 where the threshold is 0.40, and 0.5-0.7 at
        other scales), and takes the odd spot of the table for a die where the other scale does not: two scales agree
        on dice more than on mistakes. Sides and offsets stay this look's. ``looks``: the maps already taken of this
        image, shared between calls; ``fuse``: False for one look alone (the reader's large frames).
        """
        side = long_side or self.long_side
        maps, f = self.look(bgr, side, looks)
        if fuse:
            other, f2 = self.look(bgr, fuse_side(side), looks)
            maps = maps.copy()
            maps[0] = fused_centres(maps, other, f2 / f)
        return self.postprocess(maps, f, bgr.shape[:2], threshold)

    def detect_multiscale(
        self,
        bgr: np.ndarray,
        threshold: float = 0.25,
        small: float = SMALL_DICE,
        long_side: int | None = None,
        few: int = 0,
        looks: Looks | None = None,
        fuse: bool = True,
        count: Callable[[Candidates], int] = len,
    ) -> Candidates:
        """Detect; when the dice found are small at the net's scale (far away, many), look again at 1.5 x the scale.

        The net reads dice best at 20-60 input pixels; a second look costs 2.25 x the first, so it is only taken when
        the first one says the dice are small. The trigger and factor were chosen on the train rows (rune55-small-far
        recall 0.84 -> 0.89 there, the other sets unchanged). ``long_side`` is the first look's scale (the reader's
        finer look for a large frame doubles it); ``looks`` shares the maps already taken. ``few``: also
        look again when the first look found at most this many dice, big or none (the reader's finer look, where a
        cluster of tiny dice can pass for one or a few big dice). ``fuse``: as for ``detect``. ``count``: how many dice
        a look found, by which the second look is kept when it found as many; by default its candidates.
        """
        base = long_side or self.long_side
        c = self.detect(bgr, threshold, base, looks, fuse)
        f = base / max(bgr.shape[:2])
        small_dice = len(c) > 0 and float(np.median(c.sides)) * f < small
        if not small_dice and not (few and len(c) <= few):
            return c
        fine = self.detect(bgr, threshold, round(base * 1.5), looks, fuse)
        return fine if count(fine) >= count(c) else c


def fused_centres(maps: np.ndarray, other: np.ndarray, k: float) -> np.ndarray:
    """The centre logits of ``maps`` averaged with ``other``'s, a look at ``k`` times its scale, on its own grid.

    Cell i covers input px [s i, s (i + 1)) of its look, so cell centres line up where j + 1/2 = k (i + 1/2).
    """
    h, w = maps.shape[1:]
    to_other = np.array([[k, 0.0, (k - 1) / 2], [0.0, k, (k - 1) / 2]], np.float32)
    resampled = cv2.warpAffine(
        other[0], to_other, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )
    fused: np.ndarray = (maps[0] + resampled) / 2
    return fused


def suppress(c: Candidates, overlap: float = 0.5) -> Candidates:
    """Drop a candidate whose centre lies within ``overlap`` sides of a stronger one (one die, two peaks)."""
    order = np.argsort(-c.scores)
    keep: list[int] = []
    for i in order:
        if all(np.hypot(*(c.centres[i] - c.centres[j])) > overlap * max(c.sides[i], c.sides[j]) for j in keep):
            keep.append(int(i))
    return c.select(np.array(sorted(keep), dtype=np.int64))
