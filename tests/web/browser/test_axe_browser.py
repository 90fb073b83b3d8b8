"""axe-core on the main pages at the tablet's and the phone's size: no violation of WCAG 2.1 A/AA or best practice.

axe-core comes inside the PyPI package ``axe-playwright-python`` (its ``axe.min.js``; the test extra installs it), read
from disk and run in the page: nothing is fetched at run time. Without the package the test is skipped, with a word.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from tests.web.browser.conftest import PHONE, TABLET
from tests.web.browser.flows import join, new_game, throw

pytestmark = pytest.mark.browser

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
GAMES = ("classic", "bone", "pokerdice", "sheet", "board")


def axe_source() -> str:
    """axe.min.js as the PyPI package ships it; the test is skipped (not failed) only where it is not installed."""
    try:
        import axe_playwright_python
    except ImportError:
        pytest.skip("axe-playwright-python (it ships axe-core) is not installed: pip install -e '.[test]'")
    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def violations(page: Any, source: str) -> list[str]:
    """axe's violations on the page as one line each: rule, count, the first nodes."""
    page.evaluate(source)  # evaluated through the devtools protocol, so the page's CSP (no inline script) allows it
    found = page.evaluate(
        """tags => axe.run(document, {runOnly: {type: "tag", values: tags}}).then(r => r.violations.map(v =>
             `${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | ")}`))""",
        TAGS,
    )
    return [str(v) for v in found]


@pytest.fixture(scope="module")
def devices(server: str, browser: Any) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """A tablet that started one game of each kind and a phone that joined each, a throw entered where the game
    starts with one (so the blocks and the choices show); the pages to check."""
    tablet_ctx = browser.new_context(viewport=TABLET, locale="en-GB")
    phone_ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    tablet, phone = tablet_ctx.new_page(), phone_ctx.new_page()
    urls = ["/", "/rules/classic", "/rules/sheet", "/rules/board", "/history", "/stats", "/players", "/camera"]
    try:
        for game in GAMES:
            game_id = new_game(tablet, server, game, ["Anna", "Ben"])
            join(phone, tablet, server)
            if game != "board":
                throw(phone, [6, 6, 6, 2, 3])
            urls += [f"/table/{game_id}", f"/phone/{game_id}"]
        yield {"tablet": tablet, "phone": phone}, urls
    finally:
        tablet_ctx.close()
        phone_ctx.close()


@pytest.mark.parametrize("size", ["tablet", "phone"])
def test_axe_finds_nothing_on_the_main_pages(
    server: str, devices: tuple[dict[str, Any], list[str]], size: str
) -> None:
    source = axe_source()
    pages, urls = devices
    page = pages[size]
    found: list[str] = []
    for url in urls:
        page.goto(server + url)
        page.wait_for_timeout(250)  # the start page lists saved dice, live pages connect: let them settle
        found += [f"{url}: {v}" for v in violations(page, source)]
    assert not found, "\n".join(found)
