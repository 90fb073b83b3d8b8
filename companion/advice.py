"""The hold advisor: which dice to keep, and what each choice is worth, under optimal play of the throws left.

Five dice have 252 throws as multisets and a turn has at most three throws, so the value of every hold is an exact
expectation over all outcomes (float64), found by dynamic programming over multisets: rethrowing ``k`` dice lands on
each multiset of ``k`` faces with its multinomial probability ``k! / (c1! ... c6!) / 6**k``. A position's value is
the best of standing and every proper hold; a hold's value is the mean of the positions it can lead to.

What a final hand is worth is a :class:`Goal`, built from the game's own scorer so the advisor can never disagree
with the scorekeeper: the game's points (:class:`Points`), the chance to beat a hand (:class:`Beat`, keys from
:func:`companion.hands.evaluate`), or a sheet entry (:class:`SheetEntry`, from :func:`companion.sheet_rows.effect`).
Solvers are cached per goal and hold rule, so a query after the first is a few dictionary look-ups.

:func:`advise` answers for plain dice; :func:`advise_setup` builds the goal from a game's settings (the CLI);
:func:`advise_state` answers for the player to move in a game in progress (the API).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any, Literal

from companion.core import JSON, Setup
from companion.dice import faces
from companion.errors import IllegalAction, MalformedInput
from companion.hands import HandRank, HandRules, evaluate
from companion.sheet_rows import ROWS, Result, Row, effect, row_by_id

__all__ = [
    "Advice",
    "Beat",
    "Goal",
    "Hold",
    "Points",
    "RowAdvice",
    "SheetEntry",
    "advice_view",
    "advise",
    "advise_setup",
    "advise_state",
    "held_positions",
    "holds_of",
    "rethrow_outcomes",
]

DICE = 5
MOST_THROWS_LEFT = 2  # three throws a turn: the first, then up to two rethrows
BLUFF_THROWS_LEFT = 1  # classic bluff: a player who believed may rethrow once
SHEET_ZERO = 200  # a Schule zero costs 200 at the end (sheet rule 3)

Dice = tuple[int, ...]
Objective = Literal["points", "beat"]


# --------------------------------------------------------------------------- goals: what a final hand is worth


@dataclass(frozen=True)
class Points:
    """The game's points for the final hand (bone; classic in points mode)."""

    rules: HandRules
    objective: Objective = field(default="points", init=False)

    def stand(self, dice: Dice, doubled: bool) -> float:
        return float(evaluate(dice, self.rules).points or 0)


@dataclass(frozen=True)
class Beat:
    """1 when the final hand is strictly better than the hand whose key is ``key``, else 0: the value is a chance."""

    rules: HandRules
    key: tuple[int, ...]
    objective: Objective = field(default="beat", init=False)

    def stand(self, dice: Dice, doubled: bool) -> float:
        return 1.0 if evaluate(dice, self.rules).key > self.key else 0.0


@dataclass(frozen=True)
class SheetEntry:
    """A sheet entry: the best of ``rows`` for the final dice, in points the total gains (sheet rules 3-5, 8).

    A combination scores its points (doubled when ``doubled``) or nothing (entering dice that do not make it is a
    strike); a Schule entry gains or pays its reserve change, or costs 200 as a zero. With ``made`` the value is
    instead 1 when the dice make the (single) row, so the solver finds the chance to make it.
    ``rethrow_doubles``: a rethrow of all five dice doubles (the ``all_five`` doubling of the rule text).
    """

    rows: tuple[str, ...]
    reserve: int = 0
    rethrow_doubles: bool = True
    made: bool = False
    objective: Objective = field(default="points", init=False)

    def stand(self, dice: Dice, doubled: bool) -> float:
        if self.made:
            return 1.0 if any(_made(row_by_id(r), dice, doubled, self.reserve) for r in self.rows) else 0.0
        return max(entry_value(row_by_id(r), dice, doubled, self.reserve) for r in self.rows)


Goal = Points | Beat | SheetEntry


def entry_value(row: Row, dice: Sequence[int], doubled: bool, reserve: int) -> float:
    """What entering ``dice`` into ``row`` adds to the player's total, bonuses aside."""
    result = effect(row, dice, doubled and not row.is_schule, reserve)
    if row.is_schule:
        if result.result in (Result.CLOSED, Result.RESERVE):
            return float(result.reserve_change)
        return -float(SHEET_ZERO)
    return float(result.points)


def _made(row: Row, dice: Sequence[int], doubled: bool, reserve: int) -> bool:
    return effect(row, dice, doubled, reserve).result in (Result.CLOSED, Result.RESERVE, Result.POINTS)


# --------------------------------------------------------------------------- multisets and rethrows


def _sorted(dice: Sequence[int]) -> Dice:
    """The canonical multiset: high to low, as the games sort faces."""
    return tuple(sorted(dice, reverse=True))


def holds_of(dice: Sequence[int], fixed: Sequence[int] = ()) -> list[Dice]:
    """Every distinct sub-multiset of ``dice`` that contains ``fixed``, each high to low (all five included)."""
    counts = Counter(dice)
    need = Counter(fixed)
    values = sorted(counts, reverse=True)
    out: list[Dice] = []
    for taken in itertools.product(*(range(need[v], counts[v] + 1) for v in values)):
        out.append(tuple(v for v, n in zip(values, taken, strict=True) for _ in range(n)))
    return out


@cache
def rethrow_outcomes(count: int) -> tuple[tuple[Dice, float], ...]:
    """Every multiset ``count`` rethrown dice can show, with its probability (multinomial over 6**count throws)."""
    total = 6**count
    out: list[tuple[Dice, float]] = []
    for combo in itertools.combinations_with_replacement(range(6, 0, -1), count):
        ways = math.factorial(count)
        for n in Counter(combo).values():
            ways //= math.factorial(n)
        out.append((combo, ways / total))
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def _merge(hold: Dice, thrown: Dice) -> Dice:
    return _sorted(hold + thrown)


# --------------------------------------------------------------------------- the solver


class _Solver:
    """Exact values of positions and holds for one goal and one hold rule, memoised."""

    def __init__(self, goal: Goal, held_fixed: bool) -> None:
        self.goal = goal
        self.held_fixed = held_fixed
        self.rethrow_doubles = isinstance(goal, SheetEntry) and goal.rethrow_doubles
        self._stand: dict[tuple[Dice, bool], float] = {}
        self._value: dict[tuple[Dice, int, Dice, bool], float] = {}
        self._hold: dict[tuple[Dice, int], float] = {}

    def stand(self, dice: Dice, doubled: bool) -> float:
        key = (dice, doubled)
        if key not in self._stand:
            self._stand[key] = self.goal.stand(dice, doubled)
        return self._stand[key]

    def value(self, dice: Dice, left: int, fixed: Dice, doubled: bool) -> float:
        """The position's worth under optimal play: standing, or the best hold with ``left`` rethrows to come."""
        key = (dice, left, fixed, doubled)
        found = self._value.get(key)
        if found is not None:
            return found
        best = self.stand(dice, doubled)
        if left > 0:
            for hold in holds_of(dice, fixed):
                if len(hold) < DICE:
                    best = max(best, self.hold(hold, left))
        self._value[key] = best
        return best

    def hold(self, hold: Dice, left: int) -> float:
        """Keep ``hold``, rethrow the rest (``left`` counts this rethrow), then play on optimally."""
        key = (hold, left)
        found = self._hold.get(key)
        if found is not None:
            return found
        fixed = hold if self.held_fixed else ()
        doubled = self.rethrow_doubles and not hold
        total = 0.0
        for thrown, p in rethrow_outcomes(DICE - len(hold)):
            total += p * self.value(_merge(hold, thrown), left - 1, fixed, doubled)
        self._hold[key] = total
        return total


@lru_cache(maxsize=256)
def _solver(goal: Goal, held_fixed: bool) -> _Solver:
    return _Solver(goal, held_fixed)


# --------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class Hold:
    """One choice: the dice kept (high to low; all five is standing) and its value under optimal play."""

    keep: Dice
    value: float

    @property
    def stands(self) -> bool:
        return len(self.keep) == DICE


@dataclass(frozen=True)
class RowAdvice:
    """Sheet: one open row played for alone: the chance to make it, the best expected entry, and the hold for it."""

    row: str
    chance: float
    expected: float
    keep: Dice


@dataclass(frozen=True)
class Advice:
    """Every distinct hold of ``dice`` with its value, best first; for the sheet also each open row's prospects."""

    dice: Dice
    throws_left: int
    objective: Objective
    holds: tuple[Hold, ...]
    rows: tuple[RowAdvice, ...] = ()

    @property
    def best(self) -> Hold:
        return self.holds[0]

    def to_json(self, kind: Any = None) -> JSON:
        """``keep`` as printed faces of the game's dice (``kind``), high to low; values as plain floats."""

        def show(dice: Dice) -> list[str]:
            return faces(dice, kind) if kind is not None else [str(d) for d in dice]

        out: JSON = {
            "dice": show(self.dice),
            "throws_left": self.throws_left,
            "objective": self.objective,
            "holds": [{"keep": show(h.keep), "value": h.value} for h in self.holds],
        }
        if self.rows:
            out["rows"] = [
                {"row": r.row, "chance": r.chance, "expected": r.expected, "keep": show(r.keep)} for r in self.rows
            ]
        return out


def _check(dice: Sequence[int], throws_left: int, fixed: Sequence[int]) -> Dice:
    if len(dice) != DICE:
        raise MalformedInput("A throw has {DICE} dice, not {count}.", DICE=DICE, count=len(dice))
    for d in dice:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise MalformedInput("A die shows 1 to 6, not {value}.", value=repr(d))
    if isinstance(throws_left, bool) or not isinstance(throws_left, int) or not 0 <= throws_left <= MOST_THROWS_LEFT:
        raise MalformedInput(
            "Throws left after this throw are 0 to {most}, not {value}.", most=MOST_THROWS_LEFT, value=repr(throws_left)
        )
    if Counter(fixed) - Counter(dice):
        raise MalformedInput("The dice set aside for good must be among the dice on the table.")
    return _sorted(dice)


def _ranked(holds: Iterator[Hold]) -> tuple[Hold, ...]:
    """Best first; equal values (to rounding) prefer standing, then keeping more, then higher dice."""
    return tuple(sorted(holds, key=lambda h: (-round(h.value, 9), -len(h.keep), [-d for d in h.keep])))


def advise(
    dice: Sequence[int],
    throws_left: int,
    goal: Goal,
    *,
    fixed: Sequence[int] = (),
    held_fixed: bool = False,
    doubled: bool = False,
    with_rows: bool = True,
) -> Advice:
    """The value of every distinct hold of ``dice`` with ``throws_left`` rethrows still allowed after this throw.

    ``fixed``: dice set aside for good earlier in the turn (classic house rule, with ``held_fixed``): every hold keeps
    them, and with ``held_fixed`` each hold stays aside for the rest of the turn. ``doubled``: the dice on the table
    would score double as they are (sheet). With no throws left the only entry is standing. ``with_rows``: for a
    sheet goal, also each row's prospects played for alone.
    """
    ordered = _check(dice, throws_left, fixed)
    holds = _holds(ordered, throws_left, goal, fixed, held_fixed, doubled)
    rows: tuple[RowAdvice, ...] = ()
    if with_rows and isinstance(goal, SheetEntry) and not goal.made:
        rows = tuple(_row_advice(ordered, throws_left, goal, r, doubled) for r in goal.rows)
    return Advice(ordered, throws_left, goal.objective, holds, rows)


def _holds(
    dice: Dice, throws_left: int, goal: Goal, fixed: Sequence[int], held_fixed: bool, doubled: bool
) -> tuple[Hold, ...]:
    solver = _solver(goal, held_fixed)

    def value(hold: Dice) -> float:
        return solver.stand(dice, doubled) if len(hold) == DICE else solver.hold(hold, throws_left)

    choices = [dice] if throws_left == 0 else holds_of(dice, fixed)
    return _ranked(Hold(h, value(h)) for h in choices)


def _row_advice(dice: Dice, throws_left: int, goal: SheetEntry, row: str, doubled: bool) -> RowAdvice:
    reserve = goal.reserve if row_by_id(row).is_schule else 0  # only Schule rows depend on it: share the cache
    made = SheetEntry((row,), reserve, goal.rethrow_doubles, made=True)
    chance = _holds(dice, throws_left, made, (), False, doubled)[0]
    expected = _holds(dice, throws_left, SheetEntry((row,), reserve, goal.rethrow_doubles), (), False, doubled)[0]
    return RowAdvice(row, chance.value, expected.value, expected.keep)


# --------------------------------------------------------------------------- from a game's settings


def _classic_rules(setup: Setup) -> HandRules:
    from companion.games.classic import hand_rules_for

    return hand_rules_for(setup)


def hand_rules_of(setup: Setup) -> HandRules:
    """How the game of ``setup`` ranks five dice (refused for the games without five-dice hands)."""
    from companion.hands import BONE, POKERDICE

    if setup.game == "classic":
        return _classic_rules(setup)
    if setup.game == "bone":
        return BONE
    if setup.game == "pokerdice":
        return POKERDICE
    raise MalformedInput("{game} has no five-dice hands to advise on.", game=setup.game)


def no_holds(setup: Setup) -> MalformedInput | None:
    """Why a game has nothing to hold at all, or None."""
    if setup.game == "board":
        return MalformedInput(
            "The board game has no holds to advise on: its three dice are placed as they fall, never thrown again."
        )
    return None


def most_throws_left(setup: Setup) -> int:
    """Rethrows a turn can still allow after a throw: two, or one in classic bluff (a believer's single rethrow)."""
    if setup.game == "classic" and setup.get("mode") == "bluff":
        return BLUFF_THROWS_LEFT
    return MOST_THROWS_LEFT


def advise_setup(
    setup: Setup,
    dice: Sequence[int],
    throws_left: int,
    beat: Sequence[int] | None = None,
    *,
    fixed: Sequence[int] = (),
    open_rows: Sequence[str] | None = None,
    reserve: int = 0,
    all_five: bool | None = None,
) -> Advice:
    """Advice for plain dice under a game's settings (``becher advise``).

    Points where the game scores points and no ``beat`` is named; the chance to beat ``beat`` otherwise. Sheet:
    ``open_rows`` (default all), the ``reserve``, and whether the dice were thrown all five at once (``all_five``;
    default: only the first throw, i.e. with two throws left).
    """
    refusal = no_holds(setup)
    if refusal is not None:
        raise refusal
    most = most_throws_left(setup)
    if isinstance(throws_left, bool) or not isinstance(throws_left, int) or not 0 <= throws_left <= most:
        raise MalformedInput(
            "Throws left after this throw are 0 to {most} in this game, not {value}.",
            most=most,
            value=repr(throws_left),
        )
    if setup.game == "sheet":
        if beat is not None:
            raise MalformedInput("The score sheet has no hand to beat; its advice is the expected entry.")
        rows = tuple(open_rows) if open_rows is not None else tuple(r.id for r in ROWS)
        if not rows:
            raise MalformedInput("Name at least one open row of the sheet.")
        for r in rows:
            row_by_id(r)
        if isinstance(reserve, bool) or not isinstance(reserve, int) or reserve < 0:
            raise MalformedInput("The reserve is a whole number of 0 or more, not {value}.", value=repr(reserve))
        five = (throws_left == MOST_THROWS_LEFT) if all_five is None else all_five
        if throws_left == MOST_THROWS_LEFT and not five:
            raise MalformedInput("The first throw of a turn throws all five dice; it cannot keep any.")
        throw = MOST_THROWS_LEFT + 1 - throws_left
        doubling = str(setup.get("doubling"))
        doubled = five and (doubling != "first_throw" or throw == 1)
        goal: Goal = SheetEntry(tuple(dict.fromkeys(rows)), reserve, doubling != "first_throw")
        return advise(dice, throws_left, goal, doubled=doubled)
    if open_rows is not None or reserve or all_five is not None:
        raise MalformedInput("Open rows, the reserve and all five at once belong to the score sheet only.")
    rules = hand_rules_of(setup)
    held_fixed = setup.game == "classic" and bool(setup.get("held_fixed"))
    if beat is not None:
        goal = Beat(rules, evaluate(beat, rules).key)
    elif rules.points is not None or setup.game == "bone":
        goal = Points(rules)
    else:
        raise MalformedInput("This game scores no points for a hand: name the hand to beat.")
    return advise(dice, throws_left, goal, fixed=fixed, held_fixed=held_fixed)


# --------------------------------------------------------------------------- for the player to move


@dataclass(frozen=True)
class Position:
    """What the advice of a game in progress was asked about: whose turn, the hand to beat and who holds it."""

    player: int
    positions: Dice  # the dice on the table in their order (positions 0-4)
    beat_player: int | None = None
    beat_rank: HandRank | None = None
    beat_dice: Dice = ()
    fixed: tuple[int, ...] = ()  # positions set aside for good (classic house rule)


def advise_state(rules: Any, state: Any, beat: Sequence[int] | None = None) -> tuple[Advice, Position]:
    """Advice for the player to move: the game's own throws left, held dice and hand to beat.

    ``beat`` names a hand to beat where the game has none yet (the first player of a round). Refused with
    :class:`IllegalAction` when there is nothing to advise: the game is over, no throw yet, no throw left to
    decide, the dice are hidden (bluff), or the game has no holds (board).
    """
    from companion.games.classic import BluffState
    from companion.games.sheet import MAX_THROWS, SheetState
    from companion.rounds import RoundState

    setup: Setup = getattr(state, "setup", None) or Setup(rules.id, (), ())
    if rules.outcome(state) is not None or rules.to_move(state) is None:
        raise IllegalAction("The game is over; there is nothing to advise.")
    if rules.id == "board":
        raise IllegalAction(
            "The board game has no holds to advise on: its three dice are placed as they fall, never thrown again."
        )
    if isinstance(state, BluffState):
        raise IllegalAction("In the bluff mode the dice stay under the cup, so there is nothing to advise.")
    if isinstance(state, SheetState):
        if beat is not None:
            raise MalformedInput("The score sheet has no hand to beat; its advice is the expected entry.")
        now = state.turn
        if not now.started:
            raise IllegalAction("Throw first: the advice is about the dice on the table.")
        sheet = state.sheets[now.player]
        rows = tuple(r.id for i, r in enumerate(ROWS) if sheet.free_column(i) is not None)
        doubling = str(setup.get("doubling"))
        doubled = bool(rules.doubles(setup, now.all_five, now.throws))
        goal: Goal = SheetEntry(rows, sheet.reserve, doubling != "first_throw")
        advice = advise(now.dice, MAX_THROWS - now.throws, goal, doubled=doubled)
        return advice, Position(now.player, now.dice)
    assert isinstance(state, RoundState)
    if state.turn is None or not state.turn.started:
        raise IllegalAction("Throw first: the advice is about the dice on the table.")
    turn = state.turn
    engine = getattr(rules, "rounds", rules)  # classic hands round play to its rounds engine
    hand_rules = engine.hand_rules(setup)
    left = max(0, engine.max_throws(state) - turn.throws)
    held_fixed = bool(engine.held_fixed(setup))
    fixed = tuple(turn.dice[p] for p in turn.fixed) if held_fixed else ()
    fixed_at = tuple(turn.fixed) if held_fixed else ()
    position = Position(turn.player, turn.dice, fixed=fixed_at)
    beat_goal: Goal | None = None
    if beat is not None:
        rank = evaluate(beat, hand_rules)
        beat_goal = Beat(hand_rules, rank.key)
        position = Position(turn.player, turn.dice, None, rank, _sorted(beat), fixed_at)
    else:
        hands = state.stage.hands
        scores_points = (setup.game == "bone" and state.stage.kind != "extra") or (
            setup.game == "classic" and setup.get("mode") == "points"
        )
        if hands and not scores_points:
            ranks = [(engine.rank(setup, h.dice), h) for h in hands]
            top = max(r for r, _ in ranks)
            holder = next(h for r, h in ranks if r == top)
            beat_goal = Beat(hand_rules, top.key)
            position = Position(turn.player, turn.dice, holder.player, top, _sorted(holder.dice), fixed_at)
        elif not scores_points and setup.game != "bone":
            raise IllegalAction(
                "Nobody has stood yet this round, so there is no hand to beat yet; "
                "the hint starts with the next player."
            )
    goal = beat_goal if beat_goal is not None else Points(hand_rules)
    return advise(turn.dice, left, goal, fixed=fixed, held_fixed=held_fixed), position


def held_positions(keep: Sequence[int], dice: Sequence[int], prefer: Sequence[int] = ()) -> list[int]:
    """Positions (0-4) of ``dice`` that keep the multiset ``keep``, taking the positions in ``prefer`` first (the
    dice already set aside), so the answer can be sent as a throw's ``held``."""
    order = [*prefer, *(i for i in range(len(dice)) if i not in prefer)]
    out: list[int] = []
    for value in keep:
        spot = next(i for i in order if dice[i] == value and i not in out)
        out.append(spot)
    return sorted(out)


def advice_view(log: Any, beat: Sequence[object] | None = None) -> JSON:
    """The advice for the player to move of a game (:class:`companion.core.GameLog`), as the API answers it.

    ``beat``: a hand to beat as five dice (faces or ranks) where the game has none yet.
    """
    from companion.dice import parse_dice

    setup: Setup = log.setup
    kind = setup.dice_kind
    target = parse_dice(list(beat), kind, count=DICE) if beat is not None else None
    advice, position = advise_state(log.rules, log.state, target)
    out = advice.to_json(kind)
    for entry, hold in zip(out["holds"], advice.holds, strict=True):
        entry["held"] = held_positions(hold.keep, position.positions, position.fixed)
        entry["stand"] = hold.stands
    beat_json: JSON | None = None
    if position.beat_rank is not None:
        holder = position.beat_player
        beat_json = {
            "player": holder,
            "name": setup.players[holder] if holder is not None else None,
            "dice": list(position.beat_dice),
            "faces": faces(position.beat_dice, kind),
            **position.beat_rank.to_json(),
        }
    for entry in out.get("rows", []):
        row = row_by_id(entry["row"])
        entry["label_de"], entry["label_en"] = row.label_de, row.label_en
    return {
        **out,
        "game": setup.game,
        "player": position.player,
        "name": setup.players[position.player],
        "dice": list(position.positions),
        "faces": faces(position.positions, kind),
        "beat": beat_json,
    }
