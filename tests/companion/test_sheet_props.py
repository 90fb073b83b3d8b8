"""Hypothesis: random action sequences keep the sheet's invariants, and refused actions change nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion import BecherError, GameLog
from companion.sheet_rows import ROW_IDS

DIE = st.integers(1, 6)
FIVE = st.lists(DIE, min_size=5, max_size=5)
ROW = st.sampled_from(ROW_IDS)


@st.composite
def legal_looking(draw: st.DrawFn, log: GameLog) -> dict[str, Any]:
    """An action for the player to move that is usually allowed (rows may be full, holds may not fit)."""
    player = log.to_move()
    assert player is not None
    sheet = log.state.sheets[player]
    free = [row for i, row in enumerate(ROW_IDS) if sheet.free_column(i) is not None]
    row = draw(st.sampled_from(free)) if draw(st.integers(0, 4)) else draw(ROW)
    kind = draw(st.sampled_from(["throw", "throw", "enter", "enter", "enter", "manual", "manual", "strike"]))
    turn = log.state.turn
    if kind == "throw":
        held = sorted(draw(st.sets(st.integers(0, 4), max_size=4))) if turn.started else []
        dice = draw(FIVE)
        for p in held:
            dice[p] = turn.dice[p]
        return {"type": "throw", "player": player, "dice": dice, "held": held}
    if kind == "enter" and turn.started:
        return {"type": "enter", "player": player, "row": row}
    if kind == "strike":
        return {"type": "strike", "player": player, "row": row}
    action: dict[str, Any] = {"type": "enter", "player": player, "row": row, "dice": draw(FIVE)}
    action["all_five"] = draw(st.booleans())
    return action


WILD = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["throw", "enter", "strike", "stand", "undo"]),
        "player": st.integers(-1, 4),
    },
    optional={
        "row": st.sampled_from([*ROW_IDS, "nope", ""]),
        "dice": st.lists(st.integers(0, 7), max_size=7),
        "held": st.lists(st.integers(-1, 6), max_size=6),
        "all_five": st.booleans(),
        "throw": st.integers(0, 4),
    },
)
"""Anything shaped like an action: mostly refused, sometimes allowed."""


def snapshot(log: GameLog) -> tuple[int, object, Any]:
    """The action count, the state value itself and its view: a refused action must leave all three."""
    return len(log), log.state, log.rules.view(log.state)


def written(view: dict[str, Any]) -> dict[tuple[int, str, int], dict[str, Any]]:
    """Every written field, without the one mark that may change later (a reserve entry gets struck out)."""
    out = {}
    for player in view["players"]:
        for row, fields in player["rows"].items():
            for field in fields:
                if field["result"] is not None:
                    out[(player["player"], row, field["column"])] = {
                        k: v for k, v in field.items() if k != "reserve_struck"
                    }
    return out


def check_invariants(view: dict[str, Any], before: dict[str, Any]) -> list[dict[str, Any]]:
    """Assert the invariants after one allowed action; returns the fields it wrote."""
    old_fields, new_fields = written(before), written(view)
    for key, field in old_fields.items():
        assert new_fields[key] == field, f"field {key} was written twice"
    assert len(new_fields) - len(old_fields) in (0, 1), "one action writes at most one field"
    owners_before = {b["id"]: b["owner"] for b in before["bonuses"]}
    for bonus in view["bonuses"]:
        if owners_before[bonus["id"]] is not None:
            assert bonus["owner"] == owners_before[bonus["id"]], "a bonus changed hands"
        winners = [p["player"] for p in view["players"] for m in p["bonuses"] if m["id"] == bonus["id"] and m["won"]]
        assert winners == ([] if bonus["owner"] is None else [bonus["owner"]]), "a bonus has at most one owner"
    for player in view["players"]:
        fields = [f for line in player["rows"].values() for f in line if f["result"] is not None]
        assert player["reserve"] >= 0
        assert player["reserve"] == sum(f["reserve_change"] for f in fields)
        assert all(h["value"] >= 0 for h in player["reserve_history"])
        t = player["totals"]
        assert t["fields"] == sum(f["value"] for f in fields)
        assert t["zeros"] == sum(1 for f in fields if f["zero"])
        assert t["bonuses"] == sum(b["value"] for b in view["bonuses"] if b["owner"] == player["player"])
        assert t["reserve"] == player["reserve"]
        assert t["total"] == t["fields"] + t["bonuses"] + t["reserve"] - 200 * t["zeros"]
        for mark in player["bonuses"]:
            assert mark["struck"] == (not mark["reachable"])
            if mark["owner"] is not None and mark["owner"] != player["player"]:
                assert mark["struck"], "a bonus someone else holds is out of reach"
    return [field for key, field in new_fields.items() if key not in old_fields]


def step(log: GameLog, action: dict[str, Any]) -> bool:
    """Play the action if allowed; a refused one must leave the log and the view exactly as they were."""
    before = snapshot(log)
    before_view = before[2]
    try:
        log.play(action)
    except BecherError as exc:
        assert str(exc)
        after = snapshot(log)
        assert after[0] == before[0] and after[1] is before[1] and after[2] == before_view, f"refused {action}"
        return False
    new = check_invariants(log.rules.view(log.state), before_view)
    if action["type"] == "throw":
        assert new == []
    else:
        (field,) = new
        assert field["not_made"] == (action["type"] == "enter" and field["result"] == "struck")
        assert field["struck"] == (field["result"] == "struck")
    return True


GAMES = st.tuples(st.integers(1, 3), st.integers(1, 2), st.sampled_from(["all_five", "first_throw"]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=GAMES, data=st.data())
def test_sheet_random_games_keep_the_invariants(game: tuple[int, int, str], data: st.DataObject) -> None:
    players, columns, doubling = game
    log = GameLog.new("sheet", [f"P{i}" for i in range(players)], {"columns": columns, "doubling": doubling})
    for _ in range(data.draw(st.integers(10, 50 * players * columns), label="steps")):
        if log.outcome() is not None:
            break
        action = data.draw(legal_looking(log)) if data.draw(st.integers(0, 9)) else data.draw(WILD)
        step(log, action)
    view = log.rules.view(log.state)
    event(f"bonuses won: {min(3, sum(b['owner'] is not None for b in view['bonuses']))}+")
    if log.outcome() is not None:
        event("game finished")
        assert all(p["full"] for p in view["players"])
        assert log.options() == []


@settings(max_examples=50, deadline=None)
@given(prefix=st.lists(st.tuples(FIVE, ROW), max_size=20), wild=st.lists(WILD, min_size=1, max_size=15))
def test_sheet_illegal_actions_change_nothing(prefix: list[tuple[list[int], str]], wild: list[dict[str, Any]]) -> None:
    log = GameLog.new("sheet", ["A", "B"], {"columns": 1})
    for dice, row in prefix:
        step(log, {"type": "enter", "player": log.to_move(), "row": row, "dice": dice})
    for action in wild:
        step(log, action)
