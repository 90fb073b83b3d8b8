"""The reader learns the dice on the table (issue 52), the pages' side: a left-out die swapped in with one tap, a box
marked "not a die", what the throw tells the server of the photo's boxes (``photo_dice``, ``not_dice``), and the
table's and start page's words of the dice the reader knows."""

from __future__ import annotations

import io
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.conftest import PHONE, screenshot
from tests.web.browser.flows import join, new_game, revision, wait_revision

pytestmark = pytest.mark.browser

# Six boxes in a row: the third (a 5, unsure) is a phantom, a mark of the table; the fourth (a 4) is a real die the
# reader was less sure of still, so the server, proposing five dice, leaves the real one out (vision/count.py).
ROW = [
    ("3", 0.99, False),
    ("3", 0.98, False),
    ("5", 0.45, True),  # the phantom
    ("4", 0.40, True),  # the real die, left out
    ("2", 0.97, False),
    ("6", 0.99, False),
]
BOXES = [(60 + 200 * i, 200, 200 + 200 * i, 340) for i in range(len(ROW))]
# the photo's shown list (phone.js shownDice): the five proposed left to right, then the one left out
PHANTOM, LEFT_OUT = 2, 5


def row_photo() -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (1300, 560), (24, 90, 60))
    draw = ImageDraw.Draw(img)
    for x0, y0, x1, y1 in BOXES:
        draw.rounded_rectangle((x0, y0, x1, y1), radius=18, fill=(250, 248, 240), outline=(30, 30, 30), width=4)
    out = io.BytesIO()
    img.save(out, "JPEG", quality=90)
    return out.getvalue()


def row_reading(data: bytes, kind: str, memory: object = None, count: object = None) -> dict[str, Any]:
    from PIL import Image

    width, height = Image.open(io.BytesIO(data)).size
    dice = [
        {"face": f, "value": int(f), "confidence": c, "box": list(b), "uncertain": u}
        for (f, c, u), b in zip(ROW, BOXES, strict=True)
    ]
    return {"kind": "pip", "dice": dice, "width": width, "height": height, "ms": 5.0, "warnings": []}


def upload_row(phone: Any, tmp_path: Any) -> None:
    photo = tmp_path / "row.jpg"
    photo.write_bytes(row_photo())
    phone.set_input_files("#photo-input", str(photo))
    expect(phone.locator(".photo-wrap .dbox")).to_have_count(6)
    expect(phone.locator(".photo-wrap .dbox.left-out")).to_have_count(1)
    expect(phone.locator(f'.photo-wrap .dbox[data-index="{LEFT_OUT}"]')).to_have_class(_has("left-out"))
    assert entry_values(phone) == ["3", "3", "5", "2", "6"]


def _has(cls: str) -> Any:
    import re

    return re.compile(rf"(^|\s){cls}(\s|$)")


def entry_values(page: Any) -> list[str]:
    return list(
        page.evaluate(
            "[...document.querySelectorAll('#entry .entry-die')].map((b) => b.querySelector('img') ? "
            "b.querySelector('img').src.match(/pip-(\\d)\\.svg/)[1] : '')"
        )
    )


def send_and_capture(page: Any) -> dict[str, Any]:
    """Send the throw; the body the page posted."""
    before = revision(page)
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/actions")) as req:
        page.locator(".send-throw").first.click()
    wait_revision(page, before + 1)
    body: dict[str, Any] = req.value.post_data_json
    return body


def test_a_left_out_die_is_swapped_in_with_one_tap(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setattr("web.photos.read_image", row_reading)
    game_id = new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    upload_row(phone, tmp_path)
    screenshot(phone, "i52-phone-left-out")
    # the dotted 4 is a die: one tap puts it in place of the least sure die, the phantom 5
    phone.locator(f'.photo-wrap .dbox[data-index="{LEFT_OUT}"]').click()
    assert entry_values(phone) == ["3", "3", "4", "2", "6"]
    phantom = phone.locator(f'.photo-wrap .dbox[data-index="{PHANTOM}"]')
    expect(phantom).to_have_class(_has("left-out"))
    expect(phantom).to_have_class(_has("not-die"))
    assert phantom.evaluate("(b) => getComputedStyle(b).borderTopStyle") == "dotted"
    expect(phantom).to_have_attribute("aria-label", "Die 3: 5, not a die")
    expect(phone.locator(f'.photo-wrap .dbox[data-index="{LEFT_OUT}"]')).not_to_have_class(_has("left-out"))
    expect(phone.locator("#photo-status")).to_contain_text("Die 3 is now 4 from the dotted box")
    expect(phone.locator("#announce")).to_contain_text("Die 3 is now 4")
    screenshot(phone, "i52-phone-swapped")
    # tapped back in, the phantom is a die again (and the 4 is left out in its place: it is the least sure now)
    phantom.click()
    assert entry_values(phone) == ["3", "3", "5", "2", "6"]
    expect(phantom).not_to_have_class(_has("not-die"))
    expect(phone.locator(f'.photo-wrap .dbox[data-index="{LEFT_OUT}"]')).to_have_class(_has("left-out"))
    phone.locator(f'.photo-wrap .dbox[data-index="{LEFT_OUT}"]').click()
    # a reload mid-turn keeps the dice and what the player said of the photo's boxes
    phone.reload()
    expect(phone.locator("#entry .entry-die img")).to_have_count(5)
    assert entry_values(phone) == ["3", "3", "4", "2", "6"]
    body = send_and_capture(phone)
    assert body["action"]["dice"] == [3, 3, 4, 2, 6]
    assert body["photo_dice"] == [0, 1, LEFT_OUT, 3, 4]
    assert body["not_dice"] == [PHANTOM]
    assert isinstance(body["photo"], str)
    game = phone.request.get(f"{server}/api/games/{game_id}").json()["game"]
    assert game["state"]["view"]["turn"]["dice"] == [3, 3, 4, 2, 6]
    # the server learned the five dice of the throw (the swapped-in 4 a correction) and the phantom as no die
    assert game["memory"]["seen"] == 5 and game["memory"]["corrected"] == 1


def test_dice_shown_to_the_reader_teach_it_without_a_throw(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """Show your dice: before the first throw, the photo's dice, checked, teach the reader; no throw is sent."""
    monkeypatch.setattr("web.photos.read_image", row_reading)
    game_id = new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    upload_row(phone, tmp_path)
    teach = phone.locator("#teach-dice")
    expect(teach).to_be_visible()
    teach.scroll_into_view_if_needed()
    screenshot(phone, "i52-phone-teach")
    with phone.expect_request(lambda r: r.method == "POST" and r.url.endswith("/dice-shown")) as req:
        teach.click()
    assert req.value.post_data_json["photo_dice"] == [0, 1, 2, 3, 4]
    expect(phone.locator(".toast")).to_contain_text("The reader learned 5 dice.")
    expect(teach).to_be_hidden()
    expect(phone.locator("#photo-wrap")).to_be_hidden()
    game = phone.request.get(f"{server}/api/games/{game_id}").json()["game"]
    assert game["state"]["actions"] == 0 and game["memory"]["seen"] == 5
    # the table says what the reader knows, live
    expect(tablet.locator("body")).to_contain_text("Knows your dice: 5 seen")


def test_the_tables_own_entry_swaps_too(
    server: str, tablet: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """The table page's entry is the phone's (phone.js): the same tap swaps a left-out die in."""
    monkeypatch.setattr("web.photos.read_image", row_reading)
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    upload_row(tablet, tmp_path)
    tablet.locator(f'.photo-wrap .dbox[data-index="{LEFT_OUT}"]').click()
    assert entry_values(tablet) == ["3", "3", "4", "2", "6"]
    expect(tablet.locator(f'.photo-wrap .dbox[data-index="{PHANTOM}"]')).to_have_class(_has("not-die"))
    tablet.locator("#photo-pane").scroll_into_view_if_needed()
    screenshot(tablet, "i52-table-swapped")
    body = send_and_capture(tablet)
    assert body["photo_dice"] == [0, 1, LEFT_OUT, 3, 4] and body["not_dice"] == [PHANTOM]


def test_a_box_marked_not_a_die_empties_its_place(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setattr("web.photos.read_image", row_reading)
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    upload_row(phone, tmp_path)
    # a correction first: the first die is a 1, not a 3 (it keeps its box: the reader learns from the correction)
    phone.locator('.photo-wrap .dbox[data-index="0"]').click()
    expect(phone.locator("#dialog-not-die")).to_be_visible()
    phone.click('#face-dialog button[data-face-value="1"]')
    # the phantom: not a die
    phone.locator(f'.photo-wrap .dbox[data-index="{PHANTOM}"]').click()
    expect(phone.locator("#face-dialog")).to_be_visible()
    screenshot(phone, "i52-phone-not-a-die-dialog")
    phone.click("#dialog-not-die")
    expect(phone.locator("#face-dialog")).to_be_hidden()
    assert entry_values(phone) == ["1", "3", "", "2", "6"]
    phantom = phone.locator(f'.photo-wrap .dbox[data-index="{PHANTOM}"]')
    expect(phantom).to_have_class(_has("not-die"))
    expect(phone.locator("#photo-status")).to_contain_text("Marked not a die")
    expect(phone.locator(".send-throw").first).to_be_disabled()
    screenshot(phone, "i52-phone-not-a-die")
    # the dialog opened from "your dice" offers faces only
    phone.locator('.entry-die[data-slot="1"]').click()
    expect(phone.locator("#dialog-not-die")).to_be_hidden()
    phone.click("#dialog-cancel")
    phone.click('.face-btn[data-face-value="4"]')  # the right value tapped in
    assert entry_values(phone) == ["1", "3", "4", "2", "6"]
    body = send_and_capture(phone)
    assert body["action"]["dice"] == [1, 3, 4, 2, 6]
    assert body["photo_dice"] == [0, 1, None, 3, 4]
    assert body["not_dice"] == [PHANTOM]


def test_a_throw_without_a_photo_sends_no_boxes(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    for v in (1, 2, 3, 4, 5):
        phone.click(f'.face-btn[data-face-value="{v}"]')
    body = send_and_capture(phone)
    assert "photo_dice" not in body and "not_dice" not in body and "photo" not in body


def test_the_table_says_what_the_reader_knows_and_saves_the_dice(
    server: str, tablet: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The view's ``memory`` on the table, and "Save these dice" asking a name in place. The server's side of issue
    52 is stood in for here: the memory is put into the Game JSON the pages read, and the dice-set endpoint is
    answered by the browser's route."""
    import dataclasses
    import json

    from web.pages import data

    real = data.load
    memory: dict[str, Any] = {"seen": 0, "corrected": 0, "set": None}

    def with_memory(game_id: str) -> Any:
        loaded = real(game_id)
        return dataclasses.replace(loaded, game={**loaded.game, "memory": dict(memory)})

    monkeypatch.setattr(data, "load", with_memory)
    game_id = new_game(tablet, server, "bone", ["Anna", "Ben"])
    expect(tablet.locator("#memory-box")).to_have_count(0)  # nothing learned: nothing said
    memory.update(seen=23, corrected=2, set="Kneipe")
    tablet.reload()
    expect(tablet.locator("#memory-box .memory-line")).to_have_text("Knows your dice: 23 seen · from “Kneipe”")
    posted: list[dict[str, Any]] = []

    def save(route: Any) -> None:
        posted.append(route.request.post_data_json)
        saved = {"id": 7, "name": posted[-1]["name"], "kind": "pip", "seen": 23, "created": "2025-01-01T20:00:00"}
        body = {"set": saved}
        route.fulfill(status=201, content_type="application/json", body=json.dumps(body))

    tablet.route(f"**/api/games/{game_id}/dice-set", save)
    tablet.click("#save-dice-open")
    name = tablet.locator("#save-dice-name")
    expect(name).to_be_focused()
    name.fill("")
    tablet.click('#save-dice button[type="submit"]')
    expect(tablet.locator("#save-dice-error")).to_have_text("Give the dice a name.")
    name.fill("Stammtisch")
    # a throw from elsewhere redraws the box: the name typed stays
    before = revision(tablet)
    act = {"seen": 0, "action": {"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 5]}}
    assert tablet.request.post(f"{server}/api/games/{game_id}/actions", data=act, headers={"X-Becher": "1"}).ok
    memory.update(seen=28)
    wait_revision(tablet, before + 1)
    expect(tablet.locator("#memory-box .memory-line")).to_contain_text("28 seen")
    expect(tablet.locator("#save-dice-name")).to_have_value("Stammtisch")
    screenshot(tablet, "i52-table-save-dice")
    tablet.set_viewport_size(PHONE)  # a table page on a phone: the box fits, nothing wider than the screen
    tablet.locator("#memory-box").scroll_into_view_if_needed()
    assert tablet.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(tablet, "i52-table-save-dice-narrow")
    tablet.click('#save-dice button[type="submit"]')
    expect(tablet.locator("#toast")).to_have_text("These dice are saved as “Stammtisch”.")
    expect(tablet.locator("#save-dice")).to_be_hidden()
    assert posted == [{"name": "Stammtisch"}]


def saved_set(app: Any, name: str, kind: str, seen: int, owner: str = "x") -> int:
    """A saved dice set in the server's database, as ``POST /api/games/<id>/dice-set`` keeps one."""
    import numpy as np

    from web import lessons

    views = np.zeros((4, 352), np.float16).tobytes()
    rows = [(1, lessons.Lesson(k, k % 6, False, 60.0, kind, "test", views)) for k in range(seen)]
    with app.extensions["becher.store"]._write() as conn:
        cur = conn.execute(
            "INSERT INTO dice_sets (name, kind, model, owner, seen, data, created) VALUES (?, ?, 'test', ?, ?, ?, 0)",
            (name, kind, owner, seen, lessons._pack(rows)),
        )
    return int(cur.lastrowid)


def shared_with(app: Any, set_id: int, name: str, device: str) -> None:
    """``device`` joined a game another device started from the set: it may start games with it, not change it
    (web/owners.py)."""
    from companion.core import GameLog
    from web.lessons import Known

    log = GameLog.new("bone", ["A", "B"], {})
    app.extensions["becher.store"].create(log, "x", members=[(device, "player", "")], known=Known(name, [], set_id))


def test_the_start_page_offers_saved_dice_of_the_games_kind(browser: Any, tmp_path: Any) -> None:
    from tests.web.browser.conftest import TABLET, serving

    db = tmp_path / "becher.sqlite3"
    with serving({"DATABASE": str(db), "TESTING": True, "LIVE_HEARTBEAT": 1.0}) as (base, app):
        kneipe = saved_set(app, "Kneipe", "pip", 41)
        poker = saved_set(app, "Karten", "poker", 12)
        saved_set(app, "Fremd", "pip", 3)  # another device's, at no game the tablet joined: never offered
        ctx = browser.new_context(viewport=TABLET, locale="en-GB")
        tablet = ctx.new_page()
        try:
            tablet.goto(f"{base}/")
            device = tablet.request.get(f"{base}/api/me").json()["device"]
            shared_with(app, kneipe, "Kneipe", device)
            shared_with(app, poker, "Karten", device)
            mine = saved_set(app, "Alt", "pip", 7, owner=device)
            tablet.reload()
            tablet.check('input[name="game"][value="bone"]')
            pick = tablet.locator("#dice-set")
            expect(pick).to_be_visible()
            options = tablet.locator("#dice-set option:not([hidden])")
            new = "New dice: the reader learns them in this game"
            expect(options).to_have_text([new, "Alt (seen: 7)", "Kneipe (seen: 41)"])
            # a set saved on this tablet is forgotten here; one saved elsewhere is not
            forget = tablet.locator("#dice-set-forget")
            expect(forget).to_be_hidden()
            pick.select_option(str(mine))
            forget.click()
            expect(tablet.locator("#toast")).to_contain_text("These dice are forgotten.")
            expect(options).to_have_text([new, "Kneipe (seen: 41)"])
            pick.select_option(label="Kneipe (seen: 41)")
            expect(forget).to_be_hidden()  # another device's set, met at a game this tablet joined: only offered
            pick.select_option("")
            tablet.check('input[name="game"][value="pokerdice"]')
            expect(options).to_have_text(["New dice: the reader learns them in this game", "Karten (seen: 12)"])
            pick.select_option(str(poker))
            screenshot(tablet, "i52-start-saved-dice")
            with tablet.expect_request(lambda r: r.method == "POST" and r.url.endswith("/api/games")) as req:
                tablet.click('#new-game button[type="submit"]')
            assert req.value.post_data_json["dice_set"] == poker
            tablet.wait_for_url("**/table/*")
            game_id = tablet.url.rstrip("/").split("/")[-1]
            # the new game starts knowing the saved dice
            assert app.extensions["becher.store"].game(game_id)["memory"]["set"] == "Karten"
        finally:
            ctx.close()


def test_without_saved_dice_the_start_page_asks_nothing(server: str, tablet: Any) -> None:
    errors: list[str] = []
    tablet.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tablet.goto(f"{server}/")  # a server without saved dice sets: the choice stays hidden, nothing is asked
    tablet.wait_for_load_state("networkidle")
    expect(tablet.locator("#dice-set-pick")).to_be_hidden()
    assert not errors, errors
    with tablet.expect_request(lambda r: r.method == "POST" and r.url.endswith("/api/games")) as req:
        tablet.click('#new-game button[type="submit"]')
    assert "dice_set" not in req.value.post_data_json
