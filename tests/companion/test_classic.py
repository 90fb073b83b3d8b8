from pathlib import Path

import pytest

from companion.core import GameLog, rules_for
from companion.errors import IllegalAction, MalformedInput
from tests.companion.play import hand, hands, stand, throw

ANNA, BERT, CLARA, DIETER = 0, 1, 2, 3


def game(players: int = 4, **settings: object) -> GameLog:
    return GameLog.new("classic", ["Anna", "Bert", "Clara", "Dieter", "Eva", "Fritz"][:players], settings)


def view(log: GameLog) -> dict[str, object]:
    result: dict[str, object] = log.rules.view(log.state)
    return result


def play(log: GameLog, action: str, player: int, **fields: object) -> None:
    log.play({"type": action, "player": player, **fields})


# --------------------------------------------------------------------------- rule 1


def test_classic_rule_1_categories_high_to_low() -> None:
    rules = rules_for("classic")
    setup = rules.make_setup(["A", "B"])
    examples = [
        (4, 4, 4, 4, 4),
        (6, 6, 6, 6, 2),
        (3, 3, 3, 5, 5),
        (2, 3, 4, 5, 6),
        (1, 2, 3, 4, 5),
        (5, 5, 5, 2, 6),
        (6, 6, 3, 3, 1),
        (4, 4, 6, 3, 1),
        (6, 5, 3, 2, 1),
    ]
    answers = [rules.hand(d, setup) for d in examples]
    assert [a["label"] for a in answers] == [
        "Grande",
        "Poker",
        "Full House",
        "Große Straße",
        "Kleine Straße",
        "Drilling",
        "Zwei Paare",
        "Paar",
        "Nichts",
    ]
    keys = [a["key"] for a in answers]
    assert keys == sorted(keys, reverse=True) and len({tuple(k) for k in keys}) == 9
    assert all(a["points"] is None for a in answers)  # strikes mode has no points


# --------------------------------------------------------------------------- rule 2


def test_classic_rule_2_up_to_three_throws_held_dice_may_be_taken_up_again() -> None:
    log = game(2, throw_limit=False)
    throw(log, ANNA, (3, 3, 5, 1, 6))
    throw(log, ANNA, (3, 3, 2, 2, 6), held=(0, 1, 4))
    throw(log, ANNA, (3, 4, 2, 2, 6), held=(0, 2, 3))  # the held 3 at position 1 is thrown again
    assert log.to_move() == BERT  # after the third throw the hand is fixed
    assert log.state.stage.hands[0].dice == (3, 4, 2, 2, 6)
    throw(log, BERT, (1, 1, 1, 2, 2))
    with pytest.raises(IllegalAction, match="held at 2"):
        throw(log, BERT, (1, 1, 1, 3, 3), held=(0, 1, 2, 3))


# --------------------------------------------------------------------------- rule 3


def test_classic_rule_3_the_first_players_throws_are_the_limit_for_the_others() -> None:
    log = game(3)
    throw(log, ANNA, (3, 3, 3, 5, 5))
    stand(log, ANNA)  # a full house from the first throw forces one throw on the table
    assert view(log)["throw_limit"] == 1
    throw(log, BERT, (6, 6, 6, 1, 2))
    assert log.to_move() == CLARA  # Bert's only throw locked his hand in
    option = log.options()[0]
    assert option.detail["max_throws"] == 1 and option.detail["last"] is True
    throw(log, CLARA, (2, 2, 1, 3, 4))
    assert log.state.number == 2


def test_classic_rule_3_without_the_limit_everyone_has_three_throws() -> None:
    log = game(2, throw_limit=False)
    hand(log, ANNA, (3, 3, 3, 5, 5))
    throw(log, BERT, (6, 6, 6, 1, 2))
    throw(log, BERT, (6, 6, 6, 1, 3), held=(0, 1, 2, 3))
    assert log.to_move() == BERT


# --------------------------------------------------------------------------- rule 4


def test_classic_rule_4_worked_example_anna_bert_clara_dieter() -> None:
    log = game(4)
    throw(log, ANNA, (2, 2, 5, 5, 6))
    throw(log, ANNA, (2, 2, 5, 5, 3), held=(0, 1, 2, 3))
    throw(log, ANNA, (2, 2, 5, 5, 5), held=(0, 1, 2, 3))  # Full House, fives over twos, after three throws
    assert view(log)["throw_limit"] == 3
    throw(log, BERT, (4, 4, 1, 2, 6))
    throw(log, BERT, (4, 4, 4, 2, 1), held=(0, 1))
    throw(log, BERT, (4, 4, 4, 3, 1), held=(0, 1, 2))  # no better than a Drilling of fours
    throw(log, CLARA, (1, 2, 3, 4, 6))
    throw(log, CLARA, (1, 2, 3, 4, 2), held=(0, 1, 2, 3))
    throw(log, CLARA, (1, 2, 3, 4, 5), held=(0, 1, 2, 3))  # Kleine Straße
    throw(log, DIETER, (6, 6, 6, 6, 1))
    stand(log, DIETER)  # Poker, left lying
    first = view(log)["history"][0]  # type: ignore[index]
    assert first["best"] == [DIETER] and first["loser"] == BERT
    labels = [h["label"] for h in first["stages"][0]["hands"]]
    assert labels == ["Full House", "Drilling", "Kleine Straße", "Poker"]
    assert log.state.strikes == (0, 1, 0, 0)
    assert log.to_move() == BERT  # he starts the next round
    assert view(log)["throw_limit"] is None  # a new round, a new limit


def test_classic_rule_4_exact_tie_for_lowest_replays_round() -> None:
    log = game(3)
    throw(log, ANNA, (2, 2, 1, 3, 4))
    throw(log, ANNA, (2, 2, 1, 3, 5), held=(0, 1, 2, 3))
    stand(log, ANNA)  # limit: 2 throws
    hands(log, [(BERT, (6, 6, 6, 1, 2)), (CLARA, (2, 1, 2, 5, 3))])  # Clara ties Anna exactly
    v = view(log)
    assert v["rolloff"] == {"players": [ANNA, CLARA], "depth": 1}
    assert v["stage"]["sitting_out"] == [BERT]  # type: ignore[index]
    assert log.state.strikes == (0, 0, 0) and v["throw_limit"] == 2  # same throw limit
    with pytest.raises(IllegalAction, match="Bert sits out"):
        throw(log, BERT, (1, 1, 1, 1, 1))
    throw(log, ANNA, (5, 5, 5, 1, 2))
    throw(log, ANNA, (5, 5, 5, 5, 2), held=(0, 1, 2, 4))  # two throws: limit reached
    assert log.to_move() == CLARA
    hand(log, CLARA, (4, 4, 1, 2, 3))
    assert log.state.strikes == (0, 0, 1)
    assert view(log)["history"][0]["best"] == [BERT]  # type: ignore[index]
    assert log.to_move() == CLARA


def test_classic_rule_4_three_strikes_out_last_player_left_wins() -> None:
    log = game(3, strike_limit=2)
    low, high = (1, 2, 3, 4, 6), (6, 6, 5, 5, 1)
    hands(log, [(ANNA, low), (BERT, high), (CLARA, high)])  # Anna: 1 strike, starts
    hands(log, [(ANNA, low), (BERT, high), (CLARA, high)])  # Anna: 2 strikes, out
    assert log.state.out == (ANNA,)
    assert log.to_move() == BERT  # the next active seat starts
    with pytest.raises(IllegalAction, match="Anna is out"):
        throw(log, ANNA, low)
    hands(log, [(BERT, high), (CLARA, low)])
    hands(log, [(CLARA, low), (BERT, high)])
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (BERT,)
    assert [(s.name, s.place, s.detail["strikes"]) for s in log.standings()] == [
        ("Bert", 1, 0),
        ("Clara", 2, 2),
        ("Anna", 3, 2),
    ]
    assert max(log.state.strikes) <= 2


def test_classic_rule_4_setting_ends_at_the_first_player_with_three_strikes() -> None:
    log = game(3, end_at_first_out=True)
    for _ in range(3):
        hands(log, [(ANNA, (1, 2, 3, 4, 6)), (BERT, (6, 6, 5, 5, 1)), (CLARA, (1, 1, 5, 5, 4))])
        if log.outcome() is None:
            assert log.to_move() == ANNA
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (BERT, CLARA)
    assert "Anna has 3 strikes and loses" in outcome.reason
    assert [s.place for s in log.standings()] == [1, 1, 3]


# --------------------------------------------------------------------------- rule 5


def test_classic_rule_5_points_mode_scores_each_hand_over_five_rounds() -> None:
    log = game(2, mode="points")
    for number in range(5):
        starter = number % 2
        dice = {ANNA: (6, 6, 6, 6, 1), BERT: (2, 3, 4, 5, 6)}
        hands(log, [(starter, dice[starter]), (1 - starter, dice[1 - starter])])
    assert log.state.scores == (200, 125)
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (ANNA,)
    assert log.standings()[1].detail["rounds"] == [25] * 5
    assert log.rules.hand((4, 4, 6, 3, 1), log.setup)["points"] == 5


def test_classic_rule_5_equal_totals_share_the_place_and_the_table_is_a_setting() -> None:
    log = game(3, mode="points", rounds=1, points_table="9 8 7 6 5 4 3 2 1")
    throw(log, ANNA, (1, 1, 2, 2, 3))
    assert next(o for o in log.options() if o.action == "stand").points == 3
    stand(log, ANNA)
    hands(log, [(BERT, (4, 4, 6, 6, 1)), (CLARA, (6, 5, 4, 2, 1))])
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (ANNA, BERT)
    assert [(s.name, s.place, s.score) for s in log.standings()] == [("Anna", 1, 3), ("Bert", 1, 3), ("Clara", 3, 1)]
    with pytest.raises(MalformedInput, match="9 numbers"):
        game(2, mode="points", points_table="1 2 3")


# --------------------------------------------------------------------------- rule 6: bluff


def bluff(players: int = 3, **settings: object) -> GameLog:
    return game(players, mode="bluff", **settings)


def test_classic_rule_6_announce_strictly_higher_than_the_previous_claim() -> None:
    log = bluff()
    play(log, "announce", ANNA, dice=[4, 4, 4, 2, 1])
    play(log, "believe", BERT)
    before = log.summary()
    with pytest.raises(IllegalAction, match="strictly higher"):
        play(log, "announce", BERT, dice=[4, 4, 4, 2, 1])
    with pytest.raises(IllegalAction, match="strictly higher"):
        play(log, "announce", BERT, dice=[3, 3, 3, 6, 5])
    with pytest.raises(MalformedInput, match="5 dice, not 3"):
        play(log, "announce", BERT, dice=[5, 5, 5])
    assert log.summary() == before
    play(log, "announce", BERT, dice=[5, 5, 5, 2, 1])  # a Drilling of fives, not at once a Poker
    assert log.to_move() == CLARA
    assert [c["label"] for c in view(log)["claims"]] == ["Drilling", "Drilling"]  # type: ignore[attr-defined]


def test_classic_rule_6_believe_look_rethrow_once_and_announce_higher() -> None:
    log = bluff()
    play(log, "announce", ANNA, dice=[2, 2, 3, 3, 1])
    play(log, "believe", BERT)
    assert [o.action for o in log.options()] == ["announce", "rethrow"]
    play(log, "rethrow", BERT, count=2)
    with pytest.raises(IllegalAction, match="only once"):
        play(log, "rethrow", BERT, count=1)
    play(log, "announce", BERT, dice=[5, 5, 2, 2, 1])
    claim = view(log)["claims"][-1]  # type: ignore[index]
    assert claim["believed"] is True and claim["rethrew"] == 2
    with pytest.raises(IllegalAction, match="believed"):
        play(log, "rethrow", CLARA, count=1)


def test_classic_rule_6_doubt_reveal_at_least_as_good_doubter_takes_the_strike() -> None:
    log = bluff()
    play(log, "announce", ANNA, dice=[6, 6, 3, 3, 1])
    play(log, "doubt", BERT)
    with pytest.raises(
        IllegalAction, match="Bert lifted the cup: enter the five dice under it \\(Anna claimed 6-6-3-3-1\\)"
    ):
        play(log, "announce", BERT, dice=[6, 6, 6, 6, 6])
    with pytest.raises(IllegalAction, match="entered as Bert's action"):
        play(log, "reveal", ANNA, dice=[6, 6, 3, 3, 1])
    play(log, "reveal", BERT, dice=[6, 6, 3, 3, 1])  # exactly the claim: it stands
    assert log.state.strikes == (0, 1, 0)
    assert log.to_move() == BERT  # the loser starts a fresh sequence
    assert view(log)["claims"] == []
    play(log, "announce", BERT, dice=[2, 2, 2, 2, 1])
    play(log, "doubt", CLARA)
    play(log, "reveal", CLARA, dice=[2, 2, 2, 1, 1])  # worse than claimed: the announcer loses
    assert log.state.strikes == (0, 2, 0)
    last = view(log)["history"][-1]  # type: ignore[index]
    assert last["end"] == "doubt" and last["loser"] == BERT and last["revealed"]["category"] == "full_house"


def test_classic_rule_6_five_sixes_take_one_strike_or_lift_and_the_loser_takes_two() -> None:
    log = bluff(strike_limit=2)
    play(log, "announce", ANNA, dice=[6, 6, 6, 6, 6])
    assert [o.action for o in log.options()] == ["doubt", "take"]
    with pytest.raises(IllegalAction, match="cannot be raised"):
        play(log, "believe", BERT)
    play(log, "take", BERT)
    assert log.state.strikes == (0, 1, 0) and log.to_move() == BERT
    play(log, "announce", BERT, dice=[6, 6, 6, 6, 6])
    with pytest.raises(IllegalAction, match="Five sixes cannot be raised"):
        play(log, "announce", CLARA, dice=[6, 6, 6, 6, 6])
    play(log, "doubt", CLARA)
    play(log, "reveal", CLARA, dice=[6, 6, 6, 6, 5])
    assert log.state.strikes == (0, 2, 0)  # one before, two now: never above the limit
    assert log.state.out == (BERT,)
    assert log.to_move() == CLARA  # Bert is out: the next active seat starts
    with pytest.raises(IllegalAction, match="Clara must announce"):
        play(log, "take", CLARA)


def test_classic_rule_6_three_strikes_out_and_the_last_player_left_wins() -> None:
    log = bluff(2)
    play(log, "announce", ANNA, dice=[6, 6, 6, 6, 6])
    play(log, "take", BERT)
    for claim in ([1, 1, 2, 2, 3], [2, 2, 2, 1, 1]):
        assert log.to_move() == BERT
        play(log, "announce", BERT, dice=claim)
        play(log, "doubt", ANNA)
        play(log, "reveal", ANNA, dice=[6, 5, 4, 2, 1])
    assert log.state.strikes == (0, 3) and log.state.out == (BERT,)
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (ANNA,)
    assert log.to_move() is None and log.options() == []
    with pytest.raises(IllegalAction, match="over"):
        play(log, "announce", ANNA, dice=[1, 1, 1, 1, 1])


def test_classic_rule_6_refuses_moves_out_of_order() -> None:
    log = bluff()
    with pytest.raises(IllegalAction, match="Anna's turn"):
        play(log, "announce", BERT, dice=[1, 1, 2, 2, 3])
    with pytest.raises(IllegalAction, match="must announce"):
        play(log, "doubt", ANNA)
    with pytest.raises(IllegalAction, match="not a move of the bluff mode"):
        throw(log, ANNA, (1, 2, 3, 4, 5))
    play(log, "announce", ANNA, dice=["1", "1", "2", "2", "3"])
    with pytest.raises(IllegalAction, match="Only a player who believed"):
        play(log, "rethrow", BERT, count=1)


# --------------------------------------------------------------------------- rule 7: house rules


def test_classic_rule_7_held_dice_are_fixed() -> None:
    log = game(2, held_fixed=True, throw_limit=False)
    throw(log, ANNA, (2, 2, 5, 5, 6))
    throw(log, ANNA, (2, 2, 5, 5, 3), held=(0, 1, 2, 3))
    assert log.options()[0].detail["must_hold"] == [0, 1, 2, 3]
    with pytest.raises(IllegalAction, match="fixed"):
        throw(log, ANNA, (2, 2, 1, 4, 3), held=(0, 1, 4))  # no rebuilding two pairs into a straight
    loose = game(2, throw_limit=False)
    throw(loose, ANNA, (2, 2, 5, 5, 6))
    throw(loose, ANNA, (2, 2, 5, 5, 3), held=(0, 1, 2, 3))
    throw(loose, ANNA, (2, 1, 4, 5, 3), held=(0, 3, 4))


def test_classic_rule_7_ace_as_joker_in_a_game() -> None:
    log = game(2, ace_joker=True)
    hands(log, [(ANNA, (6, 6, 3, 3, 3)), (BERT, (4, 4, 4, 4, 4))])
    first = view(log)["history"][0]  # type: ignore[index]
    anna = first["stages"][0]["hands"][0]
    assert anna["category"] == "five" and anna["stands_for"] == [3, 3, 3, 3, 3]
    assert first["loser"] == ANNA  # Grande of threes loses to Grande of fours


def test_classic_rule_7_blind_first_throw_gives_everyone_one_unseen_throw() -> None:
    log = game(3, blind_first_throw=True)
    assert [o.action for o in log.options()] == ["throw", "blind"]
    play(log, "blind", ANNA)
    assert view(log)["blind"] is True and view(log)["throw_limit"] == 1
    with pytest.raises(IllegalAction, match="starter"):
        play(log, "blind", ANNA)
    hands(log, [(ANNA, (1, 1, 2, 3, 4)), (BERT, (6, 5, 4, 3, 1)), (CLARA, (2, 2, 5, 5, 1))])
    assert log.state.strikes == (0, 1, 0)
    assert view(log)["history"][0]["blind"] is True  # type: ignore[index]
    assert view(log)["blind"] is False and log.to_move() == BERT
    throw(log, BERT, (1, 1, 1, 2, 3))
    assert "blind" not in [o.action for o in log.options()]  # only before the first throw is seen
    off = game(2)
    with pytest.raises(IllegalAction, match="house rule"):
        play(off, "blind", ANNA)


def test_classic_rule_7_straight_with_a_gap_just_below_a_true_kleine_strasse() -> None:
    log = game(2, gap_straight=True)
    hands(log, [(ANNA, (1, 2, 3, 4, 6)), (BERT, (1, 2, 3, 4, 5))])
    assert log.state.strikes == (1, 0)
    hands(log, [(ANNA, (1, 2, 3, 4, 6)), (BERT, (6, 6, 6, 5, 4))])
    assert log.state.strikes == (1, 1)  # the gap straight beats a Drilling


def test_classic_rule_7_straight_above_full_house() -> None:
    log = game(2, straight_above_full_house=True)
    hands(log, [(ANNA, (1, 2, 3, 4, 5)), (BERT, (6, 6, 6, 5, 5))])
    assert log.state.strikes == (0, 1)
    plain = game(2)
    hands(plain, [(ANNA, (1, 2, 3, 4, 5)), (BERT, (6, 6, 6, 5, 5))])
    assert plain.state.strikes == (1, 0)


def test_classic_dice_setting_poker_faces() -> None:
    log = game(2, dice="poker")
    hand(log, ANNA, ["A", "A", "K", "K", "9"])
    assert view(log)["stage"]["hands"][0]["faces"] == ["A", "A", "K", "K", "9"]  # type: ignore[index]
    with pytest.raises(MalformedInput, match="pip face"):
        throw(log, BERT, ["1", "1", "1", "1", "1"])


def test_classic_rule_6_five_sixes_lifted_and_true_the_doubter_takes_two() -> None:
    log = bluff()
    play(log, "announce", ANNA, dice=["6", "6", "6", "6", "6"])
    doubt = next(o for o in log.options() if o.action == "doubt")
    assert doubt.detail["strikes_at_stake"] == 2
    play(log, "doubt", BERT)
    play(log, "reveal", BERT, dice=[6, 6, 6, 6, 6])
    assert log.state.strikes == (0, 2, 0) and log.to_move() == BERT


def test_classic_rule_7_a_rolloff_of_a_blind_round_stays_blind() -> None:
    log = game(3, blind_first_throw=True)
    play(log, "blind", ANNA)
    hands(log, [(ANNA, (1, 1, 2, 3, 4)), (BERT, (6, 6, 6, 3, 1)), (CLARA, (4, 3, 2, 1, 1))])
    assert view(log)["rolloff"] == {"players": [ANNA, CLARA], "depth": 1}
    assert view(log)["blind"] is True and log.options()[0].detail["max_throws"] == 1
    hands(log, [(ANNA, (5, 5, 5, 1, 2)), (CLARA, (2, 2, 3, 4, 1))])
    assert log.state.strikes == (0, 0, 1)


def test_every_setting_and_action_is_documented() -> None:
    for game_id in ("classic", "bone", "pokerdice"):
        rules = rules_for(game_id)
        doc = (Path(__file__).parents[2] / "docs" / "games" / f"{game_id}.md").read_text(encoding="utf-8")
        for setting in rules.settings:
            assert f"`{setting.name}`" in doc, (game_id, setting.name)
        for action in rules.actions:
            assert f'"type": "{action.kind}"' in doc or f"`{action.kind}`" in doc, (game_id, action.kind)


def test_classic_rule_6_with_poker_dice_the_top_claim_is_five_aces() -> None:
    log = bluff(dice="poker")
    play(log, "announce", ANNA, dice=["A", "A", "A", "A", "A"])
    with pytest.raises(IllegalAction, match="Five aces cannot be raised"):
        play(log, "believe", BERT)
    with pytest.raises(IllegalAction, match="Bert must take one strike or lift the cup now"):
        play(log, "reveal", BERT, dice=["A", "A", "A", "A", "A"])
    play(log, "take", BERT)
    play(log, "announce", BERT, dice=["K", "K", "K", "K", "K"])
    with pytest.raises(IllegalAction, match="only for a claim of five aces"):
        play(log, "take", CLARA)


def test_actions_built_in_code_with_bools_are_refused_so_every_log_replays() -> None:
    from companion.games.classic import Announce, Believe, Rethrow
    from companion.turns import Throw

    log = bluff(2)
    log.play(Announce(ANNA, (1, 1, 2, 2, 3)))
    log.play(Believe(BERT))
    with pytest.raises(MalformedInput, match="whole number"):
        log.play(Rethrow(BERT, True))
    rounds = game(2)
    rounds.play(Throw(ANNA, (1, 1, 2, 2, 3)))
    with pytest.raises(MalformedInput, match="held position"):
        rounds.play(Throw(ANNA, (1, 1, 2, 2, 4), held=(True, 0)))
    for played in (log, rounds):
        assert GameLog.from_jsonl(played.to_jsonl()).summary() == played.summary()
