"""Die bodies in the rendered data: marbled, swirled, glitter, translucent, pearl, metallic, engraved (issue 33.5)."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.synth import SceneStyle, render_face, render_scene, sample_design
from vision.synth import style as st
from vision.synth.faces import body_texture, face_texture, pip_positions
from vision.synth.style import BODY_KINDS, DieDesign

CLEAN = SceneStyle(effects=False, shadows=False, distractors=False, background="felt", tilt_deg=0.0, die_px=120.0)


def _designs(kind: str, split: str, bodies: str | None, n: int, first: int = 0) -> list[DieDesign]:
    return [sample_design(np.random.default_rng(first + i), kind, split, bodies) for i in range(n)]


def _one_of(body_kind: str, kind: str = "pip", split: str = "train", engraved: bool | None = None) -> DieDesign:
    for i in range(3000):
        d = sample_design(np.random.default_rng(10_000 + i), kind, split, "rich")
        if d.body_kind == body_kind and (engraved is None or d.engraved == engraved):
            return d
    raise AssertionError(f"no {body_kind} {kind} design in 3000 draws")


def test_test_split_draws_the_plain_sets_unless_asked() -> None:
    for kind in ("pip", "poker"):
        default = _designs(kind, "test", None, 150)
        assert default == _designs(kind, "test", "plain", 150)  # the same draws from the same stream
        assert {(d.body_kind, d.engraved) for d in default} == {("plain", False)}
        rich = _designs(kind, "test", "rich", 150)
        assert len({d.body_kind for d in rich}) >= 5
    # and whole scenes and crops are the same pixels with and without the new code path
    for seed in range(3):
        for kind in ("pip", "poker"):
            a = render_scene(seed, kind=kind, split="test", size=(200, 150))
            b = render_scene(seed, kind=kind, split="test", size=(200, 150), style=SceneStyle(bodies="plain"))
            assert np.array_equal(a.image, b.image) and a.boxes == b.boxes
    assert np.array_equal(
        render_face(4, split="test", size=48), render_face(4, split="test", size=48, style=SceneStyle(bodies="plain"))
    )


def test_a_rich_scene_is_its_plain_twin_with_other_bodies() -> None:
    """The bodies draw from their own stream: tables, camera, dice and labels are those of the plain scene."""
    changed = 0
    for seed in range(6):
        for kind in ("pip", "poker"):
            rich = render_scene(seed, kind=kind, size=(200, 150))
            plain = render_scene(seed, kind=kind, size=(200, 150), style=SceneStyle(bodies="plain"))
            assert (rich.boxes, rich.values) == (plain.boxes, plain.values)
            assert rich.style.background == plain.style.background
            assert [d.top_quad for d in rich.dice] == [d.top_quad for d in plain.dice]
            changed += not np.array_equal(rich.image, plain.image)
    assert changed >= 3


def test_train_split_draws_every_body_at_its_share() -> None:
    designs = _designs("pip", "train", None, 600) + _designs("poker", "train", None, 600, first=5000)
    kinds = [d.body_kind for d in designs]
    for k in BODY_KINDS:
        share = kinds.count(k) / len(kinds)
        want = st.RICH_SHARES.get(k, 1 - sum(st.RICH_SHARES.values()))
        assert abs(share - want) < 0.04, (k, share, want)
    assert 0.35 <= 1 - kinds.count("plain") / len(kinds) <= 0.45
    engraved = [d for d in designs if d.engraved]
    assert 0.08 <= len(engraved) / len(designs) <= 0.2
    assert {d.paint == 0.0 for d in engraved} == {True, False}  # bare carvings and painted ones
    dark = [d for d in designs if st._luma(d.body) < 110]
    assert 0.2 <= len(dark) / len(designs) <= 0.45  # dark dice (with light ink) are common in real trays
    for d in dark:
        assert all(abs(st._luma(c) - st._luma(d.body)) >= 50 for c in d.inks[1:])


def test_bold_bodies_draw_the_detectors_hard_bodies_more_often_and_the_same_plain_twins() -> None:
    rich = _designs("pip", "train", "rich", 600) + _designs("poker", "train", "rich", 600, first=5000)
    bold = _designs("pip", "train", "bold", 600) + _designs("poker", "train", "bold", 600, first=5000)
    kinds = [d.body_kind for d in bold]
    for k in BODY_KINDS:
        want = st.BOLD_SHARES.get(k, 1 - sum(st.BOLD_SHARES.values()))
        assert abs(kinds.count(k) / len(kinds) - want) < 0.04, (k, want)
    for k in ("marbled", "translucent", "metallic"):
        assert kinds.count(k) > 1.4 * [d.body_kind for d in rich].count(k)
    # the same sets underneath: a bold set is its rich twin's plain design with another body drawn
    assert [d.kind for d in bold] == [d.kind for d in rich]
    with pytest.raises(ValueError, match="bodies must be one of"):
        sample_design(np.random.default_rng(0), "pip", "train", "loud")


def test_train_and_test_palettes_are_disjoint() -> None:
    pairs = [
        (st.TRAIN_VEINS, st.TEST_VEINS),
        (st.TRAIN_GLITTER, st.TEST_GLITTER),
        (st.TRAIN_PEARL, st.TEST_PEARL),
        (st.TRAIN_METALS, st.TEST_METALS),
    ]
    for train, test in pairs:
        assert not set(train) & set(test)
    train_metals = {d.body for d in _designs("pip", "train", "rich", 800) if d.body_kind == "metallic"}
    test_metals = {d.body for d in _designs("pip", "test", "rich", 800) if d.body_kind == "metallic"}

    def near(c: tuple[int, int, int], pool: tuple[tuple[int, int, int], ...]) -> bool:
        return any(max(abs(a - b) for a, b in zip(c, p, strict=True)) <= 10 for p in pool)

    assert train_metals and all(near(c, st.TRAIN_METALS) for c in train_metals)
    assert test_metals and all(near(c, st.TEST_METALS) and not near(c, st.TRAIN_METALS) for c in test_metals)


@pytest.mark.parametrize("body_kind", [k for k in BODY_KINDS if k != "plain"] + ["engraved"])
def test_each_body_renders_deterministically_with_exact_labels(body_kind: str) -> None:
    design = _one_of("plain", engraved=True) if body_kind == "engraved" else _one_of(body_kind)
    style = replace(CLEAN, designs=(design,))
    a = render_scene(3, kind="pip", size=(320, 240), style=style, values=[2, 5, 6])
    b = render_scene(3, kind="pip", size=(320, 240), style=style, values=[2, 5, 6])
    assert np.array_equal(a.image, b.image)
    assert a.values == "2 5 6" and len(a.dice) == 3
    plain = render_scene(3, kind="pip", size=(320, 240), values=[2, 5, 6],
                         style=replace(style, designs=(replace(design, body_kind="plain", veins=(), engraved=False,
                                                                opacity=1.0, swirl=None),)))  # fmt: skip
    assert plain.boxes == a.boxes  # the body changes pixels, never where the dice are
    assert not np.array_equal(plain.image, a.image)
    poker = _one_of("plain", "poker", engraved=True) if body_kind == "engraved" else _one_of(body_kind, "poker")
    s = render_scene(1, kind="poker", size=(320, 240), style=replace(CLEAN, designs=(poker,)), values=[3, 4])
    assert s.values == "J Q" or s.values == "9 10" or [d.value for d in s.dice] == [3, 4]


@pytest.mark.parametrize("body_kind", [k for k in BODY_KINDS if k != "plain"] + ["engraved"])
def test_the_pips_stand_out_from_the_body(body_kind: str) -> None:
    design = _one_of("plain", engraved=True) if body_kind == "engraved" else _one_of(body_kind)
    if body_kind == "engraved":
        design = replace(design, paint=0.0)  # bare carvings: only the shading tells them
    T = 128
    tex, ink = face_texture(design, 6, T)
    body = body_texture(design, 6, T) if design.body_kind != "plain" else np.full((T, T, 3), design.body, np.uint8)
    grey = cv2.cvtColor((tex[..., :3] * 255).astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    body_grey = cv2.cvtColor(body, cv2.COLOR_BGR2GRAY).astype(np.float32)
    for x, y in pip_positions(6, design.pip_spread):
        cx, cy = round(T / 2 + x * T), round(T / 2 + y * T)
        r = max(2, round(design.pip_scale * T * 0.5))
        pip = (slice(cy - r, cy + r), slice(cx - r, cx + r))
        assert ink[pip].mean() > 0.4, (body_kind, x, y)
        assert abs(grey[pip] - body_grey[pip]).mean() > 25, (body_kind, x, y)
    centre = (slice(T // 2 - 4, T // 2 + 4), slice(T // 2 - 4, T // 2 + 4))  # a six has no middle pip
    assert ink[centre].max() < 0.05  # veins, specks and sheen are body, never ink


def test_rich_bodies_vary_over_the_face_and_between_sets() -> None:
    for body_kind in ("marbled", "swirled", "glitter", "pearl", "metallic"):
        d = _one_of(body_kind)
        tex = body_texture(d, 3, 96).astype(np.float32)
        assert tex.std(axis=(0, 1)).max() > 6, body_kind
        other = body_texture(replace(d, body_seed=d.body_seed + 1), 3, 96).astype(np.float32)
        assert np.abs(tex - other).mean() > 2, body_kind
        small = cv2.resize(body_texture(d, 3, 256), (64, 64), interpolation=cv2.INTER_AREA).astype(np.float32)
        assert np.abs(small - cv2.resize(tex, (64, 64), interpolation=cv2.INTER_AREA)).mean() < 25  # one pattern


def test_marbled_sets_include_veins_as_dark_as_the_pips() -> None:
    marbled = [d for d in _designs("pip", "train", "rich", 1500) if d.body_kind == "marbled"]
    pip_like = [d for d in marbled if any(st._luma(v) <= st._luma(d.inks[1]) + 5 for v in d.veins)]
    assert len(pip_like) >= 0.25 * len(marbled)


def test_a_translucent_body_shows_the_table_and_the_hidden_pips() -> None:
    design = replace(_one_of("translucent"), opacity=0.4, glossy=0.0)
    style = replace(CLEAN, designs=(design,), tilt_deg=30.0)
    clear = render_scene(2, kind="pip", size=(320, 240), style=style, values=[1])
    solid = render_scene(2, kind="pip", size=(320, 240), values=[1],
                         style=replace(style, designs=(replace(design, body_kind="plain", opacity=1.0),)))  # fmt: skip
    quad = np.array(clear.dice[0].top_quad, np.float32)
    centre = quad.mean(axis=0)
    mask = np.zeros(clear.image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(centre + 0.7 * (quad - centre)).astype(np.int32), 255)  # clear of the edges
    cv2.circle(mask, (round(centre[0]), round(centre[1])), round(clear.dice[0].px * 0.2), 0, -1)  # the one's own pip
    px = [s.image[mask > 0].astype(np.float32) for s in (clear, solid)]
    # Around a one the solid face is plain body; the clear one shows the dark pips of the far faces and the table.
    body = np.median(px[1], axis=0)
    dark = [float(((body - p).max(axis=1) > 30).mean()) for p in px]
    assert dark[0] > 0.08 and dark[1] < 0.01, dark
    assert clear.boxes == solid.boxes


def test_bad_bodies_are_refused() -> None:
    with pytest.raises(ValueError, match="bodies"):
        SceneStyle(bodies="fancy")
    with pytest.raises(ValueError, match="body_kind"):
        replace(_one_of("plain"), body_kind="wooden")
    with pytest.raises(ValueError, match="veins"):
        replace(_one_of("plain"), body_kind="marbled", veins=())
    with pytest.raises(ValueError, match="paint"):
        replace(_one_of("plain"), paint=1.5)
    with pytest.raises(ValueError, match="bodies"):
        sample_design(np.random.default_rng(0), "pip", "train", "fancy")


def test_testset_tool_writes_rich_bodies(tmp_path: Path) -> None:
    path = Path(__file__).parents[2] / "tools" / "make_poker_testset.py"
    spec = importlib.util.spec_from_file_location("make_testset", path)
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    main = tool.main
    assert main([str(tmp_path / "rich"), "--count", "3", "--bodies", "rich", "--size", "160x120"]) == 0
    assert main([str(tmp_path / "plain"), "--count", "3", "--size", "160x120"]) == 0
    rich = [json.loads(line) for line in (tmp_path / "rich" / "details.jsonl").read_text().splitlines()]
    plain = [json.loads(line) for line in (tmp_path / "plain" / "details.jsonl").read_text().splitlines()]
    assert all(d["bodies"] == ["plain"] for d in plain)
    assert len(rich) == 3 and all(d["bodies"] for d in rich)
