"""Phones follow the table into a new game (issue 61): after a game is over the tablet's "New game" starts another,
and every phone of the old game goes there by itself, keeping its player where the name is the same."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.flows import choose, join, new_game, table_follows, throw

pytestmark = pytest.mark.browser


def play_out(tablet: Any, phone: Any) -> None:
    """Poker Dice to one round win, both throws entered at the table: Anna's four of a kind beats Ben's bust."""
    for dice in ([6, 6, 6, 6, 5], [1, 2, 3, 4, 6]):
        throw(tablet, dice)
        if tablet.locator("button.choice").count():
            choose(tablet)
    expect(tablet.locator(".winner")).to_contain_text("Anna wins!")
    table_follows(tablet, phone)
    expect(phone.locator(".winner")).to_contain_text("Anna wins!")
    expect(phone.locator(".winner .next-hint")).to_contain_text("comes to this phone by itself")  # not stranded


@pytest.mark.parametrize("bound", [True, False], ids=["bound", "shared"])
def test_phones_follow_the_tables_new_game_as_the_same_player(
    server: str, tablet: Any, phone: Any, bound: bool
) -> None:
    first = new_game(tablet, server, "pokerdice", ["Anna", "Ben"], {"wins": 1}, bound_seats=bound)
    join(phone, tablet, server, seat="Ben")
    expect(phone.locator(".me-pick summary")).to_contain_text("Ben")
    play_out(tablet, phone)
    tablet.locator(".winner a", has_text="New game").click()
    tablet.wait_for_url(re.compile(r".*/\?after=\w+$"))
    # the last game's players are filled in; Ben now sits first, next to a new player
    expect(tablet.locator("#player-0")).to_have_value("Anna")
    expect(tablet.locator("#player-1")).to_have_value("Ben")
    second = new_game(tablet, server, "bone", ["Ben", "Cleo"], bound_seats=bound, here=True)
    assert second != first
    # the phone follows without a tap, and is Ben's phone in the new game: no "Whose phone is this?"
    phone.wait_for_url(re.compile(rf".*/phone/{second}$"))
    expect(phone.locator("#live-state")).to_have_attribute("data-state", "live")
    expect(phone.locator(".me-first")).to_have_count(0)
    expect(phone.locator(".phone-turn")).to_contain_text("Your turn, Ben")
    throw(phone, [5, 5, 5, 2, 3])
    table_follows(tablet, phone)


def test_a_phone_whose_player_left_is_asked_again(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "pokerdice", ["Anna", "Ben"], {"wins": 1}, bound_seats=True)
    join(phone, tablet, server, seat="Ben")
    play_out(tablet, phone)
    tablet.locator(".winner a", has_text="New game").click()
    second = new_game(tablet, server, "bone", ["Anna", "Dora"], bound_seats=True, here=True)
    phone.wait_for_url(re.compile(rf".*/phone/{second}$"))
    expect(phone.locator(".me-first")).to_contain_text("Whose phone is this?")
