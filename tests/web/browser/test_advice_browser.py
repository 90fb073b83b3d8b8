"""The hold advisor's hint on the phone: off by default, switched on per device, remembered across pages."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.conftest import screenshot
from tests.web.browser.flows import choose, join, new_game, throw

pytestmark = pytest.mark.browser


def test_the_hint_switch_marks_the_best_hold_and_is_remembered(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "pokerdice", ["Anna", "Ben"])
    join(phone, tablet, server)
    throw(phone, [4, 4, 4, 3, 3])  # Anna: Q Q Q J J, a full house
    choose(phone, "Full House")
    throw(phone, [6, 6, 6, 2, 1])  # Ben: A A A 10 9 against Anna's full house
    switch = phone.locator("[data-advice-switch]")
    expect(switch).not_to_be_checked()  # off by default: a table can play without it
    expect(phone.locator("[data-advice-out]")).to_be_hidden()
    assert phone.locator(".hold-btn.advised").count() == 0

    switch.check()
    best = phone.locator(".advice-best")
    expect(best).to_contain_text("Keep A A A:")
    expect(best).to_contain_text("to beat Anna's Full house")  # one capitalisation (issue 61)
    expect(phone.locator(".advice-next li")).to_have_count(2)
    expect(phone.locator(".hold-btn.advised")).to_have_count(3)
    assert [phone.locator(".hold-btn.advised").nth(i).get_attribute("data-pos") for i in range(3)] == ["0", "1", "2"]
    expect(phone.locator('.hold-btn[data-pos="0"]')).to_have_attribute("aria-label", "Die 1: A, keep, advised")
    screenshot(phone, "phone-advice-hint")

    # remembered on this device: a reload (and every later throw) shows it again without asking
    phone.reload()
    expect(phone.locator("[data-advice-switch]")).to_be_checked()
    expect(phone.locator(".advice-best")).to_contain_text("Keep A A A:")

    # off again: nothing is marked, and it stays off after a reload
    phone.locator("[data-advice-switch]").uncheck()
    expect(phone.locator("[data-advice-out]")).to_be_hidden()
    expect(phone.locator(".hold-btn.advised")).to_have_count(0)
    phone.reload()
    expect(phone.locator("[data-advice-switch]")).not_to_be_checked()
    expect(phone.locator(".hold-btn.advised")).to_have_count(0)


def test_the_hint_gives_expected_points_in_bone(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    phone.evaluate("localStorage.setItem('becher.advice', 'on')")
    throw(phone, [6, 1, 6, 6, 6])
    expect(phone.locator(".advice-best")).to_have_text("Keep 6 6 6 6: 43.1 points expected")
    expect(phone.locator(".hold-btn.advised")).to_have_count(4)
