"""What a new group trips over in an evening at the table (issue 53): a tablet (1280x800) and a phone (390x844),
each in its own browser context, as two devices at one table are."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.conftest import screenshot
from tests.web.browser.flows import choose, join, new_game, revision, table_follows, throw, wait_revision
from tests.web.browser.test_pages_browser import dice_photo, fixed_reading

pytestmark = pytest.mark.browser


def finish_bone(phone: Any) -> None:
    """One round of Bone for Anna and Ben, each standing on the first throw."""
    throw(phone, [6, 6, 6, 6, 6])
    choose(phone, "Five of a kind")
    throw(phone, [2, 2, 3, 4, 6])
    choose(phone)


def test_a_rematch_on_the_tablet_takes_the_phone_along_and_a_second_press_makes_no_second_game(
    server: str, tablet: Any, phone: Any
) -> None:
    old_id = new_game(tablet, server, "bone", ["Anna", "Ben"], {"rounds": 1})
    join(phone, tablet, server)
    finish_bone(phone)
    table_follows(tablet, phone)
    expect(phone.locator(".winner [data-rematch]")).to_be_visible()
    tablet.click("[data-rematch]")
    tablet.wait_for_url(re.compile(rf".*/table/(?!{old_id})\w+$"))
    new_id = tablet.url.rsplit("/", 1)[1]
    # the phone is told live and follows into the same new game, untouched
    phone.wait_for_url(f"{server}/phone/{new_id}")
    expect(phone.locator("#live-state")).to_have_attribute("data-state", "live")
    expect(phone.locator(".phone-turn")).to_contain_text("Anna")
    expect(phone.locator(".me-first")).to_have_count(0)  # it said whose it is in the first game: not asked again
    expect(phone.locator(".face-btn")).to_have_count(6)
    # the finished game now points at its rematch: opened again, it offers the way there, and a press on the old
    # Rematch (a page left open elsewhere) answers the same game, no second one
    phone.goto(f"{server}/phone/{old_id}")
    expect(phone.locator(".winner a", has_text="To the rematch")).to_have_attribute("href", f"/phone/{new_id}")
    again = phone.evaluate("async (id) => (await Becher.api('POST', `/api/games/${id}/rematch`, {})).game.id", old_id)
    assert again == new_id
    games = tablet.request.get(f"{server}/api/games").json()["games"]
    assert sum(1 for g in games if g["players"] == ["Anna", "Ben"] and g["actions"] == 0) == 1
    screenshot(phone, "evening-phone-old-game-after-rematch")


def test_clear_drops_the_photo_so_a_throw_tapped_in_after_it_has_none(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setattr("web.photos.read_image", fixed_reading)
    game_id = new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    photo = tmp_path / "dice.jpg"
    photo.write_bytes(dice_photo())
    phone.set_input_files("#photo-input", str(photo))
    expect(phone.locator(".entry-die img")).to_have_count(5)
    expect(tablet.locator("#table-photo")).to_be_visible()
    phone.click("#clear-dice")
    expect(phone.locator("#photo-wrap")).to_be_hidden()
    throw(phone, [1, 1, 1, 2, 2])
    table_follows(tablet, phone)
    game = phone.request.get(f"{server}/api/games/{game_id}").json()["game"]
    assert game["state"]["view"]["turn"]["dice"] == [1, 1, 1, 2, 2]
    assert game["photos"] == {}  # the photo showed 3 3 5 2 6: it is no proof of 1 1 1 2 2
    expect(tablet.locator(".history a.photo-link")).to_have_count(0)
    expect(tablet.locator(".turn-banner a.photo-link")).to_have_count(0)


@pytest.mark.parametrize("how", ["cross", "escape", "outside"])
def test_a_phones_photo_on_the_tablet_closes_at_a_word(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any, how: str
) -> None:
    monkeypatch.setattr("web.photos.read_image", fixed_reading)
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    photo = tmp_path / "dice.jpg"
    photo.write_bytes(dice_photo())
    phone.set_input_files("#photo-input", str(photo))
    box = tablet.locator("#table-photo")
    expect(box).to_be_visible()
    if how == "cross":
        screenshot(tablet, "evening-table-photo")
        box.locator("button.photo-close").click()
    elif how == "escape":
        tablet.keyboard.press("Escape")
    else:
        tablet.locator("#rank-h").click()
    expect(box).to_be_hidden()
    # and the block under it is the table's again: a tap on the ranking reaches it
    before = revision(tablet)
    throw(phone, [3, 3, 5, 2, 6])
    wait_revision(tablet, before + 1)
    expect(box).to_be_hidden()


def test_bones_ranking_and_the_phones_chips_agree_with_the_total_row_mid_round(
    server: str, tablet: Any, phone: Any
) -> None:
    new_game(tablet, server, "bone", ["Anna", "Ben"], {"rounds": 2})
    join(phone, tablet, server)
    throw(phone, [6, 6, 6, 2, 2])
    choose(phone, "Full house")
    table_follows(tablet, phone)
    total = tablet.locator("table.score tfoot tr.total td")
    expect(total.first).to_have_text("35")
    ranking = tablet.locator(".ranking li")
    expect(ranking.first).to_contain_text("Anna")
    expect(ranking.first.locator(".score")).to_have_text("35")
    expect(ranking.first.locator(".place")).to_have_text("1.")
    expect(ranking.nth(1).locator(".place")).to_have_text("2.")
    chips = phone.locator(".mini-ranking > span")
    expect(chips.first).to_contain_text("1. Anna")
    expect(chips.first).to_contain_text("35")
    expect(chips.nth(1)).to_contain_text("2. Ben")


def test_joined_phones_are_named_in_the_owners_list(server: str, browser: Any, tablet: Any, phone: Any) -> None:
    from tests.web.browser.conftest import PHONE

    new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server, seat="Anna")
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    try:
        second = ctx.new_page()
        join(second, tablet, server)  # shared by all
        box = tablet.locator("#phones-box")
        box.locator("summary").click()
        names = box.locator(".phones-list .phone-name")
        expect(names).to_have_text(["Anna", "Phone 2"])
        screenshot(tablet, "evening-phones-named")
    finally:
        ctx.close()


def test_the_rules_page_shows_each_games_hands_and_points(server: str, tablet: Any, phone: Any) -> None:
    tablet.goto(f"{server}/rules/bone")
    table = tablet.locator(".rules-table table").first
    expect(table.locator("tbody tr").first).to_contain_text("Five of a kind")
    points = ["50", "40", "35", "30", "25", "20", "15", "10", "5"]
    expect(table.locator("tbody tr td:nth-child(3)")).to_have_text(points)
    expect(table.locator("tbody tr").first.locator("img.die")).to_have_count(5)
    tablet.goto(f"{server}/rules/classic")
    tables = tablet.locator(".rules-table")
    expect(tables).to_have_count(2)  # the order, and the points when played for points
    expect(tables.nth(0).locator("tbody tr").last).to_contain_text("Nothing")
    expect(tables.nth(1).locator("tbody tr").first).to_contain_text("50")
    tablet.goto(f"{server}/rules/pokerdice")
    expect(tablet.locator(".rules-table tbody tr").first).to_contain_text("Five of a kind")  # one capitalisation
    tablet.goto(f"{server}/rules/board")
    expect(tablet.locator(".rules-table tbody tr").first).to_contain_text("Three of a kind")
    tablet.goto(f"{server}/rules/sheet")
    expect(tablet.locator(".rules-table tbody tr", has_text="Schule 6")).to_contain_text("adds 6 to the reserve")
    expect(tablet.locator(".rules-table tbody tr", has_text="Five of a kind")).to_contain_text("55 to 80")
    screenshot(tablet, "evening-rules-sheet")
    phone.goto(f"{server}/rules/bone")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


CELLS_OVERFLOWING = """() => [...document.querySelectorAll('table.sheet td, table.sheet th')]
  .filter((c) => c.scrollWidth > c.clientWidth + 1).length"""


def test_the_score_sheet_puts_zeros_last_asks_twice_and_fits_a_phone(
    server: str, browser: Any, tablet: Any, phone: Any
) -> None:
    from tests.web.browser.conftest import PHONE

    new_game(tablet, server, "sheet", ["Anna", "Bartholomew"])
    join(phone, tablet, server, seat="Anna")
    expect(phone.locator(".phone-turn")).to_contain_text("Entry 1 of 45")
    throw(phone, [6, 6, 6, 6, 2])
    choices = phone.locator(".choose-panel > .choices button.choice")  # the strikes are folded away
    # each compact button's accessible name says what entering it does (its text names the field only, issue 61)
    texts = choices.evaluate_all("bs => bs.map(b => b.getAttribute('aria-label') || b.innerText)")
    zeros = [i for i, t in enumerate(texts) if "zero" in t]
    scoring = [i for i, t in enumerate(texts) if "zero" not in t and "not made" not in t and "Strike" not in t]
    assert zeros and scoring and max(scoring) < min(zeros), texts
    six = choices.filter(has_text="Schule 6")
    expect(six).to_contain_text("reserve +6")
    expect(six.locator(".pts")).to_have_count(0)  # no "0" beside a Schule entry that adds to the reserve
    # the phone shows its own player's sheet, Anna's alone
    own = phone.locator(".own-sheet")
    expect(own.locator("thead")).to_contain_text("Anna")
    expect(own.locator("thead")).not_to_contain_text("Bartholomew")
    # a zero costs 200: the first tap only asks
    zero = phone.locator('button.choice[data-action*="schule_1"]')
    before = revision(phone)
    zero.click()
    expect(zero).to_contain_text("Tap again")
    phone.wait_for_timeout(700)
    assert revision(phone) == before
    zero.click()
    wait_revision(phone, before + 1)
    table_follows(tablet, phone)
    # Bartholomew's first entry is his entry 1, not the table's entry 2
    expect(tablet.locator(".round-box")).to_contain_text("Entry 1 of 45")
    # the table page on a phone-sized screen: the sheet scrolls sideways, no cell squeezed over its neighbour
    ctx = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB", storage_state=tablet.context.storage_state()
    )
    try:
        small = ctx.new_page()
        small.goto(tablet.url)
        assert small.evaluate(CELLS_OVERFLOWING) == 0
        assert small.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        block = small.locator(".block")
        assert block.evaluate("b => b.scrollWidth > b.clientWidth")  # the sheet's width, reached by scrolling
        star = small.locator("table.sheet thead tr:nth-child(2) th").last
        star.scroll_into_view_if_needed()
        box = star.bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"] + 1
        screenshot(small, "evening-sheet-table-phone")
    finally:
        ctx.close()


def test_words_a_long_name_a_cut_name_the_sheets_limit_and_bluffs_rethrow(server: str, tablet: Any, phone: Any) -> None:
    from tests.web.browser.test_entry_layout import act, create

    # a name over the limit is refused in words, the field marked and left as typed
    tablet.goto(f"{server}/")
    tablet.check('input[name="game"][value="bone"]')
    long = "Maximiliane Alexandra von Hohenzollern-Sig"  # 42 characters
    # (the field's maxlength stops typing at 40: the name comes in as a paste keeps it, whole)
    tablet.locator("#player-0").evaluate("(f, v) => { f.value = v; }", long)
    tablet.fill("#player-1", "Ben")
    tablet.click('#new-game button[type="submit"]')
    expect(tablet.locator("#player-0-error")).to_contain_text("at most 40 characters")  # next to its field
    expect(tablet.locator("#player-0")).to_have_attribute("aria-invalid", "true")
    expect(tablet.locator("#player-0")).to_have_value(long)
    assert tablet.url.rstrip("/") == server
    # the sheet's refusal names the setting as its box does
    tablet.check('input[name="game"][value="sheet"]')
    while tablet.locator(".player-line:not([hidden])").count() < 5 and tablet.locator("#add-player").is_enabled():
        tablet.click("#add-player")
    assert tablet.locator(".player-line:not([hidden])").count() == 5
    tablet.fill("#player-0", "Anna")
    tablet.click('#new-game button[type="submit"]')
    expect(tablet.locator("#new-error")).to_contain_text("“Up to 8 players”")
    expect(tablet.locator("#new-error")).not_to_contain_text("more_players")
    answer = tablet.request.post(
        f"{server}/api/games",
        data='{"game": "board", "players": ["A", "B", "C"]}',
        headers={"X-Becher": "1", "Content-Type": "application/json"},
    )
    assert "played by 2 players, not 3" in answer.json()["error"]
    # a name cut on a phone is read whole with a tap
    game_id = create(tablet, server, "bone", [long[:40], "Ben"])
    tablet.goto(f"{server}/table/{game_id}")
    join(phone, tablet, server, seat="Ben")
    chip = phone.locator(".mini-ranking .pname").first
    assert chip.evaluate("e => e.scrollWidth > e.clientWidth + 1")  # cut
    chip.tap()
    expect(chip).to_have_class(re.compile(r"\bwhole\b"))
    assert chip.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    # bluff: a rethrow said as a sentence, and no empty table of ended sequences
    bluff = create(tablet, server, "classic", ["Max", "Nina"], {"mode": "bluff"})
    act(tablet, server, bluff, {"type": "announce", "player": 0, "dice": [2, 2, 5, 5, 6]})
    act(tablet, server, bluff, {"type": "believe", "player": 1})
    tablet.goto(f"{server}/table/{bluff}")
    expect(tablet.locator("button.choice", has_text="Rethrow 2 dice once")).to_have_count(1)
    expect(tablet.locator("button.choice", has_text="Rethrow 1 die once")).to_have_count(1)
    expect(tablet.locator(".block table.score thead", has_text="Under the cup")).to_have_count(0)


def test_the_hands_name_beside_the_dice_on_the_table_is_one_line(server: str, tablet: Any) -> None:
    from tests.web.browser.test_entry_layout import act, create

    game_id = create(tablet, server, "bone", ["Anna", "Ben", "Cem", "Dora"])
    act(tablet, server, game_id, {"type": "throw", "player": 0, "dice": [6, 6, 6, 2, 2]})
    for size in ({"width": 1280, "height": 800}, {"width": 1024, "height": 768}, {"width": 800, "height": 1280}):
        tablet.set_viewport_size(size)
        tablet.goto(f"{server}/table/{game_id}")
        label = tablet.locator(".turn-banner .current-dice strong")
        expect(label).to_have_text("Full house")
        assert label.evaluate("e => e.getClientRects().length") == 1, size  # not "Full / house"
