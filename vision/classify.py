"""Stage 2: what each die shows. Crops around each candidate go to a small ONNX classifier (12 faces + background).

A model may add printing classes after background (German and French court letters): their logits join their rank's,
and the winning printing is reported so the person sees "D read as Q".
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import numpy as np

from vision.detect import Candidates, session
from vision.reading import PIP_FACES, POKER_FACES, PRINTINGS

FACES = PIP_FACES + POKER_FACES
BACKGROUND = len(FACES)
EMBEDDING = "embedding"  # the output name of the features (vision/train/embedding.py)
# a crop whose best class is less sure than this after the model's turns is read in all its views. On the
# validation split, one turn and then four for the 23 % of crops under 0.9 read as well as four turns for every crop
# (F1 0.950; two turns for every crop: 0.947) for 40 % of that work. 0.85 since issue 59's seventh session: every
# unseen and test set, the phantoms and the rendered games read the same but one die of rune55-small-far, and the
# 640x480 frame of 17 dice rereads three crops, not four (40 -> 37 ms)
REREAD_BELOW = 0.85
# views of a crop in doubt: four quarter turns, and since stop 28 the same four mirrored too. The classifier was trained
# on mirrored crops as much as on plain ones (a mirrored pip face is that face turned), so a mirror is one more honest
# look; on the validation rows it lifted die F1 93.9 -> 94.0 and flagged fewer dice (see the model card, "Mirrors")
REREAD_VIEWS = 8
KIND_SURENESS = 3.0  # power of a die's best face probability in the pip-or-poker vote (see choose_kind)
KIND_REFERENCE = 3  # the strongest candidates, whose median side a die's size is weighed against in that vote


def rank_columns(class_names: list[str], source: str = "the model") -> list[list[int]]:
    """Per rank class (12 faces, background), the model's output columns that make it up: its own and its
    printings'."""
    extra = class_names[BACKGROUND + 1 :]
    if class_names[: BACKGROUND + 1] != [*FACES, "background"] or not set(extra) <= set(PRINTINGS):
        raise ValueError(f"{source}: unexpected class names {class_names}.")
    columns = [[k] for k in range(BACKGROUND + 1)]
    for col, letter in enumerate(extra, BACKGROUND + 1):
        columns[FACES.index(PRINTINGS[letter])].append(col)
    return columns


def crop_dice(bgr: np.ndarray, c: Candidates, size: int, context: float, margin: float = 0.0) -> np.ndarray:
    """Square crops (n, size, size, 3) of ``context`` x each die's side plus ``margin`` px around its centre.

    The margin is for small dice: the detector's error on a centre and a camera's blur are a few pixels whatever the
    die's size, so a tight crop of a 15 px die can cut its edge off (see the model card, "Crop margin").
    """
    out = np.empty((len(c), size, size, 3), np.uint8)
    for k, ((cx, cy), side) in enumerate(zip(c.centres, c.sides, strict=True)):
        s = size / max(float(side) * context + margin, 2.0)
        m = np.array([[s, 0, size / 2 - s * cx], [0, s, size / 2 - s * cy]], np.float32)
        interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
        out[k] = cv2.warpAffine(bgr, m, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return out


GREY = np.array([0.114, 0.587, 0.299], dtype=np.float32)  # BGR to luma


def to_input(crops: np.ndarray, channels: int = 1) -> np.ndarray:
    """Standardised per crop by its grey level's mean and spread, so a dark die and a bright one look alike.

    One channel: the grey crop. Three: each colour channel scaled alike, so that red pips on a blue die, the same grey
    as the die, still stand out; their luma-weighted sum is the grey input exactly, which lets a colour model start as
    a copy of a grey one.
    """
    f = crops.astype(np.float32)
    g = f @ GREY
    mu = g.mean(axis=(1, 2), keepdims=True)
    sd = g.std(axis=(1, 2), keepdims=True) + 8.0
    if channels == 1:
        return np.ascontiguousarray(((g - mu) / sd)[:, None])
    return np.ascontiguousarray(((f - mu[..., None]) / sd[..., None]).transpose(0, 3, 1, 2))


def crop_format(meta: dict[str, str], shape: list[int | str | None], source: str) -> tuple[int, int]:
    """(channels, crop side) of a classifier: from its metadata (``channels``, ``input_size``), else from its input's
    shape, so that a grey model and a colour one (of any crop size) both read; a file whose metadata and graph
    disagree is refused rather than fed the wrong crops."""
    graph_c = shape[1] if len(shape) == 4 and isinstance(shape[1], int) else None
    graph_s = shape[2] if len(shape) == 4 and isinstance(shape[2], int) else None
    channels = int(meta.get("channels", graph_c or 1))
    size = int(meta.get("input_size", graph_s or 32))
    if channels not in (1, 3):
        raise ValueError(f"{source}: a classifier reads grey (1) or BGR (3) crops, not {channels} channels.")
    if (graph_c is not None and graph_c != channels) or (graph_s is not None and graph_s != size):
        raise ValueError(f"{source}: its metadata says {channels} x {size} px crops, its input is {shape[1:]}.")
    return channels, size


class Classifier:
    reread = True  # crops in doubt read at all views (the reader's rules may switch it off)
    outputs: list[str] | None = None  # the outputs read: logits, and the embedding where the file has one
    embedding_parts: tuple[int, ...] = ()  # each member's width in the embedding; () for a file without one

    def __init__(self, path: Path) -> None:
        self.sess = session(path)
        # names the model that saw a crop: a game's memory reads only embeddings of the model reading with it
        self.digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        meta = self.sess.get_modelmeta().custom_metadata_map
        self.class_names: list[str] = json.loads(meta["class_names"])
        self.columns = rank_columns(self.class_names, path.name)
        self.context = float(meta.get("context", "1.25"))
        self.margin = float(meta.get("context_px", "0"))  # px added to each crop's side; none before stop 20
        self.temperature = float(meta.get("temperature", "1.0"))
        self.threshold = float(meta.get("threshold", "0.9"))
        self.det_threshold = float(meta.get("det_threshold", "0.25"))
        # a candidate is a die only when its background probability is at most this (chosen at calibration); a model
        # calibrated before it read a candidate as background only where background was its likeliest class
        self.max_background = float(meta.get("max_background", "1.0"))
        # quarter turns averaged per crop; chosen at calibration, a property of the model like its threshold
        self.turns = int(meta.get("turns", "1"))
        self.conf_model: list[float] | None = json.loads(meta["conf_model"]) if meta.get("conf_model") else None
        self.input = self.sess.get_inputs()[0].name
        self.channels, self.size = crop_format(meta, self.sess.get_inputs()[0].shape, path.name)
        # the features before each member's last layer (vision/train/embedding.py), for the game's memory of its dice
        outputs = [o.name for o in self.sess.get_outputs()]
        self.outputs = outputs[:2] if EMBEDDING in outputs else outputs[:1]
        if EMBEDDING in outputs:
            self.embedding_parts = tuple(json.loads(meta.get("embedding_parts", "[]")))

    def logits(self, bgr: np.ndarray, c: Candidates, turns: int | None = None) -> np.ndarray:
        """Logits per rank class (12 faces and background), (n, 13): printings merged into their faces."""
        return self.merge(self.model_logits(bgr, c, turns))

    def merge(self, full: np.ndarray) -> np.ndarray:
        """The model's logits (n, classes) to one per rank class: a log-sum of a face's printings, so that its
        probability is theirs added up."""
        if len(self.columns) == full.shape[1]:
            return full
        out = np.empty((len(full), BACKGROUND + 1), np.float32)
        for k, cols in enumerate(self.columns):
            z = full[:, cols]
            top = z.max(axis=1)
            out[:, k] = top + np.log(np.exp(z - top[:, None]).sum(axis=1))
        return out

    def printing(self, full: np.ndarray, face_class: int) -> np.ndarray:
        """Per row, the printed letter most likely behind ``face_class`` (the face itself when no printing wins)."""
        cols = self.columns[face_class]
        best = np.asarray(cols)[full[:, cols].argmax(axis=1)]
        return np.array([self.class_names[b] if b > BACKGROUND else FACES[face_class] for b in best], dtype=object)

    def model_logits(self, bgr: np.ndarray, c: Candidates, turns: int | None = None) -> np.ndarray:
        """Logits over the model's classes, averaged over ``turns`` quarter turns of each crop: a die reads the same
        turned, noise does not.

        With the model's own turns, crops still in doubt get the remaining views too (``REREAD_VIEWS``).
        """
        return self.model_outputs(bgr, c, turns)[0]

    def model_outputs(
        self, bgr: np.ndarray, c: Candidates, turns: int | None = None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """``model_logits`` and each crop's embedding as seen in its first view (None for a file without one).

        The first view only: every crop has it at no cost, and the memory keeps all eight views of each crop it
        learns (``embed_views``), so a die turned any way finds its like there.
        """
        reread = turns is None and self.reread
        turns = self.turns if turns is None else turns
        if len(c) == 0:
            width = sum(self.embedding_parts) if self.embedding_parts else 0
            return np.zeros((0, len(self.class_names)), np.float32), (
                np.zeros((0, width), np.float32) if self.embedding_parts else None
            )
        x = to_input(crop_dice(bgr, c, self.size, self.context, self.margin), self.channels)
        mean, first = self._viewed(x, range(max(turns, 1)))
        if reread and turns < REREAD_VIEWS:
            doubt = softmax(self.merge(mean)).max(axis=1) < REREAD_BELOW
            if doubt.any():
                rest, _ = self._viewed(x[doubt], range(turns, REREAD_VIEWS))
                mean[doubt] = (mean[doubt] * turns + rest * (REREAD_VIEWS - turns)) / REREAD_VIEWS
        return mean, first

    def embed_views(self, bgr: np.ndarray, c: Candidates, views: int = 4) -> np.ndarray:
        """Each crop's embedding in its first ``views`` views, (n, views, width): what the memory of a game keeps of
        a die (four quarter turns: a die on a table is turned, never mirrored)."""
        if not self.embedding_parts:
            raise ValueError("this classifier file has no embedding output; add one with vision.train.embedding.")
        x = to_input(crop_dice(bgr, c, self.size, self.context, self.margin), self.channels)
        batch = np.concatenate([view(x, k) for k in range(views)])
        emb = np.asarray(self.sess.run([EMBEDDING], {self.input: np.ascontiguousarray(batch)})[0])
        out: np.ndarray = emb.reshape(views, len(x), -1).transpose(1, 0, 2)
        return out

    def _viewed(self, x: np.ndarray, views: range) -> tuple[np.ndarray, np.ndarray | None]:
        """Mean logits over ``views`` of each crop (view k is k quarter turns, mirrored from view 4 on), and the
        embedding of the first view."""
        batch = np.concatenate([view(x, k) for k in views])
        outs = self.sess.run(self.outputs, {self.input: np.ascontiguousarray(batch)})
        mean: np.ndarray = np.asarray(outs[0]).reshape(len(views), len(x), -1).mean(axis=0)
        first = np.asarray(outs[1])[: len(x)] if len(outs) > 1 else None
        return mean, first


def view(x: np.ndarray, k: int) -> np.ndarray:
    """View ``k`` (0-7) of crops (n, c, h, w): ``k % 4`` quarter turns, after a left-right mirror when ``k >= 4``."""
    if k >= 4:
        x = x[..., ::-1]
    turned: np.ndarray = np.rot90(x, k % 4, axes=(2, 3))
    return turned


def kind_probs(logits: np.ndarray, kind: str, temperature: float) -> np.ndarray:
    """Softmax over the kind's six faces plus background, (n, 7); temperature from calibration."""
    idx = [*range(6), BACKGROUND] if kind == "pip" else [*range(6, 12), BACKGROUND]
    z = logits[:, idx] / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    p: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return p


def is_die(p: np.ndarray, max_background: float) -> np.ndarray:
    """Per row of ``kind_probs``: a die, not background. Background must be neither the likeliest class nor more
    likely than the calibrated cut; the reader and its calibration both decide by this."""
    keep: np.ndarray = (p.argmax(axis=1) != 6) & (p[:, 6] <= max_background)
    return keep


def softmax(logits: np.ndarray) -> np.ndarray:
    """Over all 13 classes, both kinds and background, uncalibrated: for comparisons within one photo."""
    z = logits - logits.max(axis=1, keepdims=True)
    p: np.ndarray = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return p


def choose_kind(logits: np.ndarray, weights: np.ndarray, sides: np.ndarray | None = None) -> str:
    """Pip or poker for the whole photo: each likely die votes for the family whose face it reads surest.

    A vote counts its best face's probability cubed, so six dice read sure outweigh thirty loops of a table's pattern
    read as a muddle of court faces (one such photo was read as 28 poker dice); with ``sides``, also by its area
    against that of the three strongest candidates (at most 1), so marks a fraction of a die's size count little.
    """
    if len(logits) == 0:
        return "pip"
    p = softmax(logits)
    w = weights * (1.0 - p[:, BACKGROUND])
    if sides is not None:
        ref = float(np.median(sides[np.argsort(-weights)[:KIND_REFERENCE]]))
        w = w * np.minimum(1.0, sides / max(ref, 1e-6)) ** 2
    pip = float((p[:, :6].max(1) ** KIND_SURENESS * w).sum())
    poker = float((p[:, 6:12].max(1) ** KIND_SURENESS * w).sum())
    return "poker" if poker > pip else "pip"


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, 1e-6, 1 - 1e-6)
    out: np.ndarray = np.log(q / (1 - q))
    return out


def confidence(face_p: np.ndarray, det_score: np.ndarray, model: list[float] | None) -> np.ndarray:
    """The chance that a die was read right, from its face probability and its detector score.

    A face can be sure on a spot that is no die (a keyboard key): the detector's score carries what the crop cannot.
    ``model`` is a logistic fit on held-back data ([bias, face weight, detector weight]); without one, the face
    probability alone.
    """
    if model is None:
        return face_p
    z = model[0] + model[1] * _logit(face_p) + model[2] * _logit(det_score)
    return _sigmoid(z)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    """Stable at any z: a fit with steep weights would overflow exp(-z) and warn on every photo."""
    out: np.ndarray = np.exp(-np.logaddexp(0.0, -z))
    return out


def fit_confidence(face_p: np.ndarray, det_score: np.ndarray, right: np.ndarray, steps: int = 50) -> list[float]:
    """Logistic regression of ``right`` on the two logits by Newton steps; a small ridge keeps it sane."""
    x = np.stack([np.ones_like(face_p), _logit(face_p), _logit(det_score)], 1).astype(np.float64)
    y = right.astype(np.float64)
    w = np.array([0.0, 1.0, 0.0])
    for _ in range(steps):
        p = _sigmoid(x @ w)
        grad = x.T @ (p - y) + 1e-3 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + 1e-3 * np.eye(3)
        w = w - np.linalg.solve(hess, grad)
    return [round(float(v), 5) for v in w]


def keep_fit(fit_precision: float, plain_precision: float, slack: float = 0.005) -> bool:
    """Whether the confidence is the fit with the detector's score (else the face probability alone), from the
    precision of the dice each leaves unflagged on validation.

    The fit is taken unless it flags worse by more than ``slack``: its mean confidence is the share read right, so it
    means what it says, which the face probability need not (0.956 for 0.935 right, with the stop-20 crop margin), and
    it carries the detector's doubt about a spot into the uncertain flag.
    """
    return fit_precision >= plain_precision - slack


def operating_point(f1: dict[tuple[float, float], float], slack: float = 0.001) -> tuple[float, float]:
    """The (detector threshold, background cut) to read with, from validation F1 per pair: of the pairs within
    ``slack`` of the best, the gentlest cut, then the best F1. Dice of designs the training never saw are read less
    surely, and a tighter cut would drop them first."""
    best = max(f1.values())
    return max((k for k, v in f1.items() if v >= best - slack), key=lambda k: (k[1], f1[k]))
