"""Where the pages get a game: the server's store and device roles (web/store.py, web/access.py).

The pages read the same Game JSON the API answers with, so a page and ``GET /api/games/<id>`` never disagree.
Writes never go through here: the page scripts post to the JSON API.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import abort

JSON = dict[str, Any]
WRITE_ROLES = frozenset({"owner", "player"})
READ_ROLES = frozenset({"owner", "player", "viewer"})


@dataclass(frozen=True)
class Loaded:
    """One game as a page sees it: the Game JSON, this device's role, and the game's join code."""

    game: JSON
    role: str
    code: str

    @property
    def can_write(self) -> bool:
        return self.role in WRITE_ROLES and self.game.get("status") != "finished"


class NotMember(Exception):
    """This device has not joined the game (and the game has no public view): the page offers to join."""

    def __init__(self, game_id: str) -> None:
        super().__init__(game_id)
        self.game_id = game_id


def store() -> Any:
    from web.api import store_of

    return store_of()


def device() -> str:
    from web.access import current_device

    return current_device()


def load(game_id: str) -> Loaded:
    """The game and this device's role; 404 for no such game, 403 for a device that may not see it."""
    from web.access import role_in
    from web.store import NotFound

    st = store()
    try:
        row = st.row(game_id)
        game = st.game(game_id)
    except NotFound:
        abort(404)
    role = role_in(st, row, device())
    if role not in READ_ROLES:
        raise NotMember(game_id)
    return Loaded(game, role, row.code)


def history(game_id: str, last: int | None = None) -> list[JSON]:
    """The game's log rows (``last``: only the newest that many)."""
    rows: list[JSON] = store().log_rows(game_id, last)
    return rows


def games_here() -> list[JSON]:
    """The games this device owns or joined (and public ones), newest first."""
    from web.access import is_local

    games: list[JSON] = store().list_games(device(), everything=is_local())
    return games


def join_url(code: str) -> str:
    from web.access import join_url as url

    return url(code)
