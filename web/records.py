"""The API of what is kept across games (contract: docs/api.md "Players, history, statistics"): remembered players
(rename, merge), the history, the statistics and the dice's fairness, and the CSV exports.

A device sees the games it may read (owned, joined, public; every game from the host's own browser) and the players
who sat in them; it may rename and merge only its own players (web/owners.py). Nothing here changes a game. Every
number of a query string is read by companion/numbers.py (ASCII digits, with a range; the players of a statistics
query each once, at most ``owners.STATS_PLAYERS``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, request

from companion import numbers
from companion.core import all_rules, rules_for
from companion.errors import BecherError
from web import access, owners
from web.api import body, fail, ok, store_of, whole
from web.history import history_csv, lines, throws_csv
from web.players import PlayerError, merge, rename
from web.say import Message
from web.stats import Filter, figures

bp = Blueprint("records", __name__, url_prefix="/api")

JSON = dict[str, Any]
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@bp.before_request
def _limit_body() -> None:
    from web.api import BODY_LIMIT

    request.max_content_length = BODY_LIMIT


def visible() -> list[str]:
    return owners.visible_games(store_of().conn(), owners.asker())


def players_json() -> list[JSON]:
    """The players this device sees, each with whether it may rename and merge it (``mine``)."""
    who = owners.asker()
    return [p.to_json(owners.may_change(who, p)) for p in owners.visible_players(store_of().conn(), who)]


def game_name(game: str) -> str:
    try:
        return str(rules_for(game).name_en)
    except BecherError:
        return game


def _player_arg(args: Mapping[str, str], name: str = "player") -> int | None:
    raw = args.get(name, "").strip()
    if not raw:
        return None
    number = numbers.whole_text(raw)
    if number is None:
        fail(400, "malformed", Message("The parameter '{name}' must be a player's number.", name=name))
    return number


def stats_filter(args: Mapping[str, str]) -> Filter:
    """The filter of the statistics from query parameters, each refused by name when it cannot be read: the players
    each once (a list repeated 13,000 times is one player), at most ``owners.STATS_PLAYERS`` of them, each one this
    device sees (else 404, as for none); a ``game_id`` of a game it may read."""
    ids = numbers.wholes_text(args.get("players", ""))
    if ids is None:
        fail(400, "malformed", "The parameter 'players' lists players' numbers separated by commas.")
    owners.players_to_show(store_of().conn(), owners.asker(), ids)
    game_id = args.get("game_id") or None
    if game_id is not None and game_id not in visible():
        fail(
            404, "not_found", Message("There is no game {game_id}; pick one from the list.", game_id=repr(game_id[:24]))
        )
    game = args.get("game") or None
    if game is not None and game not in {r.id for r in all_rules()}:
        fail(400, "malformed", Message("There is no game {game}; pick one from the list.", game=repr(game[:24])))
    for name in ("since", "until"):
        value = args.get(name) or None
        if value is not None and not DAY.fullmatch(value):
            fail(400, "malformed", Message("The parameter '{name}' must be a date like 2026-03-31.", name=name))
    dice = args.get("dice") or None
    if dice is not None and dice not in ("pip", "poker"):
        fail(400, "malformed", "The parameter 'dice' must be 'pip' or 'poker'.")
    return Filter(tuple(ids), game, args.get("since") or None, args.get("until") or None, game_id, dice)


def _attachment(text: str, filename: str) -> Response:
    return Response(
        text.encode("utf-8"),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.get("/players")
def players_list() -> Response:
    return ok(players=players_json())


def _player_error(exc: PlayerError) -> None:
    status = {"not_found": 404, "illegal": 409}.get(exc.code, 400)
    fail(status, exc.code, exc.message)


@bp.post("/players/<whole:player_id>")
def players_rename(player_id: int) -> Response:
    from web.api import check_names

    data = body()
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        fail(400, "malformed", "Send the player's new name in the field 'name'.")
    check_names([name])
    store = store_of()
    owners.player_to_change(store.conn(), owners.asker(), player_id)
    try:
        with store._write() as conn:
            rename(conn, player_id, name)
    except PlayerError as exc:
        _player_error(exc)
    return ok(players=players_json())


@bp.post("/players/<whole:player_id>/merge")
def players_merge(player_id: int) -> Response:
    data = body()
    into = whole(data, "into")
    store = store_of()
    owners.player_to_change(store.conn(), owners.asker(), player_id)
    owners.player_to_change(store.conn(), owners.asker(), into)
    try:
        with store._write() as conn:
            merge(conn, player_id, into)
    except PlayerError as exc:
        _player_error(exc)
    return ok(players=players_json())


@bp.get("/history")
def history() -> Response:
    game = request.args.get("game") or None
    history = lines(store_of(), visible(), _player_arg(request.args), game)
    return ok(games=[line.to_json() for line in history])


@bp.get("/history.csv")
def history_export() -> Response:
    game = request.args.get("game") or None
    history = lines(store_of(), visible(), _player_arg(request.args), game)
    return _attachment(history_csv(history, game_name), "becher-history.csv")


@bp.get("/throws.csv")
def throws_export() -> Response:
    game = request.args.get("game") or None
    history = lines(store_of(), visible(), _player_arg(request.args), game)
    return _attachment(throws_csv(store_of(), [line.id for line in history]), "becher-throws.csv")


@bp.get("/games/<game_id>/throws.csv")
def game_throws_export(game_id: str) -> Response:
    store = store_of()
    row = store.row(game_id)
    access.require_read(store, row)
    return _attachment(throws_csv(store, [game_id]), f"becher-{row.game}-{row.id}-throws.csv")


@bp.get("/stats")
def stats() -> Response:
    return ok(stats=figures(store_of(), stats_filter(request.args), visible(), visible_names()))


def visible_names() -> dict[int, str]:
    """The names of the players this device sees: the only ones the statistics name."""
    return {p.id: p.name for p in owners.visible_players(store_of().conn(), owners.asker())}


@bp.get("/games/<game_id>/block.csv")
def game_block_export(game_id: str) -> Response:
    """The game's score block as CSV, rendered as the table page shows it (in the reader's language) and read back
    table by table (web/history.block_csv): whatever a block draws, the CSV has, for every game."""
    from types import SimpleNamespace

    from flask import render_template_string

    from web.history import block_csv
    from web.pages.model import build_game_page

    store = store_of()
    row = store.row(game_id)
    access.require_read(store, row)
    html = render_template_string(
        '{% include ["blocks/" ~ p.game ~ ".html", "blocks/generic.html"] %}',
        p=build_game_page(store.game(game_id)),
        ctx=SimpleNamespace(score_photos={}),
    )
    return _attachment(block_csv(html), f"becher-{row.game}-{row.id}-block.csv")
