"""One player's turn of up to N throws of five dice with holds, shared by every five-dice game.

A throw is recorded as the five dice on the table after it plus the positions that were held
(not thrown). Recording whole throws (not only the rethrown dice) lets a camera reading or a
manual entry be checked against what was held, and tells the sheet game whether all five dice
were thrown at once (``all_five``), which decides doubling.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.core import Action
from companion.errors import N_, IllegalAction, MalformedInput

__all__ = ["DICE", "Stand", "Throw", "Turn"]

DICE = 5


@dataclass(frozen=True)
class Throw(Action):
    """The five dice after a throw; ``held`` lists positions (0-4) kept from the previous throw."""

    kind = "throw"
    dice: tuple[int, ...]
    held: tuple[int, ...] = ()


@dataclass(frozen=True)
class Stand(Action):
    """The player stops throwing; the hand is locked in."""

    kind = "stand"


@dataclass(frozen=True)
class Turn:
    """The dice of the turn so far. ``fixed`` are positions set aside for good (house rule: held dice are fixed)."""

    player: int
    dice: tuple[int, ...] = ()
    throws: int = 0
    held: tuple[int, ...] = ()
    all_five: bool = False
    stood: bool = False
    fixed: tuple[int, ...] = ()

    @property
    def started(self) -> bool:
        return self.throws > 0

    def verify_throw(self, action: Throw, max_throws: int, held_are_fixed: bool = False) -> None:
        """Raise unless ``action`` may be this turn's next throw."""
        if len(action.dice) != DICE:
            raise MalformedInput("A throw has {DICE} dice, not {count}.", DICE=DICE, count=len(action.dice))
        if self.stood:
            raise IllegalAction("This player has already stood; the hand is locked in.")
        if self.throws >= max_throws:
            raise IllegalAction(
                N_("This turn allows 1 throw; all are used.")
                if max_throws == 1
                else N_("This turn allows {max_throws} throws; all are used."),
                max_throws=max_throws,
            )
        held = action.held
        if len(set(held)) != len(held) or any(not 0 <= p < DICE for p in held):
            raise MalformedInput("Held dice are positions 0 to 4, each at most once.")
        if not self.started:
            if held:
                raise IllegalAction("The first throw of a turn throws all five dice; nothing can be held yet.")
            return
        if len(held) == DICE:
            raise IllegalAction("A rethrow must throw at least one die; to keep all five, stand.")
        for p in held:
            if action.dice[p] != self.dice[p]:
                raise IllegalAction(
                    "Die {number} was held at {value} and cannot show {value2} after the throw.",
                    number=p + 1,
                    value=self.dice[p],
                    value2=action.dice[p],
                )
        if held_are_fixed:
            missing = [p + 1 for p in self.fixed if p not in held]
            if missing:
                raise IllegalAction(
                    "Held dice are fixed in this game: die {missing} must stay aside.", missing=missing[0]
                )

    def after_throw(self, action: Throw, held_are_fixed: bool = False) -> Turn:
        fixed = tuple(sorted(set(self.fixed) | set(action.held))) if held_are_fixed else ()
        return Turn(
            player=self.player,
            dice=action.dice,
            throws=self.throws + 1,
            held=tuple(sorted(action.held)),
            all_five=not action.held,
            stood=False,
            fixed=fixed,
        )

    def verify_stand(self) -> None:
        if not self.started:
            raise IllegalAction("Throw the dice before standing.")
        if self.stood:
            raise IllegalAction("This player has already stood.")

    def after_stand(self) -> Turn:
        return Turn(self.player, self.dice, self.throws, self.held, self.all_five, True, self.fixed)
