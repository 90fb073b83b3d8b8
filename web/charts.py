"""Charts as plain SVG drawn on the server: no script, no font, nothing fetched; they follow the page's theme (the
colours are the stylesheet's variables, the text the page's font) and scale to the width they are given.

Why no charting library: the statistics need two kinds of picture (bars with a reference mark, lines over time);
as SVG strings they are a couple of hundred lines that the tests read like any HTML, where a JavaScript library
would ship tens of kilobytes to every phone and draw nothing without script. Every chart comes with its figures as
a table for screen readers (the SVG itself is hidden from them, as a picture of that same table).

Legible on a phone: the drawing is laid out for a narrow box (``WIDTH`` user units with ``FONT``-unit text); a
390 px phone shows it about 300 px wide, so its text is 13 px, and the stylesheet caps its width on a tablet so the
text stays under 19 px. Nothing is cut: a label that would not fit beside its bar goes above it, and one wider
than the whole chart is drawn narrower (``textLength``), never shortened.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import count

from markupsafe import Markup, escape

__all__ = ["Bar", "Series", "bar_chart", "line_chart", "nice_ticks", "time_ticks"]

# user units of the viewBox (see the module docstring); records.css caps an svg.chart at 400 px wide
WIDTH = 320
FONT = 14
RIGHT = 14
TOP = 10
PLOT_H = 170  # the line chart's plot
ROW = 30  # a bar's row with its label beside it
ROW_ABOVE = 42  # a bar's row with its label above it
BESIDE = 0.42  # the widest share of the chart the labels beside the bars may take
HOUR = 3600.0
DAY = 86400.0
_ids = count(1)


@dataclass(frozen=True)
class Bar:
    """One bar: its label, its value, and where the reference (fair share, odds) puts it (None: no mark)."""

    label: str
    value: float
    reference: float | None = None


@dataclass(frozen=True)
class Series:
    """One line: a player's name, colour index (0-7, the score block's colours) and its points in time order, each
    (when: seconds since 1970 UTC, value, the moment as the table of figures writes it)."""

    name: str
    colour: int
    points: tuple[tuple[float, float, str], ...]


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


NARROW = frozenset("fijlrtI.,:;'!|()[] ")
WIDE = frozenset("mwMW%@…")


def _width(text: str) -> float:
    """How wide ``text`` is drawn, on the generous side (DejaVu Sans, wider than most phones' fonts)."""
    return FONT * sum(0.36 if c in NARROW else 0.98 if c in WIDE else 0.74 if c.isupper() else 0.64 for c in text)


def nice_ticks(lo: float, hi: float, most: int = 5, whole: bool = False) -> list[float]:
    """Grid values from at or below ``min(lo, 0)`` to at or above ``max(hi, 0)`` in one round step (1, 2, 2.5 or 5
    times a power of ten; whole numbers only with ``whole``), at most ``most`` of them: 0 is always one, so an axis
    reads -100, 0, 100 rather than -109, -9, 91."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi - lo <= 0:
        hi = lo + 1
    base = 10.0 ** math.floor(math.log10((hi - lo) / max(1, most - 1)))
    step = base
    for f in (1, 2, 2.5, 5, 10, 20, 25, 50):
        step = base * f
        if whole and (step < 1 or abs(step - round(step)) > 1e-9):
            continue
        first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
        if last - first + 1 <= most:
            break
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [round(i * step, 10) + 0.0 for i in range(first, last + 1)]


def _months(t: float) -> int:
    d = datetime.fromtimestamp(t, UTC)
    return d.year * 12 + d.month - 1


def _month_start(index: int) -> float:
    return datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC).timestamp()


def time_ticks(lo: float, hi: float, most: int = 4) -> tuple[list[float], str]:
    """Round moments (UTC) from ``lo`` to ``hi`` for a time axis: whole hours, days, Mondays, first days of a month
    or of a year, two to ``most`` of them; and the unit their labels should name ("minute", "hour", "day",
    "month", "year"). A span with fewer than two round moments in it is marked at its two ends (one moment: at
    it)."""
    if hi <= lo:
        return [lo], "day"
    for step in (HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY):
        if (hi - lo) / step > most + 1:
            continue
        offset = 4 * DAY if step >= 7 * DAY else 0.0  # weeks start on Monday (1970-01-05)
        first, last = math.ceil((lo - offset) / step - 1e-9), math.floor((hi - offset) / step + 1e-9)
        if last - first + 1 <= most:
            if last - first + 1 < 2:
                return [lo, hi], "minute" if step < DAY else "day"
            return [offset + i * step for i in range(first, last + 1)], "hour" if step < DAY else "day"
    start, end = _months(lo), _months(hi)
    for months in (1, 2, 3, 6, 12, 24, 60, 120, 240, 600):
        ticks = [_month_start(m) for m in range(start, end + 1) if m % months == 0]
        ticks = [t for t in ticks if lo - 1e-6 <= t <= hi + 1e-6]
        if len(ticks) <= most:
            if len(ticks) < 2:
                return [lo, hi], "day"
            return ticks, "month" if months < 12 else "year"
    return [lo, hi], "day"


def _table(caption: str, head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    cells = "".join(f"<th scope='col'>{escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + f"<th scope='row'>{escape(r[0])}</th>" + "".join(f"<td>{escape(c)}</td>" for c in r[1:]) + "</tr>"
        for r in rows
    )
    return (
        f"<div class='visually-hidden'><table><caption>{escape(caption)}</caption><tr>{cells}</tr>{body}</table></div>"
    )


def _text(cls: str, x: float, y: float, text: str, anchor: str = "middle", room: float = WIDTH) -> str:
    """One label; drawn narrower where it would need more than ``room`` units (never shortened)."""
    fit = f" textLength='{room:.0f}' lengthAdjust='spacingAndGlyphs'" if _width(text) * 0.9 > room else ""
    return f"<text class='{cls}' x='{x:.1f}' y='{y:.1f}' text-anchor='{anchor}'{fit}>{escape(text)}</text>"


def _tick_x(x: float, label: str) -> float:
    """The middle of a tick label under ``x``, moved in where its half would stick out of the chart."""
    half = _width(label) / 2
    return min(max(x, half), WIDTH - half)


def bar_chart(
    title: str,
    bars: Sequence[Bar],
    head: Sequence[str],
    reference_name: str = "",
    percent: bool = False,
) -> Markup:
    """Horizontal bars (a label a row, readable on a phone without turning text) with an optional reference mark
    each (a dashed line across the bar); the table lists label, value and reference, in ``head``'s column names.
    The labels stand beside the bars where the longest fits in ``BESIDE`` of the width, else above each bar."""
    chart_id = f"chart{next(_ids)}"
    top = max([b.value for b in bars] + [b.reference or 0 for b in bars] + [0])
    longest = max([_width(b.label) for b in bars] + [0])
    beside = longest <= WIDTH * BESIDE
    # as many grid steps as their labels have room for side by side ("100 %" or the count's digits and a gap; the
    # first and last label stand half outside the plot)
    room = WIDTH - RIGHT - (longest + 10 if beside else 4)
    widest = _width("100 %" if percent else _num(math.ceil(top) * 10)) + FONT
    ticks = nice_ticks(
        0, top * 100 if percent else top, most=max(2, min(5, int(room // widest) + 1)), whole=not percent
    )
    high = ticks[-1] / 100 if percent else ticks[-1]
    tick_labels = [f"{_num(t)} %" if percent else _num(t) for t in ticks]
    left = longest + 10 if beside else max(4.0, _width(tick_labels[0]) / 2)
    right = max(RIGHT, _width(tick_labels[-1]) / 2)
    plot_w = WIDTH - left - right
    row = ROW if beside else ROW_ABOVE
    bottom = TOP + row * len(bars)
    height = bottom + FONT + 12
    parts = [
        f"<svg class='chart bars' viewBox='0 0 {WIDTH} {height:.0f}' role='img' aria-hidden='true' "
        f"focusable='false' preserveAspectRatio='xMinYMin meet' id='{chart_id}'>"
    ]
    for t, label in zip(ticks, tick_labels, strict=True):
        x = left + plot_w * (t / 100 if percent else t) / high
        parts.append(f"<line class='grid' x1='{x:.1f}' x2='{x:.1f}' y1='{TOP}' y2='{bottom}'/>")
        parts.append(_text("tick", _tick_x(x, label), bottom + FONT + 4, label))
    for i, bar in enumerate(bars):
        y = TOP + i * row
        bar_y = y + 5 if beside else y + FONT + 6
        bar_h = ROW - 10 if beside else ROW_ABOVE - FONT - 12
        w = plot_w * bar.value / high
        parts.append(f"<rect class='bar' x='{left:.1f}' y='{bar_y:.1f}' width='{w:.1f}' height='{bar_h}' rx='3'/>")
        if bar.reference is not None:
            x = left + plot_w * bar.reference / high
            parts.append(
                f"<line class='ref' x1='{x:.1f}' x2='{x:.1f}' y1='{bar_y - 4:.1f}' y2='{bar_y + bar_h + 4:.1f}'/>"
            )
        if beside:
            parts.append(_text("label", left - 8, y + ROW / 2 + FONT / 3, bar.label, "end", room=left - 10))
        else:
            parts.append(_text("label", left, y + FONT, bar.label, "start", room=WIDTH - left))
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


def line_chart(
    title: str,
    series: Sequence[Series],
    head: Sequence[str],
    x_ticks: Sequence[tuple[float, str]],
    x_note: str = "",
) -> Markup:
    """Lines over time, one per player in the player's colour, each point where its moment falls between the
    first and the last (one moment alone: in the middle); ``x_ticks`` (moment, label) mark the time axis and
    ``x_note`` says under it what the labels leave out (the day of an evening's hours). The table lists each point
    as player, moment and value."""
    chart_id = f"chart{next(_ids)}"
    values = [v for s in series for _, v, _ in s.points]
    ticks = nice_ticks(min(values, default=0.0), max(values, default=0.0), most=6, whole=True)
    labels = [_num(t) for t in ticks]
    left = max(_width(label) for label in labels) + 10
    moments = [t for s in series for t, _, _ in s.points] + [t for t, _ in x_ticks]
    t_lo, t_hi = min(moments, default=0.0), max(moments, default=0.0)
    if t_hi <= t_lo:
        t_lo, t_hi = t_lo - 1, t_hi + 1
    right = RIGHT  # a tick label near the edge is moved in (_tick_x), no margin kept for it
    plot_w = WIDTH - left - right
    bottom = TOP + PLOT_H
    height = bottom + FONT + 12 + (FONT + 6 if x_note else 0)

    def x_of(t: float) -> float:
        return left + plot_w * (t - t_lo) / (t_hi - t_lo)

    def y_of(v: float) -> float:
        return bottom - PLOT_H * (v - ticks[0]) / (ticks[-1] - ticks[0])

    parts = [
        f"<svg class='chart lines' viewBox='0 0 {WIDTH} {height:.0f}' role='img' aria-hidden='true' "
        f"focusable='false' preserveAspectRatio='xMinYMin meet' id='{chart_id}'>"
    ]
    for t, label in zip(ticks, labels, strict=True):
        y = y_of(t)
        parts.append(
            f"<line class='grid{' zero' if t == 0 else ''}' x1='{left:.1f}' x2='{WIDTH - right:.1f}' "
            f"y1='{y:.1f}' y2='{y:.1f}'/>"
        )
        parts.append(_text("tick y", left - 6, y + FONT / 3, label, "end"))
    for t, label in x_ticks:
        x = x_of(t)
        parts.append(f"<line class='grid' x1='{x:.1f}' x2='{x:.1f}' y1='{bottom:.1f}' y2='{bottom + 5:.1f}'/>")
        parts.append(_text("tick x", _tick_x(x, label), bottom + FONT + 6, label))
    if x_note:
        parts.append(_text("tick note", left + plot_w / 2, height - 6, x_note))
    for s in series:
        pts = [(x_of(t), y_of(v)) for t, v, _ in s.points]
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
    rows = [[s.name, when, _num(v)] for s in series for _, v, when in s.points]
    return Markup(
        f"<figure class='chart-box'><figcaption>{escape(title)}</figcaption>{''.join(parts)}"
        f"<p class='legend'>{legend}</p>{_table(title, head, rows)}</figure>"
    )
