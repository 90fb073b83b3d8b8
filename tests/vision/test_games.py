"""Rendered games: the same seed the same game, labels in the labels.csv layout that match the stored pictures,
one dice set until the change, throws of one to five dice, and only the renderer's test side."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reading import PIP_FACES, POKER_FACES
from vision.synth.games import (
    GAME_NAMES,
    GAMES,
    LABEL_COLUMNS,
    SETS,
    GameSpec,
    game_spec,
    main,
    parse_boxes,
    render_game,
    throw_sizes,
)
from vision.synth.style import TEST_BODIES, TEST_FONTS, TEST_INKS, TEST_METALS

SMALL = (320, 240)


def test_same_seed_same_game_other_seed_other_game() -> None:
    a = render_game("poker-de", 3, throws=3, size=SMALL)
    b = render_game("poker-de", 3, throws=3, size=SMALL)
    c = render_game("poker-de", 4, throws=3, size=SMALL)
    assert a.rows() == b.rows()
    assert all(np.array_equal(x.image, y.image) for x, y in zip(a.throws, b.throws, strict=True))
    assert not np.array_equal(a.throws[0].image, c.throws[0].image)


def test_a_throw_does_not_depend_on_the_throws_after_it() -> None:
    short = render_game("pip-red", 1, throws=2, size=SMALL)
    long = render_game("pip-red", 1, throws=3, size=SMALL)
    assert short.rows() == long.rows()[:2]
    assert np.array_equal(short.throws[1].image, long.throws[1].image)


@pytest.mark.parametrize("name", ["pip-white", "poker-en-card", "change-poker"])
def test_written_labels_round_trip_and_boxes_lie_in_the_stored_image(name: str, tmp_path: Path) -> None:
    game = render_game(name, 2, throws=4, size=SMALL)
    out = game.write(tmp_path / name)
    with open(out / "labels.csv", newline="") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == LABEL_COLUMNS
        rows = list(reader)
    assert [[r[c] for c in LABEL_COLUMNS] for r in rows] == game.rows()
    faces = POKER_FACES if game.spec.kind == "poker" else PIP_FACES
    for row, throw in zip(rows, game.throws, strict=True):
        assert row["split"] == "test" and row["kind"] == game.spec.kind
        img = cv2.imread(str(out / row["image"]))
        assert img is not None and img.shape[1::-1] == game.size
        boxes = parse_boxes(row["boxes"])
        assert len(boxes) == len(throw.scene.dice) >= 1
        values = row["values"].split()
        assert values == sorted(values, key=faces.index)
        assert Counter(values) == Counter(face for _box, face in boxes)
        for (x0, y0, x1, y1), face in boxes:
            assert face in faces
            assert 0 <= x0 < x1 <= game.size[0] and 0 <= y0 < y1 <= game.size[1]
        # the dice are where the labels say: a die differs from the table around it
        for (x0, y0, x1, y1), _face in boxes:
            assert img[y0:y1, x0:x1].std() > 3
    meta = json.loads((out / "game.json").read_text())
    assert [t["image"] for t in meta["throws"]] == [r["image"] for r in rows]


def test_one_dice_set_all_game() -> None:
    game = render_game("poker-de", 5, throws=6, size=SMALL)
    assert {t.dice_set for t in game.throws} == {"poker-de"}
    printed = {d.printed for t in game.throws for d in t.scene.dice}
    assert printed <= {"9", "10", "B", "D", "K", "A"}
    assert game.change_at is None
    with pytest.raises(ValueError):
        render_game("poker-de", 5, throws=6, size=SMALL, change_at=3)


def test_the_change_game_changes_at_k(tmp_path: Path) -> None:
    game = render_game("change-poker", 0, throws=6, size=SMALL, change_at=2)
    first, second = game.spec.sets
    assert [t.dice_set for t in game.throws] == [first] * 2 + [second] * 4
    assert len(game.throws[2].scene.dice) == 5  # new dice come with a new turn, not in a rethrow
    for t in game.throws:
        allowed = set(SETS[t.dice_set][1].printed)
        assert {d.printed for d in t.scene.dice} <= allowed
    assert SETS[first][1].printed != SETS[second][1].printed  # English letters, then French ones
    meta = json.loads(game.write(tmp_path / "g").joinpath("game.json").read_text())
    assert meta["change_at"] == 3  # 1-based: the first throw of the second set
    assert [t["dice_set"] for t in meta["throws"]] == [first] * 2 + [second] * 4
    assert render_game("change-pip", 0, throws=4, size=SMALL).change_at == 2  # default: half the throws
    for bad in (0, 6):
        with pytest.raises(ValueError):
            render_game("change-pip", 0, throws=6, size=SMALL, change_at=bad)


def test_throws_show_one_to_five_dice_about_one_rethrow_in_three() -> None:
    for spec in GAMES:
        sizes = throw_sizes(spec, 0, 60)
        assert sizes[0] == 5
        assert all(1 <= n <= 5 for n in sizes)
        assert 8 <= sum(n < 5 for n in sizes) <= 32, (spec.name, sizes)
        assert throw_sizes(spec, 0, 60, 30)[30] == 5
    game = render_game("pip-big-pips", 0, throws=8, size=SMALL)
    assert [len(t.scene.dice) for t in game.throws] == throw_sizes(game.spec, 0, 8)


def test_games_use_only_the_test_side_of_the_renderer() -> None:
    assert len(GAME_NAMES) == len(set(GAME_NAMES))
    test_inks = set(TEST_INKS.values())
    for _desc, design in SETS.values():
        assert design.body in TEST_BODIES + TEST_METALS
        assert set(design.inks) <= test_inks
        if design.kind == "poker":
            assert design.font in TEST_FONTS
    printings = {SETS[s][1].printed[2:5] for g in GAMES for s in g.sets if SETS[s][1].kind == "poker"}
    assert printings == {("J", "Q", "K"), ("B", "D", "K"), ("V", "D", "R")}
    with pytest.raises(ValueError):
        GameSpec("x", ("white",), "felt", "phone")  # a training table
    with pytest.raises(ValueError):
        game_spec("no-such-game")


def test_cli_writes_a_folder_per_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path), "--throws", "2", "--games", "pip-red,change-pip", "--size", "320x240"]) == 0
    for name in ("pip-red", "change-pip"):
        with open(tmp_path / name / "labels.csv", newline="") as f:
            assert len(list(csv.DictReader(f))) == 2
    assert "change-pip" in capsys.readouterr().out
