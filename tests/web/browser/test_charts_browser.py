"""The statistics' charts as a person reads them at a glance, on a tablet and a phone (issue 61, item 6): points
over time on a dated axis and joined by lines, round axis steps with 0 among them, labels of 12 px at least on a
phone, no hand name cut, no empty block, the filter's words true to what is chosen, and the odds alike in every
view. Screenshots go to artifacts/screenshots/charts-*.png."""

from __future__ import annotations

import random
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.stats_page import random_game
from companion.core import GameLog
from tests.web.browser.conftest import PHONE, TABLET, _skip_reason, screenshot, serving

pytestmark = pytest.mark.browser

SIZES = {"tablet": TABLET, "phone": PHONE}
DAY = 86400.0
NOV_3 = 1793664000.0  # 2026-11-03 00:00 UTC
ROUND = re.compile(r"^(0|-?[125]|-?25)(0*)$")  # 1, 2, 2.5 or 5 times a power of ten (as whole numbers here)


def bone_game(players: list[str], first: int) -> GameLog:
    """A whole bone game of two rounds, one throw a turn, the dice going round from ``first``."""
    log = GameLog.new("bone", players, {"rounds": 2})
    face = first
    while log.outcome() is None:
        player = log.summary()["to_move"]
        log.play({"type": "throw", "player": player, "dice": [(face + i) % 6 + 1 for i in range(5)]})
        face += 3
        if log.summary()["to_move"] == player and log.outcome() is None:
            log.play({"type": "stand", "player": player})
    return log


@pytest.fixture(scope="module")
def stats_server() -> Iterator[tuple[str, dict[str, int]]]:
    """Anna and Ben's bone games on three days of November; a score sheet played out (its scores far below 0); a
    classic game; Poker Dice with poker dice. Yields the address and the players' numbers."""
    if _skip_reason():
        pytest.skip(_skip_reason() or "")
    db = Path(tempfile.mkdtemp(prefix="becher-charts-")) / "becher.sqlite3"
    with serving({"DATABASE": str(db), "TESTING": True, "LOCAL_IS_OWNER": True}) as (base, app):
        store = app.extensions["becher.store"]
        rng = random.Random(61)
        logs = [
            (bone_game(["Anna", "Ben"], 0), NOV_3 + 20 * 3600),
            (bone_game(["Anna", "Ben"], 2), NOV_3 + 7 * DAY + 19 * 3600),
            (bone_game(["Anna", "Ben"], 4), NOV_3 + 14 * DAY + 21 * 3600),
            (random_game("sheet", ["Anna", "Ben"], rng), NOV_3 + 14 * DAY + 22 * 3600),
            (random_game("classic", ["Anna", "Ben", "Cleo"], rng), NOV_3 + 15 * DAY),
            (random_game("pokerdice", ["Ben", "Cleo"], random.Random(3)), NOV_3 + 16 * DAY),
        ]
        for log, created in logs:
            game_id = store.create(log, "host")["id"]
            with store._write() as conn:
                conn.execute("UPDATE games SET created = ? WHERE id = ?", (created, game_id))
        ids = {r["name"]: int(r["id"]) for r in store.conn().execute("SELECT id, name FROM players").fetchall()}
        yield base, ids


def open_page(browser: Any, size: str) -> tuple[Any, Any]:
    ctx = browser.new_context(
        viewport=SIZES[size], locale="en-GB", is_mobile=size == "phone", has_touch=size == "phone"
    )
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    return ctx, page


def chart(page: Any, caption: str) -> Any:
    figure = page.locator("figure.chart-box", has=page.locator("figcaption", has_text=caption))
    assert figure.count() == 1, caption
    return figure


def texts(figure: Any, selector: str) -> list[str]:
    return [t.strip() for t in figure.locator(selector).all_text_contents()]


@pytest.mark.parametrize("size", ["tablet", "phone"])
def test_points_over_time_have_dated_axes_and_lines(browser: Any, stats_server: Any, size: str) -> None:
    base, _ = stats_server
    ctx, page = open_page(browser, size)
    try:
        page.goto(base + "/stats?game=bone")
        figure = chart(page, "points per game over time")
        # the time axis is dated (the games were played on 3, 10 and 17 November)
        dates = texts(figure, "svg text.tick.x")
        assert len(dates) >= 2 and all(re.fullmatch(r"Nov \d{1,2}|\d{1,2} Nov", d) for d in dates), dates
        # each player's three games are joined by a line that runs across the chart, not dots at its left edge
        svg_box = figure.locator("svg").bounding_box()
        for line in figure.locator("svg g.series polyline").all():
            xs = [float(p.split(",")[0]) for p in line.get_attribute("points").split()]
            assert len(xs) == 3 and xs == sorted(xs) and xs[-1] - xs[0] > 200  # of the 320 units
        assert figure.locator("svg g.series polyline").count() == 2
        assert svg_box["width"] > 250
        # the table of figures names each point's moment
        assert "2026-11-17 21:00" in figure.locator("table").text_content()
        screenshot(page, f"charts-bone-{size}")
        # one game of Poker Dice: its points in the middle, under them its day and hour
        page.goto(base + "/stats?game=pokerdice")
        single = chart(page, "Poker Dice: points per game over time")
        assert texts(single, "svg text.tick.x") == ["Nov 19, 00:00"]
        xs = {round(float(c.get_attribute("cx"))) for c in single.locator("svg circle").all()}
        assert len(xs) == 1 and 140 < xs.pop() < 240  # of 320 units, the plot starting after the axis' numbers
    finally:
        ctx.close()


@pytest.mark.parametrize("size", ["tablet", "phone"])
def test_every_axis_steps_round_and_passes_zero(browser: Any, stats_server: Any, size: str) -> None:
    base, _ = stats_server
    ctx, page = open_page(browser, size)
    try:
        page.goto(base + "/stats")
        sheet = chart(page, "score sheet: points per game over time")
        values = [int(v) for v in texts(sheet, "svg text.tick.y")]
        assert min(values) < 0 and 0 in values, values  # the sheet played out ends far below 0
        steps = {b - a for a, b in zip(values[::-1], values[::-1][1:], strict=False)}
        assert len(steps) == 1 and ROUND.match(str(abs(steps.pop()))), values
        for figure in page.locator("figure.chart-box").all():
            ticks = [t for t in texts(figure, "svg text.tick") if re.fullmatch(r"-?\d+( %)?", t)]
            numbers = [int(t.split()[0]) for t in ticks]
            assert not numbers or 0 in numbers, (figure.locator("figcaption").inner_text(), ticks)
        screenshot(page, f"charts-all-{size}")
    finally:
        ctx.close()


@pytest.mark.parametrize("size", ["tablet", "phone"])
def test_chart_labels_are_legible_and_whole(browser: Any, stats_server: Any, size: str) -> None:
    base, _ = stats_server
    ctx, page = open_page(browser, size)
    try:
        page.goto(base + "/stats")
        # the size each label is drawn at on the screen: the font size times the SVG's scale
        sizes = page.evaluate(
            """() => Array.from(document.querySelectorAll('svg.chart text'), t =>
                parseFloat(getComputedStyle(t).fontSize) * t.ownerSVGElement.getScreenCTM().a)"""
        )
        assert sizes and min(sizes) >= 12, min(sizes)
        # no label runs out of its chart or is shortened: the hand names read in full
        outside = page.evaluate(
            """() => Array.from(document.querySelectorAll('svg.chart text')).filter(t => {
                const s = t.ownerSVGElement.getBoundingClientRect(), b = t.getBoundingClientRect();
                return b.left < s.left - 0.5 || b.right > s.right + 0.5;
            }).map(t => t.textContent)"""
        )
        assert outside == []
        classic = chart(page, "Dice poker (classic): hands of the first throw")
        labels = texts(classic, "svg text.label")
        assert "Four of a kind (Poker)" in labels and "Five of a kind (Grande)" in labels
        assert not any("…" in t for t in page.locator("svg.chart").all_text_contents())
        screenshot(page, f"charts-labels-{size}")
    finally:
        ctx.close()


@pytest.mark.parametrize("size", ["tablet", "phone"])
def test_no_empty_dice_block_and_the_filter_says_what_is_chosen(browser: Any, stats_server: Any, size: str) -> None:
    base, ids = stats_server
    ctx, page = open_page(browser, size)
    try:
        page.goto(base + "/stats")
        assert "none chosen" in page.locator("fieldset.who legend").inner_text()
        # Poker Dice with poker dice: no block of pip dice with 0 faces
        page.goto(base + "/stats?game=pokerdice")
        assert page.locator(".dice-verdict[data-dice=poker]").count() == 1
        assert page.locator(".dice-verdict[data-dice=pip]").count() == 0
        assert "0 faces" not in page.locator("section.fairness").inner_text()
        # a period without games: the fairness section says so in words
        page.goto(base + "/stats?since=2027-01-01")
        assert page.locator(".dice-verdict").count() == 0
        assert "No dice were thrown" in page.locator("section.fairness").inner_text()
        # a player chosen: the legend no longer says that none is
        page.goto(base + f"/stats?players={ids['Anna']}")
        assert page.locator("fieldset.who input[type=checkbox]:checked").count() == 1
        legend = page.locator("fieldset.who legend").inner_text()
        assert legend == "Players" and "none chosen" not in legend
        screenshot(page, f"charts-anna-{size}")
    finally:
        ctx.close()


def test_the_odds_read_alike_in_every_view(browser: Any, stats_server: Any) -> None:
    """The odds of a hand are the game's, not the view's: Anna's turns alone and everyone's show the same."""
    base, ids = stats_server
    ctx, page = open_page(browser, "tablet")
    try:
        seen: dict[str, list[str]] = {}
        for query in ("", f"?players={ids['Anna']}", f"?players={ids['Cleo']}", f"?players={ids['Anna']},{ids['Ben']}"):
            page.goto(base + "/stats" + query)
            for game in ("Dice poker (Bone)", "Dice poker (classic)"):
                figure = page.locator("figure.chart-box", has=page.locator("figcaption", has_text=f"{game}: hands"))
                if figure.count() == 0:
                    continue
                rows = figure.locator("table tr").all()[1:]
                odds = [r.locator("td").nth(1).text_content() for r in rows]
                seen.setdefault(game, []).append("|".join(odds))
        assert set(seen) == {"Dice poker (Bone)", "Dice poker (classic)"}
        for game, views in seen.items():
            assert len(views) >= 2 and len(set(views)) == 1, (game, views)
    finally:
        ctx.close()
