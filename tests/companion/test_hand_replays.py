"""Hand-written games, one per round-based game and mode, replayed from tests/companion/logs/hand-*.jsonl.

Unlike the random logs of make_logs.py, these were written as a table would play them, and every
expectation below was worked out by hand from the rule texts (guide/RULES.md), round by round, before
the engine ran them: who took the strike, who starts, the throw limit, the points, the roll-offs. The
comments give the reasoning so a reader can check it without the engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.core import GameLog
from companion.errors import IllegalAction

LOGS = Path(__file__).parent / "logs"
ANNA, BERT, CLARA = 0, 1, 2
ADA, BEN, CEM = 0, 1, 2


def replay(name: str, **settings: object) -> GameLog:
    text = (LOGS / f"{name}.jsonl").read_text(encoding="utf-8")
    log = GameLog.from_jsonl(text)
    again = GameLog.from_jsonl(log.to_jsonl())  # export and import give the same game
    assert again.summary() == log.summary()
    return log


def view(log: GameLog) -> dict[str, Any]:
    result: dict[str, Any] = log.rules.view(log.state)
    return result


def table(log: GameLog) -> list[tuple[str, int, int | None]]:
    return [(s.name, s.place, s.score) for s in log.standings()]


# --------------------------------------------------------------------------- classic, strikes


def test_hand_classic_strikes_tie_for_lowest_elimination_last_player_left() -> None:
    """Anna, Bert, Clara; three strikes out; throw limit on.

    R1 (Anna starts): Anna two pairs 5-5-2-2-3 in 2 throws (limit 2); Bert Drilling of 6s (2 throws, locked);
       Clara Kleine Straße. Lowest Anna: strike 1, she starts R2.
    R2: Anna pair of 4s with 6-2-1 after 1 throw (limit 1); Bert the same pair and kickers: an exact tie for
       lowest; Clara Drilling. Roll-off Anna, Bert, one throw each: Anna Drilling of 5s, Bert Nichts. Bert
       strike 1, starts R3. Best of the round: Clara.
    R3: Bert Poker of 1s in 3 throws (limit 3); Clara Große Straße; Anna Drilling of 6s. Anna strike 2.
    R4: Anna Große Straße in 2 throws (limit 2); Bert 4-4-2-2-5, Clara 4-4-2-2-1: the kicker makes Clara
       lowest. Clara strike 1, starts R5.
    R5: Clara full house after 1 throw (limit 1); Anna 1-2-3-4-6 is Nichts (no gap rule); Bert a pair.
       Anna strike 3: out. She would start, so the next seat still in, Bert, starts R6.
    R6: Bert Poker (limit 1); Clara two pairs: strike 2.
    R7: Clara and Bert both 4-4-4-2-2: a tie for lowest of the whole table; roll-off Clara then Bert, one
       throw each: pair of 3s with 6-2-1 against 5-2-1: Bert strike 2, starts R8.
    R8: Bert pair of 6s in 2 throws; Clara Poker in 2 throws. Bert strike 3: out. Clara is the last one left.
    """
    log = replay("hand-classic-strikes")
    history = view(log)["history"]
    assert [r["loser"] for r in history] == [ANNA, BERT, ANNA, CLARA, ANNA, CLARA, BERT, BERT]
    assert [r["stages"][0]["order"][0] for r in history] == [ANNA, ANNA, BERT, ANNA, CLARA, BERT, CLARA, BERT]
    assert [r["throw_limit"] for r in history] == [2, 1, 3, 2, 1, 1, 1, 2]
    assert [sorted(r["best"]) for r in history] == [[2], [2], [1], [0], [2], [1], [1, 2], [2]]
    rolloffs = {r["number"]: r["stages"][1]["order"] for r in history if len(r["stages"]) > 1}
    assert rolloffs == {2: [ANNA, BERT], 7: [CLARA, BERT]}
    assert [r["stages"][0]["order"] for r in history[5:]] == [[BERT, CLARA], [CLARA, BERT], [BERT, CLARA]]
    assert log.state.out == (ANNA, BERT) and log.state.strikes == (3, 3, 2)
    assert table(log) == [("Clara", 1, 2), ("Bert", 2, 3), ("Anna", 3, 3)]
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (CLARA,)
    assert outcome.reason == "Clara is the last player left; the others have 3 strikes."
    assert log.to_move() is None and log.options() == []


def test_hand_classic_strikes_the_same_game_ends_at_the_first_out_with_the_setting() -> None:
    """With end_at_first_out the game above stops after R5 (Anna's third strike): Bert and Clara, one strike
    each, share the win; Anna loses; every later action is refused."""
    lines = (LOGS / "hand-classic-strikes.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["settings"]["end_at_first_out"] = True
    log = GameLog.new("classic", header["players"], header["settings"])
    actions = [json.loads(line) for line in lines[1:]]
    played = 0
    for action in actions:
        log.play(action)
        played += 1
        if log.outcome() is not None:
            break
    assert len(view(log)["history"]) == 5 and played == 7 + 6 + 8 + 7 + 4
    assert log.state.strikes == (3, 1, 1)
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (BERT, CLARA)
    assert outcome.reason.startswith("Anna has 3 strikes and loses")
    assert table(log) == [("Bert", 1, 1), ("Clara", 1, 1), ("Anna", 3, 3)]
    with pytest.raises(IllegalAction, match="over"):
        log.play(actions[played])


# --------------------------------------------------------------------------- classic, points


def test_hand_classic_points_five_rounds_start_passes_and_equal_totals_share() -> None:
    """Default table (50 40 30 25 20 15 10 5 0); the start passes round by round; throw limit on.

    R1 Anna: full house 30 (limit 1) | Bert Kleine Straße 20 | Clara two pairs 10
    R2 Bert: Poker in 3 throws 40     | Clara pair 5           | Anna Große Straße 25
    R3 Clara: Grande 50 (limit 1)     | Anna Nichts 0          | Bert full house 30
    R4 Anna: full house in 2 throws 30 | Bert Drilling 15     | Clara Drilling 15
    R5 Bert: two pairs 10 (limit 1)   | Clara two pairs 10     | Anna pair 5
    Anna 30+25+0+30+5 = 90, Bert 20+40+30+15+10 = 115, Clara 10+5+50+15+10 = 90.
    """
    log = replay("hand-classic-points")
    history = view(log)["history"]
    assert [r["stages"][0]["order"][0] for r in history] == [ANNA, BERT, CLARA, ANNA, BERT]
    assert [r["throw_limit"] for r in history] == [1, 3, 1, 2, 1]
    assert [r["points"] for r in history] == [
        [30, 20, 10],
        [25, 40, 5],
        [0, 30, 50],
        [30, 15, 15],
        [5, 10, 10],
    ]
    assert table(log) == [("Bert", 1, 115), ("Anna", 2, 90), ("Clara", 2, 90)]
    assert log.standings()[2].detail["rounds"] == [10, 5, 50, 15, 10]
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (BERT,)


# --------------------------------------------------------------------------- classic, bluff


def test_hand_classic_bluff_believe_doubts_lost_by_each_side_and_five_sixes() -> None:
    """Anna, Bert, Clara; three strikes out.

    S1 (Anna): Anna claims Drilling of 4s; Bert believes, rethrows 2, claims Drilling of 5s with 2-1; Clara
       doubts; the cup shows 5-5-5-3-2, better than claimed: the doubter Clara takes the strike and starts.
    S2 (Clara): two pairs 3-3-2-2-6; Anna believes and claims 4-4-2-2-1 without rethrowing; Bert doubts; the
       cup shows only a pair of 4s: the announcer Anna takes the strike and starts.
    S3 (Anna): five sixes; Bert takes one strike without lifting and starts.
    S4 (Bert): Poker of 1s; Clara believes, rethrows 1, claims five sixes; Anna lifts: 6-6-6-6-3 is less, so
       Clara takes two: 1 + 2 = 3, out. Anna (the next seat still in after Clara) starts.
    S5 (Anna): Grande of 3s; Bert believes and claims five sixes; Anna lifts and they are there: Anna takes
       two, 1 + 2 = 3, out. Bert is the last one left with one strike.
    """
    log = replay("hand-classic-bluff")
    history = view(log)["history"]
    summary = [(s["starter"], s["end"], s["decider"], s["loser"], s["strikes"]) for s in history]
    assert summary == [
        (ANNA, "doubt", CLARA, CLARA, 1),
        (CLARA, "doubt", BERT, ANNA, 1),
        (ANNA, "take", BERT, BERT, 1),
        (BERT, "doubt", ANNA, CLARA, 2),
        (ANNA, "doubt", ANNA, ANNA, 2),
    ]
    first = history[0]["claims"]
    assert [(c["player"], c["believed"], c["rethrew"]) for c in first] == [(ANNA, False, None), (BERT, True, 2)]
    assert history[2]["revealed"] is None
    assert log.state.out == (CLARA, ANNA) and log.state.strikes == (3, 1, 3)
    assert table(log) == [("Bert", 1, 1), ("Anna", 2, 3), ("Clara", 3, 3)]
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (BERT,)


# --------------------------------------------------------------------------- bone


def test_hand_bone_five_rounds_a_tie_at_the_top_and_an_extra_round() -> None:
    """Ada, Ben, Cem; round r starts with seat r-1.

    R1 Ada: full house 35      | Ben 1-2-3-4-6 Kleine Straße 25 | Cem two pairs 15
    R2 Ben: four 6s 40         | Cem 1-3-4-5-6 Kleine Straße 25 | Ada Große Straße 2-6 in 2 throws 30
    R3 Cem: four 1s in 3 throws 40 | Ada pair 10               | Ben Drilling 20
    R4 Ada: five 2s 50         | Ben Große Straße 1-5 30        | Cem high die 5
    R5 Ben: two pairs 15       | Cem five 5s 50                 | Ada pair 10
    Ada 135, Ben 130, Cem 135: Ada and Cem play an extra round, Ben sits out.
    Extra: Ada three 4s 20, Cem three 6s 20: level at 155, but three 6s beat three 4s (the rule text's FAQ),
       so Cem wins and Ada is second on equal points.
    """
    log = replay("hand-bone")
    history = view(log)["history"]
    assert [r["kind"] for r in history] == ["round"] * 5 + ["extra"]
    assert [r["stages"][0]["order"] for r in history] == [
        [ADA, BEN, CEM],
        [BEN, CEM, ADA],
        [CEM, ADA, BEN],
        [ADA, BEN, CEM],
        [BEN, CEM, ADA],
        [ADA, CEM],
    ]
    assert [r["points"] for r in history[:5]] == [
        [35, 25, 15],
        [30, 40, 25],
        [10, 20, 40],
        [50, 30, 5],
        [10, 15, 50],
    ]
    assert [r["best"] for r in history[5:]] == [[CEM]]
    assert table(log) == [("Cem", 1, 155), ("Ada", 2, 155), ("Ben", 3, 130)]
    assert log.standings()[2].detail["rounds"] == [25, 40, 20, 30, 15, None]
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (CEM,) and "an extra round" in outcome.reason


# --------------------------------------------------------------------------- pokerdice


def test_hand_pokerdice_rolloffs_and_who_starts_next() -> None:
    """Ada, Ben, Cem; first to three round wins. The next round starts after the last player who threw.

    R1 Ada: Ada pair of A, Ben three K, Cem full house Q-Q-Q-J-J: Cem. Last thrower Cem: Ada starts R2.
    R2 Ada: Ada and Ben both 10-J-Q-K-A (exact tie), Cem three 9s. Roll-off Ada, Ben: pair of J with K-10-9
       against pair of J with A-10-9: Ben. The last tied player who threw is Ben: Cem starts R3.
    R3 Cem: Cem four A, Ada five K, Ben 9-10-J-Q-K: Ada. Last thrower Ben: Cem starts again.
    R4 Cem: full houses Q over 9, Q over 10, Q over A: Ben. Cem starts again.
    R5 Cem: Cem and Ada K-K-Q-Q-J (tie), Ben K-K-Q-Q-10. Roll-off Cem, Ada: both 9-10-J-Q-A (a gap: high
       die), tied again; second roll-off: A-A-9-9-10 against A-A-J-J-9: Ada. After Ada comes Ben: R6.
    R6 Ben: Ben full house, Cem four J, Ada full house: Cem. Last thrower Ada: Ben starts R7.
    R7 Ben: five A. Ben has three round wins: Ben 3, Ada 2, Cem 2.
    """
    log = replay("hand-pokerdice")
    history = view(log)["history"]
    assert [r["stages"][0]["order"][0] for r in history] == [ADA, ADA, CEM, CEM, CEM, BEN, BEN]
    assert [r["best"] for r in history] == [[CEM], [BEN], [ADA], [BEN], [ADA], [CEM], [BEN]]
    rolloffs = {r["number"]: [s["order"] for s in r["stages"][1:]] for r in history if len(r["stages"]) > 1}
    assert rolloffs == {2: [[ADA, BEN]], 5: [[CEM, ADA], [CEM, ADA]]}
    assert [r["stages"][1]["sitting_out"] for r in history if len(r["stages"]) > 1] == [[CEM], [BEN]]
    assert table(log) == [("Ben", 1, 3), ("Ada", 2, 2), ("Cem", 2, 2)]
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (BEN,)
    assert outcome.reason == "Ben is the first to 3 round wins."


# --------------------------------------------------------------------------- classic, house rules


def test_hand_classic_house_rules_blind_gap_straight_above_full_house_held_fixed() -> None:
    """Anna, Bert, Clara with held_fixed, blind_first_throw, gap_straight, straight_above_full_house and
    end_at_first_out.

    R1: Anna stands blind: everyone has one unseen throw. Anna full house 3s over 5s, Bert 1-2-3-4-6 (a
       Kleine Straße with a gap, above any full house here), Clara full house 6s over 5s. Anna strike 1.
    R2 (Anna, not blind): two pairs 2-2-5-5, held for good, twice; the third throw makes a full house
       (limit 3). Bert a true Kleine Straße, Clara the gap straight just below it. Anna strike 2.
    R3: Anna Poker (limit 1); Bert Große Straße; Clara full house, now below the straights: Clara strike 1.
    R4: Clara stands blind. Clara and Anna both 1-1-2-3-4, Bert a pair of 5s. Roll-off Clara, Anna, still
       one unseen throw each: Clara Drilling, Anna Nichts. Anna strike 3: the game ends; Bert has none.
    """
    log = replay("hand-classic-house-rules")
    history = view(log)["history"]
    assert [(r["blind"], r["throw_limit"], r["loser"]) for r in history] == [
        (True, 1, ANNA),
        (False, 3, ANNA),
        (False, 1, CLARA),
        (True, 1, ANNA),
    ]
    assert [r["best"] for r in history] == [[BERT], [BERT], [ANNA], [BERT]]
    labels = [[h["label"] for h in r["stages"][0]["hands"]] for r in history[:2]]
    assert labels == [
        ["Full House", "Kleine Straße (mit Lücke)", "Full House"],
        ["Full House", "Kleine Straße", "Kleine Straße (mit Lücke)"],
    ]
    assert history[3]["stages"][1]["order"] == [CLARA, ANNA]
    assert table(log) == [("Bert", 1, 0), ("Clara", 2, 1), ("Anna", 3, 3)]
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (BERT,)


def test_hand_classic_house_rules_held_dice_stay_aside_in_that_game() -> None:
    """Before Anna's third throw in R2 (two pairs 2-2-5-5 held), taking the 5s up again to chase a straight
    is refused; keeping them is what the log does."""
    lines = (LOGS / "hand-classic-house-rules.jsonl").read_text(encoding="utf-8").splitlines()
    log = GameLog.from_jsonl("\n".join(lines[:7]))
    assert log.options()[0].detail["must_hold"] == [0, 1, 2, 3]
    with pytest.raises(IllegalAction, match="fixed"):
        log.play({"type": "throw", "player": ANNA, "dice": [2, 2, 4, 1, 3], "held": [0, 1, 4]})
    log.play(json.loads(lines[7]))
    assert log.state.history[-1].number == 1 and log.state.stage.hands[0].dice == (2, 2, 5, 5, 5)


def test_hand_classic_ace_joker_with_poker_dice() -> None:
    """Ada, Ben; poker dice, aces are jokers, two strikes out.

    R1: Ada A-A-10-10-10 is a Grande of 10s (limit 1); Ben's five jacks are higher. Ada strike 1.
    R2: Ada A-K-K-K-K, a Grande of kings; Ben five kings: the values the ace stands for tie them exactly.
       Roll-off, one throw each: Ada A-Q-J-10-9 with the ace as K is a Kleine Straße (9 to K); Ben a pair
       of 9s. Ben strike 1, starts R3.
    R3: Ben A-A-A-9-9, the aces as 9s: a Grande of 9s, better than a full house of aces; Ada A-A-K-K-Q, at
       best a Poker of kings. Ada strike 2: out; Ben wins.
    """
    log = replay("hand-classic-ace-joker")
    history = view(log)["history"]
    assert [r["loser"] for r in history] == [ADA, BEN, ADA]
    assert [r["stages"][0]["order"][0] for r in history] == [ADA, ADA, BEN]
    stood_for = [[h["stands_for"] for s in r["stages"] for h in s["hands"]] for r in history]
    assert stood_for == [
        [[2, 2, 2, 2, 2], [3, 3, 3, 3, 3]],
        [[5, 5, 5, 5, 5], [5, 5, 5, 5, 5], [5, 4, 3, 2, 1], [4, 3, 2, 1, 1]],
        [[1, 1, 1, 1, 1], [5, 5, 5, 5, 4]],
    ]
    assert [h["category"] for h in history[2]["stages"][0]["hands"]] == ["five", "four"]
    assert table(log) == [("Ben", 1, 1), ("Ada", 2, 2)]
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (BEN,)
