"""The hold advisor (companion.advice): hand-checked positions per game, an exhaustive count over ordered throws, and
a seeded simulation of play agreeing with the exact values within its error."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from fractions import Fraction

import pytest

from companion.advice import (
    Advice,
    Beat,
    Points,
    SheetEntry,
    advise,
    advise_setup,
    advise_state,
    entry_value,
    holds_of,
    rethrow_outcomes,
)
from companion.core import GameLog, rules_for
from companion.errors import IllegalAction, MalformedInput
from companion.hands import BONE, CLASSIC, CLASSIC_POINTS, POKERDICE, HandRules, evaluate
from companion.sheet_rows import ROWS, row_by_id


def value_of(advice: Advice, keep: Sequence[int]) -> float:
    wanted = tuple(sorted(keep, reverse=True))
    return next(h.value for h in advice.holds if h.keep == wanted)


# --------------------------------------------------------------------------- the machinery


def test_rethrow_outcomes_are_the_multisets_with_multinomial_weights() -> None:
    for k in range(6):
        outcomes = rethrow_outcomes(k)
        assert len(outcomes) == math.comb(k + 5, 5)  # multisets of k faces out of 6
        assert math.isclose(sum(p for _, p in outcomes), 1.0)
    weights = dict(rethrow_outcomes(2))
    assert weights[(6, 6)] == pytest.approx(1 / 36) and weights[(6, 5)] == pytest.approx(2 / 36)
    assert len(rethrow_outcomes(5)) == 252


def test_every_distinct_sub_multiset_is_a_hold() -> None:
    assert len(holds_of((6, 6, 6, 6, 6))) == 6  # keep 0..5 sixes
    assert len(holds_of((6, 5, 4, 3, 2))) == 32
    assert len(holds_of((6, 6, 5, 5, 1))) == 3 * 3 * 2
    assert all(h[:2] == (6, 6) for h in holds_of((6, 6, 5, 5, 1), fixed=(6, 6)))


# --------------------------------------------------------------------------- bone: points


@pytest.mark.parametrize("left", [0, 1, 2])
def test_bone_five_sixes_stands_for_50_points_with_any_throws_left(left: int) -> None:
    advice = advise((6, 6, 6, 6, 6), left, Points(BONE))
    assert advice.best.keep == (6, 6, 6, 6, 6) and advice.best.stands and advice.best.value == 50.0
    assert all(h.value < 50.0 for h in advice.holds[1:])
    assert len(advice.holds) == (1 if left == 0 else 6)


def test_bone_one_die_to_rethrow_by_hand() -> None:
    # keep four sixes, one die left to throw: a six (1/6) makes five alike (50), else four alike (40)
    one = advise((6, 6, 6, 6, 1), 1, Points(BONE))
    assert one.best.keep == (6, 6, 6, 6) and one.best.value == pytest.approx(40 + 10 / 6)
    assert value_of(one, (6, 6, 6, 6, 1)) == 40.0
    # with two throws left a miss may be thrown again: 1/6 * 50 + 5/6 * (40 + 10/6)
    two = advise((6, 6, 6, 6, 1), 2, Points(BONE))
    assert two.best.value == pytest.approx(50 / 6 + 5 / 6 * (40 + 10 / 6))


def test_bone_a_straight_draw_by_hand() -> None:
    # 1-2-3-4 kept: a 5 makes the Große Straße (30); anything else leaves a Kleine Straße (25)
    advice = advise((4, 3, 2, 1, 1), 1, Points(BONE))
    assert value_of(advice, (4, 3, 2, 1)) == pytest.approx(30 / 6 + 25 * 5 / 6)
    assert advice.best.keep == (4, 3, 2, 1)


def test_no_throws_left_leaves_standing_only() -> None:
    advice = advise((5, 4, 2, 2, 1), 0, Points(BONE))
    assert [(h.keep, h.value) for h in advice.holds] == [((5, 4, 2, 2, 1), 10.0)]


# --------------------------------------------------------------------------- beat


@pytest.mark.parametrize("dice", [(6, 6, 6, 6, 5), (1, 2, 3, 4, 5), (6, 5, 4, 3, 1)])
@pytest.mark.parametrize("left", [0, 1, 2])
def test_pokerdice_against_five_aces_every_hold_is_worth_nothing(dice: tuple[int, ...], left: int) -> None:
    top = evaluate((6, 6, 6, 6, 6), POKERDICE).key
    advice = advise(dice, left, Beat(POKERDICE, top))
    assert advice.objective == "beat" and {h.value for h in advice.holds} == {0.0}


def test_beating_four_alike_with_one_die_by_hand() -> None:
    # 5-5-5-5-2 against 5-5-5-5-3: the rethrown die wins on 4, 5 (five alike) or 6, not on 1, 2 or 3
    advice = advise((5, 5, 5, 5, 2), 1, Beat(CLASSIC, evaluate((5, 5, 5, 5, 3), CLASSIC).key))
    assert advice.best.keep == (5, 5, 5, 5) and advice.best.value == pytest.approx(0.5)
    assert value_of(advice, (5, 5, 5, 5, 2)) == 0.0  # standing loses: an exact tie is not a win


def test_beating_a_full_house_with_three_sixes_by_hand() -> None:
    # 6-6-6 kept against 3-3-3-2-2, one throw: a pair (6/36) or at least one more six (11/36)
    advice = advise((6, 6, 6, 2, 1), 1, Beat(CLASSIC, evaluate((3, 3, 3, 2, 2), CLASSIC).key))
    assert advice.best.keep == (6, 6, 6) and advice.best.value == pytest.approx(16 / 36)


def test_ace_joker_counts_through_the_games_own_evaluation() -> None:
    rules = HandRules("classic", ace_joker=True)
    # 6-6-6-6 are jokers: standing is already five alike, which beats four alike
    advice = advise((6, 6, 6, 6, 2), 2, Beat(rules, evaluate((5, 5, 5, 5, 1), rules).key))
    assert advice.best.value == 1.0 and advice.best.stands


def test_held_fixed_keeps_the_dice_set_aside_in_every_hold() -> None:
    free = advise((6, 6, 5, 2, 1), 2, Points(BONE))
    fixed = advise((6, 6, 5, 2, 1), 2, Points(BONE), fixed=(5,), held_fixed=True)
    assert all(5 in h.keep for h in fixed.holds)
    assert len(fixed.holds) == len(free.holds) // 2
    # a choice given up can only cost: every hold is worth at most what it is worth with free holds later
    for hold in fixed.holds:
        assert hold.value <= value_of(free, hold.keep) + 1e-12


# --------------------------------------------------------------------------- sheet


def test_sheet_rethrowing_all_five_doubles_the_sum() -> None:
    # five sixes undoubled in the Summe are 30; throwing all five again doubles: 2 * 17.5 = 35 on average
    goal = SheetEntry(("summe",))
    advice = advise((6, 6, 6, 6, 6), 1, goal)
    assert advice.best.keep == () and advice.best.value == pytest.approx(35.0)
    assert value_of(advice, (6, 6, 6, 6, 6)) == 30.0
    first_only = advise((6, 6, 6, 6, 6), 1, SheetEntry(("summe",), rethrow_doubles=False))
    assert first_only.best.stands and value_of(first_only, ()) == pytest.approx(17.5)


def test_sheet_schule_chance_and_expected_entry_by_hand() -> None:
    # Schule 6 with two sixes and nothing in the reserve: keep them and throw three dice once
    advice = advise((6, 6, 3, 2, 1), 1, SheetEntry(("schule_6",)))
    (row,) = advice.rows
    miss = Fraction(125, 216)
    assert row.chance == pytest.approx(float(1 - miss))
    # k more sixes: 0 -> a zero (-200), 1 -> closed (0), 2 -> reserve +6, 3 -> +12
    expected = (-200 * 125 + 0 * 75 + 6 * 15 + 12 * 1) / 216
    assert row.expected == pytest.approx(expected) and row.keep == (6, 6)
    # with 6 in the reserve a missing die is paid, so the field always closes: standing pays 6 (-6), while throwing
    # three dice at the sixes pays 6 only on a miss: (-6 * 125 + 0 * 75 + 6 * 15 + 12 * 1) / 216 = -3
    paid = advise((6, 6, 3, 2, 1), 1, SheetEntry(("schule_6",), reserve=6))
    assert paid.rows[0].chance == 1.0 and paid.rows[0].expected == pytest.approx(-3.0) and paid.rows[0].keep == (6, 6)
    assert value_of(paid, (6, 6, 3, 2, 1)) == -6.0


def test_sheet_best_row_is_chosen_after_the_last_throw() -> None:
    every = tuple(r.id for r in ROWS)
    advice = advise((6, 6, 6, 6, 6), 0, SheetEntry(every), doubled=True)
    assert advice.best.value == (5 * 6 + 50) * 2  # Fünfling doubled
    assert {r.row for r in advice.rows} == set(every)
    five = next(r for r in advice.rows if r.row == "fuenfling")
    assert five.chance == 1.0 and five.expected == 160.0


def test_entry_value_uses_the_sheet_scorer() -> None:
    assert entry_value(row_by_id("full_house"), (3, 3, 3, 5, 5), False, 0) == 19
    assert entry_value(row_by_id("full_house"), (3, 3, 3, 5, 5), True, 0) == 38
    assert entry_value(row_by_id("vierling"), (1, 2, 3, 4, 5), True, 0) == 0  # not made: a strike
    assert entry_value(row_by_id("schule_5"), (5, 1, 1, 2, 3), False, 4) == -200  # needs 10 > 4: a zero
    assert entry_value(row_by_id("schule_1"), (1, 3, 4, 5, 2), False, 6) == -2  # pays 2


# --------------------------------------------------------------------------- independent checks


def ordered_value(dice: Sequence[int], keep: Sequence[int], stand: Callable[[tuple[int, ...]], float]) -> float:
    """One rethrow counted over all 6**k ordered throws, without multisets or weights."""
    k = 5 - len(keep)
    total = sum(
        stand(tuple(sorted((*keep, *throw), reverse=True))) for throw in itertools.product(range(1, 7), repeat=k)
    )
    return total / 6**k


CLASSIC_POINTS_RULES = HandRules("classic", points=CLASSIC_POINTS)


def stand_value(goal: Points | Beat | SheetEntry) -> Callable[[tuple[int, ...]], float]:
    if isinstance(goal, Points):
        return lambda d: float(evaluate(d, goal.rules).points or 0)
    if isinstance(goal, Beat):
        return lambda d: 1.0 if evaluate(d, goal.rules).key > goal.key else 0.0
    return lambda d: max(entry_value(row_by_id(r), d, False, goal.reserve) for r in goal.rows)


@pytest.mark.parametrize("seed", range(6))
def test_one_rethrow_equals_the_count_over_ordered_throws(seed: int) -> None:
    rng = random.Random(seed)
    goals = [
        Points(BONE),
        Points(CLASSIC_POINTS_RULES),
        Beat(POKERDICE, evaluate([rng.randint(1, 6) for _ in range(5)], POKERDICE).key),
        Beat(CLASSIC, evaluate([rng.randint(1, 6) for _ in range(5)], CLASSIC).key),
        SheetEntry(
            tuple(r.id for r in ROWS if rng.random() < 0.5) or ("summe",),
            reserve=rng.randint(0, 12),
            rethrow_doubles=False,
        ),
    ]
    for goal in goals:
        dice = tuple(rng.randint(1, 6) for _ in range(5))
        advice = advise(dice, 1, goal)
        for hold in rng.sample(list(advice.holds), 4):
            if hold.stands:
                continue
            assert hold.value == pytest.approx(ordered_value(dice, hold.keep, stand_value(goal)), abs=1e-12)


def simulate(
    dice: tuple[int, ...],
    keep: tuple[int, ...],
    left: int,
    goal: Points | Beat | SheetEntry,
    trials: int,
    rng: random.Random,
) -> tuple[float, float]:
    """Play ``keep`` out ``trials`` times with real random dice; later holds follow the advice. Mean and its error."""
    score = stand_value(goal)
    results = []
    for _ in range(trials):
        hand = (*keep, *(rng.randint(1, 6) for _ in range(5 - len(keep))))
        for remaining in range(left - 1, 0, -1):
            choice = advise(hand, remaining, goal, with_rows=False).best
            if choice.stands:
                break
            hand = (*choice.keep, *(rng.randint(1, 6) for _ in range(5 - len(choice.keep))))
        results.append(score(tuple(sorted(hand, reverse=True))))
    mean = sum(results) / trials
    var = sum((r - mean) ** 2 for r in results) / (trials - 1)
    return mean, math.sqrt(var / trials)


@pytest.mark.parametrize("seed", range(8))
def test_a_simulation_of_play_agrees_with_the_exact_values(seed: int) -> None:
    rng = random.Random(1000 + seed)
    goal = [
        Points(BONE),
        Points(CLASSIC_POINTS_RULES),
        Beat(POKERDICE, evaluate([rng.randint(1, 6) for _ in range(5)], POKERDICE).key),
        SheetEntry(("paar", "full_house", "summe", "kleine_strasse"), rethrow_doubles=False),
    ][seed % 4]
    dice = tuple(rng.randint(1, 6) for _ in range(5))
    left = 1 + seed % 2
    advice = advise(dice, left, goal)
    hold = advice.best if seed % 3 == 0 else rng.choice([h for h in advice.holds if not h.stands])
    if hold.stands:
        hold = next(h for h in advice.holds if not h.stands)
    mean, error = simulate(dice, hold.keep, left, goal, 2500, rng)
    assert abs(mean - hold.value) <= 4 * error + 1e-9, (dice, hold, mean, error)


# --------------------------------------------------------------------------- from settings and from a game


def test_advise_setup_picks_the_goal_from_the_settings() -> None:
    bone = rules_for("bone").make_setup(["A", "B"])
    assert advise_setup(bone, (6, 6, 6, 6, 6), 2).objective == "points"
    points = rules_for("classic").make_setup(["A", "B"], {"mode": "points"})
    assert advise_setup(points, (6, 6, 6, 6, 6), 1).best.value == 50
    strikes = rules_for("classic").make_setup(["A", "B"])
    with pytest.raises(MalformedInput, match="name the hand to beat"):
        advise_setup(strikes, (6, 6, 6, 6, 6), 1)
    assert advise_setup(strikes, (6, 6, 6, 6, 6), 1, (5, 5, 5, 5, 5)).best.value == 1.0
    bluff = rules_for("classic").make_setup(["A", "B"], {"mode": "bluff"})
    with pytest.raises(MalformedInput, match="0 to 1"):
        advise_setup(bluff, (1, 2, 3, 4, 5), 2, (1, 1, 2, 2, 3))
    sheet = rules_for("sheet").make_setup(["A"])
    with pytest.raises(MalformedInput, match="no hand to beat"):
        advise_setup(sheet, (1, 2, 3, 4, 5), 1, (1, 1, 2, 2, 3))
    with pytest.raises(MalformedInput, match="no row"):
        advise_setup(sheet, (1, 2, 3, 4, 5), 1, open_rows=["paar", "nope"])
    board = rules_for("board").make_setup(["A", "B"])
    with pytest.raises(MalformedInput, match="board game has no holds"):
        advise_setup(board, (1, 2, 3, 4, 5), 1)


def throw(log: GameLog, player: int, dice: Sequence[int], held: Sequence[int] = ()) -> None:
    log.play({"type": "throw", "player": player, "dice": list(dice), "held": list(held)})


def test_advice_for_the_player_to_move_beats_the_best_hand_so_far() -> None:
    log = GameLog.new("pokerdice", ["Anna", "Ben", "Cleo"])
    throw(log, 0, (3, 3, 3, 2, 2))
    log.play({"type": "stand", "player": 0})
    throw(log, 1, (1, 1, 2, 2, 3))
    log.play({"type": "stand", "player": 1})
    throw(log, 2, (6, 6, 6, 2, 1))
    advice, position = advise_state(log.rules, log.state)
    assert position.player == 2 and position.beat_player == 0 and position.beat_rank is not None
    assert position.beat_rank.category == "full_house"
    assert advice.objective == "beat" and advice.throws_left == 2
    assert advice.best.value == pytest.approx(
        advise((6, 6, 6, 2, 1), 2, Beat(POKERDICE, position.beat_rank.key)).best.value
    )


def test_advice_follows_the_throw_limit_and_fixed_holds() -> None:
    log = GameLog.new("classic", ["Anna", "Ben"], {"held_fixed": True})
    throw(log, 0, (4, 4, 2, 2, 1))
    log.play({"type": "stand", "player": 0})  # one throw: the limit for Ben is one throw
    throw(log, 1, (6, 5, 4, 3, 1))
    with pytest.raises(IllegalAction):  # Ben's one throw was his last: the hand stood by itself, Anna's round ended
        advise_state(log.rules, log.state)
    log = GameLog.new("classic", ["Anna", "Ben"], {"held_fixed": True, "throw_limit": False, "mode": "points"})
    throw(log, 0, (6, 6, 2, 3, 1))
    throw(log, 0, (6, 6, 5, 5, 1), held=(0, 1))
    advice, position = advise_state(log.rules, log.state)
    assert advice.throws_left == 1 and position.fixed == (0, 1)
    assert all(h.keep[:2] == (6, 6) for h in advice.holds)


def test_nothing_to_advise_is_refused_by_name() -> None:
    log = GameLog.new("bone", ["Anna", "Ben"])
    with pytest.raises(IllegalAction, match="Throw first"):
        advise_state(log.rules, log.state)
    strikes = GameLog.new("classic", ["Anna", "Ben"])
    throw(strikes, 0, (1, 2, 3, 4, 6))
    with pytest.raises(IllegalAction, match="no hand to beat"):
        advise_state(strikes.rules, strikes.state)
    advice, position = advise_state(strikes.rules, strikes.state, (2, 2, 1, 1, 3))
    assert advice.objective == "beat" and position.beat_player is None
    bluff = GameLog.new("classic", ["Anna", "Ben"], {"mode": "bluff"})
    with pytest.raises(IllegalAction, match="under the cup"):
        advise_state(bluff.rules, bluff.state)
    board = GameLog.new("board", ["Anna", "Ben"])
    with pytest.raises(IllegalAction, match="board game"):
        advise_state(board.rules, board.state)


def test_sheet_advice_for_the_player_to_move_knows_rows_reserve_and_doubling() -> None:
    log = GameLog.new("sheet", ["Anna"])
    throw(log, 0, (6, 6, 6, 6, 2))
    log.play({"type": "enter", "player": 0, "row": "schule_6"})  # reserve 6
    throw(log, 0, (6, 6, 3, 2, 1))
    advice, _ = advise_state(log.rules, log.state)
    assert advice.throws_left == 2
    rows = {r.row: r for r in advice.rows}
    assert "schule_6" in rows  # two more fields free in that row
    assert rows["schule_6"].chance == 1.0  # two sixes and the reserve pays the third
    assert rows["summe"].expected >= (6 + 6 + 3 + 2 + 1) * 2  # the first throw doubles as it stands
