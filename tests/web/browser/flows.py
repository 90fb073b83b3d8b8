"""Playing through the pages as people do: the tablet starts the game, a phone joins by the table's code."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from playwright.sync_api import Page, expect


def new_game(
    tablet: Page,
    base: str,
    game: str,
    players: Sequence[str],
    settings: Mapping[str, Any] = (),
    bound_seats: bool = False,
    here: bool = False,
) -> str:
    """Fill the start page (game, names, settings) and start; returns the game id from the table's address.

    The phones of these flows play every seat (the start page's "each phone plays only for its player" unticked)
    unless ``bound_seats``. ``here``: the tablet is on the start page already (as the table's "New game" left it)."""
    if not here:
        tablet.goto(f"{base}/")
    tablet.check(f'input[name="game"][value="{game}"]')
    visible = tablet.locator(".player-line:not([hidden])").count()
    while visible < len(players):
        tablet.click("#add-player")
        visible += 1
    while visible > len(players):
        tablet.click("#remove-player")
        visible -= 1
    for i, name in enumerate(players):
        tablet.fill(f"#player-{i}", name)
    for name, value in dict(settings).items():
        field = tablet.locator(f"#set-{game}-{name}")
        if isinstance(value, bool):
            field.set_checked(value)
        elif isinstance(value, int):
            field.fill(str(value))
        else:
            field.select_option(str(value))
    tablet.locator("#bound-seats").set_checked(bound_seats)
    tablet.click('#new-game button[type="submit"]')
    tablet.wait_for_url(re.compile(r".*/table/\w+$"))
    return tablet.url.rsplit("/", 1)[1]


def join(phone: Page, tablet: Page, base: str, seat: str | None = "Shared by all") -> None:
    """What scanning the table's QR code does: open its join link; then say whose phone it is (``seat``: a player's
    name or "Shared by all"), as the phone asks first. ``seat=None`` leaves the question open (bound seats have no
    "Shared by all")."""
    code = tablet.locator(".join-box .code").inner_text().strip()
    phone.goto(f"{base}/join/{code}")
    phone.wait_for_url(re.compile(r".*/phone/\w+$"))
    expect(phone.locator("#live-state")).to_have_attribute("data-state", "live")
    pick = phone.locator(".me-first button", has_text=seat) if seat else None
    if pick is not None and pick.count():
        with phone.expect_navigation():
            pick.first.click()
        expect(phone.locator("#live-state")).to_have_attribute("data-state", "live")


def revision(page: Page) -> int:
    return int(page.locator("#live .part").get_attribute("data-revision") or 0)


def wait_revision(page: Page, at_least: int) -> None:
    page.wait_for_function(
        "n => Number(document.querySelector('#live .part').dataset.revision) >= n", arg=at_least, timeout=10_000
    )


def throw(phone: Page, values: Iterable[int], keep: Iterable[int] = (), who: str | None = None) -> None:
    """Enter a throw by tapping faces (after tapping the dice to keep), then send it."""
    before = revision(phone)
    for pos in keep:
        phone.click(f'.hold-btn[data-pos="{pos}"]')
    for v in values:
        phone.click(f'.face-btn[data-face-value="{v}"]')
    button = phone.locator(".send-throw")
    if who is not None:
        button = button.filter(has_text=who)
    button.first.click()
    wait_revision(phone, before + 1)


def choose(phone: Page, text: str | re.Pattern[str] | None = None) -> None:
    """Tap a choice (by its words, or the first one)."""
    before = revision(phone)
    choices = phone.locator("button.choice")
    if text is not None:
        choices = choices.filter(has_text=text)
    button = choices.first.element_handle()  # the same button for both taps (the first changes its words)
    if button.get_attribute("data-confirm"):  # a zero asks a second tap, apart from the first
        button.click()
        phone.wait_for_timeout(700)
    button.click()
    wait_revision(phone, before + 1)


def table_follows(tablet: Page, phone: Page) -> None:
    """The tablet shows what the phone did without being touched (live update)."""
    wait_revision(tablet, revision(phone))
