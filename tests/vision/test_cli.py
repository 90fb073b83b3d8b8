"""``becher read``: one JSON line per image, an error line and a non-zero exit for what cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from tests.vision.drawing import scene
from web.cli import main


def _write(path: Path, values: list[int], seed: int) -> Path:
    img, _ = scene(values, side=64, seed=seed)
    cv2.imwrite(str(path), img)
    return path


def test_read_json_gives_one_line_per_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a.png", [1, 3, 6], 1)
    b = _write(tmp_path / "b.jpg", [2, 2, 5, 4], 2)
    code = main(["read", str(a), str(b), "--kind", "pip", "--json"])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert [x["image"] for x in lines] == [str(a), str(b)]
    assert sorted(d["face"] for d in lines[0]["dice"]) == ["1", "3", "6"]
    assert sorted(d["value"] for d in lines[1]["dice"]) == [2, 2, 4, 5]
    for line in lines:
        assert line["kind"] == "pip" and line["ms"] >= 0
        for d in line["dice"]:
            assert set(d) >= {"face", "value", "confidence", "box", "uncertain"}
            assert len(d["box"]) == 4


def test_unreadable_images_give_error_lines_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _write(tmp_path / "good.png", [4], 3)
    text = tmp_path / "notes.txt"
    text.write_text("six, six, six")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    missing = tmp_path / "missing.jpg"
    code = main(["read", str(text), str(good), str(empty), str(missing), "--json"])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert [x["image"] for x in lines] == [str(text), str(good), str(empty), str(missing)]
    assert [("error" in x) for x in lines] == [True, False, True, True]
    assert "empty" in lines[2]["error"] and "missing.jpg" in lines[3]["error"]
    assert [d["face"] for d in lines[1]["dice"]] == ["4"]


def test_plain_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a.png", [5, 6], 4)
    assert main(["read", str(a), "--kind", "pip"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{a}: pip: ") and "5" in out and "6" in out


def test_a_german_poker_set_is_read_with_its_printing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.vision.test_synth import GERMAN
    from vision.synth import render_scene
    from vision.synth.style import SceneStyle

    style = SceneStyle(effects=False, shadows=False, distractors=False, background="felt", designs=(GERMAN,))
    scene_ = render_scene(0, kind="poker", n_dice=6, values=[1, 2, 3, 4, 5, 6], style=style, split="test")
    path = tmp_path / "german.png"
    cv2.imwrite(str(path), scene_.image)
    assert main(["read", str(path), "--kind", "poker", "--json"]) == 0
    dice = json.loads(capsys.readouterr().out)["dice"]
    # B (Bube) is the jack, D (Dame) the queen: faces as ranks, the printing told beside them
    assert sorted((d["value"], d["face"], d.get("printed")) for d in dice) == [
        (1, "9", None), (2, "10", None), (3, "J", "B"), (4, "Q", "D"), (5, "K", None), (6, "A", None)
    ]  # fmt: skip
    assert main(["read", str(path), "--kind", "poker"]) == 0
    assert "B=J" in capsys.readouterr().out


def test_read_with_a_count_proposes_the_throw_as_the_server_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # six dice in the photo, a throw of five: the least likely die is left out, as vision/count.py proposes it
    six = _write(tmp_path / "six.png", [1, 2, 3, 4, 5, 6], 3)
    assert main(["read", str(six), "--kind", "pip", "--count", "5", "--json"]) == 0
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert line["count"] == 5 and len(line["dice"]) == 5 and len(line["extra"]) == 1
    assert sorted(d["face"] for d in line["dice"] + line["extra"]) == ["1", "2", "3", "4", "5", "6"]
    assert line["assumed"] == ["extra"]
    # two dice in the photo, a throw of three: one place is left for a tap, shown as "_" in text
    two = _write(tmp_path / "two.png", [5, 6], 4)
    assert main(["read", str(two), "--kind", "pip", "--count", "3"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().split(": pip: ")[1].split("  (")[0].split()[-1] == "_"
    assert "proposed as a throw of 3" in out


def test_read_with_kept_dice_in_the_photo_fits_the_whole_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    five = _write(tmp_path / "five.png", [1, 2, 3, 4, 6], 5)
    assert main(["read", str(five), "--kind", "pip", "--count", "2", "--on-table", "5", "--json"]) == 0
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert line["count"] == 5 and "whole" in line["assumed"] and len(line["dice"]) == 5


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--count", "0"], "--count"),
        (["--count", "61"], "--count"),
        (["--on-table", "5"], "--on-table needs --count"),
        (["--count", "5", "--on-table", "3"], "--on-table"),
    ],
)
def test_a_count_that_makes_no_sense_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    img = _write(tmp_path / "a.png", [4], 3)
    assert main(["read", str(img), *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and says in json.loads(captured.err)["error"]
