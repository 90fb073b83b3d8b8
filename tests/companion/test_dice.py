import pytest

from companion.dice import DiceKind, face_label, parse_dice, parse_die
from companion.errors import MalformedInput


def test_pip_and_poker_faces_share_ranks() -> None:
    assert [parse_die(f) for f in ["1", "6", "9", "10", "J", "Q", "K", "A"]] == [1, 6, 1, 2, 3, 4, 5, 6]
    assert [face_label(r, DiceKind.POKER) for r in range(1, 7)] == ["9", "10", "J", "Q", "K", "A"]


def test_court_letters_of_other_printings_are_read() -> None:
    assert [parse_die(f, DiceKind.POKER) for f in ["B", "V", "D", "R", "as"]] == [3, 3, 4, 5, 6]


@pytest.mark.parametrize("bad", [0, 7, "7", "X", "", None, 2.5, True, [1]])
def test_a_face_that_does_not_exist_is_refused(bad: object) -> None:
    with pytest.raises(MalformedInput):
        parse_die(bad)


def test_a_poker_face_in_a_pip_game_is_refused_by_name() -> None:
    with pytest.raises(MalformedInput, match="'K' is a poker-dice face"):
        parse_dice(["1", "2", "K", "4", "5"], DiceKind.PIP)
    with pytest.raises(MalformedInput, match="'5' is a pip face"):
        parse_dice(["9", "5"], DiceKind.POKER)


def test_a_throw_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(MalformedInput, match="needs 5 dice, not 4"):
        parse_dice([1, 2, 3, 4], count=5)
    with pytest.raises(MalformedInput):
        parse_dice("12345", count=5)
