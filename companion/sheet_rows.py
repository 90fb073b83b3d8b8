"""The rows of the Würfelpoker score sheet and what a throw gives in each (RULES.md `sheet`, rules 3-5).

Kept apart from the game state so ``becher hand``, the options of a turn and the fold all use one
scorer. Everything here is a pure function of the five dice (ranks 1..6); poker dice score by rank.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from companion.errors import MalformedInput

__all__ = [
    "COMBINATION_ROWS",
    "ROWS",
    "ROW_IDS",
    "SCHULE_ROWS",
    "Effect",
    "Result",
    "Row",
    "RowKind",
    "combination_points",
    "effect",
    "row_by_id",
    "schule_needs",
]

DICE = 5
SCHULE_CLOSE = 3


class RowKind(StrEnum):
    SCHULE = "schule"
    COMBINATION = "combination"
    SUMME = "summe"


@dataclass(frozen=True)
class Row:
    """One row of the sheet. ``number`` is the Schule number (0 for the others)."""

    id: str
    kind: RowKind
    label_de: str
    label_en: str
    number: int = 0

    @property
    def is_schule(self) -> bool:
        return self.kind is RowKind.SCHULE

    @property
    def has_row_bonus(self) -> bool:
        """Every row but the Summe has a row bonus (rule 7; the text: "Die Summe hat keinen Zeilenbonus")."""
        return self.kind is not RowKind.SUMME

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"id": self.id, "kind": self.kind.value, "label_de": self.label_de}
        out["label_en"] = self.label_en
        if self.is_schule:
            out["number"] = self.number
        return out


SCHULE_ROWS: tuple[Row, ...] = tuple(
    Row(f"schule_{n}", RowKind.SCHULE, f"Schule {n}", f"School {n}", n) for n in range(1, 7)
)
COMBINATION_ROWS: tuple[Row, ...] = (
    Row("paar", RowKind.COMBINATION, "Paar", "Pair"),
    Row("drilling", RowKind.COMBINATION, "Drilling", "Three of a kind"),
    Row("zwei_paare", RowKind.COMBINATION, "Zwei Paare", "Two pairs"),
    Row("full_house", RowKind.COMBINATION, "Full House", "Full house"),
    Row("vierling", RowKind.COMBINATION, "Vierling", "Four of a kind"),
    Row("fuenfling", RowKind.COMBINATION, "Fünfling", "Five of a kind"),
    Row("kleine_strasse", RowKind.COMBINATION, "Kleine Straße", "Small straight"),
    Row("grosse_strasse", RowKind.COMBINATION, "Große Straße", "Large straight"),
    Row("summe", RowKind.SUMME, "Summe", "Sum"),
)
ROWS: tuple[Row, ...] = SCHULE_ROWS + COMBINATION_ROWS
ROW_IDS: tuple[str, ...] = tuple(r.id for r in ROWS)
_BY_ID = {r.id: r for r in ROWS}


def row_by_id(row_id: str) -> Row:
    try:
        return _BY_ID[row_id]
    except KeyError:
        raise MalformedInput(
            "There is no row {row_id} on the sheet; the rows are {rows}.", row_id=repr(row_id), rows=", ".join(ROW_IDS)
        ) from None


def _check(dice: Sequence[int]) -> Counter[int]:
    if len(dice) != DICE:
        raise MalformedInput("A throw has {DICE} dice, not {count}.", DICE=DICE, count=len(dice))
    if any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise MalformedInput("A die shows 1 to 6.")
    return Counter(dice)


def combination_points(row: Row, dice: Sequence[int]) -> int | None:
    """Undoubled points of a combination row (rule 4), or None when the dice do not make it.

    A combination counts only the dice it uses; a higher group serves a lower row (four of a kind
    holds a Drilling and a Paar; a full house holds two pairs), but five alike are no Full House.
    """
    counts = _check(dice)
    if row.is_schule:
        raise ValueError(f"{row.id} is a Schule row, not a combination")  # programming error, not input
    at_least = {k: sorted((v for v, c in counts.items() if c >= k), reverse=True) for k in (2, 3, 4, 5)}
    match row.id:
        case "paar":
            return 2 * at_least[2][0] if at_least[2] else None
        case "drilling":
            return 3 * at_least[3][0] if at_least[3] else None
        case "zwei_paare":
            pairs = at_least[2]
            return 2 * pairs[0] + 2 * pairs[1] if len(pairs) >= 2 else None
        case "full_house":
            return sum(dice) if sorted(counts.values()) == [2, 3] else None
        case "vierling":
            return 4 * at_least[4][0] + 20 if at_least[4] else None
        case "fuenfling":
            return 5 * at_least[5][0] + 50 if at_least[5] else None
        case "kleine_strasse":
            return 15 if sorted(dice) == [1, 2, 3, 4, 5] else None
        case "grosse_strasse":
            return 20 if sorted(dice) == [2, 3, 4, 5, 6] else None
        case "summe":
            return sum(dice)
    raise ValueError(f"unknown row {row.id}")  # pragma: no cover - ROWS is closed


def schule_needs(row: Row, dice: Sequence[int]) -> tuple[int, int]:
    """``(k, change)`` for Schule n: k dice show n; change is what the reserve gains (>= 0) or must pay (< 0)."""
    k = _check(dice)[row.number]
    return k, (k - SCHULE_CLOSE) * row.number


class Result(StrEnum):
    """What an entry writes into a field."""

    CLOSED = "closed"  # Schule closed with three or more dice of its number (a cross)
    RESERVE = "closed_with_reserve"  # Schule closed by paying missing dice from the reserve
    ZERO = "zero"  # Schule not closed: -200 at the end
    POINTS = "points"  # a combination or the Summe made
    STRUCK = "struck"  # a combination struck, or entered without being made


@dataclass(frozen=True)
class Effect:
    """What entering a throw into one row gives, before anything is written.

    ``needs`` is what a Schule entry short of dice must pay from the reserve. When the reserve is
    not known (``becher hand``) such an entry is reported as RESERVE with ``needs`` set: it closes
    if the reserve holds that much, otherwise it is a zero.
    """

    row: Row
    result: Result
    points: int = 0
    doubled: bool = False
    count: int = 0
    reserve_change: int = 0
    needs: int = 0
    reserve_after: int | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "row": self.row.id,
            "label_de": self.row.label_de,
            "label_en": self.row.label_en,
            "result": self.result.value,
            "points": self.points,
            "doubled": self.doubled,
        }
        if self.row.is_schule:
            out["count"] = self.count
            out["reserve_change"] = self.reserve_change
            out["needs_reserve"] = self.needs
            if self.reserve_after is not None:
                out["reserve_after"] = self.reserve_after
        return out


def effect(row: Row, dice: Sequence[int], doubled: bool, reserve: int | None) -> Effect:
    """The result of entering ``dice`` into ``row``; ``doubled`` says the throw doubles (rule 5).

    With ``reserve=None`` a Schule entry short of dice is reported as needing the reserve
    (``needs`` > 0) even though it may end as a zero; with a known reserve it is decided.
    """
    if row.is_schule:
        k, change = schule_needs(row, dice)
        if k >= SCHULE_CLOSE:
            after = None if reserve is None else reserve + change
            return Effect(row, Result.CLOSED, count=k, reserve_change=change, reserve_after=after)
        if k == 0:
            return Effect(row, Result.ZERO, count=0, needs=-change, reserve_after=reserve)
        if reserve is None:
            return Effect(row, Result.RESERVE, count=k, reserve_change=change, needs=-change)
        if reserve >= -change:
            return Effect(
                row, Result.RESERVE, count=k, reserve_change=change, needs=-change, reserve_after=reserve + change
            )
        return Effect(row, Result.ZERO, count=k, needs=-change, reserve_after=reserve)
    base = combination_points(row, dice)
    if base is None:
        return Effect(row, Result.STRUCK)
    return Effect(row, Result.POINTS, points=base * 2 if doubled else base, doubled=doubled)
