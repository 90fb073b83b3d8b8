"""The charts' axes (web/charts.py): round steps with 0 among them, round moments on a time axis, an evening's games
by the hour with their day said once; what the browser tests see drawn, worked out here without a browser."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from web.charts import Bar, Series, bar_chart, line_chart, nice_ticks, time_ticks


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("lo", "hi", "most", "whole", "expected"),
    [
        (-109, 91, 6, True, [-150, -100, -50, 0, 50, 100]),  # the evening's sheet: not 91, -9, -109
        (-3600, -3000, 6, True, [-4000, -3000, -2000, -1000, 0]),
        (0, 3, 5, True, [0, 1, 2, 3]),  # round wins: no half a win
        (0, 62.3, 5, False, [0, 20, 40, 60, 80]),
        (0, 0, 5, True, [0, 1]),
        (12, 480, 4, True, [0, 200, 400, 600]),
    ],
)
def test_nice_ticks_step_round_and_hold_zero(
    lo: float, hi: float, most: int, whole: bool, expected: list[float]
) -> None:
    ticks = nice_ticks(lo, hi, most=most, whole=whole)
    assert ticks == expected
    assert ticks[0] <= min(lo, 0) and ticks[-1] >= max(hi, 0) and 0 in ticks and len(ticks) <= most


def test_time_ticks_are_round_moments_of_the_span() -> None:
    def shown(lo: str, hi: str) -> tuple[list[str], str]:
        ticks, unit = time_ticks(at(lo), at(hi))
        return [datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M") for t in ticks], unit

    assert shown("2026-11-03 19:40", "2026-11-03 22:10") == (
        ["2026-11-03 20:00", "2026-11-03 21:00", "2026-11-03 22:00"],
        "hour",
    )
    assert shown("2026-11-03 20:10", "2026-11-03 20:40") == (["2026-11-03 20:10", "2026-11-03 20:40"], "minute")
    assert shown("2026-11-03 20:00", "2026-11-17 21:00") == (["2026-11-09 00:00", "2026-11-16 00:00"], "day")
    assert shown("2026-01-20 12:00", "2026-06-02 12:00")[1] == "month"
    assert shown("2024-03-01 12:00", "2026-06-02 12:00") == (
        ["2024-07-01 00:00", "2025-01-01 00:00", "2025-07-01 00:00", "2026-01-01 00:00"],
        "month",
    )
    assert shown("2019-03-01 12:00", "2026-06-02 12:00")[1] == "year"
    assert time_ticks(at("2026-11-03 20:00"), at("2026-11-03 20:00")) == ([at("2026-11-03 20:00")], "day")


def test_a_line_runs_across_its_time_and_one_moment_sits_in_the_middle() -> None:
    points = tuple(
        (at(f"2026-11-03 {h}:00"), float(v), f"2026-11-03 {h}:00") for h, v in ((19, 40), (21, 75), (22, 20))
    )
    svg = str(
        line_chart(
            "Bone",
            [Series("Anna", 0, points)],
            ["Player", "Date", "Points"],
            [(at("2026-11-03 20:00"), "20:00")],
            "Nov 3, 2026",
        )
    )
    xs = [float(x) for x in re.findall(r"<circle cx='([\d.]+)'", svg)]
    assert xs == sorted(xs) and xs[-1] - xs[0] > 200
    assert "<polyline" in svg and ">20:00</text>" in svg and ">Nov 3, 2026</text>" in svg
    one = str(
        line_chart("Bone", [Series("Anna", 0, points[:1])], ["Player", "Date", "Points"], [(points[0][0], "Nov 3")])
    )
    (x,) = (float(x) for x in re.findall(r"<circle cx='([\d.]+)'", one))
    left = float(re.search(r"<line class='grid zero' x1='([\d.]+)' x2='([\d.]+)'", one).group(1))  # type: ignore[union-attr]
    right = float(re.search(r"<line class='grid zero' x1='[\d.]+' x2='([\d.]+)'", one).group(1))  # type: ignore[union-attr]
    assert abs(x - (left + right) / 2) < 1


def test_a_long_label_goes_above_its_bar_whole() -> None:
    short = str(bar_chart("Faces", [Bar("1", 0.2, 1 / 6), Bar("6", 0.1, 1 / 6)], ["Face", "Share"], "Fair", True))
    long = str(bar_chart("Hands", [Bar("Four of a kind (Poker)", 0.02, 0.019)], ["Hand", "Made"], "Odds", True))
    assert "text-anchor='end'>1</text>" in short  # beside the bar
    assert "text-anchor='start'>Four of a kind (Poker)</text>" in long  # above it, not "Four of a kind (Po…"
    name = "Dorothea-Wilhelmine von Hohenzollern-Sigmaringen"  # wider than the chart: drawn narrower, whole
    wide = str(bar_chart("Win rate", [Bar(name, 0.5)], ["Player", "Win rate"], percent=True))
    assert f"lengthAdjust='spacingAndGlyphs'>{name}</text>" in wide
