"""The table speaks, if asked (issue 61): with window.speechSynthesis stubbed, what the tablet would say."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed; browser tests are skipped.")

from playwright.sync_api import expect

from tests.web.browser.flows import choose, join, new_game, revision, throw, wait_revision
from tests.web.browser.test_pages_browser import dice_photo, fixed_reading

pytestmark = pytest.mark.browser

# a voice that writes down what it is asked to say, and in which language
STUB = """
(() => {
  const said = [];
  window.__said = said;
  window.SpeechSynthesisUtterance = class { constructor(text) { this.text = text; this.lang = ""; } };
  Object.defineProperty(window, "speechSynthesis", { configurable: true, value: {
    speak(u) { said.push({ text: u.text, lang: u.lang }); },
    cancel() { said.push({ cancel: true }); },
  } });
})();
"""


def said(page: Any) -> list[str]:
    return [s["text"] for s in page.evaluate("window.__said") if "text" in s]


def test_the_table_says_throws_hands_and_turns_when_asked_and_is_muted_by_one_tap(
    server: str, tablet: Any, phone: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setattr("web.photos.read_image", fixed_reading)
    tablet.add_init_script(STUB)
    new_game(tablet, server, "classic", ["Anna", "Ben"])
    join(phone, tablet, server)
    toggle = tablet.locator("#speak-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "false")  # off by default: nothing is said
    throw(phone, [1, 2, 3, 4, 6])
    wait_revision(tablet, revision(phone))
    assert said(tablet) == []
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    # a photo's proposal: its dice and the hand they make, before anyone confirms
    photo = tmp_path / "dice.jpg"
    photo.write_bytes(dice_photo())
    phone.locator("#clear-dice").click()
    phone.set_input_files("#photo-input", str(photo))
    tablet.wait_for_function("() => window.__said.some(s => s.text && s.text.startsWith('Proposed'))")
    assert "Proposed: 3 3 5 2 6. Pair." in said(tablet)
    phone.locator("#clear-dice").click()
    throw(phone, [6, 6, 6, 2, 2], keep=[])
    wait_revision(tablet, revision(phone))
    tablet.wait_for_function("() => window.__said.some(s => s.text && s.text.includes('6 6 6 2 2'))")
    assert said(tablet)[-1] == "Anna threw 6 6 6 2 2. Full house. Anna's turn."
    langs = {s["lang"] for s in tablet.evaluate("window.__said") if "lang" in s}
    assert langs == {"en"}  # in the page's language
    choose(phone, "Full house")
    wait_revision(tablet, revision(phone))
    tablet.wait_for_function("() => window.__said.some(s => s.text && s.text.includes('stood'))")
    assert said(tablet)[-1] == "Anna stood: Full house. Ben's turn."
    # one tap mutes it; the choice is remembered on this device
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    count = len(said(tablet))
    throw(phone, [5, 5, 1, 2, 3])
    wait_revision(tablet, revision(phone))
    tablet.wait_for_timeout(300)
    assert len(said(tablet)) == count
    tablet.reload()
    expect(tablet.locator("#speak-toggle")).to_have_attribute("aria-pressed", "false")
