"""The frame every game stands on.

A game is a value built by folding its action log through its rules (see guide/ARCHITECTURE.md).
``Rules`` is the per-game behaviour (pure functions of an immutable state); ``GameLog`` is the
setup plus the list of actions, with the folded states cached so undo is a slice, not a replay.
Each game module registers its ``Rules`` with :func:`register`; :func:`rules_for` finds it.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from companion import numbers
from companion.dice import DiceKind, parse_dice, parse_kind
from companion.errors import IllegalAction, MalformedInput, Message

__all__ = [
    "Action",
    "GameLog",
    "Option",
    "Outcome",
    "Rules",
    "Setting",
    "Setup",
    "Standing",
    "all_rules",
    "register",
    "rules_for",
]

JSON = dict[str, Any]
LOG_FORMAT = 1


# --------------------------------------------------------------------------- settings and setup


@dataclass(frozen=True)
class Setting:
    """One documented game setting: its default, allowed values, and a line of help in German and English."""

    name: str
    default: bool | int | str
    help_en: str
    help_de: str
    choices: tuple[str, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, value: object) -> bool | int | str:
        """Validate one value against this setting; refuse with a message naming the setting."""
        if isinstance(self.default, bool):
            if isinstance(value, bool):
                return value
            raise MalformedInput(
                "Setting '{name}' is on or off (true/false), not {value}.", name=self.name, value=repr(value)
            )
        if isinstance(self.default, int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise MalformedInput(
                    "Setting '{name}' must be a whole number, not {value}.", name=self.name, value=repr(value)
                )
            if self.minimum is not None and value < self.minimum:
                raise MalformedInput(
                    "Setting '{name}' must be at least {minimum}, not {value}.",
                    name=self.name,
                    minimum=self.minimum,
                    value=value,
                )
            if self.maximum is not None and value > self.maximum:
                raise MalformedInput(
                    "Setting '{name}' must be at most {maximum}, not {value}.",
                    name=self.name,
                    maximum=self.maximum,
                    value=value,
                )
            return value
        if not isinstance(value, str):
            raise MalformedInput("Setting '{name}' must be text, not {value}.", name=self.name, value=repr(value))
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(self.choices)
            raise MalformedInput(
                "Setting '{name}' must be one of {allowed}, not {value}.",
                name=self.name,
                allowed=allowed,
                value=repr(value),
            )
        return value

    def to_json(self) -> JSON:
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}


DICE_SETTING = Setting(
    "dice",
    "pip",
    "Which dice are thrown: pip dice (1-6) or poker dice (9 10 J Q K A).",
    "Welche Würfel geworfen werden: Augenwürfel (1-6) oder Pokerwürfel (9 10 J Q K A).",
    choices=("pip", "poker"),
)


@dataclass(frozen=True)
class Setup:
    """Who plays what with which settings; everything a game needs before its first action."""

    game: str
    players: tuple[str, ...]
    settings: tuple[tuple[str, bool | int | str], ...]

    def get(self, name: str) -> Any:
        for key, value in self.settings:
            if key == name:
                return value
        raise KeyError(name)

    @functools.cached_property
    def dice_kind(self) -> DiceKind:
        """Asked at every die of every action: read once (the setup never changes)."""
        return parse_kind(dict(self.settings).get("dice", "pip"))

    def to_json(self) -> JSON:
        return {"game": self.game, "players": list(self.players), "settings": dict(self.settings)}


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Action:
    """Base of every action record. ``kind`` names it in the log; ``player`` is a seat index.

    Subclasses are frozen dataclasses whose fields are ints, bools, strs, optional ints, or tuples
    of ints; that keeps JSON round-trips generic (see :meth:`from_json`). Dice fields are named
    ``dice`` (or end in ``_dice``) and accept printed faces on input.
    """

    kind: ClassVar[str] = ""
    player: int

    def to_json(self) -> JSON:
        out: JSON = {"type": self.kind}
        cls = type(self)
        for f in _FIELDS_OF.get(cls) or _FIELDS_OF.setdefault(cls, dataclasses.fields(cls)):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, object], dice_kind: DiceKind | None = None) -> Action:
        """Build and type-check an action from JSON; unknown or missing fields are refused by name."""
        hints, names = _field_types(cls)
        extra = set(obj) - names - {"type"}
        if extra:
            raise MalformedInput("Action '{kind}' has no field {value}.", kind=cls.kind, value=repr(sorted(extra)[0]))
        values: dict[str, object] = {}
        for f in _FIELDS_OF.get(cls) or _FIELDS_OF.setdefault(cls, dataclasses.fields(cls)):
            if f.name not in obj:
                if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
                    continue
                raise MalformedInput("Action '{kind}' needs the field '{name}'.", kind=cls.kind, name=f.name)
            values[f.name] = _coerce(cls.kind, f.name, hints[f.name], obj[f.name], dice_kind)
        return cls(**values)  # type: ignore[arg-type]


_FIELD_TYPES: dict[type[Action], tuple[dict[str, Any], frozenset[str]]] = {}
_FIELDS_OF: dict[type[Action], tuple[dataclasses.Field[Any], ...]] = {}


def _field_types(cls: type[Action]) -> tuple[dict[str, Any], frozenset[str]]:
    """Resolved field types per action class; resolving them is slow and they never change."""
    if cls not in _FIELD_TYPES:
        _FIELD_TYPES[cls] = typing.get_type_hints(cls), frozenset(f.name for f in dataclasses.fields(cls))
    return _FIELD_TYPES[cls]


_HINTS: dict[object, tuple[object, tuple[Any, ...]]] = {}


def _coerce(action: str, name: str, hint: object, value: object, dice_kind: DiceKind | None) -> object:
    if hint is int and type(value) is int:  # the common case first: an import coerces thousands of these
        return value
    where = Message("Field '{name}' of action '{action}'", name=name, action=action)
    if hint not in _HINTS:
        _HINTS[hint] = typing.get_origin(hint), typing.get_args(hint)
    origin, args = _HINTS[hint]
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(action, name, inner[0], value, dice_kind)
    if origin is tuple:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise MalformedInput("{where} must be a list.", where=where)
        if name == "dice" or name.endswith("_dice"):
            return parse_dice(value, dice_kind)
        elem = args[0] if args else int
        return tuple(_coerce(action, name, elem, v, dice_kind) for v in value)
    if hint is bool:
        if not isinstance(value, bool):
            raise MalformedInput("{where} must be true or false.", where=where)
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise MalformedInput("{where} must be a whole number.", where=where)
        return value
    if hint is str:
        if not isinstance(value, str):
            raise MalformedInput("{where} must be text.", where=where)
        return value
    raise MalformedInput(
        "{where} has a type this log cannot read.", where=where
    )  # pragma: no cover - programming error


# --------------------------------------------------------------------------- answers every game gives


@dataclass(frozen=True)
class Option:
    """One thing that may be done now, with what it would give (for pages and for help)."""

    action: str
    player: int
    label: str = ""
    points: int | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSON:
        return {
            "action": self.action,
            "player": self.player,
            "label": self.label,
            "points": self.points,
            **dict(self.detail),
        }


@dataclass(frozen=True)
class Standing:
    """One player's line in the ranking. ``place`` is 1-based; equal places share a number."""

    player: int
    name: str
    place: int
    score: int | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSON:
        return {"player": self.player, "name": self.name, "place": self.place, "score": self.score, **dict(self.detail)}


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: the winner(s) (several only where places are shared) and why."""

    winners: tuple[int, ...]
    reason: str

    def to_json(self) -> JSON:
        return {"winners": list(self.winners), "reason": self.reason}


def places(scores: Sequence[tuple[int, float]], higher_is_better: bool = True) -> dict[int, int]:
    """Competition ranking (1, 2, 2, 4) of ``(player, score)`` pairs: equal scores share a place."""
    ordered = sorted(scores, key=lambda ps: -ps[1] if higher_is_better else ps[1])
    result: dict[int, int] = {}
    for i, (player, score) in enumerate(ordered):
        if i and score == ordered[i - 1][1]:
            result[player] = result[ordered[i - 1][0]]
        else:
            result[player] = i + 1
    return result


# --------------------------------------------------------------------------- rules


S = TypeVar("S")


class Rules(ABC, Generic[S]):
    """A game's rules as pure functions of an immutable state ``S``.

    ``verify`` raises :class:`IllegalAction` for an action not allowed now; ``apply`` assumes a
    verified action and returns the new state. Nothing here mutates a state.
    """

    id: ClassVar[str]
    name_en: ClassVar[str]
    name_de: ClassVar[str]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 8
    settings: ClassVar[tuple[Setting, ...]] = ()
    actions: ClassVar[tuple[type[Action], ...]] = ()

    def title(self) -> Message:
        """The name inside a refusal: a Message, so the catalogue says it as the pages do in the reader's language."""
        return Message(self.name_en)

    # How this game settles what its rule text leaves open (guide/RULES.md, docs/games/<id>.md "readings"):
    # one sentence each, shown by the rules help so players know which reading is in force.
    readings_en: ClassVar[tuple[str, ...]] = ()
    readings_de: ClassVar[tuple[str, ...]] = ()

    # -- setup
    def make_setup(self, players: Sequence[str], settings: Mapping[str, object] | None = None) -> Setup:
        """Validate players and settings; defaults fill what is not given, unknown names are refused."""
        names = tuple(str(p).strip() for p in players)
        if any(not n for n in names):
            raise MalformedInput("Every player needs a name.")
        if len(set(n.casefold() for n in names)) != len(names):
            raise MalformedInput("Two players have the same name; give each a different one.")
        given = dict(settings or {})
        known = {s.name: s for s in self.settings}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise MalformedInput("Game '{id}' has no setting '{unknown}'.", id=self.id, unknown=unknown[0])
        values = tuple((s.name, s.parse(given[s.name]) if s.name in given else s.default) for s in self.settings)
        setup = Setup(self.id, names, values)
        lo, hi = self.player_range(setup)
        if not lo <= len(names) <= hi and lo == hi:
            raise MalformedInput(
                "{name_en} is played by {lo} players, not {count}.", name_en=self.title(), lo=lo, count=len(names)
            )
        if not lo <= len(names) <= hi:
            raise MalformedInput(
                "{name_en} is played by {lo} to {hi} players, not {count}.",
                name_en=self.title(),
                lo=lo,
                hi=hi,
                count=len(names),
            )
        return setup

    def player_range(self, setup: Setup) -> tuple[int, int]:
        """Allowed player counts; a game may widen it through a setting."""
        return self.min_players, self.max_players

    @abstractmethod
    def new(self, setup: Setup) -> S:
        """The state before the first action."""

    # -- actions
    def parse_action(self, obj: Mapping[str, object], setup: Setup) -> Action:
        """JSON to an action record of this game (malformed input is refused here, rules later)."""
        if not isinstance(obj, Mapping):
            raise MalformedInput("An action must be a JSON object.")
        kind = obj.get("type")
        for cls in self.actions:
            if cls.kind == kind:
                action = cls.from_json(obj, setup.dice_kind)
                if not 0 <= action.player < len(setup.players):
                    raise MalformedInput("There is no player {player} in this game.", player=action.player)
                return action
        allowed = ", ".join(c.kind for c in self.actions)
        raise MalformedInput(
            "{name_en} has no action {kind}; its actions are {allowed}.",
            name_en=self.title(),
            kind=repr(kind),
            allowed=allowed,
        )

    @abstractmethod
    def verify(self, state: S, action: Action) -> None:
        """Raise :class:`IllegalAction` unless ``action`` may be done now."""

    def can(self, state: S, action: Action) -> bool:
        try:
            self.verify(state, action)
        except IllegalAction:
            return False
        return True

    @abstractmethod
    def apply(self, state: S, action: Action) -> S:
        """The state after a verified action."""

    # -- answers
    @abstractmethod
    def to_move(self, state: S) -> int | None:
        """The seat whose action the game waits for, or None when the game is over."""

    @abstractmethod
    def options(self, state: S) -> list[Option]:
        """What may be done now, with what each choice would give."""

    @abstractmethod
    def standings(self, state: S) -> list[Standing]:
        """Every player's line, best first."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """None while the game goes on."""

    @abstractmethod
    def view(self, state: S) -> JSON:
        """Everything the score block shows for this game, as JSON (game-specific shape)."""

    @abstractmethod
    def hand(self, dice: Sequence[int], setup: Setup, all_five: bool = False) -> JSON:
        """What a throw is worth in this game (the ``becher hand`` contract)."""

    def describe(self) -> JSON:
        return {
            "id": self.id,
            "name_en": self.name_en,
            "name_de": self.name_de,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "settings": [s.to_json() for s in self.settings],
            "actions": [c.kind for c in self.actions],
            "readings_en": list(self.readings_en),
            "readings_de": list(self.readings_de),
        }


_REGISTRY: dict[str, Rules[Any]] = {}


def register(rules: Rules[Any]) -> Rules[Any]:
    _REGISTRY[rules.id] = rules
    return rules


def _load_games() -> None:
    import companion.games  # noqa: F401  (registers every game on import)


def rules_for(game: str) -> Rules[Any]:
    _load_games()
    try:
        return _REGISTRY[game]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise MalformedInput("There is no game {game}; the games are {known}.", game=repr(game), known=known) from None


def all_rules() -> list[Rules[Any]]:
    _load_games()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


# --------------------------------------------------------------------------- the log


SNAPSHOT_EVERY = 32  # actions between the folded states a log keeps for undo


@dataclass(frozen=True)
class Folded:
    """A game as it stood after ``len(actions)`` actions: read-only, so a reader may use it while a writer extends
    the log it came from (the server answers reads from it without folding the log again)."""

    rules: Rules[Any]
    setup: Setup
    state: Any
    actions: tuple[Action, ...]

    def __len__(self) -> int:
        return len(self.actions)

    def summary(self) -> JSON:
        """The whole picture for a client: setup, turn, options, standings, outcome and the game's view."""
        rules, state = self.rules, self.state
        outcome = rules.outcome(state)
        return {
            **self.setup.to_json(),
            "actions": len(self.actions),
            "to_move": rules.to_move(state),
            "options": [o.to_json() for o in rules.options(state)],
            "standings": [s.to_json() for s in rules.standings(state)],
            "outcome": outcome.to_json() if outcome else None,
            "view": rules.view(state),
        }

    def to_jsonl(self) -> str:
        """Header line with the setup, then one action a line."""
        header = {"becher": LOG_FORMAT, **self.setup.to_json()}
        lines = [json.dumps(header, ensure_ascii=False)]
        lines.extend(json.dumps(a.to_json(), ensure_ascii=False) for a in self.actions)
        return "\n".join(lines) + "\n"


class GameLog:
    """A game as its setup and action list, folded as it grows.

    ``play`` verifies before it applies: a refused action leaves the log exactly as it was. The log keeps the folded
    state after every ``SNAPSHOT_EVERY`` actions (not after each: a game of 20,000 actions would hold 20,000 states),
    so an undo folds again at most that many actions from the nearest one.
    """

    def __init__(self, rules: Rules[Any], setup: Setup, actions: Iterable[Action | Mapping[str, object]] = ()):
        self.rules = rules
        self.setup = setup
        self._actions: list[Action] = []
        self._state: Any = rules.new(setup)
        self._snapshots: dict[int, Any] = {0: self._state}
        for number, action in enumerate(actions, start=1):
            try:
                self.play(action)
            except (MalformedInput, IllegalAction) as exc:
                raise type(exc)(f"Action {number} of the log cannot be replayed: {exc}") from exc

    @classmethod
    def new(cls, game: str, players: Sequence[str], settings: Mapping[str, object] | None = None) -> GameLog:
        rules = rules_for(game)
        return cls(rules, rules.make_setup(players, settings))

    # -- state
    @property
    def state(self) -> Any:
        return self._state

    def folded(self) -> Folded:
        """This log as it stands now, for readers (immutable, unlike the log)."""
        return Folded(self.rules, self.setup, self._state, tuple(self._actions))

    @property
    def actions(self) -> tuple[Action, ...]:
        return tuple(self._actions)

    def __len__(self) -> int:
        return len(self._actions)

    def parse(self, action: Action | Mapping[str, object]) -> Action:
        if isinstance(action, Action):
            if type(action) not in self.rules.actions:
                raise MalformedInput("{name_en} has no action '{kind}'.", name_en=self.rules.title(), kind=action.kind)
            return action
        return self.rules.parse_action(action, self.setup)

    def check(self, action: Action | Mapping[str, object]) -> Action:
        """Parse and verify without applying; raises if refused."""
        parsed = self.parse(action)
        self.rules.verify(self.state, parsed)
        return parsed

    def play(self, action: Action | Mapping[str, object]) -> Any:
        parsed = self.check(action)
        new_state = self.rules.apply(self.state, parsed)
        self._actions.append(parsed)
        self._state = new_state
        if len(self._actions) % SNAPSHOT_EVERY == 0:
            self._snapshots[len(self._actions)] = new_state
        return new_state

    def undo(self, count: int = 1) -> list[Action]:
        """Drop the last ``count`` actions; returns them, oldest first."""
        if count < 0:
            raise MalformedInput("Undo needs a count of zero or more.")
        if count > len(self._actions):
            raise IllegalAction(
                "Only {count} actions can be undone, not {count2}.", count=len(self._actions), count2=count
            )
        if count == 0:
            return []
        removed = self._actions[-count:]
        del self._actions[-count:]
        left = len(self._actions)
        base = left - left % SNAPSHOT_EVERY
        for n in [n for n in self._snapshots if n > base]:
            del self._snapshots[n]
        state = self._snapshots[base]
        for action in self._actions[base:]:  # verified when they were played: applied again as they are
            state = self.rules.apply(state, action)
        self._state = state
        return removed

    # -- answers
    def to_move(self) -> int | None:
        return self.rules.to_move(self.state)

    def options(self) -> list[Option]:
        return self.rules.options(self.state)

    def standings(self) -> list[Standing]:
        return self.rules.standings(self.state)

    def outcome(self) -> Outcome | None:
        return self.rules.outcome(self.state)

    def summary(self) -> JSON:
        """The whole picture for a client: setup, turn, options, standings, outcome and the game's view."""
        return Folded(self.rules, self.setup, self._state, ()).summary() | {"actions": len(self._actions)}

    # -- export and import
    def to_jsonl(self) -> str:
        """Header line with the setup, then one action a line."""
        return self.folded().to_jsonl()

    @classmethod
    def from_jsonl(cls, text: str) -> GameLog:
        rows: list[Any] = []
        line_numbers: list[int] = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            line_numbers.append(number)
            try:
                rows.append(numbers.loads(line))
            except numbers.TooLarge:
                raise MalformedInput(
                    "Line {number} of the log holds a number larger than Becher takes (at most {largest}); send the "
                    ".jsonl file Becher exported.",
                    number=number,
                    largest=numbers.LARGEST,
                ) from None
            except json.JSONDecodeError as exc:
                raise MalformedInput(
                    "Line {number} of the log is not JSON: {msg}.", number=number, msg=exc.msg
                ) from None
            except ValueError:  # NaN or Infinity, which Python reads and JSON does not have
                raise MalformedInput(
                    "Line {number} of the log is not JSON: {msg}.", number=number, msg="NaN or Infinity"
                ) from None
            except RecursionError:  # the parser's own limit: a line built to exhaust the stack
                raise MalformedInput(
                    "Line {number} of the log is nested too deeply; send the .jsonl file Becher exported.",
                    number=number,
                ) from None
        if not rows or not isinstance(rows[0], dict) or "game" not in rows[0]:
            raise MalformedInput("The log must start with a header line naming the game and players.")
        header = rows[0]
        if header.get("becher", LOG_FORMAT) != LOG_FORMAT:
            found = header.get("becher")
            raise MalformedInput(
                "This log has format {found}; this Becher reads format {LOG_FORMAT}.",
                found=repr(found),
                LOG_FORMAT=LOG_FORMAT,
            )
        players = header.get("players")
        if not isinstance(players, list):
            raise MalformedInput("The log header must list the players.")
        settings = header.get("settings") or {}
        if not isinstance(settings, dict):
            raise MalformedInput("The log header's settings must be an object.")
        rules = rules_for(str(header["game"]))
        log = cls(rules, rules.make_setup(players, settings))
        for count, (number, row) in enumerate(zip(line_numbers[1:], rows[1:], strict=True), start=1):
            try:
                log.play(row)
            except (MalformedInput, IllegalAction) as exc:
                raise type(exc)(f"Line {number} of the log (action {count}) cannot be replayed: {exc}") from exc
        return log
