"""Every hand ranked a second way: a plain reading of guide/RULES.md written apart from companion/hands.py.

The golden listings in tests/companion/golden were written by the engine itself, so they only catch changes.
Here each game's order of all 252 five-dice hands (and all 56 board hands) is derived independently, by brute
force where the rule says "whatever makes the best hand", and must give the same order as the engine's keys:
the same hands tie, and the same hands are higher.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence

import pytest

from companion.board_hands import rank_row
from companion.hands import BONE, CLASSIC, POKERDICE, HandRules, evaluate
from tests.companion.oracle import HANDS, Strength, ace_joker, board, bone, classic, pokerdice

ORACLES: dict[str, tuple[HandRules, Callable[[Sequence[int]], Strength]]] = {
    "classic": (CLASSIC, classic()),
    "classic-gap": (HandRules("classic", gap_straight=True), classic(gap=True)),
    "classic-straight-above": (HandRules("classic", straight_above_full_house=True), classic(straight_above=True)),
    "classic-gap-straight-above": (
        HandRules("classic", gap_straight=True, straight_above_full_house=True),
        classic(gap=True, straight_above=True),
    ),
    "classic-ace-joker": (HandRules("classic", ace_joker=True), ace_joker),
    "bone": (BONE, bone),
    "pokerdice": (POKERDICE, pokerdice),
}


def dense_ranks(values: Sequence[object]) -> list[int]:
    """Each value's rank among the distinct values (equal values share one)."""
    distinct = sorted(set(values))  # type: ignore[type-var]
    return [distinct.index(v) for v in values]


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_every_five_dice_hand_ranks_as_the_rules_read_plainly(name: str) -> None:
    rules, oracle = ORACLES[name]
    engine = dense_ranks([evaluate(d, rules).key for d in HANDS])
    plain = dense_ranks([oracle(d) for d in HANDS])
    mismatches = [HANDS[i] for i in range(len(HANDS)) if engine[i] != plain[i]]
    assert not mismatches, mismatches[:10]


def test_ace_joker_brute_force_agrees_on_what_the_sixes_stand_for() -> None:
    rules = HandRules("classic", ace_joker=True)
    plain = classic()
    for dice in HANDS:
        rank = evaluate(dice, rules)
        assert rank.stands_for is not None
        assert plain(rank.stands_for) == ace_joker(dice), dice
        kept = Counter(rank.stands_for)
        kept.subtract(d for d in dice if d != 6)
        assert min(kept.values()) >= 0, dice  # only the sixes stand for something else


def test_every_board_hand_ranks_as_rule_3_reads_plainly() -> None:
    hands = [tuple(d) for d in itertools.combinations_with_replacement(range(1, 7), 3)]
    assert len(hands) == 56
    assert dense_ranks([rank_row(d).key for d in hands]) == dense_ranks([board(d) for d in hands])
