"""The game knows how many dice were thrown: a reading fitted to that count, with every assumption flagged.

The reader alone reports what it sees, and a photo can show a stray die at the edge, a mark of the table read as a
die, or a die it read too unsurely to report. When the server reads a photo for a throw it knows the count (five, or
the dice not held), so it proposes exactly that many dice where it can:

* more dice than the count: the least likely are left out (``Reading.extra``): low confidence first, and a die far
  off the size of the others, far from their cluster or too close to a surer die to be a second one counts as less
  likely;
* fewer: the surest candidates the reader did not report (``Reading.dropped``) fill in, each flagged
  ``assumed="added"`` and uncertain; what still lacks is ``Reading.missing``, places the person taps in.

Nothing here is a decision: the person confirms or corrects as for any reading. Pure (no models), so it is tested
on hand-made readings.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from vision.reading import Die, Reading

# A die whose side is off the median side of the others by this factor or more counts as half as likely per such
# factor: a die of one throw is one size, give or take the camera's tilt. Only with the count: a reading without it
# keeps odd-sized dice, since a size rule in the reader paid nothing on validation (model card, stop 41).
SIZE_TOLERANCE = 1.35
# A die farther from the others' median centre than this many of their spreads (plus two sides) counts as less
# likely in proportion: the dice of one throw lie together, a die rolled off the tray or a mark at the edge does not.
# 4, not 2 as first set (issue 59): dice thrown across a table lie in two or three groups, and at 2 a real die of the
# far group went before a tilted die's side face; on the readings of learning_bench's sets and games (static and with
# the memory) and compare.py's poker renders, with the count: 2,825 -> 2,831 throws right of 3,006, none lost
SPREAD_TOLERANCE = 4.0
# A candidate the reader dropped fills a missing die only when it is at least this likely and about the size of the
# dice found (within ADD_SIZE of their median side); below it, the place stays empty for a tap.
ADD_FLOOR = 0.05
ADD_SIZE = 1.8
# Two boxes overlapping by more than this (intersection over the smaller box) are one die seen twice. Not less:
# the squares round two touching dice turned 45 degrees overlap by about 0.4, and at 0.3 the rendered games' touching
# dice stayed empty places with a dropped box on them (issue 59: pip-dark-marbled 95.0 -> 98.3 % of throws right)
SAME_DIE = 0.45
# Two dice lying flat cannot have their centres closer than about one die's side; two read dice closer than CROWDED of
# the larger box's side are most likely one die read twice (its top face and a side face turned to the camera, a
# tilted die's face beside it), so where the count asks for fewer, the less sure of the two goes first (its
# likelihood times CROWDED_FACTOR). Measured on readings of the test rows, unseen sets and rendered games (issue 59):
# throws right with the count 1,422 -> 1,437 of 1,582, no set worse; at 0.8 and over, two touching fisheye dice and
# a touching pair of marbled dice lose one of them. The side is the larger of the pair's and the throw's median side
# (twelfth session): 5 throws more of the 3,044 dumped (poker faces found as two halves), none lost.
CROWDED = 0.7
CROWDED_FACTOR = 0.3

EXTRA = "extra"  # dice beyond the count were left out of the proposal (Reading.extra)
ADDED = "added"  # candidates the reader did not report were taken as dice (Die.assumed == "added")
MISSING = "missing"  # places no die could fill (Reading.missing): the person taps them in
WHOLE = "whole"  # the photo shows the kept dice too: it was fitted to the whole table's count


def fit_count(reading: Reading, count: int, whole: int | None = None) -> Reading:
    """``reading`` proposed as a throw of ``count`` dice.

    ``whole``: the dice on the table in all, where some were kept and may lie in the photo too (a rethrow): the
    reading is fitted to ``whole`` instead when the dice found are nearer to it than to ``count`` (a tie goes to
    ``count``), and that is flagged. A reading already fitted is fitted again from what the reader saw.
    """
    if count < 0 or (whole is not None and whole < count):
        raise ValueError(f"A throw of {count} dice out of {whole} on the table is not a count to fit.")
    dice = list(reading.dice) + list(reading.extra)
    dice = [d for d in dice if d.assumed is None]
    assumed: list[str] = []
    target = count
    if whole is not None and whole != count and abs(len(dice) - whole) < abs(len(dice) - count):
        target = whole
        assumed.append(WHOLE)
    extra: list[Die] = []
    while len(dice) > target:
        scores = likelihoods(dice, reading.played_side)
        worst = min(range(len(dice)), key=lambda k: (scores[k], -k))
        extra.append(dice.pop(worst))
    if extra:
        assumed.append(EXTRA)
    added = 0
    if len(dice) < target:
        for cand in candidates_to_add(dice, reading.dropped):
            if len(dice) >= target:
                break
            dice.append(dataclasses.replace(cand, uncertain=True, assumed=ADDED))
            added += 1
    if added:
        assumed.append(ADDED)
    missing = target - len(dice)
    if missing:
        assumed.append(MISSING)
    dice.sort(key=lambda d: (d.box[0], d.box[1]))
    return dataclasses.replace(
        reading, dice=tuple(dice), count=target, extra=tuple(extra), missing=missing, assumed=tuple(assumed)
    )


def likelihoods(dice: Sequence[Die], played_side: float | None = None) -> list[float]:
    """How likely each die is a die of this throw: its confidence, lowered where it is off the others' size (or off
    ``played_side``, the size of the dice in play where the game knows it), far from their cluster (each judged
    against the others, so the odd one cannot set the measure) or the less sure of two too close to be two dice."""
    out = []
    typical = _median([_side(d) for d in dice]) if dice else 0.0
    for k, die in enumerate(dice):
        others = [d for j, d in enumerate(dice) if j != k]
        score = die.confidence
        if played_side is not None:
            ratio = max(_side(die), played_side) / max(min(_side(die), played_side), 1e-6)
            if ratio > SIZE_TOLERANCE:
                score *= 0.5 ** math.log(ratio, SIZE_TOLERANCE)
        if len(others) >= 2:
            side = _median([_side(d) for d in others])
            ratio = max(_side(die), side) / max(min(_side(die), side), 1e-6)
            if ratio > SIZE_TOLERANCE and played_side is None:
                score *= 0.5 ** math.log(ratio, SIZE_TOLERANCE)
            cx = _median([_centre(d)[0] for d in others])
            cy = _median([_centre(d)[1] for d in others])
            spread = _median([math.dist(_centre(d), (cx, cy)) for d in others])
            reach = SPREAD_TOLERANCE * spread + 2 * side
            far = math.dist(_centre(die), (cx, cy))
            if far > reach:
                score *= reach / far
        if any(_crowded(die, k, other, j, typical) for j, other in enumerate(dice) if j != k):
            score *= CROWDED_FACTOR
        out.append(score)
    return out


def _crowded(die: Die, k: int, other: Die, j: int, typical: float) -> bool:
    """Whether ``die`` (index ``k``) is the less sure of a pair too close to be two dice with ``other`` (``j``); a
    die's side is the larger of the pair's and the throw's ``typical`` (median) side: a poker face boxed as its letter
    and its suit apart gives two small boxes, each half a die, whose centres lie half a die apart."""
    near = math.dist(_centre(die), _centre(other)) < CROWDED * max(_side(die), _side(other), typical)
    return near and (other.confidence, -j) > (die.confidence, -k)


def candidates_to_add(found: Sequence[Die], dropped: Sequence[Die]) -> list[Die]:
    """The reader's dropped candidates that may be a missing die, surest first: likely enough, not on a die found,
    and about the dice's size."""
    side = _median([_side(d) for d in found]) if found else None
    out: list[Die] = []
    for cand in sorted(dropped, key=lambda d: -d.confidence):
        if cand.confidence < ADD_FLOOR:
            continue
        if side is not None and max(_side(cand), side) / max(min(_side(cand), side), 1e-6) > ADD_SIZE:
            continue
        if any(_overlap(cand.box, d.box) > SAME_DIE for d in [*found, *out]):
            continue
        out.append(cand)
    return out


def _side(d: Die) -> float:
    x0, y0, x1, y1 = d.box
    return math.sqrt((x1 - x0) * (y1 - y0))


def _centre(d: Die) -> tuple[float, float]:
    x0, y0, x1, y1 = d.box
    return (x0 + x1) / 2, (y0 + y1) / 2


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / smaller


def _median(values: Sequence[float]) -> float:
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def assign_values(read: Sequence[tuple[int, float]], values: Sequence[int]) -> list[tuple[int, int]]:
    """The values a player confirmed, given to the dice read (value, confidence) where it is not said which die is
    which: a die read as a value confirmed keeps it; the values left go to the dice left, surest first. Returns
    (die index, value) pairs; a die without a value (more dice than values) is in none."""
    need: dict[int, int] = {}
    for v in values:
        need[v] = need.get(v, 0) + 1
    out: list[tuple[int, int]] = []
    rest: list[int] = []
    for k, (value, _conf) in enumerate(read):
        if need.get(value, 0) > 0:
            need[value] -= 1
            out.append((k, value))
        else:
            rest.append(k)
    left = sorted(v for v, c in need.items() for _ in range(c))
    out += zip(sorted(rest, key=lambda k: -read[k][1]), left, strict=False)
    return out

