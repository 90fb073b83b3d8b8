"""Round-based play shared by classic (strikes and points), bone and pokerdice.

In these games every player in turn throws five dice (up to three throws with holds, see
:mod:`companion.turns`) and the round is settled when the last hand stands. A round has one or
more *stages*: the round itself, then roll-offs among exactly tied players (the others sit out)
or, in bone, an extra round for a tie at the end. What settling means is each game's hook
(:meth:`RoundRules.settle`); whose turn it is, throwing, standing, the view and the options are
shared here.
"""

from __future__ import annotations

import dataclasses
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from companion.core import JSON, Action, Option, Rules, Setup
from companion.dice import faces
from companion.errors import N_, IllegalAction, MalformedInput, Message
from companion.hands import HandRank, HandRules, evaluate
from companion.turns import Stand, Throw, Turn

__all__ = [
    "Hand",
    "RoundResult",
    "RoundRules",
    "RoundState",
    "Stage",
    "check_dice",
    "check_seat",
    "check_whole",
    "seats_from",
]

THROWS = 3


@dataclass(frozen=True)
class Hand:
    """A hand that stood: whose, the five dice, how many throws it took, and the log index of the throw whose dice
    it shows (so a page can link the photo that throw was read from)."""

    player: int
    dice: tuple[int, ...]
    throws: int
    action: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Stage:
    """One pass around the table: the round itself, a roll-off of tied players, or an extra round."""

    kind: str
    order: tuple[int, ...]
    hands: tuple[Hand, ...] = ()

    @property
    def complete(self) -> bool:
        return len(self.hands) == len(self.order)

    @property
    def next_player(self) -> int | None:
        return None if self.complete else self.order[len(self.hands)]


T = TypeVar("T")
_FIELDS: dict[type, frozenset[str]] = {}


def evolve(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` for the frozen records here (no ``__post_init__``, every field in ``__init__``) at a
    fraction of its cost: folding a long game makes a few of these an action, and an import folds thousands."""
    cls = type(obj)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = frozenset(f.name for f in dataclasses.fields(obj))  # type: ignore[arg-type]
    if not changes.keys() <= names:
        raise TypeError(f"{cls.__name__} has no field {sorted(changes.keys() - names)[0]!r}")
    new = object.__new__(cls)
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    new.__dict__.pop("_view", None)  # a record's cached JSON is its own
    return new


@dataclass(frozen=True)
class RoundResult:
    """A settled round: its stages, best hand(s), who took a strike, and the points each seat scored."""

    number: int
    kind: str
    stages: tuple[Stage, ...]
    best: tuple[int, ...]
    loser: int | None
    points: tuple[int, ...]
    throw_limit: int | None
    blind: bool


@dataclass(frozen=True)
class RoundState:
    """The whole game between two actions. ``scores`` are points or round wins, as the game keeps them."""

    setup: Setup
    number: int
    kind: str
    starter: int
    stage: Stage
    turn: Turn | None
    strikes: tuple[int, ...]
    scores: tuple[int, ...]
    stages: tuple[Stage, ...] = ()
    throw_limit: int | None = None
    blind: bool = False
    out: tuple[int, ...] = ()
    history: tuple[RoundResult, ...] = ()
    over: bool = False
    played: int = field(default=0, compare=False)  # actions applied so far: the log index of the next one
    thrown: int | None = field(default=None, compare=False)  # log index of the current turn's last throw

    @property
    def seats(self) -> int:
        return len(self.setup.players)

    @property
    def active(self) -> tuple[int, ...]:
        return tuple(p for p in range(self.seats) if p not in self.out)


def seats_from(start: int, players: Sequence[int], seats: int) -> tuple[int, ...]:
    """``players`` in seat order, beginning at ``start`` (or the next of them after it)."""
    chosen = set(players)
    return tuple(s % seats for s in range(start, start + seats) if s % seats in chosen)


def check_seat(player: int, seats: int) -> None:
    """Refuse a seat that does not exist (actions built in code skip the JSON checks)."""
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < seats:
        raise MalformedInput("There is no player {player} in this game.", player=repr(player))


def check_whole(value: object, what: str | Message) -> None:
    """Refuse a field that is not a whole number; a bool would be accepted here but could never be replayed."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedInput("{what} must be a whole number, not {value}.", what=what, value=repr(value))


def check_dice(dice: Sequence[int]) -> None:
    """Refuse dice that are not ranks 1..6 (JSON input is checked when parsed; this guards actions built in code)."""
    for die in dice:
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
            raise MalformedInput("A die shows 1 to 6, not {die}.", die=repr(die))


class RoundRules(Rules[RoundState]):
    """Turns, stages and rounds; each game decides how a finished stage is settled."""

    actions: ClassVar[tuple[type[Action], ...]] = (Throw, Stand)

    # -- hooks
    @abstractmethod
    def hand_rules(self, setup: Setup) -> HandRules:
        """How this game (with these settings) ranks hands."""

    @abstractmethod
    def settle(self, state: RoundState) -> RoundState:
        """Called when the current stage's last hand stands: roll off, score, start the next round, or end."""

    def first_round(self, setup: Setup) -> tuple[int, str]:
        """Starter and kind of the first round."""
        return 0, "round"

    def max_throws(self, state: RoundState) -> int:
        return THROWS

    def held_fixed(self, setup: Setup) -> bool:
        return False

    def after_hand(self, state: RoundState, hand: Hand) -> RoundState:
        """A hand has stood (already in the stage); a game may note something (the throw limit)."""
        return state

    def verify_other(self, state: RoundState, action: Action) -> None:
        raise IllegalAction(
            "{name_en} has no action '{kind}'.", name_en=self.title(), kind=action.kind
        )  # pragma: no cover

    def apply_other(self, state: RoundState, action: Action) -> RoundState:
        raise IllegalAction(
            "{name_en} has no action '{kind}'.", name_en=self.title(), kind=action.kind
        )  # pragma: no cover

    def other_options(self, state: RoundState) -> list[Option]:
        return []

    def points_of(self, rank: HandRank) -> int | None:
        return rank.points

    # -- shared machinery
    def rank(self, setup: Setup, dice: Sequence[int]) -> HandRank:
        return evaluate(dice, self.hand_rules(setup))

    def new(self, setup: Setup) -> RoundState:
        n = len(setup.players)
        starter, kind = self.first_round(setup)
        order = seats_from(starter, range(n), n)
        return RoundState(
            setup=setup,
            number=1,
            kind=kind,
            starter=starter,
            stage=Stage("round", order),
            turn=Turn(order[0]),
            strikes=(0,) * n,
            scores=(0,) * n,
        )

    def begin_round(
        self, state: RoundState, starter: int, kind: str = "round", players: Sequence[int] = ()
    ) -> RoundState:
        """Close nothing; open round ``number + 1`` with ``players`` (default: everyone still in) from ``starter``."""
        order = seats_from(starter, players or state.active, state.seats)
        return evolve(
            state,
            number=state.number + 1,
            kind=kind,
            starter=order[0],
            stage=Stage("round" if kind == "round" else kind, order),
            stages=(),
            turn=Turn(order[0]),
            throw_limit=None,
            blind=False,
        )

    def begin_rolloff(self, state: RoundState, players: Sequence[int]) -> RoundState:
        """Only ``players`` (exactly tied) play the round again, in the order they threw; the others sit out."""
        played = [h.player for h in state.stage.hands]
        order = tuple(p for p in played if p in set(players))
        return evolve(
            state,
            stages=(*state.stages, state.stage),
            stage=Stage("rolloff", order),
            turn=Turn(order[0]),
        )

    def close_round(
        self,
        state: RoundState,
        best: Sequence[int],
        loser: int | None = None,
        points: Sequence[int] | None = None,
    ) -> RoundState:
        """Record the settled round and add its points to the scores (the next round is opened separately)."""
        pts = tuple(points) if points is not None else (0,) * state.seats
        result = RoundResult(
            number=state.number,
            kind=state.kind,
            stages=(*state.stages, state.stage),
            best=tuple(best),
            loser=loser,
            points=pts,
            throw_limit=state.throw_limit,
            blind=state.blind,
        )
        return evolve(
            state,
            history=(*state.history, result),
            scores=tuple(s + p for s, p in zip(state.scores, pts, strict=True)),
        )

    def finish(self, state: RoundState) -> RoundState:
        return evolve(state, over=True, turn=None)

    def keys(self, state: RoundState, stage: Stage | None = None) -> dict[int, HandRank]:
        return {h.player: self.rank(state.setup, h.dice) for h in (stage or state.stage).hands}

    def name(self, state: RoundState, player: int) -> str:
        return state.setup.players[player]

    # -- actions
    def verify(self, state: RoundState, action: Action) -> None:
        if state.over or state.turn is None:
            raise IllegalAction("The game is over; nothing more can be played.")
        check_seat(action.player, state.seats)
        mover = state.turn.player
        if action.player != mover:
            who = self.name(state, action.player)
            if action.player in state.out:
                raise IllegalAction(
                    "{player} is out of the game; it is {player2}'s turn.", player=who, player2=self.name(state, mover)
                )
            if action.player not in state.stage.order:
                raise IllegalAction(
                    N_("{player} sits out this extra round; it is {player2}'s turn.")
                    if state.stage.kind == "extra"
                    else N_("{player} sits out this roll-off; it is {player2}'s turn."),
                    player=who,
                    player2=self.name(state, mover),
                )
            done = next((h for h in state.stage.hands if h.player == action.player), None)
            if done is not None:  # e.g. a fourth throw, or a hold after standing
                raise IllegalAction(
                    N_("{player}'s hand is locked in after 1 throw; it is {player2}'s turn.")
                    if done.throws == 1
                    else N_("{player}'s hand is locked in after {throws} throws; it is {player2}'s turn."),
                    player=who,
                    throws=done.throws,
                    player2=self.name(state, mover),
                )
            raise IllegalAction("It is {player}'s turn, not {player2}'s.", player=self.name(state, mover), player2=who)
        if isinstance(action, Throw):
            check_dice(action.dice)
            for position in action.held:
                check_whole(position, Message("A held position"))
            state.turn.verify_throw(action, self.max_throws(state), self.held_fixed(state.setup))
        elif isinstance(action, Stand):
            state.turn.verify_stand()
        else:
            self.verify_other(state, action)

    def apply(self, state: RoundState, action: Action) -> RoundState:
        assert state.turn is not None
        index = state.played
        if isinstance(action, Throw):
            limit = self.max_throws(state)
            turn = state.turn.after_throw(action, self.held_fixed(state.setup))
            state = evolve(state, played=index + 1, turn=turn, thrown=index)
            # The last allowed throw locks the hand in: standing is the only choice left, so it is implied.
            return self._stand(state) if turn.throws >= limit else state
        state = evolve(state, played=index + 1)
        if isinstance(action, Stand):
            return self._stand(state)
        return self.apply_other(state, action)

    def _stand(self, state: RoundState) -> RoundState:
        assert state.turn is not None
        hand = Hand(state.turn.player, state.turn.dice, state.turn.throws, state.thrown)
        stage = evolve(state.stage, hands=(*state.stage.hands, hand))
        state = self.after_hand(evolve(state, stage=stage, turn=None, thrown=None), hand)
        if stage.complete:
            return self.settle(state)
        nxt = stage.next_player
        assert nxt is not None
        return evolve(state, turn=Turn(nxt))

    # -- answers
    def to_move(self, state: RoundState) -> int | None:
        return None if state.over or state.turn is None else state.turn.player

    def options(self, state: RoundState) -> list[Option]:
        if state.over or state.turn is None:
            return []
        turn = state.turn
        p = turn.player
        limit = self.max_throws(state)
        opts: list[Option] = []
        if turn.throws < limit:
            fixed = list(turn.fixed) if self.held_fixed(state.setup) else []
            opts.append(
                Option(
                    "throw",
                    p,
                    "Throw" if not turn.started else "Throw again",
                    detail={
                        "type": "throw",
                        "player": p,
                        "needs": ["dice"] if not turn.started else ["dice", "held"],
                        "throw": turn.throws + 1,
                        "max_throws": limit,
                        "last": turn.throws + 1 >= limit,
                        "must_hold": fixed,
                    },
                )
            )
        if turn.started:
            rank = self.rank(state.setup, turn.dice)
            points = self.points_of(rank)
            opts.append(
                Option(
                    "stand",
                    p,
                    rank.label,
                    points,
                    detail={"type": "stand", "player": p, **rank.to_json(), "points": points},
                )
            )
        opts.extend(self.other_options(state))
        return opts

    def hand(self, dice: Sequence[int], setup: Setup, all_five: bool = False) -> JSON:
        rank = self.rank(setup, dice)
        return {**rank.to_json(), "points": self.points_of(rank)}

    # -- view
    def hand_json(self, state: RoundState, hand: Hand) -> JSON:
        rank = self.rank(state.setup, hand.dice)
        return {
            "player": hand.player,
            "dice": list(hand.dice),
            "faces": faces(hand.dice, state.setup.dice_kind),
            "throws": hand.throws,
            "action": hand.action,
            **rank.to_json(),
            "points": self.points_of(rank),
        }

    def stage_json(self, state: RoundState, stage: Stage) -> JSON:
        return {
            "kind": stage.kind,
            "order": list(stage.order),
            "sitting_out": [p for p in state.active if p not in stage.order],
            "hands": [self.hand_json(state, h) for h in stage.hands],
        }

    def round_json(self, state: RoundState, r: RoundResult, active: tuple[int, ...] | None = None) -> JSON:
        """A settled round as the view shows it, made once per round (for the seats still in play) and kept on the
        round: a long game (a tie played again and again: thousands of extra rounds) would otherwise build every
        earlier round's JSON again at each action. The dict is shared by every view that shows it: read-only."""
        made: dict[tuple[int, ...], JSON] = r.__dict__.setdefault("_view", {})  # not a field: eq and hash ignore it
        key = state.active if active is None else active  # "sitting_out": the seats in play that sat it out
        if key not in made:
            made[key] = {
                "number": r.number,
                "kind": r.kind,
                "stages": [self.stage_json(state, s) for s in r.stages],
                "best": list(r.best),
                "loser": r.loser,
                "points": list(r.points),
                "throw_limit": r.throw_limit,
                "blind": r.blind,
            }
        return made[key]

    def view(self, state: RoundState) -> JSON:
        turn: JSON | None = None
        if state.turn is not None and not state.over:
            t = state.turn
            turn = {
                "player": t.player,
                "dice": list(t.dice),
                "faces": faces(t.dice, state.setup.dice_kind),
                "held": list(t.held),
                "fixed": list(t.fixed),
                "throws": t.throws,
                "action": state.thrown if t.started else None,
                "max_throws": self.max_throws(state),
                "hand": {**self.rank(state.setup, t.dice).to_json()} if t.started else None,
            }
        active = state.active
        history = [self.round_json(state, r, active) for r in state.history]
        out: dict[str, Any] = {
            "game": self.id,
            "dice": state.setup.dice_kind.value,
            "players": list(state.setup.players),
            "round": state.number,
            "round_kind": state.kind,
            "starter": state.starter,
            "stage": self.stage_json(state, state.stage),
            "earlier_stages": [self.stage_json(state, s) for s in state.stages],
            "rolloff": (
                {"players": list(state.stage.order), "depth": len(state.stages)}
                if state.stage.kind == "rolloff"
                else None
            ),
            "turn": turn,
            "throw_limit": state.throw_limit,
            "blind": state.blind,
            "strikes": list(state.strikes),
            "scores": list(state.scores),
            "out": list(state.out),
            "history": history,
            "over": state.over,
        }
        return out
