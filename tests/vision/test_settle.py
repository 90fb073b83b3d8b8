"""Settle logic driven by generated video and a reader that answers from the video's ground truth."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.camsim import Event, TableVideo, TruthReader
from vision.reading import Die, ImageError, Reading
from vision.settle import Proposal, SettleConfig, SettleDetector, combine_readings


def play(video: TableVideo, detector: SettleDetector, reader: TruthReader) -> list[Proposal]:
    out = []
    for frame, truth in zip(video.frames, video.truth, strict=True):
        reader.current = truth
        proposal = detector.feed(frame, truth.t)
        if proposal is not None:
            out.append(proposal)
    return out


def run(video: TableVideo, config: SettleConfig | None = None, **kw: object) -> tuple[list[Proposal], SettleDetector]:
    reader = TruthReader(video.kind)
    detector = SettleDetector(reader, config, **kw)  # type: ignore[arg-type]
    return play(video, detector, reader), detector


def throws(video: TableVideo) -> list[Event]:
    return [e for e in video.events if e.kind == "throw"]


def current(video: TableVideo) -> list[int]:
    return [d.value for d in video.dice]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_turn_of_three_throws_is_counted_with_holds(seed: int) -> None:
    video = TableVideo(seed=seed).still(0.3).throw([2, 2, 5, 6, 1]).still(0.6)
    video.pick_up([2, 3, 4]).still(0.4)
    video.throw([*current(video)[:2], 3, 4, 6], held=(0, 1)).still(0.6)
    video.pick_up([0]).still(0.2)
    video.throw([4, *current(video)[1:]], held=(1, 2, 3, 4)).still(0.6)
    proposals, detector = run(video)
    expected = throws(video)
    assert [p.dice for p in proposals] == [e.dice for e in expected]
    assert [p.held for p in proposals] == [(), (0, 1), (1, 2, 3, 4)]
    assert [p.all_five for p in proposals] == [True, False, False]
    assert [p.throw for p in proposals] == [1, 2, 3] and detector.throws == 3
    for p, e in zip(proposals, expected, strict=True):
        assert not p.uncertain and not p.auto  # auto-confirm is off by default
        assert abs(p.t_settled - e.t_settle) < 0.07  # within two frames of the true moment of rest
        assert p.t_frame - p.t_settled == pytest.approx(detector.config.still_s, abs=0.04)


def test_a_hand_reaching_in_and_out_triggers_nothing() -> None:
    video = TableVideo(seed=4).throw([1, 2, 3, 4, 5]).still(0.6)
    for _ in range(3):
        video.hand(stay=0.0).still(0.5)
    proposals, _ = run(video)
    assert len(proposals) == 1


def test_a_hand_resting_in_view_blocks_and_triggers_nothing() -> None:
    video = TableVideo(seed=5).throw([6, 6, 3, 2, 1]).still(0.6).hand(stay=1.0).still(0.6)
    reader = TruthReader()
    detector = SettleDetector(reader)
    states = []
    proposals = []
    for frame, truth in zip(video.frames, video.truth, strict=True):
        reader.current = truth
        p = detector.feed(frame, truth.t)
        proposals += [p] if p else []
        states.append(detector.state)
    assert len(proposals) == 1
    assert "blocked" in states and states[-1] == "idle"


def test_a_throw_while_a_hand_rests_after_it_is_still_proposed_once_the_hand_goes() -> None:
    video = TableVideo(seed=6).throw([6, 6, 3, 2, 1]).still(0.6)
    video.pick_up([0, 1, 2, 3, 4]).still(0.4)
    video.throw([1, 1, 1, 5, 5]).hand(stay=0.8).still(0.6)
    proposals, _ = run(video)
    assert [p.dice for p in proposals] == [e.dice for e in throws(video)]


def test_a_die_rolling_off_proposes_nothing_and_says_so() -> None:
    video = TableVideo(seed=7).throw([3, 3, 3, 4, 4]).still(0.6)
    video.pick_up([0, 1, 2, 3, 4]).still(0.4)
    video.throw([2, 5, 6, 1, 1], propose=False)
    video.roll_off(4, out=4.0).still(0.8)
    proposals, detector = run(video)
    assert len(proposals) == 1
    assert detector.state == "waiting"
    assert [i.code for i in detector.issues] == ["count"]
    assert "4 of 5" in detector.issues[0].message


def test_zones_ignore_dice_off_the_mat_and_hold_dice_set_aside() -> None:
    # Throwing area on top, holding strip at the bottom (frame pixels), as a calibrated top view gives them.
    w, h = 320, 240
    zones = {"throw": [(0, 0), (w, 0), (w, 170), (0, 170)], "hold": [(0, 170), (w, 170), (w, h), (0, h)]}
    video = TableVideo(seed=8, land=(0, 0, 250, 165))
    video.throw([4, 4, 2, 6, 1]).still(0.6)
    video.slide([0, 1], [(60, 205), (100, 205)]).still(0.6)  # the two fours set aside
    video.pick_up([2, 3, 4]).still(0.3)
    video.throw([*current(video)[:2], 5, 5, 3], held=(0, 1)).still(0.6)
    proposals, detector = run(video, zones=zones)
    assert [p.held for p in proposals] == [(), (0, 1)]
    assert [p.dice for p in proposals] == [e.dice for e in throws(video)]
    # A die rolls off the mat (the throwing area ends at x=255 and it stops near x=276): ignored, and said so.
    video.roll_off(4, out=1.0).still(0.6)
    zones_small = {"throw": [(0, 0), (255, 0), (255, 170), (0, 170)], "hold": zones["hold"]}
    proposals, detector = run(video, zones=zones_small)
    assert len(proposals) == 2
    assert {i.code for i in detector.issues} == {"outside", "count"}


def test_auto_confirm_only_when_every_die_is_certain() -> None:
    video = TableVideo(seed=9).throw([1, 2, 3, 4, 5]).still(0.6)
    proposals, _ = run(video, SettleConfig(auto_confirm=True))
    assert len(proposals) == 1 and proposals[0].auto

    class Doubting(TruthReader):
        def __call__(self, bgr: np.ndarray) -> Reading:
            r = super().__call__(bgr)
            dice = list(r.dice)
            if dice:
                dice[0] = replace(dice[0], confidence=0.5, uncertain=True)
            return replace(r, dice=tuple(dice))

    reader = Doubting()
    proposals = play(video, SettleDetector(reader, SettleConfig(auto_confirm=True)), reader)
    assert len(proposals) == 1 and not proposals[0].auto and proposals[0].uncertain == (0,)


def test_new_turn_restarts_the_count_and_holds_nothing() -> None:
    video = TableVideo(seed=10).throw([1, 2, 3, 4, 5]).still(0.6)
    reader = TruthReader()
    detector = SettleDetector(reader)
    assert len(play(video, detector, reader)) == 1
    nxt = TableVideo(seed=11, background=video.background)
    nxt.dice = video.dice
    nxt.pick_up([3, 4]).still(0.3).throw([*current(video)[:3], 6, 6], held=(0, 1, 2)).still(0.6)
    detector.new_turn()
    proposals = play(nxt, detector, reader)
    assert [(p.throw, p.held, p.all_five) for p in proposals] == [(1, (), True)]


def test_poker_dice_keep_their_faces() -> None:
    video = TableVideo(seed=12, kind="poker").throw([6, 5, 4, 3, 1]).still(0.6)
    proposals, _ = run(video)
    assert len(proposals) == 1
    assert sorted(proposals[0].faces) == sorted(["A", "K", "Q", "J", "9"])
    assert proposals[0].to_json()["faces"] == list(proposals[0].faces)
    # each position's confidence goes out with it: the pages pick the surest dice when more are in view than thrown
    sent = proposals[0].to_json()
    assert sent["confidence"] == [round(d.confidence, 4) for d in proposals[0].ordered] and len(sent["confidence"]) == 5


def die(value: int, x: int, conf: float = 0.99, uncertain: bool = False) -> Die:
    return Die(str(value), value, conf, (x, 10, x + 20, 30), uncertain)


def test_frames_must_agree_for_a_die_to_be_certain() -> None:
    def reading(*dice: Die) -> Reading:
        return Reading("pip", dice, 200, 100)

    frames = [
        reading(die(1, 10), die(2, 50, 0.9), die(3, 100), die(4, 150)),
        reading(die(1, 11), die(2, 51, 0.95), die(5, 101), die(6, 170)),
        reading(die(1, 12), die(2, 49), die(3, 99)),
    ]
    combined = combine_readings(frames)
    by_x = {d.box[0] // 10 * 10: d for d in combined.dice}
    assert set(by_x) == {10, 40, 90}  # the die seen once (x=170) or twice in different places is dropped
    assert not by_x[10].uncertain and by_x[10].confidence == pytest.approx(0.99)
    assert not by_x[40].uncertain and by_x[40].confidence == pytest.approx(0.9)  # the least sure frame counts
    assert by_x[90].uncertain and by_x[90].value == 3 and by_x[90].confidence < 0.7
    one_missing = combine_readings([reading(die(4, 10)), reading(), reading(die(4, 10))])
    assert len(one_missing.dice) == 1 and one_missing.dice[0].uncertain
    with pytest.raises(ValueError):
        combine_readings([])


def test_bad_frames_and_settings_are_refused() -> None:
    detector = SettleDetector(TruthReader())
    with pytest.raises(ImageError):
        detector.feed(np.zeros((10, 10), np.uint8), 0.0)
    with pytest.raises(ImageError):
        detector.feed(np.zeros((10, 10, 3), np.float32), 0.0)
    assert detector.state == "starting"
    with pytest.raises(ValueError):
        SettleConfig(read_frames=0)
    with pytest.raises(ValueError):
        SettleConfig(expected_dice=0)


def test_a_reader_error_is_reported_not_raised() -> None:
    def broken(bgr: np.ndarray) -> Reading:
        raise ImageError("model missing")

    video = TableVideo(seed=13).throw([1, 2, 3, 4, 5]).still(0.6)
    detector = SettleDetector(broken)
    assert [detector.feed(f, t.t) for f, t in zip(video.frames, video.truth, strict=True)] == [None] * len(video.frames)
    assert detector.issues[0].code == "reader"


def test_dice_pushed_aside_without_zones_count_as_held_not_thrown() -> None:
    video = TableVideo(seed=14, land=(0, 0, 320, 170)).throw([2, 3, 3, 5, 6]).still(0.6)
    threes = [p for p, v in enumerate(current(video)) if v == 3]
    video.slide(threes, [(140, 215), (180, 215)]).still(0.6)  # the threes pushed towards the player
    others = [p for p in range(5) if p not in threes]
    video.pick_up(others).still(0.3)
    values = [3 if p in threes else 1 for p in range(5)]
    video.throw(values, held=threes).still(0.6)
    proposals, _ = run(video)
    assert [p.dice for p in proposals] == [e.dice for e in throws(video)]
    assert [p.held for p in proposals] == [(), tuple(threes)]


def test_browser_rate_of_ten_frames_a_second_still_settles_in_time() -> None:
    video = TableVideo(seed=15, fps=10).still(0.3).throw([5, 5, 2, 2, 1]).still(0.8)
    proposals, detector = run(video)
    assert [p.dice for p in proposals] == [e.dice for e in throws(video)]
    assert proposals[0].t_frame - throws(video)[0].t_settle <= detector.config.still_s + 0.1 + 1e-9


def test_a_die_cut_by_the_frame_edge_is_said_and_stops_auto_confirm() -> None:
    video = TableVideo(seed=16).throw([1, 2, 3, 4, 5]).still(0.6)
    video.roll_off(4, out=0.6).still(0.6)  # the die rolls on until the frame's edge cuts it
    proposals, _ = run(video, SettleConfig(auto_confirm=True))
    assert len(proposals) == 2
    assert [i.code for i in proposals[1].issues] == ["cut"] and not proposals[1].auto
    assert proposals[1].held == (0, 1, 2, 3)  # the others lay still: one die was (re)thrown
    assert proposals[0].auto


def test_too_dark_a_table_proposes_nothing_and_says_why() -> None:
    video = TableVideo(seed=17).throw([6, 5, 4, 3, 2]).still(0.6)
    video.frames = [(f * 0.15).astype(np.uint8) for f in video.frames]
    proposals, detector = run(video)
    assert proposals == []
    assert detector.state == "waiting" and [i.code for i in detector.issues] == ["dark"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 6), st.integers(0, 9)), min_size=0, max_size=6, unique_by=lambda t: t[1]),
    st.integers(1, 5),
)
def test_identical_frames_combine_to_themselves_all_certain(dice: list[tuple[int, int]], k: int) -> None:
    reading = Reading("pip", tuple(die(v, 10 + 30 * slot) for v, slot in dice), 400, 100)
    combined = combine_readings([reading] * k)
    assert sorted((d.value, d.box) for d in combined.dice) == sorted((d.value, d.box) for d in reading.dice)
    assert not any(d.uncertain for d in combined.dice)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(1, 6), st.integers(0, 6)), max_size=5), min_size=1, max_size=4))
def test_combined_dice_were_seen_by_most_frames(frames: list[list[tuple[int, int]]]) -> None:
    readings = [
        Reading("pip", tuple(die(v, 10 + 30 * slot) for v, slot in {s: (v, s) for v, s in f}.values()), 400, 100)
        for f in frames
    ]
    combined = combine_readings(readings)
    for d in combined.dice:
        seen = sum(any(o.box == d.box for o in r.dice) for r in readings)
        assert seen * 2 > len(readings)
        if not d.uncertain:
            assert all(any(o.box == d.box and o.value == d.value for o in r.dice) for r in readings)


@pytest.mark.slow
def test_a_rendered_throw_with_a_hand_is_proposed_once_after_the_dice_settle() -> None:
    synth = pytest.importorskip("vision.synth")
    video = synth.render_video(5, kind="pip", n_dice=5, size=(320, 240), split="test", fps=8, settled_s=2.5)

    class Truth:
        frame = None

        def __call__(self, bgr: np.ndarray) -> Reading:
            dice = tuple(Die(d.face, d.value, 0.99, d.box, False) for d in self.frame.dice)  # type: ignore[attr-defined]
            return Reading("pip", dice, bgr.shape[1], bgr.shape[0])

    reader = Truth()
    detector = SettleDetector(reader)
    proposals = []
    for f in video.frames:
        reader.frame = f
        p = detector.feed(f.image, f.index / video.fps)
        if p is not None:
            proposals.append((f.index, p))
    assert len(proposals) == 1
    index, proposal = proposals[0]
    assert index >= video.first_settled
    assert sorted(proposal.dice) == sorted(d.value for d in video.settled)


def test_the_camera_changing_exposure_as_the_dice_land_is_not_a_hand() -> None:
    video = TableVideo(seed=18).still(0.4).throw([2, 4, 4, 5, 6]).still(0.6)
    video.pick_up([0, 3]).still(0.3)
    values = [d.value for d in video.dice]
    video.throw([1, values[1], values[2], 3, values[4]], held=(1, 2, 4)).still(0.6)
    first_motion = next(i for i, t in enumerate(video.truth) if t.moved)
    # Auto exposure: the picture darkens by 12 % once the bright dice come in, and brightens again with fewer.
    gains = [1.0] * first_motion + [0.88] * (len(video.frames) - first_motion)
    video.frames = [np.clip(f * g, 0, 255).astype(np.uint8) for f, g in zip(video.frames, gains, strict=True)]
    proposals, detector = run(video)
    assert [p.held for p in proposals] == [(), (1, 2, 4)]
    assert [p.t_frame - e.t_settle for p, e in zip(proposals, throws(video), strict=True)] == pytest.approx(
        [detector.config.still_s] * 2, abs=0.04
    )


def test_dice_already_lying_when_the_camera_starts_are_not_a_throw() -> None:
    video = TableVideo(seed=19).throw([3, 1, 4, 1, 5]).still(0.6)
    start = next(i for i, t in enumerate(video.truth) if not t.moved)  # the camera comes on after the throw
    reader = TruthReader()
    detector = SettleDetector(reader)
    proposals = []
    for frame, truth in list(zip(video.frames, video.truth, strict=True))[start:]:
        reader.current = truth
        proposals += [p] if (p := detector.feed(frame, truth.t)) else []
    assert proposals == [] and detector.state == "idle"
    more = TableVideo(seed=20, background=video.background)
    more.dice = video.dice
    more.pick_up([0, 1, 2, 3, 4]).still(0.3).throw([6, 6, 6, 6, 6]).still(0.6)
    assert [p.dice for p in play(more, detector, reader)] == [(6, 6, 6, 6, 6)]


class Missing(TruthReader):
    """Reads every frame's first die only as a dropped candidate, as the reader's bar leaves a faint die."""

    def __call__(self, bgr: np.ndarray, memory: object = None, count: int | None = None) -> Reading:
        r = super().__call__(bgr)
        if not r.dice:
            return r
        faint = replace(r.dice[0], confidence=0.3, uncertain=True)
        return replace(r, dice=r.dice[1:], dropped=(faint,))


class Phantom(TruthReader):
    """Reads a speck beside the dice as one more die, less sure than any of them."""

    def __call__(self, bgr: np.ndarray, memory: object = None, count: int | None = None) -> Reading:
        r = super().__call__(bgr)
        if not r.dice:
            return r
        x0, y0, x1, y1 = r.dice[-1].box
        speck = replace(r.dice[-1], face="1", value=1, confidence=0.6, box=(x1 + 4, y0, x1 + 4 + x1 - x0, y1))
        return replace(r, dice=(*r.dice, speck))


def test_with_the_games_count_a_faint_die_is_proposed_flagged_where_a_guess_waits() -> None:
    video = TableVideo(seed=31).throw([6, 2, 3, 4, 5]).still(0.6)
    reader = Missing(video.kind)
    guessed = SettleDetector(reader, SettleConfig(auto_confirm=True))
    assert play(video, guessed, reader) == [] and "4 of 5" in guessed.issues[0].message
    reader = Missing(video.kind)
    known = SettleDetector(reader, SettleConfig(auto_confirm=True, count_known=True))
    (proposal,) = play(video, known, reader)
    assert sorted(proposal.dice) == sorted(throws(video)[0].dice)  # the faint die filled the place
    assert len(proposal.uncertain) == 1 and not proposal.auto  # ... and the player is asked about it
    assert [d.assumed for d in proposal.ordered].count("added") == 1


def test_with_the_games_count_a_die_too_many_is_left_out_and_said() -> None:
    video = TableVideo(seed=32).throw([6, 6, 2, 3, 4]).still(0.6)
    reader = Phantom(video.kind)
    (guessed,) = play(video, SettleDetector(reader, SettleConfig(auto_confirm=True)), reader)
    assert len(guessed.dice) == 6 and "6 dice in view, 5 expected." in guessed.issues[0].message
    assert guessed.issues[0].code == "extra"  # more dice than in play: said apart from the wait for fewer
    reader = Phantom(video.kind)
    (known,) = play(video, SettleDetector(reader, SettleConfig(auto_confirm=True, count_known=True)), reader)
    assert sorted(known.dice) == sorted(throws(video)[0].dice) and len(known.reading.extra) == 1
    assert "left out" in known.issues[0].message and known.issues[0].code == "extra" and not known.auto


def test_with_the_games_count_a_die_rolled_off_is_still_waited_for() -> None:
    video = TableVideo(seed=7).throw([2, 5, 6, 1, 1]).still(0.2).roll_off(4, out=4.0).still(0.8)
    proposals, detector = run(video, SettleConfig(count_known=True))
    assert proposals == [] and detector.state == "waiting" and "4 of 5" in detector.issues[0].message


class Speck(TruthReader):
    """Drops a faint speck beside the dice in every frame: what the count could take for a die."""

    def __call__(self, bgr: np.ndarray, memory: object = None, count: int | None = None) -> Reading:
        r = super().__call__(bgr)
        if not r.dice:
            return r
        x0, y0, x1, y1 = r.dice[0].box
        speck = replace(r.dice[0], confidence=0.3, uncertain=True, box=(x0, y1 + 6, x1, y1 + 6 + y1 - y0))
        return replace(r, dropped=(speck,))


def test_with_the_games_count_dice_picked_up_are_waited_for_not_filled_with_a_speck() -> None:
    video = TableVideo(seed=33).throw([2, 2, 5, 6, 1]).still(0.6)
    video.pick_up([4]).still(0.6)  # one die in the hand: four lie where they lay, a speck beside them
    video.throw([*current(video)[:4], 3], held=(0, 1, 2, 3)).still(0.6)
    reader = Speck(video.kind)
    detector = SettleDetector(reader, SettleConfig(count_known=True))
    proposals = play(video, detector, reader)
    assert [p.dice for p in proposals] == [e.dice for e in throws(video)]
    assert [p.held for p in proposals] == [(), (0, 1, 2, 3)]
