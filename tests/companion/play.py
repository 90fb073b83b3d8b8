"""Small helpers to drive round-based games in tests by seat and dice."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence

from companion.core import GameLog


def throw(log: GameLog, player: int, dice: Sequence[int | str], held: Sequence[int] = ()) -> None:
    log.play({"type": "throw", "player": player, "dice": list(dice), "held": list(held)})


def stand(log: GameLog, player: int) -> None:
    log.play({"type": "stand", "player": player})


def hand(log: GameLog, player: int, dice: Sequence[int | str]) -> None:
    """One throw, then stand (unless the throw limit already locked the hand in)."""
    throw(log, player, dice)
    turn = log.state.turn
    if turn is not None and turn.player == player and turn.throws > 0:
        stand(log, player)


def hands(log: GameLog, played: Iterable[tuple[int, Sequence[int | str]]]) -> None:
    for player, dice in played:
        hand(log, player, dice)


# --------------------------------------------------------------------------- random legal play


def _all_hands() -> list[tuple[int, ...]]:
    return [tuple(d) for d in itertools.combinations_with_replacement(range(1, 7), 5)]


def random_action(log: GameLog, rng: random.Random) -> dict[str, object]:
    """One legal action for the game's current state, chosen at random from its options."""
    options = log.options()
    if not options:
        raise ValueError("the game is over")
    option = rng.choice(options)
    detail = dict(option.detail)
    action: dict[str, object] = {"type": detail["type"], "player": detail["player"]}
    needs = detail.get("needs", [])
    if action["type"] == "throw":
        turn = log.state.turn
        dice = [rng.randint(1, 6) for _ in range(5)]
        if "held" in needs:
            must = set(detail.get("must_hold", []))
            held = sorted(must | {p for p in range(5) if rng.random() < 0.4})
            if len(held) == 5:
                held = sorted(must) if len(must) < 5 else held[:4]
            for p in held:
                dice[p] = turn.dice[p]
            action["held"] = held
        action["dice"] = dice
    elif action["type"] == "announce":
        beat = detail.get("must_beat")
        candidates = _all_hands()
        if beat is not None:
            key = list(beat["key"])
            candidates = [d for d in candidates if log.rules.hand(d, log.setup)["key"] > key]
        action["dice"] = list(rng.choice(candidates))
    elif action["type"] == "reveal":
        action["dice"] = [rng.randint(1, 6) for _ in range(5)]
    elif action["type"] == "rethrow":
        action["count"] = rng.randint(1, 5)
    return action


def random_game(log: GameLog, rng: random.Random, limit: int = 2000) -> GameLog:
    """Play random legal actions until the game ends (or ``limit`` actions)."""
    for _ in range(limit):
        if log.outcome() is not None:
            break
        log.play(random_action(log, rng))
    return log
