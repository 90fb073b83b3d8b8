"""The engines' own English sentences count right: "1 round", "1 point", never "1 rounds" (companion.english)."""

from __future__ import annotations

import re

import pytest

from companion.core import GameLog, rules_for
from companion.english import count


def test_count_takes_the_singular_for_one_only() -> None:
    assert [count(n, "point") for n in (0, 1, 2)] == ["0 points", "1 point", "2 points"]
    assert count(1, "round win") == "1 round win" and count(3, "round win") == "3 round wins"
    assert count(-1, "point") == "-1 points" and count(2, "die", "dice") == "2 dice"


def play_out(game: str, players: list[str], **settings: object) -> str:
    """Play a game to its end, player 0 always throwing five sixes and the others a poor hand; the outcome's reason."""
    rules = rules_for(game)
    log = GameLog(rules, rules.make_setup(players, settings))
    for _ in range(200):
        summary = log.summary()
        if summary["outcome"]:
            return str(summary["outcome"]["reason"])
        options = summary["options"]
        stand = next((o for o in options if o["action"] == "stand"), None)
        option = stand if stand and log.rules.view(log.state).get("turn", {}).get("dice") else options[0]
        action = {"type": option["action"], "player": option["player"]}
        if option["action"] == "throw":
            action["dice"] = [6, 6, 6, 6, 6] if option["player"] == 0 else [1, 2, 3, 4, 6]
        log.play(action)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    ("game", "settings", "expected"),
    [
        ("bone", {"rounds": 1}, r"after 1 round: \d+ points?\."),
        ("pokerdice", {"wins": 1}, r"is the first to 1 round win\."),
    ],
)
def test_outcome_reasons_say_one_in_the_singular(game: str, settings: dict[str, object], expected: str) -> None:
    reason = play_out(game, ["Anna", "Ben"], **settings)
    assert re.search(expected, reason), reason
    assert not re.search(r"\b1 (rounds|points|games|strikes|round wins)\b", reason), reason
