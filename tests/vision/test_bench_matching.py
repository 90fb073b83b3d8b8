"""The benchmark's positional matching: the recall by die size must count a die only where it was read."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from read_bench import Tally, band_of, matched

from vision.reading import Die, Reading


def die(face: str, cx: int, cy: int, half: int = 15) -> Die:
    return Die(face, int(face), 0.9, (cx - half, cy - half, cx + half, cy + half), False)


def test_a_die_counts_only_where_it_was_read() -> None:
    spots = [(100.0, 100.0, 30.0, "3"), (300.0, 100.0, 30.0, "5")]
    # the right faces, swapped places: the multiset count calls both found, the position finds neither
    swapped = Reading("pip", (die("5", 100, 100), die("3", 300, 100)), 640, 480)
    assert matched(spots, swapped) == [False, False]
    assert matched(spots, Reading("pip", (die("3", 104, 96), die("5", 300, 100)), 640, 480)) == [True, True]


def test_one_read_die_covers_one_labelled_die_the_nearest() -> None:
    spots = [(100.0, 100.0, 40.0, "2"), (110.0, 100.0, 40.0, "2")]
    assert matched(spots, Reading("pip", (die("2", 112, 100),), 640, 480)) == [False, True]


def test_recall_is_counted_per_size_band() -> None:
    assert [band_of(s) for s in (12.0, 20.0, 399.0, 450.0)] == ["under 20 px", "20-400 px", "20-400 px", "over 400 px"]
    t = Tally()
    spots = [(50.0, 50.0, 12.0, "1"), (200.0, 200.0, 60.0, "6")]
    t.add(["1", "6"], Reading("pip", (die("6", 200, 200),), 640, 480), "pip", 1.0, spots)
    assert t.bands() == {"under 20 px": (0, 1), "20-400 px": (1, 1)}
