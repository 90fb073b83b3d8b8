"""The dice reader: bytes or a BGR frame in, a ``Reading`` out (decode -> detect -> classify -> decide)."""

from __future__ import annotations

import functools
import time
from pathlib import Path

import numpy as np

from vision.classify import Classifier, choose_kind, confidence, kind_probs
from vision.decode import Decoded, decode
from vision.detect import Candidates, Detector
from vision.reading import KINDS, PIP_FACES, POKER_FACES, Die, ImageError, Reading

MODEL_DIR = Path(__file__).resolve().parents[1] / "models"
DETECTOR_FILE = "dice-detector.onnx"
CLASSIFIER_FILE = "dice-faces.onnx"
MAX_DICE = 40


class DiceReader:
    """Loads both models once; reading is thread-compatible but not meant to be shared by many threads at once."""

    def __init__(self, model_dir: Path | str | None = None) -> None:
        folder = Path(model_dir) if model_dir else MODEL_DIR
        for name in (DETECTOR_FILE, CLASSIFIER_FILE):
            if not (folder / name).is_file():
                raise FileNotFoundError(
                    f"Model file {folder / name} is missing; retrain with `python -m vision.train`."
                )
        self.detector = Detector(folder / DETECTOR_FILE)
        self.classifier = Classifier(folder / CLASSIFIER_FILE)

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
        c = self.detector.detect_multiscale(bgr, self.classifier.det_threshold)
        if len(c) > MAX_DICE:
            c = c.select(np.argsort(-c.scores)[:MAX_DICE])
        return c

    def _read(self, img: Decoded, kind: str, t0: float) -> Reading:
        c = self.candidates(img.bgr)
        logits = self.classifier.logits(img.bgr, c)
        if kind == "auto":
            kind = choose_kind(logits, c.scores)
        p = kind_probs(logits, kind, self.classifier.temperature)
        faces = PIP_FACES if kind == "pip" else POKER_FACES
        best_of = np.argmax(p, axis=1)
        confs = confidence(p[np.arange(len(c)), best_of], c.scores, self.classifier.conf_model)
        dice = []
        for k in range(len(c)):
            best = int(best_of[k])
            if best == 6:  # background: not a die
                continue
            conf = float(confs[k])
            cx, cy = c.centres[k] * img.scale
            half = float(c.sides[k]) * img.scale / 2
            box = (
                max(0, round(cx - half)),
                max(0, round(cy - half)),
                min(img.width, round(cx + half)),
                min(img.height, round(cy + half)),
            )
            if box[0] >= box[2] or box[1] >= box[3]:
                continue
            uncertain = conf < self.classifier.threshold
            dice.append(Die(faces[best], best + 1, conf, box, uncertain, kind))
        dice.sort(key=lambda d: (d.box[0], d.box[1]))
        warnings = _warnings(img.bgr)
        ms = (time.perf_counter() - t0) * 1000.0
        return Reading(kind, tuple(dice), img.width, img.height, ms, warnings)


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
