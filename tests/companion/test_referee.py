"""A second referee for the round games, written from guide/RULES.md apart from companion/rounds.py.

It reads a game's action log line by line, decides by itself whose hand each action belongs to (turn order,
throw limit, blind rounds, roll-offs, extra rounds, eliminations, who starts next) and keeps its own score,
ranking hands with the plain readings of oracle.py. Every recorded log, the random ones of make_logs.py
and the hand-written ones alike, must end with the same standings and winners as the engine's.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from companion.core import GameLog
from tests.companion.oracle import ace_joker, bone, classic, pokerdice, shape
from tests.companion.play import random_game

LOGS = Path(__file__).parent / "logs"
CLASSIC_DEFAULTS: dict[str, Any] = {
    "mode": "strikes",
    "throw_limit": True,
    "strike_limit": 3,
    "end_at_first_out": False,
    "rounds": 5,
    "points_table": "50 40 30 25 20 15 10 5 0",
    "ace_joker": False,
    "gap_straight": False,
    "straight_above_full_house": False,
}
BONE_POINTS = (5, 10, 15, 20, 25, 30, 35, 40, 50)  # by level: high die ... five alike


@dataclass
class Table:
    """What the referee keeps: the players, their strikes or points, who is out (in order), the winners."""

    players: list[str]
    settings: dict[str, Any]
    actions: Iterator[dict[str, Any]]
    strikes: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    out: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.strikes = [0] * len(self.players)
        self.scores = [0] * len(self.players)

    def active(self) -> list[int]:
        return [p for p in range(len(self.players)) if p not in self.out]

    def next(self, player: int, expected_type: str | None = None) -> dict[str, Any]:
        action = next(self.actions)
        assert action["player"] == player, (action, "expected player", player)
        if expected_type is not None:
            assert action["type"] == expected_type, (action, expected_type)
        return action


def dice_of(action: dict[str, Any]) -> tuple[int, ...]:
    faces = {"9": 1, "10": 2, "J": 3, "Q": 4, "K": 5, "A": 6}
    return tuple(d if isinstance(d, int) else int(d) if d in "123456" else faces[d] for d in action["dice"])


def in_seat_order(start: int, players: list[int], seats: int) -> list[int]:
    return [s % seats for s in range(start, start + seats) if s % seats in players]


def play_hand(table: Table, player: int, limit: int) -> tuple[tuple[int, ...], int]:
    """One player's turn: throws until a stand or the last allowed throw. Returns the dice and the throws used."""
    dice: tuple[int, ...] = ()
    throws = 0
    while True:
        action = table.next(player)
        if action["type"] == "stand":
            return dice, throws
        assert action["type"] == "throw", action
        dice, throws = dice_of(action), throws + 1
        if throws == limit:
            return dice, throws


# --------------------------------------------------------------------------- classic strikes and points


def classic_strength(settings: dict[str, Any]) -> Any:
    if settings["ace_joker"]:
        return ace_joker
    return classic(gap=settings["gap_straight"], straight_above=settings["straight_above_full_house"])


def classic_category(dice: tuple[int, ...], settings: dict[str, Any]) -> int:
    """Index into the points table (Grande first ... Nichts last) of the hand as counted."""
    if settings["ace_joker"]:  # the hand the sixes make at best, by brute force
        plain = tuple(d for d in dice if d != 6)
        fills = itertools.product(range(1, 7), repeat=len(dice) - len(plain))
        dice = max((plain + fill for fill in fills), key=classic())
    s, values = shape(dice), set(dice)
    named = {(5,): 0, (4, 1): 1, (3, 2): 2, (3, 1, 1): 5, (2, 2, 1): 6, (2, 1, 1, 1): 7}
    if s in named:
        return named[s]
    if values == {2, 3, 4, 5, 6}:
        return 3
    if values == {1, 2, 3, 4, 5} or (settings["gap_straight"] and values == {1, 2, 3, 4, 6}):
        return 4
    return 8


def referee_classic_rounds(table: Table) -> None:
    settings = table.settings
    strength = classic_strength(settings)
    seats = len(table.players)
    table_points = [int(x) for x in str(settings["points_table"]).replace(",", " ").split()]
    starter, number = 0, 0
    while True:
        number += 1
        order = in_seat_order(starter, table.active(), seats)
        limit, blind, first = 3, False, True
        players = order
        while True:  # the round, then roll-offs among the lowest
            hands: list[tuple[int, tuple[int, ...]]] = []
            for player in players:
                if first and settings.get("blind_first_throw"):
                    peek = next(table.actions)
                    if peek["type"] == "blind":
                        assert peek["player"] == player
                        blind, limit = True, 1
                    else:
                        table.actions = iter([peek, *table.actions])
                dice, used = play_hand(table, player, limit)
                if first and settings["throw_limit"] and not blind:
                    limit = used  # the round's first player sets the limit
                first = False
                hands.append((player, dice))
            if settings["mode"] == "points":
                for player, dice in hands:
                    table.scores[player] += table_points[classic_category(dice, settings)]
                break
            low = min(strength(d) for _, d in hands)
            lowest = [p for p, d in hands if strength(d) == low]
            if len(lowest) == 1:
                break
            players = lowest  # the exactly tied lowest play again, in the order they threw, same limit
        if settings["mode"] == "points":
            if number == settings["rounds"]:
                top = max(table.scores)
                table.winners = [p for p in range(seats) if table.scores[p] == top]
                return
            starter = (starter + 1) % seats
            continue
        loser = lowest[0]
        table.strikes[loser] += 1
        if table.strikes[loser] < settings["strike_limit"]:
            starter = loser
            continue
        table.out.append(loser)
        if settings["end_at_first_out"] or len(table.active()) == 1:
            fewest = min(table.strikes[p] for p in table.active())
            table.winners = [p for p in table.active() if table.strikes[p] == fewest]
            return
        starter = in_seat_order(loser, table.active(), seats)[0]


# --------------------------------------------------------------------------- classic bluff


def referee_classic_bluff(table: Table) -> None:
    settings = table.settings
    strength = classic_strength(settings)
    top = strength((6, 6, 6, 6, 6))
    seats = len(table.players)
    starter = 0
    while True:
        announcer = starter
        claim = dice_of(table.next(announcer, "announce"))
        while True:
            decider = in_seat_order(announcer + 1, table.active(), seats)[0]
            action = table.next(decider)
            if action["type"] == "believe":
                action = table.next(decider)
                if action["type"] == "rethrow":
                    action = table.next(decider)
                assert action["type"] == "announce"
                new = dice_of(action)
                assert strength(new) > strength(claim)
                announcer, claim = decider, new
                continue
            if action["type"] == "take":
                assert strength(claim) == top
                loser, count = decider, 1
            else:
                assert action["type"] == "doubt"
                shown = dice_of(table.next(decider, "reveal"))
                loser = decider if strength(shown) >= strength(claim) else announcer
                count = 2 if strength(claim) == top else 1
            break
        limit = settings["strike_limit"]
        table.strikes[loser] = min(limit, table.strikes[loser] + count)
        if table.strikes[loser] == limit:
            table.out.append(loser)
            if settings["end_at_first_out"] or len(table.active()) == 1:
                fewest = min(table.strikes[p] for p in table.active())
                table.winners = [p for p in table.active() if table.strikes[p] == fewest]
                return
        starter = in_seat_order(loser, table.active(), seats)[0]


# --------------------------------------------------------------------------- bone and pokerdice


def referee_bone(table: Table) -> None:
    seats = len(table.players)
    rounds, ties = table.settings.get("rounds", 5), table.settings.get("ties", "extra")
    for number in range(rounds):
        for player in in_seat_order(number % seats, list(range(seats)), seats):
            dice, _ = play_hand(table, player, 3)
            table.scores[player] += BONE_POINTS[bone(dice)[0]]
    top = max(table.scores)
    leaders = [p for p in range(seats) if table.scores[p] == top]
    if len(leaders) == 1 or ties == "share":
        table.winners = leaders
        return
    while len(leaders) > 1:  # extra rounds for the tied only, in seat order; the best hand wins
        hands = {}
        for player in leaders:
            dice, _ = play_hand(table, player, 3)
            table.scores[player] += BONE_POINTS[bone(dice)[0]]
            hands[player] = bone(dice)
        best = max(hands.values())
        leaders = [p for p in leaders if hands[p] == best]
    table.winners = leaders


def referee_pokerdice(table: Table) -> None:
    seats = len(table.players)
    wins = table.settings.get("wins", 3)
    starter = 0
    while True:
        players = in_seat_order(starter, list(range(seats)), seats)
        while True:
            hands = [(p, play_hand(table, p, 3)[0]) for p in players]
            best = max(pokerdice(d) for _, d in hands)
            tied = [p for p, d in hands if pokerdice(d) == best]
            if len(tied) == 1:
                break
            players = tied
        table.scores[tied[0]] += 1
        if table.scores[tied[0]] == wins:
            table.winners = tied
            return
        starter = (players[-1] + 1) % seats  # after the last player who threw


# --------------------------------------------------------------------------- the comparison


def referee(text: str) -> Table:
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    header = lines[0]
    settings = dict(header.get("settings") or {})
    if header["game"] == "classic":
        settings = {**CLASSIC_DEFAULTS, **settings}
    table = Table(list(header["players"]), settings, iter(lines[1:]))
    if header["game"] == "bone":
        referee_bone(table)
    elif header["game"] == "pokerdice":
        referee_pokerdice(table)
    elif settings["mode"] == "bluff":
        referee_classic_bluff(table)
    else:
        referee_classic_rounds(table)
    assert next(table.actions, None) is None, "actions left after the game ended"
    return table


LOGS_OF_ROUND_GAMES = sorted(
    p.name
    for p in LOGS.glob("*.jsonl")
    if json.loads(p.read_text().splitlines()[0])["game"] != "sheet" and "board" not in p.name
)


@pytest.mark.parametrize("name", LOGS_OF_ROUND_GAMES)
def test_the_second_referee_reaches_the_engines_result(name: str) -> None:
    text = (LOGS / name).read_text(encoding="utf-8")
    table = referee(text)
    log = GameLog.from_jsonl(text)
    outcome = log.outcome()
    assert outcome is not None and sorted(outcome.winners) == sorted(table.winners)
    game = log.setup.game
    mode = log.setup.get("mode") if game == "classic" else None
    if mode in ("strikes", "bluff"):
        assert list(log.state.strikes) == table.strikes and list(log.state.out) == table.out
    else:
        assert list(log.state.scores) == table.scores


def test_every_round_game_log_is_refereed() -> None:
    games = {json.loads((LOGS / n).read_text().splitlines()[0])["game"] for n in LOGS_OF_ROUND_GAMES}
    assert games == {"classic", "bone", "pokerdice"} and len(LOGS_OF_ROUND_GAMES) >= 13


RANDOM_CONFIGS: list[tuple[str, dict[str, object]]] = [
    ("classic", {}),
    ("classic", {"end_at_first_out": True, "strike_limit": 2}),
    ("classic", {"mode": "points", "rounds": 3, "points_table": "9 8 7 6 5 4 3 2 1"}),
    ("classic", {"mode": "bluff", "strike_limit": 2}),
    ("classic", {"mode": "bluff", "end_at_first_out": True, "ace_joker": True}),
    ("classic", {"held_fixed": True, "ace_joker": True, "blind_first_throw": True, "gap_straight": True}),
    ("classic", {"throw_limit": False, "straight_above_full_house": True, "blind_first_throw": True}),
    ("bone", {"rounds": 2}),
    ("bone", {"rounds": 1, "ties": "share"}),
    ("pokerdice", {"wins": 2}),
]


@pytest.mark.parametrize("config", range(len(RANDOM_CONFIGS)))
def test_the_second_referee_agrees_on_random_games(config: int) -> None:
    game, settings = RANDOM_CONFIGS[config]
    for seed in range(6):
        rng = random.Random(seed * 100 + config)
        players = [f"P{i}" for i in range(rng.randint(2, 5))]
        log = random_game(GameLog.new(game, players, settings), rng)
        text = log.to_jsonl()
        table = referee(text)
        outcome = log.outcome()
        assert outcome is not None and sorted(outcome.winners) == sorted(table.winners), (config, seed)
        if game == "classic" and settings.get("mode", "strikes") != "points":
            assert (list(log.state.strikes), list(log.state.out)) == (table.strikes, table.out), (config, seed)
        else:
            assert list(log.state.scores) == table.scores, (config, seed)
