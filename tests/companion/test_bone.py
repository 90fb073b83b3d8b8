import pytest

from companion.core import GameLog, rules_for
from companion.errors import IllegalAction, MalformedInput
from tests.companion.play import hand, hands, stand, throw

ROUND_A = [(0, (1, 2, 3, 4, 4)), (1, (6, 6, 2, 2, 1))]  # 25 and 15


def game(players: int = 2, **settings: object) -> GameLog:
    return GameLog.new("bone", [f"P{i}" for i in range(players)], settings)


def test_bone_rule_1_categories_and_points_highest_category_met() -> None:
    rules = rules_for("bone")
    setup = rules.make_setup(["A", "B"])
    table = {
        (5, 5, 5, 5, 5): ("five", 50),
        (5, 5, 5, 5, 1): ("four", 40),
        (5, 5, 5, 1, 1): ("full_house", 35),
        (1, 2, 3, 4, 5): ("large_straight", 30),
        (2, 3, 4, 5, 6): ("large_straight", 30),
        (1, 2, 3, 4, 4): ("small_straight", 25),
        (5, 5, 5, 1, 2): ("three", 20),
        (5, 5, 1, 1, 2): ("two_pairs", 15),
        (5, 5, 1, 2, 3): ("pair", 10),
        (6, 5, 3, 2, 1): ("high", 5),
    }
    for dice, (category, points) in table.items():
        answer = rules.hand(dice, setup)
        assert (answer["category"], answer["points"]) == (category, points), dice
    log = game()
    hands(log, ROUND_A)
    assert log.state.scores == (25, 15)


def test_bone_rule_2_one_throw_and_up_to_two_rethrows() -> None:
    log = game()
    throw(log, 0, (1, 1, 2, 3, 4))
    throw(log, 0, (1, 1, 5, 5, 4), held=(0, 1, 4))
    assert [o.action for o in log.options()] == ["throw", "stand"]
    before = log.summary()
    with pytest.raises(IllegalAction, match="turn"):
        throw(log, 1, (1, 1, 1, 1, 1))
    with pytest.raises(IllegalAction, match="held at 5"):
        throw(log, 0, (1, 1, 6, 5, 4), held=(0, 1, 2, 4))
    assert log.summary() == before
    throw(log, 0, (1, 1, 5, 5, 5), held=(0, 1, 2, 3))  # third throw ends the turn
    assert log.to_move() == 1
    assert log.state.stage.hands[0].throws == 3
    with pytest.raises(IllegalAction, match="Throw the dice before standing"):
        stand(log, 1)


def test_bone_rule_2_five_rounds_every_hand_scores_highest_total_wins() -> None:
    log = game(3)
    totals = [0, 0, 0]
    for number in range(1, 6):
        assert log.state.number == number
        starter = (number - 1) % 3
        assert log.to_move() == starter
        order = [(starter + i) % 3 for i in range(3)]
        dice = {0: (6, 6, 6, 6, 1), 1: (2, 2, 3, 3, 1), 2: (1, 2, 3, 5, 6)}
        hands(log, [(p, dice[p]) for p in order])
        totals = [t + d for t, d in zip(totals, (40, 15, 5), strict=True)]
        assert list(log.state.scores) == totals
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert [(s.player, s.place, s.score) for s in log.standings()] == [(0, 1, 200), (1, 2, 75), (2, 3, 25)]
    assert log.standings()[0].detail["rounds"] == [40] * 5
    with pytest.raises(IllegalAction, match="over"):
        throw(log, 0, (1, 1, 1, 1, 1))


def test_bone_rule_2_rounds_is_a_setting() -> None:
    log = game(rounds=1)
    hands(log, ROUND_A)
    assert log.outcome() is not None
    with pytest.raises(MalformedInput, match="rounds"):
        game(rounds=0)


def test_bone_rule_3_best_hand_shown_ties_by_higher_dice() -> None:
    log = game(3, rounds=2)
    hands(log, [(0, (3, 4, 5, 6, 1)), (1, (3, 4, 5, 6, 6)), (2, (2, 3, 4, 5, 5))])
    first = log.rules.view(log.state)["history"][0]
    assert first["best"] == [1]  # same top die: the fifth die decides
    assert first["points"] == [25, 25, 25]
    hands(log, [(1, (4, 4, 2, 2, 1)), (2, (4, 4, 2, 2, 1)), (0, (3, 3, 2, 2, 6))])
    assert log.rules.view(log.state)["history"][1]["best"] == [1, 2]  # an exact tie is shown shared


def test_bone_rule_3_equal_totals_at_the_end_play_one_more_round() -> None:
    log = game(3, rounds=1)
    hands(log, [(0, (1, 1, 2, 2, 3)), (1, (6, 6, 6, 5, 5)), (2, (5, 5, 5, 6, 6))])
    assert log.outcome() is None
    view = log.rules.view(log.state)
    assert view["round_kind"] == "extra" and view["stage"]["order"] == [1, 2]
    assert view["stage"]["sitting_out"] == [0]
    with pytest.raises(IllegalAction, match="P0 sits out this extra round"):
        throw(log, 0, (1, 1, 1, 1, 1))
    hands(log, [(1, (2, 2, 3, 3, 1)), (2, (3, 3, 2, 2, 1))])  # the same hand: an exact tie plays again
    assert log.outcome() is None and log.state.number == 3
    hands(log, [(1, (6, 6, 6, 6, 1)), (2, (1, 2, 3, 4, 4))])
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (1,)
    assert "2 extra rounds" in outcome.reason
    assert [s.score for s in log.standings()] == [35 + 15 + 40, 35 + 15 + 25, 15]
    assert log.standings()[2].detail["rounds"] == [15, None, None]


def test_bone_rule_3_setting_share_the_place() -> None:
    log = game(3, rounds=1, ties="share")
    hands(log, [(0, (1, 1, 2, 2, 3)), (1, (6, 6, 6, 5, 5)), (2, (5, 5, 5, 6, 6))])
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (1, 2)
    assert [(s.player, s.place) for s in log.standings()] == [(1, 1), (2, 1), (0, 3)]


def test_bone_options_carry_the_action_and_what_standing_gives() -> None:
    log = game()
    (first,) = log.options()
    assert first.detail["type"] == "throw" and first.detail["player"] == 0 and first.detail["needs"] == ["dice"]
    throw(log, 0, (2, 2, 2, 5, 5))
    stand_option = next(o for o in log.options() if o.action == "stand")
    assert stand_option.points == 35 and stand_option.detail["category"] == "full_house"
    assert stand_option.to_json()["type"] == "stand"


def test_bone_plays_with_poker_dice_when_set() -> None:
    log = game(dice="poker")
    hand(log, 0, ("A", "A", "A", "K", "K"))
    with pytest.raises(MalformedInput, match="pip face"):
        throw(log, 1, ("1", "2", "3", "4", "5"))
    assert log.rules.view(log.state)["stage"]["hands"][0]["faces"] == ["A", "A", "A", "K", "K"]


def test_bone_rule_3_faq_three_sixes_beat_three_fours() -> None:
    log = game(2, rounds=1)
    hands(log, [(0, (4, 4, 4, 1, 2)), (1, (6, 6, 6, 1, 2))])
    first = log.rules.view(log.state)["history"][0]
    assert first["best"] == [1] and first["points"] == [20, 20]  # same points, higher dice shown best
    assert log.outcome() is None and log.state.kind == "extra"  # equal totals: one more round


def test_bone_rule_3_extra_round_is_won_by_the_higher_dice_at_equal_points() -> None:
    log = game(2, rounds=1)
    hands(log, [(0, (4, 4, 4, 1, 2)), (1, (4, 4, 4, 1, 2))])
    hands(log, [(0, (4, 4, 4, 1, 2)), (1, (6, 6, 6, 1, 2))])  # 20 points each: three 6s beat three 4s
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (1,)
    assert [(s.player, s.place, s.score) for s in log.standings()] == [(1, 1, 40), (0, 2, 40)]


def test_bone_a_fourth_throw_or_a_hold_after_standing_is_refused_with_the_reason() -> None:
    log = game(2)
    with pytest.raises(IllegalAction, match="It is P0's turn, not P1's"):
        throw(log, 1, (1, 1, 1, 1, 1))
    throw(log, 0, (1, 2, 3, 5, 5))
    throw(log, 0, (1, 2, 3, 5, 5), held=(3, 4))
    throw(log, 0, (5, 2, 3, 5, 5), held=(1, 2, 3, 4))  # the third throw locks the hand in
    before = log.summary()
    with pytest.raises(IllegalAction, match="P0's hand is locked in after 3 throws; it is P1's turn"):
        throw(log, 0, (5, 5, 3, 5, 5), held=(0, 2, 3, 4))
    with pytest.raises(IllegalAction, match="P0's hand is locked in"):
        stand(log, 0)
    assert log.summary() == before
    hands(log, [(1, (6, 6, 6, 1, 2)), (1, (2, 2, 2, 1, 1))])  # round 2 starts with P1, who stands at once
    with pytest.raises(IllegalAction, match="P1's hand is locked in after 1 throw;"):
        throw(log, 1, (2, 2, 2, 2, 1), held=(0, 1, 2, 3))


def test_bone_view_running_total_counts_a_hand_as_soon_as_it_stands() -> None:
    # the block shows the total with the hands already stood in the round, not only when the round is settled
    log = game()
    hands(log, ROUND_A)  # round 1 settled: 25 and 15
    assert log.summary()["view"]["running"] == [25, 15]
    hands(log, [(1, (5, 5, 5, 5, 1))])  # round 2 starts with seat 1: its 40 counts at once
    view = log.summary()["view"]
    assert view["scores"] == [25, 15] and view["running"] == [25, 55]
