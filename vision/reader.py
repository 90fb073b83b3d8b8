"""The dice reader: bytes or a BGR frame in, a ``Reading`` out (decode -> detect -> classify -> decide)."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from vision.classify import BACKGROUND, Classifier, choose_kind, confidence, is_die, kind_probs
from vision.count import SIZE_TOLERANCE
from vision.decide import DOUBT, SIZE_FACTOR, echoes, off_size
from vision.decode import Decoded, decode
from vision.detect import Candidates, Detector, Looks
from vision.exemplars import of_throw, patches, search
from vision.memory import RECENT, DiceMemory
from vision.reading import KINDS, PIP_FACES, POKER_FACES, Die, ImageError, Reading

MODEL_DIR = Path(__file__).resolve().parents[1] / "models"
DETECTOR_FILE = "dice-detector.onnx"
CLASSIFIER_FILE = "dice-faces.onnx"
MAX_DICE = 60
# where the game knows the size of its dice (its memory, issue 52), the level of the pyramid that sees that size best
# is looked at again for candidates down to WEAK (the detector's own cut: 0.3), of that size, at most WEAK_MAX: kept
# among the dropped only, for the count to fill a die the detector missed (a tilted die at the edge of the photo)
WEAK = 0.12
ONE_SIZE = 1.15  # recent dice this alike in size (quartiles) set the count's measure even where the memory's faces
# are not trusted (a fixed camera; not a phone held nearer and farther, nor far dice of many sets)
WEAK_MAX = 4
# a candidate less like the game's dice than they are like each other (``DiceMemory.unlike``) is asked about and
# counts UNLIKE times as likely in the count (issue 59: a board's number token, a speck, a screw hole read surely)
UNLIKE = 0.5
# a place like the game's dice (``vision.exemplars.search``) is read as a candidate of this detector score times its
# correlation: below every candidate the detector itself was unsure of, for the net did not see a die there
EXEMPLAR_SCORE = WEAK
FAINT_SURE = 2  # sure dice (DOUBT) a photo needs for its weak candidates of their size to be read (``_faint``)
# a photo short of dice (fewer than the throw's count, or than a full throw of the game) is looked at again this much
# finer than the normal look, for touching dice boxed as one there (the net sees two dice of 33 px lying corner to
# corner as one die; at 1.5 x, 50 px, as two)
SPLIT_LOOK = 1.5
SPLIT_APART = 0.5  # of the larger half's side: two dice touching corner to corner (0.6: learning_bench 2 throws less)
HERE = 4  # the sure dice of the photo itself taken as exemplars besides the game's, at most


@dataclass(frozen=True)
class Rules:
    """The decide step's rules and the reread, each switchable so that `benchmarks/compare.py` can weigh what it pays
    on the unseen sets (``--cand-without``): a rule stays only where they show it does (issue 51)."""

    size_rule: bool = True  # unsure candidates far off the size of the sure dice near them are not reported
    doubt: bool = True  # dice under DOUBT flagged (else under the model's calibrated threshold)
    reread: bool = True  # crops in doubt read again at all eight views
    unlike: bool = True  # with a game's memory, candidates less like its dice than they are alike are asked about
    exemplars: bool = True  # with a game's memory, a throw short of dice is searched for places like its dice
    faint: bool = True  # without a trusted memory, weak candidates of the sure dice' size are kept among the dropped
    echoes: bool = True  # a die inside a die much bigger read as the same face is not reported
    split: bool = True  # a throw short of dice (its count, a game's memory) looks finer for touching dice boxed as one

    @classmethod
    def without(cls, *names: str) -> Rules:
        """All rules but ``names``."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(names) - known)
        if unknown:
            raise ValueError(f"unknown rules {unknown}; the rules are {sorted(known)}")
        return cls(**{name: False for name in names})


@dataclass(frozen=True)
class Judged:
    """A photo's candidates read (``DiceReader._judge``): per candidate its model output, kind probabilities, best
    face, confidence, whether it is unlike the game's dice, and whether it is reported as a die."""

    memory: DiceMemory | None
    kind: str
    full: np.ndarray
    emb: np.ndarray | None
    p: np.ndarray
    best_of: np.ndarray
    confs: np.ndarray
    unlike: np.ndarray
    dice: np.ndarray

    def outputs_of(self, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The model's outputs (logits, embeddings) of the candidates ``keep`` selects."""
        return self.full[keep], None if self.emb is None else self.emb[keep]


class DiceReader:
    """Loads both models once; reading is thread-compatible but not meant to be shared by many threads at once.

    A reading is four steps: decode (``vision.decode``), detect (the detector's pyramid: every die size in one pass),
    classify (each candidate's crop), decide (``vision.decide``: the size of the throw, the calibrated doubt)."""

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

    def read_bytes(
        self, data: bytes, kind: str = "auto", memory: DiceMemory | None = None, count: int | None = None
    ) -> Reading:
        """``count``: the dice of the throw where the game knows it (the reading is not fitted to it, that is
        ``vision.count``'s; a photo with fewer dice than that is looked at harder)."""
        t0 = time.perf_counter()
        _check_kind(kind)
        _check_count(count)
        return self._read(decode(data), kind, t0, memory, count)

    def read_array(
        self, bgr: np.ndarray, kind: str = "auto", memory: DiceMemory | None = None, count: int | None = None
    ) -> Reading:
        t0 = time.perf_counter()
        _check_kind(kind)
        _check_count(count)
        if not isinstance(bgr, np.ndarray) or bgr.dtype != np.uint8 or bgr.ndim != 3 or bgr.shape[2] != 3:
            raise ImageError("A frame must be a BGR uint8 array of shape (height, width, 3).")
        if min(bgr.shape[:2]) < 8:
            raise ImageError(f"The frame is too small ({bgr.shape[1]}x{bgr.shape[0]}).")
        h, w = bgr.shape[:2]
        return self._read(Decoded(bgr, w, h, 1.0), kind, t0, memory, count)

    def memory(self, kind: str) -> DiceMemory:
        """An empty memory of dice for this reader's classifier (``vision.memory``)."""
        if not self.classifier.embedding_parts:
            raise ValueError("The classifier file has no embedding output; the reader cannot learn with it.")
        return DiceMemory(kind, self.classifier.embedding_parts)

    def teach(
        self,
        memory: DiceMemory,
        bgr: np.ndarray,
        throw: int,
        boxes: list[tuple[int, int, int, int]],
        faces: list[int],
        corrected: list[bool],
    ) -> None:
        """Teach ``memory`` the dice of a confirmed throw: ``boxes`` in ``bgr``'s pixels, ``faces`` 0-5 or
        ``NOT_A_DIE``, ``corrected`` where the players changed what was read."""
        if len({len(boxes), len(faces), len(corrected)}) != 1:
            raise ValueError("Each box needs its face and whether it was corrected.")
        if not boxes:
            memory.forget(throw)
            return
        b = np.asarray(boxes, np.float32).reshape(-1, 4)
        sides = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) / max(bgr.shape[:2])
        _, exemplars = of_throw(bgr, b, faces, corrected)
        memory.teach(throw, self.embed_boxes(bgr, boxes), faces, corrected, sides.tolist(), exemplars)
        memory.weights()  # weighed now, while the players look at the score, not at the next photo's read
        memory.like_floor()  # likewise

    def embed_boxes(self, bgr: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
        """The embeddings (n, 4 quarter turns, width) of the dice in ``boxes`` (px of ``bgr``), cropped as the
        reader crops a candidate of that box."""
        b = np.asarray(boxes, np.float32).reshape(-1, 4)
        centres = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], axis=1)
        sides = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
        return self.classifier.embed_views(bgr, Candidates(centres, sides, np.ones(len(b), np.float32)))

    def candidates(self, bgr: np.ndarray, looks: Looks | None = None) -> Candidates:
        """The detector's candidates, at most ``MAX_DICE``, the strongest."""
        c = self.detector.pyramid(bgr, self.classifier.det_threshold, looks)
        if len(c) > MAX_DICE:
            c = c.select(np.sort(np.argsort(-c.scores)[:MAX_DICE]))
        return c

    def _read(
        self, img: Decoded, kind: str, t0: float, memory: DiceMemory | None = None, count: int | None = None
    ) -> Reading:
        looks = Looks()
        c = self.candidates(img.bgr, looks)
        if memory is not None and (not len(memory) or kind not in ("auto", memory.kind)):
            memory = None  # nothing learned yet, or dice of another kind than asked for: read as the bundled reader
        j = self._judge(img, c, kind, memory)
        found = int(j.dice.sum())
        short = count is not None and found < count
        short |= j.memory is not None and j.memory.trusted() and found < j.memory.most()
        if short and self.rules.split:
            # fewer dice than the throw's count, or than a full throw of this game: one box may hold two touching
            # dice (the net's normal look sees a pair of them as one die); a finer look tells them apart
            halves = self._split(img, c, looks, j)
            if halves is not None:
                c2, keep = halves  # the candidates kept first, then the halves
                new = np.arange(len(c2)) >= int(keep.sum())
                j2 = self._judge(img, c2, j.kind, j.memory, j.outputs_of(keep))
                if j2.dice[new].all():
                    c, j = c2, j2
        memory, kind, full, p, best_of, confs, unlike = j.memory, j.kind, j.full, j.p, j.best_of, j.confs, j.unlike
        dice_mask = j.dice
        faces = PIP_FACES if kind == "pip" else POKER_FACES
        dice = []
        flag_below = self.classifier.threshold
        if self.rules.doubt:
            flag_below = max(flag_below, DOUBT)
        for k in np.nonzero(dice_mask)[0]:
            best = int(best_of[k])
            conf = float(confs[k])
            box = _box(c.centres[k], float(c.sides[k]), img)
            if box is None:
                continue
            uncertain = conf < flag_below or bool(unlike[k])
            printed = None
            if kind == "poker":
                printed = str(self.classifier.printing(full[k : k + 1], 6 + best)[0])
            dice.append(Die(faces[best], best + 1, conf, box, uncertain, kind, printed))
        dice.sort(key=lambda d: (d.box[0], d.box[1]))
        dropped = _dropped(p, c, img, kind, ~dice_mask, self.classifier.conf_model)
        if memory is not None and memory.trusted() and int(dice_mask.sum()) < memory.most():
            # fewer dice than a full throw of this game: look for the missing where the detector was unsure
            dropped = self._where_dice_are(img, c, looks, memory, kind, dropped, dice_mask, confs >= DOUBT)
        elif self.rules.faint and (memory is None or not memory.trusted()):
            short = count is not None and int(dice_mask.sum()) < count
            dropped = self._faint(img, c, looks, kind, dropped, dice_mask, confs >= DOUBT, short)
        warnings = _warnings(img.bgr)
        ms = (time.perf_counter() - t0) * 1000.0
        side = None
        if memory is not None:
            # the count weighs sizes by the dice in play where the memory is trusted, or its dice are one size
            side = memory.side() if memory.trusted() else memory.side(ONE_SIZE)
        played = None if side is None else side * max(img.width, img.height)
        return Reading(kind, tuple(dice), img.width, img.height, ms, warnings, dropped, played_side=played)

    def _judge(
        self,
        img: Decoded,
        c: Candidates,
        kind: str,
        memory: DiceMemory | None,
        known: tuple[np.ndarray, np.ndarray | None] | None = None,
    ) -> Judged:
        """Each candidate read, with the game's memory where it has one, and which of them are dice. ``known``: the
        model's outputs for the first candidates, read already (a crop reads the same in any batch); the rest are
        read here."""
        if known is None:
            full, emb = self.classifier.model_outputs(img.bgr, c)
        else:
            rest = c.select(np.arange(len(c)) >= len(known[0]))
            full, emb = self.classifier.model_outputs(img.bgr, rest)
            full = np.concatenate([known[0], full])
            emb = None if emb is None or known[1] is None else np.concatenate([known[1], emb])
        logits = self.classifier.merge(full)
        if emb is None:
            memory = None
        if memory is not None and emb is not None:
            logits = _with_memory(logits, memory, emb, self.classifier.temperature)
            kind = memory.kind
        if kind == "auto":
            kind = choose_kind(logits, c.scores, c.sides)
        p = kind_probs(logits, kind, self.classifier.temperature)
        best_of = np.argmax(p, axis=1)
        confs = confidence(p[np.arange(len(c)), best_of], c.scores, self.classifier.conf_model)
        unlike = np.zeros(len(c), bool)
        if (
            self.rules.unlike
            and memory is not None
            and emb is not None
            and memory.dice_throws() >= RECENT
            and memory.trusted()
        ):
            unlike = memory.unlike(emb)
            confs = np.where(unlike, confs * UNLIKE, confs)
        dice_mask = is_die(p, self.classifier.max_background)
        if self.rules.size_rule:
            dice_mask &= ~off_size(c, confs, dice_mask)
        if self.rules.echoes:
            dice_mask &= ~echoes(c, best_of, dice_mask)
        if memory is not None and memory.trusted():
            # the game knows the size of its dice: unsure candidates of another size are kept only among the dropped
            # (a throw short of dice takes them back, vision/count.py). Not the sure ones: measured on rendered games,
            # a rule for every candidate 1.5 x off cost more real dice (touching, tilted) than it saved
            dice_mask &= ~(memory.off_size(c.sides / max(img.bgr.shape[:2])) & (confs < DOUBT))
        return Judged(memory, kind, full, emb, p, best_of, confs, unlike, dice_mask)

    def _split(self, img: Decoded, c: Candidates, looks: Looks, j: Judged) -> tuple[Candidates, np.ndarray] | None:
        """The candidates with each one that a finer look sees as two dice lying apart (each smaller than its box,
        their centres inside it and at least ``SPLIT_APART`` of a die's side apart) replaced by those two (the kept
        candidates first, then the new), and which candidates of ``c`` are kept; None where none splits. A candidate
        not reported splits too: a box over two steel dice touching, read as neither (issue 59, pip-steel)."""
        long_side = max(img.bgr.shape[:2])
        level = -(-round(self.detector.long_side * SPLIT_LOOK) // 32) * 32
        if level > long_side or level in looks:
            return None
        # not kept among the looks: the weak candidates and the exemplar search of a throw still short after this
        # go on from the looks of the pyramid, as they were measured
        finer = self.detector.detect(img.bgr, self.classifier.det_threshold, level)
        if not len(finer) or not len(c):
            return None
        # each candidate of the finer look belongs to the candidate nearest to it: a die found apart already is not a
        # half of its neighbour's box
        apart_from = finer.centres[:, None] - c.centres[None]
        nearest = np.argmin(np.hypot(apart_from[..., 0], apart_from[..., 1]), axis=1)
        keep = np.ones(len(c), bool)
        halves = np.zeros(len(finer), bool)
        for k in range(len(c)):
            side = float(c.sides[k])
            inside = np.all(np.abs(finer.centres - c.centres[k]) < 0.5 * side, axis=1) & (finer.sides < side)
            idx = np.nonzero(inside & (nearest == k))[0]
            if len(idx) < 2:
                continue
            two = idx[np.argsort(-finer.scores[idx])[:2]]
            apart = float(np.hypot(*(finer.centres[two[0]] - finer.centres[two[1]])))
            if apart < SPLIT_APART * float(finer.sides[two].max()):
                continue
            keep[k] = False
            halves[two] = True
        if not halves.any():
            return None
        return Candidates.joined(c.select(keep), finer.select(halves)), keep

    def _weak(self, img: Decoded, c: Candidates, looks: Looks, s: float | None) -> Candidates:
        """Candidates the detector was unsure of (``WEAK``), of side ``s`` px (the dice in play's, or the sure dice's
        of this photo), not on a candidate already found, from the look that sees that size best (one already taken:
        no more work for the net)."""
        if s is None or not looks:
            return Candidates.empty()
        long_side = max(img.bgr.shape[:2])
        sweet = self.detector.sweet
        level = min(looks, key=lambda n: abs(np.log(s * n / long_side / sweet)))
        # within 2 x of the size the net sees best; dice smaller than that at the finest look taken
        there = s * level / long_side / sweet
        if there > 2.0 or (there < 0.5 and level != max(looks)):
            return Candidates.empty()
        weak = self.detector.detect(img.bgr, WEAK, level, looks)
        keep = _of_size(weak.sides, s, SIZE_FACTOR) & (weak.scores < self.classifier.det_threshold)
        for centre, found in zip(c.centres, c.sides, strict=True):
            near = np.hypot(*(weak.centres - centre).T) < 0.5 * np.maximum(weak.sides, found)
            keep &= ~near
        weak = weak.select(keep)
        return weak.select(np.sort(np.argsort(-weak.scores)[:WEAK_MAX]))

    def _faint(
        self,
        img: Decoded,
        c: Candidates,
        looks: Looks,
        kind: str,
        dropped: tuple[Die, ...],
        dice: np.ndarray,
        surely: np.ndarray,
        short: bool = False,
    ) -> tuple[Die, ...]:
        """``dropped`` with the weak candidates of the size of this photo's sure dice (``_weak``), read once: without
        a game's memory, the count's only way to a die the detector was unsure of (a steel die on a check cloth).
        ``short``: fewer dice than the throw's count; the places most like this photo's sure dice join them."""
        side = _sure_side(c, dice & surely)
        if side is None:
            return dropped
        weak = self._weak(img, c, looks, side)
        if short and self.rules.exemplars:
            weak = Candidates.joined(weak, self._alike(img, c, weak, looks, None, dice, surely))
        return self._read_once(img, weak, kind, dropped)

    def _where_dice_are(
        self,
        img: Decoded,
        c: Candidates,
        looks: Looks,
        memory: DiceMemory,
        kind: str,
        dropped: tuple[Die, ...],
        dice: np.ndarray,
        sure: np.ndarray,
    ) -> tuple[Die, ...]:
        """``dropped`` with the weak candidates of the dice' size (``_weak``) and the places most like the game's dice
        (``_alike``), read once and with the memory. ``dice``: the candidates reported, ``sure`` those of them
        surely read."""
        side = memory.side()
        # a game whose dice sizes spread too far to set one (steel dice, tilted): this photo's sure dice's, as a photo
        # without a game's memory is looked at (``_faint``)
        s = _sure_side(c, dice & sure) if side is None else side * max(img.bgr.shape[:2])
        weak = self._weak(img, c, looks, s)
        if self.rules.exemplars:
            weak = Candidates.joined(weak, self._alike(img, c, weak, looks, memory, dice, sure))
        return self._read_once(img, weak, kind, dropped, memory)

    def _read_once(
        self, img: Decoded, more: Candidates, kind: str, dropped: tuple[Die, ...], memory: DiceMemory | None = None
    ) -> tuple[Die, ...]:
        """``dropped`` with the candidates ``more``, each read in one view (with the game's ``memory`` where given),
        surest first."""
        if not len(more):
            return dropped
        full, emb = self.classifier.model_outputs(img.bgr, more, turns=1)
        logits = self.classifier.merge(full)
        if memory is not None and emb is not None:
            logits = _with_memory(logits, memory, emb, self.classifier.temperature)
        p = kind_probs(logits, kind, self.classifier.temperature)
        read = _dropped(p, more, img, kind, np.ones(len(more), bool), self.classifier.conf_model)
        return tuple(sorted(dropped + read, key=lambda d: -d.confidence))

    def _alike(
        self,
        img: Decoded,
        c: Candidates,
        weak: Candidates,
        looks: Looks,
        memory: DiceMemory | None,
        dice: np.ndarray,
        sure: np.ndarray,
    ) -> Candidates:
        """Places like the game's dice (its exemplars, and the sure dice of this photo; without a memory these alone)
        at the size of the dice in play (or of the sure dice here), scored below any the detector had; not on a die
        reported nor on another candidate of that size. A candidate far off it does not hide its place: measured on
        rendered games, the missing die often lies under a box straddling it and a neighbour, which the count cannot
        take."""
        bgr = img.bgr
        found = c.select(dice & sure)
        side = memory.side() if memory is not None else None
        s = side * max(bgr.shape[:2]) if side is not None else _sure_side(c, dice & sure)
        if s is None:
            return Candidates.empty()
        here = patches(bgr, found.centres[:HERE], found.sides[:HERE])
        kept = memory.exemplars if memory is not None and memory.exemplars.shape[1:] == here.shape[1:] else here[:0]
        exemplars = np.concatenate([kept, here])
        # a candidate near the dice' size (the count's tolerance) hides its place from the search
        avoid = [
            c.select(dice | _of_size(c.sides, s, SIZE_TOLERANCE)),
            weak.select(_of_size(weak.sides, s, SIZE_TOLERANCE)),
        ]
        alike = search(bgr, exemplars, s, avoid, frames=list(looks.frames.values()))
        return Candidates(alike.centres, alike.sides, EXEMPLAR_SCORE * alike.scores)


def _of_size(sides: np.ndarray, side: float, factor: float) -> np.ndarray:
    """Candidates within ``factor`` of ``side`` either way."""
    out: np.ndarray = np.maximum(sides, side) / np.maximum(np.minimum(sides, side), 1e-6) <= factor
    return out


def _with_memory(logits: np.ndarray, memory: DiceMemory, emb: np.ndarray, temperature: float) -> np.ndarray:
    """The classifier's logits of the memory's kind (six faces and background) replaced by the mix of its
    probabilities (``kind_probs``) with the memory's (``DiceMemory.mixed``), their total kept: every later step
    (the size rule, the confidence, the count) reads the mix as it read the classifier."""
    cols = [*range(6), BACKGROUND] if memory.kind == "pip" else [*range(6, 12), BACKGROUND]
    z = logits[:, cols] / temperature
    top = z.max(axis=1, keepdims=True)
    total = top + np.log(np.exp(z - top).sum(axis=1, keepdims=True))
    mixed = memory.mixed(np.exp(z - total), emb)
    out = logits.copy()
    out[:, cols] = temperature * (np.log(np.maximum(mixed, 1e-12)) + total)
    return out


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


def _sure_side(c: Candidates, sure: np.ndarray) -> float | None:
    """The median side of this photo's sure dice, None where they are fewer than ``FAINT_SURE``."""
    return float(np.median(c.sides[sure])) if int(sure.sum()) >= FAINT_SURE else None


def _check_count(count: int | None) -> None:
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
        raise ValueError(f"count must be a number of dice (0 or more) or None, not {count!r}.")


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
