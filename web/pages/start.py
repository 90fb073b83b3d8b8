"""The start page: a new game (game, players, settings), resume a game, join one by its code, the rules in short."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, abort, render_template, request, url_for

from web.api import NAME_LIMIT
from web.pages import data
from web.pages.model import COLOURS, GameChoice, game_choices, game_name
from web.pages.rules_tables import RulesTable, rules_tables

bp = Blueprint("start", __name__)


@dataclass(frozen=True)
class RecentGame:
    """A game this device can go back to."""

    id: str
    name: str
    players: tuple[str, ...]
    status: str
    role: str
    updated: str
    actions: int
    when: str = ""  # the last change, in the reader's words and the server's time: two games of one evening apart
    winners: tuple[str, ...] = ()


@dataclass(frozen=True)
class StartPage:
    """Template context of ``start.html``: the games to pick from, the games to resume, and a join error."""

    games: tuple[GameChoice, ...]
    recent: tuple[RecentGame, ...]
    colours: int
    join_error: bool
    default_players: int = 2
    name_limit: int = 40  # web.api.NAME_LIMIT: a longer name is refused in words, never cut without one
    known: tuple[str, ...] = ()  # players remembered from earlier games, offered as each name is typed
    dice_sets_url: str = ""  # where start.js lists the saved dice sets (issue 52)
    after: str = ""  # the over game this one is started after: its phones follow the new game (web/api.py)
    names: tuple[str, ...] = ()  # that game's players, filled in: a phone keeps its player where the name stays


def recent_games() -> tuple[RecentGame, ...]:
    from companion.core import rules_for
    from companion.errors import BecherError

    out = []
    for g in data.games_here():
        outcome = g.get("outcome") if isinstance(g.get("outcome"), dict) else {}
        names = [str(n) for n in g.get("players") or ()]
        seats = (outcome or {}).get("winners") or ()
        winners = tuple(names[w] for w in seats if isinstance(w, int) and 0 <= w < len(names))
        try:
            name = game_name(rules_for(str(g["game"])))
        except BecherError:
            name = str(g.get("name", g["game"]))
        out.append(
            RecentGame(
                id=str(g["id"]),
                name=name,
                players=tuple(g.get("players") or ()),
                status=str(g.get("status", "")),
                role=str(g.get("role", "")),
                updated=str(g.get("updated") or ""),
                actions=int(g.get("actions") or 0),
                when=when(str(g.get("updated") or "")),
                winners=winners,
            )
        )
    return tuple(out)


def when(iso: str) -> str:
    """A stored time (ISO, UTC) as the page's language writes a short date and time, in the server's time zone (the
    table's own clock: the server runs beside it)."""
    from datetime import datetime

    from flask_babel import format_datetime

    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone()
    except ValueError:
        return ""
    return str(format_datetime(moment.replace(tzinfo=None), "short"))


def known_players() -> tuple[str, ...]:
    """The names of the players this device has seen at its games, most recent first (web/players.py)."""
    from web.players import players
    from web.records import visible

    return tuple(p.name for p in players(data.store().conn(), visible()))


def game_before() -> tuple[str, tuple[str, ...]]:
    """The game named by ``?after=`` (the table's "New game" of an over game this device owns) and its players;
    nothing for any other game, so the form starts as an ordinary new game."""
    after = request.args.get("after", "")
    if not after.isalnum():
        return "", ()
    from web.store import NotFound

    try:
        row = data.store().row(after)
    except NotFound:
        return "", ()
    if row.owner != data.device() or not (row.over or row.finished is not None) or row.rematch or row.next_game:
        return "", ()
    return row.id, tuple(str(p) for p in row.setup.get("players") or ())


@bp.get("/")
def index() -> Any:
    after, names = game_before()
    ctx = StartPage(
        games=tuple(game_choices()),
        recent=recent_games(),
        colours=COLOURS,
        join_error=request.args.get("join_error") == "1",
        name_limit=NAME_LIMIT,
        known=known_players(),
        dice_sets_url=url_for("api.dice_sets_list"),
        after=after,
        names=names,
        default_players=max(2, len(names)),
    )
    return render_template("start.html", ctx=ctx)


@dataclass(frozen=True)
class RulesPage:
    """Template context of ``rules.html``: one game's rules in short, its settings, and the readings in force."""

    game: GameChoice
    tables: tuple[RulesTable, ...] = ()


@bp.get("/rules/<game>")
def rules(game: str) -> Any:
    chosen = next((g for g in game_choices() if g.id == game), None)
    if chosen is None:
        abort(404)
    return render_template("rules.html", ctx=RulesPage(chosen, tuple(rules_tables(chosen.id))))
