"""Bound seats in the pages: the phone that chose Anna plays Anna's turns and is refused Ben's, with a clear word."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.conftest import PHONE, screenshot
from tests.web.browser.flows import join, new_game, revision, table_follows, throw

pytestmark = pytest.mark.browser


def test_a_bound_phone_plays_its_own_seat_and_a_taken_seat_is_refused(
    server: str, browser: Any, tablet: Any, phone: Any
) -> None:
    new_game(tablet, server, "bone", ["Anna", "Ben"], bound_seats=True)
    join(phone, tablet, server)
    expect(phone.locator(".me-pick")).to_have_attribute("open", "")
    expect(phone.locator(".me-pick button", has_text="Shared by all")).to_have_count(0)  # the owner's choice only
    with phone.expect_navigation():
        phone.locator(".me-pick button", has_text="Anna").click()
    expect(phone.locator(".phone-turn")).to_contain_text("Your turn, Anna")
    throw(phone, [6, 6, 2, 3, 4])
    phone.locator("button.choice").first.click()
    expect(phone.locator(".waiting")).to_contain_text("Waiting for Ben")
    expect(phone.locator(".other-turn")).to_have_count(0)  # no controls for Ben's turn on Anna's phone
    expect(phone.locator(".face-btn")).to_have_count(0)
    screenshot(phone, "phone-bound-waiting")
    before = revision(phone)  # and the API refuses it anyway, in words
    answer = phone.evaluate(
        """async () => { try { await Becher.api("POST", location.pathname.replace("/phone/", "/api/games/")
             + "/actions", {seen: 2, action: {type: "throw", player: 1, dice: [5, 5, 5, 1, 2]}}); return "";
           } catch (e) { return Becher.describeError(e); } }"""
    )
    assert "plays for Anna only" in answer and revision(phone) == before
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    second = ctx.new_page()
    try:
        join(second, tablet, server)
        with second.expect_navigation():
            second.locator(".me-pick button", has_text="Anna").click()
        expect(second.locator(".me-pick [role=alert]")).to_contain_text("taken by another phone")
        with second.expect_navigation():
            second.locator(".me-pick button", has_text="Ben").click()
        expect(second.locator(".phone-turn")).to_contain_text("Your turn, Ben")
        throw(second, [5, 5, 5, 1, 2])
        table_follows(tablet, second)
    finally:
        ctx.close()
