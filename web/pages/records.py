"""The pages of what is kept across games: the history of every game, the remembered players, the statistics with
their charts and the dice's fairness. Figures come from web/stats.py (as ``GET /api/stats`` and ``becher stats``);
the pictures are SVG drawn here (web/charts.py), each with its figures as a table for screen readers."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, render_template, request
from markupsafe import Markup

from companion import numbers
from companion.core import all_rules, rules_for
from companion.dice import DiceKind, face_label
from companion.errors import BecherError
from web.api import fail
from web.charts import Bar, Series, bar_chart, line_chart, time_ticks
from web.pages.i18n import tr
from web.pages.model import game_name
from web.say import Message

bp = Blueprint("records_pages", __name__)
PAGE = 100  # games a history page lists; older ones on the next pages
LAST_PAGE = 100_000  # a page number past any history (10 million games)

JSON = dict[str, Any]


def _name(game: str) -> str:
    try:
        return game_name(rules_for(game))
    except BecherError:
        return game


@dataclass(frozen=True)
class Choice:
    value: str
    label: str


@dataclass(frozen=True)
class HistoryRow:
    id: str
    date: str
    game: str
    players: tuple[str, ...]
    winners: tuple[str, ...]
    status: str
    open: bool


@dataclass(frozen=True)
class HistoryPage:
    """Template context of ``games_history.html``: the filter's choices and the games, newest first."""

    rows: tuple[HistoryRow, ...]
    players: tuple[Choice, ...]
    games: tuple[Choice, ...]
    player: str
    game: str
    query: str
    total: int = 0
    older: str = ""  # the query of the next page of older games ("": none)
    newer: str = ""


def _choices() -> tuple[tuple[Choice, ...], tuple[Choice, ...]]:
    from web.pages import data
    from web.players import players
    from web.records import visible

    people = tuple(Choice(str(p.id), p.name) for p in players(data.store().conn(), visible()))
    games = tuple(Choice(r.id, game_name(r)) for r in all_rules())
    return people, games


@bp.get("/history")
def history() -> Any:
    from web.history import lines
    from web.pages import data
    from web.records import _player_arg, visible

    player = _player_arg(request.args)
    game = request.args.get("game") or None
    current = {p.id: p.name for p in _players_by_id()}
    page = numbers.whole_text(request.args.get("page") or "1", 1, LAST_PAGE)
    if page is None:
        fail(400, "malformed", Message("The parameter 'page' must be a page number from 1 to {last}.", last=LAST_PAGE))
    start = (page - 1) * PAGE
    history = lines(data.store(), visible(), player, game)
    rows = []
    for line in history[start : start + PAGE]:
        shown = tuple(
            current.get(pid, name) if pid is not None else name
            for pid, name in zip(line.players, line.names, strict=True)
        )
        winners = tuple(shown[w] for w in line.winners or () if 0 <= w < len(shown))
        rows.append(
            HistoryRow(line.id, line.date, _name(line.game), shown, winners, line.status, line.status == "playing")
        )
    people, games = _choices()
    query = filter_query(player=player, game=game)

    def page_query(number: int) -> str:
        args = {k: v for k, v in request.args.items() if k != "page" and v}
        return urlencode({**args, "page": number})

    number = start // PAGE + 1
    older = page_query(number + 1) if start + PAGE < len(history) else ""
    newer = page_query(number - 1) if start > 0 else ""
    ctx = HistoryPage(tuple(rows), people, games, str(player or ""), game or "", query, len(history), older, newer)
    return render_template("games_history.html", ctx=ctx)


def filter_query(**values: object) -> str:
    """The query of the exports and the JSON link, made from the filter as read (each player once), never the
    request's own query echoed (a list of one id repeated 3,000 times made a page of 140 KB)."""
    return urlencode({k: v for k, v in values.items() if v not in (None, "")})


def _players_by_id() -> list[Any]:
    from web.pages import data
    from web.players import players
    from web.records import visible

    return players(data.store().conn(), visible())


@dataclass(frozen=True)
class PlayersPage:
    """Template context of ``players.html``: the remembered players with their number of games."""

    players: tuple[JSON, ...]


@bp.get("/players")
def players_page() -> Any:
    from web.records import players_json

    people = tuple(players_json())
    return render_template("players.html", ctx=PlayersPage(people))


# ---------------------------------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class DiceSection:
    kind: str
    title: str
    verdict: str
    promise: str
    chart: Markup
    figures: JSON


@dataclass(frozen=True)
class PlayerLine:
    name: str
    colour: int
    played: int
    won: int
    win_rate: str
    per_game: str
    best: str


@dataclass(frozen=True)
class StatsPage:
    """Template context of ``stats.html``: the filter, the table per player, the charts, the dice's fairness."""

    players: tuple[Choice, ...]
    games: tuple[Choice, ...]
    chosen: tuple[str, ...]
    game: str
    since: str
    until: str
    dice: str
    total: int
    lines: tuple[PlayerLine, ...]
    charts: tuple[Markup, ...]
    fairness: tuple[DiceSection, ...]
    query: str
    error: str = ""
    group: JSON = field(default_factory=dict)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{round(value * 100)} %"


def dice_section(kind: str, fig: JSON) -> DiceSection:
    """The fairness test of one kind of dice: the verdict in a sentence, the promise, the faces against fair."""
    dice_kind = DiceKind(kind)
    n = int(fig["faces"])
    if fig["verdict"] == "too_few":
        verdict = tr("%(n)s faces: too few to tell. The test needs at least 30.", n=n)
    elif fig["verdict"] == "fair":
        verdict = tr("%(n)s faces: no sign of an unfair die.", n=n)
    else:
        odds = "{:,}".format(int(fig["odds"])).replace(",", "\u202f")
        verdict = tr(
            "%(face)s came up %(share)s %% of the time; a fair die does that less than once in %(odds)s such tests.",
            face=face_label(int(fig["face"]), dice_kind),
            share=round(float(fig["share"]) * 100),
            odds=odds,
        )
    if fig["more"]:
        promise = tr(
            "To catch a die that shows one face a quarter of the time, 9 times in 10, the test needs %(needed)s faces:"
            " %(more)s more (about %(throws)s throws of five dice).",
            needed=fig["needed"],
            more=fig["more"],
            throws=-(-int(fig["more"]) // 5),
        )
    else:
        promise = tr(
            "These faces are enough to catch a die that shows one face a quarter of the time, 9 times in 10.",
        )
    counts = fig["counts"]
    bars = [Bar(face_label(i + 1, dice_kind), c / n if n else 0.0, 1 / 6) for i, c in enumerate(counts)]
    title = tr("Pip dice") if kind == "pip" else tr("Poker dice")
    chart = bar_chart(
        tr("%(dice)s: how often each face came up", dice=title),
        bars,
        [tr("Face"), tr("Share of faces"), tr("Fair die")],
        reference_name=tr("Fair die"),
        percent=True,
    )
    return DiceSection(kind, title, verdict, promise, chart, fig)


def _moment(point: JSON) -> tuple[float, float, str]:
    """A game's points on the time axis: when it was created (UTC), its points, and the moment as the history
    writes it."""
    at = str(point["at"])  # 2026-11-29T20:15:00Z; read by fromisoformat and sliced: strptime a point cost a page 40 ms
    return datetime.fromisoformat(at).timestamp(), float(point["points"]), f"{at[:10]} {at[11:16]}"


def time_axis(moments: list[float]) -> tuple[list[tuple[float, str]], str]:
    """The time axis of the games at ``moments``: round moments labelled in the page's language (hours of one
    evening, days, months, years), and a note of the day(s) where the labels name only hours."""
    from babel.dates import format_date, format_skeleton
    from flask_babel import get_locale

    locale = get_locale() or "en"
    lo, hi = min(moments), max(moments)
    ticks, unit = time_ticks(lo, hi)

    def label(t: float) -> str:
        when = datetime.fromtimestamp(t, UTC)
        if lo == hi:  # one game: its day and hour, under it in the middle
            day = format_skeleton("MMMd", when, locale=locale)
            return f"{day}, {format_skeleton('Hm', when, locale=locale)}"
        if unit in ("minute", "hour") and (when.hour or when.minute or unit == "minute"):
            return str(format_skeleton("Hm", when, locale=locale))
        skeleton = {"month": "yMMM", "year": "y"}.get(unit, "MMMd")
        return str(format_skeleton(skeleton, when, locale=locale))

    note = ""
    if unit in ("minute", "hour"):
        days = [format_date(datetime.fromtimestamp(t, UTC), "medium", locale=locale) for t in (lo, hi)]
        note = days[0] if days[0] == days[1] else f"{days[0]} – {days[1]}"
    return [(t, label(t)) for t in ticks], note


def charts_of(stats: JSON) -> list[Markup]:
    """The pictures: win rate per player, points per game over time (per game), hands against the odds and throws
    per turn for the group."""
    out = []
    people = stats["players"]
    if people:
        out.append(
            bar_chart(
                tr("Win rate"),
                [Bar(p["name"], float(p["win_rate"] or 0)) for p in people],
                [tr("Player"), tr("Win rate")],
                percent=True,
            )
        )
    kinds = sorted({pt["kind"] for p in people for pt in p["points"]})
    for kind in kinds:
        series = [
            Series(p["name"], i, tuple(_moment(pt) for pt in p["points"] if pt["kind"] == kind))
            for i, p in enumerate(people)
        ]
        series = [s for s in series if s.points]
        if series:
            ticks, note = time_axis([t for s in series for t, _, _ in s.points])
            out.append(
                line_chart(
                    tr("%(game)s: points per game over time", game=_name(kind)),
                    series,
                    [tr("Player"), tr("Date"), tr("Points")],
                    ticks,
                    note,
                )
            )
    for game, hands in sorted(stats["group"]["hands"].items()):
        turns = hands["turns"]
        if not turns:
            continue
        out.append(
            bar_chart(
                tr(
                    "%(game)s: hands of the first throw against the odds (%(turns)s turns)",
                    game=_name(game),
                    turns=turns,
                ),
                [Bar(tr(c["label_en"]), c["made"] / turns, c["odds"]) for c in hands["categories"]],
                [tr("Hand"), tr("Made"), tr("Odds")],
                reference_name=tr("Odds"),
                percent=True,
            )
        )
    turns = stats["group"]["turns"]
    if sum(turns.values()):
        out.append(
            bar_chart(
                tr("Throws used per turn"),
                [Bar(tr("%(n)s throws", n=k) if k != "1" else tr("1 throw"), float(v)) for k, v in turns.items()],
                [tr("Throws"), tr("Turns")],
            )
        )
    return out


@bp.get("/stats")
def stats_page() -> Any:
    from web.access import Denied
    from web.api import ApiError
    from web.pages import data
    from web.records import stats_filter, visible, visible_names
    from web.say import say
    from web.stats import Filter, figures

    args = {k: v for k, v in request.args.items() if k != "players"}
    args["players"] = ",".join(request.args.getlist("players"))
    error = ""
    try:
        flt = stats_filter(args)
    except (ApiError, Denied) as exc:
        error = say(exc.message)
        flt = Filter()
    stats = figures(data.store(), flt, visible(), visible_names())
    colour = {p["id"]: i for i, p in enumerate(stats["players"])}
    lines = tuple(
        PlayerLine(
            p["name"],
            colour[p["id"]],
            p["played"],
            p["won"],
            _pct(p["win_rate"]),
            ", ".join(f"{_name(k)}: {v:g}" for k, v in p["points_per_game"].items()) or "–",
            ", ".join(f"{_name(k)}: {b['points']} ({b['day']})" for k, b in p["best"].items()) or "–",
        )
        for p in stats["players"]
    )
    people, games = _choices()
    # a kind of dice none of these games threw has no block (no "0 faces, chi-square 0.0, p = 1"); the page says
    # in words when no dice were thrown at all
    fairness = tuple(dice_section(kind, fig) for kind, fig in stats["dice"].items() if fig["faces"])
    ctx = StatsPage(
        people,
        games,
        tuple(str(p) for p in flt.players),
        flt.game or "",
        flt.since or "",
        flt.until or "",
        flt.dice or "",
        stats["games"],
        lines,
        tuple(charts_of(stats)),
        fairness,
        filter_query(
            players=",".join(map(str, flt.players)),
            game=flt.game,
            since=flt.since,
            until=flt.until,
            game_id=flt.game_id,
            dice=flt.dice,
        ),
        error,
        stats["group"],
    )
    return render_template("stats.html", ctx=ctx)
