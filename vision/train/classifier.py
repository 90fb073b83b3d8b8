# mypy: disable-error-code="no-untyped-call"
"""Train the top-face classifier on crops around labelled dice, with background crops as the 13th class."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import cv2
import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn
from torch.nn import functional as F

from vision.classify import GREY, to_input
from vision.detect import session
from vision.reading import PRINTINGS
from vision.train import ensemble, lite0
from vision.train.augment import colour, far_die, perspective_jitter, similarity, stretch_aspect
from vision.train.data import BACKGROUND, CLASS_NAMES, Sample, rank_class, source_weight
from vision.train.models import Classifier
from vision.train.quantize import refuse_int8
from vision.train.state import Phase, run_phase

CROP = 64  # classifier input side: court letters on poker faces need more than 48 px
CONTEXT = 1.2  # crop side / die side, as the reader crops around a detection
# px the reader adds to a crop's side (metadata ``context_px``); training crops add it too, at each die's own size in
# its image, so a 20 px die is learnt at 1.6 x its side as it is read
CONTEXT_PX = 8.0
PATCH_DIE = 48  # die side inside a stored patch
# log of the crop's scale against the detector's side, drawn in training: off by -35..+30 % on one die in five
SIDE_JITTER = (-0.3, 0.35)
PATCH = 160


@dataclass
class Patch:
    img: np.ndarray  # PATCH x PATCH BGR, the die (or background spot) centred with side PATCH_DIE
    cls: int
    weight: float
    side: float  # the die's side in its own image (px): sets the crop margin


def patch_at(img: np.ndarray, cx: float, cy: float, side: float) -> np.ndarray:
    m = similarity(cx, cy, PATCH_DIE / max(side, 2.0), 0.0, False, PATCH)
    return cv2.warpAffine(img, m, (PATCH, PATCH), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def patches_from(
    samples: list[Sample], rng: np.random.Generator, neg_per_image: int = 3, photo_weight: float = 1.0
) -> list[Patch]:
    out: list[Patch] = []
    for s in samples:
        k = source_weight(s, photo_weight)
        h, w = s.img.shape[:2]
        for (cx, cy), side, c in zip(s.centres, s.sides, s.taught, strict=True):
            out.append(Patch(patch_at(s.img, cx, cy, side), int(c), k, side))
            # half off a die: a second peak on one die, or the gap between two touching dice
            a = rng.uniform(0, 2 * math.pi)
            d = rng.uniform(0.6, 1.0) * side
            x, y = cx + d * math.cos(a), cy + d * math.sin(a)
            if (np.hypot(*(s.centres - (x, y)).T) / np.maximum(s.sides, 1) > 0.5).all():
                out.append(Patch(patch_at(s.img, x, y, side), BACKGROUND, 0.5 * k, side))
        if s.side_spots is not None:  # a side face under a tilted camera: a face, but not the one on top
            for x, y, side in s.side_spots:
                out.append(Patch(patch_at(s.img, x, y, side), BACKGROUND, 0.5 * k, side))
        med = float(np.median(s.sides)) if len(s.sides) else max(h, w) / 12
        found = 0
        for _ in range(neg_per_image * 4):
            if found >= neg_per_image:
                break
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            if len(s.centres) and (np.hypot(*(s.centres - (x, y)).T) / np.maximum(s.sides, 1) < 1.1).any():
                continue
            side = med * math.exp(rng.uniform(-0.4, 0.4))
            out.append(Patch(patch_at(s.img, x, y, side), BACKGROUND, k, side))
            found += 1
    return out


def crop_context(side: float) -> float:
    """Crop side / die side as the reader crops a die of ``side`` px: 1.2 plus the margin, capped by the patch."""
    return min(CONTEXT + CONTEXT_PX / max(side, 2.0), 0.9 * PATCH / PATCH_DIE / math.exp(SIDE_JITTER[1]))


def make_crop(p: Patch, rng: np.random.Generator, train: bool = True) -> np.ndarray:
    c = PATCH / 2
    context = crop_context(p.side)
    if train:
        img, f = p.img, 1.0
        if far := far_die(p.img, p.side, PATCH_DIE, rng):
            img, side = far
            f, context = img.shape[0] / PATCH, crop_context(side)
        # the classifier must read the detector's mis-sized crops too
        scale = CROP / (context * PATCH_DIE * math.exp(rng.uniform(*SIDE_JITTER))) / f
        c_x, c_y = (c + rng.normal(0, 0.09 * PATCH_DIE, 2)) * f
        m = similarity(c_x, c_y, scale, rng.uniform(0, 360), bool(rng.random() < 0.5), CROP, stretch_aspect(rng))
        if rng.random() < 0.3:
            crop = cv2.warpPerspective(
                img,
                perspective_jitter(m, CROP, rng, 0.08),
                (CROP, CROP),
                flags=cv2.INTER_AREA,
                borderMode=cv2.BORDER_REPLICATE,
            )
        else:
            crop = cv2.warpAffine(img, m, (CROP, CROP), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        crop = colour(crop, rng, invert_p=0.1, motion_px=0.25 * CROP / CONTEXT)
    else:
        m = similarity(c, c, CROP / (context * PATCH_DIE), 0.0, False, CROP)
        crop = cv2.warpAffine(p.img, m, (CROP, CROP), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return crop


class CropSet(torch.utils.data.Dataset[tuple[np.ndarray, int]]):
    """Item ``epoch * n + k``: the k-th patch of that epoch's class-balanced draw, augmented with its own seed.

    Seeding per item makes a run the same whatever the number of loader workers.
    """

    def __init__(self, patches: list[Patch], epochs: int, seed: int, epoch_size: int = 0, channels: int = 1) -> None:
        self.channels = channels
        self.imgs = np.empty((len(patches), *patches[0].img.shape), np.uint8)
        for k, p in enumerate(patches):
            self.imgs[k] = p.img
            p.img = self.imgs[k]  # a view: each own copy goes at once, so the crops are held once (8 GB at 100k)
        self.labels = np.array([p.cls for p in patches], dtype=np.int64)
        self.sides = np.array([p.side for p in patches], dtype=np.float32)
        ranks = rank_class(self.labels)
        counts = np.bincount(ranks, minlength=BACKGROUND + 1).astype(np.float64)
        # balance faces: poker faces come only from renders, pip faces mostly from photos; a face's printings share
        # its weight as often as they are rendered
        w = np.array([p.weight for p in patches]) / np.maximum(counts[ranks], 1.0)
        rng = np.random.default_rng(seed)
        n = epoch_size or len(patches)
        self.order = np.stack([rng.choice(len(patches), n, p=w / w.sum()) for _ in range(epochs)])
        self.seed = seed

    def __len__(self) -> int:
        return int(self.order.size)

    def __getitem__(self, item: int) -> tuple[np.ndarray, int]:
        ep, k = divmod(int(item), self.order.shape[1])
        i = int(self.order[ep, k])
        rng = np.random.default_rng((self.seed, ep, k))
        crop = make_crop(Patch(self.imgs[i], int(self.labels[i]), 1.0, float(self.sides[i])), rng)
        return to_input(crop[None], self.channels)[0], int(self.labels[i])


def from_onnx(path: Path, channels: int | None = None) -> Classifier:
    """An exported classifier back as a torch module (batch norms folded), its head widened to all of CLASS_NAMES.

    A class the file lacks (a printing) starts as a copy of its face, a log-share lower, so that the face's merged
    probability is what it was: fine-tuning then only has to tell the printings apart. ``channels=3`` turns a grey
    model into a colour one that reads exactly as it did (its first layer weighs the channels as luma does), so that
    fine-tuning can learn what colour adds. From an ensemble (the bundled file since stop 36), its grey classifier;
    rebuild the ensemble after (``vision.train.ensemble``).
    """
    proto = onnx.load(str(path))
    refuse_int8(proto, path, "fine-tune")
    if ensemble.is_ensemble(proto):
        proto = ensemble.part(proto, "grey")
    names = json.loads({p.key: p.value for p in proto.metadata_props}["class_names"])
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in proto.graph.initializer}
    convs = [(weights[n.input[1]], weights[n.input[2]]) for n in proto.graph.node if n.op_type == "Conv"]
    gemm = next(n for n in proto.graph.node if n.op_type == "Gemm")
    head_w, head_b = weights[gemm.input[1]], weights[gemm.input[2]]
    width = (convs[0][0].shape[0], convs[1][0].shape[0], convs[3][0].shape[0], convs[5][0].shape[0])
    own = _input_channels(proto)
    channels = channels or own
    if channels != own:
        if (own, channels) != (1, 3):
            raise ValueError(f"{path} reads {own} channels; it can only be widened from grey to colour.")
        convs[0] = (convs[0][0] * torch.from_numpy(GREY)[None, :, None, None], convs[0][1])
    net = Classifier(len(CLASS_NAMES), width, folded=True, channels=channels)
    layers = [m for m in net.body if isinstance(m, nn.Sequential)]
    with torch.no_grad():
        for layer, (w, b) in zip(layers, convs, strict=True):
            conv = cast(nn.Conv2d, layer[0])
            conv.weight.copy_(w)
            cast(torch.Tensor, conv.bias).copy_(b)
        head = cast(nn.Linear, net.body[-1])
        ranks = rank_class(np.arange(len(CLASS_NAMES)))
        share = np.bincount(ranks, minlength=BACKGROUND + 1)
        widen = list(names) != list(CLASS_NAMES)
        for k, name in enumerate(CLASS_NAMES):
            src = names.index(name if name in names else PRINTINGS[name])
            head.weight[k] = head_w[src]
            head.bias[k] = head_b[src] - (math.log(share[ranks[k]]) if widen else 0.0)
    return net


def from_onnx_channels(path: Path) -> int:
    """How many channels an exported classifier reads (of an ensemble: its grey part, which ``from_onnx`` takes)."""
    proto = onnx.load(str(path))
    return 1 if ensemble.is_ensemble(proto) else _input_channels(proto)


def _input_channels(proto: onnx.ModelProto) -> int:
    channels = ensemble.input_shape(proto)[1]
    return channels if isinstance(channels, int) else 1


def build(
    arch: str,
    width: tuple[int, int, int, int] = (16, 32, 64, 96),
    channels: int | None = None,
    init: Path | None = None,
    blocks: int = lite0.ALL_BLOCKS,
    pretrained: bool = True,
) -> nn.Module:
    """A classifier to train: ``small`` (ours, from scratch or ``init``) or ``lite0`` (EfficientNet-Lite0's first
    ``blocks`` blocks, from ImageNet unless ``pretrained`` is False; colour unless ``channels`` says 1)."""
    if arch == "lite0":
        net = lite0.Lite0(len(CLASS_NAMES), blocks, channels or 3)
        if init is not None:
            # a later stage on other data (the renderer's rich bodies) goes on from a finished run's own weights
            if init.suffix == ".onnx":
                raise ValueError(f"a Lite0 run starts from a checkpoint (a state folder's classifier.pt), not {init}.")
            ck = torch.load(init, map_location="cpu", weights_only=False)
            try:
                net.load_state_dict(ck.get("model", ck))
            except RuntimeError as e:
                raise ValueError(
                    f"{init} is not a Lite0 of {blocks} blocks reading {channels or 3} channels: {e}"
                ) from None
        elif pretrained:
            lite0.load_imagenet(net)
        return net
    if arch != "small":
        raise ValueError(f"unknown classifier {arch!r}: small or lite0.")
    return from_onnx(init, channels) if init else Classifier(len(CLASS_NAMES), width, channels=channels or 1)


def first_conv(net: nn.Module) -> nn.Conv2d:
    return next(m for m in net.modules() if isinstance(m, nn.Conv2d))


def in_channels(net: nn.Module) -> int:
    """1 for a grey model, 3 for a colour one."""
    return int(first_conv(net).in_channels)


def val_crops(patches: list[Patch], limit: int = 3000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Held-back crops, cut as the reader cuts them (no augmentation), for the progress lines' validation figure."""
    rng = np.random.default_rng(seed)
    pick = rng.permutation(len(patches))[:limit]
    crops = np.stack([make_crop(patches[k], rng, train=False) for k in pick])
    return crops, np.array([patches[k].cls for k in pick], np.int64)


def accuracy(net: nn.Module, crops: np.ndarray, labels: np.ndarray, batch: int = 500) -> float:
    """Share of crops read as the right face (printings as their face), one view."""
    x = to_input(crops, in_channels(net))
    with torch.no_grad():
        pred = np.concatenate(
            [net(torch.from_numpy(x[k : k + batch])).argmax(1).numpy() for k in range(0, len(x), batch)]
        )
    return float((rank_class(pred) == rank_class(labels)).mean())


def train(
    patches: list[Patch],
    epochs: int,
    seed: int,
    batch: int = 128,
    log: bool = True,
    width: tuple[int, int, int, int] = (16, 32, 64, 96),
    device: str = "cpu",
    workers: int = 0,
    lr: float = 4e-3,
    init: Path | None = None,
    epoch_size: int = 0,
    channels: int | None = None,
    arch: str = "small",
    blocks: int = lite0.ALL_BLOCKS,
    phase: Phase | None = None,
    val: tuple[np.ndarray, np.ndarray] | None = None,
    pretrained: bool = True,
    teacher: Path | None = None,
    distill: float = 0.5,
    partner: Path | None = None,
    partner_share: float = 0.4,
    partner_mix: float = 1.0,
) -> nn.Module:
    """``init``: an exported model to fine-tune instead of starting afresh; ``epoch_size``: crops per epoch (0: one
    per patch); ``channels``: 1 for grey crops, 3 for colour (default: as ``init`` reads, else grey for ``small`` and
    colour for ``lite0``); ``phase``: where to checkpoint and resume from (``Stopped`` at its ``stop_after``);
    ``val``: crops and labels whose accuracy the progress lines show; ``teacher``: an ONNX classifier (the bundled
    pair) whose softened logits the net also learns, ``distill`` of the loss, where the teacher reads the label's
    face (``distilled_loss``); ``partner``: the ONNX classifier this net will be joined with (the grey member), whose
    logits count ``partner_share`` in the logits the loss is taken of, as the joined file reads
    (``vision.train.ensemble``): the net learns what the pair gets wrong, not what the partner already reads;
    ``partner_mix``: that joined loss's share, the rest the net's own (``partnered_loss``)."""
    torch.manual_seed(seed)
    net = build(arch, width, channels, init, blocks, pretrained)
    net.to(device)
    data = CropSet(patches, epochs, seed, epoch_size, in_channels(net))
    steps = math.ceil(len(data) / batch)
    first = first_conv(net)
    rest = [p for p in net.parameters() if all(p is not q for q in first.parameters())]
    # a grey model widened to colour has no colour in its first layer yet: it learns it ten times faster
    boost = 10.0 if init and init.suffix == ".onnx" and channels == 3 and from_onnx_channels(init) == 1 else 1.0
    groups = [{"params": list(first.parameters()), "lr": lr * boost}, {"params": rest, "lr": lr}]
    opt = torch.optim.AdamW(groups, lr=lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[lr * boost, lr], total_steps=steps, pct_start=0.15)

    teach = Teacher(teacher, net_classes=len(CLASS_NAMES)) if teacher is not None else None
    joined = Teacher(partner, net_classes=len(CLASS_NAMES)) if partner is not None else None
    if not 0.0 < partner_share < 1.0:
        raise ValueError(f"the partner's share of the joined logits is between 0 and 1, not {partner_share}.")
    if not 0.0 <= partner_mix <= 1.0:
        raise ValueError(f"the joined loss's share is between 0 and 1, not {partner_mix}.")

    def step(xy: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, float]:
        x, y = xy[0].to(device, non_blocking=True), xy[1].to(device, non_blocking=True)
        logits = net(x)
        if joined is not None:
            other = torch.from_numpy(joined(xy[0].numpy())).to(device)
            both = (1.0 - partner_share) * logits + partner_share * other
            acc = float((both.argmax(1) == y).float().mean())
            return partnered_loss(logits, both, y, partner_mix), acc
        acc = float((logits.argmax(1) == y).float().mean())
        if teach is None:
            return F.cross_entropy(logits, y, label_smoothing=0.05), acc
        t = torch.from_numpy(teach(xy[0].numpy())).to(device)
        return distilled_loss(logits, y, t, distill), acc

    def validate() -> str:
        assert val is not None
        return f"{accuracy(net.cpu(), *val):.4f}" if device == "cpu" else f"{accuracy(net, *val):.4f}"

    run_phase(
        phase or Phase(None, "classifier"),
        net,
        opt,
        sched,
        data,
        batch,
        steps,
        step,
        workers=workers,
        device=device,
        log=log,
        log_every=max(1, data.order.shape[1] // batch // 4),
        validate=validate if val is not None and device == "cpu" else None,
    )
    net.cpu().eval()  # in place: the module itself, typed as ours
    return net


def partnered_loss(own: torch.Tensor, joined: torch.Tensor, y: torch.Tensor, mix: float) -> torch.Tensor:
    """``mix`` x the cross-entropy of the joined logits + ``1 - mix`` x the net's own: the joined loss alone moved
    the colour member's court letters onto a lone pip on a clear body (stage 20, vision-log), so part of the loss
    keeps it reading alone what it read alone."""
    loss = mix * F.cross_entropy(joined, y, label_smoothing=0.05)
    if mix < 1.0:
        loss = loss + (1.0 - mix) * F.cross_entropy(own, y, label_smoothing=0.05)
    return loss


DISTILL_T = 2.0  # the softening of both nets' logits in the distilled term (Hinton et al.'s T)


class Teacher:
    """An exported classifier (the bundled pair) run by onnxruntime on the training crops: the net learns what the
    pair reads where the pair reads the face the label says (issue 59: the colour member alone loses court letters in
    crowds and tilted steel dice that the pair reads, and the pair costs twice the time a frame)."""

    def __init__(self, path: Path, net_classes: int) -> None:
        self.sess = session(path)  # the reader's own settings: it runs between the net's steps, not beside them
        meta = self.sess.get_modelmeta().custom_metadata_map
        names = json.loads(meta["class_names"])
        if names != list(CLASS_NAMES[: len(names)]):
            raise ValueError(f"{path}: the teacher's classes {names} are not the net's {CLASS_NAMES}.")
        self.classes, self.net_classes = len(names), net_classes
        self.input = self.sess.get_inputs()[0].name
        self.channels = int(self.sess.get_inputs()[0].shape[1])

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Logits over the net's classes; a class the teacher lacks gets a logit far below the rest. A grey file
        reads a colour net's crops as their luma-weighted sum, which is its own input exactly (``to_input``)."""
        if self.channels == 1 and x.shape[1] == 3:
            x = np.einsum("c,nchw->nhw", GREY, x)[:, None]
        if x.shape[1] != self.channels:
            raise ValueError(f"the teacher reads {self.channels}-channel crops, the net {x.shape[1]}.")
        z = np.asarray(self.sess.run(None, {self.input: np.ascontiguousarray(x, np.float32)})[0], np.float32)
        if self.classes < self.net_classes:
            pad = np.full((len(z), self.net_classes - self.classes), z.min() - 30.0, np.float32)
            z = np.concatenate([z, pad], axis=1)
        return z


def distilled_loss(logits: torch.Tensor, y: torch.Tensor, teacher: torch.Tensor, share: float) -> torch.Tensor:
    """``(1 - share)`` x the labels' cross-entropy + ``share`` x T^2 x KL(teacher || net) at temperature T, the second
    only on crops whose teacher reads the label's rank (face or background): a teacher wrong about a crop teaches
    nothing of it, so the phantoms the pair reads as dice are taught by their labels alone."""
    hard = F.cross_entropy(logits, y, label_smoothing=0.05)
    right = torch.from_numpy(rank_class(teacher.argmax(1).cpu().numpy()) == rank_class(y.cpu().numpy())).to(
        logits.device
    )
    if not bool(right.any()):
        return hard
    t = DISTILL_T
    soft = (
        F.kl_div(
            F.log_softmax(logits[right] / t, dim=1),
            F.log_softmax(teacher[right] / t, dim=1),
            log_target=True,
            reduction="batchmean",
        )
        * (t * t)
        * (float(right.sum()) / len(y))
    )
    return (1.0 - share) * hard + share * soft
