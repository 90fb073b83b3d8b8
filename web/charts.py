"""Charts as plain SVG drawn on the server: no script, no font, nothing fetched; they follow the page's theme (the
colours are the stylesheet's variables, the text the page's font) and scale to the width they are given.

Why no charting library: the statistics need two kinds of picture (bars with a reference mark, lines over time);
as SVG strings they are some 150 lines that the tests read like any HTML, where a JavaScript library would ship
tens of kilobytes to every phone and draw nothing without script. Every chart comes with its figures as a table
for screen readers (the SVG itself is hidden from them, as a picture of that same table).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import count

from markupsafe import Markup, escape

__all__ = ["Bar", "Series", "bar_chart", "line_chart"]

# user units of the viewBox; the stylesheet caps a chart's width, so its 15-unit text stays 11-18 pixels
WIDTH = 420
HEIGHT = 230
LEFT = 44
RIGHT = 24
TOP = 10
BOTTOM = 14
ROW = 30  # a bar's row
BAR_LABEL = 150  # right edge of the bar labels
LABEL_CHARS = 19
_ids = count(1)


@dataclass(frozen=True)
class Bar:
    """One bar: its label, its value, and where the reference (fair share, odds) puts it (None: no mark)."""

    label: str
    value: float
    reference: float | None = None


@dataclass(frozen=True)
class Series:
    """One line: a player's name, colour index (0-7, the score block's colours) and (label, value) points."""

    name: str
    colour: int
    points: tuple[tuple[str, float], ...]


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _scale(top: float, whole: bool = False) -> tuple[float, list[float]]:
    """A round maximum and at most five grid steps (1, 2, 2.5 or 5 times a power of ten) for values up to ``top``."""
    if top <= 0:
        return 1.0, [0.0, 1.0]
    base = 10.0 ** math.floor(math.log10(top / 5))
    step = next(base * f for f in (1, 2, 2.5, 5, 10) if math.ceil(top / (base * f) - 1e-9) <= 5)
    if whole:  # counts: no grid line at half a turn
        step = max(1.0, math.ceil(step))
    count = max(1, math.ceil(top / step - 1e-9))
    ticks = [round(i * step, 10) for i in range(count + 1)]
    return ticks[-1], ticks


def _table(caption: str, head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    cells = "".join(f"<th scope='col'>{escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + f"<th scope='row'>{escape(r[0])}</th>" + "".join(f"<td>{escape(c)}</td>" for c in r[1:]) + "</tr>"
        for r in rows
    )
    return (
        f"<div class='visually-hidden'><table><caption>{escape(caption)}</caption><tr>{cells}</tr>{body}</table></div>"
    )


def bar_chart(
    title: str,
    bars: Sequence[Bar],
    head: Sequence[str],
    reference_name: str = "",
    percent: bool = False,
) -> Markup:
    """Horizontal bars (a label a row, readable on a phone without turning text) with an optional reference mark
    each (a dashed line across the bar); the table lists label, value and reference, in ``head``'s column names."""
    chart_id = f"chart{next(_ids)}"
    top = max([b.value for b in bars] + [b.reference or 0 for b in bars] + [0])
    high, ticks = _scale(top * 100 if percent else top, whole=not percent)
    high = high / 100 if percent else high
    left = BAR_LABEL + 8
    plot_w = WIDTH - left - RIGHT
    height = TOP + ROW * len(bars) + 26
    parts = [
        f"<svg class='chart bars' viewBox='0 0 {WIDTH} {height}' role='img' aria-hidden='true' "
        f"preserveAspectRatio='xMinYMin meet' id='{chart_id}'>"
    ]
    bottom = TOP + ROW * len(bars)
    for t in ticks:
        value = t / 100 if percent else t
        x = left + plot_w * value / high
        parts.append(f"<line class='grid' x1='{x:.1f}' x2='{x:.1f}' y1='{TOP}' y2='{bottom}'/>")
        label = f"{_num(t)} %" if percent else _num(t)
        parts.append(f"<text class='tick' x='{x:.1f}' y='{bottom + 18}' text-anchor='middle'>{escape(label)}</text>")
    for i, bar in enumerate(bars):
        y = TOP + i * ROW
        w = plot_w * bar.value / high
        parts.append(f"<rect class='bar' x='{left}' y='{y + 5:.1f}' width='{w:.1f}' height='{ROW - 10}' rx='3'/>")
        if bar.reference is not None:
            x = left + plot_w * bar.reference / high
            parts.append(f"<line class='ref' x1='{x:.1f}' x2='{x:.1f}' y1='{y + 1:.1f}' y2='{y + ROW - 1:.1f}'/>")
        label = bar.label if len(bar.label) <= LABEL_CHARS else bar.label[: LABEL_CHARS - 1] + "…"
        parts.append(
            f"<text class='label' x='{BAR_LABEL}' y='{y + ROW / 2 + 5:.1f}' text-anchor='end'>{escape(label)}</text>"
        )
    parts.append("</svg>")

    def shown(v: float | None) -> str:
        if v is None:
            return "–"
        return f"{_num(round(v * 100, 1))} %" if percent else _num(round(v, 2))

    rows = [[b.label, shown(b.value), *([shown(b.reference)] if reference_name else [])] for b in bars]
    legend = (
        f"<p class='legend'><span><span class='key bar-key'></span>{escape(head[1])}</span> "
        f"<span><span class='key ref-key'></span>{escape(reference_name)}</span></p>"
        if reference_name
        else ""
    )
    table = _table(title, head, rows)
    return Markup(
        f"<figure class='chart-box'><figcaption>{escape(title)}</figcaption>{''.join(parts)}{legend}{table}</figure>"
    )


def line_chart(title: str, series: Sequence[Series], head: Sequence[str]) -> Markup:
    """Lines over the games in order (x: the n-th game), one per player in the player's colour; the table lists
    each point as player, date and value."""
    chart_id = f"chart{next(_ids)}"
    values = [v for s in series for _, v in s.points]
    lo = min([0.0, *values])
    hi_raw = max([0.0, *values])
    high, ticks = _scale(hi_raw - lo)
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    longest = max([len(s.points) for s in series] + [2])

    def y_of(v: float) -> float:
        return TOP + plot_h - plot_h * (v - lo) / high

    parts = [
        f"<svg class='chart' viewBox='0 0 {WIDTH} {HEIGHT}' role='img' aria-hidden='true' "
        f"preserveAspectRatio='xMidYMid meet' id='{chart_id}'>"
    ]
    for t in ticks:
        y = y_of(lo + t)
        parts.append(f"<line class='grid' x1='{LEFT}' x2='{WIDTH - RIGHT}' y1='{y:.1f}' y2='{y:.1f}'/>")
        parts.append(f"<text class='tick' x='{LEFT - 6}' y='{y + 4:.1f}' text-anchor='end'>{_num(lo + t)}</text>")
    for s in series:
        pts = [(LEFT + plot_w * i / max(1, longest - 1), y_of(v)) for i, (_, v) in enumerate(s.points)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        parts.append(f"<g class='series pc{s.colour % 8}'>")
        if len(pts) > 1:
            parts.append(f"<polyline points='{path}'/>")
        parts.extend(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='3.5'/>" for x, y in pts)
        parts.append("</g>")
    parts.append("</svg>")
    legend = "".join(
        f"<span class='pname pc{s.colour % 8}'><span class='key line-key'></span>{escape(s.name)}</span> "
        for s in series
    )
    rows = [[s.name, day, _num(v)] for s in series for day, v in s.points]
    return Markup(
        f"<figure class='chart-box'><figcaption>{escape(title)}</figcaption>{''.join(parts)}"
        f"<p class='legend'>{legend}</p>{_table(title, head, rows)}</figure>"
    )
