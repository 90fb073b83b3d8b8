"""The board game as a whole: a recorded match replayed from its action log, and random action sequences."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.core import GameLog
from companion.errors import BecherError
from web.cli import main as cli_main

MATCH_LOG = Path(__file__).parent / "logs" / "board_match.jsonl"


def view(log: GameLog) -> dict[str, Any]:
    result: dict[str, Any] = log.rules.view(log.state)
    return result


def test_board_full_match_replayed_from_the_action_log() -> None:
    text = MATCH_LOG.read_text(encoding="utf-8")
    log = GameLog.from_jsonl(text)
    v = view(log)
    assert (v["starter"], v["starter_by"], v["roll_offs"]) == (1, "roll_off", [[3, 3], [2, 5]])
    assert [(g["starter"], g["score"], g["winner"]) for g in v["games"]] == [
        (1, [1, 2], 1),  # Ben won the roll-off and game 1
        (0, [2, 1], 0),  # Anna lost game 1 and starts game 2
        (1, [2, 1], 0),  # Ben lost game 2 and starts game 3
    ]
    assert [(r["result"]["winner"], r["result"]["reason"]) for r in v["rows"]] == [
        (0, "higher"),
        (1, "placement"),
        (0, "category"),
    ]
    assert v["rows"][1]["result"]["because"].endswith("(placement 11 before 12)")
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert [(s.name, s.place, s.score, s.detail["games_won"]) for s in log.standings()] == [
        ("Anna", 1, 5, 2),
        ("Ben", 2, 4, 1),
    ]
    assert log.to_jsonl() == text  # export gives back the same log


def test_board_match_log_undo_and_replay_agree() -> None:
    log = GameLog.from_jsonl(MATCH_LOG.read_text(encoding="utf-8"))
    removed = log.undo(24)  # game 3: six throws and 18 placements
    assert log.outcome() is None and view(log)["points"] == [3, 3]
    assert (log.to_move(), view(log)["next_game_starter"], view(log)["phase"]) == (1, 1, "throw")
    summary = json.loads(json.dumps(log.summary()))  # everything a client gets is plain JSON
    assert summary["options"] == [
        {"action": "throw", "player": 1, "label": "Throw three dice", "points": None, "dice_count": 3}
    ]
    for action in removed:
        log.play(action)
    assert log.outcome() is not None and view(log)["points"] == [5, 4]


def test_board_becher_replay_prints_the_standings(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["replay", str(MATCH_LOG)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["finished"], out["outcome"]["winners"], out["actions"]) == (True, [0], 76)
    assert [(s["name"], s["score"]) for s in out["standings"]] == [("Anna", 5), ("Ben", 4)]


def _play_one_game(log: GameLog, data: st.DataObject) -> None:
    """Legal moves only, drawn at random from what options() offers, until the board is full."""
    while not log.state.games[-1].complete:
        options = log.options()
        if options[0].action == "throw":
            dice = data.draw(st.lists(st.integers(1, 6), min_size=3, max_size=3))
            log.play({"type": "throw", "player": options[0].player, "dice": dice})
        else:
            option = data.draw(st.sampled_from(options))
            d = option.detail
            log.play({"type": "place", "player": option.player, **{k: d[k] for k in ("die", "row", "slot", "side")}})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(), starter=st.integers(0, 1), either_side=st.booleans(), tie_break=st.sampled_from(["third", "first"])
)
def test_board_legal_sequences_fill_the_board_and_end_3_0_or_2_1(
    data: st.DataObject, starter: int, either_side: bool, tie_break: str
) -> None:
    log = GameLog.new("board", ["A", "B"], {"either_side": either_side, "tie_break": tie_break})
    log.play({"type": "choose_starter", "player": starter})
    _play_one_game(log, data)
    game = log.state.games[-1]
    assert len(game.placements) == 18
    assert all(len(game.side_placements(r, s)) == 3 for r in range(3) for s in (0, 1))
    assert len({(p.row, p.side, p.slot) for p in game.placements}) == 18
    v = view(log)
    assert sorted(v["games"][0]["score"]) in ([0, 3], [1, 2])
    assert all(r["result"] is not None for r in v["rows"])
    if not either_side:
        assert all(p.side == p.player for p in game.placements)
    assert log.outcome() is None and log.to_move() == 1 - v["games"][0]["winner"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), either_side=st.booleans(), steps=st.integers(0, 17))
def test_board_any_placement_is_legal_exactly_when_offered_and_a_refused_one_changes_nothing(
    data: st.DataObject, either_side: bool, steps: int
) -> None:
    log = GameLog.new("board", ["A", "B"], {"either_side": either_side})
    log.play({"type": "choose_starter", "player": 0})
    while len(log.state.games[-1].placements) < steps or log.options()[0].action == "throw":
        options = log.options()
        if options[0].action == "throw":
            dice = data.draw(st.lists(st.integers(1, 6), min_size=3, max_size=3))
            log.play({"type": "throw", "player": options[0].player, "dice": dice})
        else:
            option = data.draw(st.sampled_from(options))
            d = option.detail
            log.play({"type": "place", "player": option.player, **{k: d[k] for k in ("die", "row", "slot", "side")}})
    game = log.state.games[-1]
    # Mostly plausible fields (so that both outcomes occur), sometimes out of range.
    placer = game.placer()
    player = data.draw(st.sampled_from([placer, placer, 1 - placer]))
    die = data.draw(st.none() | st.integers(0, 2) | st.integers(-1, 3))
    value = data.draw(st.none() | st.sampled_from(game.current_throw) | st.integers(0, 7))
    row = data.draw(st.integers(0, 2) | st.integers(-1, 3))
    slot = data.draw(st.none() | st.integers(0, 2) | st.integers(-1, 3))
    side = data.draw(st.none() | st.sampled_from([player, player, 1 - player]) | st.integers(-1, 2))
    offered = {
        (o.player, o.detail["value"], o.detail["row"], o.detail["slot"], o.detail["side"]) for o in log.options()
    }
    action: dict[str, object] = {"type": "place", "player": player, "row": row}
    action |= {k: v for k, v in (("die", die), ("value", value), ("slot", slot), ("side", side)) if v is not None}
    before = (len(log), log.state, json.dumps(view(log)))
    try:
        log.play(action)
    except BecherError:
        assert (len(log), log.state, json.dumps(view(log))) == before
        accepted = False
    else:
        accepted = True
    event(f"accepted={accepted}")
    # Which die and field the action means, when it is well formed (as docs/games/board.md describes).
    meant: tuple[int, int, int, int, int] | None = None
    throw, placed = game.current_throw, game.placed_positions
    if 0 <= row <= 2 and (die is not None or value is not None):
        chosen: int | None = None
        if die is not None:
            if 0 <= die <= 2 and (value is None or throw[die] == value) and die not in placed:
                chosen = throw[die]
        elif value in [throw[i] for i in range(3) if i not in placed]:
            chosen = value
        where = player if side is None else side
        if chosen is not None and 0 <= where <= 1:
            free = game.free_slots(row, where)
            target = (free[0] if free else None) if slot is None else slot
            if target is not None:
                meant = (player, chosen, row, target, where)
    assert accepted == (meant is not None and meant in offered)
    if accepted:
        assert log.state.games[-1].placements[-1].order == len(game.placements) + 1
