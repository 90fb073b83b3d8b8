"""Würfelpoker on a score sheet (game ``sheet``): Schule, reserve, doubling, strikes and first-come bonuses.

Rule text: guide/rule-texts/002_58aaa060bb3d701d.txt; RULES.md section ``sheet`` settles the open points.
The sheet has its own state shape (not the round-based mould): per player a grid of rows x columns,
written once per field, and one reserve. A turn is up to three :class:`~companion.turns.Throw`
actions, then exactly one :class:`Enter` or :class:`Strike`. A person without a camera can skip the
throws and give the final dice in the ``enter`` action, saying whether they were thrown all at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from companion.core import (
    DICE_SETTING,
    JSON,
    Action,
    Option,
    Outcome,
    Rules,
    Setting,
    Setup,
    Standing,
    places,
    register,
)
from companion.dice import faces
from companion.english import count
from companion.errors import N_, IllegalAction, MalformedInput
from companion.sheet_rows import ROWS, Effect, Result, Row, effect, row_by_id
from companion.turns import DICE, Throw, Turn

__all__ = ["Bonus", "Enter", "Field", "Sheet", "SheetRules", "SheetState", "Strike"]

MAX_THROWS = 3
RULES_PLAYERS = 4
MOST_PLAYERS = 8
ZERO_PENALTY = 200
SCHULE_BONUS_FACTOR = 5

DOUBLING_ALL_FIVE = "all_five"
DOUBLING_FIRST = "first_throw"


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Enter(Action):
    """Write the turn's dice into the leftmost free field of ``row``.

    After recorded throws, ``dice``/``all_five``/``throw`` may be left out (they come from the turn) or
    must agree with it. Without recorded throws they state the throw: the five dice, whether all five
    were thrown at once, and which throw of the turn it was (1-3; it only matters for first-throw doubling).
    """

    kind = "enter"
    row: str
    dice: tuple[int, ...] = ()
    all_five: bool | None = None
    throw: int | None = None


@dataclass(frozen=True)
class Strike(Action):
    """Strike the leftmost free field of a combination row instead of entering: nothing scored, bonuses given up."""

    kind = "strike"
    row: str


# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class Field:
    """One written field. ``reserve`` is the reserve level written into it when this entry changed the reserve.

    ``not_made`` marks a struck field that was an entry of dice not making the combination, as opposed to a
    strike chosen without entering: both score nothing, but the table shows which it was.
    """

    result: Result
    points: int = 0
    doubled: bool = False
    dice: tuple[int, ...] = ()
    all_five: bool = False
    reserve_change: int = 0
    reserve: int | None = None
    entry: int = 0
    not_made: bool = False
    action: int | None = field(default=None, compare=False)  # log index of the throw (or entry) its dice came from

    @property
    def struck(self) -> bool:
        return self.result is Result.STRUCK

    @property
    def zero(self) -> bool:
        return self.result is Result.ZERO


@dataclass(frozen=True)
class Bonus:
    """One bonus of the game: a Schule row, a combination row or a column; it goes to one player at most."""

    id: str
    kind: str
    row: str | None = None
    column: int | None = None

    def label(self) -> str:
        """English name for pages and messages ("column 2", "Full house")."""
        if self.column is not None:
            return f"column {self.column + 1}"
        return row_by_id(self.row or "").label_en


@dataclass(frozen=True)
class Sheet:
    """One player's sheet: ``fields[row][column]`` (None while free) and the reserve."""

    fields: tuple[tuple[Field | None, ...], ...]
    reserve: int = 0

    def free_column(self, row_index: int) -> int | None:
        for column, cell in enumerate(self.fields[row_index]):
            if cell is None:
                return column
        return None

    @property
    def full(self) -> bool:
        return all(cell is not None for line in self.fields for cell in line)

    def cells(self) -> list[Field]:
        return [cell for line in self.fields for cell in line if cell is not None]


@dataclass(frozen=True)
class SheetState:
    """Everything the fold needs: the sheets, the turn in progress, and who won which bonus (closed for all)."""

    setup: Setup
    sheets: tuple[Sheet, ...]
    turn: Turn
    entries: int = 0
    won: tuple[tuple[str, int, int], ...] = ()  # (bonus id, owner, value), in the order they were won
    last_entry_by: int | None = None
    played: int = field(default=0, compare=False)  # actions applied so far: the log index of the next one
    thrown: int | None = field(default=None, compare=False)  # log index of the current turn's last throw

    @property
    def columns(self) -> int:
        return len(self.sheets[0].fields[0])

    def owner(self, bonus_id: str) -> tuple[int, int] | None:
        for bid, owner, value in self.won:
            if bid == bonus_id:
                return owner, value
        return None

    @property
    def finished(self) -> bool:
        return all(sheet.full for sheet in self.sheets)


def bonuses_for(columns: int) -> tuple[Bonus, ...]:
    """Every bonus of a sheet with this many columns, in the order the sheet shows them."""
    rows = tuple(
        Bonus(f"row:{r.id}", "schule_row" if r.is_schule else "combination_row", row=r.id)
        for r in ROWS
        if r.has_row_bonus
    )
    return rows + tuple(Bonus(f"column:{c + 1}", "column", column=c) for c in range(columns))


def _row_index(row: Row) -> int:
    return ROWS.index(row)


def _disqualified(sheet: Sheet, bonus: Bonus) -> bool:
    """True when this sheet can no longer meet the bonus, whoever owns it."""
    if bonus.row is not None:
        row = row_by_id(bonus.row)
        line = sheet.fields[_row_index(row)]
        if row.is_schule:
            return any(c is not None and c.result is not Result.CLOSED for c in line)
        return any(c is not None and c.struck for c in line)
    assert bonus.column is not None
    column = [line[bonus.column] for line in sheet.fields]
    return any(c is not None and (c.struck or c.zero) for c in column)


def _meets(sheet: Sheet, bonus: Bonus) -> int | None:
    """The bonus value when this sheet meets the bonus now, else None."""
    if _disqualified(sheet, bonus):
        return None
    if bonus.row is not None:
        row = row_by_id(bonus.row)
        line = sheet.fields[_row_index(row)]
        if any(c is None for c in line):
            return None
        if row.is_schule:
            return SCHULE_BONUS_FACTOR * row.number
        return max(c.points for c in line if c is not None)
    assert bonus.column is not None
    column = [line[bonus.column] for line in sheet.fields]
    if any(c is None for c in column):
        return None
    scoring = [c.points for r, c in zip(ROWS, column, strict=True) if c is not None and not r.is_schule]
    return max(scoring)


@dataclass(frozen=True)
class Totals:
    fields: int
    bonuses: int
    reserve: int
    zeros: int

    @property
    def total(self) -> int:
        return self.fields + self.bonuses + self.reserve - ZERO_PENALTY * self.zeros

    def to_json(self) -> JSON:
        return {
            "fields": self.fields,
            "bonuses": self.bonuses,
            "reserve": self.reserve,
            "zeros": self.zeros,
            "zero_penalty": -ZERO_PENALTY * self.zeros,
            "total": self.total,
        }


def totals(state: SheetState, player: int) -> Totals:
    sheet = state.sheets[player]
    cells = sheet.cells()
    return Totals(
        fields=sum(c.points for c in cells),
        bonuses=sum(value for _, owner, value in state.won if owner == player),
        reserve=sheet.reserve,
        zeros=sum(1 for c in cells if c.zero),
    )


# --------------------------------------------------------------------------- rules


class SheetRules(Rules[SheetState]):
    id = "sheet"
    name_en = N_("Würfelpoker on a score sheet")
    name_de = "Würfelpoker mit Punktezettel"
    readings_en = (
        N_(
            "Paying from the reserve is not a choice: a Schule entry short of dice pays when the reserve holds enough, "
            "otherwise it is a zero."
        ),
        N_("A Schule entry without a die of its number is a zero, whatever the reserve holds."),
        N_("The Summe can be struck; that gives up its column's bonus."),
        N_("A strike needs no throw."),
        N_(
            "A combination row's bonus is its best field as written (doubled if it was doubled); a column's bonus is "
            "its "
            "best combination or Summe."
        ),
        N_("Turns go round the seats, one entry each, so all sheets fill at the same pace."),
        N_(
            "Every field that changed the reserve holds the new level and older levels are struck through; a reserve "
            "paid down to 0 writes 0."
        ),
    )
    readings_de = (
        "Das Bezahlen aus der Reserve ist keine Wahl: fehlen einer Schule-Eintragung Würfel, zahlt die Reserve, wenn "
        "sie genug hat, sonst gibt es eine Null.",
        "Eine Schule-Eintragung ohne einen Würfel ihrer Zahl ist eine Null, gleich was die Reserve hält.",
        "Die Summe kann gestrichen werden; damit ist der Bonus ihrer Spalte verloren.",
        "Streichen geht auch ohne Wurf.",
        "Der Bonus einer Kombinationszeile ist ihr bestes Feld wie eingetragen (verdoppelt, wenn es verdoppelt war); "
        "der Bonus einer Spalte ist ihre beste Kombination oder Summe.",
        "Die Züge gehen reihum, eine Eintragung je Zug, so füllen sich alle Zettel gleich schnell.",
        "Jedes Feld, das die Reserve geändert hat, trägt ihren neuen Stand, ältere Stände sind durchgestrichen; eine "
        "auf 0 bezahlte Reserve schreibt 0.",
    )
    min_players = 1
    max_players = MOST_PLAYERS
    settings = (
        Setting(
            "columns",
            3,
            "Columns of the sheet; every row is filled left to right.",
            "Spalten des Zettels; jede Zeile wird von links nach rechts gefüllt.",
            minimum=1,
            maximum=6,
        ),
        Setting(
            "doubling",
            DOUBLING_ALL_FIVE,
            "When a combination or the sum doubles: any throw of all five dice at once (the rule text), "
            "or only the first throw of a turn.",
            "Wann eine Kombination oder die Summe doppelt zählt: bei jedem Wurf aller fünf Würfel auf einmal "
            "(Regeltext) oder nur beim ersten Wurf eines Zuges.",
            choices=(DOUBLING_ALL_FIVE, DOUBLING_FIRST),
        ),
        Setting(
            "more_players",
            False,
            "Allow up to 8 players (the rules say 1 to 4).",
            "Bis zu 8 Spieler erlauben (die Regeln sagen 1 bis 4).",
        ),
        DICE_SETTING,
    )
    actions = (Throw, Enter, Strike)

    # -- setup
    def player_range(self, setup: Setup) -> tuple[int, int]:
        return 1, MOST_PLAYERS if setup.get("more_players") else RULES_PLAYERS

    def make_setup(self, players: Sequence[str], settings: Mapping[str, object] | None = None) -> Setup:
        count = len(players)
        if RULES_PLAYERS < count <= MOST_PLAYERS and not (settings or {}).get("more_players"):
            raise MalformedInput(
                "{name_en} is played by 1 to {RULES_PLAYERS} players by the rules; for more, turn on the setting "
                "“Up to {MOST_PLAYERS} players”.",
                name_en=self.title(),
                RULES_PLAYERS=RULES_PLAYERS,
                MOST_PLAYERS=MOST_PLAYERS,
            )
        return super().make_setup(players, settings)

    def new(self, setup: Setup) -> SheetState:
        columns = int(setup.get("columns"))
        empty = Sheet(tuple(tuple(None for _ in range(columns)) for _ in ROWS))
        return SheetState(setup, tuple(empty for _ in setup.players), Turn(0))

    # -- checks
    def verify(self, state: SheetState, action: Action) -> None:
        if state.finished:
            raise IllegalAction("The game is over: every sheet is full.")
        mover = state.turn.player
        if action.player != mover:
            name, now = state.setup.players[action.player], state.setup.players[mover]
            if isinstance(action, (Enter, Strike)) and state.last_entry_by == action.player:
                raise IllegalAction(
                    "{name} has already made this turn's entry; it is {now}'s turn now.", name=name, now=now
                )
            raise IllegalAction("It is {now}'s turn, not {name}'s.", now=now, name=name)
        if isinstance(action, Throw):
            self._verify_throw(state, action)
        elif isinstance(action, Enter):
            self._entry_throw(state, action)
            self._free_field(state, action.player, row_by_id(action.row))
        elif isinstance(action, Strike):
            row = row_by_id(action.row)
            if row.is_schule:
                raise IllegalAction(
                    "{label_de} cannot be struck: a Schule field takes the throw (it closes, pays from the reserve, "
                    "or gets a zero).",
                    label_de=row.label_de,
                )
            self._free_field(state, action.player, row)
        else:  # pragma: no cover - parse_action only builds this game's actions
            raise MalformedInput("{name_en} has no action '{kind}'.", name_en=self.title(), kind=action.kind)

    def _verify_throw(self, state: SheetState, action: Throw) -> None:
        """The shared turn's checks, with this game's way out: there is no 'stand', a turn ends with an entry."""
        turn = state.turn
        if len(action.dice) == DICE:
            if turn.throws >= MAX_THROWS:
                raise IllegalAction(
                    "{player} has thrown {MAX_THROWS} times, the most a turn allows; enter the dice into a row or "
                    "strike a combination field.",
                    player=state.setup.players[turn.player],
                    MAX_THROWS=MAX_THROWS,
                )
            if turn.started and sorted(action.held) == list(range(DICE)):
                raise IllegalAction("A rethrow must throw at least one die; to keep all five, enter them into a row.")
        turn.verify_throw(action, MAX_THROWS)

    def _free_field(self, state: SheetState, player: int, row: Row) -> int:
        column = state.sheets[player].free_column(_row_index(row))
        if column is None:
            raise IllegalAction(
                "The row {label_de} is full: all {columns} fields are written; choose another row.",
                label_de=row.label_de,
                columns=state.columns,
            )
        return column

    def _entry_throw(self, state: SheetState, action: Enter) -> tuple[tuple[int, ...], bool, int | None]:
        """The dice, the all-five flag and the throw number an entry writes; refuses contradictions."""
        turn = state.turn
        if action.dice and len(action.dice) != DICE:
            raise MalformedInput("A throw has {DICE} dice, not {count}.", DICE=DICE, count=len(action.dice))
        if turn.started:
            if action.dice and tuple(action.dice) != turn.dice:
                raise IllegalAction(
                    "The dice given ({dice}) differ from the last throw ({dice2}); enter the throw on the table or "
                    "correct it first.",
                    dice=" ".join(map(str, action.dice)),
                    dice2=" ".join(map(str, turn.dice)),
                )
            if action.all_five is not None and action.all_five != turn.all_five:
                raise IllegalAction(
                    N_("The last throw was thrown with all five dice at once; the entry cannot say otherwise.")
                    if turn.all_five
                    else N_("The last throw was thrown with dice kept; the entry cannot say otherwise.")
                )
            if action.throw is not None and action.throw != turn.throws:
                raise IllegalAction(
                    "This is throw {throws} of the turn, not throw {throw}.", throws=turn.throws, throw=action.throw
                )
            return turn.dice, turn.all_five, turn.throws
        if not action.dice:
            raise IllegalAction("Throw first, or give the five dice of the throw in the entry.")
        all_five = bool(action.all_five)
        if action.throw is not None:
            if not 1 <= action.throw <= MAX_THROWS:
                raise MalformedInput(
                    "A turn has throws 1 to {MAX_THROWS}, not {throw}.", MAX_THROWS=MAX_THROWS, throw=action.throw
                )
            if action.throw == 1 and action.all_five is False:
                raise MalformedInput("The first throw of a turn throws all five dice; it cannot keep any.")
            if action.throw == 1:
                all_five = True
        throw = action.throw if action.throw is not None else (1 if all_five else None)
        return tuple(action.dice), all_five, throw

    def doubles(self, setup: Setup, all_five: bool, throw: int | None) -> bool:
        """Rule 5 and the ``doubling`` setting."""
        if setup.get("doubling") == DOUBLING_FIRST:
            return all_five and throw == 1
        return all_five

    # -- applying
    def apply(self, state: SheetState, action: Action) -> SheetState:
        at = state.played
        if isinstance(action, Throw):
            return replace(state, turn=state.turn.after_throw(action), played=at + 1, thrown=at)
        # The dice come from the turn's last recorded throw, or were tapped in with this entry.
        source = state.thrown if state.turn.started else (at if isinstance(action, Enter) else None)
        player = action.player
        sheet = state.sheets[player]
        if isinstance(action, Enter):
            row = row_by_id(action.row)
            dice, all_five, throw = self._entry_throw(state, action)
            result = effect(row, dice, self.doubles(state.setup, all_five, throw), sheet.reserve)
            cell = replace(_cell(result, dice, all_five, state.entries), action=source)
        elif isinstance(action, Strike):
            row = row_by_id(action.row)
            cell = Field(
                Result.STRUCK, dice=state.turn.dice, all_five=state.turn.all_five, entry=state.entries, action=source
            )
        else:  # pragma: no cover - verify refused it
            raise MalformedInput("{name_en} has no action '{kind}'.", name_en=self.title(), kind=action.kind)
        index = _row_index(row)
        column = sheet.free_column(index)
        assert column is not None
        line = tuple(cell if c == column else old for c, old in enumerate(sheet.fields[index]))
        fields = tuple(line if r == index else old for r, old in enumerate(sheet.fields))
        new_sheet = Sheet(fields, sheet.reserve + cell.reserve_change)
        sheets = tuple(new_sheet if p == player else s for p, s in enumerate(state.sheets))
        won = list(state.won)
        for bonus in bonuses_for(state.columns):
            if state.owner(bonus.id) is None:
                value = _meets(new_sheet, bonus)
                if value is not None:
                    won.append((bonus.id, player, value))
        next_player = (player + 1) % len(state.setup.players)
        return SheetState(state.setup, sheets, Turn(next_player), state.entries + 1, tuple(won), player, played=at + 1)

    # -- answers
    def to_move(self, state: SheetState) -> int | None:
        return None if state.finished else state.turn.player

    def options(self, state: SheetState) -> list[Option]:
        if state.finished:
            return []
        player = state.turn.player
        sheet = state.sheets[player]
        turn = state.turn
        out: list[Option] = []
        if turn.throws < MAX_THROWS:
            label = f"Throw {turn.throws + 1} of {MAX_THROWS}" + (" (all five dice)" if not turn.started else "")
            out.append(Option("throw", player, label, None, {"fields": {"held": []}, "throw": turn.throws + 1}))
        doubled = self.doubles(state.setup, turn.all_five, turn.throws)
        for row in ROWS:
            column = sheet.free_column(_row_index(row))
            if column is None:
                continue
            lost = "" if row.is_schule else _lost(state, player, row, column)
            if turn.started:
                result = effect(row, turn.dice, doubled, sheet.reserve)
                out.append(
                    Option(
                        "enter",
                        player,
                        _option_label(result, column, lost),
                        result.points,
                        {
                            "fields": {"row": row.id},
                            "column": column,
                            **result.to_json(),
                            "not_made": result.result is Result.STRUCK,
                        },
                    )
                )
            if not row.is_schule:
                out.append(
                    Option(
                        "strike",
                        player,
                        f"Strike {row.label_en} (column {column + 1}): nothing; {lost}",
                        0,
                        {
                            "fields": {"row": row.id},
                            "column": column,
                            "row": row.id,
                            "label_de": row.label_de,
                            "label_en": row.label_en,
                            "result": Result.STRUCK.value,
                            "not_made": False,
                        },
                    )
                )
        return out

    def standings(self, state: SheetState) -> list[Standing]:
        scores = [(p, totals(state, p)) for p in range(len(state.setup.players))]
        ranks = places([(p, t.total) for p, t in scores])
        lines = [
            Standing(p, state.setup.players[p], ranks[p], t.total, t.to_json() | {"finished": state.finished})
            for p, t in scores
        ]
        return sorted(lines, key=lambda s: (s.place, s.player))

    def outcome(self, state: SheetState) -> Outcome | None:
        if not state.finished:
            return None
        best = [s for s in self.standings(state) if s.place == 1]
        winners = tuple(s.player for s in best)
        if len(best) == 1:
            return Outcome(
                winners, f"Every sheet is full; {best[0].name} wins with the highest total, {best[0].score}."
            )
        names = ", ".join(s.name for s in best[:-1]) + f" and {best[-1].name}"
        return Outcome(winners, f"Every sheet is full; {names} share the highest total, {best[0].score}.")

    def view(self, state: SheetState) -> JSON:
        kind = state.setup.dice_kind
        bonuses = bonuses_for(state.columns)
        turn = state.turn
        return {
            "game": self.id,
            "columns": state.columns,
            "rows": [r.to_json() | ({"face": faces([r.number], kind)[0]} if r.is_schule else {}) for r in ROWS],
            "doubling": state.setup.get("doubling"),
            "finished": state.finished,
            "entries": state.entries,
            "turn": None
            if state.finished
            else {
                "player": turn.player,
                "throws": turn.throws,
                "max_throws": MAX_THROWS,
                "dice": list(turn.dice),
                "faces": faces(turn.dice, kind),
                "held": list(turn.held),
                "all_five": turn.all_five,
                "action": state.thrown if turn.started else None,
                "doubled": turn.started and self.doubles(state.setup, turn.all_five, turn.throws),
            },
            "bonuses": [_bonus_json(state, b) for b in bonuses],
            "players": [_player_json(state, p, bonuses) for p in range(len(state.setup.players))],
        }

    def hand(self, dice: Sequence[int], setup: Setup, all_five: bool = False) -> JSON:
        """Every row's result for one throw; the reserve is unknown, so a Schule short of dice says what it needs."""
        doubled = self.doubles(setup, all_five, 1 if all_five else None)
        results = [effect(row, dice, doubled, None) for row in ROWS]
        best = max((r for r in results if not r.row.is_schule), key=lambda r: (r.points, -ROWS.index(r.row)))
        return {
            "all_five": all_five,
            "doubled": doubled,
            "category": best.row.id,
            "label": best.row.label_de,
            "label_en": best.row.label_en,
            "points": best.points,
            "key": [best.points],
            "rows": [r.to_json() for r in results],
        }


def _cell(result: Effect, dice: tuple[int, ...], all_five: bool, entry: int) -> Field:
    reserve = result.reserve_after if result.reserve_change else None
    change = result.reserve_change if result.result in (Result.CLOSED, Result.RESERVE) else 0
    not_made = result.result is Result.STRUCK
    return Field(result.result, result.points, result.doubled, dice, all_five, change, reserve, entry, not_made)


def _option_label(result: Effect, column: int, lost: str) -> str:
    """The English words of an entry choice; ``lost`` names the bonuses a strike would give up."""
    where = f"{result.row.label_en} (column {column + 1})"
    match result.result:
        case Result.CLOSED:
            extra = f", reserve +{result.reserve_change}" if result.reserve_change else ""
            return f"{where}: closes{extra}"
        case Result.RESERVE:
            return f"{where}: closes by paying {result.needs} from the reserve (left: {result.reserve_after})"
        case Result.ZERO:
            if result.count == 0:
                why = f"no die shows {result.row.number}"
            else:
                why = f"it needs {result.needs} from the reserve, which holds {result.reserve_after}"
            return f"{where}: zero (-{ZERO_PENALTY} at the end): {why}"
        case Result.POINTS:
            return f"{where}: {count(result.points, 'point')}" + (", doubled" if result.doubled else "")
        case Result.STRUCK:
            return f"{where}: not made, the entry is a strike; {lost}"
    raise AssertionError(result.result)  # pragma: no cover


def _lost(state: SheetState, player: int, row: Row, column: int) -> str:
    """What striking this field gives up: the bonuses of its row and column that are still within reach."""
    sheet = state.sheets[player]
    candidates = [Bonus(f"column:{column + 1}", "column", column=column)]
    if row.has_row_bonus:
        candidates.insert(0, Bonus(f"row:{row.id}", "combination_row", row=row.id))
    lost = [
        f"the {bonus.label()} row bonus" if bonus.row else f"the {bonus.label()} bonus"
        for bonus in candidates
        if state.owner(bonus.id) is None and not _disqualified(sheet, bonus)
    ]
    if not lost:
        return "no bonus is lost"
    return " and ".join(lost) + (" are lost" if len(lost) > 1 else " is lost")


def _bonus_json(state: SheetState, bonus: Bonus) -> JSON:
    won = state.owner(bonus.id)
    return {
        "id": bonus.id,
        "kind": bonus.kind,
        "label_en": bonus.label(),
        "row": bonus.row,
        "column": bonus.column,
        "owner": None if won is None else won[0],
        "value": None if won is None else won[1],
    }


def _field_json(cell: Field | None, latest_entry: int | None, column: int) -> JSON:
    if cell is None:
        return {
            "column": column,
            "result": None,
            "value": None,
            "doubled": False,
            "struck": False,
            "not_made": False,
            "zero": False,
            "closed": False,
            "closed_with_reserve": False,
            "dice": [],
            "all_five": False,
            "reserve": None,
            "reserve_change": 0,
            "reserve_struck": False,
            "entry": None,
            "action": None,
        }
    return {
        "column": column,
        "result": cell.result.value,
        "value": cell.points,
        "doubled": cell.doubled,
        "struck": cell.struck,
        "not_made": cell.not_made,
        "zero": cell.zero,
        "closed": cell.result in (Result.CLOSED, Result.RESERVE),
        "closed_with_reserve": cell.result is Result.RESERVE,
        "dice": list(cell.dice),
        "all_five": cell.all_five,
        "reserve": cell.reserve,
        "reserve_change": cell.reserve_change,
        "reserve_struck": cell.reserve is not None and cell.entry != latest_entry,
        "entry": cell.entry,
        "action": cell.action,
    }


def _player_json(state: SheetState, player: int, bonuses: Sequence[Bonus]) -> JSON:
    sheet = state.sheets[player]
    history = sorted((c for c in sheet.cells() if c.reserve is not None), key=lambda c: c.entry)
    latest = history[-1].entry if history else None
    where = {
        c.entry: (r.id, col) for r, line in zip(ROWS, sheet.fields, strict=True) for col, c in enumerate(line) if c
    }
    rows: dict[str, Any] = {
        r.id: [_field_json(c, latest, col) for col, c in enumerate(line)]
        for r, line in zip(ROWS, sheet.fields, strict=True)
    }
    marks = []
    for bonus in bonuses:
        won = state.owner(bonus.id)
        mine = won is not None and won[0] == player
        reachable = mine or (won is None and not _disqualified(sheet, bonus))
        marks.append(
            {
                "id": bonus.id,
                "won": mine,
                "value": won[1] if mine and won is not None else None,
                "reachable": reachable,
                "struck": not reachable,
                "owner": None if won is None else won[0],
            }
        )
    return {
        "player": player,
        "name": state.setup.players[player],
        "reserve": sheet.reserve,
        "reserve_history": [
            {
                "value": c.reserve,
                "change": c.reserve_change,
                "row": where[c.entry][0],
                "column": where[c.entry][1],
                "struck": c.entry != latest,
            }
            for c in history
        ],
        "rows": rows,
        "bonuses": marks,
        "full": sheet.full,
        "totals": totals(state, player).to_json(),
    }


RULES = register(SheetRules())
