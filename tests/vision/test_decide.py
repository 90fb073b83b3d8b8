"""The decide step and the pyramid's bands, on hand-made candidates (no models)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.decide import ECHO_RATIO, SIZE_FACTOR, echoes, off_size
from vision.detect import BAND_HI, OVERLAP, SWEET, Candidates, keep_bands


def cands(*rows: tuple[float, float, float, float]) -> Candidates:
    """Candidates from (x, y, side, score) rows."""
    a = np.array(rows, np.float32).reshape(-1, 4)
    return Candidates(a[:, :2].copy(), a[:, 2].copy(), a[:, 3].copy())


# ---------------------------------------------------------------------------------------------------- echoes


def test_a_face_read_again_inside_its_die_is_an_echo() -> None:
    # a casino die of 64 px read as 4, and its top face alone (33 px, inside it) read as 4 again (chase-casino-crops)
    c = cands((40, 40, 64, 0.9), (46, 36, 33, 0.6))
    assert echoes(c, np.array([3, 3]), np.ones(2, bool)).tolist() == [False, True]


def test_a_die_inside_a_bigger_one_read_otherwise_stays() -> None:
    # a block of small dice seen as one big die: the small dice inside it read as other faces are dice
    c = cands((500, 500, 300, 0.9), (450, 450, 60, 0.9), (550, 550, 60, 0.9))
    assert not echoes(c, np.array([3, 1, 5]), np.ones(3, bool)).any()


def test_an_echo_must_lie_inside_and_be_much_smaller() -> None:
    faces = np.array([2, 2])
    beside = cands((40, 40, 64, 0.9), (100, 40, 33, 0.9))  # touching, not inside
    alike = cands((40, 40, 64, 0.9), (42, 40, 64 / (ECHO_RATIO - 0.05), 0.9))  # inside, but nearly its size
    assert not echoes(beside, faces, np.ones(2, bool)).any()
    assert not echoes(alike, faces, np.ones(2, bool)).any()
    # only candidates read as dice take part: a background crop neither is nor makes an echo
    inside = cands((40, 40, 64, 0.9), (46, 36, 33, 0.6))
    assert not echoes(inside, faces, np.array([False, True])).any()


# ---------------------------------------------------------------------------------------------------- off_size


def test_a_speck_a_third_of_the_dice_is_no_die_of_the_throw() -> None:
    # two Catan dice of 70 px read surely, a mark of the floor of 25 px read as a 3 unsurely (issue 51)
    c = cands((900, 600, 70, 0.9), (1050, 550, 70, 0.9), (250, 450, 25, 0.5))
    dice = np.ones(3, bool)
    assert off_size(c, np.array([0.99, 0.98, 0.24]), dice).tolist() == [False, False, True]


def test_a_clip_three_times_the_dice_is_no_die_either() -> None:
    c = cands((100, 100, 60, 0.9), (200, 100, 60, 0.9), (400, 300, 180, 0.6))
    assert off_size(c, np.array([0.95, 0.95, 0.5]), np.ones(3, bool)).tolist() == [False, False, True]


def test_a_sure_candidate_stays_whatever_its_size() -> None:
    c = cands((100, 100, 60, 0.9), (200, 100, 60, 0.9), (400, 300, 180, 0.9))
    assert not off_size(c, np.array([0.95, 0.95, 0.9]), np.ones(3, bool)).any()


def test_a_die_near_the_size_of_the_others_stays_however_unsure() -> None:
    side = 60 * (SIZE_FACTOR - 0.1)
    c = cands((100, 100, 60, 0.9), (200, 100, 60, 0.9), (400, 300, side, 0.9))
    assert not off_size(c, np.array([0.95, 0.95, 0.2]), np.ones(3, bool)).any()


def test_without_a_sure_die_nothing_sets_the_size() -> None:
    c = cands((100, 100, 60, 0.9), (400, 300, 15, 0.9))
    assert not off_size(c, np.array([0.6, 0.3]), np.ones(2, bool)).any()


def test_the_nearest_sure_dice_set_the_size_so_far_dice_of_a_tilted_camera_stay() -> None:
    # near the camera dice of 80 px, far from it dice of 40 px: a far unsure die is measured by the far dice
    c = cands((100, 500, 80, 0.9), (200, 500, 80, 0.9), (300, 500, 80, 0.9), (100, 50, 40, 0.9), (200, 50, 40, 0.9),
              (300, 60, 38, 0.5))
    confs = np.array([0.95, 0.95, 0.95, 0.95, 0.95, 0.5])
    assert not off_size(c, confs, np.ones(6, bool)).any()


# -------------------------------------------------------------------------------------------------------- bands


def test_one_die_seen_at_two_levels_is_kept_once_from_the_level_nearer_its_sweet_size() -> None:
    # the same die: 40 input px at the finer level (scale 1.0), 20 at the coarser (0.5)
    fine = cands((100, 100, 40, 0.6))
    coarse = cands((102, 101, 41, 0.9))
    c = keep_bands([(1.0, fine), (0.5, coarse)])
    assert len(c) == 1 and float(c.scores[0]) == pytest.approx(0.6)


def test_a_coarse_level_leaves_small_dice_to_the_finer_one() -> None:
    # at the coarse level a candidate under the size the finer level stops at is the finer level's to find
    lo = BAND_HI * 0.5 / 1.0 * OVERLAP  # input px at the coarse level
    coarse = cands((300, 300, (lo - 5) / 0.5, 0.9))
    assert len(keep_bands([(1.0, Candidates.empty()), (0.5, coarse)])) == 0
    assert len(keep_bands([(0.5, coarse)])) == 1  # alone, the coarse level is the finest


def test_a_die_too_big_for_its_level_stays_where_no_level_saw_it_better() -> None:
    big = cands((320, 320, 2 * BAND_HI, 0.4))  # over the band at scale 1.0
    assert len(keep_bands([(1.0, big), (0.5, Candidates.empty())])) == 1
    seen = cands((322, 318, 2 * BAND_HI * 1.1, 0.8))  # the coarse level saw it within its band
    c = keep_bands([(1.0, big), (0.5, seen)])
    assert len(c) == 1 and float(c.scores[0]) == pytest.approx(0.8)


def test_a_die_and_smaller_candidates_inside_it_within_their_band_are_all_kept() -> None:
    pips = cands((280, 280, 40, 0.8), (360, 360, 40, 0.8))
    die = cands((320, 320, SWEET / 0.5, 0.9))
    assert len(keep_bands([(1.0, pips), (0.5, die)])) == 3


def test_a_candidate_over_its_band_inside_a_bigger_one_of_a_coarser_level_is_a_part_of_it() -> None:
    # a crop of one die looked at six times its size: its pips are over the band there, the coarse level sees the die
    pips = cands((280, 280, 1.3 * BAND_HI, 0.8), (360, 360, 1.3 * BAND_HI, 0.8))
    die = cands((320, 320, 300, 0.7))  # 75 input px at its level, over twice the pips' side
    c = keep_bands([(1.0, pips), (0.25, die)])
    assert len(c) == 1 and float(c.sides[0]) == pytest.approx(300)
    # beside the die, not inside it, or not much smaller than it: not a part of it
    beside = cands((320 + 300, 320, 1.3 * BAND_HI, 0.8))
    assert len(keep_bands([(1.0, beside), (0.25, die)])) == 2
    alike = cands((330, 330, 1.3 * BAND_HI, 0.8))
    c = keep_bands([(1.0, alike), (0.5, cands((320, 320, 1.2 * BAND_HI, 0.7)))])
    assert len(c) == 1  # one die seen twice, kept once (not dropped as a part of itself)
