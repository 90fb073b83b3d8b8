"""The scene generator: same seed same scene, labels that match the pixels, train and test kept apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.reading import PIP_FACES, POKER_FACES
from vision.synth import (
    BACKGROUNDS,
    TEST_BACKGROUNDS,
    TRAIN_BACKGROUNDS,
    DieDesign,
    SceneStyle,
    render_face,
    render_face_labelled,
    render_scene,
    render_video,
    sample_design,
)
from vision.synth import style as style_mod
from vision.synth import tables as tables_mod

WHITE_PIPS = DieDesign(kind="pip", body=(250, 250, 250), inks=((10, 10, 10),) * 6, printed=PIP_FACES, glossy=0.0)
GERMAN = DieDesign(
    kind="poker",
    body=(250, 250, 250),
    inks=((10, 10, 10), (20, 20, 200)) * 3,
    printed=("9", "10", "B", "D", "K", "A"),
    font=("hershey", 0),
    glossy=0.0,
)
CLEAN = SceneStyle(
    effects=False, shadows=False, distractors=False, background="felt", designs=(WHITE_PIPS,), touching=0.0
)


def luma(img: np.ndarray) -> np.ndarray:
    return img.astype(np.float32) @ np.array([0.114, 0.587, 0.299], np.float32)


def test_same_seed_same_scene_and_other_seed_other_scene() -> None:
    a = render_scene(11, kind="poker", size=(200, 150))
    b = render_scene(11, kind="poker", size=(200, 150))
    c = render_scene(12, kind="poker", size=(200, 150))
    assert np.array_equal(a.image, b.image)
    assert a.dice == b.dice
    assert not np.array_equal(a.image, c.image)


def test_split_is_part_of_the_stream() -> None:
    a = render_scene(3, size=(160, 120), split="train")
    b = render_scene(3, size=(160, 120), split="test")
    assert not np.array_equal(a.image, b.image)


def test_image_is_bgr_uint8_of_the_asked_size() -> None:
    s = render_scene(0, size=(320, 200), n_dice=4)
    assert s.image.shape == (200, 320, 3)
    assert s.image.dtype == np.uint8
    assert len(s.dice) == 4


BLANK = DieDesign(kind="pip", body=(250, 250, 250), inks=((250, 250, 250),) * 6, printed=PIP_FACES, glossy=0.0,
                  bevel=0.0)  # fmt: skip


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 6),
    tilt=st.floats(0, 35),
    px=st.floats(25, 50),
    fisheye=st.sampled_from([0.0, 0.5]),
)
def test_boxes_cover_the_dice_and_nothing_else(seed: int, n: int, tilt: float, px: float, fisheye: float) -> None:
    # Blank white dice on dark felt: every bright pixel is a top face, so the labels can be checked on the pixels.
    pinned = {**CLEAN.__dict__, "tilt_deg": tilt, "die_px": px, "fisheye": fisheye, "designs": (BLANK,)}
    s = render_scene(seed, n_dice=n, size=(240, 180), style=SceneStyle(**pinned))
    bright = luma(s.image) > 200  # the felt never gets this bright
    covered = np.zeros_like(bright)
    for d in s.dice:
        x0, y0, x1, y1 = d.box
        assert 0 <= x0 < x1 <= 240 and 0 <= y0 < y1 <= 180
        tx0, ty0, tx1, ty1 = d.top_box
        assert x0 <= tx0 and y0 <= ty0 and tx1 <= x1 and ty1 <= y1, "top face inside the die's box"
        covered[y0:y1, x0:x1] = True
        if d.visible > 0.95:
            assert bright[ty0:ty1, tx0:tx1].mean() > 0.25, "the top face box holds the white face"
            ys, xs = np.nonzero(bright[ty0:ty1, tx0:tx1])  # the white face reaches every side of its box
            assert xs.min() <= 2 and ys.min() <= 2 and xs.max() >= tx1 - tx0 - 3 and ys.max() >= ty1 - ty0 - 3
    # Bright pixels outside every box would be a die the labels miss (allow the anti-aliased rim).
    grown = np.zeros_like(covered)
    ys, xs = np.nonzero(covered)
    grown[np.clip(ys[:, None] + [-1, 0, 1], 0, 179), np.clip(xs[:, None] + [-1, 0, 1], 0, 239)] = True
    assert not (bright & ~grown).any()


@pytest.mark.parametrize("kind", ["pip", "poker"])
def test_labels_are_consistent(kind: str) -> None:
    faces = PIP_FACES if kind == "pip" else POKER_FACES
    allowed = {"9": {"9"}, "10": {"10"}, "J": {"J", "B", "V"}, "Q": {"Q", "D"}, "K": {"K", "R"}, "A": {"A"}}
    for seed in range(6):
        s = render_scene(seed, kind=kind, size=(200, 150))
        assert s.kind == kind and s.seed == seed
        assert 1 <= len(s.dice) <= 25
        for d in s.dice:
            assert d.kind == kind
            assert faces[d.value - 1] == d.face
            assert d.printed in (allowed[d.face] if kind == "poker" else {d.face})
            assert 0 <= d.rotation < 360 and 0 <= d.visible <= 1 and len(d.top_quad) == 4
        ranks = [faces.index(f) for f in s.values.split()]
        assert ranks == sorted(ranks) and len(ranks) == len(s.dice)
        assert s.boxes.count(":") == len(s.dice)


def test_printed_letters_follow_the_design() -> None:
    s = render_scene(4, kind="poker", n_dice=12, size=(320, 240), style=SceneStyle(designs=(GERMAN,)))
    for d in s.dice:
        assert d.printed == GERMAN.printed[d.value - 1]


def test_twenty_five_dice_fit() -> None:
    s = render_scene(1, n_dice=25, size=(640, 480), style=SceneStyle(effects=False))
    assert len(s.dice) == 25
    boxes = np.array([d.box for d in s.dice])
    assert (boxes[:, 2] - boxes[:, 0]).min() >= 8


def test_train_and_test_pools_are_disjoint() -> None:
    assert not set(TRAIN_BACKGROUNDS) & set(TEST_BACKGROUNDS)
    assert not set(style_mod.TRAIN_FONTS) & set(style_mod.TEST_FONTS)
    assert not set(style_mod.TRAIN_BODIES) & set(style_mod.TEST_BODIES)
    train_hues = {h for lo, hi in style_mod.TRAIN_HUES for h in range(lo, hi)}
    test_hues = {h for lo, hi in style_mod.TEST_HUES for h in range(lo, hi)}
    assert not train_hues & test_hues
    for kind in ("pip", "poker"):
        fonts = {
            sp: {sample_design(np.random.default_rng(i), kind, sp).font for i in range(60)} for sp in ("train", "test")
        }
        if kind == "poker":
            assert fonts["train"] <= set(style_mod.TRAIN_FONTS) and fonts["test"] <= set(style_mod.TEST_FONTS)
    for seed in range(8):
        assert render_scene(seed, size=(64, 48), split="train").style.background in TRAIN_BACKGROUNDS
        assert render_scene(seed, size=(64, 48), split="test").style.background in TEST_BACKGROUNDS


def test_pinned_style_fields_are_kept() -> None:
    s = render_scene(2, size=(160, 120), style=SceneStyle(background="tiles", tilt_deg=20.0, jpeg_quality=0))
    assert s.style.background == "tiles" and s.style.tilt_deg == 20.0 and s.style.jpeg_quality == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"kind": "dice"},
        {"split": "val"},
        {"n_dice": -1},
        {"n_dice": 41},
        {"n_dice": True},
        {"size": (8, 8)},
        {"size": (640.0, 480)},
        {"style": "wood"},
    ],
)
def test_bad_arguments_are_refused(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        render_scene(0, **kwargs)


def test_bad_seed_and_style_are_refused() -> None:
    with pytest.raises(ValueError):
        render_scene(-1)
    with pytest.raises(ValueError):
        SceneStyle(background="lava")
    with pytest.raises(ValueError):
        SceneStyle(tilt_deg=80)
    with pytest.raises(ValueError):
        render_scene(0, kind="poker", style=SceneStyle(designs=(WHITE_PIPS,)))


def test_render_face_is_a_centred_labelled_crop() -> None:
    a = render_face(5, kind="poker", value=4, size=64)
    b = render_face(5, kind="poker", value=4, size=64)
    assert a.shape == (64, 64, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    img, label = render_face_labelled(5, kind="poker", value=4, size=64)
    assert np.array_equal(img, a)
    assert label.value == 4 and label.face == "Q"
    x0, y0, x1, y1 = label.box
    assert 0 <= x0 < x1 <= 64 and 0 <= y0 < y1 <= 64
    assert max(x1 - x0, y1 - y0) >= 0.6 * 64
    tx0, ty0, tx1, ty1 = label.top_box
    assert x0 <= tx0 < tx1 <= x1 and y0 <= ty0 < ty1 <= y1
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    assert abs(cx - 32) < 8 and abs(cy - 32) < 8
    for bad in ({"value": 7}, {"size": 8}, {"kind": "dice"}):
        with pytest.raises(ValueError):
            render_face(0, **bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_every_table_renders_at_odd_sizes(background: str) -> None:
    split = "train" if background in TRAIN_BACKGROUNDS else "test"
    for seed, size in ((0, (97, 61)), (1, (300, 400))):
        s = render_scene(seed, kind="poker", split=split, size=size, style=SceneStyle(background=background))
        assert s.image.shape == (size[1], size[0], 3) and s.dice


def test_an_empty_table_has_no_dice() -> None:
    s = render_scene(9, n_dice=0, size=(160, 120))
    assert s.dice == [] and s.values == "" and s.boxes == ""


def test_video_of_a_throw_goes_through_its_phases() -> None:
    kw: dict = {"size": (160, 120), "fps": 6, "empty_s": 0.5, "hand_s": 1, "rolling_s": 1, "settled_s": 1}
    v = render_video(4, kind="poker", n_dice=3, style=SceneStyle(noise=0.02), **kw)
    phases = [f.phase for f in v.frames]
    assert phases == sorted(phases, key=["empty", "hand", "rolling", "settled"].index)
    assert {"empty", "hand", "rolling", "settled"} <= set(phases)
    assert all(not f.dice for f in v.frames if f.phase in ("empty", "hand"))
    assert any(f.hand_box for f in v.frames if f.phase == "hand")
    still = [f for f in v.frames if f.phase == "settled"]
    assert all(f.dice == still[0].dice for f in still) and len(still[0].dice) == 3
    assert v.settled == list(still[-1].dice) and v.first_settled == still[0].index
    # Sensor noise moves from frame to frame; the scene itself does not.
    a, b = (f.image.astype(int) for f in still[:2])
    assert 0 < np.abs(a - b).mean() < 8
    w = render_video(4, kind="poker", n_dice=3, style=SceneStyle(noise=0.02), **kw)
    assert all(np.array_equal(f.image, g.image) for f, g in zip(v.frames, w.frames, strict=True))


def _away_from(
    frame_boxes: list[tuple[int, int, int, int]], shape: tuple[int, ...], reach: float, least: int = 0
) -> np.ndarray:
    """Pixels farther than ``reach`` box sides (and ``least`` pixels) from every box: no die, hand, shadow or blur
    of them gets there."""
    away = np.ones(shape[:2], bool)
    for x0, y0, x1, y1 in frame_boxes:
        pad = max(least, round(reach * max(x1 - x0, y1 - y0)))
        away[max(0, y0 - pad) : y1 + pad, max(0, x0 - pad) : x1 + pad] = False
    return away


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["pip", "poker"]), st.booleans())
def test_the_table_stays_put_through_a_throw(seed: int, kind: str, noisy: bool) -> None:
    # Light, white balance and lens belong to the camera, not to what lies on the table: away from the dice, the
    # hand and their shadows, a frame after the throw shows the same table as the empty frames, up to sensor noise.
    style = SceneStyle(die_px=14, noise=0.03 if noisy else 0.0, jpeg_quality=0)
    kw: dict[str, Any] = {
        "size": (320, 240),
        "fps": 4,
        "empty_s": 0.5,
        "hand_s": 1.5,
        "rolling_s": 0.5,
        "settled_s": 0.5,
    }
    v = render_video(seed, kind=kind, n_dice=3, style=style, **kw)
    empty = [f.image.astype(np.float32) for f in v.frames if f.phase == "empty"]
    settled = v.frames[-1].image.astype(np.float32)
    away = _away_from([d.box for d in v.settled], settled.shape, 2.0)
    assert away.mean() > 0.2, "the test needs table to look at"
    change = (settled - empty[0])[away]
    floor = np.abs(empty[1] - empty[0])[away].mean()  # what sensor noise alone changes
    assert abs(change.mean()) < 0.3
    assert np.abs(change).mean() <= 1.1 * floor + 0.05
    if not noisy:
        assert floor == 0 and np.abs(change).max() <= 1
    seen = 0
    for f in v.frames:  # while the hand is in, the rest of the table does not move either
        # The arm beyond the edge casts its shadow into view too: up to 0.6 hand widths, 0.18 of the short side.
        off = _away_from([f.hand_box] if f.hand_box else [], settled.shape, 0.5, least=48)
        if f.phase == "hand" and f.hand_box is not None and off.mean() > 0.05:
            noise = np.abs(empty[1] - empty[0])[off].mean()
            assert np.abs(f.image.astype(np.float32) - empty[0])[off].mean() <= 1.15 * noise + 0.05
            seen += 1
    assert seen


def test_pinned_values_are_what_the_dice_show() -> None:
    s = render_scene(8, kind="poker", size=(320, 240), values=[1, 2, 3, 4, 5, 6, 6])
    assert sorted(d.value for d in s.dice) == [1, 2, 3, 4, 5, 6, 6]
    assert s.values == "9 10 J Q K A A"
    for bad in ([0], [7], "123", [1.0], [True]):
        with pytest.raises(ValueError):
            render_scene(0, values=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        render_scene(0, n_dice=2, values=[1, 2, 3])


def test_letters_still_render_without_the_ttf_fonts(monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.synth import faces

    def clear() -> None:
        for fn in (faces._font_file, faces._pil_font, faces.glyph, faces.face_texture):
            fn.cache_clear()

    clear()
    monkeypatch.setattr(faces, "FONT_DIRS", ())
    try:
        design = DieDesign(kind="poker", body=(250, 250, 250), inks=((10, 10, 10),) * 6,
                           printed=("9", "10", "V", "D", "R", "A"), font=("ttf", "DejaVuSans-Bold.ttf"))  # fmt: skip
        tex, ink = faces.face_texture(design, 5, 64)
        assert tex.shape == (64, 64, 4) and ink.max() > 0.9  # the letter is drawn
    finally:
        clear()


def test_the_font_check_names_every_ttf_font_and_finds_none_where_none_are(monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.synth import faces

    names = {str(n) for k, n in style_mod.TRAIN_FONTS + style_mod.TEST_FONTS if k == "ttf"}
    faces._font_file.cache_clear()
    monkeypatch.setattr(faces, "FONT_DIRS", ())
    try:
        assert faces.ttf_fonts() == dict.fromkeys(names)
    finally:
        faces._font_file.cache_clear()
    found = faces.ttf_fonts()
    assert all(p is None or p.name == name for name, p in found.items())


def test_missing_fonts_lists_exactly_the_fonts_absent_from_the_font_folders(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from vision.synth import faces

    names = sorted({str(n) for k, n in style_mod.TRAIN_FONTS + style_mod.TEST_FONTS if k == "ttf"})
    (tmp_path / names[0]).write_bytes(b"")  # found where a font folder holds a file of that name
    faces._font_file.cache_clear()
    monkeypatch.setattr(faces, "FONT_DIRS", (tmp_path / "none", tmp_path))
    try:
        assert faces.missing_fonts() == names[1:]
    finally:
        faces._font_file.cache_clear()


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), tilt=st.floats(0, 30))
def test_the_labelled_face_is_the_face_drawn_on_top(seed: int, tilt: float) -> None:
    # Count the pips inside each top face: they must match the label (the top face, not a side, carries it).
    pinned = {**CLEAN.__dict__, "tilt_deg": tilt, "die_px": 70.0, "fov_deg": 50.0}
    s = render_scene(seed, n_dice=4, size=(480, 360), style=SceneStyle(**pinned))
    dark = (luma(s.image) < 90).astype(np.uint8)
    for d in s.dice:
        quad = np.array(d.top_quad, np.float32)
        centre = quad.mean(axis=0)
        inner = centre + (quad - centre) * 0.92
        mask = np.zeros_like(dark)
        cv2.fillConvexPoly(mask, np.round(inner).astype(np.int32), 1)
        _, _, stats, _ = cv2.connectedComponentsWithStats(dark & mask)
        areas = stats[1:, cv2.CC_STAT_AREA]
        # a face's pips are one size; the felt showing past a rounded corner is a sliver (9 px against 240)
        pips = int((areas >= max(6.0, 0.3 * float(areas.max(initial=0)))).sum())
        assert pips == d.value, (d, pips)


@pytest.mark.parametrize("seed", [3, 11])
def test_side_faces_in_view_hang_from_the_top_face(seed: int) -> None:
    # Under a 35 degree tilt every die shows a side; each side face shares an edge (two corners) with its top face and
    # its middle lies on the die, off the top face: where a reader must not read a face.
    pinned = {**CLEAN.__dict__, "tilt_deg": 35.0, "die_px": 70.0, "fov_deg": 50.0}
    s = render_scene(seed, n_dice=4, size=(480, 360), style=SceneStyle(**pinned))
    assert all(d.side_quads for d in s.dice)
    for d in s.dice:
        top = np.array(d.top_quad, np.float32)
        for q in d.side_quads:
            quad = np.array(q, np.float32)
            shared = (np.linalg.norm(quad[:, None] - top[None], axis=2) < 0.05).sum()
            assert shared == 2, (d, q)
            x, y = quad.mean(axis=0)
            assert cv2.pointPolygonTest(top, (float(x), float(y)), False) < 0
            assert d.box[0] <= x <= d.box[2] and d.box[1] <= y <= d.box[3]


def test_a_camera_straight_down_shows_no_side_worth_reading() -> None:
    from vision.train.data import side_spots

    pinned = {**CLEAN.__dict__, "tilt_deg": 0.0, "die_px": 60.0, "fov_deg": 20.0}
    flat = render_scene(5, n_dice=5, size=(480, 360), style=SceneStyle(**pinned))
    assert len(side_spots(flat.dice, np.full(5, 60.0))) == 0
    steep = render_scene(5, n_dice=5, size=(480, 360), style=SceneStyle(**{**pinned, "tilt_deg": 38.0}))
    spots = side_spots(steep.dice, np.full(5, 60.0))
    assert len(spots) >= 5 and (spots[:, 2] == 60.0).all()


def _ink_blobs(img: np.ndarray) -> np.ndarray:
    """Connected blobs that stand out from the table's own level: (n, 5) stats as cv2 gives them."""
    grey = cv2.cvtColor((np.clip(img, 0, 1) * 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)
    median = float(np.median(grey))
    mask = (np.abs(grey.astype(np.int16) - median) > 40).astype(np.uint8)
    _n, _lab, stats, _c = cv2.connectedComponentsWithStats(mask)
    return np.asarray(stats[1:])


@pytest.mark.parametrize("seed", range(6))
def test_the_dotted_table_shows_pip_sized_dots_with_no_die_around_them(seed: int) -> None:
    u = 100.0  # raster pixels per die side
    img = tables_mod._dots(np.random.default_rng(seed), (400, 400), u, "train")
    blobs = _ink_blobs(img)
    assert len(blobs) > 10
    round_ = blobs[(blobs[:, 2] < 60) & (blobs[:, 3] < 60)]
    assert len(round_) >= 0.8 * len(blobs)  # separate dots, not lines or patches
    width = np.median(round_[:, 2])
    assert 0.06 * u <= width <= 0.5 * u  # a pip spans about a sixth to a fifth of a die's side


def test_newsprint_holds_lines_of_letters_up_to_a_face_high() -> None:
    u = 60.0
    img = tables_mod._newsprint(np.random.default_rng(3), (480, 480), u)
    blobs = _ink_blobs(img)
    assert len(blobs) > 100  # letters, many
    assert np.percentile(blobs[:, 3], 99) <= 1.2 * u  # the biggest headline letters about a die's face high
    dark = cv2.cvtColor((img * 255).astype(np.uint8), cv2.COLOR_BGR2GRAY) < 120
    assert 0.03 < dark.mean() < 0.5  # ink on paper, not a black page


def test_pen_strokes_are_thin_lines_not_blobs() -> None:
    u = 80.0
    img = tables_mod._strokes(np.random.default_rng(1), (400, 400), u, "train")
    blobs = _ink_blobs(img)
    assert len(blobs) > 5
    fill = blobs[:, 4] / (blobs[:, 2] * blobs[:, 3])  # of each stroke's bounding box, how much is ink
    assert np.median(fill) < 0.5


def test_tartan_crosses_bands_into_blocks_of_a_dies_size() -> None:
    u = 40.0
    banded = crossed = 0
    for seed in range(8):
        img = tables_mod._tartan(np.random.default_rng(seed), (320, 320), u, "train")
        assert img.dtype == np.float32 and img.shape == (320, 320, 3)
        assert img.min() >= 0.0 and img.max() <= 1.2  # the cloth's shading lifts a light thread a little at most
        grey = luma(img)
        cells = cv2.resize(grey, (16, 16), interpolation=cv2.INTER_AREA)  # a cell is half a die's side
        rows, cols = cells.std(axis=1).mean(), cells.std(axis=0).mean()
        banded += max(rows, cols) > 0.01  # bands of a die's scale, not a plain colour (a dark plaid may hide them)
        crossed += min(rows, cols) > 0.01  # bands both ways: plaid, not stripes
    assert banded >= 6 and crossed >= 4


def test_dots_print_strokes_and_tartan_are_train_tables_only() -> None:
    assert {"dots", "newsprint", "strokes", "tartan"} <= set(TRAIN_BACKGROUNDS)
    assert not {"dots", "newsprint", "strokes", "tartan"} & set(TEST_BACKGROUNDS)
    assert tables_mod._HERSHEY and not {("hershey", f) for f in tables_mod._HERSHEY} & set(style_mod.TEST_FONTS)


def test_a_steep_camera_with_a_wide_lens_still_looks_at_the_table_in_every_corner() -> None:
    # 60 degrees of tilt and a 78 degree lens would put the horizon in a corner: the lens is narrowed instead
    s = render_scene(5, n_dice=3, size=(320, 240), style=SceneStyle(tilt_deg=60.0, fov_deg=78.0))
    assert s.style.fov_deg is not None and s.style.fov_deg < 50
    assert len(s.dice) == 3 and s.image.std() > 5
    # the scenes' own tilts (up to 42 degrees) keep the lens they were given
    assert (
        render_scene(5, n_dice=3, size=(320, 240), style=SceneStyle(tilt_deg=42.0, fov_deg=78.0)).style.fov_deg == 78.0
    )


def test_a_scene_among_board_game_pieces_is_the_same_scene_with_tokens_on_its_table() -> None:
    """Issue 59: dice rendered among a board game's number tokens and pieces (``SceneStyle.board_games``). Off, a scene
    is the one rendered before; on, its table shows them and its dice are still all labelled."""
    from vision.synth import SceneStyle, render_scene

    plain = render_scene(7, kind="pip", split="train", style=SceneStyle(background="felt"))
    again = render_scene(7, kind="pip", split="train", style=SceneStyle(background="felt", board_games=False))
    board = render_scene(7, kind="pip", split="train", style=SceneStyle(background="felt", board_games=True))
    assert np.array_equal(plain.image, again.image)
    assert not np.array_equal(plain.image, board.image)
    assert len(board.dice) >= 1 and all(d.box[2] > d.box[0] for d in board.dice)
