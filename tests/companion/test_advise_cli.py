"""``becher advise``: the JSON of the issue, and bad input refused in JSON with exit code 2."""

from __future__ import annotations

import json
from typing import Any

import pytest

from web.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(["advise", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def test_bone_five_sixes_prints_every_hold_best_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = run(capsys, "--game", "bone", "--throws-left", "2", "6", "6", "6", "6", "6")
    assert code == 0
    assert set(result) == {"game", "dice", "throws_left", "objective", "holds"}
    assert (result["game"], result["dice"], result["throws_left"], result["objective"]) == (
        "bone",
        ["6", "6", "6", "6", "6"],
        2,
        "points",
    )
    assert result["holds"][0] == {"keep": ["6", "6", "6", "6", "6"], "value": 50.0}
    assert [len(h["keep"]) for h in result["holds"]] == [5, 4, 3, 2, 0, 1]  # keeping none beats keeping one six
    values = [h["value"] for h in result["holds"]]
    assert values == sorted(values, reverse=True)


def test_one_entry_per_distinct_sub_multiset_and_standing_alone_with_no_throws_left(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, result, _ = run(capsys, "--game", "bone", "--throws-left", "1", "6", "6", "5", "5", "1")
    keeps = [tuple(h["keep"]) for h in result["holds"]]
    assert len(keeps) == len(set(keeps)) == 3 * 3 * 2
    _, stand, _ = run(capsys, "--game", "bone", "--throws-left", "0", "6", "6", "5", "5", "1")
    assert stand["holds"] == [{"keep": ["6", "6", "5", "5", "1"], "value": 15.0}]


def test_beat_gives_the_chance_as_value(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = run(
        capsys, "--game", "pokerdice", "--throws-left", "2", "--beat", "A", "A", "A", "A", "A", "A", "K", "Q", "J", "9"
    )
    assert code == 0 and result["objective"] == "beat"
    assert result["dice"] == ["A", "K", "Q", "J", "9"]
    assert {h["value"] for h in result["holds"]} == {0.0} and len(result["holds"]) == 32
    _, full, _ = run(
        capsys, "--game", "classic", "--throws-left", "1", "--beat", "3", "3", "3", "2", "2", "6", "6", "6", "1", "2"
    )
    assert full["holds"][0]["keep"] == ["6", "6", "6"] and full["holds"][0]["value"] == pytest.approx(16 / 36)


def test_settings_change_the_goal(capsys: pytest.CaptureFixture[str]) -> None:
    _, points, _ = run(
        capsys, "--game", "classic", "--set", "mode=points", "--throws-left", "0", "2", "3", "4", "5", "6"
    )
    assert points["holds"] == [{"keep": ["6", "5", "4", "3", "2"], "value": 25.0}]
    _, joker, _ = run(
        capsys,
        "--game",
        "classic",
        "--set",
        "ace_joker=true",
        "--throws-left",
        "0",
        "--beat",
        "5",
        "5",
        "5",
        "5",
        "1",
        "6",
        "6",
        "6",
        "6",
        "2",
    )
    assert joker["holds"][0]["value"] == 1.0


def test_sheet_rows_reserve_and_doubling(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = run(capsys, "--game", "sheet", "--throws-left", "1", "--open", "summe", "6", "6", "6", "6", "6")
    assert code == 0 and result["objective"] == "points"
    assert result["holds"][0] == {"keep": [], "value": pytest.approx(35.0)}  # all five again doubles the Summe
    assert result["rows"] == [{"row": "summe", "chance": 1.0, "expected": pytest.approx(35.0), "keep": []}]
    _, first, _ = run(capsys, "--game", "sheet", "--throws-left", "2", "--open", "summe", "6", "6", "6", "6", "6")
    assert first["holds"][0] == {"keep": ["6", "6", "6", "6", "6"], "value": 60.0}  # the first throw doubles
    _, paid, _ = run(
        capsys, "--game", "sheet", "--throws-left", "0", "--open", "schule_6", "--reserve", "6", "6", "6", "3", "2", "1"
    )
    assert paid["holds"] == [{"keep": ["6", "6", "3", "2", "1"], "value": -6.0}]
    assert paid["rows"][0]["chance"] == 1.0


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--game", "bone", "--throws-left", "1", "1", "2", "3", "4", "7"], "'7'"),
        (["--game", "bone", "--throws-left", "1", "1", "2", "3", "4"], "5 dice on the table, not 4"),
        (["--game", "bone", "--throws-left", "1", "1", "2", "3", "4", "5", "6"], "not 6"),
        (["--game", "bone", "--throws-left", "1", "1", "2", "3", "4", "K"], "mix pip faces"),
        (
            ["--game", "pokerdice", "--throws-left", "1", "--beat", "A", "A", "A", "A", "A", "1", "2", "3", "4", "5"],
            "pip face",
        ),
        (["--game", "classic", "--throws-left", "3", "1", "2", "3", "4", "5"], "0 to 2"),
        (["--game", "classic", "--throws-left", "-1", "--set", "mode=points", "1", "2", "3", "4", "5"], "0 to 2"),
        (["--game", "classic", "--throws-left", "two", "1", "2", "3", "4", "5"], "whole number"),
        (
            [
                "--game",
                "classic",
                "--set",
                "mode=bluff",
                "--throws-left",
                "2",
                "--beat",
                "1",
                "1",
                "2",
                "2",
                "3",
                "1",
                "2",
                "3",
                "4",
                "5",
            ],
            "0 to 1",
        ),
        (["--game", "classic", "--throws-left", "1", "1", "2", "3", "4", "5"], "name the hand to beat"),
        (["--game", "pokerdice", "--throws-left", "1", "A", "K", "Q", "J", "9"], "name the hand to beat"),
        (
            ["--game", "sheet", "--throws-left", "1", "--beat", "1", "1", "1", "1", "1", "1", "2", "3", "4", "5"],
            "no hand to beat",
        ),
        (["--game", "bone", "--throws-left", "1", "--beat", "1", "2", "1", "2", "3", "4", "5"], "table, not 2"),
        (["--game", "bone", "--throws-left", "1", "1", "2", "3", "4", "5", "--beat", "1", "2"], "expected 5"),
        (["--game", "bone", "--throws-left", "1", "--set", "color=red", "1", "2", "3", "4", "5"], "no setting 'color'"),
        (["--game", "bone", "--throws-left", "1", "--set", "rounds", "1", "2", "3", "4", "5"], "NAME=VALUE"),
        (["--game", "bone", "--throws-left", "1", "--reserve", "3", "1", "2", "3", "4", "5"], "score sheet"),
        (["--game", "sheet", "--throws-left", "1", "--open", "paar,nope", "1", "2", "3", "4", "5"], "no row 'nope'"),
        (["--game", "sheet", "--throws-left", "1", "--reserve", "-2", "1", "2", "3", "4", "5"], "0 or more"),
        (["--game", "board", "--throws-left", "0", "1", "2", "3"], "board game has no holds"),
        (["--game", "yahtzee", "--throws-left", "0", "1", "2", "3", "4", "5"], "no game 'yahtzee'"),
        (["--game", "bone", "1", "2", "3", "4", "5"], "--throws-left"),
    ],
)
def test_bad_input_is_refused_in_json_with_exit_code_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    try:
        code, out, err = run(capsys, *argv)
    except SystemExit as stop:  # argparse's own refusals exit from inside main
        code, out, err = int(stop.code or 0), {}, capsys.readouterr().err
    assert code == 2 and out == {}
    refusal = json.loads(err)
    assert refusal["ok"] is False and needle in refusal["error"], refusal
