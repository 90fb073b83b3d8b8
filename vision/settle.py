"""From a stream of frames to proposed throws: motion, stillness, agreement across frames, held dice.

``SettleDetector.feed(frame, t)`` is called with every frame and its time in seconds. It notices motion (dice
thrown), waits until the scene has been still for ``still_s``, reads ``read_frames`` frames spread over that
quiet moment and combines them (a die is certain only when every frame agrees on it), and then proposes the
throw. It proposes nothing when the still scene differs from the last one in more than dice (a hand or a cup
resting in view), when nothing changed (a hand reached in and left), or when fewer dice than expected are in
view (some were picked up, one rolled away). Where the expected count is the watched game's (``count_known``),
the dice seen are fitted to it as a photo's are (``vision.count``): a die too many is left out and said, a die
the reader saw only faintly fills a missing place, flagged, unless every die seen lies where it lay (dice
picked up). Between throws it sees which dice stayed put (held) and which were thrown again, so a proposal
carries the positions held and whether all five were thrown, as ``companion.turns.Throw`` wants them. The
reader is injected (``Callable[[np.ndarray], Reading]``) so tests can drive all of this from generated video
and ground truth.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from calibration.rectify import zone_of
from vision.count import fit_count
from vision.quality import Issue, assess
from vision.reading import Die, ImageError, Reading

__all__ = ["Proposal", "Reader", "SettleConfig", "SettleDetector", "combine_readings"]

Reader = Callable[[np.ndarray], Reading]
Polygon = Sequence[Sequence[float]]


@dataclass(frozen=True)
class SettleConfig:
    """The knobs, with defaults for a webcam at 15-30 frames a second."""

    work_width: int = 160  # motion is measured on a grey copy this wide
    pixel_delta: int = 14  # grey-level change that counts a pixel as changed (less in dim, low-contrast scenes)
    motion_fraction: float = 0.002  # share of changed pixels between frames that counts as motion
    still_s: float = 0.3  # the scene must stay still this long before it is read
    read_frames: int = 3  # frames read over that quiet moment and combined
    match: float = 0.5  # dice in two frames are the same die when centres lie within this many die sizes
    stay: float = 0.3  # a die stayed put (held) when it moved less than this many die sizes
    foreign_dice: float = 1.5  # unexplained change larger than this many die areas means a hand or cup in view
    blocked_s: float = 1.5  # after this long blocked and still, the scene is judged on its dice alone
    expected_dice: int | None = 5  # fewer in view proposes nothing; None accepts any number
    # expected_dice is the watched game's count, not a guess: the dice seen are fitted to it as a photo's are
    # (vision/count.py: the least likely beyond it left out, a missing one filled by a candidate the reader dropped)
    count_known: bool = False
    auto_confirm: bool = False  # proposals with no uncertain die and no issue are marked ``auto``
    slid_similarity: float = 0.85  # a moved die that looks this alike (0..1) was pushed aside, not thrown

    def __post_init__(self) -> None:
        if not 40 <= self.work_width <= 1280:
            raise ValueError(f"work_width must lie in [40, 1280], not {self.work_width}.")
        if not 0 < self.motion_fraction < 1 or not 0 < self.pixel_delta < 255:
            raise ValueError("motion_fraction must lie in (0, 1) and pixel_delta in (0, 255).")
        if self.still_s < 0 or self.read_frames < 1:
            raise ValueError("still_s must be >= 0 and read_frames >= 1.")
        if self.expected_dice is not None and self.expected_dice < 1:
            raise ValueError(f"expected_dice must be at least 1 (or None), not {self.expected_dice}.")


@dataclass(frozen=True)
class Proposal:
    """A throw seen on the table, for the current player to confirm (or confirmed at once when ``auto``)."""

    reading: Reading
    dice: tuple[int, ...]  # ranks by position
    faces: tuple[str, ...]
    held: tuple[int, ...]  # positions that stayed put since the last throw
    all_five: bool
    throw: int  # 1 for the first throw of the turn
    auto: bool
    uncertain: tuple[int, ...]  # positions whose die the frames did not agree on, or the reader doubted
    issues: tuple[Issue, ...] = ()
    t_settled: float = 0.0  # time of the first still frame
    t_frame: float = 0.0  # time of the frame that completed the proposal
    work_ms: float = 0.0  # time spent deciding on that frame (reading included)

    ordered: tuple[Die, ...] = field(default=(), repr=False)  # the dice read, by position

    @property
    def boxes(self) -> tuple[tuple[int, int, int, int], ...]:
        return tuple(d.box for d in self.ordered)

    def to_json(self) -> dict[str, Any]:
        return {
            "dice": list(self.dice),
            "faces": list(self.faces),
            "held": list(self.held),
            "all_five": self.all_five,
            "throw": self.throw,
            "auto": self.auto,
            "uncertain": list(self.uncertain),
            "confidence": [round(d.confidence, 4) for d in self.ordered],
            "boxes": [list(b) for b in self.boxes],
            "issues": [i.to_json() for i in self.issues],
            "reading": self.reading.to_json(),
        }


def _centre(box: Sequence[int]) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def _size(box: Sequence[int]) -> float:
    return float(max(box[2] - box[0], box[3] - box[1]))


def _die_size(dice: Sequence[Die]) -> float:
    return float(np.median([_size(d.box) for d in dice])) if dice else 0.0


def _matched(ref: np.ndarray, gray: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """``ref`` brought to ``gray``'s exposure: webcams change gain and white balance when bright dice come into view,
    which must not read as change. The gain is the median ratio over the pixels that should not have changed."""
    a = ref[mask] if mask is not None else ref
    b = gray[mask] if mask is not None else gray
    if a.size < 16:
        return ref
    ma = float(np.median(a))
    if ma < 8:
        return ref
    gain = float(np.clip(float(np.median(b)) / ma, 0.5, 2.0))
    if abs(gain - 1.0) < 0.02:
        return ref
    return np.asarray(np.clip(ref.astype(np.float32) * gain, 0, 255), dtype=np.uint8)


def combine_readings(readings: Sequence[Reading], match: float = 0.5) -> Reading:
    """One reading from several of a still scene: a die seen by most frames is kept; it is certain only
    when every frame saw it with the same face and none doubted it."""
    if not readings:
        raise ValueError("Nothing to combine.")
    last = readings[-1]
    k = len(readings)
    need = k // 2 + 1
    size = _die_size([d for r in readings for d in r.dice]) or 1.0
    groups: list[list[Die]] = []
    for reading in reversed(readings):  # the last frame is the most settled: its boxes lead
        for die in reading.dice:
            c = _centre(die.box)
            best, best_d = None, match * size
            for g in groups:
                d = float(np.hypot(*np.subtract(c, _centre(g[0].box))))
                if d <= best_d and len(g) < k:
                    best, best_d = g, d
            if best is None:
                groups.append([die])
            else:
                best.append(die)
    dice = []
    for g in groups:
        if len(g) < need:
            continue
        votes = Counter(d.value for d in g)
        value, n = votes.most_common(1)[0]
        lead = next(d for d in g if d.value == value)
        agree = n == k == len(g)
        conf = min(d.confidence for d in g) if agree else lead.confidence * n / k
        uncertain = not agree or any(d.uncertain for d in g)
        dice.append(replace(lead, confidence=float(conf), uncertain=uncertain))
    dice.sort(key=lambda d: (d.box[0], d.box[1]))
    warnings = tuple(dict.fromkeys(w for r in readings for w in r.warnings))
    # the last frame's dropped candidates and dice size: what the count may fill a missing die from
    return Reading(
        last.kind,
        tuple(dice),
        last.width,
        last.height,
        sum(r.ms for r in readings),
        warnings,
        last.dropped,
        played_side=last.played_side,
    )


@dataclass
class _Last:
    """The last proposed throw: dice by position, and the grey frame they were seen in."""

    dice: list[Die]
    gray: np.ndarray
    scale: float
    full: np.ndarray  # full-size grey, to tell a die pushed aside from one thrown again


class SettleDetector:
    """Feed it frames; it returns a ``Proposal`` when a throw has settled (see the module's docstring).

    ``zones`` are polygons in the pixels of the frames fed (for a rectified top view: mat mm times
    its scale); with zones, dice outside all of them are ignored and dice in ``"hold"`` count as held.
    """

    def __init__(
        self,
        reader: Reader,
        config: SettleConfig | None = None,
        zones: Mapping[str, Polygon] | None = None,
        quality: bool = True,
    ) -> None:
        self.reader = reader
        self.config = config or SettleConfig()
        self.zones = dict(zones or {})
        self.quality = quality
        self.state = "starting"  # starting | idle | moving | settling | blocked | waiting
        self.issues: tuple[Issue, ...] = ()
        self.throws = 0
        self.seen: Reading | None = None  # the last combined reading of a still scene
        self.last: _Last | None = None
        self._prev: np.ndarray | None = None
        self._refs: list[np.ndarray] = []  # still scenes the next one is compared with
        self._ref_dice: list[tuple[int, int, int, int]] = []
        self._still_since: float | None = None
        self._reads: list[Reading] = []
        self._frame_shape: tuple[int, int] | None = None
        self._blocked_since: float | None = None
        self._delta = float(self.config.pixel_delta)
        self._seen_motion = False  # dice lying still when the camera starts are the scene, not a throw
        self._tolerate = False  # the next decision accepts change that no die explains

    # --- public -------------------------------------------------------------------------------------------------

    def new_turn(self) -> None:
        """The next throw starts a turn: nothing is held, the count starts again."""
        self.throws = 0
        self.last = None

    def status(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "throws": self.throws,
            "dice": len(self.seen.dice) if self.seen else 0,
            "issues": [i.to_json() for i in self.issues],
        }

    def feed(self, frame: np.ndarray, t: float) -> Proposal | None:
        started = time.perf_counter()
        if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
            raise ImageError("A frame must be a BGR uint8 array of shape (height, width, 3).")
        if self._frame_shape is not None and frame.shape[:2] != self._frame_shape:
            self._reset_scene()  # the camera changed resolution: start over
        self._frame_shape = (frame.shape[0], frame.shape[1])
        gray = self._small(frame)
        # A dim table shows motion as small changes: scale the threshold with the scene's contrast.
        self._delta = float(np.clip(0.3 * float(gray.std()), 5.0, self.config.pixel_delta))
        prev, self._prev = self._prev, gray
        if prev is None:
            self.state, self._refs, self._still_since = "settling", [], t
            return None
        if self._motion(prev, gray) > self.config.motion_fraction:
            self.state, self._still_since, self._reads, self._tolerate = "moving", None, [], False
            self._seen_motion = True
            return None
        if (
            self.state == "blocked"
            and self._blocked_since is not None
            and t - self._blocked_since >= self.config.blocked_s
        ):
            # Still for long with something unexplained in view (the light changed, a cup put down): look again at
            # the dice alone. A resting hand proposes nothing this way unless the dice differ from the last throw.
            self.state, self._still_since, self._tolerate = "settling", None, True
        if self.state not in ("moving", "settling"):
            return None  # still, and this still scene has been judged already
        if self._still_since is None:
            self.state, self._still_since = "settling", t
        due = self._still_since + self.config.still_s * (len(self._reads) + 1) / self.config.read_frames
        if t + 1e-9 < due:
            return None
        try:
            self._reads.append(self.reader(frame))
        except (ImageError, ValueError) as exc:
            self.state, self.issues, self._reads = "waiting", (Issue("reader", str(exc), True),), []
            return None
        if len(self._reads) < self.config.read_frames:
            return None
        proposal = self._decide(frame, gray, t)
        if proposal is not None:
            proposal = replace(proposal, work_ms=(time.perf_counter() - started) * 1000)
        return proposal

    # --- internals ----------------------------------------------------------------------------------------------

    def _reset_scene(self) -> None:
        self._prev, self._refs, self._ref_dice, self._reads, self._still_since = None, [], [], [], None
        self._seen_motion = False
        self.last, self.seen = None, None

    def _small(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        width = min(self.config.work_width, w)
        small = cv2.resize(frame, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        return cv2.GaussianBlur(gray, (5, 5), 0)

    def _changed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(cv2.absdiff(a, b) > self._delta)

    def _motion(self, a: np.ndarray, b: np.ndarray) -> float:
        return float(np.mean(self._changed(a, b)))

    def _scale(self) -> float:
        assert self._frame_shape is not None and self._prev is not None
        return float(self._prev.shape[1] / self._frame_shape[1])

    def _unexplained(self, gray: np.ndarray, boxes: Sequence[Sequence[int]], die: float) -> float:
        """Changed area, in die areas, that no die (now or before) accounts for, against the closest reference."""
        s = self._scale()
        mask = np.ones(gray.shape, bool)
        pad = 0.35 * die
        for b in boxes:
            x0, y0 = int((b[0] - pad) * s), int((b[1] - pad) * s)
            x1, y1 = int(np.ceil((b[2] + pad) * s)), int(np.ceil((b[3] + pad) * s))
            mask[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = False
        die_area = max((die * s) ** 2, 4.0)
        best = float("inf")
        for ref in self._refs:
            changed = self._changed(_matched(ref, gray, mask), gray) & mask
            opened = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            best = min(best, float(opened.sum()) / die_area)
        return 0.0 if best == float("inf") else best

    def _decide(self, frame: np.ndarray, gray: np.ndarray, t: float) -> Proposal | None:
        cfg = self.config
        reads, self._reads = self._reads, []
        t_settled = self._still_since or t
        combined = combine_readings(reads, cfg.match)
        size = _die_size(combined.dice) or _die_size(self.last.dice if self.last else []) or frame.shape[1] / 20
        issues: list[Issue] = []
        blocking = [i for i in (assess(frame, [d.box for d in combined.dice]) if self.quality else [])]
        all_boxes = (
            [d.box for d in combined.dice] + self._ref_dice + [d.box for d in (self.last.dice if self.last else [])]
        )
        foreign = self._unexplained(gray, all_boxes, size)
        tolerate, self._tolerate = self._tolerate, False
        self._refs = ([self._refs[0]] if self._refs else []) + [gray]
        if foreign > cfg.foreign_dice and not tolerate:
            self.state, self._blocked_since = "blocked", t
            self.issues = (Issue("blocked", "Something other than dice is in view (a hand or the cup?); waiting."),)
            return None
        if foreign > cfg.foreign_dice:
            issues.append(Issue("view_changed", "More than the dice changed in view (a hand, the light?): check them."))
        self._refs = [gray]  # a clean scene: the next one is compared with this
        self._ref_dice = [d.box for d in combined.dice]
        dice = list(combined.dice)
        if self.zones:
            inside = [d for d in dice if zone_of(_centre(d.box), self.zones) is not None]
            if len(inside) < len(dice):
                n = len(dice) - len(inside)
                issues.append(Issue("outside", f"{n} {'die' if n == 1 else 'dice'} off the mat ignored."))
            dice = inside
            dropped = tuple(d for d in combined.dropped if zone_of(_centre(d.box), self.zones) is not None)
            combined = replace(combined, dropped=dropped)  # nor may the count fill a die from off the mat
        for issue in blocking:
            if issue.code == "cut":
                issues.append(issue)
        combined = replace(combined, dice=tuple(dice))
        full = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if cfg.count_known and cfg.expected_dice is not None and len(dice) != cfg.expected_dice:
            # every die seen lies where it lay: dice were picked up to be thrown, none missed, so none is filled
            short = len(dice) < cfg.expected_dice and self.last is not None
            picked_up = short and len(self._positions(dice, gray, full, size)[1]) == len(dice)
            fitted = combined if picked_up else fit_count(combined, cfg.expected_dice)
            if not picked_up and not fitted.missing:  # still short: waited out below
                if fitted.extra:
                    seen, n = len(dice), cfg.expected_dice
                    issues.append(Issue("extra", f"{seen} dice in view, {n} expected: the least sure left out."))
                combined, dice = fitted, list(fitted.dice)
        self.seen = combined
        hard = [i for i in blocking if i.blocking]
        if hard:
            self.state, self.issues = "waiting", tuple(hard + issues)
            return None
        if not dice or not self._seen_motion:
            self.state, self.issues = "idle", tuple(issues)
            return None
        if cfg.expected_dice is not None and len(dice) < cfg.expected_dice:
            issues.append(Issue("count", f"{len(dice)} of {cfg.expected_dice} dice in view; waiting for the rest."))
            self.state, self.issues = "waiting", tuple(issues)
            return None
        if cfg.expected_dice is not None and len(dice) > cfg.expected_dice:
            issues.append(Issue("extra", f"{len(dice)} dice in view, {cfg.expected_dice} expected."))
        ordered, held = self._positions(dice, gray, full, size)
        if self.last is not None and len(held) == len(ordered) == len(self.last.dice):
            # Nothing was thrown (every die stayed put or was pushed aside): remember where they lie now.
            self.last = _Last(ordered, gray, self._scale(), full)
            self.state, self.issues = "idle", tuple(issues)
            return None
        self.throws += 1
        self.last = _Last(ordered, gray, self._scale(), full)
        self.state, self.issues = "idle", tuple(issues)
        uncertain = tuple(p for p, d in enumerate(ordered) if d.uncertain)
        auto = cfg.auto_confirm and not uncertain and not issues
        return Proposal(
            reading=combined,
            dice=tuple(d.value for d in ordered),
            faces=tuple(d.face for d in ordered),
            held=held,
            all_five=not held,
            throw=self.throws,
            auto=auto,
            uncertain=uncertain,
            issues=tuple(issues),
            t_settled=t_settled,
            t_frame=t,
            ordered=tuple(ordered),
        )

    def _stayed(self, old: Die, new: Die, gray: np.ndarray, size: float) -> bool:
        assert self.last is not None
        if old.value != new.value:
            return False
        if np.hypot(*np.subtract(_centre(old.box), _centre(new.box))) > self.config.stay * size:
            return False
        s = self.last.scale
        x0, y0, x1, y1 = (int(v * s) for v in new.box)
        a = _matched(self.last.gray, gray)[max(0, y0) : y1 + 1, max(0, x0) : x1 + 1]
        b = gray[max(0, y0) : y1 + 1, max(0, x0) : x1 + 1]
        return a.shape == b.shape and a.size > 0 and float(np.mean(self._changed(a, b))) < 0.25

    def _slid(self, old: Die, new: Die, full: np.ndarray) -> bool:
        """Pushed aside without turning over: same face, and the same look (a thrown die lands turned)."""
        assert self.last is not None
        if old.value != new.value:
            return False

        def patch(img: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
            x0, y0, x1, y1 = box
            crop = img[max(0, y0) : y1, max(0, x0) : x1]
            return np.asarray(cv2.resize(crop, (32, 32), interpolation=cv2.INTER_AREA), np.float32)

        a, b = patch(self.last.full, old.box), patch(full, new.box)
        if a.std() < 4 or b.std() < 4:
            return False
        score = float(cv2.matchTemplate(a, b, cv2.TM_CCOEFF_NORMED)[0, 0])
        return score > self.config.slid_similarity

    def _positions(
        self, dice: list[Die], gray: np.ndarray, full: np.ndarray, size: float
    ) -> tuple[list[Die], tuple[int, ...]]:
        """Dice by position: held ones (left in place, set aside, or pushed into the holding area) keep theirs,
        thrown ones fill the rest left to right."""
        if self.last is None:
            return sorted(dice, key=lambda d: (d.box[0], d.box[1])), ()
        previous = self.last.dice
        taken: dict[int, Die] = {}
        free = list(dice)
        for new in sorted(dice, key=lambda d: d.box[0]):  # dice that stayed where they were
            for p, old in enumerate(previous):
                if p not in taken and self._stayed(old, new, gray, size):
                    taken[p] = new
                    free.remove(new)
                    break
        if self.zones and "hold" in self.zones:  # dice moved into the holding area are held too
            for new in [d for d in free if zone_of(_centre(d.box), {"hold": self.zones["hold"]})]:
                options = [p for p, old in enumerate(previous) if p not in taken and old.value == new.value]
                if options:
                    p = min(options, key=lambda q: np.hypot(*np.subtract(_centre(previous[q].box), _centre(new.box))))
                    taken[p] = new
                    free.remove(new)
        if free and len(dice) == len(previous):
            # Dice pushed aside by hand, not thrown: only when every die that moved did so (a die thrown
            # again can land with its old face, even looking alike; it cannot share a scene with no throw).
            slid: dict[int, Die] = {}
            for new in sorted(free, key=lambda d: d.box[0]):
                for p, old in enumerate(previous):
                    if p not in taken and p not in slid and self._slid(old, new, full):
                        slid[p] = new
                        break
            if len(slid) == len(free):
                taken.update(slid)
                free = []
        held = tuple(sorted(taken))
        rest = iter(sorted(free, key=lambda d: (d.box[0], d.box[1])))
        n = max(len(dice), len(previous))
        ordered: list[Die] = []
        for p in range(n):
            if p in taken:
                ordered.append(taken[p])
            else:
                nxt = next(rest, None)
                if nxt is not None:
                    ordered.append(nxt)
        ordered.extend(rest)
        # Positions must stay aligned with previous ones; if some went missing, give up on holds.
        if len(ordered) != len(dice) or any(ordered[p] is not taken[p] for p in held if p < len(ordered)):
            return sorted(dice, key=lambda d: (d.box[0], d.box[1])), ()
        return ordered, held
