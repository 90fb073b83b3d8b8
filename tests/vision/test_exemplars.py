"""Looking for a missing die by its likeness to the game's dice (vision/exemplars.py; issue 59, "the game teaches the
detector too"): the matching alone on drawn dice, then the reader with a game's memory and a detector made to miss
one die."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.drawing import scene
from vision.count import ADDED, fit_count
from vision.detect import Candidates, Looks
from vision.exemplars import PATCH, PER_THROW, chosen, of_throw, patches, search
from vision.memory import NOT_A_DIE, DiceMemory
from vision.reader import DiceReader, Rules

SIDE = 70.0
VALUES = [1, 2, 3, 4, 5]


def _dice(centres: list[tuple[float, float]]) -> Candidates:
    c = np.asarray(centres, np.float32)
    return Candidates(c, np.full(len(c), SIDE, np.float32), np.ones(len(c), np.float32))


def test_a_die_left_out_is_found_by_its_likeness_to_the_others() -> None:
    img, centres = scene(VALUES, side=SIDE, seed=3)
    known = _dice(centres[:2] + centres[3:])  # the third die is the one the detector missed
    ex = patches(img, known.centres, known.sides)
    assert ex.shape == (4, PATCH, PATCH) and ex.dtype == np.uint8
    found = search(img, ex, SIDE, [known])
    assert len(found) >= 1
    assert np.hypot(*(found.centres[0] - centres[2])) < 0.3 * SIDE
    assert all(np.hypot(*(found.centres - c).T).min() > 0.5 * SIDE for c in known.centres)  # never a known die


def test_bare_table_and_no_exemplars_give_nothing() -> None:
    """A window of one grey correlates with anything by chance: it is never a place. (A grained table does give
    places, alike 0.5 or so: the search proposes, the classifier and the count decide.)"""
    img, centres = scene(VALUES, side=SIDE, seed=3)
    ex = patches(img, _dice(centres).centres, _dice(centres).sides)
    assert len(search(np.full((480, 640, 3), 120, np.uint8), ex, SIDE, [], floor=-1.0)) == 0
    assert len(search(img, ex[:0], SIDE, [])) == 0
    assert len(search(img, ex, 6.0, [])) == 0  # dice too small to match


def test_a_throw_gives_the_dice_left_as_read_nearest_its_median_size() -> None:
    """One rule for the reader's memory and the server's lessons: corrected boxes and boxes that are no die give
    none; of the rest the ``PER_THROW`` nearest the median size, nearest first."""
    sides = [70, 40, 72, 69, 90, 71]
    boxes = np.array([(100 * k, 0, 100 * k + s, s) for k, s in enumerate(sides)], np.float32)
    faces = [0, 1, 2, 3, 4, NOT_A_DIE]
    corrected = [False, False, True, False, False, True]
    assert PER_THROW == 2 and chosen(boxes, faces, corrected).tolist() == [0, 3]  # median 69.5 of 70 40 69 90
    assert len(chosen(boxes, [NOT_A_DIE] * 6, [False] * 6)) == 0
    img, _ = scene(VALUES, side=SIDE, seed=3)
    idx, ex = of_throw(img, boxes, faces, corrected)
    centres = (boxes[idx, :2] + boxes[idx, 2:]) / 2
    assert np.array_equal(ex, patches(img, centres, np.asarray(sides, np.float32)[idx]))
    assert of_throw(img, boxes[:0], [], [])[1].shape == (0, PATCH, PATCH)


# ---------------------------------------------------------------------------------------------- with the reader


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


def _game(reader: DiceReader, throws: int = 6) -> DiceMemory:
    """A memory taught ``throws`` confirmed throws of five drawn dice (trusted, its dice' size known)."""
    memory = reader.memory("pip")
    for t in range(throws):
        img, centres = scene(VALUES, side=SIDE, seed=10 + t)
        boxes = [
            (round(x - SIDE / 2), round(y - SIDE / 2), round(x + SIDE / 2), round(y + SIDE / 2)) for x, y in centres
        ]
        reader.teach(memory, img, t, boxes, [v - 1 for v in VALUES], [False] * 5)
    return memory


def _missing_one(rules: Rules, centre: tuple[float, float]) -> DiceReader:
    """A reader whose detector misses the die at ``centre`` (its candidates there dropped)."""

    class Blind(DiceReader):
        def candidates(self, bgr: np.ndarray, looks: Looks | None = None) -> Candidates:
            c = super().candidates(bgr, looks)
            return c.select(np.hypot(*(c.centres - np.asarray(centre)).T) > 0.5 * SIDE)

    return Blind(rules=rules)


def _centre(box: tuple[int, int, int, int]) -> np.ndarray:
    return np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])


def test_the_count_fills_a_die_the_detector_missed_from_the_games_exemplars(reader: DiceReader) -> None:
    memory = _game(reader)
    assert len(memory.exemplars) > 0
    img, centres = scene(VALUES, side=SIDE, seed=3)
    blind = _missing_one(Rules(), centres[2])
    read = blind.read_array(img, "pip", memory)
    assert len(read.dice) == 4
    assert all(np.hypot(*(_centre(d.box) - centres[2])) > 0.5 * SIDE for d in read.dice)
    fitted = fit_count(read, 5)
    added = [d for d in fitted.dice if d.assumed == ADDED]
    assert len(added) == 1 and added[0].uncertain
    assert np.hypot(*(_centre(added[0].box) - centres[2])) < 0.3 * SIDE
    # without the rule the place stays empty for a tap
    off = _missing_one(Rules.without("exemplars"), centres[2])
    assert fit_count(off.read_array(img, "pip", memory), 5).missing == 1


def test_a_full_throw_is_not_searched(reader: DiceReader) -> None:
    """Only a throw short of dice is looked at again: a full one reads as without the rule."""
    memory = _game(reader)
    img, _ = scene(VALUES, side=SIDE, seed=4)
    fresh = DiceReader()
    off = DiceReader(rules=Rules.without("exemplars"))
    a, b = fresh.read_array(img, "pip", memory), off.read_array(img, "pip", memory)
    assert len(a.dice) == 5
    assert [(d.box, d.face) for d in a.dropped] == [(d.box, d.face) for d in b.dropped]
