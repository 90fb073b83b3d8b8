"""learning_bench.py's player: what each proposal costs in taps and what the confirmed throw teaches."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import numpy as np
from learning_bench import Throw, confirm, phantoms, throws_of

from vision.memory import NOT_A_DIE
from vision.reading import Die, Reading


def die(face: str, cx: int, cy: int, conf: float = 0.9, half: int = 15) -> Die:
    return Die(face, int(face), conf, (cx - half, cy - half, cx + half, cy + half), conf < 0.8)


def reading(dice: list[Die], extra: list[Die] | None = None) -> Reading:
    return Reading("pip", tuple(dice), 640, 480, 1.0, extra=tuple(extra or ()))


def throw(faces: list[str], spots: list[tuple[float, float, float]] | None) -> Throw:
    return Throw(Path("x.jpg"), "pip", faces, spots)


def test_a_right_proposal_costs_nothing_and_teaches_every_die() -> None:
    t = throw(["3", "5"], [(100, 100, 30), (300, 100, 30)])
    out = confirm(t, reading([die("3", 100, 100), die("5", 302, 99)]))
    assert out.taps == 0 and out.faces == [2, 4] and out.corrected == [False, False]


def test_a_wrong_face_is_one_tap_and_a_correction() -> None:
    t = throw(["3", "5"], [(100, 100, 30), (300, 100, 30)])
    out = confirm(t, reading([die("3", 100, 100), die("6", 300, 100)]))
    assert out.taps == 1 and out.kinds["face"] == 1 and out.faces == [2, 4] and out.corrected == [False, True]


def test_a_phantom_with_the_real_die_left_out_is_one_swap_and_teaches_both() -> None:
    t = throw(["3", "5"], [(100, 100, 30), (300, 100, 30)])
    proposal = reading([die("3", 100, 100), die("1", 500, 400)], extra=[die("5", 300, 100)])
    out = confirm(t, proposal)
    assert out.taps == 1 and out.kinds["swap"] == 1
    assert out.faces == [2, NOT_A_DIE, 4] and out.corrected == [False, True, True]


def test_a_phantom_with_no_die_to_swap_in_and_an_empty_place_are_a_tap_each() -> None:
    """Two dice missing: one typed over the phantom (taught as no die), one tapped into the empty place."""
    t = throw(["3", "5", "2"], [(100, 100, 30), (300, 100, 30), (200, 300, 30)])
    out = confirm(t, reading([die("3", 100, 100), die("1", 500, 400)]))
    assert out.taps == 2 and out.kinds == {"phantom": 1, "empty": 1, "face": 0}
    assert out.faces == [2, NOT_A_DIE]


def test_faces_only_the_likeliest_assignment() -> None:
    """No boxes: equal faces pair first, the surest die left takes the face left."""
    t = throw(["2", "4", "6"], None)
    out = confirm(t, reading([die("2", 10, 10), die("1", 60, 10, conf=0.5), die("3", 110, 10, conf=0.95)]))
    assert out.taps == 2
    assert list(zip(out.boxes, out.faces, out.corrected, strict=True)) == [
        ((-5, -5, 25, 25), 1, False),
        ((95, -5, 125, 25), 3, True),
        ((45, -5, 75, 25), 5, True),
    ]


def test_rows_are_read_in_file_order_with_images_under_root(tmp_path: Path) -> None:
    labels = tmp_path / "game.csv"
    labels.write_text(
        "image,split,kind,values,boxes\n"
        "b.jpg,test,pip,2 5,\"10,10,40,40:5;50,10,80,40:2\"\n"
        "a.jpg,test,poker,K,\"0,0,0,0:K\"\n"
        "c.jpg,train,pip,1,\"1,1,9,9:1\"\n",
        encoding="utf-8",
    )
    rows = throws_of(labels, {"test"}, root=tmp_path / "images")
    assert [r.image.name for r in rows] == ["b.jpg", "a.jpg"]
    assert rows[0].image.parent == tmp_path / "images"
    assert rows[0].faces == ["5", "2"] and rows[0].spots is not None
    assert rows[1].faces == ["K"] and rows[1].spots is None and rows[1].kind == "poker"
    assert len(throws_of(labels, {"unseen"})) == 3  # no row of the splits asked: all rows


class Readings:
    """A reader whose answer depends on the memory it is given: two dice, one flagged, without; one sure die with."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, object]] = []

    def read_array(self, bgr: np.ndarray, kind: str, memory: object) -> Reading:
        self.asked.append((kind, memory))
        dice = [die("1", 50, 50)] if memory is not None else [die("1", 50, 50), die("2", 90, 90, conf=0.5)]
        return Reading(kind, tuple(dice), 640, 480, 1.0)


def test_phantoms_are_counted_per_photo_and_those_not_flagged_apart() -> None:
    reader = Readings()
    photos = [np.zeros((8, 8, 3), np.uint8)] * 4
    assert phantoms(reader, None, photos, "pip") == (2.0, 1.0)
    memory = object()
    assert phantoms(reader, memory, photos, "pip") == (1.0, 1.0)
    assert {k for k, _ in reader.asked} == {"pip"} and reader.asked[-1][1] is memory
