"""Random sequences of writes through the API against the rules engine folded locally: nothing lost or doubled."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core import GameLog
from tests.web.conftest import Device

DIE = st.integers(1, 6)
STEP = st.one_of(
    st.tuples(st.just("valid"), st.lists(DIE, min_size=5, max_size=5), st.booleans()),
    st.tuples(st.just("wrong_player"), st.lists(DIE, min_size=5, max_size=5), st.booleans()),
    st.tuples(st.just("stale"), st.integers(-3, 3).filter(bool), st.booleans()),
    st.tuples(st.just("undo"), st.integers(1, 3), st.booleans()),
)


def valid_action(model: GameLog, dice: list[int], prefer_stand: bool) -> dict[str, Any] | None:
    options = model.summary()["options"]
    if not options:
        return None
    player = model.to_move()
    if prefer_stand and any(o["action"] == "stand" for o in options):
        return {"type": "stand", "player": player}
    throw = next((o for o in options if o["action"] == "throw"), None)
    if throw is None:
        return {"type": "stand", "player": player}
    action: dict[str, Any] = {"type": "throw", "player": player, "dice": dice}
    if throw.get("throw", 1) > 1:
        action["held"] = []
    return action


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEP, max_size=25))
def test_api_state_is_always_the_fold_of_the_accepted_actions(client: Device, steps: list[tuple[Any, ...]]) -> None:
    game = client.create(players=["A", "B", "C"], rounds=2)
    gid = game["id"]
    model = GameLog.new("bone", ["A", "B", "C"], {"rounds": 2})
    for kind, arg, flag in steps:
        seen = len(model)
        if kind == "valid":
            action = valid_action(model, arg, flag)
            if action is None:
                continue
            r = client.play(gid, action, seen=seen)
            assert r.status_code == 201, r.json
            model.play(action)
        elif kind == "wrong_player":
            to_move = model.to_move()
            player = 0 if to_move is None else (to_move + 1) % 3
            r = client.play(gid, {"type": "throw", "player": player, "dice": arg}, seen=seen)
            assert r.status_code == 409 and r.json["code"] == "illegal"
        elif kind == "stale":
            if seen + arg < 0:
                continue
            r = client.play(gid, {"type": "stand", "player": 0}, seen=seen + arg)
            assert r.status_code == 409 and r.json["code"] == "stale"
        else:
            r = client.post(f"/api/games/{gid}/undo", json={"seen": seen, "count": arg})
            if arg > seen:
                assert r.status_code == 409
            else:
                assert r.status_code == 200
                model.undo(arg)
        assert r.json["game"]["state"] == model.summary()
    assert client.get(f"/api/games/{gid}/export").get_data(as_text=True) == model.to_jsonl()
