"""The one output type of the reader: evidence about every die found, never a decision.

The person confirms or corrects; only a confirmed throw enters a game (``to_throw``), so the
rules engine never sees numpy or boxes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

PIP_FACES = ("1", "2", "3", "4", "5", "6")
POKER_FACES = ("9", "10", "J", "Q", "K", "A")
KINDS = ("pip", "poker")
# court letters other than the English J, Q, K, and the face each stands for (../shared/guide/POKER-DICE.md)
PRINTINGS = {"B": "J", "V": "J", "D": "Q", "R": "K"}


def face_label(face: str, printed: str | None) -> str:
    """How a die is labelled for people: its face, or ``D=Q`` where another printing of that face was read."""
    return f"{printed}={face}" if printed and printed != face else face


class ImageError(ValueError):
    """The input is not an image the reader can use (corrupt, empty, not an image, too large)."""


@dataclass(frozen=True)
class Die:
    """One die's top face as read: printed face, rank 1..6, calibrated confidence, box in image pixels."""

    face: str
    value: int
    confidence: float
    box: tuple[int, int, int, int]
    uncertain: bool
    kind: str = "pip"
    printed: str | None = None  # the letter actually printed when it differs from ``face`` ("D" read as Q)
    # what was assumed to give the throw its count (vision/count.py): "added", a candidate under the reader's bar
    # taken because a die was missing; None for a die the reader reported itself
    assumed: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Die kind must be one of {KINDS}, not {self.kind!r}.")
        faces = PIP_FACES if self.kind == "pip" else POKER_FACES
        if self.face not in faces:
            raise ValueError(f"A {self.kind} die has faces {faces}, not {self.face!r}.")
        if faces.index(self.face) + 1 != self.value:
            raise ValueError(f"Face {self.face!r} has rank {faces.index(self.face) + 1}, not {self.value}.")
        if self.printed is not None and self.printed != self.face and PRINTINGS.get(self.printed) != self.face:
            raise ValueError(f"{self.printed!r} is not a printing of face {self.face!r}.")
        if not (0.0 <= self.confidence <= 1.0) or math.isnan(self.confidence):
            raise ValueError(f"Confidence must lie in [0, 1], not {self.confidence!r}.")
        x0, y0, x1, y1 = self.box
        if not (x0 < x1 and y0 < y1):
            raise ValueError(f"A box is (x0, y0, x1, y1) with x0 < x1 and y0 < y1, not {self.box!r}.")

    @property
    def label(self) -> str:
        return face_label(self.face, self.printed)

    @staticmethod
    def from_json(data: dict[str, Any], kind: str) -> Die:
        """A die as ``to_json`` wrote it (a reading stored or passed between processes); ValueError where it is not."""
        try:
            x0, y0, x1, y1 = (int(v) for v in data["box"])
            return Die(
                str(data["face"]),
                int(data["value"]),
                float(data["confidence"]),
                (x0, y0, x1, y1),
                bool(data.get("uncertain", False)),
                kind,
                data.get("printed"),
                data.get("assumed"),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"Not a die: {data!r}.") from exc

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "face": self.face,
            "value": self.value,
            "confidence": round(self.confidence, 4),
            "box": list(self.box),
            "uncertain": self.uncertain,
        }
        if self.printed and self.printed != self.face:
            out["printed"] = self.printed
        if self.assumed:
            out["assumed"] = self.assumed
        return out


@dataclass(frozen=True)
class Reading:
    """All dice found in one image, plus what the reader wants the person to know (too dark, blurred...)."""

    kind: str
    dice: tuple[Die, ...]
    width: int
    height: int
    ms: float = 0.0
    warnings: tuple[str, ...] = field(default=())
    # candidates the reader did not report as dice (under its bar, off the dice's size), each read as its likeliest
    # face and flagged uncertain: where the game knows a die is missing, the surest of them is the best guess
    dropped: tuple[Die, ...] = field(default=(), compare=False, repr=False)
    # set by vision.count.fit_count when the game said how many dice were thrown: that count, the dice found beyond
    # it (left out of ``dice``, least likely first), how many places no die could fill, and why (short codes)
    count: int | None = None
    extra: tuple[Die, ...] = ()
    missing: int = 0
    assumed: tuple[str, ...] = ()
    # the side, in this image's pixels, of the dice in play where the game's memory knows it (issue 52): the count
    # weighs each die's size against it rather than against the other dice found (two halves of one die among them)
    played_side: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Reading kind must be one of {KINDS}, not {self.kind!r}.")
        if self.width <= 0 or self.height <= 0:
            raise ValueError(f"Image size must be positive, not {self.width}x{self.height}.")
        for die in self.dice:
            if die.kind != self.kind:
                raise ValueError(f"A {die.kind} die in a {self.kind} reading.")

    @property
    def uncertain(self) -> bool:
        return any(d.uncertain for d in self.dice)

    def to_throw(self) -> tuple[int, ...]:
        """The ranks, left to right, for a person to confirm."""
        return tuple(d.value for d in sorted(self.dice, key=lambda d: (d.box[0], d.box[1])))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "dice": [d.to_json() for d in self.dice],
            "width": self.width,
            "height": self.height,
            "ms": round(self.ms, 1),
            "warnings": list(self.warnings),
        }
        if self.played_side is not None:
            out["played_side"] = round(self.played_side, 1)
        if self.count is not None:
            out.update(
                count=self.count,
                extra=[d.to_json() for d in self.extra],
                missing=self.missing,
                assumed=list(self.assumed),
            )
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> Reading:
        """A reading as ``to_json`` wrote it, with ``dropped`` where given; ValueError where it is not one."""
        try:
            kind = str(data["kind"])
            dice = tuple(Die.from_json(d, kind) for d in data["dice"])
            count = data.get("count")
            return Reading(
                kind,
                dice,
                int(data["width"]),
                int(data["height"]),
                float(data.get("ms", 0.0)),
                tuple(str(w) for w in data.get("warnings", ())),
                tuple(Die.from_json(d, kind) for d in data.get("dropped", ())),
                None if count is None else int(count),
                tuple(Die.from_json(d, kind) for d in data.get("extra", ())),
                int(data.get("missing", 0)),
                tuple(str(a) for a in data.get("assumed", ())),
                None if data.get("played_side") is None else float(data["played_side"]),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"Not a reading: {exc}.") from exc

    @staticmethod
    def empty(kind: str, width: int, height: int, warnings: Sequence[str] = ()) -> Reading:
        return Reading(kind, (), width, height, 0.0, tuple(warnings))
