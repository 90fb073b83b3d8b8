"""compare.py's image-by-image figures: which reader reads which photo better, and whether the split is luck."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.compare import Row, Score, paired, sign_test
from vision.reading import Die, Reading


def reading(*faces: str, last: float = 0.99) -> Reading:
    """Dice of these faces side by side, sure; the last one read at ``last``."""
    sure = [0.99] * (len(faces) - 1) + [last] if faces else []
    dice = tuple(
        Die(f, int(f), p, (40 * k, 0, 40 * k + 30, 30), p < 0.8)
        for k, (f, p) in enumerate(zip(faces, sure, strict=True))
    )
    return Reading("pip", dice, 640, 480)


def test_the_sign_test_is_exact_and_two_sided() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == pytest.approx(2 / 32)  # all five one way: 2 x (1/2)^5
    assert sign_test(0, 5) == sign_test(5, 0)
    assert sign_test(2, 2) == 1.0
    assert sign_test(1, 9) == pytest.approx(2 * 11 / 1024)


def test_paired_counts_images_and_throws_each_reader_reads_better() -> None:
    rows = [Row(Path(f"{k}.jpg"), faces, "pip") for k, faces in enumerate((["1", "2"], ["3"], ["4", "4"], []))]
    base, cand = Score(), Score()
    # photo 0: base misreads a die, the candidate reads it right; photo 1: the candidate adds a die too many (its
    # throw is still right with the count of one); photo 2: both right; photo 3 (no dice): the candidate a phantom
    for row, b, c in zip(
        rows,
        (reading("1", "3"), reading("3"), reading("4", "4"), reading()),
        (reading("1", "2"), reading("3", "6", last=0.6), reading("4", "4"), reading("5")),
        strict=True,
    ):
        base.add(row, b, 1.0)
        cand.add(row, c, 1.0)
    assert base.errors == [2, 0, 0, 0] and cand.errors == [0, 1, 0, 1]
    d = paired(base, cand)
    assert (d["images_better"], d["images_worse"]) == (1, 2)
    assert (d["throws_won"], d["throws_lost"]) == (1, 0)
    assert d["images_p"] == pytest.approx(sign_test(1, 2)) and d["throws_p"] == 1.0
