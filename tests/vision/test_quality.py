import cv2
import numpy as np
import pytest

from vision.camsim import TableVideo
from vision.quality import assess, brightness, check_light, check_mat, check_sharpness, cut_dice


@pytest.fixture(scope="module")
def table() -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    video = TableVideo(seed=3).throw([6, 5, 4, 3, 2]).still(0.1)
    return video.frames[-1], [d.box for d in video.truth[-1].dice]


def codes(issues: list) -> list[str]:  # type: ignore[type-arg]
    return [i.code for i in issues]


def test_a_good_frame_raises_nothing(table: tuple[np.ndarray, list]) -> None:  # type: ignore[type-arg]
    frame, boxes = table
    assert assess(frame, boxes) == []


def test_too_dark_and_washed_out_block(table: tuple[np.ndarray, list]) -> None:  # type: ignore[type-arg]
    frame, boxes = table
    dark = (frame * 0.2).astype(np.uint8)
    issues = assess(dark, boxes)
    assert codes(issues) == ["dark"] and issues[0].blocking
    bright = np.clip(frame.astype(np.int16) + 200, 0, 255).astype(np.uint8)
    assert codes(check_light(bright)) == ["bright"]


@pytest.mark.parametrize("sigma", [3.0, 4.0])
def test_blurred_dice_are_reported(table: tuple[np.ndarray, list], sigma: float) -> None:  # type: ignore[type-arg]
    frame, boxes = table
    blurred = cv2.GaussianBlur(frame, (0, 0), sigma)
    assert codes(check_sharpness(blurred, boxes)) == ["blurred"]
    assert codes(check_sharpness(blurred)) == ["blurred"]  # without boxes, from the detailed parts
    assert check_sharpness(frame, boxes) == [] and check_sharpness(frame) == []


def test_a_plain_table_is_not_called_blurred() -> None:
    plain = np.full((240, 320, 3), (60, 110, 45), np.uint8)
    assert check_sharpness(plain) == []


def test_dice_at_the_frame_edge_are_cut(table: tuple[np.ndarray, list]) -> None:  # type: ignore[type-arg]
    frame, boxes = table
    assert cut_dice([(0, 10, 20, 30), (50, 50, 70, 70), (300, 100, 320, 120), (40, 225, 60, 240)], 320, 240) == [
        0,
        2,
        3,
    ]
    issues = assess(frame, [*boxes, (305, 100, 320, 126)])
    assert codes(issues) == ["cut"] and not issues[0].blocking


def test_mat_half_covered() -> None:
    assert check_mat(6, 6) == [] and check_mat(4, 6) == []
    assert codes(check_mat(3, 6)) == ["mat_covered"]
    assert "0 of its 6" in check_mat(0, 6)[0].message


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="image"):
        check_light(np.zeros((0, 0), np.uint8))


def test_a_dark_table_is_not_too_dark_but_dim_dice_are() -> None:
    video = TableVideo(seed=4, background=np.full((240, 320, 3), 25, np.uint8)).throw([1, 2, 3, 4, 5]).still(0.1)
    frame, boxes = video.frames[-1], [d.box for d in video.truth[-1].dice]
    assert brightness(frame) < 45 and check_light(frame, boxes) == []
    dim = (frame * 0.12).astype(np.uint8)
    assert codes(check_light(dim, boxes)) == ["dark"]
