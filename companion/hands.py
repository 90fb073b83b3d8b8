"""Hand evaluation shared by the five-dice games (classic, bone, pokerdice).

A hand's strength is a frozen :class:`HandRank` that compares by its ``key`` only (labels and
points ride along, excluded from comparison), so ranking hands is just ``<``. Keys always have six
ints: the category's level in the game's order, then the tie-break values of guide/RULES.md "Hand
comparison" (groups by size, then value; leftovers high to low; straights by their top die),
padded with zeros. Keys compare only within one game and one set of house rules.

A game's way of ranking is the frozen :class:`HandRules` value; :func:`evaluate` is cached on it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from companion.errors import MalformedInput

__all__ = [
    "BONE",
    "CLASSIC",
    "CLASSIC_POINTS",
    "POKERDICE",
    "Category",
    "HandRank",
    "HandRules",
    "categories",
    "evaluate",
    "parse_points_table",
]

KEY_LENGTH = 6


@dataclass(frozen=True)
class Category:
    """One category of a game: id, German and English label, and points where the game has them."""

    id: str
    label: str
    label_en: str
    points: int | None = None


@dataclass(frozen=True, order=True)
class HandRank:
    """How good a hand is. Ordering and equality use ``key`` alone."""

    key: tuple[int, ...]
    category: str = field(compare=False)
    label: str = field(compare=False)
    label_en: str = field(compare=False)
    points: int | None = field(default=None, compare=False)
    stands_for: tuple[int, ...] | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "category": self.category,
            "label": self.label,
            "label_en": self.label_en,
            "points": self.points,
            "key": list(self.key),
        }
        if self.stands_for is not None:
            out["stands_for"] = list(self.stands_for)
        return out


@dataclass(frozen=True)
class HandRules:
    """A game's ranking as data: which game's categories, the classic house rules, and a point table.

    ``points`` maps category ids to points (None: the game scores no points in this mode).
    """

    game: str = "classic"
    ace_joker: bool = False
    gap_straight: bool = False
    straight_above_full_house: bool = False
    points: tuple[tuple[str, int], ...] | None = None

    def __post_init__(self) -> None:
        if self.game not in _CATEGORIES:
            raise MalformedInput("There is no hand ranking for game {game}.", game=repr(self.game))
        if self.game != "classic" and (self.ace_joker or self.gap_straight or self.straight_above_full_house):
            raise MalformedInput("The house rules of hand ranking belong to the classic game only.")


# Categories of each game, lowest first (the default order; classic's house rule reorders).
_CATEGORIES: dict[str, tuple[Category, ...]] = {
    "classic": (
        Category("nothing", "Nichts", "Nothing"),
        Category("pair", "Paar", "Pair"),
        Category("two_pairs", "Zwei Paare", "Two pairs"),
        Category("three", "Drilling", "Three of a kind"),
        Category("small_straight", "Kleine Straße", "Small straight"),
        Category("large_straight", "Große Straße", "Large straight"),
        Category("full_house", "Full House", "Full house"),
        Category("four", "Poker", "Four of a kind (Poker)"),
        Category("five", "Grande", "Five of a kind (Grande)"),
    ),
    "bone": (
        Category("high", "Höchster Wert", "High die", 5),
        Category("pair", "Ein Paar", "One pair", 10),
        Category("two_pairs", "Zwei Paare", "Two pairs", 15),
        Category("three", "Drilling", "Three of a kind", 20),
        Category("small_straight", "Kleine Straße", "Small straight", 25),
        Category("large_straight", "Große Straße", "Large straight", 30),
        Category("full_house", "Full House", "Full house", 35),
        Category("four", "Vier Gleiche", "Four of a kind", 40),
        Category("five", "Fünf Gleiche", "Five of a kind", 50),
    ),
    "pokerdice": (
        Category("high", "Höchster Würfel", "High Die"),
        Category("pair", "Ein Paar", "One Pair"),
        Category("two_pairs", "Zwei Paare", "Two Pair"),
        Category("three", "Drilling", "Three of a Kind"),
        Category("straight", "Straße", "Straight"),
        Category("full_house", "Full House", "Full House"),
        Category("four", "Vier Gleiche", "Four of a Kind"),
        Category("five", "Fünf Gleiche", "Five of a Kind"),
    ),
}

# classic rule 5: Grande 50, Poker 40, Full House 30, Große Straße 25, Kleine Straße 20, Drilling 15,
# Zwei Paare 10, Paar 5, Nichts 0 (listed high to low, as the rule text and the setting write it).
CLASSIC_POINTS_ORDER: tuple[str, ...] = (
    "five",
    "four",
    "full_house",
    "large_straight",
    "small_straight",
    "three",
    "two_pairs",
    "pair",
    "nothing",
)
CLASSIC_POINTS: tuple[tuple[str, int], ...] = tuple(
    zip(CLASSIC_POINTS_ORDER, (50, 40, 30, 25, 20, 15, 10, 5, 0), strict=True)
)


def parse_points_table(text: str) -> tuple[tuple[str, int], ...]:
    """The classic points-table setting: nine whole numbers, Grande first, Nichts last."""
    parts = [p for p in text.replace(",", " ").replace(";", " ").split() if p]
    if len(parts) != len(CLASSIC_POINTS_ORDER):
        raise MalformedInput(
            "The points table needs 9 numbers (Grande, Poker, Full House, Große Straße, Kleine Straße, Drilling, "
            "Zwei Paare, Paar, Nichts), not {count}.",
            count=len(parts),
        )
    values: list[int] = []
    for part in parts:
        try:
            value = int(part)
        except ValueError:
            raise MalformedInput("The points table holds whole numbers only, not {part}.", part=repr(part)) from None
        if value < 0:
            raise MalformedInput("Points in the table cannot be negative ({value}).", value=value)
        values.append(value)
    return tuple(zip(CLASSIC_POINTS_ORDER, values, strict=True))


def categories(rules: HandRules) -> tuple[Category, ...]:
    """The game's categories in rank order, lowest first, with points from ``rules`` where it has them."""
    cats = list(_CATEGORIES[rules.game])
    if rules.game == "classic" and rules.straight_above_full_house:
        ids = [c.id for c in cats]
        full = cats.pop(ids.index("full_house"))
        cats.insert([c.id for c in cats].index("small_straight"), full)
    if rules.points is not None:
        table = dict(rules.points)
        cats = [Category(c.id, c.label, c.label_en, table.get(c.id, c.points)) for c in cats]
    elif rules.game == "classic":
        cats = [Category(c.id, c.label, c.label_en, None) for c in cats]
    return tuple(cats)


def _groups(dice: Sequence[int]) -> list[tuple[int, int]]:
    """(count, value) pairs, bigger groups first, then higher values."""
    return sorted(((n, v) for v, n in Counter(dice).items()), reverse=True)


def _natural(dice: tuple[int, ...], rules: HandRules) -> tuple[str, tuple[int, ...], bool]:
    """Category id and tie-break values of dice taken at face value; the flag marks a gap straight."""
    groups = _groups(dice)
    shape = tuple(n for n, _ in groups)
    by_group = tuple(v for _, v in groups)
    values = set(dice)
    if shape == (5,):
        return "five", by_group, False
    if shape == (4, 1):
        return "four", by_group, False
    if shape == (3, 2):
        return "full_house", by_group, False
    if rules.game == "classic":
        if values == {2, 3, 4, 5, 6}:
            return "large_straight", (6,), False
        if values == {1, 2, 3, 4, 5}:
            return "small_straight", (5,), False
        if rules.gap_straight and values == {1, 2, 3, 4, 6}:
            return "small_straight", (0,), True
    elif rules.game == "pokerdice":
        if values in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}):
            return "straight", (max(values),), False
    else:  # bone: five in a row is a Große Straße, four in a row a Kleine Straße (rule 1)
        if values in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}):
            return "large_straight", (max(values),), False
        for top in (6, 5, 4):
            run = set(range(top - 3, top + 1))
            if run <= values:
                rest = list(dice)
                for v in run:
                    rest.remove(v)
                return "small_straight", (top, rest[0]), False
    if shape == (3, 1, 1):
        return "three", by_group, False
    if shape == (2, 2, 1):
        return "two_pairs", by_group, False
    if shape == (2, 1, 1, 1):
        return "pair", by_group, False
    return ("nothing" if rules.game == "classic" else "high"), by_group, False


def _rank(dice: tuple[int, ...], rules: HandRules, cats: tuple[Category, ...]) -> HandRank:
    cat_id, tiebreak, gap = _natural(dice, rules)
    level = next(i for i, c in enumerate(cats, start=1) if c.id == cat_id)
    cat = cats[level - 1]
    key = (level, *tiebreak) + (0,) * (KEY_LENGTH - 1 - len(tiebreak))
    label, label_en = cat.label, cat.label_en
    if gap:
        label, label_en = f"{label} (mit Lücke)", f"{label_en} (with a gap)"
    return HandRank(key, cat.id, label, label_en, cat.points)


@lru_cache(maxsize=4096)
def _evaluate_sorted(dice: tuple[int, ...], rules: HandRules) -> HandRank:
    cats = categories(rules)
    if not rules.ace_joker:
        return _rank(dice, rules, cats)
    # classic house rule: each 6 stands for whatever makes the best hand; the values it stands for
    # then decide ties (6-6-3-3-3 is a Grande of threes and loses to 4-4-4-4-4).
    plain = tuple(d for d in dice if d != 6)
    best: HandRank | None = None
    best_dice: tuple[int, ...] = dice
    for joker in itertools.combinations_with_replacement(range(1, 7), len(dice) - len(plain)):
        as_dice = tuple(sorted(plain + joker, reverse=True))
        candidate = _rank(as_dice, rules, cats)
        if best is None or candidate > best:
            best, best_dice = candidate, as_dice
    assert best is not None
    return HandRank(best.key, best.category, best.label, best.label_en, best.points, best_dice)


def evaluate(dice: Sequence[int], rules: HandRules) -> HandRank:
    """Rank five dice (ranks 1..6) under ``rules``; anything else is refused by name."""
    if len(dice) != 5:
        raise MalformedInput("A hand has 5 dice, not {count}.", count=len(dice))
    for d in dice:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise MalformedInput("A die shows 1 to 6, not {value}.", value=repr(d))
    return _evaluate_sorted(tuple(sorted(dice, reverse=True)), rules)


CLASSIC = HandRules("classic")
BONE = HandRules("bone")
POKERDICE = HandRules("pokerdice")
