"""Hand rankings read plainly from guide/RULES.md, written apart from companion/hands.py and board_hands.py.

Used by test_hands_oracle (every hand ranked a second way) and test_referee (a second referee for whole games).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence

HANDS = [tuple(d) for d in itertools.combinations_with_replacement(range(1, 7), 5)]
Strength = tuple[int, tuple[int, ...]]


def by_group(dice: Sequence[int]) -> tuple[int, ...]:
    """All five dice, bigger groups first, higher values first: groups by size, then value, then leftovers."""
    counts = Counter(dice)
    return tuple(sorted(dice, key=lambda v: (counts[v], v), reverse=True))


def shape(dice: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(Counter(dice).values(), reverse=True))


def classic(gap: bool = False, straight_above: bool = False) -> Callable[[Sequence[int]], Strength]:
    order = ["nothing", "pair", "two_pairs", "three", "small", "large", "full", "four", "five"]
    if straight_above:  # Drilling < Full House < Kleine Straße < Große Straße < Poker
        order = ["nothing", "pair", "two_pairs", "three", "full", "small", "large", "four", "five"]

    def strength(dice: Sequence[int]) -> Strength:
        s, values = shape(dice), set(dice)
        named = {(5,): "five", (4, 1): "four", (3, 2): "full", (3, 1, 1): "three", (2, 2, 1): "two_pairs"}
        if s in named:
            return order.index(named[s]), by_group(dice)
        if values == {2, 3, 4, 5, 6}:
            return order.index("large"), (1,)
        if values == {1, 2, 3, 4, 5}:
            return order.index("small"), (1,)
        if gap and values == {1, 2, 3, 4, 6}:
            return order.index("small"), (0,)  # just below the true Kleine Straße
        return order.index("pair" if s == (2, 1, 1, 1) else "nothing"), by_group(dice)

    return strength


def ace_joker(dice: Sequence[int]) -> Strength:
    """Each 6 may stand for any value; the best of all choices counts, compared by the values stood for."""
    plain = classic()
    sixes = [i for i, d in enumerate(dice) if d == 6]
    best: Strength | None = None
    for values in itertools.product(range(1, 7), repeat=len(sixes)):
        as_dice = list(dice)
        for i, v in zip(sixes, values, strict=True):
            as_dice[i] = v
        candidate = plain(as_dice)
        best = candidate if best is None or candidate > best else best
    assert best is not None
    return best


def bone(dice: Sequence[int]) -> Strength:
    s, values = shape(dice), set(dice)
    if s == (5,):
        return 8, by_group(dice)
    if s == (4, 1):
        return 7, by_group(dice)
    if s == (3, 2):
        return 6, by_group(dice)
    if values in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}):
        return 5, (max(values),)
    runs = [top for top in (6, 5, 4) if set(range(top - 3, top + 1)) <= values]
    if runs:  # four in a row: by its top die, then the fifth die
        rest = list(dice)
        for v in range(runs[0] - 3, runs[0] + 1):
            rest.remove(v)
        return 4, (runs[0], rest[0])
    return {(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(s, 0), by_group(dice)


def pokerdice(dice: Sequence[int]) -> Strength:
    s, values = shape(dice), set(dice)
    if values in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}):
        return 4, (max(values),)
    level = {(5,): 7, (4, 1): 6, (3, 2): 5, (3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(s, 0)
    return level, by_group(dice)


def board(dice: Sequence[int]) -> tuple[int, ...]:
    """Rule 3 read plainly: three alike > three consecutive values (no wrap) > pair > single."""
    high, mid, low = sorted(dice, reverse=True)
    if high == low:
        return 3, high
    if high - mid == 1 and mid - low == 1:
        return 2, high
    if high == mid or mid == low:
        pair = mid
        odd = low if high == mid else high
        return 1, pair, odd
    return 0, high, mid, low
