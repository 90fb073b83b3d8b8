"""RULES.md section `sheet`, rule by rule (rule 9, the worked examples, one test each)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from companion import GameLog, IllegalAction, MalformedInput, rules_for
from companion.sheet_rows import ROW_IDS

Dice = Sequence[int]


def new_game(players: Sequence[str] = ("Anna",), **settings: object) -> GameLog:
    return GameLog.new("sheet", list(players), settings)


def enter(log: GameLog, row: str, dice: Dice, all_five: bool = False) -> None:
    """A manual entry of the final dice by the player to move."""
    log.play({"type": "enter", "player": log.to_move(), "row": row, "dice": list(dice), "all_five": all_five})


def throw(log: GameLog, dice: Dice, held: Sequence[int] = ()) -> None:
    log.play({"type": "throw", "player": log.to_move(), "dice": list(dice), "held": list(held)})


def strike(log: GameLog, row: str) -> None:
    log.play({"type": "strike", "player": log.to_move(), "row": row})


def sheet(log: GameLog, player: int = 0) -> dict[str, Any]:
    view: dict[str, Any] = log.rules.view(log.state)
    return view["players"][player]  # type: ignore[no-any-return]


def cell(log: GameLog, row: str, column: int = 0, player: int = 0) -> dict[str, Any]:
    return sheet(log, player)["rows"][row][column]  # type: ignore[no-any-return]


def bonus(log: GameLog, bonus_id: str, player: int = 0) -> dict[str, Any]:
    return next(b for b in sheet(log, player)["bonuses"] if b["id"] == bonus_id)


CLEAN_COLUMN: list[tuple[str, Dice, bool]] = [
    ("schule_1", (1, 1, 1, 2, 3), False),
    ("schule_2", (2, 2, 2, 5, 6), False),
    ("schule_3", (3, 3, 3, 1, 1), False),
    ("schule_4", (4, 4, 4, 4, 1), False),
    ("schule_5", (5, 5, 5, 2, 2), False),
    ("schule_6", (6, 6, 6, 1, 2), False),
    ("paar", (6, 6, 1, 2, 3), False),
    ("drilling", (5, 5, 5, 1, 2), False),
    ("zwei_paare", (4, 4, 3, 3, 1), False),
    ("full_house", (2, 2, 2, 6, 6), True),
    ("vierling", (3, 3, 3, 3, 6), False),
    ("fuenfling", (2, 2, 2, 2, 2), False),
    ("kleine_strasse", (5, 4, 3, 2, 1), False),
    ("grosse_strasse", (2, 3, 4, 5, 6), False),
    ("summe", (6, 6, 6, 5, 5), False),
]
"""One clean column: every Schule closed without the reserve, every combination made. Best: the Fünfling, 60."""


# ----------------------------------------------------------------------------------------------- rule 1


def test_sheet_rule_1_three_columns_and_fifteen_rows_in_order() -> None:
    view = rules_for("sheet").view(new_game().state)
    assert view["columns"] == 3
    assert [r["id"] for r in view["rows"]] == list(ROW_IDS)
    assert ROW_IDS[:6] == tuple(f"schule_{n}" for n in range(1, 7))
    assert ROW_IDS[6:] == (
        "paar",
        "drilling",
        "zwei_paare",
        "full_house",
        "vierling",
        "fuenfling",
        "kleine_strasse",
        "grosse_strasse",
        "summe",
    )
    assert len(sheet(new_game())["rows"]["paar"]) == 3
    assert len(sheet(new_game(columns=5))["rows"]["paar"]) == 5


def test_sheet_rule_1_an_entry_goes_into_the_leftmost_free_field() -> None:
    log = new_game()
    for points, dice in ((12, (6, 6, 1, 2, 3)), (4, (2, 2, 1, 5, 6)), (10, (5, 5, 1, 2, 3))):
        enter(log, "paar", dice)
        filled = [c["value"] for c in sheet(log)["rows"]["paar"] if c["result"] is not None]
        assert filled[-1] == points
    assert [c["value"] for c in sheet(log)["rows"]["paar"]] == [12, 4, 10]
    with pytest.raises(IllegalAction, match="row Paar is full"):
        enter(log, "paar", (6, 6, 1, 2, 3))


# ----------------------------------------------------------------------------------------------- rule 2


def test_sheet_rule_2_up_to_three_throws_keeping_any_then_one_entry() -> None:
    log = new_game(("Anna", "Ben"))
    throw(log, (1, 2, 3, 4, 6))
    throw(log, (1, 2, 5, 5, 5), held=(0, 1))
    throw(log, (6, 2, 5, 5, 5), held=(1, 2, 3, 4))
    with pytest.raises(IllegalAction, match="thrown 3 times, the most a turn allows"):
        throw(log, (5, 2, 5, 5, 5), held=(1, 2, 3, 4))
    enter(log, "drilling", (6, 2, 5, 5, 5))
    assert cell(log, "drilling")["value"] == 15
    assert log.to_move() == 1
    with pytest.raises(IllegalAction, match="already made this turn's entry"):
        log.play({"type": "enter", "player": 0, "row": "paar", "dice": [1, 1, 2, 3, 4]})
    strike(log, "fuenfling")
    assert log.to_move() == 0


def test_sheet_rule_2_held_dice_keep_their_values() -> None:
    log = new_game()
    throw(log, (3, 3, 5, 1, 6))
    with pytest.raises(IllegalAction, match="held at 3"):
        throw(log, (4, 3, 5, 5, 5), held=(0, 1))


# ----------------------------------------------------------------------------------------------- rule 3


def test_sheet_rule_3_three_or_more_close_and_extra_dice_feed_the_reserve() -> None:
    log = new_game()
    enter(log, "schule_5", (5, 5, 5, 1, 2))
    assert (cell(log, "schule_5")["result"], sheet(log)["reserve"]) == ("closed", 0)
    enter(log, "schule_5", (5, 5, 5, 5, 5))
    assert cell(log, "schule_5", 1)["reserve_change"] == 10
    assert sheet(log)["reserve"] == 10


def test_sheet_rule_3_missing_dice_are_paid_from_the_reserve_if_it_holds_enough() -> None:
    log = new_game()
    enter(log, "schule_2", (2, 2, 2, 2, 5))  # reserve 2
    enter(log, "schule_2", (2, 2, 1, 3, 4))  # one 2 missing: pays 2
    assert cell(log, "schule_2", 1)["closed_with_reserve"]
    assert sheet(log)["reserve"] == 0
    enter(log, "schule_2", (2, 1, 3, 4, 5))  # needs 4, reserve 0: zero
    assert cell(log, "schule_2", 2)["zero"]
    assert sheet(log)["reserve"] == 0


def test_sheet_rule_3_no_die_of_the_number_is_a_zero_whatever_the_reserve() -> None:
    log = new_game()
    enter(log, "schule_6", (6, 6, 6, 6, 6))
    assert sheet(log)["reserve"] == 12
    enter(log, "schule_1", (2, 2, 2, 2, 2))
    assert cell(log, "schule_1")["zero"]
    assert sheet(log)["reserve"] == 12
    assert sheet(log)["totals"]["zero_penalty"] == -200


def test_sheet_rule_3_the_reserve_is_shared_by_the_columns() -> None:
    log = new_game()
    enter(log, "schule_4", (4, 4, 4, 4, 4))  # column 1 earns 8
    enter(log, "schule_4", (4, 4, 3, 2, 1))  # column 2 pays 4
    enter(log, "schule_4", (4, 2, 3, 1, 1))  # column 3 needs 8, only 4 left: zero
    assert [c["result"] for c in sheet(log)["rows"]["schule_4"]] == ["closed", "closed_with_reserve", "zero"]
    assert sheet(log)["reserve"] == 4


def test_sheet_rule_3_schule_is_never_doubled() -> None:
    log = new_game()
    enter(log, "schule_3", (3, 3, 3, 3, 3), all_five=True)
    field = cell(log, "schule_3")
    assert (field["value"], field["doubled"], field["reserve_change"]) == (0, False, 6)


# ----------------------------------------------------------------------------------------------- rule 4


@pytest.mark.parametrize(
    ("row", "dice", "points"),
    [
        ("paar", (2, 2, 5, 5, 1), 10),  # the highest pair
        ("drilling", (4, 4, 4, 6, 6), 12),
        ("zwei_paare", (6, 6, 1, 1, 3), 14),
        ("zwei_paare", (3, 3, 3, 5, 5), 16),  # a full house holds two pairs
        ("full_house", (3, 3, 3, 5, 5), 19),
        ("vierling", (2, 2, 2, 2, 6), 28),
        ("fuenfling", (4, 4, 4, 4, 4), 70),
        ("kleine_strasse", (3, 1, 5, 2, 4), 15),
        ("grosse_strasse", (6, 2, 4, 3, 5), 20),
        ("summe", (1, 2, 2, 6, 6), 17),
        ("drilling", (5, 5, 5, 5, 1), 15),  # four of a kind holds a Drilling
        ("paar", (5, 5, 5, 5, 1), 10),  # and a Paar
    ],
)
def test_sheet_rule_4_combinations_score_the_dice_they_use(row: str, dice: Dice, points: int) -> None:
    log = new_game()
    enter(log, row, dice)
    assert cell(log, row)["value"] == points
    assert cell(log, row)["result"] == "points"


@pytest.mark.parametrize(
    ("row", "dice"),
    [
        ("zwei_paare", (4, 4, 4, 4, 1)),  # two pairs need two different values
        ("full_house", (6, 6, 6, 6, 6)),
        ("full_house", (6, 6, 6, 6, 2)),
        ("kleine_strasse", (2, 3, 4, 5, 6)),
        ("grosse_strasse", (1, 2, 3, 4, 5)),
        ("paar", (1, 2, 3, 4, 6)),
    ],
)
def test_sheet_rule_4_dice_that_do_not_make_a_combination_make_nothing(row: str, dice: Dice) -> None:
    log = new_game()
    enter(log, row, dice)
    assert (cell(log, row)["result"], cell(log, row)["value"]) == ("struck", 0)


# ----------------------------------------------------------------------------------------------- rule 5


def test_sheet_rule_5_doubling_counts_bonus() -> None:
    log = new_game()
    enter(log, "vierling", (5, 5, 5, 5, 2), all_five=True)
    enter(log, "fuenfling", (1, 1, 1, 1, 1), all_five=True)
    assert cell(log, "vierling")["value"] == (4 * 5 + 20) * 2
    assert cell(log, "fuenfling")["value"] == (5 + 50) * 2 == 110
    assert cell(log, "fuenfling")["doubled"]


def test_sheet_rule_5_a_later_throw_keeping_none_doubles_one_keeping_some_does_not() -> None:
    log = new_game()
    throw(log, (1, 2, 3, 4, 6))
    throw(log, (6, 6, 6, 6, 1))  # all five thrown again
    log.play({"type": "enter", "player": 0, "row": "vierling"})
    assert (cell(log, "vierling")["value"], cell(log, "vierling")["doubled"]) == (88, True)
    throw(log, (6, 6, 6, 2, 1))
    throw(log, (6, 6, 6, 6, 3), held=(0, 1, 2))
    log.play({"type": "enter", "player": 0, "row": "vierling"})
    assert (cell(log, "vierling", 1)["value"], cell(log, "vierling", 1)["doubled"]) == (44, False)


def test_sheet_rule_5_setting_first_throw_only_doubles_the_first_throw() -> None:
    log = new_game(doubling="first_throw")
    throw(log, (1, 2, 3, 4, 6))
    throw(log, (6, 6, 6, 6, 1))
    log.play({"type": "enter", "player": 0, "row": "vierling"})
    assert cell(log, "vierling")["value"] == 44
    throw(log, (3, 3, 3, 3, 1))
    log.play({"type": "enter", "player": 0, "row": "vierling"})
    assert cell(log, "vierling", 1)["value"] == 64
    log.play({"type": "enter", "player": 0, "row": "summe", "dice": [6, 6, 6, 6, 1], "all_five": True, "throw": 2})
    assert cell(log, "summe")["value"] == 25
    log.play({"type": "enter", "player": 0, "row": "summe", "dice": [6, 6, 6, 6, 1], "all_five": True})
    assert cell(log, "summe", 1)["value"] == 50  # a manual all-five entry without a throw number is the first throw


# ----------------------------------------------------------------------------------------------- rule 6


def test_sheet_rule_6_a_strike_scores_nothing_and_gives_up_row_and_column_bonus() -> None:
    log = new_game()
    strike(log, "grosse_strasse")
    field = cell(log, "grosse_strasse")
    assert (field["result"], field["value"], field["struck"]) == ("struck", 0, True)
    assert bonus(log, "row:grosse_strasse")["struck"]
    assert bonus(log, "column:1")["struck"]
    assert not bonus(log, "column:2")["struck"]
    assert not bonus(log, "row:paar")["struck"]


def test_sheet_rule_6_entering_a_throw_that_does_not_make_the_combination_is_a_strike() -> None:
    log = new_game()
    enter(log, "fuenfling", (6, 6, 6, 6, 5), all_five=True)
    assert cell(log, "fuenfling")["struck"]
    assert sheet(log)["totals"]["fields"] == 0
    assert bonus(log, "row:fuenfling")["struck"]
    assert bonus(log, "column:1")["struck"]


def test_sheet_rule_6_the_sheet_tells_a_strike_from_an_entry_that_did_not_make_it() -> None:
    """Both score nothing and lose the same bonuses, but the table shows which: the dice were entered or struck."""
    log = new_game()
    throw(log, (6, 6, 6, 6, 5))
    strike(log, "full_house")
    throw(log, (6, 6, 6, 6, 5))
    log.play({"type": "enter", "player": 0, "row": "full_house"})
    chosen, failed = cell(log, "full_house", 0), cell(log, "full_house", 1)
    assert (chosen["result"], chosen["struck"], chosen["not_made"]) == ("struck", True, False)
    assert (failed["result"], failed["struck"], failed["not_made"]) == ("struck", True, True)
    assert failed["dice"] == [6, 6, 6, 6, 5] and failed["value"] == 0
    assert not cell(log, "paar")["not_made"]  # a free field
    throw(log, (6, 6, 6, 6, 5))
    options = {(o.action, o.detail["fields"]["row"]): o.detail for o in log.options() if o.action != "throw"}
    assert options[("enter", "full_house")]["not_made"] and not options[("enter", "vierling")]["not_made"]
    assert not options[("strike", "full_house")]["not_made"]


def test_sheet_rule_6_the_summe_can_be_struck_and_loses_only_its_column_bonus() -> None:
    """RULES.md lists the Summe with the combinations; it has no row bonus to lose (docs: readings in force, 2)."""
    log = new_game()
    strike(log, "summe")
    field = cell(log, "summe")
    assert (field["result"], field["value"], field["not_made"]) == ("struck", 0, False)
    assert bonus(log, "column:1")["struck"] and not bonus(log, "column:2")["struck"]
    assert "row:summe" not in {b["id"] for b in sheet(log)["bonuses"]}
    assert sheet(log)["totals"]["total"] == 0
    log = new_game(columns=1)
    for row, dice, all_five in CLEAN_COLUMN:
        if row == "summe":
            strike(log, row)
        else:
            enter(log, row, dice, all_five)
    assert sheet(log)["full"] and log.outcome() is not None
    assert not bonus(log, "column:1")["won"] and bonus(log, "column:1")["struck"]


def test_sheet_rule_6_a_schule_field_cannot_be_struck() -> None:
    log = new_game()
    before = log.to_jsonl()
    with pytest.raises(IllegalAction, match="cannot be struck"):
        strike(log, "schule_3")
    assert log.to_jsonl() == before


# ----------------------------------------------------------------------------------------------- rule 7


def test_sheet_rule_7_schule_row_bonus_goes_to_the_first_player_only() -> None:
    log = new_game(("Anna", "Ben"), columns=1)
    enter(log, "schule_3", (3, 3, 3, 1, 2))
    assert bonus(log, "row:schule_3", 0)["won"]
    assert bonus(log, "row:schule_3", 0)["value"] == 15
    enter(log, "schule_3", (3, 3, 3, 3, 3))
    assert not bonus(log, "row:schule_3", 1)["won"]
    assert bonus(log, "row:schule_3", 1)["struck"]
    assert sheet(log, 0)["totals"]["bonuses"] == 15
    assert sheet(log, 1)["totals"]["bonuses"] == 0


def test_sheet_rule_7_schule_row_closed_with_the_reserve_earns_no_bonus() -> None:
    log = new_game(("Anna", "Ben"), columns=2)
    enter(log, "schule_6", (6, 6, 6, 6, 6))  # Anna: reserve 12
    enter(log, "paar", (1, 1, 2, 3, 4))
    enter(log, "schule_6", (6, 6, 1, 2, 3))  # Anna closes row 6 paying 6
    assert [c["result"] for c in sheet(log, 0)["rows"]["schule_6"]] == ["closed", "closed_with_reserve"]
    assert bonus(log, "row:schule_6", 0)["struck"]
    assert bonus(log, "row:schule_6", 1)["reachable"]
    enter(log, "schule_6", (6, 6, 6, 1, 2))
    enter(log, "paar", (1, 1, 2, 3, 4))
    enter(log, "schule_6", (6, 6, 6, 6, 2))
    assert bonus(log, "row:schule_6", 1)["won"]
    assert bonus(log, "row:schule_6", 1)["value"] == 30


def test_sheet_rule_7_combination_row_bonus_is_its_best_field_none_struck() -> None:
    log = new_game(("Anna", "Ben"), columns=2)
    enter(log, "paar", (6, 6, 1, 2, 3))
    strike(log, "paar")
    enter(log, "paar", (2, 2, 1, 3, 4), all_five=True)
    assert bonus(log, "row:paar", 0)["value"] == 12
    assert bonus(log, "row:paar", 1)["struck"]
    assert sheet(log, 0)["totals"] == {
        "fields": 12 + 8,
        "bonuses": 12,
        "reserve": 0,
        "zeros": 0,
        "zero_penalty": 0,
        "total": 32,
    }


def test_sheet_rule_7_summe_has_no_row_bonus() -> None:
    log = new_game(columns=1)
    enter(log, "summe", (6, 6, 6, 6, 6))
    ids = [b["id"] for b in sheet(log)["bonuses"]]
    assert "row:summe" not in ids
    assert sheet(log)["totals"]["bonuses"] == 0


def test_sheet_rule_7_column_bonus_best_combination_no_strike_no_zero_reserve_allowed() -> None:
    log = new_game(columns=1)
    for row, dice, all_five in CLEAN_COLUMN:
        assert not bonus(log, "column:1")["won"]
        enter(log, row, dice, all_five)
    assert bonus(log, "column:1")["won"]
    assert bonus(log, "column:1")["value"] == 60  # Fünfling 2-2-2-2-2 beats Full House 2-2-2-6-6 doubled (36)
    # the same column with Schule 1 closed by the reserve still earns it
    log = new_game(columns=1)
    for row, dice, all_five in CLEAN_COLUMN[3:]:
        enter(log, row, dice, all_five)
    enter(log, "schule_1", (1, 1, 2, 2, 3))
    enter(log, "schule_2", (2, 2, 2, 3, 3))
    assert not bonus(log, "column:1")["struck"]
    enter(log, "schule_3", (3, 3, 3, 4, 4))  # this one entry completes its row and the column: both bonuses
    assert cell(log, "schule_1")["closed_with_reserve"]
    assert bonus(log, "column:1")["value"] == 60
    assert bonus(log, "row:schule_3")["value"] == 15


@pytest.mark.parametrize("spoil", ["zero", "strike"])
def test_sheet_rule_7_a_strike_or_a_zero_loses_the_column_bonus(spoil: str) -> None:
    log = new_game(columns=1)
    for row, dice, all_five in CLEAN_COLUMN:
        if spoil == "zero" and row == "schule_2":
            enter(log, row, (1, 1, 1, 3, 3))
        elif spoil == "strike" and row == "kleine_strasse":
            strike(log, row)
        else:
            enter(log, row, dice, all_five)
    assert sheet(log)["full"]
    assert bonus(log, "column:1")["struck"]
    assert not bonus(log, "column:1")["won"]


def test_sheet_rule_7_unreachable_bonuses_are_struck_on_that_sheet_only() -> None:
    log = new_game(("Anna", "Ben"))
    enter(log, "schule_2", (2, 1, 3, 4, 5))  # Anna: a zero in Schule 2, column 1
    marks = {b["id"]: b["struck"] for b in sheet(log, 0)["bonuses"]}
    assert marks["row:schule_2"] and marks["column:1"]
    assert not marks["column:2"] and not marks["row:schule_1"]
    assert not any(b["struck"] for b in sheet(log, 1)["bonuses"])


# ----------------------------------------------------------------------------------------------- rule 8


def test_sheet_rule_8_ends_when_every_sheet_is_full_and_totals_add_up() -> None:
    log = new_game(("Anna", "Ben"), columns=1)
    for row, dice, all_five in CLEAN_COLUMN:
        enter(log, row, dice, all_five)
        assert log.outcome() is None
        if row == "schule_2":
            enter(log, row, (2, 5, 5, 5, 5))  # Ben: a zero
        elif row.startswith("schule"):
            enter(log, row, dice, all_five)
        else:
            strike(log, row)
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert log.to_move() is None
    anna, ben = sheet(log, 0)["totals"], sheet(log, 1)["totals"]
    anna_fields = 12 + 15 + 14 + 36 + 32 + 60 + 15 + 20 + 28
    anna_reserve = 4  # the fourth 4
    anna_bonuses = 5 * (1 + 2 + 3 + 4 + 5 + 6) + 12 + 15 + 14 + 36 + 32 + 60 + 15 + 20 + 60
    assert anna == {
        "fields": anna_fields,
        "bonuses": anna_bonuses,
        "reserve": anna_reserve,
        "zeros": 0,
        "zero_penalty": 0,
        "total": anna_fields + anna_bonuses + anna_reserve,
    }
    assert ben == {"fields": 0, "bonuses": 0, "reserve": 4, "zeros": 1, "zero_penalty": -200, "total": -196}
    with pytest.raises(IllegalAction, match="game is over"):
        log.play({"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5]})


def test_sheet_rule_8_equal_totals_share_a_place() -> None:
    log = new_game(("Anna", "Ben", "Cem"), columns=1)
    for row in ROW_IDS:
        for player in range(3):
            if row.startswith("schule"):
                enter(log, row, (1, 1, 1, 1, 1) if row != "schule_1" else (2, 2, 2, 2, 2))  # zeros
            elif row == "summe":
                enter(log, row, (6, 6, 6, 6, 6) if player < 2 else (1, 1, 1, 1, 2))
            else:
                strike(log, row)
    places = [(s.player, s.place, s.score) for s in log.standings()]
    assert places == [(0, 1, 30 - 1200), (1, 1, 30 - 1200), (2, 3, 6 - 1200)]
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (0, 1)


# ----------------------------------------------------------------------------------------------- rule 9


@pytest.fixture
def worked() -> GameLog:
    """RULES.md rule 9 played on one sheet, in its order."""
    log = new_game()
    enter(log, "schule_6", (6, 6, 6, 6, 2))
    enter(log, "schule_1", (1, 3, 4, 5, 2))
    enter(log, "schule_5", (5, 1, 1, 2, 3))
    return log


def test_sheet_rule_9_schule_6_with_four_sixes_gives_reserve_6(worked: GameLog) -> None:
    assert cell(worked, "schule_6")["reserve"] == 6
    assert sheet(worked)["reserve_history"][0]["value"] == 6


def test_sheet_rule_9_schule_1_with_one_die_pays_2_and_loses_the_row_bonus(worked: GameLog) -> None:
    assert cell(worked, "schule_1")["closed_with_reserve"]
    assert cell(worked, "schule_1")["reserve"] == 4
    assert bonus(worked, "row:schule_1")["struck"]


def test_sheet_rule_9_schule_5_needing_10_from_a_reserve_of_4_is_a_zero(worked: GameLog) -> None:
    assert cell(worked, "schule_5")["zero"]
    assert sheet(worked)["reserve"] == 4
    assert [h["value"] for h in sheet(worked)["reserve_history"]] == [6, 4]


def test_sheet_rule_9_paar_of_fives_is_10_and_doubled_20() -> None:
    log = new_game()
    enter(log, "paar", (5, 5, 2, 3, 1))
    enter(log, "paar", (5, 5, 2, 3, 1), all_five=True)
    assert [c["value"] for c in sheet(log)["rows"]["paar"][:2]] == [10, 20]


def test_sheet_rule_9_vierling_of_fives_is_40() -> None:
    log = new_game()
    enter(log, "vierling", (5, 5, 5, 5, 2))
    assert cell(log, "vierling")["value"] == 40


def test_sheet_rule_9_full_house_threes_and_fives_is_19() -> None:
    log = new_game()
    enter(log, "full_house", (3, 3, 3, 5, 5))
    assert cell(log, "full_house")["value"] == 19


def test_sheet_rule_9_summe_is_22_and_doubled_44() -> None:
    log = new_game()
    enter(log, "summe", (6, 6, 5, 4, 1))
    enter(log, "summe", (6, 6, 5, 4, 1), all_five=True)
    assert [c["value"] for c in sheet(log)["rows"]["summe"][:2]] == [22, 44]


def test_sheet_rule_9_five_sixes_are_no_full_house_but_a_vierling_of_44() -> None:
    log = new_game()
    enter(log, "full_house", (6, 6, 6, 6, 6))
    enter(log, "vierling", (6, 6, 6, 6, 6))
    assert cell(log, "full_house")["struck"]
    assert cell(log, "vierling")["value"] == 44


# ----------------------------------------------------------------------------------------------- players


def test_sheet_players_one_to_four_and_up_to_eight_with_the_setting() -> None:
    rules = rules_for("sheet")
    assert len(rules.make_setup(["Solo"]).players) == 1
    assert len(rules.make_setup(list("ABCD")).players) == 4
    with pytest.raises(MalformedInput, match="Up to 8 players"):
        rules.make_setup(list("ABCDE"))
    assert len(rules.make_setup(list("ABCDEFGH"), {"more_players": True}).players) == 8
    with pytest.raises(MalformedInput, match="1 to 8 players, not 9"):
        rules.make_setup(list("ABCDEFGHI"), {"more_players": True})
    with pytest.raises(MalformedInput, match="not 0"):
        rules.make_setup([])


def play_turn(log: GameLog, row: str, dice: Dice, all_five: bool) -> None:
    """A turn as the camera records it: all five at once, or a first throw and a rethrow of the last die only."""
    if not all_five:
        first = [*dice[:4], dice[4] % 6 + 1]
        throw(log, first)
        throw(log, dice, held=(0, 1, 2, 3))
    else:
        throw(log, dice)
    log.play({"type": "enter", "player": 0, "row": row})


def test_sheet_rule_9_the_worked_examples_in_one_game_to_the_end() -> None:
    """RULES.md rule 9, in its order on one sheet of a one-player game, then the sheet filled up to the total."""
    log = new_game()
    play_turn(log, "schule_6", (6, 6, 6, 6, 2), False)
    assert (sheet(log)["reserve"], cell(log, "schule_6")["reserve"]) == (6, 6)
    play_turn(log, "schule_1", (1, 3, 4, 5, 2), False)
    assert cell(log, "schule_1")["closed_with_reserve"] and cell(log, "schule_1")["reserve"] == 4
    assert cell(log, "schule_6")["reserve_struck"] and not cell(log, "schule_1")["reserve_struck"]
    assert bonus(log, "row:schule_1")["struck"] and not bonus(log, "column:1")["struck"]
    play_turn(log, "schule_5", (5, 1, 1, 2, 3), False)  # needs 10 > 4
    assert cell(log, "schule_5")["zero"] and cell(log, "schule_5")["reserve"] is None
    assert bonus(log, "row:schule_5")["struck"] and bonus(log, "column:1")["struck"]
    play_turn(log, "paar", (5, 5, 2, 3, 1), False)
    play_turn(log, "paar", (5, 5, 2, 3, 1), True)
    play_turn(log, "vierling", (5, 5, 5, 5, 2), False)
    play_turn(log, "full_house", (3, 3, 3, 5, 5), False)
    play_turn(log, "summe", (6, 6, 5, 4, 1), False)
    play_turn(log, "summe", (6, 6, 5, 4, 1), True)
    play_turn(log, "full_house", (6, 6, 6, 6, 6), False)
    play_turn(log, "vierling", (6, 6, 6, 6, 6), False)
    rows = sheet(log)["rows"]
    assert [f["value"] for f in rows["paar"]] == [10, 20, None]
    assert [f["doubled"] for f in rows["paar"]] == [False, True, False]
    assert [f["value"] for f in rows["vierling"]] == [40, 44, None]
    assert [(f["value"], f["not_made"]) for f in rows["full_house"][:2]] == [(19, False), (0, True)]
    assert [f["value"] for f in rows["summe"]] == [22, 44, None]
    assert bonus(log, "row:full_house")["struck"] and bonus(log, "column:2")["struck"]
    assert [(h["value"], h["row"], h["struck"]) for h in sheet(log)["reserve_history"]] == [
        (6, "schule_6", True),
        (4, "schule_1", False),
    ]
    # One player: every entry is the next turn; an entry without a new throw or dice is refused.
    assert log.to_move() == 0 and log.state.turn.throws == 0
    with pytest.raises(IllegalAction, match="Throw first"):
        log.play({"type": "enter", "player": 0, "row": "drilling"})
    # The rest of the sheet: Schule with exactly three (no reserve change), a third pair of 2s, a Summe of 6,
    # every other combination field struck.
    for n in range(1, 7):
        while sheet(log)["rows"][f"schule_{n}"][-1]["result"] is None:
            play_turn(log, f"schule_{n}", (n, n, n, n % 6 + 1, n % 6 + 1), False)
    play_turn(log, "paar", (2, 2, 1, 3, 4), False)
    play_turn(log, "summe", (1, 1, 1, 1, 2), False)
    for row in ROW_IDS[6:]:
        while sheet(log)["rows"][row][-1]["result"] is None:
            strike(log, row)
    assert log.outcome() is not None and log.to_move() is None
    won = {b["id"]: b["value"] for b in sheet(log)["bonuses"] if b["won"]}
    assert won == {"row:schule_2": 10, "row:schule_3": 15, "row:schule_4": 20, "row:schule_6": 30, "row:paar": 20}
    assert all(b["struck"] for b in sheet(log)["bonuses"] if not b["won"])
    fields = 10 + 20 + 40 + 19 + 22 + 44 + 44 + 4 + 6
    assert sheet(log)["totals"] == {
        "fields": fields,
        "bonuses": 95,
        "reserve": 4,
        "zeros": 1,
        "zero_penalty": -200,
        "total": fields + 95 + 4 - 200,
    }
    outcome = log.outcome()
    assert outcome is not None and outcome.reason == "Every sheet is full; Anna wins with the highest total, 108."
