import pytest

from companion.core import GameLog, rules_for
from companion.dice import parse_die
from companion.errors import IllegalAction, MalformedInput
from tests.companion.play import hand, hands, stand, throw


def game(players: int = 3, **settings: object) -> GameLog:
    return GameLog.new("pokerdice", ["Ada", "Ben", "Cem", "Dora"][:players], settings)


def test_pokerdice_rule_1_faces_rank_nine_to_ace_and_no_flush() -> None:
    rules = rules_for("pokerdice")
    setup = rules.make_setup(["A", "B"])
    assert setup.dice_kind.value == "poker"
    ranks = [parse_die(face, setup.dice_kind) for face in ["9", "10", "J", "Q", "K", "A"]]
    keys = [rules.hand([rank] * 5, setup)["key"] for rank in ranks]
    assert keys == sorted(keys) and len({tuple(k) for k in keys}) == 6
    log = game(2)
    hand(log, 0, ["9", "10", "J", "Q", "A"])  # five different faces and no run: High Die, never a flush
    assert log.rules.view(log.state)["stage"]["hands"][0]["category"] == "high"
    assert log.rules.view(log.state)["stage"]["hands"][0]["faces"] == ["9", "10", "J", "Q", "A"]
    with pytest.raises(MalformedInput, match="pip face"):
        throw(log, 1, ["1", "2", "3", "4", "5"])


def test_pokerdice_rule_2_three_throws_rethrow_held_dice_stand_any_time() -> None:
    log = game(2)
    throw(log, 0, ["A", "A", "K", "9", "J"])
    throw(log, 0, ["A", "Q", "K", "9", "J"], held=(0, 2, 4))  # the held A at position 1 is thrown again
    throw(log, 0, ["A", "Q", "K", "10", "J"], held=(0, 1, 2, 4))
    assert log.to_move() == 1  # after the third throw the hand is locked in
    assert log.state.stage.hands[0].dice == (6, 4, 5, 2, 3)
    throw(log, 1, ["K", "K", "K", "K", "9"])
    stand(log, 1)  # standing after one throw is fine
    assert log.state.number == 2


def test_pokerdice_rule_3_only_two_straights_the_higher_wins() -> None:
    log = game(2)
    hands(log, [(0, ["9", "10", "J", "Q", "K"]), (1, ["10", "J", "Q", "K", "A"])])
    first = log.rules.view(log.state)["history"][0]
    assert first["best"] == [1]
    assert [h["category"] for h in first["stages"][0]["hands"]] == ["straight", "straight"]
    rules = rules_for("pokerdice")
    assert rules.hand([1, 3, 4, 5, 6], rules.make_setup(["A", "B"]))["label_en"] == "High Die"


def test_pokerdice_rule_4_exact_tie_for_best_is_rolled_off_by_the_tied_players_only() -> None:
    log = game(3)
    hands(log, [(0, ["A", "A", "J", "J", "9"]), (1, ["A", "A", "10", "10", "K"]), (2, ["A", "A", "J", "J", "9"])])
    assert log.state.scores == (0, 0, 0)  # nobody scores yet
    view = log.rules.view(log.state)
    assert view["rolloff"] == {"players": [0, 2], "depth": 1}
    assert view["stage"]["sitting_out"] == [1]
    with pytest.raises(IllegalAction, match="sits out"):
        throw(log, 1, ["A", "A", "A", "A", "A"])
    hands(log, [(0, ["K", "K", "Q", "Q", "9"]), (2, ["K", "K", "Q", "Q", "9"])])  # tied again
    assert log.rules.view(log.state)["rolloff"]["depth"] == 2
    hands(log, [(0, ["9", "9", "10", "J", "Q"]), (2, ["9", "10", "J", "Q", "A"])])
    assert log.state.scores == (1, 0, 0)  # a pair beats a high die
    assert log.rules.view(log.state)["history"][0]["best"] == [0]


def test_pokerdice_rule_5_next_round_starts_after_the_last_player_who_threw() -> None:
    log = game(3)
    hands(log, [(0, ["A", "A", "J", "J", "9"]), (1, ["9", "9", "J", "Q", "K"]), (2, ["K", "K", "Q", "J", "9"])])
    assert log.to_move() == 0  # ordinary round: Player 1 again
    hands(log, [(0, ["Q", "Q", "Q", "9", "10"]), (1, ["Q", "Q", "Q", "10", "9"]), (2, ["9", "9", "J", "Q", "K"])])
    hands(log, [(0, ["J", "J", "J", "J", "9"]), (1, ["9", "9", "J", "Q", "K"])])  # roll-off: Ada and Ben
    assert log.state.scores == (2, 0, 0)
    assert log.to_move() == 2  # whoever sits after the last tied player who threw (Ben)
    hands(log, [(2, ["K", "K", "K", "K", "K"]), (0, ["A", "A", "A", "A", "A"]), (1, ["9", "10", "J", "Q", "A"])])
    outcome = log.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert [(s.name, s.place, s.score) for s in log.standings()] == [("Ada", 1, 3), ("Ben", 2, 0), ("Cem", 2, 0)]
    assert log.to_move() is None and log.options() == []


def test_pokerdice_wins_needed_is_a_setting() -> None:
    log = game(2, wins=1)
    hands(log, [(0, ["A", "A", "J", "J", "9"]), (1, ["9", "9", "J", "Q", "K"])])
    assert log.outcome() is not None
