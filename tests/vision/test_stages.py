"""Each stage alone, without the models: detector post-processing, suppression, cropping, kind choice."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.vision.drawing import draw_die, table
from vision.classify import (
    BACKGROUND,
    Classifier,
    choose_kind,
    confidence,
    crop_dice,
    fit_confidence,
    keep_fit,
    kind_probs,
    operating_point,
    rank_columns,
    softmax,
    to_input,
)
from vision.detect import Candidates, Detector, Looks, suppress
from vision.reading import PIP_FACES, POKER_FACES

FACES = [*PIP_FACES, *POKER_FACES]


def _bare_detector(stride: int = 4, long_side: int = 320) -> Detector:
    det = Detector.__new__(Detector)
    det.stride, det.long_side = stride, long_side
    return det


def test_preprocess_scales_the_long_side_and_pads_to_32() -> None:
    det = _bare_detector()
    tensor, f = det.preprocess(np.zeros((480, 640, 3), np.uint8))
    assert f == 0.5
    assert tensor.shape == (1, 3, 256, 320) and tensor.dtype == np.float32


def test_postprocess_maps_a_peak_back_to_image_pixels() -> None:
    det = _bare_detector()
    maps = np.full((4, 60, 80), -10.0, np.float32)
    maps[0, 20, 30] = 5.0  # one confident peak
    maps[1, 20, 30] = np.log(24.0)  # 24 px side at detector scale
    maps[2, 20, 30], maps[3, 20, 30] = 0.5, 0.25
    c = det.postprocess(maps, 0.5, (480, 640), threshold=0.3)
    assert len(c) == 1
    np.testing.assert_allclose(c.centres[0], [(30.5 * 4) / 0.5, (20.25 * 4) / 0.5], rtol=1e-5)
    np.testing.assert_allclose(c.sides[0], 48.0, rtol=1e-5)
    assert c.scores[0] > 0.99


def test_postprocess_ignores_weak_peaks() -> None:
    maps = np.full((4, 10, 10), -10.0, np.float32)
    maps[0, 5, 5] = -2.0  # sigmoid 0.12
    assert len(_bare_detector().postprocess(maps, 1.0, (40, 40), threshold=0.3)) == 0


def test_each_scale_is_looked_at_once_per_image() -> None:
    det = _bare_detector(long_side=416)
    taken: list[tuple[int, ...]] = []

    def infer(tensor: np.ndarray) -> np.ndarray:
        taken.append(tensor.shape)
        return np.full((4, tensor.shape[2] // 4, tensor.shape[3] // 4), -6.0, np.float32)

    det.infer = infer  # type: ignore[method-assign]
    img = np.zeros((480, 640, 3), np.uint8)
    looks = Looks()
    det.detect(img, 0.3, 624, looks)
    det.detect(img, 0.3, 416, looks)
    assert sorted(looks) == [416, 624] and len(taken) == 2  # one look a level, no partner look fused with it
    det.detect(img, 0.3, 416, looks)
    det.pyramid(img, 0.3, looks)  # nothing found: the normal look (416, taken) and the coarse one (208) of a close-up
    assert sorted(looks) == [208, 416, 624] and len(taken) == 3


def test_suppress_keeps_the_stronger_of_two_peaks_on_one_die() -> None:
    c = Candidates(
        np.array([[100, 100], [108, 104], [300, 100]], np.float32),
        np.array([50, 50, 50], np.float32),
        np.array([0.6, 0.9, 0.5], np.float32),
    )
    kept = suppress(c)
    assert sorted(kept.scores.tolist()) == [np.float32(0.5), np.float32(0.9)]


def test_a_suppressed_peak_suppresses_nothing() -> None:
    # B lies on A and goes; C lies on B but not on A, and stays: only kept candidates suppress
    c = Candidates(
        np.array([[100, 100], [120, 100], [140, 100]], np.float32),
        np.array([50, 50, 50], np.float32),
        np.array([0.9, 0.8, 0.7], np.float32),
    )
    assert suppress(c).scores.tolist() == [np.float32(0.9), np.float32(0.7)]


def test_suppress_keeps_what_a_pass_over_pairs_keeps() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(0, 40))
        c = Candidates(
            rng.uniform(0, 400, (n, 2)).astype(np.float32),
            rng.uniform(10, 80, n).astype(np.float32),
            rng.uniform(0.2, 1.0, n).astype(np.float32),
        )
        keep: list[int] = []
        for i in np.argsort(-c.scores):
            if all(np.hypot(*(c.centres[i] - c.centres[j])) > 0.5 * max(c.sides[i], c.sides[j]) for j in keep):
                keep.append(int(i))
        assert suppress(c).centres.tolist() == c.centres[sorted(keep)].tolist()


def test_crop_is_centred_on_the_die_and_standardised() -> None:
    img = table(320, 240)
    draw_die(img, 200, 90, 60, 1)
    c = Candidates(np.array([[200, 90]], np.float32), np.array([60], np.float32), np.array([1.0], np.float32))
    crops = crop_dice(img, c, 32, 1.25)
    assert crops.shape == (1, 32, 32, 3)
    grey = crops[0].mean(axis=2)
    assert grey[15:17, 15:17].mean() < 80  # the single pip sits in the middle
    assert grey[8, 8] > 180  # the white face around it
    x = to_input(crops)
    assert x.shape == (1, 1, 32, 32)
    assert abs(float(x.mean())) < 1e-4


def test_the_crop_margin_shows_a_small_die_whole_and_a_big_one_almost_as_before() -> None:
    img = np.zeros((400, 400, 3), np.uint8)
    img[90:110, 90:110] = 255  # a 20 px die
    img[200:300, 200:300] = 255  # a 100 px die
    centres = np.array([[100, 100], [250, 250]], np.float32)
    c = Candidates(centres, np.array([20, 100], np.float32), np.ones(2, np.float32))
    tight, loose = crop_dice(img, c, 64, 1.2), crop_dice(img, c, 64, 1.2, margin=8.0)
    white = [(crops[:, :, :, 0] > 127).mean(axis=(1, 2)) for crops in (tight, loose)]
    # the die's share of the crop: (20 / 24)^2 tight, (20 / 32)^2 with 8 px more; (100 / 120)^2 against (100 / 128)^2
    assert white[0][0] == pytest.approx((20 / 24) ** 2, abs=0.03)
    assert white[1][0] == pytest.approx((20 / 32) ** 2, abs=0.03)
    assert white[0][1] == pytest.approx((100 / 120) ** 2, abs=0.03)
    assert white[1][1] == pytest.approx((100 / 128) ** 2, abs=0.03)


def test_colour_input_keeps_pips_that_grey_loses_and_sums_to_the_grey_input() -> None:
    from vision.classify import GREY

    blue = np.array([230, 60, 40], np.float32)  # BGR
    red = np.array([0, 0, 0], np.float32)
    red[2] = float(blue @ GREY) / GREY[2]  # a red of the blue's very grey level (clipped below 255 here)
    assert red[2] < 255
    crops = np.empty((1, 32, 32, 3), np.uint8)
    crops[:] = blue.astype(np.uint8)
    crops[0, 12:20, 12:20] = red.astype(np.uint8)  # one red pip on a blue die
    grey, colour = to_input(crops, 1), to_input(crops, 3)
    assert colour.shape == (1, 3, 32, 32)
    assert float(np.ptp(grey)) < 0.05  # grey: the pip is gone
    assert float(np.ptp(colour[0, 2])) > 1.0  # the red channel still shows it
    np.testing.assert_allclose(np.tensordot(GREY, colour[0], axes=1), grey[0, 0], atol=1e-5)


def test_kind_probs_are_distributions_and_temperature_softens() -> None:
    logits = np.random.default_rng(0).normal(0, 3, (5, BACKGROUND + 1)).astype(np.float32)
    for kind in ("pip", "poker"):
        p1 = kind_probs(logits, kind, 1.0)
        p2 = kind_probs(logits, kind, 2.0)
        assert p1.shape == (5, 7)
        np.testing.assert_allclose(p1.sum(1), 1.0, rtol=1e-5)
        assert (p2.max(1) <= p1.max(1) + 1e-6).all()


def test_choose_kind_follows_the_faces_that_carry_the_probability() -> None:
    logits = np.zeros((3, BACKGROUND + 1), np.float32)
    logits[:, 8] = 6.0  # J on every die
    assert choose_kind(logits, np.ones(3, np.float32)) == "poker"
    logits[:, 2] = 9.0  # but a 3 is stronger
    assert choose_kind(logits, np.ones(3, np.float32)) == "pip"
    assert choose_kind(np.zeros((0, BACKGROUND + 1), np.float32), np.zeros(0, np.float32)) == "pip"


def test_choose_kind_lets_a_few_sure_dice_outvote_many_muddled_marks() -> None:
    # six dice read as a 5 for sure; twenty loops of a table's pattern half J, half Q, nearly as strong at the detector
    sure = np.full((6, BACKGROUND + 1), -4.0, np.float32)
    sure[:, 4] = 5.0
    muddle = np.full((20, BACKGROUND + 1), -4.0, np.float32)
    muddle[:, 8] = muddle[:, 9] = 2.0
    logits = np.concatenate([sure, muddle])
    scores = np.r_[np.full(6, 0.9), np.full(20, 0.7)].astype(np.float32)
    assert choose_kind(logits, scores) == "pip"
    # the old vote, by each family's summed probability, would have called it poker
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    assert (p[:, 6:12].sum(1) * scores).sum() > (p[:, :6].sum(1) * scores).sum()
    # a photo of poker dice stays poker, muddled marks or not
    sure[:, 4], sure[:, 10] = -4.0, 5.0
    assert choose_kind(np.concatenate([sure, muddle]), scores) == "poker"


def test_choose_kind_weighs_marks_much_smaller_than_the_dice_by_their_area() -> None:
    logits = np.full((12, BACKGROUND + 1), -4.0, np.float32)
    logits[:3, 2] = 5.0  # three dice read as a 3
    logits[3:, 9] = 5.0  # nine marks read as a Q as surely
    scores = np.r_[np.full(3, 0.9), np.full(9, 0.8)].astype(np.float32)
    assert choose_kind(logits, scores) == "poker"  # by count alone
    sides = np.r_[np.full(3, 100.0), np.full(9, 30.0)].astype(np.float32)
    assert choose_kind(logits, scores, sides) == "pip"  # the marks are a third of a die's side
    assert choose_kind(logits, scores, np.full(12, 100.0, np.float32)) == "poker"  # dice of one size: by count


class _ScriptedDetector(Detector):
    """A detector whose single-scale answers are given per long side (none where not given), to test the pyramid's
    policy alone."""

    def __init__(self, answers: dict[int, Candidates]) -> None:
        self.stride, self.long_side, self.answers = 4, 416, answers
        self.looks: list[int] = []

    def detect(
        self, bgr: np.ndarray, threshold: float = 0.25, long_side: int | None = None, *_: Any, **__: Any
    ) -> Candidates:
        side = long_side or self.long_side
        self.looks.append(side)
        return self.answers.get(side, Candidates.empty())


def _dice(n: int, side: float) -> Candidates:
    return Candidates(
        np.array([[40.0 * k + 20, 50.0] for k in range(n)], np.float32),
        np.full(n, side, np.float32),
        np.full(n, 0.9, np.float32),
    )


def test_the_pyramid_looks_coarser_while_a_die_of_half_the_photo_is_too_big_for_the_net() -> None:
    # 640x640 at 416: a die of 320 px is 208 input px, at 208 it is 104 (within the band)
    det = _ScriptedDetector({416: _dice(3, 80.0)})
    assert len(det.pyramid(np.zeros((640, 640, 3), np.uint8), 0.3)) == 3 and det.looks == [416, 208]
    # a 72 px crop around one die: the die may fill it (65 px), so down to a level where it is 47 input px
    crop = _ScriptedDetector({})
    crop.pyramid(np.zeros((72, 72, 3), np.uint8), 0.3)
    assert crop.looks == [416, 208, 104, 52]


def test_the_pyramid_looks_finer_only_when_the_dice_are_small() -> None:
    img = np.zeros((640, 640, 3), np.uint8)  # net scale 416/640 = 0.65
    small = _ScriptedDetector({416: _dice(3, 30.0), 624: _dice(5, 28.0)})
    assert len(small.pyramid(img, 0.3)) == 5 and small.looks == [416, 208, 624]
    empty = _ScriptedDetector({})  # nothing at all in a small picture: no finer look for nothing
    assert len(empty.pyramid(img, 0.3)) == 0 and empty.looks == [416, 208]


def test_a_large_frame_is_looked_at_finer_where_its_dice_are_small_or_none_were_found() -> None:
    frame = np.zeros((1080, 1920, 3), np.uint8)
    two = _ScriptedDetector({416: _dice(2, 300.0)})  # two dice of 65 input px at the normal level: big enough
    two.pyramid(frame, 0.3)
    assert two.looks == [416, 208]
    none = _ScriptedDetector({})  # nothing at all: twice finer, and once more (3 x) for what that still misses
    none.pyramid(frame, 0.3)
    assert none.looks == [416, 208, 832, 1248]
    small = _ScriptedDetector({416: _dice(6, 100.0), 832: _dice(6, 40.0)})  # 17 input px, then still 17 at 832
    small.pyramid(frame, 0.3)
    assert small.looks == [416, 208, 832, 1248]
    many = _ScriptedDetector({416: _dice(20, 200.0)})  # twenty dice big enough: the normal level reads them
    many.pyramid(frame, 0.3)
    assert many.looks == [416]  # and so many small candidates are no close-up's pips: no coarse level either


def test_a_photo_of_many_small_dice_needs_no_coarse_level_but_a_few_small_candidates_may_be_pips() -> None:
    img = np.zeros((480, 640, 3), np.uint8)  # net scale 0.65: 50 px dice are 32 input px
    crowd = _ScriptedDetector({416: _dice(12, 50.0)})
    crowd.pyramid(img, 0.3)
    assert crowd.looks == [416]
    pips = _ScriptedDetector({416: _dice(5, 50.0)})  # five spots of one size: the pips of a close-up 5, maybe
    pips.pyramid(img, 0.3)
    assert pips.looks == [416, 208]
    big = _ScriptedDetector({416: _dice(12, 50.0), 208: _dice(1, 300.0)})
    big.looks.clear()
    big.answers[416] = Candidates.joined(_dice(11, 50.0), Candidates(np.array([[320.0, 240.0]], np.float32),
                                                                     np.array([80.0], np.float32),
                                                                     np.array([0.9], np.float32)))
    big.pyramid(img, 0.3)  # one candidate of 52 input px among them: a close-up's die may be there
    assert big.looks == [416, 208]
    faint = _ScriptedDetector({})
    faint.answers[416] = Candidates.joined(_dice(11, 50.0), Candidates(np.array([[320.0, 240.0]], np.float32),
                                                                       np.array([80.0], np.float32),
                                                                       np.array([0.3], np.float32)))
    faint.pyramid(img, 0.3)  # as big, but unsure: a cluster of the small dice passing for one die, no close-up
    assert faint.looks == [416]


def test_confidence_without_a_fit_is_the_face_probability() -> None:
    p = np.array([0.2, 0.9, 0.999])
    np.testing.assert_array_equal(confidence(p, np.array([0.1, 0.5, 0.9]), None), p)


def test_fitted_confidence_uses_the_detector_score_when_it_tells_right_from_wrong() -> None:
    rng = np.random.default_rng(3)
    n = 4000
    face_p = rng.uniform(0.5, 0.999, n)
    det = rng.uniform(0.3, 0.99, n)
    # a weak detection is a false alarm more often, whatever the face probability says
    right = rng.random(n) < face_p * np.where(det > 0.6, 1.0, 0.5)
    model = fit_confidence(face_p, det, right)
    assert model[1] > 0 and model[2] > 0
    conf = confidence(face_p, det, model)
    assert ((conf > 0) & (conf < 1)).all()
    # calibrated on average, and better in log loss than the face probability alone
    assert abs(float(conf.mean()) - float(right.mean())) < 0.02

    def nll(q: np.ndarray) -> float:
        return float(-np.mean(np.where(right, np.log(q), np.log(1 - q))))

    assert nll(conf) < nll(face_p)


def test_confidence_of_a_steep_fit_stays_in_range_without_overflow() -> None:
    p = np.array([1e-9, 0.5, 1 - 1e-9], np.float32)
    with np.errstate(over="raise"):
        conf = confidence(p, p, [0.0, 40.0, 40.0])
    assert conf[0] == 0.0 and conf[1] == 0.5 and conf[2] > 0.999


class _TableSession:
    """Stands in for onnxruntime: logits looked up by the exact crop tensor, and the batch sizes it was asked for."""

    def __init__(self, table: dict[bytes, np.ndarray]) -> None:
        self.table, self.batches = table, []  # type: ignore[var-annotated]

    def run(self, _: None, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        x = feed["crops"]
        self.batches.append(len(x))
        return [np.stack([self.table[np.ascontiguousarray(t).tobytes()] for t in x])]


def test_crops_in_doubt_are_read_at_all_four_quarter_turns_and_their_mirrors() -> None:
    img = np.random.default_rng(3).integers(0, 256, (120, 240, 3), dtype=np.uint8)
    c = Candidates(np.array([[60, 60], [180, 60]], np.float32), np.full(2, 80, np.float32), np.ones(2, np.float32))
    x = to_input(crop_dice(img, c, 32, 1.2))
    sure, doubt_low, doubt_high, mirrored = np.zeros(13), np.zeros(13), np.zeros(13), np.zeros(13)
    sure[2], doubt_low[3], doubt_high[3], mirrored[4] = 10.0, 1.0, 5.0, 8.0  # softmax tops: 0.9993, 0.18, 0.93
    lookup = {}
    for k in range(4):
        lookup[np.ascontiguousarray(np.rot90(x[0], k, axes=(1, 2))).tobytes()] = sure
        lookup[np.ascontiguousarray(np.rot90(x[1], k, axes=(1, 2))).tobytes()] = doubt_low if k < 2 else doubt_high
        # left-right mirror, then turned; a crop that is not asked for is not in the table, and fails the read
        lookup[np.ascontiguousarray(np.rot90(x[1][:, :, ::-1], k, axes=(1, 2))).tobytes()] = mirrored
    clf = Classifier.__new__(Classifier)
    clf.size, clf.context, clf.margin, clf.turns, clf.input, clf.channels = 32, 1.2, 0.0, 2, "crops", 1
    clf.columns = rank_columns([*FACES, "background"])
    clf.sess = _TableSession(lookup)  # type: ignore[assignment]
    out = clf.logits(img, c)
    np.testing.assert_allclose(out[0], sure)  # sure at two turns: read twice only
    # in doubt: the mean of all eight views, four turns and four mirrored
    np.testing.assert_allclose(out[1], (2 * doubt_low + 2 * doubt_high + 4 * mirrored) / 8)
    assert clf.sess.batches == [4, 6]  # type: ignore[attr-defined]
    np.testing.assert_allclose(clf.logits(img, c, turns=2)[1], doubt_low)  # an explicit count is kept as asked


def test_printings_add_up_to_their_face_and_the_printed_letter_is_told() -> None:
    names = [*FACES, "background", "B", "V", "D", "R"]
    clf = Classifier.__new__(Classifier)
    clf.class_names, clf.columns = names, rank_columns(names)
    full = np.zeros((2, len(names)), np.float32)
    full[0, names.index("J")], full[0, names.index("B")], full[0, names.index("V")] = 1.0, 3.0, 0.5  # a German jack
    full[1, names.index("Q")], full[1, names.index("D")] = 4.0, 1.0  # an English queen
    full[0, names.index("D")] = 0.5  # the jack's queen would be a German "D", were it a queen
    merged = clf.merge(full)
    assert merged.shape == (2, 13)
    p_full, p_merged = softmax(full), softmax(merged)
    jbv = [names.index(n) for n in ("J", "B", "V")]
    np.testing.assert_allclose(p_merged[0, FACES.index("J")], p_full[0, jbv].sum(), rtol=1e-5)
    np.testing.assert_allclose(p_merged[:, BACKGROUND], p_full[:, BACKGROUND], rtol=1e-5)
    assert merged[0].argmax() == FACES.index("J") and merged[1].argmax() == FACES.index("Q")
    assert list(clf.printing(full, FACES.index("J"))) == ["B", "J"]
    assert list(clf.printing(full, FACES.index("Q"))) == ["D", "Q"]
    assert list(clf.printing(full, FACES.index("A"))) == ["A", "A"]  # no other printing of an ace


def test_a_model_with_unknown_classes_is_refused() -> None:
    with pytest.raises(ValueError, match="class names"):
        rank_columns([*FACES, "background", "X"])
    with pytest.raises(ValueError, match="class names"):
        rank_columns([*FACES[::-1], "background"])
    assert rank_columns([*FACES, "background"]) == [[k] for k in range(13)]  # an older model: one column per class


def test_the_operating_point_takes_the_gentlest_background_cut_of_those_reading_as_well_as_the_best() -> None:
    f1 = {(0.4, 0.03): 0.9420, (0.4, 0.1): 0.9415, (0.5, 0.1): 0.9380, (0.4, 1.0): 0.9376, (0.5, 1.0): 0.9370}
    # 0.1 reads within 0.1 points of the best: kept, as dice of unseen designs are read less surely
    assert operating_point(f1) == (0.4, 0.1)
    # a cut that gains more than that is taken
    assert operating_point(f1 | {(0.4, 0.03): 0.9450}) == (0.4, 0.03)
    # with no slack: the best, whatever its cut
    assert operating_point(f1, slack=0.0) == (0.4, 0.03)


def test_the_confidence_fit_is_kept_unless_it_flags_clearly_worse() -> None:
    assert keep_fit(0.9537, 0.9551)  # 0.14 points worse: noise, and the fit means what it says
    assert keep_fit(0.9600, 0.9551)
    assert not keep_fit(0.9400, 0.9551)


def test_of_two_looks_at_one_die_the_one_nearer_the_nets_sweet_size_is_kept() -> None:
    """A die seen at two coarse levels of a crop is kept once: from the look that sees it nearer the size the net sees
    best, which a pretrained detector's file gives (``sweet``; issue 59: its recall is 99 % from 30 to 130 input px,
    the tiny net's best is about 44)."""
    from vision.detect import SWEET, keep_bands

    def one(x: float, side: float) -> Candidates:
        return Candidates(np.array([[x, 30.0]], np.float32), np.array([side], np.float32), np.array([0.7], np.float32))

    # a 69 px crop: its 104 look sees the die as 51 px of the crop (77 input px), its 52 look as 36 px (27 input px)
    levels = [(416 / 69, Candidates.empty()), (104 / 69, one(30.0, 51.0)), (52 / 69, one(29.0, 36.0))]
    assert SWEET < 45
    assert keep_bands(levels, 416 / 69).sides.tolist() == [36.0]
    assert keep_bands(levels, 416 / 69, sweet=69.0).sides.tolist() == [51.0]
