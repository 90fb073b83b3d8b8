"""A whole game of each of the five games, played on a phone-sized page while a tablet-sized page shows it live.

Each test keeps a screenshot of the table view at tablet size (artifacts/screenshots/, git-ignored).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.conftest import screenshot
from tests.web.browser.flows import choose, join, new_game, revision, table_follows, throw, wait_revision

pytestmark = pytest.mark.browser


def test_bone_whole_game(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "bone", ["Anna", "Ben"], {"rounds": 1})
    join(phone, tablet, server)
    expect(phone.locator(".phone-turn")).to_contain_text("Anna")
    throw(phone, [6, 6, 6, 6, 6])
    table_follows(tablet, phone)
    expect(tablet.locator("#announce")).to_have_text("Anna threw 6 6 6 6 6")  # read out by screen readers
    expect(tablet.locator(".turn-banner")).to_contain_text("Anna")
    expect(tablet.locator(".history")).to_contain_text("Anna threw 6 6 6 6 6")
    expect(phone.locator("button.choice").first).to_contain_text("50")
    choose(phone, "Five of a kind")
    throw(phone, [1, 2, 4, 5, 5])
    throw(phone, [5, 3, 2], keep=[3, 4])
    table_follows(tablet, phone)
    expect(tablet.locator(".current-dice")).to_be_visible()
    screenshot(tablet, "bone-playing")
    choose(phone, "Three of a kind")
    table_follows(tablet, phone)
    expect(tablet.locator(".winner")).to_contain_text("Anna wins!")
    expect(tablet.locator("table.score tfoot")).to_contain_text("50")
    expect(tablet.locator("table.score tfoot")).to_contain_text("20")
    expect(phone.locator(".winner")).to_contain_text("Anna wins!")
    screenshot(tablet, "bone-table")
    old_url = tablet.url
    tablet.click("[data-rematch]")
    tablet.wait_for_url(lambda url: url != old_url and "/table/" in url)
    expect(tablet.locator(".turn-banner")).to_contain_text("Anna")
    expect(tablet.locator(".ranking")).to_contain_text("Ben")


def hand(phone: Any, dice: list[int], stand: str | None = None) -> None:
    """Throw, then stand where the game still offers it (with a throw limit of one the hand stands by itself)."""
    throw(phone, dice)
    if phone.locator("button.choice").count():
        choose(phone, stand)


def test_classic_whole_game(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "classic", ["Anna", "Ben", "Cleo"], {"strike_limit": 1})
    join(phone, tablet, server)
    hand(phone, [6, 6, 6, 2, 2], "Full house")
    hand(phone, [1, 2, 3, 4, 5])
    hand(phone, [2, 2, 5, 5, 6])
    table_follows(tablet, phone)
    screenshot(tablet, "classic-round")
    # Cleo's two pairs were lowest: one strike puts her out; Anna and Ben play on.
    expect(tablet.locator("table.score tfoot")).to_contain_text("out")
    for _ in range(6):
        if phone.locator(".winner").count():
            break
        turn = phone.locator(".phone-turn").inner_text()
        hand(phone, [6, 6, 6, 6, 6] if "Anna" in turn else [1, 2, 3, 5, 6])
    table_follows(tablet, phone)
    expect(tablet.locator(".winner")).to_contain_text("Anna wins!")
    screenshot(tablet, "classic-table")


def test_pokerdice_whole_game(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "pokerdice", ["Anna", "Ben"], {"wins": 2})
    join(phone, tablet, server)
    expect(phone.locator('.face-btn img[alt="K"]')).to_have_count(1)
    # round 1: the same hand twice, so both roll off; the table shows it
    hand(phone, [6, 6, 5, 5, 1])
    hand(phone, [6, 6, 5, 5, 1])
    table_follows(tablet, phone)
    expect(tablet.locator(".round-box")).to_contain_text("roll-off")
    expect(tablet.locator("table.score")).to_contain_text("roll-off")
    screenshot(tablet, "pokerdice-rolloff")
    hand(phone, [6, 6, 6, 5, 5])
    hand(phone, [1, 2, 3, 4, 6])
    # round 2
    hand(phone, [6, 6, 6, 5, 5])
    hand(phone, [1, 2, 3, 4, 6])
    table_follows(tablet, phone)
    expect(tablet.locator(".winner")).to_contain_text("Anna wins!")
    expect(tablet.locator(".ranking")).to_contain_text("2 ★")
    screenshot(tablet, "pokerdice-table")


SHEET_TURNS = [
    ([1, 1, 1, 1, 2], "Schule 1"),
    ([2, 2, 2, 3, 4], "Schule 2"),
    ([3, 3, 1, 2, 5], "Schule 3"),
    ([4, 4, 4, 4, 4], "Schule 4"),
    ([5, 1, 2, 3, 4], "Schule 5"),
    ([6, 6, 6, 1, 2], "Schule 6"),
    ([6, 6, 1, 2, 3], "Pair"),
    ([5, 5, 5, 1, 2], "Three of a kind"),
    ([4, 4, 3, 3, 1], "Two pairs"),
    ([2, 2, 2, 6, 6], "Full house"),
    ([3, 3, 3, 3, 1], "Four of a kind"),
    ([1, 2, 3, 4, 6], "Five of a kind"),
    ([1, 2, 3, 4, 5], "Small straight"),
    ([2, 3, 4, 5, 6], "Large straight"),
    ([6, 6, 5, 5, 4], "Sum"),
]


def test_sheet_whole_game(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "sheet", ["Anna"], {"columns": 1})
    join(phone, tablet, server)
    for dice, row in SHEET_TURNS:
        throw(phone, dice)
        if row == "Five of a kind":
            phone.click("details summary")
            before = revision(phone)
            phone.locator("details[open] button.choice", has_text="Five of a kind").click()  # its strike
            wait_revision(phone, before + 1)
        else:
            choose(phone, re.compile(rf"^\s*{re.escape(row)}\b"))  # one column: the buttons name the row only
    table_follows(tablet, phone)
    expect(tablet.locator(".winner")).to_contain_text("Anna wins!")
    block = tablet.locator("table.sheet")
    # Schule 3 (two threes) and Schule 5 (one five) could not be paid from a reserve of 1: two zeros
    expect(block.locator("tbody .cell-zero")).to_have_count(2)
    expect(block.locator("tfoot .cell-zero")).to_contain_text("2")
    expect(block.locator(".cell-double").first).to_be_visible()  # first-throw entries are doubled
    expect(block.locator(".cell-struck")).not_to_have_count(0)
    expect(block.locator(".bonus-struck")).not_to_have_count(0)
    screenshot(tablet, "sheet-table")


def test_board_whole_game(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "board", ["Anna", "Ben"], {"points_to_win": 1})
    join(phone, tablet, server)
    throw(phone, [5])
    expect(phone.locator(".phone-turn")).to_contain_text("Ben")
    throw(phone, [2])
    throws = [[6, 6, 6], [1, 2, 3], [5, 4, 6], [2, 2, 1], [3, 3, 3], [4, 1, 2]]
    shot = False
    for _ in range(40):
        if phone.locator(".winner").count():
            break
        if phone.locator(".send-throw").count():
            throw(phone, throws.pop(0))
        else:
            choose(phone)
        if not shot and revision(phone) >= 12:
            table_follows(tablet, phone)
            screenshot(tablet, "board-playing")
            expect(phone.locator(".mini-board .mini-slot img")).not_to_have_count(0)  # the rows, on the phone
            screenshot(phone, "phone-board")
            shot = True
    table_follows(tablet, phone)
    expect(tablet.locator(".winner")).to_be_visible()
    # whose points are which, in words (not "reached 1 points: 2:0")
    points = re.compile(r"^Points: (Anna|Ben) \d+, (Anna|Ben) \d+ \(1 to win\)")
    expect(tablet.locator(".winner .why")).to_contain_text(points)
    expect(tablet.locator(".board .won")).not_to_have_count(0)
    expect(tablet.locator(".slot .order")).to_have_count(18)
    screenshot(tablet, "board-table")
    # every row's both sides and their hand names fit the card at the tablet's sizes and on a phone-wide table page
    for width, height in ((1280, 800), (800, 1280), (390, 844)):
        tablet.set_viewport_size({"width": width, "height": height})
        overflow = tablet.evaluate(
            "() => [...document.querySelectorAll('.board-row, .block')].map(e => e.scrollWidth - e.clientWidth)"
        )
        assert max(overflow) <= 1, (width, overflow)
    screenshot(tablet, "board-table-phone-wide")
    wait_revision(tablet, revision(phone))
