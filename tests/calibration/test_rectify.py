import cv2
import numpy as np
import pytest

from calibration.mat import layout_for, render_mat
from calibration.rectify import TopView, detect_markers, fit_mat, point_in_polygon, zone_of

PPM = 2.0  # pixels a millimetre of the flat mat image


def camera_view(paper: str, seed: int, size: tuple[int, int] = (640, 480)) -> tuple[np.ndarray, np.ndarray]:
    """The mat as a tilted camera sees it, and the true homography image px -> mat mm."""
    rng = np.random.default_rng(seed)
    flat = render_mat(paper, PPM)
    h, w = flat.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    margin = np.float32([[40, 30], [size[0] - 40, 30], [size[0] - 40, size[1] - 30], [40, size[1] - 30]])
    dst = (margin + rng.uniform(-25, 25, (4, 2))).astype(np.float32)
    flat_to_img = cv2.getPerspectiveTransform(src, dst)
    image = cv2.warpPerspective(flat, flat_to_img, size, borderValue=(60, 90, 40))
    mm_to_flat = np.diag([PPM, PPM, 1.0])
    img_to_mm = np.linalg.inv(flat_to_img @ mm_to_flat)
    return image, img_to_mm


@pytest.mark.parametrize("seed", range(4))
def test_homography_maps_image_points_to_mat_millimetres(seed: int) -> None:
    image, truth = camera_view("a4", seed)
    fit = fit_mat(detect_markers(image))
    assert fit is not None and len(fit.seen) == 6
    pts = np.float64([[100, 100], [320, 240], [500, 400]]).reshape(-1, 1, 2)
    got = cv2.perspectiveTransform(pts, fit.homography)
    want = cv2.perspectiveTransform(pts, truth)
    assert np.max(np.abs(got - want)) < 1.5


def test_top_view_has_known_scale() -> None:
    image, _ = camera_view("letter", 7)
    fit = fit_mat(detect_markers(image))
    assert fit is not None
    view = TopView(fit.homography, (fit.layout.width, fit.layout.height), px_per_mm=3.0)
    top = view.warp(image)
    assert top.shape[:2] == (round(fit.layout.height * 3), round(fit.layout.width * 3))
    # The markers reappear in the top view exactly where the layout puts them, at 3 px/mm.
    seen = detect_markers(top)
    for marker_id, corners in seen.items():
        assert np.max(np.abs(corners / 3.0 - fit.layout.marker_points(marker_id))) < 2.0
    assert len(seen) >= 5
    mm = view.image_to_mm(view.mm_to_image(np.array([[50.0, 60.0]])))
    assert np.allclose(mm, [[50.0, 60.0]], atol=1e-6)
    assert np.allclose(view.top_to_mm(np.array([[30.0, 45.0]])), [[10.0, 15.0]])


def test_covered_mat_is_reported_and_too_little_gives_no_fit() -> None:
    image, _ = camera_view("a4", 3)
    markers = detect_markers(image)
    half = {k: v for k, v in markers.items() if k in (0, 5, 4)}
    fit = fit_mat(half)
    assert fit is not None and fit.covered and fit.seen == (0, 4, 5)
    assert fit_mat({0: markers[0]}) is None
    assert fit_mat({}) is None
    covered = image.copy()
    cv2.rectangle(covered, (0, 0), (330, 480), (30, 30, 30), -1)
    fit = fit_mat(detect_markers(covered))
    assert fit is None or fit.covered


def test_zones_and_points() -> None:
    zones = layout_for("a4").zones
    assert zone_of((100, 50), zones) == "throw"
    assert zone_of((100, 190), zones) == "hold"
    assert zone_of((2, 2), zones) is None
    assert point_in_polygon((1, 1), [(0, 0), (2, 0), (2, 2), (0, 2)])
    assert not point_in_polygon((3, 1), [(0, 0), (2, 0), (2, 2), (0, 2)])


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="invertible"):
        TopView(np.zeros((3, 3)), (100, 100))
    with pytest.raises(ValueError, match="positive"):
        TopView(np.eye(3), (100, 100), px_per_mm=0)
    with pytest.raises(ValueError, match="image"):
        detect_markers(np.zeros((0,), np.uint8))
