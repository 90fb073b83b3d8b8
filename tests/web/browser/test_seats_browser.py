"""Bound seats in the pages: the phone that chose Anna plays Anna's turns and is refused Ben's, with a clear word."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.conftest import PHONE, screenshot
from tests.web.browser.flows import join, new_game, revision, table_follows, throw

pytestmark = pytest.mark.browser


def join_and_find_annas_seat_taken(second: Any, tablet: Any, server: str) -> None:
    """A second phone joins and asks for Anna's seat, which the first phone holds: it is told so."""
    join(second, tablet, server)
    with second.expect_navigation():
        second.locator(".me-pick button", has_text="Anna").click()
    expect(second.locator(".me-pick [role=alert]")).to_contain_text("taken by another phone")


def test_a_bound_phone_plays_its_own_seat_and_a_taken_seat_is_refused(
    server: str, browser: Any, tablet: Any, phone: Any
) -> None:
    new_game(tablet, server, "bone", ["Anna", "Ben"], bound_seats=True)
    join(phone, tablet, server)
    expect(phone.locator(".me-first")).to_be_visible()
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
        join_and_find_annas_seat_taken(second, tablet, server)
        with second.expect_navigation():
            second.locator(".me-pick button", has_text="Ben").click()
        expect(second.locator(".phone-turn")).to_contain_text("Your turn, Ben")
        throw(second, [5, 5, 5, 1, 2])
        table_follows(tablet, second)
    finally:
        ctx.close()


def test_the_owner_frees_a_left_phones_seat_and_switches_binding_on_the_table_page(
    server: str, browser: Any, tablet: Any, phone: Any
) -> None:
    """A phone that left keeps its seat: the owner frees it on the table page, and may let every phone play every
    seat (and bind them again) after the game has started, without leaving the score block."""
    errors: list[str] = []
    tablet.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    new_game(tablet, server, "bone", ["Anna", "Ben"], bound_seats=True)
    box = tablet.locator("#phones-box")
    box.locator("summary").click()
    expect(box).to_contain_text("No phone has joined yet.")
    expect(box.locator(".phones-mode")).to_contain_text("Each phone plays only the seat it chose.")

    join(phone, tablet, server)
    with phone.expect_navigation():
        phone.locator(".me-pick button", has_text="Anna").click()
    row = box.locator(".phones-list li")
    expect(row).to_have_count(1)  # live: the owner touched nothing
    expect(row.locator(".phone-seat")).to_have_text("Anna")
    expect(box.locator("summary")).to_contain_text("(1)")

    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    second = ctx.new_page()
    try:
        join_and_find_annas_seat_taken(second, tablet, server)
        expect(row).to_have_count(2)
        # Anna's phone went flat: the owner frees her seat, and the new phone takes it
        row.filter(has_text="Anna").locator("[data-free-seat]").click()
        expect(row.first.locator(".phone-seat")).to_have_text("no seat")
        expect(row.locator("[data-free-seat]")).to_have_count(0)
        with second.expect_navigation():
            second.locator(".me-pick button", has_text="Anna").click()
        expect(second.locator(".phone-turn")).to_contain_text("Your turn, Anna")
        expect(row.nth(1).locator(".phone-seat")).to_have_text("Anna")
        screenshot(tablet, "table-phones-box")

        # shared by all, after the start: a phone without a seat may now choose "Shared by all" and play any seat
        box.locator("[data-bound=false]").click()
        expect(box.locator(".phones-mode")).to_contain_text("Every phone may play for every seat")
        expect(box).to_have_attribute("open", "")  # the box stays open while the page follows the game
        phone.reload()
        expect(phone.locator(".me-pick button", has_text="Shared by all")).to_have_count(1)
        throw(phone, [6, 6, 2, 3, 4])  # Anna's turn, from the phone that holds no seat
        table_follows(tablet, phone)
        box.locator("[data-bound=true]").click()
        expect(box.locator(".phones-mode")).to_contain_text("Each phone plays only the seat it chose.")
        phone.reload()
        expect(phone.locator(".me-pick button", has_text="Shared by all")).to_have_count(0)

        # a phone that left for good is removed; it no longer counts among the game's phones
        row.first.locator("[data-remove-phone]").click()
        expect(row).to_have_count(1)
        expect(box.locator("summary")).to_contain_text("(1)")
    finally:
        ctx.close()

    # the owner's tablet in German: the box in the catalogue's words, and no page wider than the screen
    german = browser.new_context(viewport=PHONE, locale="de-DE", storage_state=tablet.context.storage_state())
    try:
        de = german.new_page()
        de.goto(tablet.url)
        de.locator("#phones-box summary").click()
        expect(de.locator("#phones-box summary")).to_contain_text("Handys und Plätze")
        expect(de.locator("#phones-box .phones-mode")).to_contain_text("Jedes Handy spielt nur für den Platz")
        expect(de.locator("[data-free-seat]")).to_have_text("Platz freigeben")
        assert de.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        screenshot(de, "table-phones-box-de-phone")
    finally:
        german.close()
    assert not errors, errors


def test_only_the_owner_gets_the_phones_box(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "classic", ["Anna", "Ben"], bound_seats=True)
    expect(tablet.locator("#phones-box")).to_have_count(1)
    join(phone, tablet, server)
    phone.goto(tablet.url)
    expect(phone.locator(".block")).to_be_visible()
    expect(phone.locator("#phones-box")).to_have_count(0)
    answer = phone.request.get(tablet.url + "/phones")
    assert answer.status == 403
