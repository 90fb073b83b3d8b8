"""Classic Würfelpoker, the pub game (guide/RULES.md ``classic``, rule text 003).

Three modes share one game id: ``strikes`` (the lowest hand of a round takes a strike; three and
you are out), ``points`` (a fixed number of rounds scored from a table) and ``bluff`` (hands
announced from under the cup, believed or doubted). The first two are round-based play
(:mod:`companion.rounds`); bluff has its own state. :class:`ClassicRules` is the one registered
face of all three and hands each call to the engine of the state it is given.

Readings in force (docs/games/classic.md): in points mode the start passes to the next seat each
round; a roll-off for lowest keeps the round's throw limit (and a blind round stays blind); in
bluff mode a claim is an exact hand written as five dice, and the five-sixes claim is the top
hand under the game's ranking.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

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
from companion.dice import DiceKind, faces
from companion.english import count
from companion.errors import N_, IllegalAction, MalformedInput, Message
from companion.hands import HandRank, HandRules, evaluate, parse_points_table
from companion.rounds import THROWS, Hand, RoundRules, RoundState, check_dice, check_seat, check_whole
from companion.turns import DICE, Stand, Throw

__all__ = [
    "Announce",
    "Believe",
    "Blind",
    "BluffState",
    "Claim",
    "ClassicRules",
    "Doubt",
    "Rethrow",
    "Reveal",
    "Take",
]

MODES = ("strikes", "points", "bluff")
DEFAULT_TABLE = "50 40 30 25 20 15 10 5 0"
TOP_HAND = (6, 6, 6, 6, 6)


def _house_rule(name: str, en: str, de: str) -> Setting:
    return Setting(name, False, f"House rule: {en}", f"Hausregel: {de}")


SETTINGS: tuple[Setting, ...] = (
    DICE_SETTING,
    Setting(
        "mode",
        "strikes",
        "Strikes (lowest hand takes a strike), points (a fixed number of rounds), or bluff (announce under the cup).",
        "Striche (das niedrigste Blatt bekommt einen Strich), Punkte (feste Rundenzahl) oder Bluff (verdeckt ansagen).",
        choices=MODES,
    ),
    Setting(
        "throw_limit",
        True,
        "The number of throws the round's first player used is the maximum for the others.",
        "Die Zahl der Würfe der ersten Person ist das Maximum für alle anderen.",
    ),
    Setting(
        "strike_limit",
        3,
        "Strikes that put a player out (strikes and bluff modes).",
        "Striche, bei denen man ausscheidet (Strich- und Bluffvariante).",
        minimum=1,
        maximum=10,
    ),
    Setting(
        "end_at_first_out",
        False,
        "The game ends at the first player with the last strike (that player loses) instead of playing on.",
        "Das Spiel endet beim ersten Spieler mit dem letzten Strich (er verliert), statt weiterzuspielen.",
    ),
    Setting(
        "rounds",
        5,
        "Rounds in points mode.",
        "Runden in der Punktevariante.",
        minimum=1,
        maximum=30,
    ),
    Setting(
        "points_table",
        DEFAULT_TABLE,
        "Points in points mode, nine numbers: five of a kind (Grande), four of a kind (Poker), full house, large "
        "straight, small straight, three of a kind, two pairs, pair, nothing.",
        "Punkte der Punktevariante, neun Zahlen: Grande, Poker, Full House, Große Straße, Kleine Straße, Drilling, "
        "Zwei Paare, Paar, Nichts.",
    ),
    _house_rule(
        "held_fixed",
        "held dice are fixed: dice set aside stay aside for the rest of the turn.",
        "behaltene Würfel sind fest: was herausgelegt wurde, bleibt liegen.",
    ),
    _house_rule(
        "ace_joker",
        "ace as joker: each 6 (ace) counts as whatever value makes the best hand.",
        "Ass als Joker: jede 6 (jedes Ass) zählt als beliebiger Wert.",
    ),
    _house_rule(
        "blind_first_throw",
        "blind first throw: the starter may stand on an unseen first throw; then everyone gets one unseen throw.",
        "blind würfeln: wer den ersten Wurf ungesehen stehen lässt, zwingt alle zu einem blinden Wurf.",
    ),
    _house_rule(
        "gap_straight",
        "straight with a gap: 1-2-3-4-6 counts as a small straight, just below a true 1-2-3-4-5.",
        "Straße mit Lücke: 1-2-3-4-6 zählt als Kleine Straße, knapp unter 1-2-3-4-5.",
    ),
    _house_rule(
        "straight_above_full_house",
        "straights rank above the full house (large straight > small straight > full house).",
        "Straßen stehen über dem Full House (Große Straße > Kleine Straße > Full House).",
    ),
)


def hand_rules_for(setup: Setup) -> HandRules:
    return HandRules(
        "classic",
        ace_joker=bool(setup.get("ace_joker")),
        gap_straight=bool(setup.get("gap_straight")),
        straight_above_full_house=bool(setup.get("straight_above_full_house")),
        points=parse_points_table(str(setup.get("points_table"))) if setup.get("mode") == "points" else None,
    )


# --------------------------------------------------------------------------- actions of classic only


@dataclass(frozen=True)
class Blind(Action):
    """House rule: the round's starter stands on an unseen first throw; every player then throws once, unseen."""

    kind = "blind"


@dataclass(frozen=True)
class Announce(Action):
    """Bluff: the hand claimed to be under the cup, as five dice (it may be a lie)."""

    kind = "announce"
    dice: tuple[int, ...]


@dataclass(frozen=True)
class Believe(Action):
    """Bluff: the next player believes the claim and takes the cup."""

    kind = "believe"


@dataclass(frozen=True)
class Rethrow(Action):
    """Bluff: after believing, the player rethrows ``count`` dice (once) before announcing."""

    kind = "rethrow"
    count: int


@dataclass(frozen=True)
class Doubt(Action):
    """Bluff: the next player doubts; the cup is lifted and the dice are revealed next."""

    kind = "doubt"


@dataclass(frozen=True)
class Reveal(Action):
    """Bluff: the dice under the lifted cup, as the camera read them or as entered."""

    kind = "reveal"
    dice: tuple[int, ...]


@dataclass(frozen=True)
class Take(Action):
    """Bluff: facing five sixes, the next player takes one strike instead of lifting."""

    kind = "take"


# --------------------------------------------------------------------------- strikes shared by two modes


def _strike_standings(setup: Setup, strikes: Sequence[int], out: Sequence[int]) -> list[Standing]:
    """Players still in by fewer strikes; those out after them, the later out the better."""
    n = len(setup.players)
    order_value: list[tuple[int, float]] = []
    for p in range(n):
        value = -1000.0 + out.index(p) if p in out else -float(strikes[p])
        order_value.append((p, value))
    place = places(order_value)
    limit = int(setup.get("strike_limit"))
    return [
        Standing(
            p,
            setup.players[p],
            place[p],
            strikes[p],
            {"strikes": strikes[p], "out": p in out, "strike_limit": limit},
        )
        for p in sorted(range(n), key=lambda q: (place[q], q))
    ]


def _strike_outcome(setup: Setup, strikes: Sequence[int], out: Sequence[int]) -> Outcome:
    active = [p for p in range(len(setup.players)) if p not in out]
    limit = int(setup.get("strike_limit"))
    if len(active) == 1:
        return Outcome(
            (active[0],),
            f"{setup.players[active[0]]} is the last player left; the others have {count(limit, 'strike')}.",
        )
    fewest = min(strikes[p] for p in active)
    winners = tuple(p for p in active if strikes[p] == fewest)
    loser = setup.players[out[-1]]
    return Outcome(winners, f"{loser} has {count(limit, 'strike')} and loses; the fewest strikes win.")


def _next_active(start: int, seats: int, out: Sequence[int]) -> int:
    """``start`` if still in, else the next seat that is."""
    return next(s % seats for s in range(start, start + seats) if s % seats not in out)


# --------------------------------------------------------------------------- strikes and points


class ClassicRounds(RoundRules):
    """Strikes and points modes as round-based play (not registered; :class:`ClassicRules` is)."""

    id = "classic"
    name_en = N_("Dice poker (classic)")
    name_de = "Würfelpoker (klassisch)"
    settings = SETTINGS
    actions: ClassVar[tuple[type[Action], ...]] = (Throw, Stand, Blind)

    def hand_rules(self, setup: Setup) -> HandRules:
        return hand_rules_for(setup)

    def held_fixed(self, setup: Setup) -> bool:
        return bool(setup.get("held_fixed"))

    def max_throws(self, state: RoundState) -> int:
        if state.blind:
            return 1
        return state.throw_limit if state.throw_limit is not None else THROWS

    def after_hand(self, state: RoundState, hand: Hand) -> RoundState:
        # classic rule 3: the round's first player sets the limit; a roll-off keeps the round's limit.
        first_of_round = state.stage.kind == "round" and len(state.stage.hands) == 1
        if first_of_round and state.setup.get("throw_limit") and not state.blind:
            return dataclasses.replace(state, throw_limit=hand.throws)
        return state

    def _can_go_blind(self, state: RoundState) -> Message | None:
        """Why the blind first throw is not possible now, or None when it is."""
        if not state.setup.get("blind_first_throw"):
            return Message("The blind first throw is a house rule that is off in this game.")
        if state.stage.kind != "round" or state.stage.hands or state.blind:
            return Message("Only the round's starter can stand on a blind first throw, before the round's first throw.")
        if state.turn is None or state.turn.started:
            return Message("The blind first throw is decided before the first throw is looked at.")
        return None

    def verify_other(self, state: RoundState, action: Action) -> None:
        if isinstance(action, Blind):
            reason = self._can_go_blind(state)
            if reason:
                raise IllegalAction(reason)
            return
        raise IllegalAction(
            "'{kind}' belongs to the bluff mode; this game is played for {mode}.",
            kind=action.kind,
            mode=Message("points") if self._mode(state) == "points" else Message("strikes"),
        )

    def apply_other(self, state: RoundState, action: Action) -> RoundState:
        return dataclasses.replace(state, blind=True, throw_limit=1)

    def other_options(self, state: RoundState) -> list[Option]:
        if self._can_go_blind(state) is not None or state.turn is None:
            return []
        p = state.turn.player
        return [Option("blind", p, "Stand on a blind first throw", detail={"type": "blind", "player": p})]

    def _mode(self, state: RoundState) -> str:
        return str(state.setup.get("mode"))

    def settle(self, state: RoundState) -> RoundState:
        if self._mode(state) == "points":
            return self._settle_points(state)
        return self._settle_strikes(state)

    def _round_best(self, state: RoundState) -> list[int]:
        first = state.stages[0] if state.stages else state.stage
        keys = self.keys(state, first)
        top = max(keys.values())
        return [h.player for h in first.hands if keys[h.player] == top]

    def _settle_strikes(self, state: RoundState) -> RoundState:
        keys = self.keys(state)
        low = min(keys.values())
        lowest = [h.player for h in state.stage.hands if keys[h.player] == low]
        if len(lowest) > 1:  # rule 4: only the exactly tied play the round again
            return self.begin_rolloff(state, lowest)
        loser = lowest[0]
        limit = int(state.setup.get("strike_limit"))
        strikes = list(state.strikes)
        strikes[loser] = min(limit, strikes[loser] + 1)
        state = dataclasses.replace(
            self.close_round(state, self._round_best(state), loser=loser), strikes=tuple(strikes)
        )
        if strikes[loser] < limit:
            return self.begin_round(state, starter=loser)
        state = dataclasses.replace(state, out=(*state.out, loser))
        if state.setup.get("end_at_first_out") or len(state.active) <= 1:
            return self.finish(state)
        return self.begin_round(state, starter=_next_active(loser, state.seats, state.out))

    def _settle_points(self, state: RoundState) -> RoundState:
        keys = self.keys(state)
        points = [0] * state.seats
        for player, rank in keys.items():
            points[player] = rank.points or 0
        state = self.close_round(state, self._round_best(state), points=points)
        if state.number >= int(state.setup.get("rounds")):
            return self.finish(state)
        return self.begin_round(state, starter=(state.starter + 1) % state.seats)

    def standings(self, state: RoundState) -> list[Standing]:
        if self._mode(state) == "strikes":
            return _strike_standings(state.setup, state.strikes, state.out)
        place = places([(p, s) for p, s in enumerate(state.scores)])
        return [
            Standing(
                p,
                state.setup.players[p],
                place[p],
                state.scores[p],
                {"rounds": [r.points[p] for r in state.history]},
            )
            for p in sorted(range(state.seats), key=lambda q: (place[q], q))
        ]

    def outcome(self, state: RoundState) -> Outcome | None:
        if not state.over:
            return None
        if self._mode(state) == "strikes":
            return _strike_outcome(state.setup, state.strikes, state.out)
        top = max(state.scores)
        winners = tuple(p for p in range(state.seats) if state.scores[p] == top)
        shared = " (shared)" if len(winners) > 1 else ""
        return Outcome(winners, f"Highest total after {count(state.number, 'round')}: {count(top, 'point')}{shared}.")

    def view(self, state: RoundState) -> JSON:
        setup = state.setup
        return {
            **super().view(state),
            "mode": self._mode(state),
            "strike_limit": setup.get("strike_limit"),
            "rounds": setup.get("rounds") if self._mode(state) == "points" else None,
            "points_table": dict(parse_points_table(str(setup.get("points_table")))),
            "house_rules": _house_rules(setup),
        }


def _house_rules(setup: Setup) -> dict[str, bool]:
    names = ("held_fixed", "ace_joker", "blind_first_throw", "gap_straight", "straight_above_full_house")
    return {name: bool(setup.get(name)) for name in names}


# --------------------------------------------------------------------------- bluff


@dataclass(frozen=True)
class Claim:
    """One announcement: who, the hand claimed, and whether they believed the one before (and rethrew)."""

    player: int
    dice: tuple[int, ...]
    believed: bool = False
    rethrew: int | None = None


@dataclass(frozen=True)
class Sequence_:
    """A finished run of claims: how it ended, what the cup showed, who lost and how many strikes."""

    number: int
    starter: int
    claims: tuple[Claim, ...]
    end: str
    decider: int
    revealed: tuple[int, ...] | None
    loser: int
    strikes: int
    action: int | None = dataclasses.field(default=None, compare=False)  # log index of the reveal


@dataclass(frozen=True)
class BluffState:
    """``phase``: ``announce`` (``player`` claims a hand), ``decide`` (believe, doubt, or take), ``reveal``."""

    setup: Setup
    phase: str
    player: int
    strikes: tuple[int, ...]
    number: int = 1
    starter: int = 0
    claims: tuple[Claim, ...] = ()
    believed: bool = False
    rethrew: int | None = None
    out: tuple[int, ...] = ()
    history: tuple[Sequence_, ...] = ()
    over: bool = False
    played: int = dataclasses.field(default=0, compare=False)  # actions applied so far: the next one's log index

    @property
    def seats(self) -> int:
        return len(self.setup.players)


class ClassicBluff(Rules[BluffState]):
    """Bluff mode (classic rule 6); not registered (:class:`ClassicRules` is)."""

    id = "classic"
    name_en = N_("Dice poker (classic)")
    name_de = "Würfelpoker (klassisch)"
    settings = SETTINGS
    actions: ClassVar[tuple[type[Action], ...]] = (Announce, Believe, Rethrow, Doubt, Reveal, Take)

    def rank(self, setup: Setup, dice: Sequence[int]) -> HandRank:
        return evaluate(dice, hand_rules_for(setup))

    def is_top(self, setup: Setup, dice: Sequence[int]) -> bool:
        """Five sixes (five aces), or a claim equal to it under the ranking: it cannot be raised."""
        return self.rank(setup, dice) == self.rank(setup, TOP_HAND)

    @staticmethod
    def top_name(setup: Setup) -> Message:
        """The unbeatable claim as the players at this table call it."""
        return Message("Five aces") if setup.dice_kind is DiceKind.POKER else Message("Five sixes")

    def new(self, setup: Setup) -> BluffState:
        return BluffState(setup, "announce", 0, (0,) * len(setup.players))

    def _next(self, state: BluffState, player: int) -> int:
        return _next_active(player + 1, state.seats, state.out)

    def verify(self, state: BluffState, action: Action) -> None:
        if state.over:
            raise IllegalAction("The game is over; nothing more can be played.")
        check_seat(action.player, state.seats)
        names = state.setup.players
        if action.player != state.player:
            if action.player in state.out:
                raise IllegalAction(
                    "{player} is out of the game; it is {player2}'s turn.",
                    player=names[action.player],
                    player2=names[state.player],
                )
            if state.phase == "reveal" and isinstance(action, Reveal):
                raise IllegalAction(
                    "{expected} The dice are entered as {player}'s action.",
                    expected=self._expected(state),
                    player=names[state.player],
                )
            raise IllegalAction(
                "It is {player}'s turn, not {player2}'s.", player=names[state.player], player2=names[action.player]
            )
        last = state.claims[-1] if state.claims else None
        if isinstance(action, Announce):
            if state.phase == "decide" and last is not None and self.is_top(state.setup, last.dice):
                raise IllegalAction(
                    "{top_name} cannot be raised: take one strike or lift the cup.", top_name=self.top_name(state.setup)
                )
            if state.phase != "announce":
                raise IllegalAction(self._expected(state))
            if len(action.dice) != DICE:
                raise MalformedInput(
                    "A claim names a hand of {DICE} dice, not {count}.", DICE=DICE, count=len(action.dice)
                )
            check_dice(action.dice)
            if last is not None and self.rank(state.setup, action.dice) <= self.rank(state.setup, last.dice):
                claimed = self.rank(state.setup, last.dice).label_en
                raise IllegalAction(
                    "The claim must be strictly higher than {player}'s {dice} ({claimed}).",
                    player=names[last.player],
                    dice="-".join(faces(last.dice, state.setup.dice_kind)),
                    claimed=Message(claimed),
                )
        elif isinstance(action, Rethrow):
            if state.phase != "announce" or not state.believed:
                raise IllegalAction("Only a player who believed the claim may rethrow, before announcing.")
            if state.rethrew is not None:
                raise IllegalAction("The dice may be rethrown only once; now announce.")
            check_whole(action.count, Message("The number of dice rethrown"))
            if not 1 <= action.count <= DICE:
                raise MalformedInput("A rethrow throws 1 to {DICE} dice, not {count}.", DICE=DICE, count=action.count)
        elif isinstance(action, Believe):
            if state.phase != "decide":
                raise IllegalAction(self._expected(state))
            assert last is not None
            if self.is_top(state.setup, last.dice):
                raise IllegalAction(
                    "{top_name} cannot be raised: take one strike or lift the cup.", top_name=self.top_name(state.setup)
                )
        elif isinstance(action, Doubt):
            if state.phase != "decide":
                raise IllegalAction(self._expected(state))
        elif isinstance(action, Take):
            if state.phase != "decide":
                raise IllegalAction(self._expected(state))
            assert last is not None
            if not self.is_top(state.setup, last.dice):
                raise IllegalAction(
                    N_("Taking a strike without lifting is only for a claim of five aces.")
                    if state.setup.dice_kind is DiceKind.POKER
                    else N_("Taking a strike without lifting is only for a claim of five sixes.")
                )
        elif isinstance(action, Reveal):
            if state.phase != "reveal":
                raise IllegalAction(self._expected(state))
            if len(action.dice) != DICE:
                raise MalformedInput("The cup holds {DICE} dice, not {count}.", DICE=DICE, count=len(action.dice))
            check_dice(action.dice)
        else:
            raise IllegalAction(
                "'{kind}' is not a move of the bluff mode; announce, believe or doubt.", kind=action.kind
            )

    def _expected(self, state: BluffState) -> Message:
        names = state.setup.players
        who = names[state.player]
        if state.phase == "announce":
            return Message("{player} must announce a hand now.", player=who)
        last = state.claims[-1]
        if state.phase == "decide":
            if self.is_top(state.setup, last.dice):
                return Message("{player} must take one strike or lift the cup now.", player=who)
            return Message("{player} must believe or doubt the claim now.", player=who)
        claim = "-".join(faces(last.dice, state.setup.dice_kind))
        return Message(
            "{player} lifted the cup: enter the five dice under it ({claimer} claimed {claim}).",
            player=who,
            claimer=names[last.player],
            claim=claim,
        )

    def apply(self, state: BluffState, action: Action) -> BluffState:
        index = state.played
        state = dataclasses.replace(state, played=index + 1)
        if isinstance(action, Announce):
            claim = Claim(action.player, action.dice, state.believed, state.rethrew)
            return dataclasses.replace(
                state,
                phase="decide",
                player=self._next(state, action.player),
                claims=(*state.claims, claim),
                believed=False,
                rethrew=None,
            )
        if isinstance(action, Rethrow):
            return dataclasses.replace(state, rethrew=action.count)
        if isinstance(action, Believe):
            return dataclasses.replace(state, phase="announce", believed=True, rethrew=None)
        if isinstance(action, Doubt):
            return dataclasses.replace(state, phase="reveal")
        last = state.claims[-1]
        if isinstance(action, Take):
            return self._end(state, "take", None, action.player, 1)
        assert isinstance(action, Reveal)
        good = self.rank(state.setup, action.dice) >= self.rank(state.setup, last.dice)
        loser = action.player if good else last.player
        strikes = 2 if self.is_top(state.setup, last.dice) else 1
        return self._end(state, "doubt", action.dice, loser, strikes, index)

    def _end(
        self,
        state: BluffState,
        end: str,
        revealed: tuple[int, ...] | None,
        loser: int,
        n: int,
        reveal: int | None = None,
    ) -> BluffState:
        limit = int(state.setup.get("strike_limit"))
        strikes = list(state.strikes)
        strikes[loser] = min(limit, strikes[loser] + n)
        seq = Sequence_(state.number, state.starter, state.claims, end, state.player, revealed, loser, n, reveal)
        out = (*state.out, loser) if strikes[loser] >= limit else state.out
        over = len(out) > len(state.out) and (bool(state.setup.get("end_at_first_out")) or state.seats - len(out) <= 1)
        starter = loser if over else _next_active(loser, state.seats, out)
        return BluffState(
            setup=state.setup,
            phase="announce",
            player=starter,
            strikes=tuple(strikes),
            number=state.number + 1,
            starter=starter,
            out=out,
            history=(*state.history, seq),
            over=over,
            played=state.played,
        )

    # -- answers
    def to_move(self, state: BluffState) -> int | None:
        return None if state.over else state.player

    def options(self, state: BluffState) -> list[Option]:
        if state.over:
            return []
        p = state.player
        last = state.claims[-1] if state.claims else None
        beat = self.claim_json(state, last) if last else None
        if state.phase == "announce":
            opts = [
                Option(
                    "announce",
                    p,
                    "Announce a hand",
                    detail={"type": "announce", "player": p, "needs": ["dice"], "must_beat": beat},
                )
            ]
            if state.believed and state.rethrew is None:
                opts.append(
                    Option(
                        "rethrow", p, "Rethrow dice once", detail={"type": "rethrow", "player": p, "needs": ["count"]}
                    )
                )
            return opts
        if state.phase == "reveal":
            return [
                Option(
                    "reveal",
                    p,
                    "Enter the revealed dice",
                    detail={"type": "reveal", "player": p, "needs": ["dice"], "claim": beat},
                )
            ]
        assert last is not None
        top = self.is_top(state.setup, last.dice)
        at_stake = 2 if top else 1
        opts = [
            Option(
                "doubt",
                p,
                "Lift the cup",
                detail={"type": "doubt", "player": p, "claim": beat, "strikes_at_stake": at_stake},
            )
        ]
        if top:
            opts.append(Option("take", p, "Take one strike", detail={"type": "take", "player": p, "strikes": 1}))
        else:
            opts.insert(0, Option("believe", p, "Believe", detail={"type": "believe", "player": p, "claim": beat}))
        return opts

    def claim_json(self, state: BluffState, claim: Claim) -> JSON:
        return {
            "player": claim.player,
            "dice": list(claim.dice),
            "faces": faces(claim.dice, state.setup.dice_kind),
            **self.rank(state.setup, claim.dice).to_json(),
            "believed": claim.believed,
            "rethrew": claim.rethrew,
        }

    def standings(self, state: BluffState) -> list[Standing]:
        return _strike_standings(state.setup, state.strikes, state.out)

    def outcome(self, state: BluffState) -> Outcome | None:
        return _strike_outcome(state.setup, state.strikes, state.out) if state.over else None

    def view(self, state: BluffState) -> JSON:
        history = []
        for seq in state.history:
            revealed: JSON | None = None
            if seq.revealed is not None:
                revealed = {
                    "dice": list(seq.revealed),
                    "faces": faces(seq.revealed, state.setup.dice_kind),
                    "action": seq.action,
                    **self.rank(state.setup, seq.revealed).to_json(),
                }
            history.append(
                {
                    "number": seq.number,
                    "starter": seq.starter,
                    "claims": [self.claim_json(state, c) for c in seq.claims],
                    "end": seq.end,
                    "decider": seq.decider,
                    "revealed": revealed,
                    "loser": seq.loser,
                    "strikes": seq.strikes,
                }
            )
        return {
            "game": self.id,
            "mode": "bluff",
            "dice": state.setup.dice_kind.value,
            "players": list(state.setup.players),
            "sequence": state.number,
            "starter": state.starter,
            "phase": None if state.over else state.phase,
            "to_move": self.to_move(state),
            "claims": [self.claim_json(state, c) for c in state.claims],
            "believed": state.believed,
            "rethrew": state.rethrew,
            "strikes": list(state.strikes),
            "strike_limit": state.setup.get("strike_limit"),
            "out": list(state.out),
            "history": history,
            "house_rules": _house_rules(state.setup),
            "over": state.over,
        }

    def hand(self, dice: Sequence[int], setup: Setup, all_five: bool = False) -> JSON:
        return self.rank(setup, dice).to_json()


# --------------------------------------------------------------------------- the registered game

ClassicState = RoundState | BluffState


class ClassicRules(Rules[ClassicState]):
    """The registered classic game: hands each call to the rounds engine or the bluff engine."""

    id = "classic"
    name_en = N_("Dice poker (classic)")
    name_de = "Würfelpoker (klassisch)"
    settings = SETTINGS
    actions: ClassVar[tuple[type[Action], ...]] = (Throw, Stand, Blind, Announce, Believe, Rethrow, Doubt, Reveal, Take)
    readings_en = (
        N_(
            "Round 1 starts with the first seat; in strikes mode the player who took the strike starts the next round, "
            "or the next seat still in if that player is out."
        ),
        N_("An exact tie for the lowest hand: only the tied players play the round again, with the same throw limit."),
        N_(
            "With the throw limit on, the throws the round's first player used are the most anyone else may use in "
            "that "
            "round."
        ),
        N_("In points mode the start passes one seat on each round, and equal totals at the end share the place."),
        N_(
            "Bluff: if the dice under the cup are at least as good as the claim, the doubter takes the strike, "
            "otherwise "
            "the announcer does."
        ),
        N_(
            "Bluff: a claim of five sixes cannot be raised; the next player takes one strike or lifts, and the loser "
            "of "
            "that lift takes two."
        ),
    )
    readings_de = (
        "Runde 1 beginnt der erste Platz; im Strichmodus beginnt, wer den Strich bekam, die nächste Runde, oder der "
        "nächste Platz, der noch im Spiel ist.",
        "Genau gleiche schlechteste Hände: nur diese Spieler spielen die Runde noch einmal, mit derselben Wurfgrenze.",
        "Mit Wurfgrenze darf in der Runde niemand mehr Würfe nutzen als der erste Spieler der Runde.",
        "Im Punktemodus rückt der Beginn jede Runde einen Platz weiter, und gleiche Summen am Ende teilen sich den "
        "Platz.",
        "Bluff: sind die Würfel unter dem Becher mindestens so gut wie die Ansage, bekommt der Zweifler den Strich, "
        "sonst der Ansager.",
        "Bluff: fünf Sechsen lassen sich nicht überbieten; der Nächste nimmt einen Strich oder hebt ab, und wer "
        "dabei verliert, bekommt zwei.",
    )

    def __init__(self) -> None:
        self.rounds = ClassicRounds()
        self.bluff = ClassicBluff()

    def make_setup(self, players: Sequence[str], settings: Mapping[str, object] | None = None) -> Setup:
        setup = super().make_setup(players, settings)
        parse_points_table(str(setup.get("points_table")))  # refuse a bad table before the game starts
        return setup

    def new(self, setup: Setup) -> ClassicState:
        return self.bluff.new(setup) if setup.get("mode") == "bluff" else self.rounds.new(setup)

    def verify(self, state: ClassicState, action: Action) -> None:
        if isinstance(state, BluffState):
            if isinstance(action, (Throw, Stand, Blind)):
                raise IllegalAction(
                    "'{kind}' is not a move of the bluff mode; announce, believe or doubt.", kind=action.kind
                )
            self.bluff.verify(state, action)
        else:
            self.rounds.verify(state, action)

    def apply(self, state: ClassicState, action: Action) -> ClassicState:
        if isinstance(state, BluffState):
            return self.bluff.apply(state, action)
        return self.rounds.apply(state, action)

    def to_move(self, state: ClassicState) -> int | None:
        return self.bluff.to_move(state) if isinstance(state, BluffState) else self.rounds.to_move(state)

    def options(self, state: ClassicState) -> list[Option]:
        return self.bluff.options(state) if isinstance(state, BluffState) else self.rounds.options(state)

    def standings(self, state: ClassicState) -> list[Standing]:
        return self.bluff.standings(state) if isinstance(state, BluffState) else self.rounds.standings(state)

    def outcome(self, state: ClassicState) -> Outcome | None:
        return self.bluff.outcome(state) if isinstance(state, BluffState) else self.rounds.outcome(state)

    def view(self, state: ClassicState) -> JSON:
        return self.bluff.view(state) if isinstance(state, BluffState) else self.rounds.view(state)

    def hand(self, dice: Sequence[int], setup: Setup, all_five: bool = False) -> JSON:
        out: dict[str, Any] = self.rounds.hand(dice, setup, all_five)
        return out


register(ClassicRules())
