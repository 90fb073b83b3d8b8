"""The phantom set: photos with no dice, cut from the dice-free parts of train rows and rendered, reproducibly."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.synth.phantoms import MIN_WINDOW, THINGS, phantom_set, photo_cuts, rendered
from vision.train.data import is_val


def _photo_set(root: Path, rows: list[tuple[str, str]]) -> None:
    """A set named like a shared one: 640x480 photos, a bright square "die" at (100..200, 100..200) labelled."""
    folder = root / "rune55-phone-tray"
    (folder / "images").mkdir(parents=True)
    lines = ["image,split,kind,values,boxes"]
    for name, split in rows:
        img = np.full((480, 640, 3), 90, np.uint8)
        img[100:200, 100:200] = 250
        cv2.imwrite(str(folder / "images" / name), img)
        lines.append(f'images/{name},{split},pip,4,"100,100,200,200:4"')
    (folder / "labels.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _names(split_of_hash: bool, n: int = 40) -> list[str]:
    return [f"p{i}.png" for i in range(n) if is_val(f"rune55-phone-tray/images/p{i}.png") == split_of_hash]


def test_cuts_keep_clear_of_every_labelled_die(tmp_path: Path) -> None:
    _photo_set(tmp_path, [(n, "train") for n in _names(False)])
    cuts = photo_cuts(tmp_path, 12, seed=1, split="train")
    assert len(cuts) == 12
    for cut in cuts:
        assert min(cut.shape[:2]) >= MIN_WINDOW
        assert int(cut.max()) < 250  # no pixel of the labelled die (250) in any cut


def test_test_cuts_come_from_the_rows_the_training_holds_back_and_never_from_test_rows(tmp_path: Path) -> None:
    # train rows hashed to validation and rows marked test: only the former may feed the phantom test set
    _photo_set(tmp_path, [(n, "train") for n in _names(True)] + [(n, "test") for n in _names(False)])
    assert len(photo_cuts(tmp_path, 5, seed=0, split="test")) == 5
    assert photo_cuts(tmp_path, 5, seed=0, split="train") == []


def test_the_set_is_reproducible_and_the_seed_changes_it(tmp_path: Path) -> None:
    _photo_set(tmp_path, [(n, "train") for n in _names(True)])
    a = phantom_set(6, seed=3, split="test", root=tmp_path)
    b = phantom_set(6, seed=3, split="test", root=tmp_path)
    c = phantom_set(6, seed=4, split="test", root=tmp_path)
    assert len(a) == 6 and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, c, strict=True))


@pytest.mark.parametrize("split", ["train", "test"])
def test_rendered_tables_are_photos_with_things_on_them(split: str) -> None:
    rng = np.random.default_rng(5)
    img = rendered(rng, split)
    assert img.dtype == np.uint8 and img.ndim == 3 and min(img.shape[:2]) >= 480
    assert float(img.std()) > 3  # a table with something on it, not a flat colour
    assert len(THINGS) >= 10


def test_an_unknown_split_is_refused() -> None:
    with pytest.raises(ValueError, match="split"):
        phantom_set(2, split="val")


def test_training_phantoms_are_n_dice_free_items_drawn_from_split_train(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--phantoms N`` adds N photos with no die, from the train split of the phantom set at the training's own seed:
    never the measuring split."""
    import vision.synth.phantoms as phantoms
    from vision.train.data import PHANTOM_SEED, phantom_samples, source_weight

    asked: list[tuple[int, int, str]] = []

    def fake(count: int, seed: int = 0, split: str = "test", root: Path | None = None) -> list[np.ndarray]:
        asked.append((count, seed, split))
        return [np.full((64 + i, 80, 3), i, np.uint8) for i in range(count)]

    monkeypatch.setattr(phantoms, "phantom_set", fake)
    items = phantom_samples(5, weight=2.0)
    assert asked == [(5, PHANTOM_SEED, "train")]
    assert len(items) == 5 and len({s.name for s in items}) == 5
    for i, s in enumerate(items):
        assert s.img.shape == (64 + i, 80, 3)
        assert s.centres.shape == (0, 2) and len(s.sides) == len(s.classes) == len(s.taught) == 0
        assert source_weight(s, photo_weight=6.0) == 2.0  # their own weight, not the photos'


def test_training_phantoms_are_the_rendered_train_phantoms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without photo sets beside the checkout the phantoms are rendered on train tables, seeded: the same every run."""
    import vision.train.data as data
    from vision.train.data import PHANTOM_SEED, phantom_samples

    def no_photos() -> Path:
        raise FileNotFoundError

    monkeypatch.setattr(data, "photo_root", no_photos)
    items = phantom_samples(2)
    want = phantom_set(2, seed=PHANTOM_SEED, split="train", root=tmp_path)  # an empty root: rendered only
    assert all(np.array_equal(s.img, w) for s, w in zip(items, want, strict=True))


def test_board_game_tokens_and_pieces_are_drawn_on_the_table() -> None:
    """Issue 59: a board's number tokens read as a "9" or a "10" at 0.9-1.0; the phantom set shows such tokens (a
    disc with a printed number in dark or red ink) and pieces, among the things on its tables."""
    from vision.synth.phantoms import game_pieces, number_tokens

    for draw in (number_tokens, game_pieces):
        assert draw in THINGS
        img = np.full((240, 320, 3), 0.5, np.float32)
        draw(np.random.default_rng(2), img, 60.0)
        changed = np.abs(img - 0.5).max(axis=2) > 0.05
        assert 0.005 < changed.mean() < 0.6, draw.__name__
    img = np.full((240, 320, 3), 0.5, np.float32)
    number_tokens(np.random.default_rng(2), img, 60.0)
    ink = (img.max(axis=2) < 0.2) | ((img[..., 2] > 0.6) & (img[..., 0] < 0.2))
    assert ink.sum() > 20  # the number and its dots
