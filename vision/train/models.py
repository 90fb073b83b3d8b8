"""The two small networks: a centre-heatmap die detector and a top-face crop classifier."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


def cbr(cin: int, cout: int, stride: int = 1, k: int = 3) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


def cr(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    """A convolution with its batch norm folded in, as an exported model holds it: for fine-tuning from ONNX."""
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1), nn.Identity(), nn.ReLU(inplace=True))


class Detector(nn.Module):
    """Tiny U-Net to stride 4: channel 0 die-centre logit, 1 log side (input px), 2-3 centre offset in cells.

    ``folded``: batch norms folded into the convolutions, as an exported model holds them (for fine-tuning it).
    """

    def __init__(self, w: tuple[int, ...] = (12, 20, 32, 48, 64), folded: bool = False) -> None:
        super().__init__()
        block = cr if folded else cbr
        self.stem = nn.Sequential(block(3, w[0], 2), block(w[0], w[1], 2), block(w[1], w[1]))  # /4
        self.d8 = nn.Sequential(block(w[1], w[2], 2), block(w[2], w[2]))
        self.d16 = nn.Sequential(block(w[2], w[3], 2), block(w[3], w[3]))
        self.d32 = nn.Sequential(block(w[3], w[4], 2), block(w[4], w[4]))
        self.l16 = nn.Conv2d(w[4], w[3], 1)
        self.u16 = block(w[3], w[3])
        self.l8 = nn.Conv2d(w[3], w[2], 1)
        self.u8 = block(w[2], w[2])
        self.l4 = nn.Conv2d(w[2], w[1], 1)
        self.u4 = block(w[1], w[1])
        self.head = nn.Conv2d(w[1], 4, 1)
        bias = torch.zeros(4)
        bias[0] = -4.0  # start from "no die anywhere": the focal loss is stable from the first step
        self.head.bias = nn.Parameter(bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s4 = self.stem(x)
        s8 = self.d8(s4)
        s16 = self.d16(s8)
        s32 = self.d32(s16)
        u = self.u16(s16 + F.interpolate(self.l16(s32), size=s16.shape[2:], mode="nearest"))
        u = self.u8(s8 + F.interpolate(self.l8(u), size=s8.shape[2:], mode="nearest"))
        u = self.u4(s4 + F.interpolate(self.l4(u), size=s4.shape[2:], mode="nearest"))
        out: torch.Tensor = self.head(u)
        return out


class Classifier(nn.Module):
    """Crop (grey 1xSxS or colour 3xSxS, standardised) to logits over the 12 faces, background and printings."""

    def __init__(
        self,
        n_classes: int = 13,
        w: tuple[int, int, int, int] = (16, 32, 64, 96),
        folded: bool = False,
        channels: int = 1,
    ) -> None:
        super().__init__()
        block = cr if folded else cbr
        self.body = nn.Sequential(
            block(channels, w[0]),
            nn.MaxPool2d(2),
            block(w[0], w[1]),
            block(w[1], w[1]),
            nn.MaxPool2d(2),
            block(w[1], w[2]),
            block(w[2], w[2]),
            nn.MaxPool2d(2),
            block(w[2], w[3]),
            block(w[3], w[3]),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.1),
            nn.Linear(w[3], n_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.body(x)
        return out
