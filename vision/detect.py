"""Stage 1: where the dice are. A small ONNX heatmap net predicts each die's centre and side at low resolution."""

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


def session(path: Path) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # the detector's and the classifier's thread pools take turns on the same cores: threads that spin waiting for
    # work steal them from the other session (a 640x480 frame: 50-55 ms spinning, 29-39 ms not, two cores)
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


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

    def detect(self, bgr: np.ndarray, threshold: float = 0.25, long_side: int | None = None) -> Candidates:
        tensor, f = self.preprocess(bgr, long_side)
        return self.postprocess(self.infer(tensor), f, bgr.shape[:2], threshold)

    def detect_multiscale(
        self,
        bgr: np.ndarray,
        threshold: float = 0.25,
        small: float = 30.0,
        long_side: int | None = None,
        first: Candidates | None = None,
        few: int = 0,
    ) -> Candidates:
        """Detect; when the dice found are small at the net's scale (far away, many), look again at 1.5 x the scale.

        The net reads dice best at 20-60 input pixels; a second look costs 2.25 x the first, so it is only taken when
        the first one says the dice are small. The trigger and factor were chosen on the train rows (rune55-small-far
        recall 0.84 -> 0.89 there, the other sets unchanged). ``long_side`` is the first look's scale (the reader's
        finer look for a large frame doubles it); ``first`` is that look when the caller has it already. ``few``: also
        look again when the first look found at most this many dice, big or none (the reader's finer look, where a
        cluster of tiny dice can pass for one or a few big dice).
        """
        base = long_side or self.long_side
        c = first if first is not None else self.detect(bgr, threshold, base)
        f = base / max(bgr.shape[:2])
        small_dice = len(c) > 0 and float(np.median(c.sides)) * f < small
        if not small_dice and not (few and len(c) <= few):
            return c
        fine = self.detect(bgr, threshold, round(base * 1.5))
        return fine if len(fine) >= len(c) else c


def suppress(c: Candidates, overlap: float = 0.5) -> Candidates:
    """Drop a candidate whose centre lies within ``overlap`` sides of a stronger one (one die, two peaks)."""
    order = np.argsort(-c.scores)
    keep: list[int] = []
    for i in order:
        if all(np.hypot(*(c.centres[i] - c.centres[j])) > overlap * max(c.sides[i], c.sides[j]) for j in keep):
            keep.append(int(i))
    return c.select(np.array(sorted(keep), dtype=np.int64))
