"""An evening at the table, played as a new group would (issue 53): every game to its end on a tablet with two phones
joined, a rematch, photos and taps, the tablet and Anna's phone in German, Ben's phone in French. Since issue 61 each
game after the rematch is started with the tablet's "New game" of the finished one, and the phones must follow by
themselves as the same players; each phone plays only for its player (the start page's default), and must offer no
button for another player; the score sheet's page on a phone must stay a few screens long.

Not a test (it takes minutes): run ``python tools/evening.py [OUT]`` and look at the screenshots it leaves in OUT
(default ``artifacts/evening``). It prints what it did and every problem it noticed (console errors, pages wider
than the screen, a photo box left open, a device that did not follow); the exit status is 1 if it noticed any.
"""

from __future__ import annotations

import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import ConsoleMessage, Error, Page, ViewportSize, expect, sync_playwright  # noqa: E402

from tests.web.browser.conftest import PHONE, TABLET, serving  # noqa: E402

PHOTOS = ROOT.parent / "shared" / "dice-photos"
if not PHOTOS.exists():
    PHOTOS = Path("/work/shared/dice-photos")
REAL = [
    PHOTOS / "webcam-white-dice" / "images" / "train_six_52.jpg",  # 1 2 3 4 5
    PHOTOS / "webcam-white-dice" / "images" / "train_five_44.jpg",  # 5 5 5 5 5
]
problems: list[str] = []
rng = random.Random(53)


def note(text: str) -> None:
    print(time.strftime("%H:%M:%S"), text, flush=True)


def problem(text: str) -> None:
    problems.append(text)
    note("PROBLEM: " + text)


class Table:
    def __init__(self, base: str, out: Path, pages: dict[str, Page]) -> None:
        self.base, self.out, self.pages = base, out, pages
        self.shots = 0
        self.photos = 0

    def shot(self, who: str, name: str) -> None:
        self.shots += 1
        page = self.pages[who]
        page.screenshot(path=str(self.out / f"{self.shots:02d}-{name}-{who}.png"), full_page=True)
        wide = page.evaluate("document.documentElement.scrollWidth - innerWidth")
        if wide > 0:
            problem(f"{name} on the {who}: the page is {wide}px wider than the screen")

    def revision(self, who: str) -> int:
        return int(self.pages[who].locator("#live .part").get_attribute("data-revision") or 0)

    def wait(self, who: str, at_least: int) -> None:
        self.pages[who].wait_for_function(
            "n => Number(document.querySelector('#live .part').dataset.revision) >= n", arg=at_least, timeout=15_000
        )

    def all_follow(self) -> None:
        top = max(self.revision(w) for w in self.pages)
        for who in self.pages:
            try:
                self.wait(who, top)
            except Exception:
                problem(f"the {who} did not follow to revision {top}")

    def device_of(self, name: str) -> str:
        return {"Anna": "anna", "Ben": "ben"}.get(name, "tablet")

    def mover(self) -> str:
        page = self.pages["tablet"]
        if page.locator(".winner").count():
            return ""
        who = page.locator(".turn-banner .who")
        return who.inner_text().strip() if who.count() else ""

    def tap_throw(self, who: str, photo: Path | None = None) -> bool:
        page = self.pages[who]
        panel = page.locator("#throw-panel")
        if not panel.count() or not panel.is_visible():
            return False
        count = int(panel.get_attribute("data-count") or 5)
        before = self.revision(who)
        cleared = False
        if photo is not None and count == 5:
            page.set_input_files("#photo-input", str(photo))
            try:
                expect(page.locator("#photo-wrap")).to_be_visible(timeout=30_000)
                page.wait_for_function(
                    "() => document.querySelectorAll('#entry .entry-die img').length > 0"
                    " || /\\S/.test(document.getElementById('photo-status').textContent)"
                    " && !/…|\\.\\.\\./.test(document.getElementById('photo-status').textContent)",
                    timeout=30_000,
                )
            except Exception as exc:
                problem(f"a photo on the {who} was not read: {exc}")
            tablet_box = self.pages["tablet"].locator("#table-photo")
            if who != "tablet":
                try:
                    expect(tablet_box).to_be_visible(timeout=5_000)
                    self.shot("tablet", "photo-on-tablet")
                    self.pages["tablet"].keyboard.press("Escape")
                    expect(tablet_box).to_be_hidden(timeout=2_000)
                except Exception as exc:
                    problem(f"the phone's photo box on the tablet: {exc}")
            self.shot(who, "photo-read")
            self.photos += 1
            cleared = self.photos % 2 == 0  # every second photo: Clear, and the dice tapped in by hand instead
            if cleared:
                page.click("#clear-dice")
            empty = page.locator("#entry .entry-die.empty")
            for _ in range(empty.count()):
                page.locator(".face-btn").nth(rng.randrange(6)).click()
        else:
            holds = page.locator(".hold-btn")
            keep = [i for i in range(holds.count()) if rng.random() < 0.4]
            for i in keep:
                holds.nth(i).click()
            free = count - len(keep)
            for _ in range(free):
                page.locator(".face-btn").nth(rng.randrange(6)).click()
        send = page.locator(".send-throw:not([disabled])")
        if not send.count():
            problem(f"no send button enabled on the {who}")
            return False
        send.first.click()
        self.wait(who, before + 1)
        if photo is not None and count == 5:
            game_id = page.url.rsplit("/", 1)[1]
            last = page.request.get(f"{self.base}/api/games/{game_id}?log=1").json()["log"][-1]
            if cleared and last["photo"] is not None:
                problem(f"a throw tapped in after Clear on the {who} kept the photo")
            if not cleared and last["photo"] is None:
                problem(f"a throw read from a photo on the {who} lost its photo")
        return True

    def tap_choice(self, who: str, prefer_stand: bool = True) -> bool:
        page = self.pages[who]
        choices = page.locator(".choose-panel > .choices button.choice:not([disabled])")
        if not choices.count():
            return False
        before = self.revision(who)
        pick = choices.first
        if not prefer_stand and choices.count() > 1:
            pick = choices.nth(rng.randrange(choices.count()))
        if pick.get_attribute("data-confirm"):
            pick.click()
            page.wait_for_timeout(700)
        pick.click()
        self.wait(who, before + 1)
        return True

    def only_own_buttons(self) -> None:
        """A phone bound to its player offers no throw, choice or undo for another (issue 61)."""
        for who, seat in (("anna", 0), ("ben", 1)):
            page = self.pages[who]
            actions = page.locator(".send-throw, button.choice").evaluate_all(
                "bs => bs.map(b => { try { return JSON.parse(b.dataset.action); } catch (e) { return {}; } })"
            )
            foreign = [a for a in actions if a.get("player") not in (seat, None) and a.get("type") != "choose_starter"]
            if foreign:
                problem(f"the {who}'s phone offers another player's {foreign[0].get('type')}")
            if page.locator("[data-undo]").count():
                game_id = page.url.rsplit("/", 1)[1]
                log = page.request.get(f"{self.base}/api/games/{game_id}?log=1").json().get("log") or []
                last = log[-1]["action"] if log else {}
                if last.get("player") != seat and last.get("type") != "choose_starter":
                    problem(f"the {who}'s phone offers to undo another player's {last.get('type')}")

    def play_turn(self, rethrow: float = 0.3, photo_every: int = 0, step: list[int] | None = None) -> None:
        name = self.mover()
        who = self.device_of(name)
        page = self.pages[who]
        if who != "tablet" and page.locator(".me-first").count():
            problem(f"the {who} asks whose phone it is in the middle of a game")
        step = step if step is not None else [0]
        step[0] += 1
        photo = REAL[step[0] % len(REAL)] if photo_every and step[0] % photo_every == 0 else None
        threw = False
        if page.locator("button.choice").count() == 0 or rng.random() < rethrow:
            threw = self.tap_throw(who, photo)
        if not threw and not self.tap_choice(who) and not self.tap_throw(who):
            problem(f"{name}'s turn: nothing to tap on the {who}")
            raise SystemExit(1)
        self.all_follow()
        self.only_own_buttons()


def console_watch(who: str) -> Callable[[ConsoleMessage], None]:
    def seen(message: ConsoleMessage) -> None:
        if message.type == "error":
            problem(f"console on the {who}: {message.text}")

    return seen


def error_watch(who: str) -> Callable[[Error], None]:
    def seen(error: Error) -> None:
        problem(f"script error on the {who}: {error}")

    return seen


def fill_start_form(tablet: Page, game: str, players: list[str], settings: dict[str, Any]) -> None:
    """The start form filled as a person fills it (game, names, settings) and sent; back on the new game's table."""
    tablet.check(f'input[name="game"][value="{game}"]')
    lines = tablet.locator(".player-line:not([hidden])")
    while lines.count() < len(players):
        tablet.click("#add-player")
    while lines.count() > len(players):
        tablet.click("#remove-player")
    for i, n in enumerate(players):
        tablet.fill(f"#player-{i}", n)
    for k, v in settings.items():
        field = tablet.locator(f"#set-{game}-{k}")
        if isinstance(v, bool):
            field.set_checked(v)
        elif isinstance(v, int):
            field.fill(str(v))
        else:
            field.select_option(str(v))
    tablet.click('#new-game button[type="submit"]')
    tablet.wait_for_url(re.compile(r".*/table/\w+$"))


def start(table: Table, game: str, players: list[str], settings: dict[str, Any]) -> str:
    tablet = table.pages["tablet"]
    tablet.goto(f"{table.base}/")
    fill_start_form(tablet, game, players, settings)
    game_id = tablet.url.rsplit("/", 1)[1]
    code = tablet.locator(".join-box .code").inner_text().strip()
    for who, seat in (("anna", "Anna"), ("ben", "Ben")):
        page = table.pages[who]
        page.goto(f"{table.base}/join/{code}")
        page.wait_for_url(re.compile(r".*/phone/\w+$"))
        first = page.locator(".me-first")
        if not first.count():
            problem(f"{game}: the {who} was not asked whose phone it is")
            continue
        if who == "anna":
            table.shot(who, f"{game}-asked")
        with page.expect_navigation():
            first.locator("button", has_text=seat).click()
    table.shot("tablet", f"{game}-start")
    return game_id


def start_after(table: Table, game: str, players: list[str], settings: dict[str, Any]) -> str:
    """The next game as the table starts it after a finished one (issue 61): "New game" on the tablet's winner card,
    the same names filled in; the phones must follow by themselves, each as the same player, asked nothing."""
    tablet = table.pages["tablet"]
    old = {who: page.url.rsplit("/", 1)[1] for who, page in table.pages.items()}
    tablet.locator(".winner a[href*='after=']").click()
    tablet.wait_for_url(re.compile(r".*/\?after=\w+$"))
    filled = [tablet.locator(f"#player-{i}").input_value() for i in range(len(players))]
    if filled[: len(players)] != players[: len(filled)] and len(players) <= 3:
        note(f"{game}: the start form was filled with {filled}")
    table.shot("tablet", f"{game}-new-after")
    fill_start_form(tablet, game, players, settings)
    game_id = tablet.url.rsplit("/", 1)[1]
    for who in ("anna", "ben"):
        page = table.pages[who]
        try:
            page.wait_for_url(re.compile(rf".*/phone/{game_id}$"), timeout=15_000)
            expect(page.locator("#live-state")).to_have_attribute("data-state", "live")
        except Exception:
            problem(f"{game}: the {who} stayed on {old[who]} and did not follow the new game")
            continue
        if page.locator(".me-first").count():
            problem(f"{game}: the {who} followed but was asked again whose phone it is")
    table.shot("anna", f"{game}-followed")
    table.shot("tablet", f"{game}-start")
    return game_id


def play_to_end(table: Table, game: str, limit: int, **kw: Any) -> None:
    step = [0]
    for n in range(limit):
        if table.pages["tablet"].locator(".winner").count():
            note(f"{game}: over after {n} turns")
            return
        table.play_turn(step=step, **kw)
        if n in (3, 12):
            for who in table.pages:
                table.shot(who, f"{game}-turn{n}")
        if game == "sheet" and table.pages["anna"].locator(".choose-panel").count():
            tall = table.pages["anna"].evaluate("document.documentElement.scrollHeight")
            if tall > 3200:
                problem(f"the sheet on Anna's phone is {tall}px tall with its choices")
            if n < 6:
                table.shot("anna", f"sheet-choices{n}")
    problem(f"{game}: not over after {limit} turns")


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    db = Path(tempfile.mkdtemp()) / "becher.sqlite3"
    with serving({"DATABASE": str(db), "TESTING": True}) as (base, _), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        tablet_size = ViewportSize(width=TABLET["width"], height=TABLET["height"])
        phone_size = ViewportSize(width=PHONE["width"], height=PHONE["height"])
        tablet_ctx = browser.new_context(viewport=tablet_size, locale="de-DE")
        anna_ctx = browser.new_context(viewport=phone_size, locale="de-DE", is_mobile=True, has_touch=True)
        ben_ctx = browser.new_context(viewport=phone_size, locale="fr-FR", is_mobile=True, has_touch=True)
        pages = {"tablet": tablet_ctx.new_page(), "anna": anna_ctx.new_page(), "ben": ben_ctx.new_page()}
        for who, page in pages.items():
            page.set_default_timeout(15_000)
            page.on("console", console_watch(who))
            page.on("pageerror", error_watch(who))
        table = Table(base, out, pages)

        note("bone, Anna Ben Cem, 2 rounds, with photos")
        old = start(table, "bone", ["Anna", "Ben", "Cem"], {"rounds": 2})
        play_to_end(table, "bone", 40, photo_every=4)
        for who in pages:
            table.shot(who, "bone-end")
        note("rematch from Ben's phone")
        pages["ben"].locator("[data-rematch]").click()
        for who in pages:
            try:
                pages[who].wait_for_url(re.compile(rf".*/(table|phone)/(?!{old})\w+$"), timeout=15_000)
            except Exception:
                problem(f"the {who} did not follow the rematch")
        ids = {p.url.rsplit("/", 1)[1] for p in pages.values()}
        if len(ids) != 1:
            problem(f"the rematch split the group: {ids}")
        for who in pages:
            table.shot(who, "rematch")
        if pages["anna"].locator(".me-first").count():
            problem("Anna's phone is asked again after the rematch")
        play_to_end(table, "bone-rematch", 40)

        evening: list[tuple[str, list[str], dict[str, Any], int, dict[str, Any]]] = [
            ("classic", ["Anna", "Ben", "Cem"], {"strike_limit": 2}, 80, {"photo_every": 5}),
            ("pokerdice", ["Anna", "Ben"], {"wins": 2}, 60, {}),
            ("sheet", ["Anna", "Ben"], {"columns": 1}, 120, {"rethrow": 0.2}),
            ("board", ["Anna", "Ben"], {"points_to_win": 3}, 200, {"rethrow": 0.0}),
        ]
        for game, players, settings, limit, kw in evening:
            note(f"{game} {players} {settings}, started after the last game")
            start_after(table, game, players, settings)
            play_to_end(table, game, limit, **kw)
            for who in pages:
                table.shot(who, f"{game}-end")
            back = pages["tablet"].url
            pages["tablet"].goto(f"{base}/rules/{game}")
            table.shot("tablet", f"{game}-rules")
            pages["tablet"].goto(back)  # the finished game's winner card, whose "New game" starts the next one
        browser.close()
    note(f"{len(problems)} problems")
    for p in problems:
        print(" -", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "artifacts" / "evening"))
