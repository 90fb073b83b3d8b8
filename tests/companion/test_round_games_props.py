"""Property tests for the round-based games: random legal play keeps the invariants; illegal actions change nothing."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core import GameLog
from companion.errors import BecherError
from tests.companion.play import random_action

CONFIGS: list[tuple[str, dict[str, object]]] = [
    ("bone", {}),
    ("bone", {"rounds": 2, "ties": "share"}),
    ("pokerdice", {}),
    ("pokerdice", {"wins": 2, "dice": "pip"}),
    ("classic", {}),
    ("classic", {"strike_limit": 2, "end_at_first_out": True}),
    ("classic", {"mode": "points", "rounds": 3}),
    ("classic", {"mode": "bluff", "strike_limit": 2}),
    ("classic", {"held_fixed": True, "ace_joker": True, "blind_first_throw": True, "gap_straight": True}),
    ("classic", {"throw_limit": False, "straight_above_full_house": True, "mode": "points", "rounds": 2}),
]

PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def new_game(config: int, players: int) -> GameLog:
    game, options = CONFIGS[config]
    return GameLog.new(game, [f"P{i}" for i in range(players)], options)


def has_single_winner(log: GameLog) -> bool:
    """Games whose end always names exactly one winner (no shared places by their settings)."""
    settings_ = dict(log.setup.settings)
    if log.setup.game == "bone":
        return settings_["ties"] == "extra"
    if log.setup.game == "classic":
        return settings_["mode"] in ("strikes", "bluff") and not settings_["end_at_first_out"]
    return True


configs = st.integers(0, len(CONFIGS) - 1)
players = st.integers(2, 5)
seeds = st.integers(0, 2**32 - 1)


@PROPS
@given(configs, players, seeds)
def test_random_legal_play_keeps_the_invariants(config: int, n: int, seed: int) -> None:
    rng = random.Random(seed)
    log = new_game(config, n)
    limit = int(dict(log.setup.settings).get("strike_limit", 99))
    previous = log.state
    for _ in range(400):
        if log.outcome() is not None:
            break
        log.play(random_action(log, rng))
        state = log.state
        assert all(a <= b for a, b in zip(previous.strikes, state.strikes, strict=True)), "strikes never fall"
        assert all(s <= limit for s in state.strikes), "strikes never exceed the limit"
        if hasattr(state, "scores"):
            assert all(a <= b for a, b in zip(previous.scores, state.scores, strict=True)), "totals never fall"
        assert (log.to_move() is None) == (log.outcome() is not None)
        assert all(o.player == log.to_move() for o in log.options())
        places = [s.place for s in log.standings()]
        assert places == sorted(places) and places[0] == 1 and len(places) == n
        previous = state
    outcome = log.outcome()
    assert outcome is not None, "every game ends"
    assert outcome.winners and all(0 <= w < n for w in outcome.winners)
    if has_single_winner(log):
        assert len(outcome.winners) == 1
    assert {s.player for s in log.standings() if s.place == 1} == set(outcome.winners)
    assert GameLog.from_jsonl(log.to_jsonl()).summary() == log.summary()
    assert json.loads(json.dumps(log.summary()))["outcome"]["winners"] == list(outcome.winners)


@PROPS
@given(configs, players, seeds, st.integers(1, 60), st.integers(0, 60))
def test_undo_then_redo_returns_the_same_state(config: int, n: int, seed: int, length: int, back: int) -> None:
    rng = random.Random(seed)
    log = new_game(config, n)
    for _ in range(length):
        if log.outcome() is not None:
            break
        log.play(random_action(log, rng))
    state, summary = log.state, log.summary()
    removed = log.undo(min(back, len(log)))
    for action in removed:
        log.play(action)
    assert log.state == state and log.summary() == summary


ACTION_TYPES = ["throw", "stand", "blind", "announce", "believe", "rethrow", "doubt", "reveal", "take", "place"]
faces = st.one_of(st.integers(0, 8), st.sampled_from(["1", "6", "9", "10", "J", "A", "X", ""]))
junk = st.fixed_dictionaries(
    {
        "type": st.sampled_from(ACTION_TYPES),
        "player": st.integers(-1, 6),
    },
    optional={
        "dice": st.lists(faces, min_size=0, max_size=6),
        "held": st.lists(st.integers(-1, 6), max_size=6),
        "count": st.integers(-1, 7),
    },
)


@PROPS
@given(configs, players, seeds, st.integers(0, 40), st.lists(junk, min_size=1, max_size=8))
def test_random_illegal_actions_are_refused_and_change_nothing(
    config: int, n: int, seed: int, length: int, attempts: list[dict[str, object]]
) -> None:
    rng = random.Random(seed)
    log = new_game(config, n)
    for _ in range(length):
        if log.outcome() is not None:
            break
        log.play(random_action(log, rng))
    for attempt in attempts:
        before = (log.state, log.to_jsonl())
        mover = log.to_move()
        try:
            log.play(attempt)
        except BecherError:
            assert (log.state, log.to_jsonl()) == before
        else:
            assert attempt["player"] == mover, "only the player to move can act"


@PROPS
@given(configs, players, seeds, st.integers(0, 40))
def test_nobody_but_the_player_to_move_can_act(config: int, n: int, seed: int, length: int) -> None:
    rng = random.Random(seed)
    log = new_game(config, n)
    for _ in range(length):
        if log.outcome() is not None:
            break
        log.play(random_action(log, rng))
    if log.outcome() is not None:
        return
    legal = random_action(log, rng)
    before = log.state
    for other in range(n):
        if other != log.to_move():
            try:
                log.play({**legal, "player": other})
            except BecherError:
                pass
            else:  # pragma: no cover - a failure
                raise AssertionError(f"player {other} acted out of turn")
            assert log.state == before
