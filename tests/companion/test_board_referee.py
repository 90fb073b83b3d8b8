"""A second referee for the board game, written from guide/RULES.md ``board`` apart from companion/games/board.py.

It follows a match's action log by itself (who throws, who places which die in which order, where a die goes by
default), scores every row with the plain ranking of oracle.py and the placement-order tie-break, and plays games
until a player has the target, the loser of each game starting the next. The recorded match and random matches
must end exactly as the engine says.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.core import GameLog
from tests.companion.oracle import board

LOGS = Path(__file__).parent / "logs"
FACES = {"9": 1, "10": 2, "J": 3, "Q": 4, "K": 5, "A": 6}


def rank(value: int | str) -> int:
    return value if isinstance(value, int) else int(value) if value in "123456" else FACES[value]


def referee(text: str) -> tuple[list[tuple[int, int]], tuple[int, int], int]:
    """Each game's rows won per seat, the match points, and the match winner."""
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    settings: dict[str, Any] = {"tie_break": "third", "either_side": False, "points_to_win": 5, **lines[0]["settings"]}
    actions: Iterator[dict[str, Any]] = iter(lines[1:])
    starter = None
    dice: dict[int, int] = {}
    while starter is None:  # rule 1: one die each, the higher starts, again on a tie; or chosen
        action = next(actions)
        if action["type"] == "choose_starter":
            starter = action["player"]
        else:
            dice[action["player"]] = rank(action["dice"][0])
            if len(dice) == 2:
                starter = None if dice[0] == dice[1] else (0 if dice[0] > dice[1] else 1)
                dice = {}
    games: list[tuple[int, int]] = []
    points = [0, 0]
    while True:
        fields: dict[tuple[int, int, int], tuple[int, int]] = {}  # (row, side, slot) -> (order, value)
        order = 0
        for turn in range(6):  # rule 2: throwers alternate, the game's starter first
            thrower = starter if turn % 2 == 0 else 1 - starter
            throw = next(actions)
            assert (throw["type"], throw["player"]) == ("throw", thrower), throw
            left = [rank(v) for v in throw["dice"]]
            positions = [0, 1, 2]
            for placer in (thrower, 1 - thrower, thrower):
                place = next(actions)
                assert (place["type"], place["player"]) == ("place", placer), place
                if place.get("die") is not None:
                    position = place["die"]
                else:  # by value: the first die of that value not yet placed
                    position = next(p for p in positions if left[p] == rank(place["value"]))
                positions.remove(position)
                side = placer if place.get("side") is None else place["side"]
                assert settings["either_side"] or side == placer
                row = place["row"]
                slot = place.get("slot")
                if slot is None:
                    slot = min(s for s in range(3) if (row, side, s) not in fields)
                assert (row, side, slot) not in fields
                order += 1
                fields[(row, side, slot)] = (order, left[position])
        won = [0, 0]
        for row in range(3):
            sides = [sorted(v for (r, s, _), v in fields.items() if r == row and s == side) for side in (0, 1)]
            strengths = [board([value for _, value in dice_of_side]) for dice_of_side in sides]
            if strengths[0] != strengths[1]:
                won[0 if strengths[0] > strengths[1] else 1] += 1
                continue
            pick = -1 if settings["tie_break"] == "third" else 0  # rule 4: by placement order
            won[0 if sides[0][pick][0] < sides[1][pick][0] else 1] += 1
        games.append((won[0], won[1]))
        points = [points[0] + won[0], points[1] + won[1]]
        if max(points) >= settings["points_to_win"] and points[0] != points[1]:
            assert next(actions, None) is None, "actions after the end of the match"
            return games, (points[0], points[1]), 0 if points[0] > points[1] else 1
        starter = 0 if won[0] < won[1] else 1  # rule 5: the loser of a game starts the next


def check(log: GameLog) -> None:
    games, points, winner = referee(log.to_jsonl())
    view = log.rules.view(log.state)
    assert [tuple(g["score"]) for g in view["games"]] == games
    assert tuple(view["points"]) == points
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (winner,)


def test_the_second_referee_scores_the_recorded_match_like_the_engine() -> None:
    check(GameLog.from_jsonl((LOGS / "board_match.jsonl").read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"tie_break": "first"},
        {"either_side": True, "points_to_win": 3},
        {"dice": "poker", "either_side": True, "tie_break": "first", "points_to_win": 7},
    ],
)
def test_the_second_referee_agrees_on_random_matches(settings: dict[str, object]) -> None:
    for seed in range(5):
        rng = random.Random(seed)
        log = GameLog.new("board", ["Anna", "Ben"], settings)
        while log.outcome() is None:
            options = log.options()
            option = rng.choice(options)
            d = dict(option.detail)
            if option.action in ("roll_off", "throw"):
                count = 1 if option.action == "roll_off" else 3
                # low-variety dice make identical sides (and the placement tie-break) common
                log.play(
                    {"type": option.action, "player": option.player, "dice": [rng.randint(3, 5) for _ in range(count)]}
                )
            elif option.action == "choose_starter":
                log.play({"type": "choose_starter", "player": option.player})
            else:
                fields = {k: d[k] for k in ("row", "side") if rng.random() < 0.7 or k == "row"}
                how = rng.choice(["die", "value", "both"])
                if how in ("die", "both"):
                    fields["die"] = d["die"]
                if how in ("value", "both"):
                    fields["value"] = d["value"]
                if rng.random() < 0.5:
                    fields["slot"] = d["slot"]
                if "side" not in fields and d["side"] != option.player:
                    fields["side"] = d["side"]
                log.play({"type": "place", "player": option.player, **fields})
        check(log)
