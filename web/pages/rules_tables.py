"""The tables of the rules page: each game's hands in rank order with their points, and the sheet's rows.

Every figure comes from the rules engine itself (companion's categories, point tables, scorers and row hands): the
examples are the best throw of each hand found by scoring every throw, the sheet's points the lowest and highest
each row can give, so the page can never say another thing than the game counts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from typing import Any

from companion.core import rules_for
from companion.hands import CLASSIC_POINTS, HandRules, categories, evaluate
from web.pages.i18n import tr
from web.pages.model import pick


@dataclass(frozen=True)
class TableRow:
    """One line: its words (the first is the hand or row), and an example throw drawn as dice."""

    cells: tuple[str, ...]
    dice: tuple[int, ...] = ()


@dataclass(frozen=True)
class RulesTable:
    title: str
    head: tuple[str, ...]  # the column headings; the example's column comes last where rows have dice
    rows: tuple[TableRow, ...]
    note: str = ""
    dice_kind: str = "pip"


def _throws(n: int) -> list[tuple[int, ...]]:
    return list(combinations_with_replacement(range(1, 7), n))


@cache
def _best_examples(game: str, n: int, ranked: Callable[[tuple[int, ...]], Any]) -> dict[str, tuple[int, ...]]:
    """The best throw of each hand: every throw of ``n`` dice scored, the highest of each category kept."""
    best: dict[str, tuple[Any, tuple[int, ...]]] = {}
    for dice in _throws(n):
        rank = ranked(dice)
        category = str(rank.category if not hasattr(rank.category, "name") else rank.category.name)
        if category not in best or rank.key > best[category][0]:
            best[category] = (rank.key, dice)
    return {c: tuple(sorted(d, reverse=True)) for c, (_, d) in best.items()}


def _hand_rows(game: str, rules: HandRules, with_points: bool) -> tuple[TableRow, ...]:
    examples = _best_examples(game + ("+points" if rules.points else ""), 5, lambda d: evaluate(d, rules))
    rows = []
    for place, cat in enumerate(reversed(categories(rules)), start=1):
        points = (str(cat.points),) if with_points else ()
        rows.append(TableRow((f"{place}.", pick(cat.label, cat.label_en), *points), examples.get(cat.id, ())))
    return tuple(rows)


def _hand_tables(game: str) -> list[RulesTable]:
    rules = rules_for(game)
    setup = rules.make_setup(["A", "B"], {})
    if game == "classic":
        from companion.games.classic import hand_rules_for

        hand_rules = hand_rules_for(setup)
    else:
        hand_rules = rules.hand_rules(setup)  # type: ignore[attr-defined]
    kind = str(setup.get("dice") or "pip")
    if game == "classic":
        ranked = RulesTable(
            tr("Hands, best first"),
            ("", tr("Hand"), tr("Best throw")),
            _hand_rows(game, hand_rules, False),
            tr("House rules may change the order (a straight above the full house) or make the ace a joker."),
            kind,
        )
        points = HandRules("classic", points=CLASSIC_POINTS)
        scored = RulesTable(
            tr("Points, when played for points"),
            ("", tr("Hand"), tr("Points"), tr("Best throw")),
            _hand_rows(game, points, True),
            tr("The setting “Points table” may change these figures."),
            kind,
        )
        return [ranked, scored]
    with_points = game == "bone"
    head = ("", tr("Hand"), tr("Points"), tr("Best throw")) if with_points else ("", tr("Hand"), tr("Best throw"))
    return [RulesTable(tr("Hands, best first"), head, _hand_rows(game, hand_rules, with_points), "", kind)]


def _sheet_table() -> list[RulesTable]:
    from companion.sheet_rows import ROWS, combination_points, schule_needs

    rows = []
    for row in ROWS:
        label = pick(row.label_de, row.label_en)
        if row.is_schule:
            n = row.number
            other = 2 if n == 1 else 1
            four = (n, n, n, n, other)
            _, more = schule_needs(row, four)  # what four of the Schule's number add to the reserve
            _, fewer = schule_needs(row, (n, n, other, other, other))  # what two of them must pay from it
            text = tr(
                "Three dice showing %(n)s close it; each one more adds %(more)s to the reserve, each one missing "
                "costs %(fewer)s from it (at least one die must show %(n)s).",
                n=n,
                more=more,
                fewer=-fewer,
            )
            rows.append(TableRow((label, text), four))
            continue
        made: list[tuple[int, tuple[int, ...]]] = []
        for dice in _throws(5):
            points = combination_points(row, dice)
            if points is not None:
                made.append((points, dice))
        low, high = min(made), max(made)
        span = str(low[0]) if low[0] == high[0] else tr("%(low)s to %(high)s", low=low[0], high=high[0])
        rows.append(TableRow((label, span), tuple(sorted(high[1], reverse=True))))
    return [
        RulesTable(
            tr("The rows of the sheet"),
            (tr("Row"), tr("Points"), tr("Best throw")),
            tuple(rows),
            tr(
                "Made with all five dice thrown at once (none kept), a combination or the Sum counts double; a "
                "School row never does, and one that cannot be closed is a zero: minus 200."
            ),
        )
    ]


def _board_table() -> list[RulesTable]:
    from companion.board_hands import LABELS_DE, LABELS_EN, Category, rank_row

    examples = _best_examples("board", 3, rank_row)
    rows = tuple(
        TableRow((f"{place}.", pick(LABELS_DE[cat], LABELS_EN[cat])), examples.get(cat.name, ()))
        for place, cat in enumerate(sorted(Category, reverse=True), start=1)
    )
    target = rules_for("board").make_setup(["A", "B"], {}).get("points_to_win")
    return [
        RulesTable(
            tr("A row's three dice, best first"),
            ("", tr("Hand"), tr("Best throw")),
            rows,
            tr(
                "Each row won is one point (a game ends 3:0 or 2:1); the first to %(n)s points wins the match.",
                n=target,
            ),
        )
    ]


def rules_tables(game: str) -> Sequence[RulesTable]:
    """The tables the rules page shows for ``game``."""
    if game == "sheet":
        return _sheet_table()
    if game == "board":
        return _board_table()
    return _hand_tables(game)
