"""benchmarks/count_offline.py: the count's constants weighed on dumped readings, without reading again."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import count_offline
from count_offline import evaluate, line_of, parse_setting

import vision.count as count_module
from vision.reading import Die, Reading


def die(face: str, x: int, y: int, conf: float) -> Die:
    return Die(face, int(face), conf, (x, y, x + 40, y + 40), conf < 0.8)


def dumped(dice: list[Die], faces: list[str], spots: list[tuple[float, float, float]]) -> dict[str, object]:
    row: dict[str, object] = json.loads(
        line_of("a-set", "static", faces, spots, "pip", Reading("pip", tuple(dice), 800, 600, 1.0))
    )
    return row


def test_a_setting_that_keeps_a_far_die_wins_the_throw_it_changes_and_nothing_is_left_changed() -> None:
    # four dice in a row, a fifth thrown apart, and an unsure speck under the row: a throw of five
    row = [die(str(v), 100 + 60 * i, 100, 0.95) for i, v in enumerate([2, 3, 4, 5])]
    apart, speck = die("6", 560, 300, 0.95), die("1", 100, 160, 0.6)
    faces = ["2", "3", "4", "5", "6"]
    spots = [(120.0 + 60 * i, 120.0, 40.0) for i in range(4)] + [(580.0, 320.0, 40.0)]
    rows = [dumped([*row, apart, speck], faces, spots), dumped([*row, apart], faces, spots)]
    before = count_module.SPREAD_TOLERANCE
    lines = evaluate(rows, ["SPREAD_TOLERANCE=1", "SPREAD_TOLERANCE=4 CROWDED=0.7"])
    assert before == count_module.SPREAD_TOLERANCE  # each setting is undone
    assert lines[0] == "as they are: right static 2 of 2; won 0, lost 0"
    assert lines[1] == "SPREAD_TOLERANCE=1: right static 1 of 2; won 0, lost 1 (a-set (static) -1)"
    assert lines[2] == "SPREAD_TOLERANCE=4 CROWDED=0.7: right static 2 of 2; won 0, lost 0"


@pytest.mark.parametrize("text", ["SPREAD=4", "SPREAD_TOLERANCE", "MAX_DICE=3", "SPREAD_TOLERANCE=x"])
def test_a_setting_that_is_no_constant_of_the_count_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_setting(text)


def test_the_settings_are_the_count_modules_own_constants() -> None:
    assert all(isinstance(getattr(count_module, name), float) for name in count_offline.TUNABLE)
