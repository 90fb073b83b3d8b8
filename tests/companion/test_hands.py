import itertools
from pathlib import Path

import pytest

from companion.errors import MalformedInput
from companion.hands import (
    BONE,
    CLASSIC,
    CLASSIC_POINTS,
    POKERDICE,
    HandRank,
    HandRules,
    categories,
    evaluate,
    parse_points_table,
)
from tests.companion.golden.make_golden import VARIANTS, listing

GOLDEN = Path(__file__).parent / "golden"
J, Q, K, A, T, N = 3, 4, 5, 6, 2, 1  # poker faces as ranks: 9=1 10=2 J=3 Q=4 K=5 A=6


def cat(dice: tuple[int, ...], rules: HandRules = CLASSIC) -> str:
    return evaluate(dice, rules).category


# --------------------------------------------------------------------------- "Hand comparison" (shared)


@pytest.mark.parametrize("rules", [CLASSIC, BONE, POKERDICE])
def test_hand_comparison_examples_of_rules_md(rules: HandRules) -> None:
    assert evaluate((3, 3, 3, 2, 2), rules) > evaluate((2, 2, 2, 6, 6), rules)
    assert evaluate((5, 5, 4, 4, 2), rules) > evaluate((5, 5, 4, 4, 1), rules)
    assert evaluate((Q, Q, A, K, T), rules) > evaluate((Q, Q, A, J, N), rules)
    assert evaluate((A, A, J, J, N), rules) > evaluate((A, A, T, T, K), rules)


def test_hand_comparison_exact_tie_is_equal_die_for_die_in_any_order() -> None:
    assert evaluate((4, 1, 4, 6, 3), CLASSIC) == evaluate((6, 4, 4, 3, 1), CLASSIC)
    assert evaluate((4, 4, 6, 3, 1), CLASSIC) != evaluate((4, 4, 6, 3, 2), CLASSIC)


def test_hand_rank_compares_by_key_only_and_keys_have_six_ints() -> None:
    a = HandRank((3, 5, 0, 0, 0, 0), "x", "X", "X", 1)
    b = HandRank((3, 5, 0, 0, 0, 0), "y", "Y", "Y", 2)
    assert a == b and not a < b
    for dice in itertools.combinations_with_replacement(range(1, 7), 5):
        for rules in (CLASSIC, BONE, POKERDICE):
            key = evaluate(dice, rules).key
            assert len(key) == 6 and all(isinstance(v, int) for v in key)


def test_groups_then_leftovers_decide_within_a_category() -> None:
    assert evaluate((6, 6, 6, 1, 2), CLASSIC) > evaluate((5, 5, 5, 6, 4), CLASSIC)  # triple value first
    assert evaluate((5, 5, 5, 6, 2), CLASSIC) > evaluate((5, 5, 5, 4, 3), CLASSIC)  # then leftovers high to low
    assert evaluate((2, 2, 2, 2, 1), CLASSIC) < evaluate((3, 3, 3, 3, 1), CLASSIC)
    assert evaluate((6, 5, 4, 3, 1), CLASSIC) > evaluate((6, 5, 4, 2, 1), CLASSIC)  # Nichts: die by die


def test_bad_hands_are_refused_by_name() -> None:
    with pytest.raises(MalformedInput, match="5 dice, not 4"):
        evaluate((1, 2, 3, 4), CLASSIC)
    with pytest.raises(MalformedInput, match="not 7"):
        evaluate((1, 2, 3, 4, 7), CLASSIC)
    with pytest.raises(MalformedInput, match="classic game only"):
        HandRules("bone", ace_joker=True)
    with pytest.raises(MalformedInput, match="no hand ranking"):
        HandRules("yatzy")


# --------------------------------------------------------------------------- classic


def test_classic_categories_of_the_rule_text_table() -> None:
    examples = [
        ((4, 4, 4, 4, 4), "five", "Grande"),
        ((6, 6, 6, 6, 2), "four", "Poker"),
        ((3, 3, 3, 5, 5), "full_house", "Full House"),
        ((2, 3, 4, 5, 6), "large_straight", "Große Straße"),
        ((1, 2, 3, 4, 5), "small_straight", "Kleine Straße"),
        ((5, 5, 5, 2, 6), "three", "Drilling"),
        ((6, 6, 3, 3, 1), "two_pairs", "Zwei Paare"),
        ((4, 4, 6, 3, 1), "pair", "Paar"),
        ((6, 5, 3, 2, 1), "nothing", "Nichts"),
    ]
    ranks = [evaluate(d, CLASSIC) for d, _, _ in examples]
    assert [(r.category, r.label) for r in ranks] == [(c, label) for _, c, label in examples]
    assert ranks == sorted(ranks, reverse=True)
    assert all(r.points is None for r in ranks)


def test_classic_points_table_and_its_setting() -> None:
    rules = HandRules("classic", points=CLASSIC_POINTS)
    assert [evaluate(d, rules).points for d in [(4, 4, 4, 4, 4), (2, 3, 4, 5, 6), (6, 5, 3, 2, 1)]] == [50, 25, 0]
    table = parse_points_table("100, 80 60 50 40 30 20 10 1")
    assert dict(table)["nothing"] == 1 and dict(table)["five"] == 100
    with pytest.raises(MalformedInput, match="9 numbers"):
        parse_points_table("1 2 3")
    with pytest.raises(MalformedInput, match="whole numbers"):
        parse_points_table("a 2 3 4 5 6 7 8 9")
    with pytest.raises(MalformedInput, match="negative"):
        parse_points_table("-1 2 3 4 5 6 7 8 9")


def test_ace_joker_takes_the_best_value_and_ties_compare_what_it_stands_for() -> None:
    joker = HandRules("classic", ace_joker=True)
    grande_threes = evaluate((6, 6, 3, 3, 3), joker)
    assert grande_threes.category == "five" and grande_threes.stands_for == (3, 3, 3, 3, 3)
    assert grande_threes < evaluate((4, 4, 4, 4, 4), joker)
    assert evaluate((6, 4, 4, 4, 4), joker) == evaluate((4, 4, 4, 4, 4), joker)
    assert evaluate((6, 6, 6, 6, 6), joker).stands_for == (6, 6, 6, 6, 6)
    assert cat((6, 1, 2, 3, 4), joker) == "small_straight"  # the ace fills the 5
    assert cat((6, 2, 3, 4, 5), joker) == "large_straight"  # an ace that stands for itself
    assert cat((6, 2, 2, 5, 5), joker) == "full_house"
    assert cat((1, 2, 3, 5, 5), joker) == "pair"  # no ace: no joker


def test_gap_straight_sits_just_below_a_true_small_straight() -> None:
    gap = HandRules("classic", gap_straight=True)
    hand = evaluate((1, 2, 3, 4, 6), gap)
    assert hand.category == "small_straight" and "Lücke" in hand.label
    assert hand < evaluate((1, 2, 3, 4, 5), gap)
    assert hand > evaluate((6, 6, 6, 5, 4), gap)  # above every Drilling
    assert cat((1, 2, 3, 4, 6)) == "nothing"  # without the house rule


def test_straight_above_full_house_reorders_only_those_categories() -> None:
    high = HandRules("classic", straight_above_full_house=True)
    assert [c.id for c in categories(high)][3:7] == ["three", "full_house", "small_straight", "large_straight"]
    assert evaluate((1, 2, 3, 4, 5), high) > evaluate((6, 6, 6, 5, 5), high)
    assert evaluate((2, 3, 4, 5, 6), high) < evaluate((1, 1, 1, 1, 2), high)
    assert evaluate((1, 2, 3, 4, 5), CLASSIC) < evaluate((1, 1, 1, 2, 2), CLASSIC)


# --------------------------------------------------------------------------- bone


def test_bone_highest_category_met_and_straights_by_top_then_fifth_die() -> None:
    assert cat((1, 2, 3, 4, 4), BONE) == "small_straight"
    assert cat((1, 2, 3, 4, 5), BONE) == "large_straight"
    assert cat((1, 3, 4, 5, 6), BONE) == "small_straight"
    assert cat((1, 2, 4, 5, 6), BONE) == "high"
    assert evaluate((3, 4, 5, 6, 6), BONE) > evaluate((3, 4, 5, 6, 1), BONE)  # fifth die
    assert evaluate((3, 4, 5, 6, 1), BONE) > evaluate((2, 3, 4, 5, 5), BONE)  # top die first
    assert evaluate((2, 3, 4, 5, 6), BONE) > evaluate((1, 2, 3, 4, 5), BONE)
    assert [c.points for c in categories(BONE)] == [5, 10, 15, 20, 25, 30, 35, 40, 50]


# --------------------------------------------------------------------------- pokerdice


def test_pokerdice_only_two_straights_and_no_wraparound() -> None:
    assert cat((N, T, J, Q, K), POKERDICE) == "straight"
    assert cat((T, J, Q, K, A), POKERDICE) == "straight"
    assert cat((N, J, Q, K, A), POKERDICE) == "high"
    assert evaluate((T, J, Q, K, A), POKERDICE) > evaluate((N, T, J, Q, K), POKERDICE)
    assert evaluate((A, A, A, T, T), POKERDICE) > evaluate((K, K, K, A, A), POKERDICE)
    labels = [c.label_en for c in reversed(categories(POKERDICE))]
    assert labels == [
        "Five of a Kind",
        "Four of a Kind",
        "Full House",
        "Straight",
        "Three of a Kind",
        "Two Pair",
        "One Pair",
        "High Die",
    ]


# --------------------------------------------------------------------------- golden listings


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_all_252_hands_sort_as_the_golden_listing(name: str) -> None:
    golden = (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")
    assert listing(name) == golden, "ranking changed: run python -m tests.companion.golden.make_golden and review"


def _order(name: str) -> list[str]:
    """Dice of the golden listing, best first, as compact strings."""
    lines = (GOLDEN / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return ["".join(line.split()[1:6]) for line in lines if not line.startswith("#")]


def test_golden_listings_hold_known_orderings() -> None:
    classic = _order("classic")
    assert len(classic) == 252 and len(set(classic)) == 252
    assert classic[0] == "66666" and classic[-1] == "64321"
    assert classic.index("65432") == classic.index("54321") - 1  # Große just above Kleine Straße
    assert classic.index("33322") < classic.index("22266")
    assert classic.index("55442") < classic.index("55441")
    above = _order("classic-straight-above-full-house")
    assert above.index("54321") < above.index("66655")
    gap = _order("classic-gap-straight")
    assert gap.index("54321") + 1 == gap.index("64321") < gap.index("66654")
    joker = _order("classic-ace-joker")
    assert joker.index("55556") > joker.index("66666") and joker[1] == "66665"
    poker = _order("pokerdice")
    assert poker.index("AKQJ10") + 1 == poker.index("KQJ109")
    assert poker[-4] == "AKQJ9"  # a gap in the middle is only a High Die
    bone = _order("bone")
    assert bone.index("66543") < bone.index("65431") < bone.index("55432")
