"""The pages under their Content-Security-Policy in a real browser: nothing they do is refused by it."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from tests.web.browser.flows import join, new_game, table_follows, throw

pytestmark = pytest.mark.browser

RECORD = """
window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
"""


def watch(page: Any) -> list[str]:
    seen: list[str] = []
    page.add_init_script(RECORD)
    page.on("console", lambda msg: seen.append(msg.text) if "Content Security Policy" in msg.text else None)
    return seen


def violations(page: Any, console: list[str]) -> list[str]:
    found: list[str] = page.evaluate("window.__csp || []")
    return found + console


def test_no_page_breaks_its_content_security_policy(server: str, tablet: Any, phone: Any) -> None:
    on_tablet, on_phone = watch(tablet), watch(phone)
    game_id = new_game(tablet, server, "bone", ["Anna", "Ben"])
    assert tablet.evaluate("document.documentElement.classList.contains('js')")  # the inline script ran
    assert violations(tablet, on_tablet) == []
    join(phone, tablet, server)
    throw(phone, [1, 2, 3, 4, 5])
    table_follows(tablet, phone)
    assert violations(phone, on_phone) == [] and violations(tablet, on_tablet) == []
    for url in ("/", "/rules/classic", f"/history/{game_id}", f"/camera?game={game_id}", f"/table/{game_id}"):
        tablet.goto(server + url)  # live pages never go network-idle (their stream stays open): load, then a moment
        tablet.wait_for_load_state("load")
        tablet.wait_for_timeout(700)
        assert violations(tablet, on_tablet) == [], url
