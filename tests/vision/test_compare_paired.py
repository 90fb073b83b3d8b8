"""compare.py's image-by-image figures: which reader reads which photo better, and whether the split is luck."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.compare import Row, Score, paired, sign_test, told_kind
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


def test_learning_diff_pairs_two_runs_throw_by_throw(tmp_path: Path) -> None:
    from benchmarks.learning_diff import runs, table

    def log(name: str, *sets: tuple[str, str]) -> Path:
        path = tmp_path / name
        lines = ["a progress line"] + [json.dumps({"set": s, "learning": {"after_5": bits}}) for s, bits in sets]
        path.write_text("\n".join(lines), encoding="utf-8")
        return path

    base = runs(log("base.jsonl", ("pip-steel", "11100"), ("chase", "1111")))
    cand = runs(log("cand.jsonl", ("pip-steel", "01111"), ("chase", "1111")))
    lines = table(base, cand)
    steel = lines[1].split()
    assert steel[:5] == ["pip-steel", "3/5", "4/5", "2", "1"] and float(steel[5]) == pytest.approx(sign_test(2, 1))
    assert lines[-1].split()[:5] == ["all", "7/9", "8/9", "2", "1"]
    with pytest.raises(ValueError, match="not the same game"):
        table(base, runs(log("short.jsonl", ("pip-steel", "0111"))))


def test_a_game_tells_each_row_its_own_kind() -> None:
    pip, poker = Row(Path("a.jpg"), ["1"], "pip"), Row(Path("b.jpg"), ["Q"], "poker")
    assert [told_kind("game", r) for r in (pip, poker)] == ["pip", "poker"]
    assert [told_kind("auto", r) for r in (pip, poker)] == ["auto", "auto"]
    assert told_kind("poker", pip) == "poker"
