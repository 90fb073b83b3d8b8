"""Charts as plain SVG drawn on the server: no script, no font, nothing fetched; they follow the page's theme (the
colours are the stylesheet's variables, the text the page's font) and scale to the width they are given.

Why no charting library: the statistics need two kinds of picture (bars with a reference mark, lines over time);
as SVG strings they are some 150 lines that the tests read like any HTML, where a JavaScript library would ship
tens of kilobytes to every phone and draw nothing without script. Every chart comes with its figures as a table
for screen readers (the SVG itself is hidden from them, as a picture of that same table).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import count

from markupsafe import Markup, escape

__all__ = ["Bar", "Series", "bar_chart", "line_chart"]

WIDTH = 640
HEIGHT = 260
LEFT = 48
RIGHT = 12
TOP = 14
BOTTOM = 58
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


def _scale(top: float) -> tuple[float, list[float]]:
    """A round maximum and four or five grid steps for values up to ``top``."""
    if top <= 0:
        return 1.0, [0.0, 1.0]
    step = 10 ** len(str(int(top))) / 10
    for factor in (1, 2, 2.5, 5, 10):
        if top / (step * factor) <= 5:
            step *= factor
            break
    ticks = [i * step for i in range(int(top / step) + 2)]
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
    """Bars with an optional reference mark each (a dashed line across the bar); the table lists label, value and
    reference, in ``head``'s column names."""
    chart_id = f"chart{next(_ids)}"
    top = max([b.value for b in bars] + [b.reference or 0 for b in bars] + [0])
    high, ticks = _scale(top * 100 if percent else top)
    high = high / 100 if percent else high
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    slot = plot_w / max(1, len(bars))
    parts = [
        f"<svg class='chart' viewBox='0 0 {WIDTH} {HEIGHT}' role='img' aria-hidden='true' "
        f"preserveAspectRatio='xMidYMid meet' id='{chart_id}'>"
    ]
    for t in ticks:
        value = t / 100 if percent else t
        y = TOP + plot_h - plot_h * value / high
        parts.append(f"<line class='grid' x1='{LEFT}' x2='{WIDTH - RIGHT}' y1='{y:.1f}' y2='{y:.1f}'/>")
        label = f"{_num(t)} %" if percent else _num(t)
        parts.append(f"<text class='tick' x='{LEFT - 6}' y='{y + 4:.1f}' text-anchor='end'>{escape(label)}</text>")
    for i, bar in enumerate(bars):
        x = LEFT + i * slot + slot * 0.15
        w = slot * 0.7
        h = plot_h * bar.value / high
        parts.append(
            f"<rect class='bar' x='{x:.1f}' y='{TOP + plot_h - h:.1f}' width='{w:.1f}' height='{h:.1f}' rx='3'/>"
        )
        if bar.reference is not None:
            y = TOP + plot_h - plot_h * bar.reference / high
            parts.append(f"<line class='ref' x1='{x - 3:.1f}' x2='{x + w + 3:.1f}' y1='{y:.1f}' y2='{y:.1f}'/>")
        cx = LEFT + i * slot + slot / 2
        label = bar.label if len(bar.label) <= 14 else bar.label[:13] + "…"
        if len(bars) > 6:
            parts.append(
                f"<text class='label' x='{cx:.1f}' y='{TOP + plot_h + 12}' text-anchor='end' "
                f"transform='rotate(-30 {cx:.1f} {TOP + plot_h + 12})'>{escape(label)}</text>"
            )
        else:
            parts.append(
                f"<text class='label' x='{cx:.1f}' y='{TOP + plot_h + 20}' text-anchor='middle'>{escape(label)}</text>"
            )
    parts.append("</svg>")

    def shown(v: float | None) -> str:
        if v is None:
            return "–"
        return f"{_num(round(v * 100, 1))} %" if percent else _num(round(v, 2))

    rows = [[b.label, shown(b.value), *([shown(b.reference)] if reference_name else [])] for b in bars]
    legend = (
        f"<p class='legend'><span class='key bar-key'></span>{escape(head[1])} "
        f"<span class='key ref-key'></span>{escape(reference_name)}</p>"
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
    plot_h = HEIGHT - TOP - BOTTOM + 30
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
