"""Whole games replayed from the action logs in tests/companion/logs (one per game and mode).

The expected standings were read off each game once, round by round (see make_logs.py); the bone
and points totals were added up by hand from the hands.
"""

import itertools
import json
from pathlib import Path

import pytest

from companion.core import GameLog
from web.cli import main

LOGS = Path(__file__).parent / "logs"

EXPECTED = {
    "classic-strikes": ([("Bert", 1, 2), ("Dieter", 2, 3), ("Clara", 3, 3), ("Anna", 4, 3)], [1]),
    "classic-points": ([("Bert", 1, 60), ("Anna", 2, 55), ("Clara", 3, 50)], [1]),
    "classic-bluff": ([("Bert", 1, 2), ("Clara", 2, 3), ("Anna", 3, 3)], [1]),
    "classic-house-rules": ([("Clara", 1, 1), ("Bert", 2, 3), ("Anna", 3, 3)], [2]),
    "bone": ([("Cem", 1, 100), ("Ben", 2, 95), ("Dora", 2, 95), ("Ada", 4, 75)], [2]),
    "pokerdice": ([("Ben", 1, 3), ("Ada", 2, 1), ("Cem", 3, 0)], [1]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_whole_game_replays_to_the_expected_standings(name: str) -> None:
    text = (LOGS / f"{name}.jsonl").read_text(encoding="utf-8")
    log = GameLog.from_jsonl(text)
    standings, winners = EXPECTED[name]
    assert [(s.name, s.place, s.score) for s in log.standings()] == standings
    outcome = log.outcome()
    assert outcome is not None and list(outcome.winners) == winners
    assert log.to_move() is None and log.options() == []
    assert log.to_jsonl() == text  # export gives back the same log


def test_bone_log_totals_are_the_sum_of_the_round_points() -> None:
    log = GameLog.from_jsonl((LOGS / "bone.jsonl").read_text(encoding="utf-8"))
    view = log.rules.view(log.state)
    assert len(view["history"]) == 5
    sums = [sum(r["points"][p] for r in view["history"]) for p in range(4)]
    assert sums == view["scores"] == [75, 95, 100, 95]


def test_classic_strikes_log_starts_each_round_with_the_last_strike_taker() -> None:
    log = GameLog.from_jsonl((LOGS / "classic-strikes.jsonl").read_text(encoding="utf-8"))
    history = log.rules.view(log.state)["history"]
    for before, after in itertools.pairwise(history):
        loser = before["loser"]
        first = after["stages"][0]["order"][0]
        out_now = [r["loser"] for r in history[: history.index(before) + 1]].count(loser) >= 3
        assert first == loser or out_now


def test_becher_replay_on_a_log_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(LOGS / "pokerdice.jsonl")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["finished"] and result["outcome"]["winners"] == [1]
    assert [s["name"] for s in result["standings"]] == ["Ben", "Ada", "Cem"]
