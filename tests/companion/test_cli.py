import json
from pathlib import Path

import pytest

from companion.core import GameLog
from tests.companion.play import hands
from web.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object], str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def test_becher_hand_classic_prints_the_contract_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = run(capsys, "hand", "--game", "classic", "2", "3", "4", "5", "6")
    assert code == 0
    assert result == {
        "game": "classic",
        "dice": ["2", "3", "4", "5", "6"],
        "category": "large_straight",
        "label": "Große Straße",
        "label_en": "Large straight",
        "points": None,
        "key": [6, 6, 0, 0, 0, 0],
    }


def test_becher_hand_points_and_house_rules_through_settings(capsys: pytest.CaptureFixture[str]) -> None:
    _, points, _ = run(capsys, "hand", "--game", "classic", "--set", "mode=points", "2", "3", "4", "5", "6")
    assert points["points"] == 25
    _, joker, _ = run(capsys, "hand", "--game", "classic", "--set", "ace_joker=true", "6", "3", "3", "3", "3")
    assert joker["category"] == "five" and joker["stands_for"] == [3, 3, 3, 3, 3]
    _, bone, _ = run(capsys, "hand", "--game", "bone", "1", "2", "3", "4", "4")
    assert (bone["category"], bone["points"]) == ("small_straight", 25)


def test_becher_hand_poker_faces(capsys: pytest.CaptureFixture[str]) -> None:
    code, high, _ = run(capsys, "hand", "--game", "pokerdice", "10", "J", "Q", "K", "A")
    assert code == 0 and (high["category"], high["label_en"], high["points"]) == ("straight", "Straight", None)
    _, low, _ = run(capsys, "hand", "--game", "pokerdice", "9", "10", "J", "Q", "K")
    assert low["key"] < high["key"]  # type: ignore[operator]
    _, gap, _ = run(capsys, "hand", "--game", "pokerdice", "9", "J", "Q", "K", "A")
    assert gap["label_en"] == "High Die"
    _, classic, _ = run(capsys, "hand", "--game", "classic", "A", "A", "A", "K", "K")
    assert classic["category"] == "full_house"


def test_becher_hand_refuses_bad_dice_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "hand", "--game", "classic", "1", "2", "3", "4", "7")
    assert code != 0 and "'7'" in err
    code, _, err = run(capsys, "hand", "--game", "classic", "1", "2", "3", "4")
    assert code != 0 and "5 dice, not 4" in err
    code, _, err = run(capsys, "hand", "--game", "classic", "1", "2", "3", "4", "K")
    assert code != 0 and json.loads(err)["ok"] is False and "mix pip faces (1) and poker faces (K)" in err


def test_becher_replay_prints_the_standings(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = GameLog.new("bone", ["Ada", "Ben"], {"rounds": 1})
    hands(log, [(0, (6, 6, 6, 6, 1)), (1, (1, 2, 3, 4, 4))])
    path = tmp_path / "game.jsonl"
    path.write_text(log.to_jsonl(), encoding="utf-8")
    code, result, _ = run(capsys, "replay", str(path))
    assert code == 0
    outcome = result["outcome"]
    assert result["finished"] is True and isinstance(outcome, dict) and outcome["winners"] == [0]
    assert [(s["name"], s["place"], s["score"]) for s in result["standings"]] == [("Ada", 1, 40), ("Ben", 2, 25)]  # type: ignore[attr-defined]


def test_becher_replay_names_the_bad_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = GameLog.new("bone", ["Ada", "Ben"])
    path = tmp_path / "bad.jsonl"
    path.write_text(log.to_jsonl() + json.dumps({"type": "stand", "player": 1}) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    assert code != 0 and "Line 2 of the log" in err
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.jsonl"))
    assert code != 0 and "Cannot read" in err


@pytest.mark.parametrize("where", ["header", "action"])
def test_becher_replay_of_a_deeply_nested_line_is_the_usual_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    header = '{"becher": 1, "game": "bone", "players": ["A", "B"]}'
    path = tmp_path / "deep.jsonl"
    path.write_text(deep + "\n" if where == "header" else header + "\n" + deep + "\n")
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == {}
    error = json.loads(err)
    assert error["ok"] is False and "nested too deeply" in error["error"]
    assert ("Line 1" if where == "header" else "Line 2") in error["error"]


def test_becher_hand_refuses_pip_faces_in_poker_dice_as_the_api_does(capsys: pytest.CaptureFixture[str]) -> None:
    from web.app import create_app

    code, _, err = run(capsys, "hand", "--game", "pokerdice", "1", "2", "3", "4", "5")
    assert code == 2
    api = create_app({"TESTING": True, "DATABASE": ":memory:"}).test_client()
    refused = api.get("/api/rules/pokerdice/hand?dice=1,2,3,4,5").json
    assert refused["status"] == 400 and json.loads(err)["error"] == refused["error"]
    code, played, _ = run(capsys, "hand", "--game", "pokerdice", "--set", "dice=pip", "1", "2", "3", "4", "5")
    assert code == 0 and played["category"] == "straight"  # pip dice, when the game is set to play with them
