"""The decide step and the pyramid's bands, on hand-made candidates and logits (no models)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.decide import BACKGROUND, SIZE_FACTOR, nested, off_size
from vision.detect import BAND_HI, OVERLAP, SWEET, Candidates, keep_bands


def cands(*rows: tuple[float, float, float, float]) -> Candidates:
    """Candidates from (x, y, side, score) rows."""
    a = np.array(rows, np.float32).reshape(-1, 4)
    return Candidates(a[:, :2].copy(), a[:, 2].copy(), a[:, 3].copy())


def reads(*faces: tuple[int, float]) -> np.ndarray:
    """Logits (n, 13) that read each candidate as class ``k`` (0-5 pips 1-6, 12 background) with probability ``p``."""
    out = np.full((len(faces), BACKGROUND + 1), 0.0, np.float32)
    for i, (k, p) in enumerate(faces):
        rest = (1 - p) / BACKGROUND
        out[i] = np.log(rest)
        out[i, k] = np.log(p)
    return out


# ------------------------------------------------------------------------------------------------------ nested


def test_a_die_read_surely_stands_for_the_ones_inside_it() -> None:
    # a close-up 4: the pyramid's coarse level sees the die, the normal one its four pips, each a die showing 1
    c = cands((200, 200, 240, 0.9), (150, 150, 50, 0.8), (250, 150, 50, 0.8), (150, 250, 50, 0.8), (250, 250, 50, 0.8))
    keep = nested(c, reads((3, 0.95), (0, 0.9), (0, 0.9), (0, 0.9), (0, 0.9)))
    assert keep.tolist() == [True, False, False, False, False]


def test_a_block_of_dice_is_its_dice_not_the_die_it_passes_for() -> None:
    # four dice side by side read surely as a 4 at a coarse level: inside it they read 3, 5, 2, 6, not ones
    c = cands((200, 200, 240, 0.9), (150, 150, 70, 0.8), (250, 150, 70, 0.8), (150, 250, 70, 0.8), (250, 250, 70, 0.8))
    keep = nested(c, reads((3, 0.97), (2, 0.9), (4, 0.9), (1, 0.9), (5, 0.9)))
    assert keep.tolist() == [False, True, True, True, True]


def test_more_ones_than_the_big_die_has_pips_are_dice() -> None:
    # three dice showing 1 inside what reads as a 2: a 2 has no three pips
    c = cands((200, 200, 240, 0.9), (130, 200, 60, 0.8), (200, 200 - 60, 60, 0.8), (270, 200, 60, 0.8))
    keep = nested(c, reads((1, 0.95), (0, 0.9), (0, 0.9), (0, 0.9)))
    assert keep.tolist() == [False, True, True, True]


def test_an_unsure_big_candidate_does_not_swallow_the_dice_inside() -> None:
    c = cands((200, 200, 240, 0.9), (150, 150, 50, 0.8), (250, 250, 50, 0.8))
    keep = nested(c, reads((5, 0.5), (0, 0.9), (0, 0.9)))
    assert keep.tolist() == [False, True, True]


def test_a_sure_die_stands_for_its_pips_read_unsurely_mostly_as_ones() -> None:
    # a translucent casino 3 (chase-casino-crops): its big pips read as ones at 0.3-0.4, as background, one as a 4
    c = cands((200, 200, 240, 0.9), (150, 150, 50, 0.3), (250, 150, 50, 0.6), (200, 250, 50, 0.6), (150, 250, 50, 0.5))
    keep = nested(c, reads((2, 0.93), (BACKGROUND, 0.9), (0, 0.4), (0, 0.35), (3, 0.21)))
    assert keep.tolist() == [True, False, False, False, False]


def test_tiny_dice_read_unsurely_as_their_faces_are_not_the_pips_of_a_die() -> None:
    # a cluster of far dice (rune55-small-far) read as one sure "4" at a coarse level: inside, 2, 5 and 3 unsurely
    c = cands((200, 200, 120, 0.7), (180, 180, 25, 0.5), (220, 180, 25, 0.5), (200, 220, 25, 0.5))
    keep = nested(c, reads((3, 0.9), (1, 0.4), (4, 0.45), (2, 0.3)))
    assert keep.tolist() == [False, True, True, True]


def test_an_unsure_die_leaves_what_lies_inside_it_to_the_classifier() -> None:
    c = cands((200, 200, 240, 0.9), (150, 150, 50, 0.3))
    keep = nested(c, reads((4, 0.6), (BACKGROUND, 0.9)))
    assert keep.tolist() == [True, True]


@pytest.mark.parametrize(("big", "small", "stays"), [(0.95, 0.6, 0), (0.6, 0.95, 1)])
def test_the_same_die_seen_twice_keeps_the_box_that_reads_surer(big: float, small: float, stays: int) -> None:
    # a close-up seen at the normal level with its size underrated (the box of its pips), and whole at a coarse one
    c = cands((200, 200, 240, 0.9), (203, 198, 130, 0.8))
    keep = nested(c, reads((4, big), (4, small)))
    assert keep.tolist() == [stays == 0, stays == 1]


def test_dice_apart_are_all_kept() -> None:
    c = cands((100, 100, 60, 0.9), (300, 100, 60, 0.9), (200, 300, 60, 0.9))
    assert nested(c, reads((0, 0.9), (0, 0.9), (5, 0.9))).all()


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


def test_a_die_and_the_smaller_candidates_inside_it_are_all_kept_for_the_decide_step() -> None:
    pips = cands((280, 280, 40, 0.8), (360, 360, 40, 0.8))
    die = cands((320, 320, SWEET / 0.5, 0.9))
    assert len(keep_bands([(1.0, pips), (0.5, die)])) == 3


def test_a_candidate_over_its_band_inside_a_bigger_one_of_a_coarser_level_is_a_part_of_it() -> None:
    # a crop of one die looked at six times its size: its pips are over the band there, the coarse level sees the die
    pips = cands((280, 280, 1.3 * BAND_HI, 0.8), (360, 360, 1.3 * BAND_HI, 0.8))
    die = cands((320, 320, 300, 0.7))  # 75 input px at its level, over twice the pips' side
    c = keep_bands([(1.0, pips), (0.25, die)], whole=True)
    assert len(c) == 1 and float(c.sides[0]) == pytest.approx(300)
    # beside the die, not inside it, or not much smaller than it: not a part of it
    beside = cands((320 + 300, 320, 1.3 * BAND_HI, 0.8))
    assert len(keep_bands([(1.0, beside), (0.25, die)], whole=True)) == 2
    assert len(keep_bands([(1.0, pips), (0.25, die)])) == 3  # the tiny net's reader: all kept for the decide step
    alike = cands((330, 330, 1.3 * BAND_HI, 0.8))
    c = keep_bands([(1.0, alike), (0.5, cands((320, 320, 1.2 * BAND_HI, 0.7)))], whole=True)
    assert len(c) == 1  # one die seen twice, kept once (not dropped as a part of itself)


def test_a_small_die_near_the_centre_of_a_big_candidate_is_another_die_not_the_same_one() -> None:
    # two dice showing 1 side by side read as one big "1" at a coarse level, one of them near its centre: a "1" has
    # one pip, and two dice read surely as ones lie inside it, so they are two dice (webcam-white-dice valid_68)
    c = cands((354, 272, 173, 0.5), (358, 271, 47, 0.8), (292, 316, 64, 0.86))
    keep = nested(c, reads((0, 0.95), (0, 0.95), (0, 0.95)))
    assert keep.tolist() == [False, True, True]

