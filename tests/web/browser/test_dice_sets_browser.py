"""Saved dice that keep learning (issue 60), the pages' side: when a game started from a saved set has ended, the
table asks the set's owner "Update 'NAME' with tonight's throws?"; yes teaches the set and the question goes on
every page; "Not now" hides it; a phone at the same game is never asked. And saving under a name the tablet has
used asks to replace those dice before it does."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.conftest import PHONE, TABLET, screenshot, serving

pytestmark = pytest.mark.browser

WRITE = {"X-Becher": "1"}


def lessons_of(kind: str, count: int) -> list[Any]:
    import numpy as np

    from web import lessons

    views = np.zeros((4, 352), np.float16).tobytes()
    return [lessons.Lesson(k, k % 6, False, 0.5, kind, "test", views) for k in range(count)]


def saved_set(app: Any, name: str, seen: int, owner: str) -> int:
    """A saved set of ``owner`` in the server's database, as ``POST /api/games/<id>/dice-set`` keeps one."""
    from web import lessons

    rows = [(1, lesson) for lesson in lessons_of("pip", seen)]
    with app.extensions["becher.store"]._write() as conn:
        cur = conn.execute(
            "INSERT INTO dice_sets (name, kind, model, owner, seen, data, created)"
            " VALUES (?, 'pip', 'test', ?, ?, ?, 0)",
            (name, owner, seen, lessons._pack(rows)),
        )
    return int(cur.lastrowid)


def game_from(tablet: Any, base: str, set_id: int) -> str:
    body = {"game": "bone", "players": ["Anna", "Ben"], "dice_set": set_id, "bound_seats": False}
    r = tablet.request.post(f"{base}/api/games", data=body, headers=WRITE)
    assert r.status == 201, r.text()
    game_id: str = r.json()["game"]["id"]
    return game_id


def test_the_owner_is_asked_to_update_the_saved_dice_when_the_game_ends(browser: Any, tmp_path: Any) -> None:
    db = tmp_path / "becher.sqlite3"
    with serving({"DATABASE": str(db), "TESTING": True, "LIVE_HEARTBEAT": 1.0}) as (base, app):
        store = app.extensions["becher.store"]
        tablet_ctx = browser.new_context(viewport=TABLET, locale="en-GB")
        phone_ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
        tablet, phone = tablet_ctx.new_page(), phone_ctx.new_page()
        try:
            tablet.goto(f"{base}/")
            device = tablet.request.get(f"{base}/api/me").json()["device"]
            set_id = saved_set(app, "Holzwürfel", 4, device)
            game_id = game_from(tablet, base, set_id)
            code = tablet.request.get(f"{base}/api/games/{game_id}/access").json()["join"]["code"]
            assert phone.request.post(f"{base}/api/join", data={"code": code}, headers=WRITE).ok
            store.teach_shown(game_id, lessons_of("pip", 3))  # tonight's throws: three dice more
            tablet.goto(f"{base}/table/{game_id}")
            expect(tablet.locator("#memory-box .memory-line")).to_contain_text("7 seen")
            expect(tablet.locator("#set-learn")).to_have_count(0)  # still playing: nothing asked
            assert tablet.request.post(f"{base}/api/games/{game_id}/finish", headers=WRITE).ok
            tablet.reload()
            question = tablet.locator("#set-learn")
            expect(question).to_be_visible()
            expect(tablet.locator("#set-learn-q")).to_have_text("Update “Holzwürfel” with tonight's throws?")
            screenshot(tablet, "i60-table-update-saved-dice")
            phone.goto(f"{base}/table/{game_id}")  # a phone at the same game: its set is not the phone's
            expect(phone.locator("#memory-box .memory-line")).to_contain_text("7 seen")
            expect(phone.locator("#set-learn")).to_have_count(0)
            # "Not now" hides it on this page; a reload asks again
            tablet.click("#set-learn-no")
            expect(question).to_be_hidden()
            tablet.reload()
            expect(question).to_be_visible()
            tablet.click("#set-learn-yes")
            expect(tablet.locator("#toast")).to_have_text("“Holzwürfel” now knows tonight's throws.")
            expect(tablet.locator("#set-learn")).to_have_count(0)  # the game's new revision: asked no more
            tablet.reload()
            expect(tablet.locator("#set-learn")).to_have_count(0)
            sets = tablet.request.get(f"{base}/api/dice-sets").json()["sets"]
            assert [(s["name"], s["seen"]) for s in sets] == [("Holzwürfel", 7)]
            # in German, the question in German
            de = browser.new_context(viewport=TABLET, locale="de-DE")
            try:
                other = de.new_page()
                other.goto(f"{base}/")
                set_de = saved_set(app, "Kneipe", 2, other.request.get(f"{base}/api/me").json()["device"])
                game_de = game_from(other, base, set_de)
                store.teach_shown(game_de, lessons_of("pip", 1))
                assert other.request.post(f"{base}/api/games/{game_de}/finish", headers=WRITE).ok
                other.goto(f"{base}/table/{game_de}")
                expect(other.locator("#set-learn-q")).to_contain_text("Kneipe")
                expect(other.locator("#set-learn-q")).not_to_contain_text("tonight's throws")
            finally:
                de.close()
        finally:
            tablet_ctx.close()
            phone_ctx.close()


def test_saving_under_a_name_used_asks_to_replace_those_dice(browser: Any, tmp_path: Any) -> None:
    db = tmp_path / "becher.sqlite3"
    with serving({"DATABASE": str(db), "TESTING": True, "LIVE_HEARTBEAT": 1.0}) as (base, app):
        store = app.extensions["becher.store"]
        ctx = browser.new_context(viewport=TABLET, locale="en-GB")
        tablet = ctx.new_page()
        try:
            tablet.goto(f"{base}/")
            device = tablet.request.get(f"{base}/api/me").json()["device"]
            old = saved_set(app, "Stammtisch", 2, device)
            r = tablet.request.post(
                f"{base}/api/games", data={"game": "bone", "players": ["Anna", "Ben"]}, headers=WRITE
            )
            game_id = r.json()["game"]["id"]
            store.teach_shown(game_id, lessons_of("pip", 5))
            tablet.goto(f"{base}/table/{game_id}")
            tablet.click("#save-dice-open")
            tablet.fill("#save-dice-name", "stammtisch")
            submit = tablet.locator('#save-dice button[type="submit"]')
            submit.click()
            expect(tablet.locator("#save-dice-error")).to_contain_text("are saved already")
            expect(submit).to_have_text("Replace them")
            assert tablet.request.get(f"{base}/api/dice-sets").json()["sets"][0]["seen"] == 2  # nothing replaced yet
            submit.click()
            expect(tablet.locator("#toast")).to_have_text("These dice are saved as “stammtisch”.")
            sets = tablet.request.get(f"{base}/api/dice-sets").json()["sets"]
            assert [(s["id"], s["seen"]) for s in sets] == [(old, 5)]
        finally:
            ctx.close()
