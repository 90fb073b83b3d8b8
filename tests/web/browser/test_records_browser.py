"""The history, the statistics with their charts and the players page in a browser: two languages, tablet and
phone; nothing wider than the screen, every chart drawn and its figures readable as text. Screenshots go to
artifacts/screenshots/records-*.png."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core import GameLog
from tests.web.browser.conftest import PHONE, TABLET, screenshot

pytestmark = pytest.mark.browser

SIZES = {"tablet": TABLET, "phone": PHONE}
WORDS = {
    "en": {"resume": "Resume", "fair": "Are the dice fair?", "per_turn": "Throws used per turn", "rename": "Rename"},
    "de": {
        "resume": "Weiterspielen",
        "fair": "Sind die Würfel fair?",
        "per_turn": "Würfe pro Zug",
        "rename": "Umbenennen",
    },
}


def bone_log(players: list[str], turns: int) -> str:
    """A bone game: ``turns`` turns of one throw each, the dice going round 1..6 so the faces are even."""
    log = GameLog.new("bone", players, {"rounds": 2})
    face = 0
    for _ in range(turns):
        if log.outcome() is not None:
            break
        player = log.summary()["to_move"]
        dice = [(face + i) % 6 + 1 for i in range(5)]
        face += 5
        log.play({"type": "throw", "player": player, "dice": dice})
        if log.summary()["to_move"] == player:
            log.play({"type": "stand", "player": player})
    return log.to_jsonl()


def open_context(browser: Any, size: str, lang: str) -> Any:
    ctx = browser.new_context(viewport=SIZES[size], locale={"en": "en-GB", "de": "de-DE"}[lang])
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    return ctx, page


def import_games(page: Any, server: str) -> list[str]:
    """Three games of this browser's device: Anna and Ben played twice (one game ended), Ben and Cleo once."""
    page.goto(server + "/")
    ids = []
    for players, turns in ((["Anna", "Ben"], 8), (["Anna", "Ben"], 3), (["Ben", "Cleo"], 2)):
        body = bone_log(players, turns)
        answer = page.evaluate(
            """async (body) => {
                const r = await fetch('/api/games/import', {method: 'POST', body,
                    headers: {'X-Becher': '1', 'Content-Type': 'application/x-ndjson'}});
                return await r.json();
            }""",
            body,
        )
        ids.append(answer["game"]["id"])
    return ids


def fits(page: Any) -> None:
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    rights = page.evaluate("Array.from(document.querySelectorAll('svg.chart'), s => s.getBoundingClientRect().right)")
    assert all(right <= width for right in rights)


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("size", ["tablet", "phone"])
def test_history_lists_filters_and_opens_every_game(browser: Any, server: str, size: str, lang: str) -> None:
    ctx, page = open_context(browser, size, lang)
    try:
        ids = import_games(page, server)
        page.goto(server + "/history")
        rows = page.locator("tr.game-line")
        assert [rows.nth(i).get_attribute("data-game") for i in range(rows.count())] == ids[::-1]
        first = page.locator(f"tr.game-line[data-game='{ids[0]}']")
        assert first.locator("td").nth(3).inner_text().strip() in ("Anna", "Ben")  # the finished game's winner
        assert WORDS[lang]["resume"] in page.locator(f"tr.game-line[data-game='{ids[2]}']").inner_text()
        fits(page)
        screenshot(page, f"records-history-{lang}-{size}")
        page.select_option("select[name=player]", label="Cleo")
        page.locator("form.filter button[type=submit]").click()
        page.wait_for_url("**player=*")
        assert page.locator("tr.game-line").count() == 1
        page.locator("tr.game-line a[href^='/history/']").click()
        page.wait_for_url(f"**/history/{ids[2]}")
        assert page.locator("section.history li").count() >= 2
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("size", ["tablet", "phone"])
def test_statistics_draw_their_charts_with_the_figures_in_text(browser: Any, server: str, size: str, lang: str) -> None:
    ctx, page = open_context(browser, size, lang)
    try:
        import_games(page, server)
        page.goto(server + "/stats")
        assert page.locator("h2#fair-h").inner_text() == WORDS[lang]["fair"]
        charts = page.locator("figure.chart-box")
        assert charts.count() >= 4
        for i in range(charts.count()):
            figure = charts.nth(i)
            assert figure.locator("svg.chart").bounding_box()["height"] > 50  # drawn, not empty
            caption = figure.locator("figcaption").inner_text()
            # the same figures as a table a screen reader reads, named by the chart's caption
            assert figure.locator("table caption").text_content() == caption
            assert figure.locator("table tr").count() >= 2
        assert WORDS[lang]["per_turn"] in page.locator("main").inner_text()
        verdict = page.locator(".dice-verdict[data-dice=pip] .verdict").inner_text()
        assert verdict.startswith(("35 ", "45 ", "30 ", "40 "))  # the faces thrown, as a number anyone reads
        fits(page)
        screenshot(page, f"records-stats-{lang}-{size}")
        # the filter: one player's figures
        page.locator("input[name=players]").first.check()
        page.locator("form.stats-filter button[type=submit]").click()
        page.wait_for_url("**players=*")
        assert page.locator(".stats-table tbody tr").count() == 1
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_players_are_renamed_merged_and_offered_for_a_new_game(browser: Any, server: str, lang: str) -> None:
    ctx, page = open_context(browser, "phone", lang)
    new = {"en": "Cleopatra", "de": "Kleopatra"}[lang]  # the players of one server are one list: a name each run
    try:
        import_games(page, server)
        page.goto(server + "/players")
        entry = page.locator(".player-entry", has=page.locator("strong.who", has_text="Cleo"))
        entry.locator("input[name=name]").fill(new)
        entry.locator("button[type=submit]", has_text=WORDS[lang]["rename"]).click()
        page.locator("strong.who", has_text=new).wait_for()
        # Ben and Cleo played together: the refusal is said in the page's language
        entry = page.locator(".player-entry", has=page.locator("strong.who", has_text=new))
        entry.locator("select[name=into]").select_option(label="Ben")
        entry.locator("form.merge button").click()
        error = page.locator("#players-error")
        error.wait_for(state="visible")
        assert ("same game" if lang == "en" else "selben Spiel") in error.inner_text()
        fits(page)
        screenshot(page, f"records-players-{lang}-phone")
        page.goto(server + "/")
        names = page.locator("datalist#known-players option").evaluate_all("os => os.map(o => o.value)")
        assert {"Anna", "Ben", new} <= set(names)
        assert page.locator("#player-0").get_attribute("list") == "known-players"
        # a tap seats a player from earlier games on the first free seat, once
        page.locator("button.known[data-name=Anna]").click()
        page.locator("button.known[data-name=Anna]").click()
        page.locator(f"button.known[data-name={new}]").click()
        assert page.locator("#player-0").input_value() == "Anna"
        assert page.locator("#player-1").input_value() == new
        players = page.evaluate("fetch('/api/players').then(r => r.json())")["players"]
        assert {p["name"]: p["games"] for p in players} == {"Anna": 2, "Ben": 3, new: 1}
    finally:
        ctx.close()
