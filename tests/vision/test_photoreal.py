"""The Blender scene plan and its labels: the planned face is the one on top, same seed same plan, and labels.csv
rows that say where each seen die is (Blender itself is not needed: its output is written by hand here)."""

from __future__ import annotations

import ast
import csv
import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.synth import photoreal
from vision.train.data import CLASS_NAMES, scene_samples, source_weight

BLENDER_SCRIPT = Path(photoreal.__file__).with_name("blender_scene.py")


def _blender_faces() -> dict[tuple[int, int, int], int]:
    """FACES as blender_scene.py writes it (that script imports bpy, so it is read, not imported)."""
    tree = ast.parse(BLENDER_SCRIPT.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "FACES":
            return ast.literal_eval(node.value)  # type: ignore[no-any-return]
    raise AssertionError("FACES not found in blender_scene.py")


def test_the_blender_script_numbers_the_cube_as_the_plan_does() -> None:
    assert {v: k for k, v in _blender_faces().items()} == photoreal.FACE_NORMALS


@pytest.mark.parametrize("rank", range(1, 7))
def test_the_planned_rank_faces_up_and_the_die_rests_on_the_table(rank: int) -> None:
    m = photoreal.die_matrix(rank, yaw=0.7, x=0.1, y=-0.2, side=0.016)
    rot = m[:3, :3]
    assert np.allclose(rot @ rot.T, np.eye(3)) and math.isclose(np.linalg.det(rot), 1.0)
    up = rot @ np.array(photoreal.FACE_NORMALS[rank], float)
    assert np.allclose(up, (0, 0, 1))
    others = [r for r in range(1, 7) if r != rank]
    assert all((rot @ np.array(photoreal.FACE_NORMALS[r], float))[2] < 0.5 for r in others)
    assert np.allclose(m[:3, 3], (0.1, -0.2, 0.008))


def test_a_plan_depends_on_its_seed_alone(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for d in (a, b, c):
        d.mkdir()
    pa, pb, pc = photoreal.plan_scene(7, a), photoreal.plan_scene(7, b), photoreal.plan_scene(8, c)
    assert pa == pb and pa != pc
    assert (a / "scene-000007.json").read_text() == (b / "scene-000007.json").read_text()
    atlas = cv2.imread(str(a / pa["dice"][0]["atlas"]))
    assert atlas.shape == (2 * photoreal.ATLAS_CELL, 3 * photoreal.ATLAS_CELL, 3)
    assert np.array_equal(atlas, cv2.imread(str(b / pb["dice"][0]["atlas"])))


def _inside(px: float, py: float, die: tuple[float, float, float], half: float) -> bool:
    x, y, yaw = die
    u = (px - x) * math.cos(yaw) + (py - y) * math.sin(yaw)
    v = -(px - x) * math.sin(yaw) + (py - y) * math.cos(yaw)
    return abs(u) <= half and abs(v) <= half


@pytest.mark.parametrize("push", [0.25, 0.5])
def test_planned_dice_never_overlap_yet_some_touch(push: float) -> None:
    side, closest = 0.016, []
    grid = np.linspace(-0.5, 0.5, 9) * side
    for seed in range(20):
        spots = photoreal._place(np.random.default_rng(seed), 20, side, 0.05, push=push)
        assert 1 <= len(spots) <= 20
        for i, a in enumerate(spots):
            for b in spots[:i]:
                # every point of one die's footprint lies outside the other's
                pts = [(a[0] + u * math.cos(a[2]) - v * math.sin(a[2]), a[1] + u * math.sin(a[2]) + v * math.cos(a[2]))
                       for u in grid for v in grid]
                assert not any(_inside(px, py, b, side / 2) for px, py in pts)
            closest.append(min((math.hypot(a[0] - b[0], a[1] - b[1]) for b in spots if b is not a), default=1.0))
    assert min(closest) < side * 1.35  # pushed against a neighbour, as thrown dice rest


def test_a_crowd_is_many_small_dice_seen_from_the_side(tmp_path: Path) -> None:
    spec = photoreal.plan_scene(2000, tmp_path, mode="crowd")
    assert len(spec["dice"]) >= 15
    cam, target = np.array(spec["camera"]["location"]), np.array(spec["camera"]["target"])
    tilt = math.degrees(math.acos((cam - target)[2] / np.linalg.norm(cam - target)))
    assert 20 <= tilt <= 60
    assert spec != photoreal.plan_scene(2000, tmp_path)


def test_tray_dice_lie_inside_the_first_tray_and_trays_keep_apart(tmp_path: Path) -> None:
    for seed in range(3000, 3012):
        spec = photoreal.plan_scene(seed, tmp_path, mode="tray")
        trays = spec["table"]["trays"]
        first = trays[0]
        for d in spec["dice"]:
            x, y = d["matrix"][0][3], d["matrix"][1][3]
            # the inradius bounds the hexagon's floor in every direction
            assert math.hypot(x - first["centre"][0], y - first["centre"][1]) + d["side"] * 0.71 < first["inradius"]
        for i, a in enumerate(trays):
            for b in trays[:i]:
                gap = math.hypot(a["centre"][0] - b["centre"][0], a["centre"][1] - b["centre"][1])
                rim = math.tan(math.radians(max(a["slope"], b["slope"]))) * max(a["height"], b["height"])
                assert gap > (a["inradius"] + b["inradius"]) * 1.155 + rim


def _fake_render(folder: Path, seen: list[float], centres: list[tuple[float, float]]) -> str:
    """A planned scene with what Blender would have written: the render and each die's place on screen."""
    spec = photoreal.plan_scene(3, folder)
    w, h = spec["size"]
    name = "scene-000003"
    cv2.imwrite(str(folder / f"{name}.png"), np.full((h, w, 3), 90, np.uint8))
    dice = []
    for d, s, (cx, cy) in zip(spec["dice"], seen, centres, strict=False):
        corners = [(cx + dx, cy + dy) for dx in (-20, 20) for dy in (-25, 15)]
        dice.append({"rank": d["rank"], "centre": [cx, cy], "top": corners[:4], "corners": corners, "seen": s})
    assert len(dice) == len(seen), "seed 3 plans fewer dice than the test needs"
    spec["dice"] = spec["dice"][: len(dice)]
    (folder / f"{name}.json").write_text(json.dumps(spec))
    (folder / f"{name}.dice.json").write_text(json.dumps(dice))
    return name


def test_labels_hold_the_seen_dice_on_screen_with_the_whole_die_as_side(tmp_path: Path) -> None:
    name = _fake_render(tmp_path, [1.0, 0.0, 1.0], [(100.0, 120.0), (200.0, 200.0), (-30.0, 50.0)])
    row = photoreal.label_scene(tmp_path, name)
    assert row is not None
    boxes = row["boxes"].split(";")
    assert len(boxes) == 1  # the hidden die and the one outside the frame carry no label
    xy, face = boxes[0].split(":")
    x0, y0, x1, y1 = map(float, xy.split(","))
    assert ((x0 + x1) / 2, (y0 + y1) / 2) == (100.0, 120.0)  # the top face's centre
    assert x1 - x0 == y1 - y0 == 40.0  # the larger side of the die's outline
    spec = json.loads((tmp_path / f"{name}.json").read_text())
    assert face == spec["dice"][0]["face"] and row["printed"] == spec["dice"][0]["printed"]
    assert cv2.imread(str(tmp_path / row["image"])) is not None


def test_a_half_hidden_die_leaves_its_scene_out(tmp_path: Path) -> None:
    name = _fake_render(tmp_path, [1.0, 0.4], [(100.0, 120.0), (200.0, 200.0)])
    assert photoreal.label_scene(tmp_path, name) is None


def test_a_render_showing_another_face_than_planned_is_an_error(tmp_path: Path) -> None:
    name = _fake_render(tmp_path, [1.0], [(100.0, 120.0)])
    got = json.loads((tmp_path / f"{name}.dice.json").read_text())
    got[0]["rank"] = got[0]["rank"] % 6 + 1
    (tmp_path / f"{name}.dice.json").write_text(json.dumps(got))
    with pytest.raises(ValueError, match="planned"):
        photoreal.label_scene(tmp_path, name)


def test_scene_folders_train_on_what_each_die_shows(tmp_path: Path) -> None:
    folder = tmp_path / "blender-x"
    folder.mkdir()
    rows = []
    for i in range(40):
        cv2.imwrite(str(folder / f"s{i}.jpg"), np.zeros((60, 80, 3), np.uint8))
        rows.append({"image": f"s{i}.jpg", "split": "train", "kind": "poker", "values": "Q K",
                     "boxes": "10,10,30,30:Q;40,10,60,30:K", "printed": "D K"})
    with open(folder / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    train, val = scene_samples(folder), scene_samples(folder, "val")
    assert len(train) + len(val) == 40 and len(val) > 0  # the photos' stable hash holds some back
    assert not {s.name for s in train} & {s.name for s in val}
    s = train[0]
    assert [CLASS_NAMES[c] for c in s.taught] == ["D", "K"]
    assert np.allclose(s.centres, [(20, 20), (50, 20)]) and np.allclose(s.sides, 20)
    assert source_weight(s, 2.0) == 2.0  # weighed as photos unless told
    heavy = scene_samples(folder, weight=3.0)
    assert {source_weight(t, 2.0) for t in heavy} == {3.0}
