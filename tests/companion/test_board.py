"""Würfel Poker, the board game (RULES.md ``board``): one test per rule, the rule text's examples, golden hands."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from itertools import combinations_with_replacement, product
from pathlib import Path
from typing import Any

import pytest

from companion.board_hands import Category, rank_row
from companion.core import Action, GameLog, rules_for
from companion.errors import IllegalAction, MalformedInput
from companion.games.board import BoardState, row_result
from web.cli import main as cli_main

GOLDEN = Path(__file__).parent / "golden"
# Anna wins row 1 (three 6s over a straight), Ben row 2 (a straight over a single), Anna row 3 (5-5 over 4-4).
ANNA_2_1 = ([[6, 6, 6], [1, 2, 4], [5, 5, 1]], [[5, 4, 6], [3, 2, 1], [4, 4, 6]])
Turn = tuple[Sequence[int], Sequence[tuple[int, int]]]  # throw, then (value, row) for thrower, opponent, thrower


def new_log(starter: int = 0, **settings: object) -> GameLog:
    log = GameLog.new("board", ["Anna", "Ben"], settings)
    log.play({"type": "choose_starter", "player": starter})
    return log


def turn(log: GameLog, dice: Sequence[int], places: Sequence[tuple[int, int]]) -> None:
    """One throw and its three placements, each (value, row) on the placer's own side."""
    thrower = log.to_move()
    log.play({"type": "throw", "player": thrower, "dice": list(dice)})
    for value, row in places:
        log.play({"type": "place", "player": log.to_move(), "value": value, "row": row})


def fill(log: GameLog, rows: tuple[Sequence[Sequence[int]], Sequence[Sequence[int]]]) -> None:
    """Play one whole game so that each seat's side ends as ``rows[seat]`` (three rows of three dice).

    Each throw gives the thrower two dice and the opponent one, in the rule-2 order; every seat's
    dice go to its rows top to bottom.
    """
    queues = [[(value, row) for row, dice in enumerate(rows[seat]) for value in dice] for seat in (0, 1)]
    for _ in range(6):
        thrower = log.to_move()
        assert thrower is not None
        first, second = queues[thrower].pop(0), queues[thrower].pop(0)
        middle = queues[1 - thrower].pop(0)
        turn(log, [first[0], middle[0], second[0]], [first, middle, second])


def finish(log: GameLog, dice: Iterator[int]) -> None:
    """Play the current game to its end: throws from ``dice``, each die to the first field offered."""
    state: BoardState = log.state
    number = state.games[-1].number
    while not (log.state.games[-1].number == number and log.state.games[-1].complete):
        options = log.options()
        if options[0].action == "throw":
            log.play({"type": "throw", "player": options[0].player, "dice": [next(dice) for _ in range(3)]})
        else:
            d = options[0].detail
            log.play(
                {"type": "place", "player": options[0].player, "die": d["die"], "row": d["row"], "slot": d["slot"]}
            )


def cycle(values: Sequence[int]) -> Iterator[int]:
    while True:
        yield from values


def view(log: GameLog) -> dict[str, Any]:
    result: dict[str, Any] = log.rules.view(log.state)
    return result


def refused(log: GameLog, action: dict[str, object] | Action, error: type[Exception], match: str) -> None:
    """The action is refused with ``error`` and changes nothing."""
    before_len, before_state, before_view = len(log), log.state, json.dumps(view(log))
    with pytest.raises(error, match=match):
        log.play(action)
    assert len(log) == before_len
    assert log.state is before_state
    assert json.dumps(view(log)) == before_view


# --------------------------------------------------------------------------- rule 1


def test_board_rule_1_exactly_two_players() -> None:
    rules = rules_for("board")
    with pytest.raises(MalformedInput, match="played by 2 players, not 3"):
        rules.make_setup(["A", "B", "C"])
    with pytest.raises(MalformedInput, match="played by 2 players, not 1"):
        rules.make_setup(["A"])


def test_board_rule_1_higher_single_die_starts_and_a_tie_throws_again() -> None:
    log = GameLog.new("board", ["Anna", "Ben"])
    assert view(log)["phase"] == "start"
    refused(log, {"type": "throw", "player": 0, "dice": [1, 2, 3]}, IllegalAction, "who starts")
    log.play({"type": "roll_off", "player": 0, "dice": [4]})
    refused(log, {"type": "roll_off", "player": 0, "dice": [5]}, IllegalAction, "Anna has already thrown; now Ben")
    assert log.to_move() == 1
    log.play({"type": "roll_off", "player": 1, "dice": [4]})
    assert view(log)["starter"] is None  # a tie: both throw again
    assert {o.player for o in log.options() if o.action == "roll_off"} == {0, 1}
    log.play({"type": "roll_off", "player": 1, "dice": [6]})
    log.play({"type": "roll_off", "player": 0, "dice": [2]})
    v = view(log)
    assert (v["starter"], v["starter_by"], v["roll_offs"]) == (1, "roll_off", [[4, 4], [2, 6]])
    assert log.to_move() == 1
    assert [o.action for o in log.options()] == ["throw"]
    refused(log, {"type": "roll_off", "player": 0, "dice": [6]}, IllegalAction, "already decided")


def test_board_rule_1_starter_by_choice_and_roll_off_takes_one_die() -> None:
    log = GameLog.new("board", ["Anna", "Ben"])
    refused(log, {"type": "roll_off", "player": 0, "dice": [4, 5]}, MalformedInput, "one die per player, not 2")
    assert [o.label for o in log.options() if o.action == "choose_starter"] == [
        "Anna starts (by choice)",
        "Ben starts (by choice)",
    ]
    log.play({"type": "choose_starter", "player": 1})
    assert (view(log)["starter"], view(log)["starter_by"], log.to_move()) == (1, "choice", 1)
    refused(log, {"type": "choose_starter", "player": 0}, IllegalAction, "already decided")


# --------------------------------------------------------------------------- rule 2


def test_board_rule_2_thrower_opponent_thrower_and_throwers_alternate() -> None:
    log = new_log(starter=0)
    refused(log, {"type": "throw", "player": 1, "dice": [1, 2, 3]}, IllegalAction, "Anna's turn to throw, not Ben's")
    refused(log, {"type": "throw", "player": 0, "dice": [1, 2]}, MalformedInput, "3 dice, not 2")
    log.play({"type": "throw", "player": 0, "dice": [6, 2, 3]})
    refused(log, {"type": "throw", "player": 0, "dice": [1, 2, 3]}, IllegalAction, "Place the dice")
    placers = []
    for value in (6, 2, 3):
        placer = log.to_move()
        assert placer is not None
        placers.append(placer)
        name = ("Anna", "Ben")[placer]
        refused(log, {"type": "place", "player": 1 - placer, "value": value, "row": 0}, IllegalAction, f"{name}'s turn")
        log.play({"type": "place", "player": placer, "value": value, "row": 0})
    assert placers == [0, 1, 0]
    assert log.to_move() == 1  # the other player throws next
    assert log.options()[0].action == "throw"


def test_board_rule_2_six_throws_three_each_fill_all_18_fields() -> None:
    log = new_log(starter=1)
    throwers = []
    while not log.state.games[-1].complete:
        if log.options()[0].action == "throw":
            throwers.append(log.to_move())
        finish_one = log.options()[0]
        if finish_one.action == "throw":
            log.play({"type": "throw", "player": finish_one.player, "dice": [1, 3, 5]})
        else:
            d = finish_one.detail
            log.play({"type": "place", "player": finish_one.player, "die": d["die"], "row": d["row"]})
    assert throwers == [1, 0, 1, 0, 1, 0]
    game = log.state.games[-1]
    assert len(game.placements) == 18
    assert [p.order for p in game.placements] == list(range(1, 19))
    for seat in (0, 1):
        assert sum(1 for p in game.placements if p.player == seat) == 9
        assert all(len(game.side_placements(row, seat)) == 3 for row in range(3))


def test_board_rule_2_placement_names_die_by_position_or_value_and_refuses_bad_ones() -> None:
    log = new_log(starter=0)
    log.play({"type": "throw", "player": 0, "dice": [5, 2, 5]})
    refused(log, {"type": "place", "player": 0, "value": 4, "row": 0}, IllegalAction, "No 4 is left")
    refused(log, {"type": "place", "player": 0, "die": 1, "value": 5, "row": 0}, IllegalAction, "shows 2, not 5")
    refused(log, {"type": "place", "player": 0, "die": 3, "row": 0}, MalformedInput, "position 0 to 2")
    refused(log, {"type": "place", "player": 0, "row": 0}, MalformedInput, "position \\('die'\\) or its value")
    refused(log, {"type": "place", "player": 0, "die": 0, "row": 3}, MalformedInput, "rows are 0 to 2")
    refused(log, {"type": "place", "player": 0, "die": 0, "row": 0, "slot": 3}, MalformedInput, "fields")
    refused(log, {"type": "place", "player": 0, "die": 0, "row": 0, "side": 1}, IllegalAction, "left side only")
    refused(log, {"type": "place", "player": 0, "die": 0, "row": 0, "bogus": 1}, MalformedInput, "no field 'bogus'")
    log.play({"type": "place", "player": 0, "value": 5, "row": 0, "slot": 2})
    assert log.state.games[-1].placements[-1].die == 0  # the first 5 of the throw
    refused(log, {"type": "place", "player": 1, "die": 0, "row": 0}, IllegalAction, "Die 1 of this throw \\(5\\) is")
    log.play({"type": "place", "player": 1, "value": 5, "row": 1})
    assert log.state.games[-1].placements[-1].die == 2
    refused(log, {"type": "place", "player": 0, "value": 5, "row": 0}, IllegalAction, "No 5 is left")
    refused(log, {"type": "place", "player": 0, "die": 1, "row": 0, "slot": 2}, IllegalAction, "Field 3 of row 1 ")
    log.play({"type": "place", "player": 0, "die": 1, "row": 0})
    assert [(p.slot, p.value) for p in log.state.games[-1].side_placements(0, 0)] == [(2, 5), (0, 2)]


def test_board_rule_2_a_full_row_side_is_refused() -> None:
    log = new_log(starter=0)
    turn(log, [1, 2, 3], [(1, 0), (2, 0), (3, 0)])
    turn(log, [4, 5, 6], [(4, 0), (5, 0), (6, 1)])
    turn(log, [1, 1, 1], [(1, 1), (1, 0), (1, 1)])  # Anna's and Ben's row 1 are now full
    log.play({"type": "throw", "player": 1, "dice": [2, 2, 2]})
    refused(log, {"type": "place", "player": 1, "value": 2, "row": 0}, IllegalAction, "Row 1 on the right side is full")
    assert {o.detail["row"] for o in log.options()} == {1, 2}


def test_board_poker_dice_faces_are_accepted_for_throws_and_values() -> None:
    log = new_log(starter=0, dice="poker")
    log.play({"type": "throw", "player": 0, "dice": ["K", "A", "9"]})
    refused(log, {"type": "place", "player": 0, "value": "5", "row": 0}, MalformedInput, "pip face")
    log.play({"type": "place", "player": 0, "value": "K", "row": 0})
    placed = view(log)["rows"][0]["sides"][0]["fields"][0]
    assert (placed["value"], placed["face"]) == (5, "K")
    # messages name the dice by their printed faces, as the table shows them
    refused(log, {"type": "place", "player": 1, "die": 0, "row": 0}, IllegalAction, "Die 1 of this throw \\(K\\)")


# --------------------------------------------------------------------------- rule 3


def test_board_rule_3_categories_three_alike_straight_pair_single() -> None:
    assert rank_row([2, 2, 2]).category is Category.THREE_OF_A_KIND
    assert rank_row([2, 1, 3]).category is Category.STRAIGHT
    assert rank_row([5, 5, 1]).category is Category.PAIR
    assert rank_row([6, 3, 1]).category is Category.SINGLE
    assert rank_row([1, 1, 1]) > rank_row([6, 5, 4]) > rank_row([6, 6, 5]) > rank_row([6, 5, 3])


def test_board_rule_3_straight_has_no_wrap_6_1_2() -> None:
    assert rank_row([6, 1, 2]).category is Category.SINGLE
    assert rank_row([5, 6, 1]).category is Category.SINGLE
    assert rank_row([3, 1, 2]) < rank_row([4, 2, 3]) < rank_row([6, 4, 5])


def test_board_rule_3_within_a_category() -> None:
    assert rank_row([4, 4, 4]) > rank_row([3, 3, 3])  # three alike by value
    assert rank_row([4, 3, 2]) < rank_row([6, 5, 4])  # straight by its top die
    assert rank_row([3, 3, 4]) > rank_row([2, 2, 1])  # pair by its value
    assert rank_row([2, 2, 6]) < rank_row([3, 3, 1])  # ... before the odd die
    assert rank_row([4, 4, 3]) > rank_row([4, 4, 2])  # then the odd die
    assert rank_row([6, 2, 1]) > rank_row([5, 4, 2])  # singles by the highest die
    # The rule text's own example "6-2-1 is higher than 5-4-3" cannot hold: 5-4-3 is a straight (rule 3).
    assert rank_row([6, 2, 1]) < rank_row([5, 4, 3])
    assert rank_row([6, 5, 1]) > rank_row([6, 4, 3])  # then the next


def test_board_all_56_hands_match_the_golden_listing() -> None:
    hands = sorted(rank_row(d) for d in combinations_with_replacement(range(1, 7), 3))
    assert len(hands) == 56 and len({h.key for h in hands}) == 56  # equal keys only for equal dice
    lines = [ln.split() for ln in (GOLDEN / "board_hands.txt").read_text(encoding="utf-8").splitlines()[1:]]
    assert [(ln[1], ln[2]) for ln in lines] == [("-".join(map(str, h.dice)), h.to_json()["category"]) for h in hands]
    assert [json.loads("".join(ln[3:])) for ln in lines] == [list(h.key) for h in hands]


# --------------------------------------------------------------------------- rule 4


def _identical_row_0() -> GameLog:
    """Row 0 ends 6-4-1 on both sides: the left side's first die lies first, the right side's third die does."""
    log = new_log(starter=0)
    turn(log, [6, 6, 4], [(6, 0), (6, 0), (4, 0)])  # orders 1 (left), 2 (right), 3 (left)
    turn(log, [4, 3, 1], [(4, 0), (3, 1), (1, 0)])  # 4 (right), 5 (left, row 1), 6 (right: third die)
    turn(log, [1, 2, 2], [(1, 0), (2, 1), (2, 1)])  # 7 (left: third die)
    return log


def test_board_rule_4_identical_sides_third_die_placed_first() -> None:
    log = _identical_row_0()
    result = row_result(log.state.games[-1], 0, "third")
    assert result is not None
    assert result.hands[0] == result.hands[1]
    assert (result.winner, result.reason) == (1, "placement")
    assert "third die on the right was placed first (placement 6 before 7)" in result.because
    assert view(log)["rows"][0]["result"]["winner"] == 1


def test_board_rule_4_setting_identical_sides_first_die_placed_first() -> None:
    log = GameLog.new("board", ["Anna", "Ben"], {"tie_break": "first"})
    log.play({"type": "choose_starter", "player": 0})
    for action in _identical_row_0().actions[1:]:
        log.play(action)
    result = row_result(log.state.games[-1], 0, "first")
    assert result is not None
    assert (result.winner, result.reason) == (0, "placement")
    assert "first die on the left was placed first (placement 1 before 2)" in result.because
    with pytest.raises(MalformedInput, match="tie_break"):
        rules_for("board").make_setup(["A", "B"], {"tie_break": "last"})


def test_board_rule_4_each_row_scores_one_point_and_game_ends_3_0_or_2_1() -> None:
    log = new_log(starter=0)
    fill(log, ANNA_2_1)
    v = view(log)
    reasons = [(r["result"]["winner"], r["result"]["reason"]) for r in v["rows"]]
    assert reasons == [(0, "category"), (1, "category"), (0, "higher")]
    assert v["games"] == [{"number": 1, "starter": 0, "complete": True, "score": [2, 1], "winner": 0}]
    assert v["points"] == [2, 1]
    log2 = new_log(starter=1)
    fill(log2, ([[1, 1, 1], [2, 2, 2], [3, 3, 3]], [[4, 4, 4], [5, 5, 5], [6, 6, 6]]))
    assert view(log2)["games"][0]["score"] == [0, 3]


# --------------------------------------------------------------------------- rule 5


def test_board_rule_5_match_to_five_points_loser_of_a_game_starts_the_next() -> None:
    log = new_log(starter=0)
    fill(log, ([[1, 1, 1], [2, 2, 2], [6, 6, 6]], [[4, 4, 4], [5, 5, 5], [1, 2, 4]]))  # Ben 2:1
    assert log.outcome() is None
    assert (view(log)["next_game_starter"], log.to_move()) == (0, 0)  # Anna lost, Anna starts
    refused(log, {"type": "throw", "player": 1, "dice": [1, 2, 3]}, IllegalAction, "Anna's turn to throw")
    fill(log, ([[6, 6, 6], [5, 5, 5], [4, 4, 4]], [[1, 1, 1], [2, 2, 2], [3, 3, 3]]))  # Anna 3:0
    assert view(log)["games"][1]["starter"] == 0
    assert view(log)["points"] == [4, 2] and log.outcome() is None
    assert log.to_move() == 1  # Ben lost game 2
    fill(log, ANNA_2_1)
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert outcome.reason == "Anna reached 5 points: 6:3 after 3 games."
    assert [(s.name, s.place, s.score, s.detail["games_won"]) for s in log.standings()] == [
        ("Anna", 1, 6, 2),
        ("Ben", 2, 3, 1),
    ]
    assert log.to_move() is None and log.options() == []
    refused(log, {"type": "throw", "player": 1, "dice": [1, 2, 3]}, IllegalAction, "match is over")


def test_board_rule_5_two_games_can_decide_and_points_to_win_is_a_setting() -> None:
    log = new_log(starter=0)
    fill(log, ([[6, 6, 6], [5, 5, 5], [4, 4, 4]], [[1, 1, 1], [2, 2, 2], [3, 3, 3]]))  # 3:0
    fill(log, ANNA_2_1)  # 2:1, Ben started
    assert view(log)["games"][1]["starter"] == 1
    outcome = log.outcome()
    assert outcome is not None and outcome.reason == "Anna reached 5 points: 5:1 after 2 games."
    short = new_log(starter=0, points_to_win=3)
    fill(short, ([[6, 6, 6], [5, 5, 5], [4, 4, 4]], [[1, 1, 1], [2, 2, 2], [3, 3, 3]]))
    assert short.outcome() is not None
    # Equal totals at the target play on: 2:1 then 1:2 is 3:3 with a target of 3.
    even = new_log(starter=0, points_to_win=3)
    fill(even, ANNA_2_1)
    fill(even, (ANNA_2_1[1], ANNA_2_1[0]))
    assert view(even)["points"] == [3, 3] and even.outcome() is None and even.to_move() == 0


# --------------------------------------------------------------------------- rule 6


def test_board_rule_6_either_side_variant_allows_the_other_side() -> None:
    plain = new_log(starter=0)
    plain.play({"type": "throw", "player": 0, "dice": [1, 2, 3]})
    assert {o.detail["side"] for o in plain.options()} == {0}
    log = new_log(starter=0, either_side=True)
    log.play({"type": "throw", "player": 0, "dice": [1, 2, 3]})
    assert {o.detail["side"] for o in log.options()} == {0, 1}
    log.play({"type": "place", "player": 0, "value": 1, "row": 2, "side": 1})  # Anna spoils Ben's row 3
    log.play({"type": "place", "player": 1, "value": 2, "row": 2, "side": 0})
    cell = view(log)["rows"][2]["sides"][1]["fields"][0]
    assert (cell["value"], cell["by"], cell["side"]) == (1, 0, 1)
    log.play({"type": "place", "player": 0, "value": 3, "row": 0})
    finish(log, cycle([6, 5, 4, 3, 2, 1, 1, 1]))
    game = log.state.games[-1]
    assert game.complete and sum(1 for p in game.placements if p.side != p.player) >= 2
    assert sorted(view(log)["games"][0]["score"]) in ([0, 3], [1, 2])


# --------------------------------------------------------------------------- rule 7 and the rule text


@pytest.mark.parametrize(
    ("better", "worse"),
    [((4, 4, 4), (6, 5, 4)), ((3, 1, 2), (6, 6, 1)), ((5, 5, 3), (5, 5, 2)), ((6, 4, 1), (6, 3, 2))],
)
def test_board_rule_7_worked_examples(better: tuple[int, int, int], worse: tuple[int, int, int]) -> None:
    assert rank_row(better) > rank_row(worse)
    log = new_log(starter=0)  # and on the board: Anna's row 1 holds the better hand, Ben's the worse
    fill(log, ([list(better), [1, 1, 1], [6, 6, 6]], [list(worse), [2, 2, 2], [1, 1, 1]]))
    result = view(log)["rows"][0]["result"]
    assert result["winner"] == 0
    assert result["reason"] == ("category" if rank_row(better).category != rank_row(worse).category else "higher")


def test_board_rule_text_scoring_example_two_points_to_one() -> None:
    """Anna: pair of 5s beats pair of 4s; Ben: straight 2-3-4 wins row 2; Anna: pair of 3s wins row 3."""
    log = new_log(starter=0)
    fill(log, ([[5, 5, 1], [6, 6, 1], [3, 3, 2]], [[4, 4, 6], [2, 3, 4], [6, 5, 1]]))
    rows = view(log)["rows"]
    becauses = [r["result"]["because"] for r in rows]
    assert becauses == [
        "pair of 5s with a 1 beats pair of 4s with a 6",
        "a straight beats a pair",
        "a pair beats a single",
    ]
    assert view(log)["games"][0]["score"] == [2, 1]


def test_board_rule_text_example_5_in_row_1_makes_the_higher_pair() -> None:
    """Ben places the 5 in row 1: his pair beats Anna's pair of 4s; only a third 4 can win Anna the row."""
    log = new_log(starter=0)
    turn(log, [4, 5, 4], [(4, 0), (5, 0), (4, 0)])  # Anna 4-4 in row 1, Ben a 5
    log.play({"type": "throw", "player": 1, "dice": [5, 1, 2]})
    option = next(o for o in log.options() if o.detail["value"] == 5 and o.detail["row"] == 0)
    assert option.detail["makes"]["category"] == "pair"
    assert rank_row(option.detail["makes"]["sorted"]) > rank_row(option.detail["opponent_side"]["sorted"])
    log.play({"type": "place", "player": 1, "value": 5, "row": 0})
    for ben_third, anna_third in product(range(1, 7), repeat=2):
        anna_wins = rank_row([4, 4, anna_third]) > rank_row([5, 5, ben_third])
        assert not anna_wins or anna_third == 4
        assert anna_wins or anna_third != 4 or ben_third == 5  # a third 4 wins unless Ben makes three 5s
    log.play({"type": "place", "player": 0, "value": 1, "row": 1})
    log.play({"type": "place", "player": 1, "value": 2, "row": 0})  # Ben's row 1: 5-5-2
    log.play({"type": "throw", "player": 0, "dice": [4, 3, 6]})
    win = next(o for o in log.options() if o.detail["value"] == 4 and o.detail["row"] == 0)
    assert win.detail["makes"]["category"] == "three_of_a_kind"
    assert win.detail["row_result"]["winner"] == 0 and win.detail["row_result"]["reason"] == "category"
    lose = next(o for o in log.options() if o.detail["value"] == 6 and o.detail["row"] == 0)
    assert lose.detail["row_result"]["winner"] == 1


def _dilemma() -> GameLog:
    """Anna 4-5 | Ben 3-4 in row 1, Anna 2-2 | Ben 6 in row 2; Ben throws 5 6 2 and chooses first."""
    log = new_log(starter=0)
    turn(log, [4, 3, 2], [(4, 0), (3, 0), (2, 1)])
    turn(log, [4, 5, 6], [(4, 0), (5, 0), (6, 1)])
    turn(log, [2, 1, 1], [(2, 1), (1, 2), (1, 2)])
    log.play({"type": "throw", "player": 1, "dice": [5, 6, 2]})
    return log


def test_board_rule_text_dilemma_5_for_row_1_leaves_anna_the_higher_straight() -> None:
    log = _dilemma()
    assert log.to_move() == 1
    log.play({"type": "place", "player": 1, "value": 5, "row": 0})  # Ben: 3-4-5
    six = next(o for o in log.options() if o.detail["value"] == 6 and o.detail["row"] == 0)
    assert six.detail["makes"]["text_en"] == "straight 4-5-6"
    assert six.detail["row_result"]["winner"] == 0
    assert six.detail["row_result"]["because"] == "straight 4-5-6 beats straight 3-4-5"


def test_board_rule_text_dilemma_6_for_row_2_gives_up_three_2s_but_keeps_a_higher_three() -> None:
    log = _dilemma()
    log.play({"type": "place", "player": 1, "value": 6, "row": 1})  # Ben: 6-6 in row 2
    two = next(o for o in log.options() if o.detail["value"] == 2 and o.detail["row"] == 1)
    assert two.detail["makes"]["category"] == "three_of_a_kind"
    assert not any(o.detail["makes"]["category"] == "straight" for o in log.options())  # the 6 is gone
    log.play({"type": "place", "player": 0, "value": 2, "row": 1})
    log.play({"type": "place", "player": 1, "value": 5, "row": 0})  # Ben still makes 3-4-5 in row 1
    rows = view(log)["rows"]
    assert rows[0]["sides"][1]["hand"]["text_en"] == "straight 3-4-5"
    anna, ben = rank_row([2, 2, 2]), rank_row([6, 6])
    assert [third for third in range(1, 7) if rank_row([*ben.dice, third]) > anna] == [6]


# --------------------------------------------------------------------------- options, view, hand


def test_board_options_carry_the_fields_of_the_json_action() -> None:
    log = new_log(starter=0)
    log.play({"type": "throw", "player": 0, "dice": [3, 3, 5]})
    options = log.options()
    assert len(options) == 2 * 9  # two distinct values, nine free fields each
    for option in options:
        d = option.detail
        action = {"type": option.action, "player": option.player, "die": d["die"], "row": d["row"]}
        action |= {"slot": d["slot"], "side": d["side"]}
        log.check(action)
    assert options[0].to_json()["makes"]["complete"] is False


def test_board_view_shows_throw_dice_left_and_placement_order() -> None:
    log = new_log(starter=1)
    log.play({"type": "throw", "player": 1, "dice": [2, 6, 2]})
    log.play({"type": "place", "player": 1, "die": 1, "row": 2, "slot": 1})
    v = view(log)
    assert v["throw"] == {
        "number": 1,
        "thrower": 1,
        "dice": [2, 6, 2],
        "faces": ["2", "6", "2"],
        "placed": [False, True, False],
        "left": [0, 2],
        "action": len(log) - 2,  # the throw, just before the placement
    }
    cell = v["rows"][2]["sides"][1]["fields"][1]
    assert (cell["value"], cell["order"], cell["by"], cell["action"]) == (6, 1, 1, len(log) - 2)
    assert (v["phase"], v["to_move"], v["game"], v["game_starter"]) == ("place", 0, 1, 1)


def test_board_undo_restores_the_previous_state() -> None:
    log = _dilemma()
    before = json.dumps(view(log))
    log.play({"type": "place", "player": 1, "value": 5, "row": 0})
    log.undo()
    assert json.dumps(view(log)) == before


def test_board_hand_refuses_other_counts() -> None:
    rules = rules_for("board")
    setup = rules.make_setup(["A", "B"])
    assert rules.hand([6, 5, 4], setup)["key"] == [2, 6]
    with pytest.raises(MalformedInput, match=r"three dice \(one row side\), not 5"):
        rules.hand([1, 2, 3, 4, 5], setup)


def test_board_becher_hand_cli_4_4_4(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["hand", "--game", "board", "4", "4", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["category"], out["label"], out["label_en"], out["points"], out["key"]) == (
        "three_of_a_kind",
        "Drilling",
        "Three of a kind",
        None,
        [3, 4],
    )
    assert cli_main(["hand", "--game", "board", "4", "4"]) == 2
    assert "three dice" in json.loads(capsys.readouterr().err)["error"]


def test_board_actions_built_in_code_with_bools_are_refused_so_every_log_replays() -> None:
    from companion.games.board import ChooseStarter, Place, Throw

    log = GameLog.new("board", ["Anna", "Ben"])
    refused(log, ChooseStarter(True), MalformedInput, "no player True")
    log.play(ChooseStarter(0))
    log.play(Throw(0, (1, 2, 3)))
    refused(log, Place(0, row=True, die=0), MalformedInput, "'row' of a placement")
    refused(log, Place(0, row=0, die=False), MalformedInput, "'die' of a placement")
    log.play(Place(0, row=0, die=0))
    assert GameLog.from_jsonl(log.to_jsonl()).summary() == log.summary()
