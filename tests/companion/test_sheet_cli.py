"""`becher hand --game sheet` and `becher replay` for a sheet log, through web.cli.main."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from web.cli import main

LOG = Path(__file__).parent / "logs" / "sheet_three_players.jsonl"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else None, err


def test_sheet_cli_hand_all_five_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = run(capsys, "hand", "--game", "sheet", "--all-five", "1", "1", "1", "1", "1")
    assert code == 0
    rows = {r["row"]: r for r in result["rows"]}
    assert len(rows) == 15
    assert (result["game"], result["all_five"], result["doubled"]) == ("sheet", True, True)
    assert (result["category"], result["points"], result["key"]) == ("fuenfling", 110, [110])
    assert (rows["fuenfling"]["points"], rows["fuenfling"]["doubled"]) == (110, True)
    assert (rows["vierling"]["points"], rows["drilling"]["points"], rows["paar"]["points"]) == (48, 6, 4)
    assert (rows["schule_1"]["result"], rows["schule_1"]["reserve_change"]) == ("closed", 2)
    assert (rows["schule_1"]["points"], rows["schule_1"]["doubled"]) == (0, False)  # Schule is never doubled
    assert all(rows[f"schule_{n}"]["result"] == "zero" for n in range(2, 7))
    assert rows["full_house"]["result"] == rows["zwei_paare"]["result"] == "struck"
    assert rows["summe"]["points"] == 10


def test_sheet_cli_hand_without_all_five_is_not_doubled(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = run(capsys, "hand", "--game", "sheet", "1", "1", "1", "1", "1")
    assert code == 0
    assert (result["points"], result["doubled"]) == (55, False)


def test_sheet_cli_hand_short_schule_says_what_it_needs(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = run(capsys, "hand", "--game", "sheet", "A", "A", "K", "Q", "9")
    assert code == 0
    rows = {r["row"]: r for r in result["rows"]}
    assert (rows["schule_6"]["result"], rows["schule_6"]["needs_reserve"]) == ("closed_with_reserve", 6)
    assert (rows["schule_5"]["needs_reserve"], rows["paar"]["points"]) == (10, 12)


def test_sheet_cli_hand_refuses_a_sixth_die(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, err = run(capsys, "hand", "--game", "sheet", "1", "2", "3", "4", "5", "6")
    assert code != 0 and result is None
    assert json.loads(err) == {"ok": False, "error": "A throw has 5 dice, not 6."}


def test_sheet_cli_replay_prints_the_standings(capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = run(capsys, "replay", str(LOG))
    assert code == 0
    assert (result["game"], result["finished"], result["to_move"]) == ("sheet", True, None)
    assert [(s["name"], s["place"], s["score"]) for s in result["standings"]] == [
        ("Anna", 1, 953),
        ("Ben", 2, 376),
        ("Cem", 3, 248),
    ]
