"""Issue 34 in a real browser at the three screen sizes (1280x800, 800x1280, 390x844): a throw in a few taps on the
table page and the phone, no scrolling, no tap lost, names that fit, dice in the block, and the smaller findings."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.conftest import screenshot, serving
from tests.web.browser.flows import revision, wait_revision
from tests.web.browser.test_pages_browser import dice_photo, fixed_reading

pytestmark = pytest.mark.browser

SIZES = {"tablet": (1280, 800), "portrait": (800, 1280), "phone": (390, 844)}
WRITE = {"X-Becher": "1", "Content-Type": "application/json"}
LONG = "Maximilianeannabellakatharinajosefinexyz"  # 40 characters, no space: the most the API takes
EIGHT = ["Benedikt", "Anna", "Jean-Baptiste Alexandre", LONG, "Ottokar", "Paula", "Quirin", "Rosalind"]

# Every face button and the send button lie wholly inside the window, and the page is no wider than the window.
ON_SCREEN = """() => {
  const inside = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; };
  const faces = [...document.querySelectorAll('#throw-panel .face-btn')];
  const send = document.querySelector('#throw-panel .send-throw');
  return {faces: faces.length, facesIn: faces.filter(inside).length, sendIn: !!send && inside(send),
          minFace: Math.min(...faces.map((f) => f.getBoundingClientRect().width)),
          wide: document.documentElement.scrollWidth - innerWidth};
}"""

ENTRY = "() => [...document.querySelectorAll('.entry-die')].map((b) => b.getAttribute('aria-label'))"


def _context(browser: Any, size: str, lang: str = "en-GB") -> Any:
    width, height = SIZES[size]
    small = width < 500
    return browser.new_context(
        viewport={"width": width, "height": height}, locale=lang, is_mobile=small, has_touch=small
    )


@pytest.fixture(params=list(SIZES))
def sized(request: pytest.FixtureRequest, browser: Any) -> Iterator[tuple[str, Any]]:
    ctx = _context(browser, request.param)
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    yield request.param, page
    ctx.close()


def create(page: Any, base: str, game: str, players: list[str], settings: dict[str, Any] | None = None) -> str:
    """A new game made by this browser (so it owns it and may write), by the JSON API."""
    page.goto(f"{base}/")
    body = {"game": game, "players": players, "settings": settings or {}}
    res = page.request.post(f"{base}/api/games", data=json.dumps(body), headers=WRITE)
    assert res.status == 201, res.text()
    return str(res.json()["game"]["id"])


def act(page: Any, base: str, game_id: str, action: dict[str, Any]) -> dict[str, Any]:
    """One action through the API, naming the action count it saw."""
    game = page.request.get(f"{base}/api/games/{game_id}").json()["game"]
    res = page.request.post(
        f"{base}/api/games/{game_id}/actions",
        data=json.dumps({"seen": game["state"]["actions"], "action": action}),
        headers=WRITE,
    )
    assert res.status == 201, res.text()
    return dict(res.json()["game"])


def state(page: Any, base: str, game_id: str) -> dict[str, Any]:
    return dict(page.request.get(f"{base}/api/games/{game_id}").json()["game"]["state"])


def assert_on_screen(page: Any, where: str) -> None:
    seen = page.evaluate(ON_SCREEN)
    assert seen["faces"] == 6 and seen["facesIn"] == 6 and seen["sendIn"], (where, seen)
    assert seen["wide"] <= 0, (where, seen)
    if page.viewport_size["width"] < 500:
        assert seen["minFace"] >= 48, (where, seen)


def tap_faces(page: Any, values: list[int]) -> None:
    for v in values:
        page.click(f'#throw-panel .face-btn[data-face-value="{v}"]')


def test_the_table_page_plays_a_turn_beside_the_block_without_scrolling(server: str, sized: tuple[str, Any]) -> None:
    # 1, 2, 3, 4: eight players on one tablet alone: faces, keep and send on the table page itself, on screen as it
    # comes up; the dice tapped before keeping stay; names fit their columns or end in an ellipsis.
    size, page = sized
    game_id = create(page, server, "classic", EIGHT, {"mode": "points"})
    page.goto(f"{server}/table/{game_id}")
    expect(page.locator("#live-state")).to_have_attribute("data-state", "live")
    assert_on_screen(page, f"table {size}")
    assert page.locator(".block table.score").count() == 1
    if size != "phone":
        # the block holds eight players inside its card; short names whole on one line, long ones cut
        fits = page.evaluate(
            "() => { const b = document.querySelector('.block'); return b.scrollWidth <= b.clientWidth + 1; }"
        )
        assert fits, size
        heads = page.locator("table.score thead th .pname")
        cut = heads.evaluate_all("(els) => els.map((e) => [e.textContent.trim(), e.scrollWidth > e.clientWidth + 1])")
        assert dict(cut)[LONG] is True
        assert dict(cut)["Anna"] is False and dict(cut)["Benedikt"] is False, cut
        one_line = heads.evaluate_all("(els) => els.every((e) => e.getBoundingClientRect().height < 40)")
        assert one_line
        long_head = heads.filter(has_text=LONG)
        long_head.hover()
        expect(long_head).to_have_attribute("title", LONG)
    # the first throw, from the table page
    before = revision(page)
    tap_faces(page, [2, 2, 3, 4, 5])
    page.locator("#throw-panel .send-throw").first.click()
    wait_revision(page, before + 1)
    expect(page.locator(".turn-banner .current-dice img")).to_have_count(5)
    assert_on_screen(page, f"table {size}, second throw")
    # 3: tap 6 and 6, then keep the first two dice: the two 6s move on, nothing vanishes
    tap_faces(page, [6, 6])
    page.click('.hold-btn[data-pos="0"]')
    page.click('.hold-btn[data-pos="1"]')
    kept = ["Die 1: 2, held", "Die 2: 2, held", "Die 3: 6", "Die 4: 6", "Die 5: empty"]
    assert page.evaluate(ENTRY) == kept
    screenshot(page, f"i34-table-{size}")
    # a reload mid-turn keeps the dice tapped so far
    page.reload()
    expect(page.locator(".entry-die")).to_have_count(5)
    assert page.evaluate(ENTRY) == kept
    expect(page.locator('.hold-btn[data-pos="0"]')).to_have_attribute("aria-pressed", "true")
    assert_on_screen(page, f"table {size}, after a reload")
    before = revision(page)
    tap_faces(page, [1])
    page.locator("#throw-panel .send-throw").first.click()
    wait_revision(page, before + 1)
    turn = state(page, server, game_id)["view"]["turn"]
    assert turn["dice"] == [2, 2, 6, 6, 1] and turn["held"] == [0, 1]
    # then a row of the block is chosen on the same page: the hand stands
    before = revision(page)
    page.locator("button.choice").first.click()
    wait_revision(page, before + 1)
    assert state(page, server, game_id)["to_move"] == 1


def test_the_phone_keeps_every_tap_and_sends_once(server: str, sized: tuple[str, Any]) -> None:
    # 2, 3 and 6: the phone view on screen at each size; a tap past five dice is answered; dice that find no place
    # when dice are kept are set aside and said, and come back; a double tap on the send button sends one throw and
    # blames nobody; no "Saved." toast over the dice.
    size, page = sized
    game_id = create(page, server, "bone", ["Anna", "Ben"])
    page.goto(f"{server}/phone/{game_id}")
    expect(page.locator("#live-state")).to_have_attribute("data-state", "live")
    assert_on_screen(page, f"phone {size}")
    tap_faces(page, [3, 3, 4, 4, 5])
    expect(page.locator("#entry-note")).to_be_hidden()
    tap_faces(page, [6])
    expect(page.locator("#entry-note")).to_have_text("All dice are entered: tap one of them to change it.")
    before = revision(page)
    page.locator("#throw-panel .send-throw").first.dblclick()
    wait_revision(page, before + 1)
    page.wait_for_timeout(300)  # a second write, had it gone out, would be answered by now
    assert revision(page) == before + 1
    assert state(page, server, game_id)["actions"] == 1
    expect(page.locator("#toast")).to_be_hidden()
    assert_on_screen(page, f"phone {size}, second throw")
    # five new dice tapped, then two kept: two of the new ones find no place and are said, not dropped
    tap_faces(page, [1, 2, 6, 6, 6])
    page.click('.hold-btn[data-pos="0"]')
    page.click('.hold-btn[data-pos="1"]')
    expect(page.locator("#entry-note")).to_contain_text("No room for 6 6")
    assert page.evaluate(ENTRY) == ["Die 1: 3, held", "Die 2: 3, held", "Die 3: 1", "Die 4: 2", "Die 5: 6"]
    page.click('.hold-btn[data-pos="1"]')  # let one go: a 6 set aside comes back into its place
    assert page.evaluate(ENTRY) == ["Die 1: 3, held", "Die 2: 6", "Die 3: 1", "Die 4: 2", "Die 5: 6"]
    expect(page.locator("#entry-note")).to_contain_text("No room for 6:")
    screenshot(page, f"i34-phone-{size}")
    # an error toast sits where it hides neither the faces nor the send button
    page.evaluate("() => Becher.toast('A long message that a person must read before doing anything else', true)")
    covers = page.evaluate(
        """() => { const t = document.getElementById('toast').getBoundingClientRect();
        return [...document.querySelectorAll('#throw-panel .face-btn, #throw-panel .send-throw, .entry-die')]
          .some((e) => { const r = e.getBoundingClientRect();
            return r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom; }); }"""
    )
    assert not covers


def test_no_page_is_wider_than_the_screen_in_any_language(browser: Any, tmp_path: Any) -> None:
    # 4: the start page (empty database) and, with eight players and a 40-character name, the table, the phone and
    # the history, in all eight languages on a phone, and in German at the two tablet sizes; the join box near the
    # top; the name box takes what is typed (the API refuses more than 40 characters, in words)
    with serving({"DATABASE": str(tmp_path / "b.sqlite3"), "TESTING": True}) as (base, _):
        wide = "() => document.documentElement.scrollWidth - innerWidth"
        for lang in ["de", "en", "es", "fr", "it", "nl", "pl", "pt"]:
            sizes = ["phone", "tablet", "portrait"] if lang == "de" else ["phone"]
            for size in sizes:
                ctx = _context(browser, size, lang)
                page = ctx.new_page()
                page.goto(f"{base}/")
                assert page.evaluate(wide) <= 0, (lang, size, "start")
                assert page.locator("#join-code").bounding_box()["y"] < SIZES[size][1], (lang, size)
                name = page.locator("#player-0")
                name.fill("")
                name.press_sequentially(LONG + "Z")
                # never cut without a word: typing stops at the server's limit, the box's maxlength (issue 61), and
                # the field says so beside it (issue 53: no name cut silently)
                assert page.input_value("#player-0") == LONG
                expect(page.locator("#player-0-error")).to_be_visible()
                name.fill(LONG)
                if lang == "de" and size == "phone":
                    screenshot(page, "i34-start-de-phone")
                game_id = create(page, base, "classic", EIGHT, {"mode": "points"})
                for where in ("table", "phone", "history"):
                    page.goto(f"{base}/{where}/{game_id}")
                    assert page.evaluate(wide) <= 0, (lang, size, where)
                    if where == "table":  # the block's own words (Round, Total) whole in their narrow column
                        cut = page.evaluate(
                            """() => [...document.querySelectorAll(
                                   'table.score thead th:first-child, table.score tfoot th')]
                                 .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent.trim())"""
                        )
                        assert not cut, (lang, size, cut)
                    if where != "history":  # and the entry on screen in every language's words
                        assert_on_screen(page, f"{where} {lang} {size}")
                if lang == "pl" and size == "phone":
                    screenshot(page, "i34-history-pl-phone")
                ctx.close()


# the foot row's word as lines: one rectangle per line its text takes
FOOT_LINES = """() => [...document.querySelectorAll('table.score.rounds tfoot th[scope="row"]')].map((th) => {
    const range = document.createRange(); range.selectNodeContents(th);
    return [th.textContent.trim(), new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size]; })"""


def test_the_foot_words_of_a_small_block_break_only_between_words_on_a_tablet(browser: Any, tmp_path: Any) -> None:
    # "Strikes" broke as "Strik / es" beside two players: a block of up to four players on a tablet gives the foot
    # row's word (Strikes, Total, Round wins) its column whole, in every language
    with serving({"DATABASE": str(tmp_path / "b.sqlite3"), "TESTING": True}) as (base, _):
        for lang in ["de", "en", "es", "fr", "it", "nl", "pl", "pt"]:
            ctx = _context(browser, "portrait" if lang == "de" else "tablet", lang)
            page = ctx.new_page()
            for game, settings in (("classic", {}), ("classic", {"mode": "points"}), ("pokerdice", {})):
                game_id = create(page, base, game, ["Anna", "Ben", "Cleo", "Dora"], settings)
                page.goto(f"{base}/table/{game_id}")
                feet = page.evaluate(FOOT_LINES)
                assert feet, (lang, game)
                for word, lines in feet:
                    assert lines <= len(word.split()), (lang, game, word, lines)
            ctx.close()


def test_the_block_shows_each_hands_dice_and_bones_running_total(server: str, tablet: Any) -> None:
    # 5: two "Two pairs" side by side, each with its dice; bone's total moves as soon as a hand stands. 4: a
    # 24-character name keeps the fourth column inside the card.
    four = ["Anna", "Ben", "Cleo", "Dorothea-Wilhelmina Graf"]
    game_id = create(tablet, server, "classic", four, {"mode": "points"})
    act(tablet, server, game_id, {"type": "throw", "player": 0, "dice": [2, 2, 5, 5, 6]})
    act(tablet, server, game_id, {"type": "stand", "player": 0})
    act(tablet, server, game_id, {"type": "throw", "player": 1, "dice": [3, 3, 4, 4, 1]})  # one throw: it stands
    tablet.goto(f"{server}/table/{game_id}")
    cells = tablet.locator("table.rounds .cell-dice")
    expect(cells).to_have_count(2)
    assert cells.nth(0).get_attribute("aria-label") == "2 2 5 5 6"
    assert cells.nth(1).get_attribute("aria-label") == "3 3 4 4 1"
    expect(cells.nth(0).locator("img")).to_have_count(5)
    assert tablet.evaluate(
        "() => { const b = document.querySelector('.block'); return b.scrollWidth <= b.clientWidth; }"
    )
    screenshot(tablet, "i34-classic-dice-in-block")
    bone = create(tablet, server, "bone", ["Anna", "Ben"])
    act(tablet, server, bone, {"type": "throw", "player": 0, "dice": [2, 3, 4, 5, 6]})
    points = act(tablet, server, bone, {"type": "stand", "player": 0})["state"]["view"]["running"][0]
    assert points > 0
    tablet.goto(f"{server}/table/{bone}")
    total = tablet.locator("table.rounds tfoot tr.total td").first
    expect(total).to_have_text(str(points))


def play_board_to_first_game_end(page: Any, base: str, game_id: str) -> dict[str, Any]:
    """Place dice by the first option each time, with fixed throws, until the first game of the match is over."""
    throws = iter([[6, 5, 4], [1, 2, 3], [6, 6, 2], [3, 3, 1], [5, 5, 5], [2, 4, 6]] * 6)
    game = page.request.get(f"{base}/api/games/{game_id}").json()["game"]
    for _ in range(80):
        st = game["state"]
        if any(g.get("complete") for g in st["view"].get("games") or []):
            return dict(game)
        option = st["options"][0]
        action: dict[str, Any] = {"type": option["action"], "player": option["player"]}
        if option["action"] in ("throw", "roll_off"):
            action["dice"] = next(throws)[: int(option.get("dice_count") or 3)]
        else:
            action.update({k: v for k, v in option.items() if k in ("row", "die", "slot", "side", "value")})
        game = act(page, base, game_id, action)
    raise AssertionError("the first game did not end")


def test_smaller_findings_on_the_table_and_phone(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # 6: plural forms; the board game's end said at once; bluff history in sentences; School/Schule and Summe/Gesamt;
    # readings in French; "behalten" whole; uncertain dice marked in "your dice"; the loopback warning
    game_id = create(tablet, server, "classic", ["Anna", "Ben"], {"throw_limit": True})
    act(tablet, server, game_id, {"type": "throw", "player": 0, "dice": [6, 6, 6, 2, 2]})
    act(tablet, server, game_id, {"type": "stand", "player": 0})
    tablet.goto(f"{server}/table/{game_id}")
    expect(tablet.locator(".turn-banner .what")).to_have_text("Throw all five dice (1 throw at most).")
    expect(tablet.locator(".join-warn")).to_contain_text("Phones cannot open this link")
    # the board game: "Anna wins game 1, 2:1" as soon as the game ends, before anyone throws again
    board = create(tablet, server, "board", ["Anna", "Ben"])
    game = play_board_to_first_game_end(tablet, server, board)
    first = game["state"]["view"]["games"][0]
    winner = ["Anna", "Ben"][first["winner"]]
    score = f"{first['score'][first['winner']]}:{first['score'][1 - first['winner']]}"
    tablet.goto(f"{server}/table/{board}")
    expect(tablet.locator(".turn-banner .what")).to_contain_text(f"{winner} wins game 1, {score}.")
    # bluff: the history in sentences
    bluff = create(tablet, server, "classic", ["Max", "Nina"], {"mode": "bluff"})
    act(tablet, server, bluff, {"type": "announce", "player": 0, "dice": [2, 2, 5, 5, 6]})
    act(tablet, server, bluff, {"type": "doubt", "player": 1})
    act(tablet, server, bluff, {"type": "reveal", "player": 1, "dice": [2, 2, 5, 5, 6]})
    tablet.goto(f"{server}/table/{bluff}")
    lines = tablet.locator(".history li").all_inner_texts()
    assert [t.strip() for t in lines] == ["Under the cup: 2 2 5 5 6", "Nina lifted the cup", "Max announced 2 2 5 5 6"]
    # the sheet: the row is called as the choices call it; in German the total is not called like the Summe row
    sheet = create(tablet, server, "sheet", ["Anna", "Ben"])
    act(tablet, server, sheet, {"type": "throw", "player": 0, "dice": [6, 6, 6, 2, 2]})
    tablet.goto(f"{server}/table/{sheet}")
    expect(tablet.locator("table.sheet tbody th").filter(has_text="Schule 6")).to_have_count(1)
    expect(tablet.locator("button.choice").filter(has_text="Schule 6").first).to_be_visible()
    with tablet.expect_navigation():
        tablet.select_option("#lang-select", "de")
    expect(tablet.locator("table.sheet tbody th").filter(has_text="Schule 6")).to_have_count(1)
    expect(tablet.locator("button.choice").filter(has_text="Schule 6").first).to_be_visible()
    expect(tablet.locator("table.sheet tfoot tr.total th")).to_have_text("Gesamt")
    expect(tablet.locator("table.sheet tbody th").filter(has_text="Summe")).to_have_count(1)
    # "behalten" whole inside its die on a German phone
    bone = create(tablet, server, "bone", ["Anna", "Ben"])
    act(tablet, server, bone, {"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 6]})
    tablet.goto(f"{server}/table/{bone}")
    phone.goto(f"{server}/join/{tablet.locator('.join-box .code').inner_text().strip()}")
    with phone.expect_navigation():  # the phone says whose it is first
        phone.locator(".me-first button", has_text="Anna").click()
    with phone.expect_navigation():
        phone.select_option("#lang-select", "de")
    phone.click('.hold-btn[data-pos="4"]')
    tag = phone.locator('.hold-btn[data-pos="4"] .tag')
    expect(tag).to_have_text("behalten")
    whole = tag.evaluate(
        """(t) => { const r = t.getBoundingClientRect(), b = t.closest('button').getBoundingClientRect();
        return t.scrollWidth <= t.clientWidth + 1 && r.left >= b.left - 4 && r.right <= b.right + 4
          && r.bottom <= b.bottom + 1; }"""
    )
    assert whole
    screenshot(phone, "i34-phone-kept-de")
    # a photo's uncertain die is marked in "your dice" too, until it is confirmed
    monkeypatch.setattr("web.photos.read_image", fixed_reading)
    phone.click('.hold-btn[data-pos="4"]')
    photo = tmp_path / "dice.jpg"
    photo.write_bytes(dice_photo())
    phone.set_input_files("#photo-input", str(photo))
    expect(phone.locator(".entry-die.uncertain")).to_have_count(1)
    expect(phone.locator(".entry-die.uncertain .unsure-mark")).to_have_text("?")
    expect(phone.locator("#photo-status")).to_contain_text("1 gelesener Würfel ist unsicher.")
    screenshot(phone, "i34-phone-uncertain-de")
    phone.locator(".entry-die.uncertain").click()
    phone.click('#face-dialog button[data-face-value="4"]')
    expect(phone.locator(".entry-die.uncertain")).to_have_count(0)
    # the rules' readings in French: no English sentence left, no note that they are in English
    phone.goto(f"{server}/rules/classic")
    with phone.expect_navigation():
        phone.select_option("#lang-select", "fr")
    body = phone.locator("main").inner_text()
    assert "Bluff : si les dés sous le gobelet" in body
    assert "the doubter takes the strike" not in body and not re.search(r"shown in English", body)
