"""Every hand, sheet field, placed die and revealed cup in a game's view names the log action its dice came from.

The table page links each score to the photo of that action, so the index must point at an action of the log that
shows exactly those dice; these tests play random legal games and check every index after every action.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from companion.core import GameLog
from tests.companion.play import random_action

SEEDS = range(6)


def with_action(node: object) -> Iterator[dict[str, Any]]:
    """Every object of the view that carries an ``action`` index (skipping the nulls of empty fields)."""
    if isinstance(node, dict):
        if isinstance(node.get("action"), int) and not isinstance(node.get("action"), bool):
            yield node
        for value in node.values():
            yield from with_action(value)
    elif isinstance(node, list):
        for value in node:
            yield from with_action(value)


def check(log: GameLog, seen: Counter[str]) -> None:
    """Each index is an action of the log whose dice are the ones the view shows there."""
    view = log.rules.view(log.state)
    actions = [a.to_json() for a in log.actions]
    for item in with_action(view):
        index = item["action"]
        assert 0 <= index < len(actions), item
        action = actions[index]
        if "order" in item and "die" in item:  # a die on the board: one of its turn's throw
            assert action["type"] == "throw" and action["dice"][item["die"]] == item["value"], (item, action)
        else:
            assert action["type"] in ("throw", "reveal", "enter"), (item, action)
            assert list(action["dice"]) == list(item["dice"]), (item, action)
        seen[action["type"]] += 1


def play(log: GameLog, step: Callable[[GameLog, random.Random], dict[str, object]], seed: int) -> Counter[str]:
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    for _ in range(300):
        if log.outcome() is not None:
            break
        log.play(step(log, rng))
        check(log, seen)
    return seen


def stood_hands(view: dict[str, Any]) -> list[dict[str, Any]]:
    stages = [s for r in view["history"] for s in r["stages"]] + [*view["earlier_stages"], view["stage"]]
    return [h for s in stages for h in s["hands"]]


@pytest.mark.parametrize(
    ("game", "settings"),
    [
        ("bone", {}),
        ("pokerdice", {}),
        ("classic", {}),
        ("classic", {"mode": "points", "rounds": 2}),
        ("classic", {"blind_first_throw": True, "held_fixed": True}),
    ],
)
def test_round_games_name_the_throw_behind_every_hand(game: str, settings: dict[str, object]) -> None:
    for seed in SEEDS:
        log = GameLog.new(game, ["Anna", "Ben", "Cleo"], settings)
        seen = play(log, random_action, seed)
        hands = stood_hands(log.rules.view(log.state))
        assert hands and all(isinstance(h["action"], int) for h in hands), "every stood hand names its throw"
        assert seen["throw"] > 0


def test_classic_blind_rounds_name_the_unseen_throw() -> None:
    log = GameLog.new("classic", ["Anna", "Ben"], {"blind_first_throw": True})
    log.play({"type": "blind", "player": 0})
    log.play({"type": "throw", "player": 0, "dice": [6, 6, 2, 2, 1]})
    log.play({"type": "throw", "player": 1, "dice": [5, 5, 5, 3, 1]})
    hands = stood_hands(log.rules.view(log.state))
    assert [(h["player"], h["action"]) for h in hands] == [(0, 1), (1, 2)]
    check(log, Counter())


def test_bluff_reveals_name_the_reveal_action() -> None:
    for seed in SEEDS:
        log = GameLog.new("classic", ["Anna", "Ben", "Cleo"], {"mode": "bluff"})
        seen = play(log, random_action, seed)
        assert set(seen) <= {"reveal"}
        revealed = [h["revealed"] for h in log.rules.view(log.state)["history"] if h["revealed"]]
        assert all(isinstance(r["action"], int) for r in revealed)
    assert seen["reveal"] > 0


def sheet_step(log: GameLog, rng: random.Random) -> dict[str, object]:
    """A random legal sheet action; sometimes an entry whose dice are tapped in with it (no throw recorded)."""
    turn = log.state.turn
    options = log.options()
    if not turn.started and rng.random() < 0.3:
        dice = [rng.randint(1, 6) for _ in range(5)]
        for option in options:
            row = option.detail.get("fields", {}).get("row")
            if option.action == "strike" and row:
                tapped = {"type": "enter", "player": option.player, "row": row, "dice": dice, "all_five": True}
                if log.rules.can(log.state, log.parse(tapped | {"throw": 1})):
                    return tapped | {"throw": 1}
    option = rng.choice(options)
    action: dict[str, object] = {"type": option.action, "player": option.player, **option.detail.get("fields", {})}
    if option.action == "throw":
        held: list[int] = []
        if turn.started:
            held = [p for p in range(5) if rng.random() < 0.4][:4]
        dice = [turn.dice[p] if p in held else rng.randint(1, 6) for p in range(5)]
        action |= {"dice": dice, "held": held}
    return action


def test_sheet_fields_name_the_last_throw_of_their_turn_or_the_entry() -> None:
    total: Counter[str] = Counter()
    for seed in SEEDS:
        log = GameLog.new("sheet", ["Anna", "Ben"])
        total += play(log, sheet_step, seed)
        fields = [c for p in log.rules.view(log.state)["players"] for line in p["rows"].values() for c in line]
        for cell in fields:
            if cell["dice"]:
                assert isinstance(cell["action"], int), cell
    assert total["throw"] > 0 and total["enter"] > 0


def board_step(log: GameLog, rng: random.Random) -> dict[str, object]:
    option = rng.choice(log.options())
    action: dict[str, object] = {"type": option.action, "player": option.player}
    if option.action == "choose_starter":
        return action
    if option.action in ("throw", "roll_off"):
        return action | {"dice": [rng.randint(1, 6) for _ in range(int(option.detail["dice_count"]))]}
    return action | {k: option.detail[k] for k in ("die", "row", "slot", "side")}


def test_board_dice_name_the_throw_of_their_turn() -> None:
    for seed in SEEDS:
        log = GameLog.new("board", ["Anna", "Ben"])
        seen = play(log, board_step, seed)
        assert seen["throw"] > 0
        placed = log.rules.view(log.state)["placements"]
        assert placed and all(isinstance(p["action"], int) for p in placed)
