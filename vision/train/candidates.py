"""Label the detector's candidates on training images: what the classifier is taught and calibrated on."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import numpy as np

from vision.reader import DETECTOR_FILE
from vision.train import classifier as cls_train
from vision.train.data import BACKGROUND, Sample, source_weight


def match(s: Sample, centres: np.ndarray, labels: np.ndarray | None = None) -> np.ndarray:
    """Label class of each candidate (BACKGROUND when no labelled die is near), one candidate per die, nearest first.

    ``labels``: per labelled die, what to report (default its rank class; training passes the printing taught).
    """
    labels = s.classes if labels is None else labels
    out = np.full(len(centres), BACKGROUND, np.int64)
    if len(centres) == 0 or len(s.centres) == 0:
        return out
    d = np.hypot(*(centres[:, None, :] - s.centres[None, :, :]).transpose(2, 0, 1)) / np.maximum(s.sides, 1)[None]
    used: set[int] = set()
    for flat in np.argsort(d, axis=None):
        i, j = divmod(int(flat), len(s.centres))
        if d[i, j] > 0.5:
            break
        if out[i] != BACKGROUND or j in used:
            continue
        out[i] = labels[j]
        used.add(j)
    return out


_DETECTOR: Any = None  # one per pool process


def _load_detector(path: str) -> None:
    global _DETECTOR
    from vision.detect import Detector

    _DETECTOR = Detector(Path(path))


def _candidates(s: Sample) -> list[tuple[float, float, float, int]]:
    c = _DETECTOR.detect(s.img, 0.2)
    lab = match(s, c.centres, s.taught)
    out = []
    for k in range(len(c)):
        to_top = np.hypot(*(s.centres - c.centres[k]).T) if len(s.centres) else np.full(1, np.inf)
        cls = int(lab[k])
        if _on_side(s, c.centres[k], float(to_top.min())):
            cls = BACKGROUND  # a side face: matched to its die by distance, but not the face to read
        elif cls == BACKGROUND and (to_top < 0.75 * s.sides).any():
            continue  # a second peak on a labelled die: already taught by the off-centre crops
        out.append((float(c.centres[k][0]), float(c.centres[k][1]), float(c.sides[k]), cls))
    return out


def _on_side(s: Sample, centre: np.ndarray, to_top: float) -> bool:
    """The candidate sits on a side face in clear view, nearer its middle than any top face's."""
    if s.side_spots is None or len(s.side_spots) == 0:
        return False
    d = np.hypot(*(s.side_spots[:, :2] - centre).T)
    return bool(((d < to_top) & (d < 0.5 * s.side_spots[:, 2])).any())


def detector_patches(
    out_dir: Path, train: list[Sample], jobs: int = 1, photo_weight: float = 1.0
) -> list[cls_train.Patch]:
    """The trained detector's own candidates on the training images, as the reader will crop them.

    Where no die is labelled they are background (keyboard keys, plugs, labels); on a labelled die they carry its
    face, cropped at the detector's centre and side, so the classifier learns the crops it will really get. A die the
    labels missed would be taught as background too; the sets' READMEs say those are rare.
    """
    path = str(out_dir / DETECTOR_FILE)
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs, _load_detector, (path,)) as pool:
            found = pool.map(_candidates, train, chunksize=8)
    else:
        _load_detector(path)
        found = [_candidates(s) for s in train]
    return [
        cls_train.Patch(cls_train.patch_at(s.img, cx, cy, side), lab, source_weight(s, photo_weight), side)
        for s, cands in zip(train, found, strict=True)
        for cx, cy, side, lab in cands
    ]
