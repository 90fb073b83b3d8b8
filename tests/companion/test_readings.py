"""RULES.md: "the rules help in the app says which reading is in force": every game states its readings, in
English and German, one sentence each, and ``describe()`` hands them to the pages and the API."""

from __future__ import annotations

import pytest

from companion.core import all_rules, rules_for

GAMES = sorted(r.id for r in all_rules())


def test_all_five_games_are_checked() -> None:
    assert GAMES == ["board", "bone", "classic", "pokerdice", "sheet"]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_says_its_readings_in_english_and_german(game: str) -> None:
    rules = rules_for(game)
    assert rules.readings_en, f"{game}: no readings in English"
    assert len(rules.readings_de) == len(rules.readings_en), f"{game}: German and English readings differ in number"
    for text in (*rules.readings_en, *rules.readings_de):
        assert text == text.strip() and text[0].isupper() and text.endswith("."), (game, text)
        assert ". " not in text.rstrip("."), f"{game}: one sentence each: {text!r}"
    assert len(set(rules.readings_en)) == len(rules.readings_en)
    described = rules.describe()
    assert described["readings_en"] == list(rules.readings_en)
    assert described["readings_de"] == list(rules.readings_de)


def test_board_says_the_rule_texts_example_contradicts_its_ranking_and_the_ranking_is_followed() -> None:
    rules = rules_for("board")
    assert any("6-2-1" in t and "5-4-3" in t and "ranking is followed" in t for t in rules.readings_en)
    assert any("6-2-1" in t and "5-4-3" in t and "Rangfolge" in t for t in rules.readings_de)
