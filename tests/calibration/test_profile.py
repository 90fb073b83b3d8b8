import json
from pathlib import Path

import numpy as np
import pytest

from calibration.__main__ import main as calibration_main
from calibration.mat import layout_for, render_mat
from calibration.profile import (
    Profile,
    ProfileError,
    data_dir,
    default_profile,
    delete_profile,
    list_profiles,
    load_profile,
    save_profile,
)
from calibration.rectify import MatFit


def fitted(name: str = "table") -> Profile:
    layout = layout_for("a4")
    fit = MatFit(layout, np.array([[0.5, 0.01, -3.0], [0.0, 0.5, -2.0], [0.0, 0.0001, 1.0]]), (0, 1, 2), 0.2)
    return Profile.from_fit(name, fit, "0", (640, 480))


def test_save_list_load_delete(tmp_path: Path) -> None:
    first = fitted("kitchen table")
    path = save_profile(first, tmp_path)
    assert path.exists() and path.parent.name == "camera-profiles"
    save_profile(fitted("pub"), tmp_path)
    assert [p.name for p in list_profiles(tmp_path)] == ["kitchen table", "pub"]
    loaded = load_profile("kitchen table", tmp_path)
    assert loaded == first
    assert loaded.zones["hold"] == layout_for("a4").zones["hold"]
    delete_profile("kitchen table", tmp_path)
    assert [p.name for p in list_profiles(tmp_path)] == ["pub"]
    with pytest.raises(ProfileError, match="no camera profile"):
        delete_profile("kitchen table", tmp_path)
    with pytest.raises(ProfileError, match="no camera profile"):
        load_profile("kitchen table", tmp_path)


@pytest.mark.parametrize("name", ["", "../etc", "a/b", " lead", "x" * 65, ".hidden"])
def test_bad_names_are_refused_and_nothing_is_written(tmp_path: Path, name: str) -> None:
    with pytest.raises(ProfileError, match="profile name"):
        save_profile(Profile(name=name), tmp_path)
    assert not (tmp_path / "camera-profiles").exists() or not any((tmp_path / "camera-profiles").iterdir())


def test_malformed_profiles_are_refused(tmp_path: Path) -> None:
    good = fitted().to_json()
    for change, message in [
        ({"homography": [[1, 0], [0, 1]]}, "Malformed"),
        ({"homography": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}, "invertible"),
        ({"die_mm": 100}, "die"),
        ({"px_per_mm": -1}, "scale"),
        ({"zones": {"hold": [[0, 0], [1, 1]]}}, "three"),
        ({"colour": "red"}, "Unknown"),
        ({"resolution": [0, 480]}, "resolution"),
    ]:
        with pytest.raises(ProfileError, match=message):
            Profile.from_json({**good, **change})
    with pytest.raises(ProfileError, match="need a homography"):
        Profile("x", zones={"hold": ((0, 0), (1, 0), (1, 1))})
    folder = tmp_path / "camera-profiles"
    folder.mkdir()
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ProfileError, match="not valid JSON"):
        load_profile("broken", tmp_path)
    assert list_profiles(tmp_path) == []


def test_default_profile_has_no_mat() -> None:
    profile = default_profile()
    assert profile.name == "default" and not profile.calibrated and profile.zones == {}


def test_data_dir_follows_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BECHER_DATA", str(tmp_path))
    assert data_dir() == tmp_path


def test_check_tool_saves_a_profile_from_a_photo(tmp_path: Path) -> None:
    import cv2

    photo = tmp_path / "view.png"
    cv2.imwrite(str(photo), cv2.resize(render_mat("letter", 2.0), (640, 494)))
    assert calibration_main(["--data", str(tmp_path), "check", str(photo), "--save", "desk", "--camera", "1"]) == 0
    profile = load_profile("desk", tmp_path)
    assert profile.paper == "letter" and profile.camera == "1" and profile.resolution == (640, 494)
    assert calibration_main(["--data", str(tmp_path), "delete", "desk"]) == 0
    assert calibration_main(["--data", str(tmp_path), "delete", "desk"]) == 2
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((100, 100, 3), 200, np.uint8))
    assert calibration_main(["check", str(blank)]) == 2
    assert json.loads(json.dumps(profile.to_json())) == profile.to_json()
