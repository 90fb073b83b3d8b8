import json

import pytest

from companion.core import GameLog, places, rules_for
from companion.errors import IllegalAction, MalformedInput
from companion.games.classic import Announce
from companion.turns import Throw
from tests.companion.play import hand, hands, throw


def bone(players: int = 2, **settings: object) -> GameLog:
    return GameLog.new("bone", ["Ada", "Ben", "Cem"][:players], settings)


def test_play_folds_actions_and_answers_whose_turn() -> None:
    log = bone()
    assert log.to_move() == 0 and len(log) == 0
    throw(log, 0, (1, 2, 3, 4, 5))
    log.play(Throw(0, (1, 2, 3, 4, 4), (0, 1, 2, 3)))
    assert len(log) == 2 and log.state.turn.throws == 2
    summary = log.summary()
    assert summary["game"] == "bone" and summary["to_move"] == 0 and summary["actions"] == 2
    assert summary["view"]["turn"]["hand"]["category"] == "small_straight"


def test_a_refused_action_changes_nothing() -> None:
    log = bone()
    hand(log, 0, (1, 1, 1, 2, 2))
    before = (log.summary(), log.to_jsonl(), len(log))
    refused = [
        {"type": "throw", "player": 0, "dice": [1, 1, 1, 1, 1]},  # out of turn
        {"type": "stand", "player": 1},  # stand before a throw
        {"type": "throw", "player": 1, "dice": [1, 1, 1, 1]},  # wrong size
        {"type": "throw", "player": 1, "dice": [1, 1, 1, 1, 7]},  # no such face
        {"type": "throw", "player": 1, "dice": [1, 1, 1, 1, "K"]},  # a poker face in a pip game
        {"type": "throw", "player": 5, "dice": [1, 1, 1, 1, 1]},  # no such player
        {"type": "announce", "player": 1, "dice": [1, 1, 1, 1, 1]},  # not an action of this game
        {"type": "throw", "player": 1, "dice": [1, 1, 1, 1, 1], "spin": 3},  # unknown field
    ]
    for action in refused:
        with pytest.raises((IllegalAction, MalformedInput)):
            log.play(action)
        assert (log.summary(), log.to_jsonl(), len(log)) == before


def test_undo_of_any_number_returns_to_the_earlier_state() -> None:
    log = bone(3, rounds=2)
    states = [log.summary()]
    sequence = [(0, (1, 2, 3, 4, 4)), (1, (6, 6, 6, 6, 1)), (2, (2, 2, 3, 3, 1)), (1, (5, 5, 5, 5, 5))]
    for player, dice in sequence:
        throw(log, player, dice)
        states.append(log.summary())
        log.play({"type": "stand", "player": player})
        states.append(log.summary())
    for count in (1, 3, 2):
        removed = log.undo(count)
        assert len(removed) == count
        assert log.summary() == states[len(log)]
    assert log.undo(0) == []
    with pytest.raises(IllegalAction, match="Only 2 actions"):
        log.undo(3)
    with pytest.raises(MalformedInput):
        log.undo(-1)
    log.undo(2)
    assert log.summary() == states[0]


def test_jsonl_export_and_import_round_trip() -> None:
    log = GameLog.new("pokerdice", ["Ada", "Ben"], {"wins": 2})
    hands(log, [(0, ["A", "A", "K", "K", "9"]), (1, ["Q", "Q", "Q", "J", "9"])])
    throw(log, 0, ["9", "10", "J", "Q", "K"])
    text = log.to_jsonl()
    lines = text.splitlines()
    assert json.loads(lines[0]) == {"becher": 1, "game": "pokerdice", "players": ["Ada", "Ben"],
                                    "settings": {"dice": "poker", "wins": 2}}  # fmt: skip
    assert json.loads(lines[1]) == {"type": "throw", "player": 0, "dice": [6, 6, 5, 5, 1], "held": []}
    again = GameLog.from_jsonl(text)
    assert again.summary() == log.summary() and again.to_jsonl() == text


def test_replay_errors_name_the_line() -> None:
    good = bone().to_jsonl()
    lines = [good.strip(), json.dumps({"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5]}), ""]
    lines.append(json.dumps({"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 6]}))  # holds nothing: fine
    lines.append(json.dumps({"type": "stand", "player": 1}))
    with pytest.raises(IllegalAction, match=r"Line 5 of the log \(action 3\).*Ada's turn"):
        GameLog.from_jsonl("\n".join(lines))
    with pytest.raises(MalformedInput, match="Line 2 of the log is not JSON"):
        GameLog.from_jsonl(good + "{oops\n")
    with pytest.raises(MalformedInput, match="header"):
        GameLog.from_jsonl(json.dumps({"type": "throw"}))
    with pytest.raises(MalformedInput, match="no game 'yatzy'"):
        GameLog.from_jsonl(json.dumps({"game": "yatzy", "players": ["a", "b"]}))


def test_setup_refuses_bad_players_and_settings_by_name() -> None:
    rules = rules_for("classic")
    with pytest.raises(MalformedInput, match="2 to 8 players, not 1"):
        rules.make_setup(["Solo"])
    with pytest.raises(MalformedInput, match="2 to 8 players, not 9"):
        rules.make_setup([f"P{i}" for i in range(9)])
    with pytest.raises(MalformedInput, match="no setting 'jokers'"):
        rules.make_setup(["A", "B"], {"jokers": True})
    with pytest.raises(MalformedInput, match="'mode' must be one of"):
        rules.make_setup(["A", "B"], {"mode": "chaos"})
    with pytest.raises(MalformedInput, match="same name"):
        rules.make_setup(["A", "a"])


def test_places_share_equal_scores() -> None:
    assert places([(0, 5), (1, 9), (2, 5), (3, 1)]) == {1: 1, 0: 2, 2: 2, 3: 4}


def test_actions_built_in_code_are_checked_too() -> None:
    log = bone()
    with pytest.raises(MalformedInput, match="no player 7"):
        log.play(Throw(7, (1, 2, 3, 4, 5)))
    with pytest.raises(MalformedInput, match="not 9"):
        log.play(Throw(0, (1, 2, 3, 4, 9)))
    bluff = GameLog.new("classic", ["A", "B"], {"mode": "bluff"})
    with pytest.raises(MalformedInput, match="not 0"):
        bluff.play(Announce(0, (0, 1, 1, 1, 1)))
    assert len(log) == 0 and len(bluff) == 0


def test_undo_from_the_kept_states_is_the_same_as_folding_again() -> None:
    """The log keeps a folded state every SNAPSHOT_EVERY actions only; any undo must still give what a fresh fold of
    the shorter log gives (issue 55), across every snapshot boundary."""
    import json as _json

    from companion.core import SNAPSHOT_EVERY, GameLog

    def action(n: int) -> dict[str, object]:
        player = (n // 2) % 2
        return (
            {"type": "throw", "player": player, "dice": [6, 6, 6, 5, 5]}
            if n % 2 == 0
            else {"type": "stand", "player": player}
        )

    total = 3 * SNAPSHOT_EVERY + 5
    actions = [action(n) for n in range(total)]
    for count in (1, 2, 5, SNAPSHOT_EVERY - 1, SNAPSHOT_EVERY, SNAPSHOT_EVERY + 3, 2 * SNAPSHOT_EVERY + 5, total):
        log = GameLog.new("bone", ["A", "B"], {"rounds": 1})
        for a in actions:
            log.play(a)
        log.undo(count)
        fresh = GameLog.new("bone", ["A", "B"], {"rounds": 1})
        for a in actions[: total - count]:
            fresh.play(a)
        assert _json.dumps(log.summary()) == _json.dumps(fresh.summary()), count
        log.play(actions[total - count])  # and it plays on from there
        fresh.play(actions[total - count])
        assert log.summary() == fresh.summary()
