"""Photo with correction, undo, language switch, and an accessibility check of each page, in a real browser."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

import itertools

from playwright.sync_api import expect

from tests.web.browser.conftest import screenshot
from tests.web.browser.flows import join, new_game, revision, table_follows, throw, wait_revision

pytestmark = pytest.mark.browser

BOXES = [(60, 200, 200, 340), (260, 190, 400, 330), (460, 210, 600, 350), (660, 200, 800, 340), (860, 195, 1000, 335)]
READ_FACES = ["3", "3", "5", "2", "6"]


def dice_photo() -> bytes:
    """A photo-like image with five light squares where the dice lie (the reader's output is given below)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (1100, 560), (24, 90, 60))
    draw = ImageDraw.Draw(img)
    for x0, y0, x1, y1 in BOXES:
        draw.rounded_rectangle((x0, y0, x1, y1), radius=18, fill=(250, 248, 240), outline=(30, 30, 30), width=4)
    out = io.BytesIO()
    img.save(out, "JPEG", quality=90)
    return out.getvalue()


def fixed_reading(data: bytes, kind: str, memory: object = None, count: object = None) -> dict[str, Any]:
    """What the dice reader reports for ``dice_photo``: five dice, the middle one uncertain (5, maybe a 4)."""
    from PIL import Image

    width, height = Image.open(io.BytesIO(data)).size
    dice = [
        {"face": f, "value": int(f), "confidence": 0.41 if i == 2 else 0.99, "box": list(b), "uncertain": i == 2}
        for i, (f, b) in enumerate(zip(READ_FACES, BOXES, strict=True))
    ]
    return {"kind": "pip", "dice": dice, "width": width, "height": height, "ms": 5.0, "warnings": []}


def test_photo_upload_with_correction_of_one_die(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # The page flow is under test here, not the reader: the reader's answer for this image is fixed.
    monkeypatch.setattr("web.photos.read_image", fixed_reading)
    game_id = new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    photo = tmp_path / "dice.jpg"
    photo.write_bytes(dice_photo())
    phone.set_input_files("#photo-input", str(photo))
    boxes = phone.locator(".photo-wrap .dbox")
    expect(boxes).to_have_count(5)
    expect(phone.locator(".photo-wrap .dbox.uncertain")).to_have_count(1)
    expect(phone.locator(".entry-die img")).to_have_count(5)
    expect(phone.locator(".photo-wrap .dbox.tiny")).to_have_count(0)
    # boxes sit where the dice are: the first box starts at 60/1100 of the photo's width
    left = phone.evaluate("parseFloat(document.querySelector('.dbox').style.left)")
    assert abs(left - 100 * 60 / 1100) < 0.5
    screenshot(phone, "phone-photo-read")
    # the table shows the photo being confirmed, with its boxes
    expect(tablet.locator("#table-photo .dbox")).to_have_count(5)
    expect(tablet.locator("#table-photo figcaption")).to_have_text("3 3 5 2 6")
    screenshot(tablet, "table-photo-shown")
    phone.locator(".photo-wrap .dbox.uncertain").click()
    expect(phone.locator("#face-dialog")).to_be_visible()
    phone.click('#face-dialog button[data-face-value="4"]')
    expect(phone.locator("#face-dialog")).to_be_hidden()
    expect(phone.locator(".photo-wrap .dbox.fixed .lbl")).to_have_text("4")
    screenshot(phone, "phone-photo-corrected")
    before = revision(phone)
    phone.locator(".send-throw").first.click()
    wait_revision(phone, before + 1)
    game = phone.request.get(f"{server}/api/games/{game_id}").json()["game"]
    assert game["state"]["view"]["turn"]["dice"] == [3, 3, 4, 2, 6]
    assert list(game["photos"]) == ["1"]
    table_follows(tablet, phone)
    expect(tablet.locator("#table-photo")).to_be_hidden()
    link = tablet.locator(".history a.photo-link")
    expect(link).to_have_attribute("href", f"/photo/{game['photos']['1']}")
    # the photo behind the dice on the table, from the score block's own banner
    expect(tablet.locator(".turn-banner a.photo-link")).to_have_attribute("href", f"/photo/{game['photos']['1']}")
    phone.locator("button.choice").first.click()  # Anna stands: her hand in the block links the photo
    wait_revision(tablet, before + 2)
    expect(tablet.locator("table.score td a.photo-link")).to_have_count(1)
    screenshot(tablet, "table-photo-linked")
    # the photo's own page: the picture with the reading drawn, and what was entered from it
    tablet.goto(f"{server}/photo/{game['photos']['1']}")
    expect(tablet.locator(".photo-wrap .dbox")).to_have_count(5)
    expect(tablet.locator(".photo-wrap .dbox.uncertain")).to_have_count(1)
    expect(tablet.locator(".entered")).to_contain_text("Anna threw 3 3 4 2 6")
    screenshot(tablet, "photo-page")
    check_page(tablet, "photo")


LABEL_OVERLAPS = """() => {
  const r = [...document.querySelectorAll('.photo-wrap .dbox .lbl')].map((l) => l.getBoundingClientRect());
  let n = 0;
  r.forEach((a, i) => r.slice(i + 1).forEach((b) => {
    n += a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom ? 1 : 0;
  }));
  return n;
}"""


def test_labels_of_touching_small_dice_do_not_cover_each_other(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # two far-apart groups of touching 30 px dice in a 2000 px photo: shown whole, every label above its die would
    # lie on the die above it or on its neighbour's label
    small = [(300, 700), (330, 700), (300, 730), (330, 730), (1700, 800), (1700, 830)]

    def reading(data: bytes, kind: str, memory: object = None, count: object = None) -> dict[str, Any]:
        dice = [
            {"face": str(1 + i % 6), "value": 1 + i % 6, "confidence": 0.95, "box": [x, y, x + 30, y + 30]}
            for i, (x, y) in enumerate(small)
        ]
        return {
            "kind": "pip",
            "dice": [d | {"uncertain": False} for d in dice],
            "width": 2000,
            "height": 1500,
            "ms": 5.0,
            "warnings": [],
        }

    from PIL import Image

    monkeypatch.setattr("web.photos.read_image", reading)
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    photo = tmp_path / "far.jpg"
    Image.new("RGB", (2000, 1500), (24, 90, 60)).save(photo, "JPEG")
    phone.set_input_files("#photo-input", str(photo))
    expect(phone.locator(".photo-wrap .dbox")).to_have_count(6)
    phone.wait_for_function(f"({LABEL_OVERLAPS})() === 0")
    # boxes a few px wide are drawn around their dice, not over them with their border
    expect(phone.locator(".photo-wrap .dbox.tiny")).to_have_count(6)
    screenshot(phone, "phone-photo-small-dice")
    # the same labels all above their dice, as before they were placed, would overlap
    phone.evaluate("document.querySelectorAll('.photo-wrap .lbl').forEach((l) => { l.style.transform = ''; })")
    assert phone.evaluate(LABEL_OVERLAPS) > 0


def test_undo_says_what_it_undid(server: str, tablet: Any, phone: Any) -> None:
    game_id = new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    throw(phone, [3, 3, 5, 6, 1])
    table_follows(tablet, phone)
    expect(tablet.locator(".history")).to_contain_text("Anna threw 3 3 5 6 1")
    before = revision(phone)
    phone.click("[data-undo]")
    wait_revision(phone, before + 1)
    expect(phone.locator("#toast")).to_contain_text("Undone: Anna threw 3 3 5 6 1")
    table_follows(tablet, phone)
    expect(tablet.locator(".history")).not_to_contain_text("Anna threw")
    game = phone.request.get(f"{server}/api/games/{game_id}").json()["game"]
    assert game["state"]["actions"] == 0
    # and from the table too
    throw(phone, [2, 2, 2, 4, 4])
    table_follows(tablet, phone)
    tablet.click("[data-undo]")
    expect(tablet.locator("#toast")).to_contain_text("Undone: Anna threw 2 2 2 4 4")
    wait_revision(phone, before + 3)


def test_a_write_on_an_old_state_is_refused_and_the_page_refreshes(server: str, tablet: Any, phone: Any) -> None:
    """The phone misses the live events (its stream is cut) while the table undoes Anna's throw and enters another:
    same action count, new revision. Standing on the old throw is refused, said, and the page brought up to date."""
    game_id = new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    throw(phone, [3, 3, 5, 6, 1])
    phone.route("**/events*", lambda route: route.abort())
    phone.reload()
    shown = revision(phone)
    api = f"{server}/api/games/{game_id}"
    write = {"X-Becher": "1"}
    assert tablet.request.post(f"{api}/undo", data={"seen": 1}, headers=write).ok
    throw_again = {"seen": 0, "action": {"type": "throw", "player": 0, "dice": [1, 1, 1, 2, 5]}}
    assert tablet.request.post(f"{api}/actions", data=throw_again, headers=write).ok
    phone.locator("button.choice").first.click()
    expect(phone.locator("#toast")).to_contain_text("Someone else was quicker")
    wait_revision(phone, shown + 2)
    expect(phone.locator(".entry-die").first).to_be_visible()
    game = tablet.request.get(api).json()["game"]
    assert game["state"]["actions"] == 1 and game["state"]["view"]["turn"]["dice"] == [1, 1, 1, 2, 5]
    expect(phone.locator("#live")).to_contain_text("Anna threw 1 1 1 2 5")
    phone.unroute("**/events*")


def test_a_phone_that_is_one_players_waits_for_the_others(server: str, tablet: Any, phone: Any) -> None:
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server, seat=None)
    # asked first, above everything: no entry and no Undo until the phone says whose it is
    expect(phone.locator(".me-first")).to_be_in_viewport()
    expect(phone.locator(".face-btn")).to_have_count(0)
    expect(phone.locator("[data-undo]")).to_have_count(0)
    screenshot(phone, "phone-whose")
    with phone.expect_navigation():
        phone.locator(".me-pick button", has_text="Anna").click()
    expect(phone.locator(".phone-turn")).to_contain_text("Your turn, Anna")
    expect(phone.locator("#photo-input")).to_have_count(1)  # one photo control; live camera only where secure
    screenshot(phone, "phone-mine")
    throw(phone, [6, 6, 2, 3, 4])
    phone.locator("button.choice").first.click()
    expect(phone.locator(".waiting")).to_contain_text("Waiting for Ben")
    expect(phone.locator(".face-btn").first).to_be_hidden()  # Ben's controls are folded away
    screenshot(phone, "phone-waiting")
    phone.locator(".other-turn summary").click()
    throw(phone, [5, 5, 5, 1, 2])
    table_follows(tablet, phone)
    expect(tablet.locator(".turn-banner")).to_contain_text("Ben")  # played for Ben from Anna's phone
    expect(phone.locator(".waiting")).to_contain_text("Waiting for Ben")


def test_language_switch(server: str, tablet: Any) -> None:
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    with tablet.expect_navigation():
        tablet.select_option("#lang-select", "de")
    expect(tablet.locator("html")).to_have_attribute("lang", "de")
    expect(tablet.locator(".ranking").locator("..")).to_contain_text("Rangliste")
    expect(tablet.locator(".round-box")).to_contain_text("Runde 1 von 5")
    tablet.goto(f"{server}/")
    expect(tablet.locator("h1")).to_have_text("Neues Spiel")
    with tablet.expect_navigation():
        tablet.select_option("#lang-select", "pl")
    expect(tablet.locator("html")).to_have_attribute("lang", "pl")
    expect(tablet.locator("h1")).to_have_text("Nowa gra")
    with tablet.expect_navigation():
        tablet.select_option("#lang-select", "en")
    expect(tablet.locator("h1")).to_have_text("New game")


NAMELESS = re.compile(r"^\s*- (button|link|textbox|combobox|checkbox|radio|img|spinbutton)\s*(\[.*\])?:?\s*$")

CONTRAST_JS = """
() => {
  const lum = (c) => {
    const [r, g, b] = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const bg = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length >= 3 && (c.length < 4 || c[3] > 0.9)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const bad = [];
  const seen = new Set();
  for (const el of document.querySelectorAll("main *, header *")) {
    const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.offsetParent || el.closest(".visually-hidden") || el.closest("[disabled]")) continue;
    const st = getComputedStyle(el);
    if (parseFloat(st.opacity) < 1 || el.closest(".out, .placed-die")) continue;
    const fg = rgb(st.color).slice(0, 3);
    const l1 = lum(fg), l2 = lum(bg(el));
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const large = parseFloat(st.fontSize) >= 24 || (parseFloat(st.fontSize) >= 18.5 && parseInt(st.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) {
      const key = el.tagName + "." + el.className + ":" + el.textContent.trim().slice(0, 30);
      if (!seen.has(key)) { seen.add(key); bad.push(key + " " + ratio.toFixed(2)); }
    }
  }
  return bad;
}
"""


def check_page(page: Any, name: str) -> None:
    """Every control and image has an accessible name, the page has a lang and one h1, and text has contrast."""
    snapshot = page.locator("body").aria_snapshot()
    nameless = [line for line in snapshot.splitlines() if NAMELESS.match(line)]
    assert not nameless, f"{name}: controls without an accessible name: {nameless}"
    assert page.locator("html").get_attribute("lang")
    assert page.locator("h1").count() == 1, f"{name}: one h1"
    missing_alt = page.locator("img:not([alt])").count()
    assert missing_alt == 0, f"{name}: {missing_alt} images without alt"
    bad = page.evaluate(CONTRAST_JS)
    assert not bad, f"{name}: low contrast: {bad}"


@pytest.mark.parametrize("theme", ["light", "dark", "contrast"])
def test_accessibility_of_each_page(server: str, tablet: Any, phone: Any, theme: str) -> None:
    tablet.goto(f"{server}/")
    with tablet.expect_navigation():
        tablet.select_option("#theme-select", theme)
    check_page(tablet, f"start ({theme})")
    tablet.goto(f"{server}/rules/board")
    check_page(tablet, f"rules ({theme})")
    expect(tablet.locator(".readings")).to_contain_text("6-2-1")
    if theme == "light":
        screenshot(tablet, "rules-board")
    game_id = new_game(tablet, server, "sheet", ["Anna", "Ben"])
    join(phone, tablet, server)
    phone.goto(f"{server}/phone/{game_id}")
    with phone.expect_navigation():
        phone.select_option("#theme-select", theme)
    throw(phone, [6, 6, 6, 2, 2])
    table_follows(tablet, phone)
    check_page(tablet, f"table ({theme})")
    check_page(phone, f"phone ({theme})")
    tablet.goto(f"{server}/history/{game_id}")
    check_page(tablet, f"history ({theme})")
    tablet.goto(f"{server}/camera?game={game_id}")
    check_page(tablet, f"camera ({theme})")
    if theme != "light":
        tablet.goto(f"{server}/table/{game_id}")
        screenshot(tablet, f"sheet-table-{theme}")
        screenshot(phone, f"phone-{theme}")


def test_live_camera_snap_reads_the_dice(
    server: str, browser: Any, tablet: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The live camera view (getUserMedia; loopback counts as a secure origin) takes a frame and reads it."""
    monkeypatch.setattr("web.photos.read_image", fixed_reading)
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        ctx.grant_permissions(["camera"])
        phone = ctx.new_page()
        phone.add_init_script(
            """
            navigator.mediaDevices.getUserMedia = async () => {
              const canvas = document.createElement("canvas");
              canvas.width = 640; canvas.height = 360;
              const g = canvas.getContext("2d");
              g.fillStyle = "#185a3c"; g.fillRect(0, 0, 640, 360);
              g.fillStyle = "#faf8f0"; for (let i = 0; i < 5; i++) g.fillRect(30 + i * 120, 130, 90, 90);
              setInterval(() => g.fillRect(0, 0, 1, 1), 100);
              return canvas.captureStream(10);
            };
            """
        )
        join(phone, tablet, server)
        phone.click("#live-camera")
        expect(phone.locator("#camera")).to_be_visible()
        phone.wait_for_function("document.getElementById('camera').videoWidth > 0")
        phone.click("#snap")
        expect(phone.locator(".photo-wrap .dbox")).to_have_count(5)
        expect(phone.locator("#camera")).to_be_hidden()
        expect(phone.locator(".send-throw").first).to_be_enabled()
    finally:
        ctx.close()


def test_a_german_poker_throw_read_by_the_real_reader_names_its_printing(
    server: str, tablet: Any, phone: Any, tmp_path: Any
) -> None:
    """The bundled reader on a rendered German set (B = jack, D = queen): phone and table label those dice B=J, D=Q."""
    import cv2

    from tests.vision.test_synth import GERMAN
    from vision.synth import render_scene
    from vision.synth.style import SceneStyle

    style = SceneStyle(effects=False, shadows=False, distractors=False, background="felt", designs=(GERMAN,))
    scene = render_scene(0, kind="poker", n_dice=5, values=[2, 3, 3, 4, 6], style=style, size=(960, 720), split="test")
    photo = tmp_path / "german.jpg"
    cv2.imwrite(str(photo), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    new_game(tablet, server, "pokerdice", ["Anna", "Ben"])
    join(phone, tablet, server)
    phone.set_input_files("#photo-input", str(photo))
    labels = phone.locator(".photo-wrap .dbox .lbl")
    expect(labels).to_have_count(5, timeout=20_000)
    assert sorted(labels.all_inner_texts()) == ["10", "A", "B=J", "B=J", "D=Q"]
    screenshot(phone, "phone-poker-printing")
    expect(tablet.locator("#table-photo .dbox .lbl")).to_have_count(5)
    assert sorted(tablet.locator("#table-photo .dbox .lbl").all_inner_texts()) == ["10", "A", "B=J", "B=J", "D=Q"]
    assert sorted(tablet.locator("#table-photo figcaption").inner_text().split()) == ["10", "A", "B=J", "B=J", "D=Q"]


def test_a_wrong_join_code_is_refused_in_the_phones_language(browser: Any, server: str) -> None:
    """A German phone types a code no game has: the server's refusal appears on the start page in German."""
    from tests.web.conftest import WRITE

    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, locale="de-DE")
    try:
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        page.goto(server + "/")
        page.fill("#join-code", "ZZZZZZ")
        page.locator("#join-game").locator("button[type=submit], input[type=submit]").first.click()
        box = page.locator("#join-error")
        expect(box).to_be_visible()
        english = page.request.post(
            server + "/api/join", data={"code": "ZZZZZZ"}, headers={**WRITE, "Accept-Language": "en"}
        )
        assert english.status == 403
        assert english.json()["error"].startswith("No running game has this code")
        expect(box).to_contain_text("Kein laufendes Spiel hat diesen Code; prüfe den Code am Tisch")
        screenshot(page, "phone-join-refused-de")
    finally:
        ctx.close()


def test_a_full_size_phone_photo_of_small_dice_is_read(server: str, tablet: Any, phone: Any, tmp_path: Any) -> None:
    """A 12 MP photo taken from high above (dice of 40 px) through the phone page and the bundled reader: the phone
    shows the dice's part of the photo, so their boxes do not pile up, and the whole photo on request."""
    import cv2

    from tests.vision.drawing import draw_die, table

    img = table(4000, 3000, seed=12)
    values = [2, 3, 3, 5, 6]
    for i, value in enumerate(values):
        draw_die(img, 1700 + 120 * i, 1300 + 60 * (i % 2), 40, value, angle=9.0 * (i + 1))
    photo = tmp_path / "phone-12mp.jpg"
    cv2.imwrite(str(photo), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    phone.set_input_files("#photo-input", str(photo))
    labels = phone.locator(".photo-wrap .dbox .lbl")
    expect(labels).to_have_count(5, timeout=20_000)
    assert sorted(labels.all_inner_texts()) == [str(v) for v in values]
    expect(phone.locator("#photo-wrap")).to_have_class(re.compile(r"\bzoomed\b"))
    boxes = [phone.locator(".photo-wrap .dbox").nth(k).bounding_box() for k in range(5)]
    assert all(b and b["width"] >= 20 for b in boxes)  # big enough to tap (5 px wide in the whole photo)
    rows = sorted((b["x"], b["x"] + b["width"]) for b in boxes if b)
    assert all(a[1] <= b[0] + 2 for a, b in itertools.pairwise(rows))  # side by side, not piled up
    screenshot(phone, "phone-photo-12mp")
    # the whole photo on request: the first die's centre lies at 1700/4000 of the photo's width
    phone.get_by_role("button", name="Show the whole photo").click()
    expect(phone.locator("#photo-wrap")).not_to_have_class(re.compile(r"\bzoomed\b"))
    image = phone.locator(".photo-wrap img").bounding_box()
    first = phone.locator(".photo-wrap .dbox").first.bounding_box()
    assert image and first
    assert abs((first["x"] + first["width"] / 2 - image["x"]) / image["width"] - 1700 / 4000) < 0.01
    expect(phone.get_by_role("button", name="Zoom in on the dice")).to_be_visible()
    # and the throw goes in as read
    phone.locator(".send-throw").first.click()
    expect(tablet.locator("#live")).to_contain_text("2 3 3 5 6")


SPILL_JS = """
() => [...document.querySelectorAll('.big-btn, .photo-btn')].filter((b) => b.offsetParent).flatMap((b) => {
  const box = b.getBoundingClientRect();
  const out = [];
  if (b.scrollWidth > b.clientWidth + 1) out.push(`${b.id || b.className}: text wider than the button`);
  for (const el of b.querySelectorAll('img')) {
    const r = el.getBoundingClientRect();
    if (r.left < box.left - 1 || r.right > box.right + 1) out.push(`${b.id || b.className}: icon outside`);
  }
  return out;
})
"""


@pytest.mark.parametrize("lang", ["en", "de", "fr", "it", "es", "pt", "nl", "pl"])
def test_the_phones_big_buttons_hold_their_words_in_every_language(
    server: str, tablet: Any, phone: Any, lang: str
) -> None:
    # A 390 px phone: "Take a photo" and "Live camera" side by side must keep icon and words inside their buttons.
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    if lang != "en":
        with phone.expect_navigation():
            phone.select_option("#lang-select", lang)
    expect(phone.locator("html")).to_have_attribute("lang", lang)
    expect(phone.locator(".entry-top .photo-btn").first).to_be_visible()
    assert phone.evaluate(SPILL_JS) == []
    if lang == "it":  # the longest words of the eight
        screenshot(phone, "phone-buttons-it")


def test_a_photo_with_more_dice_than_the_throw_enters_the_surest(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # Six dice read for a throw of five: a flagged one on the left (a key read as a 1) must not take a place that a
    # sure die needs, whatever its place in the photo. The server leaves it out (it knows five dice were thrown) and
    # says so; the page draws it dotted, in no place.
    def six(data: bytes, kind: str, memory: object = None, count: object = None) -> dict[str, Any]:
        reading = fixed_reading(data, kind)
        for d in reading["dice"]:
            d["uncertain"], d["confidence"] = False, 0.98
        extra = {"face": "1", "value": 1, "confidence": 0.2, "box": [5, 20, 55, 70], "uncertain": True}
        reading["dice"] = [extra, *reading["dice"]]
        return reading

    monkeypatch.setattr("web.photos.read_image", six)
    new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    photo = tmp_path / "dice.jpg"
    photo.write_bytes(dice_photo())
    phone.set_input_files("#photo-input", str(photo))
    expect(phone.locator(".photo-wrap .dbox")).to_have_count(6)
    status = "1 extra die in the photo was left out (dotted box). Tap a die to correct it."  # none entered is unsure
    expect(phone.locator("#photo-status")).to_have_text(status)
    entered = phone.locator(".entry-die").evaluate_all("(els) => els.map((e) => e.getAttribute('aria-label'))")
    assert entered == [f"Die {i + 1}: {face}" for i, face in enumerate(READ_FACES)]
    slots = phone.locator(".photo-wrap .dbox").evaluate_all("(els) => els.map((b) => b.dataset.slot)")
    assert slots == ["0", "1", "2", "3", "4", ""]  # the die left out keeps its box, with no place
    screenshot(phone, "phone-photo-surest")
    throw_button = phone.locator(".send-throw").first
    expect(throw_button).to_be_enabled()


def test_a_photo_for_a_rethrow_is_read_as_the_dice_thrown_and_a_missing_die_waits_for_a_tap(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # Anna keeps three dice and photographs the two she threw again, but the reader found only one of them: the
    # phone asks for a throw of two (docs/api.md, ?count=), the one die found takes the first free place, the other
    # stays empty with the words to tap it in.
    def one(data: bytes, kind: str, memory: object = None, count: object = None) -> dict[str, Any]:
        reading = fixed_reading(data, kind)
        reading["dice"] = reading["dice"][4:]
        return reading

    monkeypatch.setattr("web.photos.read_image", one)
    game_id = new_game(tablet, server, "bone", ["Anna", "Ben"])
    join(phone, tablet, server)
    throw(phone, [1, 1, 1, 2, 3])
    for pos in (0, 1, 2):
        phone.click(f'.hold-btn[data-pos="{pos}"]')
    photo = tmp_path / "dice.jpg"
    photo.write_bytes(dice_photo())
    phone.set_input_files("#photo-input", str(photo))
    expect(phone.locator("#photo-status")).to_have_text("1 die was not found: tap it in.")
    entered = phone.locator(".entry-die").evaluate_all("(els) => els.map((e) => e.getAttribute('aria-label'))")
    assert entered == ["Die 1: 1, held", "Die 2: 1, held", "Die 3: 1, held", "Die 4: 6", "Die 5: empty"]
    photo_id = phone.evaluate("document.getElementById('live').dataset.ownPhoto")
    reading = phone.request.get(f"{server}/api/photos/{photo_id}/reading").json()["reading"]
    assert (reading["count"], reading["missing"], reading["assumed"]) == (2, 1, ["missing"])
    screenshot(phone, "phone-photo-missing-die")
    phone.click('.face-btn[data-face-value="4"]')
    before = revision(phone)
    phone.locator(".send-throw").first.click()
    wait_revision(phone, before + 1)
    log = phone.request.get(f"{server}/api/games/{game_id}/log").json()["log"]
    assert log[-1]["action"]["dice"] == [1, 1, 1, 6, 4] and log[-1]["photo"] == photo_id
