import pytest

from companion.errors import IllegalAction, MalformedInput
from companion.turns import Throw, Turn


def test_first_throw_throws_all_five_and_counts_as_all_five() -> None:
    turn = Turn(0)
    turn.verify_throw(Throw(0, (1, 2, 3, 4, 5)), max_throws=3)
    after = turn.after_throw(Throw(0, (1, 2, 3, 4, 5)))
    assert (after.throws, after.all_five, after.dice) == (1, True, (1, 2, 3, 4, 5))
    with pytest.raises(IllegalAction, match="nothing can be held"):
        turn.verify_throw(Throw(0, (1, 2, 3, 4, 5), (0,)), max_throws=3)


def test_held_dice_must_keep_their_values_and_a_rethrow_holding_none_is_all_five() -> None:
    turn = Turn(0).after_throw(Throw(0, (3, 3, 5, 1, 6)))
    with pytest.raises(IllegalAction, match="held at 3"):
        turn.verify_throw(Throw(0, (4, 3, 2, 2, 2), (0, 1)), max_throws=3)
    kept = turn.after_throw(Throw(0, (3, 3, 2, 2, 2), (0, 1)))
    assert not kept.all_five
    assert kept.after_throw(Throw(0, (6, 6, 6, 6, 6))).all_five


def test_no_throw_beyond_the_limit_and_none_after_standing() -> None:
    turn = Turn(0).after_throw(Throw(0, (1, 1, 1, 1, 1)))
    with pytest.raises(IllegalAction, match="allows 1 throw"):
        turn.verify_throw(Throw(0, (1, 1, 1, 1, 2), (0,)), max_throws=1)
    stood = turn.after_stand()
    with pytest.raises(IllegalAction, match="already stood"):
        stood.verify_throw(Throw(0, (1, 1, 1, 1, 2), (0,)), max_throws=3)
    with pytest.raises(IllegalAction, match="Throw the dice before standing"):
        Turn(1).verify_stand()


def test_fixed_holds_house_rule_keeps_set_aside_dice_aside() -> None:
    turn = Turn(0).after_throw(Throw(0, (2, 2, 5, 5, 6)), held_are_fixed=True)
    turn = turn.after_throw(Throw(0, (2, 2, 5, 5, 3), (0, 1, 2, 3)), held_are_fixed=True)
    with pytest.raises(IllegalAction, match="fixed"):
        turn.verify_throw(Throw(0, (2, 2, 1, 4, 3), (0, 1, 4)), max_throws=3, held_are_fixed=True)
    turn.verify_throw(Throw(0, (2, 2, 5, 5, 5), (0, 1, 2, 3)), max_throws=3, held_are_fixed=True)


def test_wrong_size_and_bad_positions_are_malformed() -> None:
    with pytest.raises(MalformedInput, match="5 dice, not 4"):
        Turn(0).verify_throw(Throw(0, (1, 2, 3, 4)), max_throws=3)
    turn = Turn(0).after_throw(Throw(0, (1, 2, 3, 4, 5)))
    with pytest.raises(MalformedInput, match="positions 0 to 4"):
        turn.verify_throw(Throw(0, (1, 2, 3, 4, 5), (5,)), max_throws=3)
