"""The game's memory of its dice (issue 52): every confirmed throw teaches the reader those dice on that table.

A game is played with one set of dice under one camera all evening. Each die of a confirmed throw is kept here as
what the classifier saw of it (its embedding, ``vision/train/embedding.py``, in the four quarter turns of its crop)
with the face the players confirmed, or as "not a die" where they said so. Reading a new photo, each candidate is
compared with these: the faces of the confirmed crops most like it weigh in on the classifier's reading (``mixed``:
their odds times the classifier's, and where they are near and agree, their face outright).

* How much it counts follows how near the confirmed crops are (a kernel on the cosine similarity): a die unlike any
  seen is read as the bundled classifier reads it, and an empty memory changes nothing at all.
* Per face, the mean of the nearest ``NEAREST`` crops counts, not their sum, so a face seen often does not outvote a
  face seen rarely but closely.
* A correction weighs more than a silent confirmation (``CORRECTED``); a crop whose confirmed face the crops like it
  contradict counts little (``DOUBTED``: a wrong confirmation does not poison the rest); older throws fade
  (``HALF_LIFE``), so dice changed midway are learned again and the old ones stop counting.
* The memory reads its own crops, each from the other throws' (``trust``): dice of one set under one camera read each
  other right; a memory of many sets does not, and then it says nothing.
* The size of the dice in play (``side``, ``off_size``, ``most``) tells the reader which candidates are of another
  size and where to look again for a die the detector was unsure of.
* Bounded: at most ``LIMIT`` dice, the oldest silent confirmations go first.
* A few small grey patches of confirmed dice (``exemplars``, at most ``EXEMPLARS``, the newest) for the reader to
  look for a die the detector missed by its likeness to them (``vision/exemplars.py``).

Pure numpy, no I/O: ``to_bytes``/``from_bytes`` are what the server keeps in SQLite.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

FACES_PER_KIND = 6
NOT_A_DIE = 6  # the class of a crop the players said is no die (the classifier's background)
CLASSES = FACES_PER_KIND + 1
VIEWS = 4  # quarter turns of each crop kept: a die on a table is turned, never mirrored
LIMIT = 480  # dice kept: 480 x 4 views x 352 features x 2 bytes = 1.35 MB
TAU = 0.06  # width of the kernel on cosine similarity: a crop 0.06 less alike counts e times less
BETA = 0.3  # the memory counts as much as the classifier where its evidence is this (one crop alike: about 0.3)
NEAREST = 3  # crops per face whose mean counts
PULL = 1.5  # power of the memory's odds of a face beside the classifier's
ODDS_PRIOR = 0.03  # evidence each face has in those odds before any crop: one corrected crop alike outweighs it
TRUST_FROM = 0.8  # a memory that reads its own crops right this often, or less, is not listened to
TRUSTED = 0.5  # trust from which the size of the dice in play counts (``trusted``)
TRUST_AFTER = 10  # crops that others resemble before the memory's trust is judged (full trust until then)
SURE_DIE = 0.8  # weight over which the memory's dice also lower the classifier's background (to 0 at weight 1)
CORRECTED = 2.0  # a die the players corrected counts this much more than one they only confirmed
DOUBTED = 0.15  # weight of a crop whose confirmed face the crops most like it contradict
CONTRADICT = 4.0  # ... contradict: another face's evidence this many times its own
HALF_LIFE = 40.0  # throws after which a confirmed crop counts half
RECENT = 5  # the last throws whose dice set the size of the dice in play
SIZE_FACTOR = 1.8  # a candidate this far off their side, either way, is no die of this game (as vision/decide.py)
SIZE_SPREAD = 1.4  # ... once the recent dice agree on a size: their upper quartile within this factor of the lower
# A candidate less like the game's dice than all but UNLIKE_SHARE of its own dice are like each other (each against
# the other throws' dice, ``like_floor``) is unlike them: a speck, a token, a hole (issue 59). Measured on the rendered
# games and the webcam set, a fixed cosine cannot say it: dice of one set are 0.51-0.98 alike from game to game,
# phantoms 0.72-0.94; against a game's own spread, most phantoms fall below and few dice do
UNLIKE_SHARE = 0.02
UNLIKE_AFTER = 20  # dice confirmed (from two throws or more) before the floor is known
EXEMPLARS = 6  # grey patches of confirmed dice kept, the newest (vision/exemplars.py: 6 x 18 x 18 bytes)


def normalise(emb: np.ndarray, parts: Sequence[int]) -> np.ndarray:
    """Each member's part of the embedding to unit length, the whole to unit length: members weigh alike."""
    out = np.asarray(emb, np.float32).copy()
    start = 0
    for width in parts or [out.shape[-1]]:
        seg = out[..., start : start + width]
        seg /= np.linalg.norm(seg, axis=-1, keepdims=True) + 1e-6
        start += width
    out /= np.sqrt(max(len(parts), 1))
    return out


@dataclass(frozen=True)
class Knowledge:
    """What the memory holds, as the table page says it: dice seen, corrections among them, not-a-die crops."""

    seen: int
    corrected: int
    not_dice: int


class DiceMemory:
    """The confirmed dice of one game (or one saved dice set). Not thread-safe: one game's reads are serialised by
    the caller."""

    def __init__(self, kind: str, parts: Sequence[int], limit: int = LIMIT) -> None:
        if kind not in ("pip", "poker"):
            raise ValueError(f"A memory of dice is of pip or poker dice, not {kind!r}.")
        self.kind = kind
        self.parts = [int(p) for p in parts]
        self.width = sum(self.parts)
        self.limit = limit
        self.views = np.zeros((0, VIEWS, self.width), np.float32)
        self.faces = np.zeros(0, np.int8)
        self.throws = np.zeros(0, np.int64)
        self.corrected = np.zeros(0, bool)
        self.sides = np.zeros(0, np.float32)
        self._weights: np.ndarray | None = None
        self._floor: float | None = None
        self.trust = 1.0  # set with the weights (``_trust``)
        self._flat: np.ndarray | None = None
        self.exemplars = np.zeros((0, 0, 0), np.uint8)  # (k, p, p) grey patches of confirmed dice ...
        self.exemplar_throws = np.zeros(0, np.int64)  # ... and the throw of each

    def __len__(self) -> int:
        return len(self.faces)

    def knowledge(self) -> Knowledge:
        dice = self.faces != NOT_A_DIE
        return Knowledge(int(dice.sum()), int((self.corrected & dice).sum()), int((~dice).sum()))

    # ------------------------------------------------------------------ teaching

    def teach(
        self,
        throw: int,
        views: np.ndarray,
        faces: Sequence[int],
        corrected: Sequence[bool],
        sides: Sequence[float],
        exemplars: np.ndarray | None = None,
    ) -> None:
        """The dice of one confirmed throw: ``views`` (k, >=4, width) raw embeddings of each crop's views (the first
        four quarter turns are kept), ``faces`` 0-5 (or ``NOT_A_DIE``), ``corrected`` where the players changed the
        reading, ``sides`` as shares of the photo's long side (a phone's photo and a webcam's frame of one game
        differ in pixels, not in this); ``exemplars`` (j, p, p) uint8 grey patches of some of its dice
        (``vision.exemplars.patch``). A throw taught again replaces what it taught."""
        views = np.asarray(views, np.float32)
        k = len(faces)
        if views.ndim != 3 or views.shape[0] != k or views.shape[1] < VIEWS or views.shape[2] != self.width:
            raise ValueError(f"{k} dice need embeddings of shape ({k}, {VIEWS}+, {self.width}), not {views.shape}.")
        if len(corrected) != k or len(sides) != k:
            raise ValueError("Each die needs its face, whether it was corrected, and its side.")
        if any(not 0 <= int(f) <= NOT_A_DIE for f in faces):
            raise ValueError(f"Faces are 0-5 (or {NOT_A_DIE}, not a die), not {list(faces)}.")
        self.forget(throw)
        self.views = np.concatenate([self.views, normalise(views[:, :VIEWS], self.parts)])
        self.faces = np.concatenate([self.faces, np.asarray(faces, np.int8)])
        self.throws = np.concatenate([self.throws, np.full(k, throw, np.int64)])
        self.corrected = np.concatenate([self.corrected, np.asarray(corrected, bool)])
        self.sides = np.concatenate([self.sides, np.asarray(sides, np.float32)])
        if exemplars is not None and len(exemplars):
            self._add_exemplars(np.asarray(exemplars, np.uint8), np.full(len(exemplars), throw, np.int64))
        self._bound()
        self._changed()

    def forget(self, throw: int) -> None:
        """What one throw taught (its action was undone)."""
        self._keep(self.throws != throw)
        self._keep_exemplars(self.exemplar_throws != throw)

    def forget_after(self, throw: int) -> None:
        """What every throw after ``throw`` taught (the game was undone back to it)."""
        self._keep(self.throws <= throw)
        self._keep_exemplars(self.exemplar_throws <= throw)

    def _add_exemplars(self, patches: np.ndarray, throws: np.ndarray, older: bool = False) -> None:
        """Patches of one size (the first set's), the newest ``EXEMPLARS`` kept; ``older``: they came before these."""
        if patches.ndim != 3 or patches.shape[1] != patches.shape[2]:
            raise ValueError(f"Exemplars are square grey patches (k, p, p), not of shape {patches.shape}.")
        if len(self.exemplars) and patches.shape[1:] != self.exemplars.shape[1:]:
            return  # of another size (another version of the reader): the kept ones stay
        if len(self.exemplars):
            first, then = (patches, throws), (self.exemplars, self.exemplar_throws)
            if not older:
                first, then = then, first
            patches, throws = np.concatenate([first[0], then[0]]), np.concatenate([first[1], then[1]])
        self.exemplars, self.exemplar_throws = patches[-EXEMPLARS:], throws[-EXEMPLARS:]

    def _keep_exemplars(self, mask: np.ndarray) -> None:
        self.exemplars, self.exemplar_throws = self.exemplars[mask], self.exemplar_throws[mask]

    def merge(self, other: DiceMemory) -> None:
        """Another memory's dice (a saved set a game starts from), as older than any of this memory's throws."""
        if other.kind != self.kind or other.parts != self.parts:
            raise ValueError("A saved set of other dice or of another model cannot be merged.")
        if not len(other):
            return
        offset = (int(self.throws.min()) if len(self) else 0) - int(other.throws.max()) - 1
        self.views = np.concatenate([other.views, self.views])
        self.faces = np.concatenate([other.faces, self.faces])
        self.throws = np.concatenate([other.throws + offset, self.throws])
        self.corrected = np.concatenate([other.corrected, self.corrected])
        self.sides = np.concatenate([other.sides, self.sides])
        if len(other.exemplars):
            self._add_exemplars(other.exemplars, other.exemplar_throws + offset, older=True)
        self._bound()
        self._changed()

    def _keep(self, mask: np.ndarray) -> None:
        if mask.all():
            return
        self.views, self.faces, self.throws = self.views[mask], self.faces[mask], self.throws[mask]
        self.corrected, self.sides = self.corrected[mask], self.sides[mask]
        self._changed()

    def _bound(self) -> None:
        """At most ``limit`` dice: the oldest silent confirmations go first, then the oldest corrections."""
        extra = len(self) - self.limit
        if extra <= 0:
            return
        order = np.lexsort((self.throws, self.corrected))  # silent before corrected, oldest first
        drop = np.zeros(len(self), bool)
        drop[order[:extra]] = True
        self._keep(~drop)

    def _changed(self) -> None:
        self._weights = None
        self._flat = None
        self._floor = None

    # ------------------------------------------------------------------ weights

    def weights(self) -> np.ndarray:
        """Each crop's weight: corrected or not, its age in throws, and whether the crops like it agree."""
        if self._weights is None:
            w = np.where(self.corrected, CORRECTED, 1.0).astype(np.float32)
            self.trust = 1.0
            if len(self):
                ages = _ages(self.throws)
                w *= 0.5 ** (ages / HALF_LIFE)
                evidence = self._from_other_throws(w)
                w *= np.where(self._contradicted(evidence) | self._off_size(), DOUBTED, 1.0)
                self.trust = self._trust(evidence, w)
            self._weights = w.astype(np.float32)
        return self._weights

    def _from_other_throws(self, w: np.ndarray) -> np.ndarray:
        """Each crop's evidence (n, 7) from the crops of the other throws (their four turns averaged)."""
        mean = normalise(self.views.mean(axis=1), [self.width])
        sims = mean @ mean.T
        other = self.throws[:, None] != self.throws[None, :]
        kernel = np.where(other, np.exp((sims - 1.0) / TAU), 0.0) * w[None, :]
        return _per_face(kernel, self.faces)

    def _contradicted(self, evidence: np.ndarray) -> np.ndarray:
        """Crops whose like, from other throws, say another face by far (``CONTRADICT``): a confirmation gone wrong
        (a die tapped as 3 that every 5 of these dice resembles)."""
        rows = np.arange(len(self))
        own = evidence[rows, self.faces]
        rivals = evidence.copy()
        rivals[rows, self.faces] = 0.0
        rival = rivals.max(axis=1)
        out: np.ndarray = (rival > CONTRADICT * (own + BETA / CLASSES)) & (rival > BETA)
        return out

    def _trust(self, evidence: np.ndarray, w: np.ndarray) -> float:
        """How far the memory is to be trusted, 0-1: of its crops that others resemble, the share those others read
        right (each crop as the memory would read it without its own throw). Dice of one set under one camera read
        each other right; a memory of many dice sets, or of dice it cannot tell apart, does not, and then says less
        (``TRUST_FROM``)."""
        known = evidence.sum(axis=1) > BETA
        if known.sum() < TRUST_AFTER:
            return 1.0
        right = evidence[known].argmax(axis=1) == self.faces[known]
        share = float((right * w[known]).sum() / max(float(w[known].sum()), 1e-9))
        return float(np.clip((share - TRUST_FROM) / (1.0 - TRUST_FROM), 0.0, 1.0))

    def _off_size(self) -> np.ndarray:
        """Crops far off the size of the dice confirmed around them (``SIZE_FACTOR``): a pip or a speck confirmed as
        the die it stood for, since the players only changed its value."""
        dice = self.faces != NOT_A_DIE
        out = np.zeros(len(self), bool)
        order = np.unique(self.throws)
        ranks = np.searchsorted(order, self.throws)
        # the median side of the dice of the throws around each throw (RECENT either side), by rank: (throws, n)
        around = (np.abs(np.arange(len(order))[:, None] - ranks[None, :]) <= RECENT) & dice[None, :]
        sides = np.where(around, self.sides[None, :], np.nan)
        enough = around.sum(axis=1) >= 2
        median = np.full(len(order), np.nan, np.float32)
        if enough.any():
            median[enough] = np.nanmedian(sides[enough], axis=1)
        side = median[ranks]
        known = ~np.isnan(side)
        ratio = np.maximum(self.sides, side) / np.maximum(np.minimum(self.sides, side), 1e-6)
        out[known] = dice[known] & (ratio[known] > SIZE_FACTOR)
        return out

    # ------------------------------------------------------------------ reading

    def evidence(self, emb: np.ndarray) -> np.ndarray:
        """Per candidate (first-view embeddings, (m, width)), each class's evidence (six faces, then not a die),
        (m, 7): the mean kernel of its ``NEAREST`` most alike confirmed crops, weighted (zero where none is near)."""
        m = len(emb)
        if not len(self) or m == 0:
            return np.zeros((m, CLASSES), np.float32)
        if self._flat is None:
            self._flat = np.ascontiguousarray(self.views.reshape(-1, self.width))
        q = normalise(emb, self.parts)
        sims = (q @ self._flat.T).reshape(m, len(self), VIEWS).max(axis=2)
        kernel = np.exp((sims - 1.0) / TAU) * self.weights()[None, :]
        return _per_face(kernel, self.faces)

    def likeness(self, emb: np.ndarray) -> np.ndarray:
        """Per candidate (first-view embeddings, (m, width)), the cosine similarity of the confirmed die most like it
        (any face, any quarter turn; crops said to be no die and doubted lessons left out), -1 where there is none:
        a candidate unlike every die of this game is no die of it, however sure the classifier (issue 59)."""
        dice = (self.faces != NOT_A_DIE) & (self.weights() >= DOUBTED * CORRECTED + 1e-6) if len(self) else None
        if dice is None or not dice.any() or not len(emb):
            return np.full(len(emb), -1.0, np.float32)
        q = normalise(emb, self.parts)
        flat = self.views[dice].reshape(-1, self.width)
        out: np.ndarray = (q @ flat.T).max(axis=1).astype(np.float32)
        return out

    def like_floor(self) -> float | None:
        """How alike the game's own dice are at least (all but ``UNLIKE_SHARE`` of them): each confirmed die's first
        view against every view of the dice of the other throws, as a candidate is compared (``likeness``). None
        before ``UNLIKE_AFTER`` dice of two throws or more."""
        if self._floor is None:
            self.weights()
            dice = (self.faces != NOT_A_DIE) & (self.weights() >= DOUBTED * CORRECTED + 1e-6)
            idx = np.nonzero(dice)[0]
            if len(idx) < UNLIKE_AFTER or len(np.unique(self.throws[idx])) < 2:
                return None
            first = self.views[idx, 0]
            sims = (first @ self.views[idx].reshape(-1, self.width).T).reshape(len(idx), len(idx), VIEWS).max(axis=2)
            sims[self.throws[idx][:, None] == self.throws[idx][None, :]] = -1.0
            self._floor = float(np.quantile(sims.max(axis=1), UNLIKE_SHARE))
        return self._floor

    def unlike(self, emb: np.ndarray) -> np.ndarray:
        """Candidates (first-view embeddings) less like the game's dice than its own dice are (``like_floor``); none
        while the floor is not known."""
        floor = self.like_floor()
        if floor is None:
            return np.zeros(len(emb), bool)
        out: np.ndarray = self.likeness(emb) < floor
        return out

    def knows(self, emb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per candidate: the classes of the confirmed crops like it, (m, 7) shares (uniform where nothing is like
        it), and how much that counts, 0-1: their evidence against ``BETA``."""
        return self._shares(self.evidence(emb))

    @staticmethod
    def _shares(evidence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        total = evidence.sum(axis=1)
        shares = np.where(total[:, None] > 0, evidence / np.maximum(total, 1e-12)[:, None], 1.0 / CLASSES)
        return shares.astype(np.float32), (total / (total + BETA)).astype(np.float32)

    def mixed(self, probs: np.ndarray, emb: np.ndarray) -> np.ndarray:
        """The classifier's probabilities of the six faces and background (m, 7) mixed with what the memory knows
        of each candidate, in the measure it knows it.

        Which face a die shows: the memory's faces mix in by their weight, so a crop like a corrected one reads as
        corrected however sure the classifier was, and a crop like none reads as the classifier reads it. Whether it
        is a die at all stays the classifier's, but for crops very like confirmed ones (``SURE_DIE``: a die the
        classifier took for background, the emblem of a six) and crops like those the players said are none."""
        evidence = self.evidence(emb)
        faces, weight = self._shares(evidence)
        bg = probs[:, NOT_A_DIE]
        said_die = faces[:, :NOT_A_DIE].sum(axis=1)
        said_none = faces[:, NOT_A_DIE]
        face_w = weight * said_die
        # which face: the classifier's odds times the memory's (smoothed by BETA, so a face no crop alike was
        # confirmed as is not ruled out), to the power PULL: near crops decide, a muddle of faces says little
        dice = evidence[:, :NOT_A_DIE]
        mem = (dice + ODDS_PRIOR / FACES_PER_KIND) / (dice.sum(axis=1, keepdims=True) + ODDS_PRIOR)
        self.weights()
        z = np.log(np.maximum(probs[:, :NOT_A_DIE], 1e-12)) + PULL * self.trust * np.log(mem * FACES_PER_KIND)
        z -= z.max(axis=1, keepdims=True)
        face_mix = np.exp(z)
        face_mix /= face_mix.sum(axis=1, keepdims=True)
        # and where the crops alike are many, near and of one face (a die corrected before, seen again), their face
        # is taken in the measure they agree: one correction of a die the classifier was sure of teaches at once
        total = dice.sum(axis=1)
        shares = dice / np.maximum(total, 1e-12)[:, None]
        top2 = np.sort(shares, axis=1)[:, -2:]
        decisive = self.trust * total / (total + BETA) * (top2[:, 1] - top2[:, 0])
        face_mix = (1.0 - decisive)[:, None] * face_mix + decisive[:, None] * shares
        # background: up by what the memory says is none, down only where it knows the crop surely as a die
        down = self.trust * np.where(face_w > SURE_DIE, (face_w - SURE_DIE) / (1.0 - SURE_DIE), 0.0)
        none = self.trust * weight * np.clip(2.0 * said_none - 1.0, 0.0, 1.0)  # where "none" outweighs every face
        new_bg = bg * (1.0 - down) + (1.0 - bg) * none
        out = np.empty_like(probs)
        out[:, :NOT_A_DIE] = face_mix * (1.0 - new_bg)[:, None]
        out[:, NOT_A_DIE] = new_bg
        return out

    def off_size(self, sides: np.ndarray) -> np.ndarray:
        """Candidates (their sides as shares of the photo's long side) far off the size of the dice in play: not dice
        of this game. Nothing before ``RECENT`` throws have set the size, or while their sizes disagree (a phone held
        nearer and farther)."""
        side = self.side()
        if side is None:
            return np.zeros(len(sides), bool)
        ratio = np.maximum(sides, side) / np.maximum(np.minimum(sides, side), 1e-6)
        out: np.ndarray = ratio > SIZE_FACTOR
        return out

    def trusted(self) -> bool:
        """Whether the memory reads its own crops well enough (``TRUSTED``) that the size of its dice may rule out
        candidates and send the reader looking for more."""
        self.weights()
        return self.trust >= TRUSTED

    def dice_throws(self) -> int:
        """Throws whose dice it was taught (a throw of only boxes said to be none does not count)."""
        return len(np.unique(self.throws[self.faces != NOT_A_DIE]))

    def most(self) -> int:
        """The most dice confirmed in one of the last ``RECENT`` throws (a full throw, not a rethrow of two)."""
        dice = self.faces != NOT_A_DIE
        throws = np.unique(self.throws[dice])[-RECENT:]
        return max((int((dice & (self.throws == t)).sum()) for t in throws), default=0)

    def side(self, spread: float = SIZE_SPREAD) -> float | None:
        """The median side of the dice of the last ``RECENT`` throws taught that count fully (no doubted lesson: a
        pip confirmed as its die does not set the size), None before there are so many or where they disagree by
        more than ``spread`` between their quartiles."""
        trusted = (self.faces != NOT_A_DIE) & (self.weights() >= DOUBTED * CORRECTED + 1e-6)
        throws = np.unique(self.throws[trusted])
        if len(throws) < RECENT:
            return None
        recent = self.sides[trusted & np.isin(self.throws, throws[-RECENT:])]
        low, mid, high = np.percentile(recent, [25, 50, 75])
        return float(mid) if high <= spread * max(low, 1e-6) else None

    # ------------------------------------------------------------------ keeping

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        np.savez_compressed(
            buf,
            kind=np.array(self.kind),
            parts=np.asarray(self.parts, np.int64),
            views=self.views.astype(np.float16),
            faces=self.faces,
            throws=self.throws,
            corrected=self.corrected,
            sides=self.sides,
            exemplars=self.exemplars,
            exemplar_throws=self.exemplar_throws,
        )
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, limit: int = LIMIT) -> DiceMemory:
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                memory = cls(str(z["kind"]), [int(p) for p in z["parts"]], limit)
                memory.views = z["views"].astype(np.float32)
                memory.faces = z["faces"].astype(np.int8)
                memory.throws = z["throws"].astype(np.int64)
                memory.corrected = z["corrected"].astype(bool)
                memory.sides = z["sides"].astype(np.float32)
                if "exemplars" in z.files:  # kept before issue 59 without them
                    exemplars, throws = z["exemplars"].astype(np.uint8), z["exemplar_throws"].astype(np.int64)
                    if exemplars.ndim != 3 or len(exemplars) != len(throws) or len(exemplars) > EXEMPLARS:
                        raise ValueError("A kept memory of dice has damaged exemplars.")
                    memory.exemplars, memory.exemplar_throws = exemplars, throws
        except (OSError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"A kept memory of dice is damaged ({exc}).") from None
        if memory.views.shape[1:] != (VIEWS, memory.width) or len({len(memory.views), len(memory.faces)}) != 1:
            raise ValueError("A kept memory of dice is damaged.")
        return memory


def _ages(throws: np.ndarray) -> np.ndarray:
    """How many throws were taught after each crop's throw."""
    order = np.unique(throws)
    rank = np.searchsorted(order, throws)
    out: np.ndarray = (len(order) - 1 - rank).astype(np.float32)
    return out


def _per_face(kernel: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """(m, n) kernel values to (m, 7) evidence: per class, the mean of its ``NEAREST`` largest (zeros pad)."""
    out = np.zeros((len(kernel), CLASSES), np.float32)
    for c in np.unique(faces):
        cols = kernel[:, faces == c]
        if cols.shape[1] > NEAREST:
            cols = np.partition(cols, cols.shape[1] - NEAREST, axis=1)[:, -NEAREST:]
        out[:, int(c)] = cols.sum(axis=1) / NEAREST
    return out
