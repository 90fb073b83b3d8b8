"""The three-dice hands of the board game (RULES.md ``board``, rule 3) and how two row sides compare.

A row side holds at most three dice. Its strength is a :class:`RowHand` whose ``key`` (a tuple of
ints) is the only thing compared, so ranking is plain ``<``; labels ride along outside the comparison.
Partial sides (one or two dice) get a hand too, for the "what would this placement make" help.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from companion.dice import DiceKind, face_label
from companion.errors import MalformedInput

__all__ = ["ROW_DICE", "Category", "RowHand", "compare_reason", "rank_row"]

ROW_DICE = 3


class Category(IntEnum):
    """Rule 3: three alike > straight > pair > single; the value is the first element of every key."""

    SINGLE = 0
    PAIR = 1
    STRAIGHT = 2
    THREE_OF_A_KIND = 3


CATEGORY_IDS: dict[Category, str] = {
    Category.SINGLE: "single",
    Category.PAIR: "pair",
    Category.STRAIGHT: "straight",
    Category.THREE_OF_A_KIND: "three_of_a_kind",
}
LABELS_DE: dict[Category, str] = {
    Category.SINGLE: "Höchster Würfel",
    Category.PAIR: "Paar",
    Category.STRAIGHT: "Straße",
    Category.THREE_OF_A_KIND: "Drilling",
}
LABELS_EN: dict[Category, str] = {
    Category.SINGLE: "Single",
    Category.PAIR: "Pair",
    Category.STRAIGHT: "Straight",
    Category.THREE_OF_A_KIND: "Three of a kind",
}
_ARTICLE_EN: dict[Category, str] = {
    Category.SINGLE: "a single",
    Category.PAIR: "a pair",
    Category.STRAIGHT: "a straight",
    Category.THREE_OF_A_KIND: "three of a kind",
}


@dataclass(frozen=True, order=True)
class RowHand:
    """One row side's dice as a comparable value: only ``key`` takes part in ``<`` and ``==``."""

    key: tuple[int, ...]
    category: Category = field(compare=False)
    dice: tuple[int, ...] = field(compare=False)  # high to low
    kind: DiceKind = field(default=DiceKind.PIP, compare=False)

    @property
    def complete(self) -> bool:
        return len(self.dice) == ROW_DICE

    def text_en(self) -> str:
        """A short English description that names the dice, e.g. ``pair of 5s with a 3``."""
        f = [face_label(v, self.kind) for v in self.dice]
        if not f:
            return "no dice"
        if self.category is Category.THREE_OF_A_KIND:
            return f"three {f[0]}s"
        if self.category is Category.STRAIGHT:
            return f"straight {'-'.join(reversed(f))}"
        if self.category is Category.PAIR:
            pair = face_label(self.key[1], self.kind)
            odd = [x for x in f if x != pair]
            return f"pair of {pair}s" + (f" with a {odd[0]}" if odd else "")
        return "-".join(f)

    def to_json(self) -> dict[str, Any]:
        return {
            "category": CATEGORY_IDS[self.category],
            "label": LABELS_DE[self.category],
            "label_en": LABELS_EN[self.category],
            "points": None,
            "key": list(self.key),
            "sorted": list(self.dice),
            "faces": [face_label(v, self.kind) for v in self.dice],
            "text_en": self.text_en(),
            "complete": self.complete,
        }


def rank_row(values: Sequence[int], kind: DiceKind = DiceKind.PIP) -> RowHand:
    """The hand of up to three dice (ranks 1-6).

    Keys: three alike ``(3, v)``; straight ``(2, top)`` (three consecutive values, no wrap);
    pair ``(1, pair, odd)``; single ``(0, high, ..., low)``. A side with fewer than three dice
    can only be a pair or a single so far.
    """
    if len(values) > ROW_DICE:
        raise MalformedInput("A row side holds {ROW_DICE} dice, not {count}.", ROW_DICE=ROW_DICE, count=len(values))
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise MalformedInput("A die has ranks 1 to 6, not {value}.", value=repr(v))
    dice = tuple(sorted(values, reverse=True))
    counts = Counter(dice)
    if len(dice) == ROW_DICE and len(counts) == 1:
        return RowHand((int(Category.THREE_OF_A_KIND), dice[0]), Category.THREE_OF_A_KIND, dice, kind)
    if len(dice) == ROW_DICE and len(counts) == ROW_DICE and dice[0] - dice[2] == 2:
        return RowHand((int(Category.STRAIGHT), dice[0]), Category.STRAIGHT, dice, kind)
    pairs = [v for v, c in counts.items() if c >= 2]
    if pairs:
        pair = pairs[0]
        odd = tuple(v for v in dice if v != pair)
        return RowHand((int(Category.PAIR), pair, *odd), Category.PAIR, dice, kind)
    return RowHand((int(Category.SINGLE), *dice), Category.SINGLE, dice, kind)


def compare_reason(winner: RowHand, loser: RowHand) -> tuple[str, str]:
    """Why ``winner`` beats ``loser`` (two complete, different hands): a reason code and an English sentence."""
    if winner.category != loser.category:
        return "category", f"{_ARTICLE_EN[winner.category]} beats {_ARTICLE_EN[loser.category]}"
    return "higher", f"{winner.text_en()} beats {loser.text_en()}"
