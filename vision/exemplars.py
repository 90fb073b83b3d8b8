"""Looking for a missing die by its likeness to the dice of the game (issue 59: "the game teaches the detector too").

The detector misses a die now and then at any threshold (tilted, half in shadow, an odd light on a steel die). The
game knows what its dice look like: the confirmed ones. As class-agnostic counting does, small grey patches of those
dice (exemplars) are matched over the photo, resized so that its dice are the exemplars' size (normalised
cross-correlation, ``cv2.TM_CCOEFF_NORMED``, in three turns); the best peaks away from the dice found and from the
candidates of their size are candidates for the count to fill a missing die with. They are never dice by themselves:
the reader reads them and keeps them among the dropped (``vision/reader.py``), and only a throw short of dice is
searched.

Pure OpenCV and numpy, no models.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.detect import Candidates
from vision.memory import NOT_A_DIE

DIE = 12  # px: a die's side in an exemplar ...
PATCH = 18  # ... which keeps 1.5 x that around it, so that its turns by 30 and 60 degrees still show the die whole
# the turns each exemplar is matched in: a die's outline repeats every quarter turn (its pips do not, but a die of
# another face is looked for all the same). On pip-steel's missed dice, eight turns (0 and 45 degrees in four quarter
# turns, dice at 20 px) and dice at 16 px rather than 12 put no peak nearer them, at twice the time
ANGLES = (0.0, 30.0, 60.0)
PER_THROW = 2  # exemplars one confirmed throw gives at most (those nearest its median size): the newest three throws
MATCH = DIE  # px a die measures in the photo resized for matching, where the photo is large enough
SMALLEST = 8  # px: a die smaller than this in the photo is not looked for at all (too few pixels to match)
LONGEST = 720  # px: the resized photo's long side at most (the time of the matching grows with its area)
FLAT = 6.0  # grey levels: a window whose spread is under this is bare table, where the correlation means nothing
FLOOR = 0.45  # correlation under which a peak is not a die like the game's
TOP = 3  # peaks at most: a throw lacks one or two dice
NEAR = 0.6  # a peak within this many sides of a candidate the detector has is that candidate again
GONE = -2.0  # the score of a place ruled out: under any correlation


def patch(bgr: np.ndarray, centre: tuple[float, float], side: float) -> np.ndarray:
    """The grey exemplar (PATCH, PATCH) of a die of ``side`` px at ``centre``: the die at DIE px, its surroundings
    to PATCH (replicated past the photo's edge)."""
    s = DIE / max(float(side), 1.0)
    m = np.array([[s, 0, PATCH / 2 - s * centre[0]], [0, s, PATCH / 2 - s * centre[1]]], np.float32)
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return _grey(cv2.warpAffine(bgr, m, (PATCH, PATCH), flags=interp, borderMode=cv2.BORDER_REPLICATE))


def patches(bgr: np.ndarray, centres: np.ndarray, sides: np.ndarray) -> np.ndarray:
    """``patch`` of each die (centres (n, 2), sides (n,) px): (n, PATCH, PATCH) uint8."""
    out = np.zeros((len(sides), PATCH, PATCH), np.uint8)
    for k, ((x, y), side) in enumerate(zip(centres, sides, strict=True)):
        out[k] = patch(bgr, (float(x), float(y)), float(side))
    return out


def chosen(boxes: np.ndarray, faces: Sequence[int], corrected: Sequence[bool]) -> np.ndarray:
    """Which dice of a confirmed throw (``boxes`` (n, 4) px, ``faces`` 0-5 or ``NOT_A_DIE``, ``corrected`` where the
    players changed the reading) give its memory's exemplars, in the order taught: of those the players left as read
    (a corrected box may be a half die, a pip), the ``PER_THROW`` nearest the throw's median size (not a die seen
    oddly). One rule for the reader's own memory (``DiceReader.teach``) and the server's lessons (web/lessons.py)."""
    if len({len(boxes), len(faces), len(corrected)}) != 1:
        raise ValueError("Each box needs its face and whether it was corrected.")
    ok = np.array([f != NOT_A_DIE and not fix for f, fix in zip(faces, corrected, strict=True)], bool)
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    sides = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    idx = np.nonzero(ok)[0]
    if not len(idx):
        return idx
    out: np.ndarray = idx[np.argsort(np.abs(sides[idx] - np.median(sides[idx])), kind="stable")[:PER_THROW]]
    return out


def of_throw(
    bgr: np.ndarray, boxes: np.ndarray, faces: Sequence[int], corrected: Sequence[bool]
) -> tuple[np.ndarray, np.ndarray]:
    """The exemplars a confirmed throw gives (``chosen``): their dice's indices and patches (j, PATCH, PATCH)."""
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    idx = chosen(b, faces, corrected)
    sides = np.maximum(b[idx, 2] - b[idx, 0], b[idx, 3] - b[idx, 1])
    return idx, patches(bgr, (b[idx, :2] + b[idx, 2:]) / 2, sides)


def templates(exemplars: np.ndarray, size: int) -> list[np.ndarray]:
    """Each exemplar's die turned by each of ``ANGLES``, at ``size`` px."""
    out = []
    centre = (PATCH / 2 - 0.5, PATCH / 2 - 0.5)
    lo = (PATCH - DIE) // 2
    for ex in exemplars:
        for angle in ANGLES:
            turned = ex
            if angle:
                m = cv2.getRotationMatrix2D(centre, angle, 1.0)
                turned = cv2.warpAffine(ex, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            die = turned[lo : lo + DIE, lo : lo + DIE]
            die = cv2.resize(die, (size, size), interpolation=cv2.INTER_AREA if size < DIE else cv2.INTER_LINEAR)
            out.append(np.ascontiguousarray(die))
    return out


def search(
    bgr: np.ndarray,
    exemplars: np.ndarray,
    side: float,
    avoid: Sequence[Candidates],
    top: int = TOP,
    floor: float = FLOOR,
    frames: Sequence[np.ndarray] = (),
) -> Candidates:
    """The places in ``bgr`` most like the exemplars (k, PATCH, PATCH) for dice of ``side`` px, at most ``top``,
    each at least ``floor`` alike and not on a candidate of ``avoid``; their scores are the correlations.
    ``frames``: ``bgr`` already resized (the detector's looks), the smallest big enough is resized from (a 12 MP
    photo shrunk again costs more than the matching)."""
    if not len(exemplars) or side <= 0:
        return Candidates.empty()
    h, w = bgr.shape[:2]
    f = min(MATCH / side, LONGEST / max(h, w))
    size = round(side * f)
    if size < SMALLEST or round(side) < SMALLEST:
        return Candidates.empty()
    nw, nh = max(size, round(w * f)), max(size, round(h * f))
    source = min((x for x in frames if max(x.shape[:2]) >= max(nw, nh)), key=lambda x: x.size, default=bgr)
    small = _grey(cv2.resize(source, (nw, nh), interpolation=cv2.INTER_AREA))
    best: np.ndarray | None = None
    for t in templates(exemplars, size):
        r = cv2.matchTemplate(small, t, cv2.TM_CCOEFF_NORMED)
        best = r if best is None else np.maximum(best, r)
    assert best is not None
    # bare table: a window of nearly one grey correlates with anything by chance (and a flat template with nothing)
    x = small.astype(np.float32)
    mean = cv2.boxFilter(x, -1, (size, size), normalize=True, borderType=cv2.BORDER_REFLECT)
    sq = cv2.boxFilter(x * x, -1, (size, size), normalize=True, borderType=cv2.BORDER_REFLECT)
    spread = np.sqrt(np.maximum(sq - mean * mean, 0.0))
    o = size // 2
    flat = spread[o : o + best.shape[0], o : o + best.shape[1]] < FLAT
    best = np.where(flat | ~np.isfinite(best), GONE, best)
    # the detector's candidates, as centres in the map (a map's (x, y) is the template's corner there)
    for c in avoid:
        for (cx, cy), s in zip(c.centres, c.sides, strict=True):
            _blot(best, cx * f - size / 2, cy * f - size / 2, NEAR * max(float(s), side) * f)
    centres, scores = [], []
    for _ in range(top):
        iy, ix = np.unravel_index(int(np.argmax(best)), best.shape)
        score = float(best[iy, ix])
        if score < floor:
            break
        centres.append(((ix + size / 2) / f, (iy + size / 2) / f))
        scores.append(score)
        _blot(best, float(ix), float(iy), float(size))  # one die, one peak
    if not centres:
        return Candidates.empty()
    return Candidates(
        np.asarray(centres, np.float32), np.full(len(centres), side, np.float32), np.asarray(scores, np.float32)
    )


def _blot(scores: np.ndarray, x: float, y: float, radius: float) -> None:
    """Scores within ``radius`` of (x, y) set to ``GONE``, in place (only the window around it is touched)."""
    h, w = scores.shape
    x0, x1 = max(0, int(x - radius)), min(w, int(x + radius) + 2)
    y0, y1 = max(0, int(y - radius)), min(h, int(y + radius) + 2)
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1]
    window = scores[y0:y1, x0:x1]
    window[np.hypot(xs - x, ys - y) < radius] = GONE


def _grey(bgr: np.ndarray) -> np.ndarray:
    if bgr.ndim == 2:
        return bgr
    out: np.ndarray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    return out
