"""A whole three-player game replayed from its log, bad input, options, the view, hand, undo and export."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from companion import GameLog, IllegalAction, MalformedInput, rules_for
from companion.sheet_rows import COMBINATION_ROWS, ROW_IDS, combination_points
from tests.companion.test_sheet_rules import cell, enter, new_game, strike, throw

LOG = Path(__file__).parent / "logs" / "sheet_three_players.jsonl"

# The three sheets at the end of the logged game, as written on paper: x = closed (x+2: closed, reserve +2),
# r-4 = closed paying 4 from the reserve, 0 = zero, - = struck, / = entered but not made (struck too),
# 36d = 36 points doubled.
EXPECTED_SHEETS = {
    "Anna": """
        schule_1       x     x     x+1
        schule_2       r-4   x     x
        schule_3       x     x     x+3
        schule_4       x     x     0
        schule_5       x     x     x+10
        schule_6       x+6   x     x+6
        paar           10    12    12
        drilling       9     3     9
        zwei_paare     36d   36d   36d
        full_house     44d   20    22d
        vierling       64d   24    36
        fuenfling      70    70    80
        kleine_strasse 30d   30d   /
        grosse_strasse 40d   -     /
        summe          40d   40d   40d
    """,
    "Ben": """
        schule_1       x     x+1   r-2
        schule_2       x     x     r-4
        schule_3       x     x     x
        schule_4       x     x     x
        schule_5       x     x     x+5
        schule_6       x     x     0
        paar           10    2     4
        drilling       12    9     12
        zwei_paare     14    32d   36d
        full_house     42d   42d   23
        vierling       32    40    24
        fuenfling      /     -     /
        kleine_strasse /     /     -
        grosse_strasse 40d   -     /
        summe          44d   44d   46d
    """,
    "Cem": """
        schule_1       x     x     x
        schule_2       x     x     0
        schule_3       x     x     x
        schule_4       x     x     x
        schule_5       x     x     x
        schule_6       x     x     x
        paar           10    10    10
        drilling       9     9     12
        zwei_paare     32d   36d   12
        full_house     24d   40d   19
        vierling       32    40    /
        fuenfling      /     -     /
        kleine_strasse -     /     -
        grosse_strasse -     -     /
        summe          42d   44d   42d
    """,
}
EXPECTED_RESERVE_HISTORY = {"Anna": [6, 7, 13, 16, 26, 22], "Ben": [5, 1, 2, 0], "Cem": []}
EXPECTED_BONUSES = {
    "row:schule_1": ("Anna", 5),
    "row:schule_2": None,
    "row:schule_3": ("Cem", 15),
    "row:schule_4": ("Ben", 20),
    "row:schule_5": ("Anna", 25),
    "row:schule_6": ("Anna", 30),
    "row:paar": ("Cem", 10),
    "row:drilling": ("Ben", 12),
    "row:zwei_paare": ("Ben", 36),
    "row:full_house": ("Anna", 44),
    "row:vierling": ("Anna", 64),
    "row:fuenfling": ("Anna", 80),
    "row:kleine_strasse": None,
    "row:grosse_strasse": None,
    "column:1": ("Anna", 70),
    "column:2": None,
    "column:3": None,
}
EXPECTED_TOTALS = {
    "Anna": {"fields": 813, "bonuses": 318, "reserve": 22, "zeros": 1, "zero_penalty": -200, "total": 953},
    "Ben": {"fields": 508, "bonuses": 68, "reserve": 0, "zeros": 1, "zero_penalty": -200, "total": 376},
    "Cem": {"fields": 423, "bonuses": 25, "reserve": 0, "zeros": 1, "zero_penalty": -200, "total": 248},
}


def mark(field: dict[str, Any]) -> str:
    """A written field as the paper notation of EXPECTED_SHEETS."""
    match field["result"]:
        case "closed":
            return "x" + (f"+{field['reserve_change']}" if field["reserve_change"] else "")
        case "closed_with_reserve":
            return f"r{field['reserve_change']}"
        case "zero":
            return "0"
        case "struck":
            return "/" if field["not_made"] else "-"
        case "points":
            return f"{field['value']}" + ("d" if field["doubled"] else "")
    raise AssertionError(field)


def brute_force_points(row: str, dice: Sequence[int]) -> int | None:
    """Rule 4 read literally: the best choice of the dice a combination uses, found by trying every subset."""
    if row == "summe":
        return sum(dice)
    if row in ("kleine_strasse", "grosse_strasse"):
        wanted = [1, 2, 3, 4, 5] if row == "kleine_strasse" else [2, 3, 4, 5, 6]
        return sum(wanted) if sorted(dice) == wanted else None
    best: int | None = None
    for size in range(2, 6):
        for used in itertools.combinations(dice, size):
            counts = sorted(Counter(used).values())
            fits = {
                "paar": counts == [2],
                "drilling": counts == [3],
                "zwei_paare": counts == [2, 2],
                "full_house": counts == [2, 3],
                "vierling": counts == [4],
                "fuenfling": counts == [5],
            }[row]
            if fits:
                extra = {"vierling": 20, "fuenfling": 50}.get(row, 0)
                best = max(best or 0, sum(used) + extra)
    return best


def test_sheet_scorer_agrees_with_brute_force_on_every_throw() -> None:
    """Every one of the 252 different throws (order does not matter to a combination), and a shuffled copy."""
    for sorted_dice in itertools.combinations_with_replacement(range(1, 7), 5):
        dice = sorted_dice[2:] + sorted_dice[:2]
        for row in COMBINATION_ROWS:
            assert combination_points(row, dice) == brute_force_points(row.id, dice), (row.id, dice)


# ----------------------------------------------------------------------------------------------- the logged game


@pytest.fixture(scope="module")
def logged() -> GameLog:
    return GameLog.from_jsonl(LOG.read_text(encoding="utf-8"))


def test_sheet_replayed_game_every_field(logged: GameLog) -> None:
    view = logged.rules.view(logged.state)
    for player in view["players"]:
        expected = [line.split() for line in EXPECTED_SHEETS[player["name"]].strip().splitlines()]
        assert [line[0] for line in expected] == list(ROW_IDS)
        got = [[row, *(mark(f) for f in player["rows"][row])] for row in ROW_IDS]
        assert got == expected, player["name"]


def test_sheet_replayed_game_reserve_bonuses_and_totals(logged: GameLog) -> None:
    view = logged.rules.view(logged.state)
    names = list(logged.setup.players)
    for player in view["players"]:
        name = player["name"]
        history = player["reserve_history"]
        assert [h["value"] for h in history] == EXPECTED_RESERVE_HISTORY[name]
        assert [h["struck"] for h in history] == [True] * (len(history) - 1) + [False] * bool(history)
        assert player["reserve"] == (history[-1]["value"] if history else 0)
        assert player["totals"] == EXPECTED_TOTALS[name]
        for mark_ in player["bonuses"]:
            owner = EXPECTED_BONUSES[mark_["id"]]
            assert mark_["won"] == (owner is not None and owner[0] == name)
            assert mark_["struck"] == (not mark_["won"])  # the game is over: what is not won is out of reach
    owners = {b["id"]: None if b["owner"] is None else (names[b["owner"]], b["value"]) for b in view["bonuses"]}
    assert owners == EXPECTED_BONUSES
    standings = [(s.name, s.place, s.score) for s in logged.standings()]
    assert standings == [("Anna", 1, 953), ("Ben", 2, 376), ("Cem", 3, 248)]
    outcome = logged.outcome()
    assert outcome is not None and outcome.winners == (0,)


def test_sheet_replayed_game_agrees_with_an_independent_reading_of_the_log() -> None:
    """Walk the log by hand (throws, holds, reserve, bonuses) and score every entry with the brute-force scorer."""
    lines = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    players = lines[0]["players"]
    reserve = dict.fromkeys(range(len(players)), 0)
    filled: dict[tuple[int, str], int] = Counter()
    dice: list[int] = []
    all_five = False
    log = GameLog.from_jsonl(LOG.read_text(encoding="utf-8"))
    view = log.rules.view(log.state)
    marks = [{row: [""] * 3 for row in ROW_IDS} for _ in players]
    owners: dict[str, tuple[str, int]] = {}
    for action in lines[1:]:
        p = action["player"]
        if action["type"] == "throw":
            dice, all_five = action["dice"], not action["held"]
            continue
        if action["type"] == "enter" and action["dice"]:
            dice, all_five = action["dice"], bool(action["all_five"])
        row = action["row"]
        column = filled[(p, row)]
        filled[(p, row)] += 1
        field = view["players"][p]["rows"][row][column]
        if action["type"] == "strike":
            assert mark(field) == "-"
        elif row.startswith("schule"):
            n = int(row[-1])
            k = dice.count(n)
            if k >= 3:
                expected = "x" + (f"+{(k - 3) * n}" if k > 3 else "")
                reserve[p] += (k - 3) * n
            elif k and reserve[p] >= (3 - k) * n:
                expected = f"r-{(3 - k) * n}"
                reserve[p] -= (3 - k) * n
            else:
                expected = "0"
            assert mark(field) == expected, (p, row, column, dice)
        else:
            points = brute_force_points(row, dice)
            expected = "/" if points is None else f"{points * 2}d" if all_five else f"{points}"
            assert mark(field) == expected, (p, row, column, dice)
        marks[p][row][column] = mark(field)
        award_bonuses(marks[p], players[p], owners)
        dice, all_five = [], False
    assert [pl["reserve"] for pl in view["players"]] == [reserve[p] for p in range(len(players))]
    assert owners == {k: v for k, v in EXPECTED_BONUSES.items() if v is not None}


def award_bonuses(marks: dict[str, list[str]], name: str, owners: dict[str, tuple[str, int]]) -> None:
    """Rule 7 on the paper notation: give every bonus this sheet now meets and nobody holds yet."""

    def points(m: str) -> int:
        return int(m.rstrip("d"))

    for row, line in marks.items():
        if "" in line or f"row:{row}" in owners or row == "summe":
            continue
        if row.startswith("schule") and all(m.startswith("x") for m in line):
            owners[f"row:{row}"] = (name, 5 * int(row[-1]))
        elif not row.startswith("schule") and not {"-", "/"} & set(line):
            owners[f"row:{row}"] = (name, max(points(m) for m in line))
    for column in range(3):
        cells = {row: line[column] for row, line in marks.items()}
        if "" in cells.values() or f"column:{column + 1}" in owners:
            continue
        if not any(m in ("-", "/", "0") for m in cells.values()):
            best = max(points(m) for row, m in cells.items() if not row.startswith("schule"))
            owners[f"column:{column + 1}"] = (name, best)


def test_sheet_replayed_game_exports_the_same_log(logged: GameLog) -> None:
    assert logged.to_jsonl() == LOG.read_text(encoding="utf-8")
    again = GameLog.from_jsonl(logged.to_jsonl())
    assert again.rules.view(again.state) == logged.rules.view(logged.state)


def test_sheet_undo_drops_the_last_action_and_folds_back(logged: GameLog) -> None:
    log = GameLog.from_jsonl(LOG.read_text(encoding="utf-8"))
    before = [log.rules.view(s) for s in [log.state]]
    removed = log.undo(1)
    assert removed[0].kind in ("enter", "strike")
    assert log.outcome() is None
    assert log.to_move() == removed[0].player
    log.play(removed[0])
    assert log.rules.view(log.state) == before[0]


# ----------------------------------------------------------------------------------------------- bad input


def refused(log: GameLog, action: dict[str, Any], error: type[Exception], match: str) -> None:
    """The action is refused with a message, and the game is exactly as before."""
    before_log, before_view = log.to_jsonl(), log.rules.view(log.state)
    with pytest.raises(error, match=match):
        log.play(action)
    assert log.to_jsonl() == before_log
    assert log.rules.view(log.state) == before_view


def test_sheet_bad_input_changes_nothing_and_says_why() -> None:
    log = new_game(("Anna", "Ben"), columns=1)
    enter(log, "paar", (1, 1, 2, 3, 4))
    enter(log, "paar", (1, 1, 2, 3, 4))
    refused(log, {"type": "enter", "player": 0, "row": "paar", "dice": [6, 6, 1, 2, 3]}, IllegalAction, "is full")
    refused(log, {"type": "strike", "player": 0, "row": "paar"}, IllegalAction, "is full")
    refused(log, {"type": "enter", "player": 1, "row": "summe", "dice": [1, 2, 3, 4, 5]}, IllegalAction, "already")
    refused(log, {"type": "throw", "player": 1, "dice": [1, 2, 3, 4, 5]}, IllegalAction, "Anna's turn, not Ben's")
    refused(log, {"type": "strike", "player": 0, "row": "schule_1"}, IllegalAction, "cannot be struck")
    refused(log, {"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5, 6]}, MalformedInput, "5 dice, not 6")
    refused(log, {"type": "enter", "player": 0, "row": "summe", "dice": [1, 2, 3, 4, 5, 6]}, MalformedInput, "not 6")
    refused(log, {"type": "enter", "player": 0, "row": "summe", "dice": [1, 2, 7, 4, 5]}, MalformedInput, "no die")
    refused(log, {"type": "enter", "player": 0, "row": "yahtzee", "dice": [1, 2, 3, 4, 5]}, MalformedInput, "no row")
    refused(log, {"type": "enter", "player": 0, "row": "summe"}, IllegalAction, "Throw first")
    refused(
        log,
        {"type": "enter", "player": 0, "row": "summe", "dice": [1, 2, 3, 4, 5], "throw": 4},
        MalformedInput,
        "1 to 3",
    )
    refused(
        log,
        {"type": "enter", "player": 0, "row": "summe", "dice": [1, 2, 3, 4, 5], "throw": 1, "all_five": False},
        MalformedInput,
        "first throw",
    )
    refused(log, {"type": "enter", "player": 5, "row": "summe", "dice": [1, 2, 3, 4, 5]}, MalformedInput, "no player 5")
    refused(log, {"type": "bet", "player": 0}, MalformedInput, "no action 'bet'")
    throw(log, (4, 4, 4, 1, 2))
    refused(log, {"type": "enter", "player": 0, "row": "summe", "dice": [4, 4, 4, 1, 3]}, IllegalAction, "differ")
    refused(log, {"type": "enter", "player": 0, "row": "summe", "all_five": False}, IllegalAction, "all five")
    refused(log, {"type": "enter", "player": 0, "row": "summe", "throw": 2}, IllegalAction, "not throw 2")
    refused(log, {"type": "throw", "player": 0, "dice": [4, 4, 5, 1, 2], "held": [0, 1, 2]}, IllegalAction, "held at 4")
    log.play({"type": "enter", "player": 0, "row": "summe", "dice": [4, 4, 4, 1, 2], "all_five": True, "throw": 1})
    assert cell(log, "summe")["value"] == 30


def test_sheet_refusals_say_what_to_do_in_this_game() -> None:
    """The shared turn's wording names a 'stand' that this game does not have; the sheet says: enter or strike."""
    log = new_game(("Anna", "Ben"))
    throw(log, (1, 2, 3, 4, 5))
    refused(
        log,
        {"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5], "held": [0, 1, 2, 3, 4]},
        IllegalAction,
        r"at least one die; to keep all five, enter them into a row",
    )
    refused(log, {"type": "enter", "player": 0, "row": "summe", "dice": [1, 2, 3, 4, 5, 5]}, MalformedInput, "not 6")
    refused(log, {"type": "enter", "player": 0, "row": "summe", "dice": [1, 2, 3, 4]}, MalformedInput, "not 4")
    throw(log, (1, 2, 3, 4, 6), held=(0, 1, 2, 3))
    throw(log, (1, 2, 3, 4, 6), held=(0, 1, 2, 3))
    refused(
        log,
        {"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5], "held": [0, 1, 2, 3]},
        IllegalAction,
        r"Anna has thrown 3 times, the most a turn allows; enter the dice into a row or strike a combination field\.",
    )
    for _ in range(3):
        log.play({"type": "strike", "player": log.to_move(), "row": "paar"})
        log.play({"type": "strike", "player": log.to_move(), "row": "paar"})
    refused(
        log,
        {"type": "strike", "player": 0, "row": "paar"},
        IllegalAction,
        r"The row Paar is full: all 3 fields are written; choose another row\.",
    )


def test_sheet_option_labels_say_why_and_what_is_lost() -> None:
    log = new_game(("Anna", "Ben"))
    enter(log, "schule_2", (2, 2, 2, 2, 1))  # Anna: reserve 2
    enter(log, "schule_6", (6, 6, 6, 1, 2))  # Ben
    log.play({"type": "strike", "player": 0, "row": "paar"})  # Anna gives up row Paar and column 1
    enter(log, "schule_6", (6, 6, 6, 1, 2))  # Ben
    throw(log, (5, 5, 1, 3, 4))
    labels = {(o.action, o.detail["fields"].get("row")): o.label for o in log.options()}
    assert labels[("enter", "schule_5")] == (
        "School 5 (column 1): zero (-200 at the end): it needs 5 from the reserve, which holds 2"
    )
    assert labels[("enter", "schule_2")] == "School 2 (column 2): zero (-200 at the end): no die shows 2"
    assert labels[("enter", "schule_1")] == "School 1 (column 1): closes by paying 2 from the reserve (left: 0)"
    assert labels[("strike", "paar")] == "Strike Pair (column 2): nothing; the column 2 bonus is lost"
    assert labels[("strike", "drilling")] == (
        "Strike Three of a kind (column 1): nothing; the Three of a kind row bonus is lost"
    )
    assert labels[("strike", "summe")] == "Strike Sum (column 1): nothing; no bonus is lost"
    assert labels[("enter", "fuenfling")] == (
        "Five of a kind (column 1): not made, the entry is a strike; the Five of a kind row bonus is lost"
    )


def test_sheet_outcome_names_the_winners() -> None:
    log = new_game(("Anna", "Ben"), columns=1)
    for row in ROW_IDS:
        for player in range(2):
            if row == "summe":
                enter(log, row, (6, 6, 6, 6, 6) if player else (1, 1, 1, 1, 2))
            elif row.startswith("schule"):
                enter(log, row, (1, 1, 1, 1, 1) if row != "schule_1" else (2, 2, 2, 2, 2))
            else:
                strike(log, row)
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (1,)
    assert outcome.reason == "Every sheet is full; Ben wins with the highest total, -1170."
    log.undo(2)
    enter(log, "summe", (6, 6, 6, 6, 6))
    enter(log, "summe", (6, 6, 6, 6, 6))
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (0, 1)
    assert outcome.reason == "Every sheet is full; Anna and Ben share the highest total, -1170."


def test_sheet_entry_after_throws_needs_no_dice_and_manual_entry_needs_them() -> None:
    log = new_game()
    throw(log, (2, 2, 3, 3, 6))
    log.play({"type": "enter", "player": 0, "row": "zwei_paare"})
    assert (cell(log, "zwei_paare")["value"], cell(log, "zwei_paare")["dice"]) == (20, [2, 2, 3, 3, 6])
    log.play({"type": "enter", "player": 0, "row": "zwei_paare", "dice": ["2", "2", "3", "3", "6"]})
    assert (cell(log, "zwei_paare", 1)["value"], cell(log, "zwei_paare", 1)["all_five"]) == (10, False)


def test_sheet_poker_dice_score_by_rank() -> None:
    log = new_game(dice="poker")
    log.play({"type": "enter", "player": 0, "row": "vierling", "dice": ["A", "A", "A", "A", "9"]})
    assert cell(log, "vierling")["value"] == 44
    with pytest.raises(MalformedInput, match="pip face"):
        log.play({"type": "enter", "player": 0, "row": "paar", "dice": [6, "6", 1, 2, 3]})
    assert rules_for("sheet").view(log.state)["rows"][5]["face"] == "A"


# ----------------------------------------------------------------------------------------------- options and view


def test_sheet_options_give_every_row_its_result_for_the_throw() -> None:
    log = new_game()
    enter(log, "schule_6", (6, 6, 6, 6, 6))  # reserve 12
    throw(log, (3, 3, 3, 3, 1))
    options = {(o.action, o.detail["fields"]["row"]): o for o in log.options() if o.action != "throw"}
    enters = {row: o for (kind, row), o in options.items() if kind == "enter"}
    assert set(enters) == set(ROW_IDS)  # every row still has a free field
    assert enters["schule_3"].detail["result"] == "closed" and enters["schule_3"].detail["reserve_change"] == 3
    assert enters["schule_1"].detail["result"] == "closed_with_reserve"
    assert (enters["schule_1"].detail["needs_reserve"], enters["schule_1"].detail["reserve_after"]) == (2, 10)
    assert enters["schule_2"].detail["result"] == "zero"
    assert enters["schule_6"].detail["column"] == 1
    assert (enters["vierling"].points, enters["vierling"].detail["doubled"]) == (64, True)
    assert enters["fuenfling"].detail["result"] == "struck"
    assert enters["summe"].points == 26
    strikes = {row for kind, row in options if kind == "strike"}
    assert options[("strike", "zwei_paare")].detail["label_de"] == "Zwei Paare"  # pages in German name the row
    assert options[("strike", "zwei_paare")].detail["label_en"] == "Two pairs"
    assert strikes == {r.id for r in COMBINATION_ROWS}
    throws = [o for o in log.options() if o.action == "throw"]
    assert len(throws) == 1 and throws[0].detail["throw"] == 2
    # every option is a playable action
    for option in log.options():
        if option.action != "throw":
            probe = GameLog.from_jsonl(log.to_jsonl())
            probe.play({"type": option.action, "player": option.player, **option.detail["fields"]})
            field = probe.rules.view(probe.state)["players"][0]["rows"][option.detail["fields"]["row"]]
            assert field[option.detail["column"]]["value"] == (option.points or 0)


def test_sheet_options_before_a_throw_and_after_three() -> None:
    log = new_game()
    kinds = Counter(o.action for o in log.options())
    assert kinds == {"throw": 1, "strike": len(COMBINATION_ROWS)}
    for dice in ((1, 2, 3, 4, 6), (1, 2, 3, 4, 5), (1, 2, 3, 4, 5)):
        throw(log, dice, held=(0, 1) if log.state.turn.started else ())
    assert "throw" not in {o.action for o in log.options()}


def test_sheet_view_is_json_with_turn_and_bonus_marks() -> None:
    log = new_game(("Anna", "Ben"))
    throw(log, (5, 5, 5, 5, 2))
    view = log.rules.view(log.state)
    assert json.loads(json.dumps(view)) == view
    assert view["turn"] == {
        "player": 0,
        "throws": 1,
        "max_throws": 3,
        "dice": [5, 5, 5, 5, 2],
        "faces": ["5", "5", "5", "5", "2"],
        "held": [],
        "all_five": True,
        "action": 0,  # the throw is the log's first action
        "doubled": True,
    }
    assert [b["id"] for b in view["bonuses"]][-3:] == ["column:1", "column:2", "column:3"]
    assert all(b["owner"] is None for b in view["bonuses"])
    assert all(m["reachable"] and not m["struck"] for p in view["players"] for m in p["bonuses"])
    summary = log.summary()
    assert summary["to_move"] == 0 and summary["view"] == view


def test_sheet_hand_gives_every_row() -> None:
    rules = rules_for("sheet")
    setup = rules.make_setup(["P1"])
    hand = rules.hand((5, 5, 5, 5, 2), setup, all_five=False)
    rows = {r["row"]: r for r in hand["rows"]}
    assert list(rows) == list(ROW_IDS)
    assert (rows["schule_5"]["result"], rows["schule_5"]["reserve_change"]) == ("closed", 5)
    assert (rows["schule_2"]["result"], rows["schule_2"]["needs_reserve"]) == ("closed_with_reserve", 4)
    assert rows["schule_1"]["result"] == "zero"
    assert (rows["vierling"]["points"], rows["paar"]["points"], rows["full_house"]["result"]) == (40, 10, "struck")
    assert (hand["category"], hand["points"], hand["doubled"]) == ("vierling", 40, False)
    doubled = rules.hand((5, 5, 5, 5, 2), setup, all_five=True)
    assert {r["row"]: r["points"] for r in doubled["rows"]}["summe"] == 44
    assert doubled["key"] == [80]
