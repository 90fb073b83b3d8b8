"""Refusals keep their English template and values apart, so a front end can say them in another language."""

from __future__ import annotations

import pytest

from companion import IllegalAction, MalformedInput, rules_for
from companion.core import GameLog
from companion.errors import Message


def test_a_message_reads_as_its_english_sentence() -> None:
    m = Message("It is {player}'s turn, not {player2}'s.", player="Anna", player2="Ben")
    assert str(m) == "It is Anna's turn, not Ben's."
    assert str(IllegalAction("It is {player}'s turn.", player="Anna")) == "It is Anna's turn."


def test_a_template_without_values_is_taken_as_it_is() -> None:
    assert str(MalformedInput("Send {a JSON object}.")) == "Send {a JSON object}."


def test_translation_applies_to_the_template_and_to_nested_messages_not_to_values() -> None:
    catalog = {
        "{expected} The dice are entered as {player}'s action.": "{expected} Die Würfel trägt {player} ein.",
        "{player} must announce a hand now.": "{player} muss jetzt eine Hand ansagen.",
        "Anna": "ANNA IN ANOTHER LANGUAGE",
    }
    inner = Message("{player} must announce a hand now.", player="Anna")
    outer = Message("{expected} The dice are entered as {player}'s action.", expected=inner, player="Anna")
    said = outer.render(lambda t: catalog.get(t, t))
    assert said == "Anna muss jetzt eine Hand ansagen. Die Würfel trägt Anna ein."


def test_a_translation_with_wrong_placeholders_falls_back_to_english() -> None:
    m = Message("Row {row} is full.", row=2)
    assert m.render(lambda t: "Reihe {reihe} ist voll.") == "Row 2 is full."
    assert m.render(lambda t: "Reihe {row} ist voll.") == "Reihe 2 ist voll."


def test_a_refusal_of_the_rules_carries_its_template_and_values() -> None:
    rules = rules_for("bone")
    log = GameLog(rules, rules.make_setup(["Anna", "Ben"], {}))
    with pytest.raises(IllegalAction) as info:
        log.play({"type": "throw", "player": 1, "dice": [1, 2, 3, 4, 5]})
    assert info.value.message.template == "It is {player}'s turn, not {player2}'s."
    assert dict(info.value.message.params) == {"player": "Anna", "player2": "Ben"}
    assert str(info.value) == "It is Anna's turn, not Ben's."
    assert len(log) == 0
