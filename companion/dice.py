"""Dice as validated values.

Internally a die is its rank 1..6. Pip dice print that rank; poker dice print card ranks
9 10 J Q K A (rank 1..6). The printed face only matters at the edges (input, display), so the
rules never see strings. Input accepts ints (ranks) and printed faces, including the German and
French court letters (B/V = J, D = Q, R = K) because that is what is printed on many sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum

from companion.errors import MalformedInput

__all__ = [
    "PIP_FACES",
    "POKER_FACES",
    "DiceKind",
    "face_label",
    "faces",
    "parse_dice",
    "parse_die",
    "parse_kind",
]


class DiceKind(StrEnum):
    PIP = "pip"
    POKER = "poker"


PIP_FACES: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")
POKER_FACES: tuple[str, ...] = ("9", "10", "J", "Q", "K", "A")

# Printed letters of other languages (see guide/POKER-DICE.md), case-insensitive.
_POKER_ALIASES: dict[str, int] = {
    "9": 1,
    "10": 2,
    "T": 2,
    "J": 3,
    "B": 3,
    "V": 3,
    "Q": 4,
    "D": 4,
    "K": 5,
    "R": 5,
    "A": 6,
    "AS": 6,
}


def parse_kind(value: object) -> DiceKind:
    """Parse ``"pip"``/``"poker"``; anything else is refused by name."""
    try:
        return DiceKind(str(value))
    except ValueError:
        raise MalformedInput("Unknown dice kind {value}: use 'pip' or 'poker'.", value=repr(value)) from None


def face_label(rank: int, kind: DiceKind = DiceKind.PIP) -> str:
    """The face printed on a die of this kind with this rank."""
    if not 1 <= rank <= 6:
        raise MalformedInput("A die has ranks 1 to 6, not {rank}.", rank=rank)
    return (PIP_FACES if kind is DiceKind.PIP else POKER_FACES)[rank - 1]


def faces(ranks: Iterable[int], kind: DiceKind = DiceKind.PIP) -> list[str]:
    return [face_label(r, kind) for r in ranks]


def parse_die(token: object, kind: DiceKind | None = None) -> int:
    """One die from an int rank or a printed face.

    ``kind`` is the kind of dice the game is played with; a printed face of the other kind is
    refused (a ``"K"`` in a pip game, a ``"5"`` in a poker game). Ints are ranks and fit both.
    """
    if isinstance(token, bool):
        raise MalformedInput("{token} is not a die.", token=repr(token))
    if isinstance(token, int):
        if 1 <= token <= 6:
            return token
        raise MalformedInput("There is no die face {token}: a die shows 1 to 6.", token=token)
    if not isinstance(token, str):
        raise MalformedInput("{token} is not a die face.", token=repr(token))
    text = token.strip().upper()
    if text in PIP_FACES:
        if kind is DiceKind.POKER:
            raise MalformedInput("'{token}' is a pip face; this game uses poker dice (9 10 J Q K A).", token=token)
        return int(text)
    if text in _POKER_ALIASES:
        if kind is DiceKind.PIP:
            raise MalformedInput("'{token}' is a poker-dice face; this game uses pip dice (1 to 6).", token=token)
        return _POKER_ALIASES[text]
    raise MalformedInput("There is no die face '{token}': use 1 to 6, or 9 10 J Q K A for poker dice.", token=token)


def parse_dice(
    tokens: Sequence[object] | object,
    kind: DiceKind | None = None,
    count: int | None = None,
) -> tuple[int, ...]:
    """Several dice; ``count`` (when given) is the exact number the throw must have."""
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, Sequence):
        raise MalformedInput("Dice must be a list of faces.")
    if count is not None and len(tokens) != count:
        raise MalformedInput("This throw needs {count} dice, not {count2}.", count=count, count2=len(tokens))
    return tuple(parse_die(t, kind) for t in tokens)
