"""Würfel Poker, the two-player board game with 18 dice (RULES.md ``board``; docs/games/board.md).

The match is a sequence of games; a game is the ordered list of its throws and placements. Everything
else (whose step it is, the board, row results, scores) is derived from that list, so the state stays
small, immutable and easy to fold. The placement order is kept because identical row sides are decided
by it (rule 4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from companion.board_hands import ROW_DICE, RowHand, compare_reason, rank_row
from companion.core import DICE_SETTING, Action, Option, Outcome, Rules, Setting, Setup, Standing, places, register
from companion.dice import DiceKind, face_label, parse_die
from companion.english import count
from companion.errors import N_, IllegalAction, MalformedInput

__all__ = [
    "BoardRules",
    "BoardState",
    "ChooseStarter",
    "Game",
    "Place",
    "Placement",
    "RollOff",
    "RowResult",
    "Throw",
]

ROWS = 3
SIDES = 2
THROW_DICE = 3
DICE_PER_GAME = ROWS * SIDES * ROW_DICE  # 18
THROWS_PER_GAME = DICE_PER_GAME // THROW_DICE  # 6
SIDE_NAMES = ("left", "right")

TIE_THIRD = "third"
TIE_FIRST = "first"


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class RollOff(Action):
    """One player's single die for deciding who starts the first game (rule 1)."""

    kind = "roll_off"
    dice: tuple[int, ...]


@dataclass(frozen=True)
class ChooseStarter(Action):
    """The players agree instead that ``player`` starts the first game."""

    kind = "choose_starter"


@dataclass(frozen=True)
class Throw(Action):
    """The thrower's three dice of a turn, in the order they are listed (positions 0, 1, 2)."""

    kind = "throw"
    dice: tuple[int, ...]


@dataclass(frozen=True)
class Place(Action):
    """Put one die of the current throw on a free field.

    The die is named by ``die`` (its position 0-2 in the throw) or ``value`` (rank 1-6, or a printed
    face), or both (then they must agree). ``slot`` (0-2) defaults to the leftmost free field of the
    row side; ``side`` (0 = left = seat 0, 1 = right = seat 1) defaults to the player's own side.
    """

    kind = "place"
    row: int
    die: int | None = None
    value: int | None = None
    slot: int | None = None
    side: int | None = None


# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class Placement:
    """One die on the board. ``order`` is 1..18 within the game and decides identical sides."""

    order: int
    player: int
    die: int
    value: int
    row: int
    slot: int
    side: int
    action: int | None = field(default=None, compare=False)  # log index of the throw the die came from

    def to_json(self) -> dict[str, int]:
        return {
            "order": self.order,
            "by": self.player,
            "die": self.die,
            "value": self.value,
            "row": self.row,
            "slot": self.slot,
            "side": self.side,
        }


@dataclass(frozen=True)
class Game:
    """One game of the match: who started it, its throws and its placements in order."""

    number: int
    starter: int
    throws: tuple[tuple[int, ...], ...] = ()
    placements: tuple[Placement, ...] = ()
    thrown_at: tuple[int, ...] = field(default=(), compare=False)  # log index of each throw

    @property
    def complete(self) -> bool:
        return len(self.placements) == DICE_PER_GAME

    def thrower_of(self, index: int) -> int:
        """Throwers alternate, the game's starter first (rule 2)."""
        return self.starter if index % 2 == 0 else 1 - self.starter

    @property
    def placing(self) -> bool:
        """True while dice of the current throw wait to be placed."""
        return len(self.placements) < THROW_DICE * len(self.throws)

    @property
    def current_throw(self) -> tuple[int, ...]:
        return self.throws[-1] if self.throws else ()

    @property
    def placed_positions(self) -> tuple[int, ...]:
        """Positions of the current throw already placed."""
        if not self.throws:
            return ()
        return tuple(p.die for p in self.placements[THROW_DICE * (len(self.throws) - 1) :])

    def placer(self) -> int:
        """Who places next within a throw: thrower, opponent, thrower."""
        thrower = self.thrower_of(len(self.throws) - 1)
        step = len(self.placements) - THROW_DICE * (len(self.throws) - 1)
        return 1 - thrower if step == 1 else thrower

    def field(self, row: int, side: int, slot: int) -> Placement | None:
        for p in self.placements:
            if (p.row, p.side, p.slot) == (row, side, slot):
                return p
        return None

    def side_placements(self, row: int, side: int) -> list[Placement]:
        """The dice on one row side, in the order they were placed."""
        return [p for p in self.placements if p.row == row and p.side == side]

    def free_slots(self, row: int, side: int) -> list[int]:
        taken = {p.slot for p in self.side_placements(row, side)}
        return [s for s in range(ROW_DICE) if s not in taken]


@dataclass(frozen=True)
class BoardState:
    """The whole match. ``roll_offs`` keeps each round of single dice (seat 0, seat 1; None until thrown)."""

    players: tuple[str, ...]
    kind: DiceKind
    tie_break: str
    either_side: bool
    target: int
    roll_offs: tuple[tuple[int | None, int | None], ...] = ()
    first_starter: int | None = None
    chosen: bool = False
    games: tuple[Game, ...] = ()
    played: int = field(default=0, compare=False)  # actions applied so far: the log index of the next one


@dataclass(frozen=True)
class RowResult:
    """A finished row: both sides' hands, the winning side (= seat) and why."""

    row: int
    hands: tuple[RowHand, RowHand]
    winner: int
    reason: str  # "category", "higher" or "placement"
    because: str

    def to_json(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "hands": [h.to_json() for h in self.hands],
            "winner": self.winner,
            "reason": self.reason,
            "because": self.because,
        }


# --------------------------------------------------------------------------- pure helpers


def row_result(game: Game, row: int, tie_break: str, kind: DiceKind = DiceKind.PIP) -> RowResult | None:
    """The result of one row once both its sides are full; None before."""
    sides = [game.side_placements(row, s) for s in range(SIDES)]
    if any(len(s) < ROW_DICE for s in sides):
        return None
    h0, h1 = (rank_row([p.value for p in s], kind) for s in sides)
    if h0 != h1:
        winner = 0 if h0 > h1 else 1
        reason, because = compare_reason((h0, h1)[winner], (h1, h0)[winner])
        return RowResult(row, (h0, h1), winner, reason, because)
    pick = -1 if tie_break == TIE_THIRD else 0
    orders = [s[pick].order for s in sides]
    winner = 0 if orders[0] < orders[1] else 1
    which = "third" if tie_break == TIE_THIRD else "first"
    because = (
        f"identical sides: the {which} die on the {SIDE_NAMES[winner]} was placed first "
        f"(placement {orders[winner]} before {orders[1 - winner]})"
    )
    return RowResult(row, (h0, h1), winner, "placement", because)


def game_results(game: Game, tie_break: str, kind: DiceKind = DiceKind.PIP) -> list[RowResult]:
    return [r for r in (row_result(game, row, tie_break, kind) for row in range(ROWS)) if r is not None]


def game_score(game: Game, tie_break: str) -> tuple[int, int] | None:
    """Rows won by seat 0 and seat 1 once the board is full (3:0 or 2:1, rule 4)."""
    if not game.complete:
        return None
    won = [0, 0]
    for result in game_results(game, tie_break):
        won[result.winner] += 1
    return won[0], won[1]


def match_points(state: BoardState) -> tuple[int, int]:
    totals = [0, 0]
    for game in state.games:
        score = game_score(game, state.tie_break)
        if score is not None:
            totals[0] += score[0]
            totals[1] += score[1]
    return totals[0], totals[1]


def match_winner(state: BoardState) -> int | None:
    """Rule 5: the first player with the target in total after a game (equal totals at the target play on)."""
    if not state.games or not state.games[-1].complete:
        return None
    p0, p1 = match_points(state)
    if max(p0, p1) < state.target or p0 == p1:
        return None
    return 0 if p0 > p1 else 1


def game_winner(game: Game, tie_break: str) -> int | None:
    score = game_score(game, tie_break)
    if score is None:
        return None
    return 0 if score[0] > score[1] else 1


def phase(state: BoardState) -> str:
    """``start``, ``throw``, ``place`` or ``over``."""
    if state.first_starter is None:
        return "start"
    game = state.games[-1]
    if game.complete:
        return "over" if match_winner(state) is not None else "throw"
    return "place" if game.placing else "throw"


def next_thrower(state: BoardState) -> int:
    game = state.games[-1]
    if game.complete:
        winner = game_winner(game, state.tie_break)
        assert winner is not None
        return 1 - winner  # rule 5: the loser of a game starts the next
    return game.thrower_of(len(game.throws))


# --------------------------------------------------------------------------- the rules


class BoardRules(Rules[BoardState]):
    id = "board"
    name_en = N_("Würfel Poker (board game)")
    name_de = "Würfel Poker (Brettspiel)"
    readings_en = (
        N_(
            'The rule text\'s example "6-2-1 beats 5-4-3" contradicts its own ranking, since 5-4-3 is a straight; the '
            "ranking is followed, and a straight beats any single."
        ),
        N_("A straight is three consecutive values in any order, without wrap: 6-1-2 is a single."),
        N_(
            "Identical sides: the side whose third die was placed first wins (a setting makes it the first die); the "
            "side counts, not who placed the dice."
        ),
        N_(
            "With dice on either side, a die on the other side belongs to that side's hand and its point to that "
            "side's "
            "owner."
        ),
        N_(
            "The loser of a game throws first in the next; the match ends after the game in which a player reaches the "
            "points to win."
        ),
        N_("Who starts: one die each, in any order; a tie throws again, or the players agree."),
    )
    readings_de = (
        'Das Beispiel des Regeltexts "6-2-1 schlägt 5-4-3" widerspricht seiner eigenen Rangfolge, denn 5-4-3 ist '
        "eine Straße; es gilt die Rangfolge, und eine Straße schlägt jeden Einzelwert.",
        "Eine Straße sind drei aufeinanderfolgende Werte in beliebiger Reihenfolge, ohne Übergang: 6-1-2 ist keine.",
        "Gleiche Seiten: es gewinnt die Seite, deren dritter Würfel zuerst gesetzt wurde (eine Einstellung macht es "
        "zum ersten Würfel); es zählt die Seite, nicht wer setzte.",
        "Mit Würfeln auf beiden Seiten gehört ein Würfel auf der anderen Seite zur Hand dieser Seite und ihr Punkt "
        "deren Besitzer.",
        "Wer ein Spiel verliert, wirft im nächsten zuerst; das Match endet nach dem Spiel, in dem jemand die nötigen "
        "Punkte erreicht.",
        "Wer beginnt: je ein Würfel, in beliebiger Reihenfolge; bei Gleichstand wird neu geworfen, oder man einigt "
        "sich.",
    )
    min_players = 2
    max_players = 2
    settings = (
        Setting(
            "tie_break",
            TIE_THIRD,
            "Identical row sides: the side whose third die was placed first wins (third), "
            "or the side whose first die was placed first (first).",
            "Gleiche Reihenseiten: Es gewinnt die Seite, deren dritter Würfel zuerst lag (third), "
            "oder die, deren erster Würfel zuerst lag (first).",
            choices=(TIE_THIRD, TIE_FIRST),
        ),
        Setting(
            "either_side",
            False,
            "Variant: dice may be placed on either side of the board.",
            "Variante: Würfel dürfen auf beide Seiten des Bretts gesetzt werden.",
        ),
        Setting(
            "points_to_win",
            5,
            "Games are played until a player has this many points in total.",
            "Es wird gespielt, bis jemand insgesamt so viele Punkte hat.",
            minimum=1,
            maximum=99,
        ),
        DICE_SETTING,
    )
    actions = (RollOff, ChooseStarter, Throw, Place)

    # -- setup
    def new(self, setup: Setup) -> BoardState:
        return BoardState(
            players=setup.players,
            kind=setup.dice_kind,
            tie_break=str(setup.get("tie_break")),
            either_side=bool(setup.get("either_side")),
            target=int(setup.get("points_to_win")),
        )

    def parse_action(self, obj: Mapping[str, object], setup: Setup) -> Action:
        """A ``value`` may be given as a printed face (``"K"``); turn it into its rank before the generic parse."""
        if isinstance(obj, Mapping) and obj.get("type") == Place.kind and isinstance(obj.get("value"), str):
            obj = {**obj, "value": parse_die(obj["value"], setup.dice_kind)}
        return super().parse_action(obj, setup)

    # -- verify
    def verify(self, state: BoardState, action: Action) -> None:
        # Actions built in code skip the JSON checks: a bool or a str here would be accepted but never replay.
        if isinstance(action.player, bool) or not isinstance(action.player, int) or not 0 <= action.player < SIDES:
            raise MalformedInput(
                "There is no player {player} in this game; the seats are 0 and 1.", player=action.player
            )
        step = phase(state)
        if step == "over":
            raise IllegalAction("The match is over.")
        if isinstance(action, (RollOff, ChooseStarter)):
            if step != "start":
                raise IllegalAction("The starter of the match is already decided.")
            if isinstance(action, RollOff):
                self._verify_roll_off(state, action)
            return
        if step == "start":
            raise IllegalAction("First decide who starts: each player throws one die (roll_off), or choose_starter.")
        if isinstance(action, Throw):
            self._verify_throw(state, action, step)
        elif isinstance(action, Place):
            self._verify_place(state, action, step)
        else:  # pragma: no cover - GameLog refuses foreign actions before this
            raise MalformedInput("{name_en} has no action '{kind}'.", name_en=self.title(), kind=action.kind)

    def _verify_roll_off(self, state: BoardState, action: RollOff) -> None:
        if len(action.dice) != 1:
            raise MalformedInput("Deciding the starter takes one die per player, not {count}.", count=len(action.dice))
        parse_die(action.dice[0])
        current = state.roll_offs[-1] if state.roll_offs and None in state.roll_offs[-1] else (None, None)
        if current[action.player] is not None:
            names = state.players
            raise IllegalAction(
                "{player} has already thrown; now {player2} throws one die.",
                player=names[action.player],
                player2=names[1 - action.player],
            )

    def _verify_throw(self, state: BoardState, action: Throw, step: str) -> None:
        if len(action.dice) != THROW_DICE:
            raise MalformedInput(
                "A throw in this game has {THROW_DICE} dice, not {count}.",
                THROW_DICE=THROW_DICE,
                count=len(action.dice),
            )
        for v in action.dice:
            parse_die(v)
        if step != "throw":
            raise IllegalAction("Place the dice of the current throw first.")
        thrower = next_thrower(state)
        if action.player != thrower:
            names = state.players
            raise IllegalAction(
                "It is {player}'s turn to throw, not {player2}'s.", player=names[thrower], player2=names[action.player]
            )

    def _verify_place(self, state: BoardState, action: Place, step: str) -> None:
        for name in ("row", "die", "value", "slot", "side"):
            value = getattr(action, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise MalformedInput(
                    "Field '{name}' of a placement must be a whole number, not {value}.", name=name, value=repr(value)
                )
        if not 0 <= action.row < ROWS:
            raise MalformedInput("The rows are 0 to {number}, not {row}.", number=ROWS - 1, row=action.row)
        if action.slot is not None and not 0 <= action.slot < ROW_DICE:
            raise MalformedInput(
                "The fields of a row side are 0 to {number}, not {slot}.", number=ROW_DICE - 1, slot=action.slot
            )
        if action.side is not None and not 0 <= action.side < SIDES:
            raise MalformedInput("The sides are 0 (left) and 1 (right), not {side}.", side=action.side)
        if action.die is not None and not 0 <= action.die < THROW_DICE:
            raise MalformedInput(
                "A die of the throw is named by position 0 to {number}, not {die}.",
                number=THROW_DICE - 1,
                die=action.die,
            )
        if action.value is not None:
            parse_die(action.value)
        if action.die is None and action.value is None:
            raise MalformedInput("Name the die to place by its position ('die') or its value ('value').")
        if step != "place":
            raise IllegalAction("Nothing to place: the next step is a throw.")
        game = state.games[-1]
        placer = game.placer()
        if action.player != placer:
            names = state.players
            raise IllegalAction(
                "It is {player}'s turn to place a die, not {player2}'s.",
                player=names[placer],
                player2=names[action.player],
            )
        self._resolve_die(state.kind, game, action)
        side = action.player if action.side is None else action.side
        if side != action.player and not state.either_side:
            raise IllegalAction(
                (
                    N_("{player} places on the left side only (the either-side variant is off)."),
                    N_("{player} places on the right side only (the either-side variant is off)."),
                )[action.player],
                player=state.players[action.player],
            )
        # People count rows, fields and dice from 1 (as the option labels do); JSON counts from 0.
        if action.slot is None:
            if not game.free_slots(action.row, side):
                raise IllegalAction(
                    (N_("Row {row} on the left side is full."), N_("Row {row} on the right side is full."))[side],
                    row=action.row + 1,
                )
        elif game.field(action.row, side, action.slot) is not None:
            raise IllegalAction(
                (
                    N_("Field {field} of row {row} on the left side is taken."),
                    N_("Field {field} of row {row} on the right side is taken."),
                )[side],
                field=action.slot + 1,
                row=action.row + 1,
            )

    @staticmethod
    def _resolve_die(kind: DiceKind, game: Game, action: Place) -> int:
        """The throw position the action means; refuses a die not in the throw or already placed."""
        throw = game.current_throw
        placed = game.placed_positions
        if action.die is not None:
            if action.die in placed:
                shown = face_label(throw[action.die], kind)
                raise IllegalAction(
                    "Die {number} of this throw ({shown}) is already placed.", number=action.die + 1, shown=shown
                )
            if action.value is not None and throw[action.die] != action.value:
                raise IllegalAction(
                    "Die {number} of this throw shows {face}, not {face2}.",
                    number=action.die + 1,
                    face=face_label(throw[action.die], kind),
                    face2=face_label(action.value, kind),
                )
            return action.die
        assert action.value is not None
        left = [i for i, v in enumerate(throw) if v == action.value and i not in placed]
        if not left:
            shown = " ".join(face_label(throw[i], kind) for i in range(THROW_DICE) if i not in placed)
            raise IllegalAction(
                "No {face} is left in this throw; left: {shown}.", face=face_label(action.value, kind), shown=shown
            )
        return left[0]

    # -- apply
    def apply(self, state: BoardState, action: Action) -> BoardState:
        index = state.played
        state = replace(state, played=index + 1)
        if isinstance(action, RollOff):
            return self._apply_roll_off(state, action)
        if isinstance(action, ChooseStarter):
            return replace(state, first_starter=action.player, chosen=True, games=(Game(1, action.player),))
        if isinstance(action, Throw):
            games = state.games
            if games[-1].complete:
                games = (*games, Game(games[-1].number + 1, next_thrower(state)))
            game = games[-1]
            game = replace(game, throws=(*game.throws, action.dice), thrown_at=(*game.thrown_at, index))
            return replace(state, games=(*games[:-1], game))
        if isinstance(action, Place):
            game = state.games[-1]
            die = self._resolve_die(state.kind, game, action)
            side = action.player if action.side is None else action.side
            slot = action.slot if action.slot is not None else game.free_slots(action.row, side)[0]
            thrown = game.thrown_at[-1] if game.thrown_at else None
            placement = Placement(
                len(game.placements) + 1, action.player, die, game.current_throw[die], action.row, slot, side, thrown
            )
            return replace(state, games=(*state.games[:-1], replace(game, placements=(*game.placements, placement))))
        raise MalformedInput(
            "{name_en} has no action '{kind}'.", name_en=self.title(), kind=action.kind
        )  # pragma: no cover

    @staticmethod
    def _apply_roll_off(state: BoardState, action: RollOff) -> BoardState:
        open_round = bool(state.roll_offs) and None in state.roll_offs[-1]
        a, b = state.roll_offs[-1] if open_round else (None, None)
        if action.player == 0:
            a = action.dice[0]
        else:
            b = action.dice[0]
        rounds = (*state.roll_offs[:-1], (a, b)) if open_round else (*state.roll_offs, (a, b))
        new = replace(state, roll_offs=rounds)
        if a is None or b is None or a == b:
            return new  # still waiting, or a tie: both throw again
        starter = 0 if a > b else 1
        return replace(new, first_starter=starter, games=(Game(1, starter),))

    # -- answers
    def to_move(self, state: BoardState) -> int | None:
        step = phase(state)
        if step == "over":
            return None
        if step == "start":
            open_round = state.roll_offs[-1] if state.roll_offs and None in state.roll_offs[-1] else (None, None)
            return 0 if open_round[0] is None else 1
        if step == "throw":
            return next_thrower(state)
        return state.games[-1].placer()

    def options(self, state: BoardState) -> list[Option]:
        step = phase(state)
        if step == "over":
            return []
        if step == "start":
            open_round = state.roll_offs[-1] if state.roll_offs and None in state.roll_offs[-1] else (None, None)
            out = [
                Option("roll_off", seat, "Throw one die to decide who starts", detail={"dice_count": 1})
                for seat in range(SIDES)
                if open_round[seat] is None
            ]
            out.extend(
                Option("choose_starter", seat, f"{state.players[seat]} starts (by choice)") for seat in range(SIDES)
            )
            return out
        if step == "throw":
            return [Option("throw", next_thrower(state), "Throw three dice", detail={"dice_count": THROW_DICE})]
        return self._place_options(state)

    def _place_options(self, state: BoardState) -> list[Option]:
        """Every distinct die left x every free field it may go to, with what that row side would become."""
        game = state.games[-1]
        player = game.placer()
        throw = game.current_throw
        placed = game.placed_positions
        seen: set[int] = set()
        dice: list[int] = []
        for i, v in enumerate(throw):
            if i not in placed and v not in seen:
                seen.add(v)
                dice.append(i)
        sides = range(SIDES) if state.either_side else (player,)
        out: list[Option] = []
        for die in dice:
            value = throw[die]
            face = face_label(value, state.kind)
            for side in sides:
                for row in range(ROWS):
                    before = [p.value for p in game.side_placements(row, side)]
                    slots = game.free_slots(row, side)
                    if not slots:
                        continue
                    made = rank_row([*before, value], state.kind)
                    other = rank_row([p.value for p in game.side_placements(row, 1 - side)], state.kind)
                    probe = replace(
                        game,
                        placements=(
                            *game.placements,
                            Placement(len(game.placements) + 1, player, die, value, row, slots[0], side),
                        ),
                    )
                    result = row_result(probe, row, state.tie_break, state.kind)
                    for slot in slots:
                        out.append(
                            Option(
                                "place",
                                player,
                                f"{face} to row {row + 1}, field {slot + 1} ({SIDE_NAMES[side]}): {made.text_en()}",
                                detail={
                                    "die": die,
                                    "value": value,
                                    "face": face,
                                    "row": row,
                                    "slot": slot,
                                    "side": side,
                                    "makes": made.to_json(),
                                    "opponent_side": other.to_json(),
                                    "row_result": result.to_json() if result else None,
                                },
                            )
                        )
        return out

    def standings(self, state: BoardState) -> list[Standing]:
        points = match_points(state)
        ranks = places([(seat, points[seat]) for seat in range(SIDES)])
        won = [0, 0]
        for game in state.games:
            winner = game_winner(game, state.tie_break)
            if winner is not None:
                won[winner] += 1
        lines = [
            Standing(seat, state.players[seat], ranks[seat], points[seat], {"games_won": won[seat]})
            for seat in range(SIDES)
        ]
        return sorted(lines, key=lambda s: (s.place, s.player))

    def outcome(self, state: BoardState) -> Outcome | None:
        winner = match_winner(state)
        if winner is None:
            return None
        p = match_points(state)
        games = len(state.games)
        return Outcome(
            (winner,),
            f"{state.players[winner]} reached {count(state.target, 'point')}: {p[winner]}:{p[1 - winner]}"
            f" after {count(games, 'game')}.",
        )

    def view(self, state: BoardState) -> dict[str, Any]:
        step = phase(state)
        kind = state.kind
        game = state.games[-1] if state.games else None
        rows: list[dict[str, Any]] = []
        for row in range(ROWS):
            sides: list[dict[str, Any]] = []
            for side in range(SIDES):
                fields: list[dict[str, Any] | None] = []
                for slot in range(ROW_DICE):
                    p = game.field(row, side, slot) if game else None
                    fields.append(
                        None if p is None else {**p.to_json(), "face": face_label(p.value, kind), "action": p.action}
                    )
                values = [p.value for p in game.side_placements(row, side)] if game else []
                sides.append(
                    {
                        "side": side,
                        "fields": fields,
                        "order": [p.order for p in game.side_placements(row, side)] if game else [],
                        "hand": rank_row(values, kind).to_json() if values else None,
                    }
                )
            result = row_result(game, row, state.tie_break, kind) if game else None
            rows.append({"row": row, "sides": sides, "result": result.to_json() if result else None})
        throw: dict[str, Any] | None = None
        if game is not None and game.throws and not game.complete:
            placed = game.placed_positions
            throw = {
                "number": len(game.throws),
                "thrower": game.thrower_of(len(game.throws) - 1),
                "dice": list(game.current_throw),
                "faces": [face_label(v, kind) for v in game.current_throw],
                "placed": [i in placed for i in range(THROW_DICE)],
                "left": [i for i in range(THROW_DICE) if i not in placed],
                "action": game.thrown_at[-1] if game.thrown_at else None,
            }
        games = []
        for g in state.games:
            score = game_score(g, state.tie_break)
            games.append(
                {
                    "number": g.number,
                    "starter": g.starter,
                    "complete": g.complete,
                    "score": list(score) if score else None,
                    "winner": game_winner(g, state.tie_break),
                }
            )
        return {
            "phase": step,
            "to_move": self.to_move(state),
            "starter": state.first_starter,
            "starter_by": None if state.first_starter is None else ("choice" if state.chosen else "roll_off"),
            "roll_offs": [list(r) for r in state.roll_offs],
            "game": None if game is None else game.number,
            "game_starter": None if game is None else game.starter,
            "next_game_starter": next_thrower(state) if game is not None and game.complete and step != "over" else None,
            "rows": rows,
            "throw": throw,
            "placements": [{**p.to_json(), "action": p.action} for p in game.placements] if game else [],
            "games": games,
            "points": list(match_points(state)),
            "target": state.target,
            "winner": match_winner(state),
            "tie_break": state.tie_break,
            "either_side": state.either_side,
        }

    def hand(self, dice: Sequence[int], setup: Setup, all_five: bool = False) -> dict[str, Any]:
        if len(dice) != ROW_DICE:
            raise MalformedInput("The board game ranks three dice (one row side), not {count}.", count=len(dice))
        if all_five:
            raise MalformedInput("The board game has no 'all five' throws; it ranks three dice.")
        return rank_row(list(dice), setup.dice_kind).to_json()


register(BoardRules())
