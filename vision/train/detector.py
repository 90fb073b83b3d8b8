# mypy: disable-error-code="no-untyped-call"
"""Train the die-centre detector: CenterNet-style heatmap at stride 4 plus log side and sub-cell offset."""

from __future__ import annotations

import math
from pathlib import Path
from typing import cast

import cv2
import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn
from torch.nn import functional as F

from vision.train.augment import colour, perspective_jitter, similarity, stretch_aspect
from vision.train.data import Sample, source_weight
from vision.train.lite0 import LiteDetector, load_imagenet
from vision.train.models import Detector
from vision.train.quantize import refuse_int8
from vision.train.state import Phase, run_phase

STRIDE = 4
LONG_SIDE = 416  # inference resizes the image's long side to this
# how much more a detection on a rendered side face costs than one elsewhere off a die (1: no more; --det-side-weight)
SIDE_WEIGHT = 1.0
# the scales a patch is drawn at, times LONG_SIDE over the picture's long side (--det-scale): the tiny detector's, and
# the wider one a pretrained detector is taught, from far dice to a die filling the look (issue 59)
SCALES = (0.55, 1.7)
# Close-ups (issue 59: the pretrained detector found a close-up's pips and not its die). CLOSE_P of the draws centre
# on one die grown to CLOSE_SIDE of the patch; CROP_P of them show only a crop around one die (CROP_SHARE of the crop
# its side) shrunk to CROP_DIE px on a canvas of its border colour, as the reader's coarse looks lay a crop
# (vision/detect.py, CANVAS). Both 0 for the runs before them (--det-close).
CLOSE_P = 0.0
CROP_P = 0.0
CLOSE_SIDE = (0.45, 0.9)
CROP_SHARE = (0.7, 0.95)
CROP_DIE = (35.0, 70.0)
# One die, one box (issue 59: the pretrained detector found halves and corners of a die, a poker face's letter and suit
# apart): a centre guess HALF_RING sides off a die's centre costs HALF_WEIGHT times as much (1: no more; the runs
# before it; --det-half-weight)
HALF_WEIGHT = 1.0
HALF_RING = (0.3, 0.8)
# Each die's side taught with one weight, spread over the cells around its centre, and over the 3 x 3 cells at least
# (issue 59: with a weight per cell, a die of 100 px outweighed one of 10 px a hundredfold and the net sized dice under
# 12 input px 2-3 x too big, so the reader took no finer look for them; --det-size-per-die). False: the runs before it.
SIZE_PER_DIE = False
MOTION_PX = 8.0  # longest motion streak taught, input px: 12 px in a 640 px frame, a third of a webcam's die


def make_example(s: Sample, rng: np.random.Generator, out: int) -> tuple[np.ndarray, np.ndarray]:
    h, w = s.img.shape[:2]
    scale = LONG_SIDE / max(h, w) * math.exp(rng.uniform(math.log(SCALES[0]), math.log(SCALES[1])))
    window = None  # (half side of the crop shown, in patch px): the rest of the patch is the crop's border colour
    u = rng.random() if CLOSE_P + CROP_P > 0 else 1.0  # drawn only then: the runs before them draw as they did
    if len(s.centres) and u < CLOSE_P + CROP_P:
        k = int(rng.integers(len(s.centres)))
        side = max(float(s.sides[k]), 4.0)
        if u < CLOSE_P:
            scale = float(rng.uniform(*CLOSE_SIDE)) * out / side
        else:
            scale = float(rng.uniform(*CROP_DIE)) / side
            window = scale * side / float(rng.uniform(*CROP_SHARE)) / 2
        cx, cy = s.centres[k] + rng.normal(0, side / 10, 2)
    elif len(s.centres) and rng.random() < 0.75:
        cx, cy = s.centres[rng.integers(len(s.centres))] + rng.normal(0, out / scale / 5, 2)
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    angle = rng.uniform(0, 360) if rng.random() < 0.6 else 90.0 * rng.integers(4)
    m = similarity(float(cx), float(cy), scale, angle, bool(rng.random() < 0.5), out, stretch_aspect(rng))
    border = tuple(int(v) for v in rng.integers(0, 256, 3))
    spots = s.side_spots if SIDE_WEIGHT > 1.0 and s.side_spots is not None else np.zeros((0, 3), np.float32)
    if rng.random() < 0.3:
        hmat = perspective_jitter(m, out, rng, 0.06)
        img = cv2.warpPerspective(s.img, hmat, (out, out), flags=cv2.INTER_LINEAR, borderValue=border)

        def to_patch(xy: np.ndarray) -> np.ndarray:
            return cv2.perspectiveTransform(xy.reshape(-1, 1, 2).astype(np.float64), hmat).reshape(-1, 2)

        pts = to_patch(s.centres)
        if len(s.centres):
            j = np.abs(np.linalg.det(hmat[:2, :2]) / np.abs(np.linalg.det(m[:, :2].astype(np.float64)))) ** 0.5
        else:
            j = 1.0
    else:
        img = cv2.warpAffine(s.img, m, (out, out), flags=cv2.INTER_LINEAR, borderValue=border)

        def to_patch(xy: np.ndarray) -> np.ndarray:
            return xy @ m[:, :2].T + m[:, 2] if len(xy) else np.zeros((0, 2))

        pts = to_patch(s.centres)
        j = 1.0
    if window is not None:
        img, pts = on_canvas(img, pts, window, out)
    img = colour(img, rng, motion_px=MOTION_PX)
    g = out // STRIDE
    target = np.zeros((4, g, g), dtype=np.float32)  # heat, log side, off x, off y
    mask = np.zeros((2, g, g), dtype=np.float32)  # size mask, offset mask
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for (px, py), side in zip(pts, s.sides * scale * j, strict=True):
        if not (0 <= px < out and 0 <= py < out):
            continue
        cxg, cyg = px / STRIDE, py / STRIDE
        ix, iy = int(cxg), int(cyg)
        sigma = max(0.7, side / STRIDE / 5.0)
        gauss = np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma**2))
        target[0] = np.maximum(target[0], gauss)
        near = gauss > 0.5
        if SIZE_PER_DIE:
            near |= (np.abs(xx - ix) <= 1) & (np.abs(yy - iy) <= 1)
            mask[0][near] = np.maximum(mask[0][near], 1.0 / float(near.sum()))
        else:
            mask[0][near] = 1.0
        target[1][near] = math.log(max(side, 1.0))
        target[2, iy, ix], target[3, iy, ix] = cxg - ix, cyg - iy
        mask[1, iy, ix] = 1.0
        target[0, iy, ix] = 1.0
    neg = np.ones((1, g, g), dtype=np.float32)  # weight of "no die centre here"
    if HALF_WEIGHT != 1.0:
        for (px, py), side in zip(pts, s.sides * scale * j, strict=True):
            d = np.hypot(xx + 0.5 - px / STRIDE, yy + 0.5 - py / STRIDE) * STRIDE / max(side, 1.0)
            ring = (d >= HALF_RING[0]) & (d <= HALF_RING[1]) & (target[0] < 0.1)
            neg[0][ring] = np.maximum(neg[0][ring], HALF_WEIGHT)
    for (px, py), side in zip(to_patch(spots[:, :2]) if len(spots) else [], spots[:, 2] * scale * j, strict=True):
        if 0 <= px < out and 0 <= py < out:
            r = max(1.0, side / STRIDE / 4.0)  # a quarter of the die's side around the side face's middle
            near = (xx - px / STRIDE) ** 2 + (yy - py / STRIDE) ** 2 <= r * r
            neg[0][near & (target[0] < 0.1)] = SIDE_WEIGHT
    x = img.astype(np.float32).transpose(2, 0, 1)
    return x, np.concatenate([target, mask, neg])


def on_canvas(img: np.ndarray, pts: np.ndarray, half: float, out: int) -> tuple[np.ndarray, np.ndarray]:
    """Only the square of ``half`` px around the patch's centre kept, the rest filled with the median of its border:
    a crop around one die laid on a canvas, as the reader looks at a picture smaller than its input. Dice centred
    outside the square are gone (their targets too: far off the patch)."""
    c = out / 2
    lo, hi = max(0, round(c - half)), min(out, round(c + half))
    inner = img[lo:hi, lo:hi]
    ring = np.concatenate([inner[0], inner[-1], inner[:, 0], inner[:, -1]])
    canvas = np.empty_like(img)
    canvas[:] = np.median(ring, axis=0).astype(img.dtype)
    canvas[lo:hi, lo:hi] = inner
    if not len(pts):
        return canvas, pts
    inside = (pts[:, 0] >= lo) & (pts[:, 0] < hi) & (pts[:, 1] >= lo) & (pts[:, 1] < hi)
    return canvas, np.where(inside[:, None], pts, np.full(2, -10.0 * out))


def loss_fn(pred: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    heat = tgt[:, 0]
    p = torch.sigmoid(pred[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = (heat >= 1.0).float()
    npos = pos.sum().clamp(min=1.0)
    neg = tgt[:, 6]  # make_example's weight of "no die centre here"
    focal = -(pos * (1 - p) ** 2 * torch.log(p) + (1 - pos) * neg * (1 - heat) ** 4 * p**2 * torch.log(1 - p)).sum()
    focal = focal / npos
    ms, mo = tgt[:, 4], tgt[:, 5]
    size = (F.smooth_l1_loss(pred[:, 1], tgt[:, 1], reduction="none") * ms).sum() / ms.sum().clamp(min=1.0)
    off = ((pred[:, 2:4] - tgt[:, 2:4]).abs() * mo[:, None]).sum() / mo.sum().clamp(min=1.0)
    return focal + size + off


class Exportable(torch.nn.Module):
    """BGR 0..255 in, raw maps out (centre logit, log side, offsets): normalisation travels inside the ONNX."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.net((x - 127.5) / 64.0)
        return out


class ExampleSet(torch.utils.data.Dataset[tuple[np.ndarray, np.ndarray]]):
    """Item k: a random training patch drawn with its own seed, the same whatever the number of loader workers."""

    def __init__(self, samples: list[Sample], n: int, seed: int, out: int, weights: np.ndarray | None = None) -> None:
        self.samples, self.n, self.seed, self.out = samples, n, seed, out
        w = np.ones(len(samples)) if weights is None else np.asarray(weights, np.float64)
        self.cdf = np.cumsum(w) / w.sum()  # drawn by weight: photos may count more than the renders that outnumber them

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng((self.seed, int(k)))
        return make_example(self.samples[self.pick(rng)], rng, self.out)

    def pick(self, rng: np.random.Generator) -> int:
        return min(int(np.searchsorted(self.cdf, rng.random(), side="right")), len(self.samples) - 1)


def from_onnx(path: Path) -> Detector:
    """An exported detector back as a torch module (batch norms folded), reading exactly as the file does."""
    proto = onnx.load(str(path))
    refuse_int8(proto, path, "fine-tune")
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in proto.graph.initializer}
    convs = [(weights[n.input[1]], weights[n.input[2]]) for n in proto.graph.node if n.op_type == "Conv"]
    width = tuple(int(convs[k][0].shape[0]) for k in (0, 1, 3, 5, 7))
    net = Detector(width, folded=True)
    layers = [m for m in net.modules() if isinstance(m, nn.Conv2d)]  # in the order the graph runs them
    if len(layers) != len(convs):
        raise ValueError(f"{path} has {len(convs)} convolutions, the detector {len(layers)}.")
    with torch.no_grad():
        for conv, (w, b) in zip(layers, convs, strict=True):
            conv.weight.copy_(w)
            cast(torch.Tensor, conv.bias).copy_(b)
    return net


def train(
    samples: list[Sample],
    iters: int,
    seed: int,
    batch: int = 16,
    out: int = 192,
    log: bool = True,
    device: str = "cpu",
    workers: int = 0,
    lr: float = 3e-3,
    init: Path | None = None,
    photo_weight: float = 1.0,
    phase: Phase | None = None,
    val: list[Sample] | None = None,
    arch: str = "tiny",
) -> nn.Module:
    """``init``: an exported detector to fine-tune instead of starting afresh; ``photo_weight``: how much more often a
    photo is drawn than a render; ``phase``: where to checkpoint and resume from; ``val``: validation images, whose
    loss on 128 fixed patches the progress lines show."""
    torch.manual_seed(seed)
    net: nn.Module
    if arch == "lite0":
        net = LiteDetector()
        if init is None:
            load_imagenet(net)
        else:  # a run's checkpoint (its model as exported: "net." before each name) or the net's own weights
            ck = torch.load(str(init), map_location="cpu", weights_only=False)
            weights = ck.get("model", ck)
            net.load_state_dict({k.removeprefix("net."): v for k, v in weights.items()})
    elif arch == "tiny":
        net = from_onnx(init) if init else Detector()
    else:
        raise ValueError(f"unknown detector {arch!r}: tiny or lite0.")
    model = Exportable(net).to(device)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=iters, pct_start=0.1)
    data = ExampleSet(samples, iters * batch, seed, out, np.array([source_weight(s, photo_weight) for s in samples]))

    def step(xt: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, None]:
        return loss_fn(model(xt[0].to(device, non_blocking=True)), xt[1].to(device, non_blocking=True)), None

    held = ExampleSet(val, 128, seed + 1, out) if val else None
    fixed = [held[k] for k in range(len(held))] if held else []

    def validate() -> str:
        with torch.no_grad():
            x = torch.from_numpy(np.stack([f[0] for f in fixed])).to(device)
            t = torch.from_numpy(np.stack([f[1] for f in fixed])).to(device)
            return f"loss {float(loss_fn(model(x), t)):.3f}"

    run_phase(
        phase or Phase(None, "detector"),
        model,
        opt,
        sched,
        data,
        batch,
        iters,
        step,
        workers,
        device,
        log,
        validate=validate if fixed else None,
    )
    net.cpu().eval()  # in place: the module itself, typed as ours
    return net
