"""Small helpers to drive round-based games in tests by seat and dice."""

from __future__ import annotations

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
