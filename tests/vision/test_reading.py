"""The reading type refuses what cannot be true of a die, and serialises as the CLI contract says."""

from __future__ import annotations

import math

import pytest

from vision.reading import Die, Reading


def test_a_valid_die_round_trips_to_json() -> None:
    d = Die("Q", 4, 0.91234, (1, 2, 30, 40), False, "poker", printed="D")
    assert d.to_json() == {
        "face": "Q",
        "value": 4,
        "confidence": 0.9123,
        "box": [1, 2, 30, 40],
        "uncertain": False,
        "printed": "D",
    }


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"face": "7", "value": 7}, "faces"),
        ({"face": "5", "value": 4}, "rank"),
        ({"confidence": 1.5}, "confidence"),
        ({"confidence": math.nan}, "confidence"),
        ({"box": (10, 10, 5, 20)}, "box"),
        ({"kind": "card"}, "kind"),
        ({"face": "J", "value": 3}, "faces"),  # a poker face on a pip die
        ({"kind": "poker", "face": "K", "value": 5, "printed": "D"}, "printing"),  # D is a queen
        ({"kind": "poker", "face": "J", "value": 3, "printed": "R"}, "printing"),
    ],
)
def test_impossible_dice_are_refused(kwargs: dict, words: str) -> None:
    base = {"face": "5", "value": 5, "confidence": 0.9, "box": (0, 0, 10, 10), "uncertain": False, "kind": "pip"}
    with pytest.raises(ValueError, match=f"(?i){words}"):
        Die(**{**base, **kwargs})


def test_reading_checks_kind_and_size_and_orders_the_throw() -> None:
    a = Die("6", 6, 0.99, (50, 0, 60, 10), False)
    b = Die("2", 2, 0.6, (5, 0, 15, 10), True)
    r = Reading("pip", (a, b), 100, 50)
    assert r.to_throw() == (2, 6)
    assert r.uncertain
    with pytest.raises(ValueError):
        Reading("poker", (a,), 100, 50)
    with pytest.raises(ValueError):
        Reading("pip", (), 0, 50)
