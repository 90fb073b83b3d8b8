"""The table view (tablet, TV): the game's own score block, ranking, whose turn and what they may do, live."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, abort, render_template
from markupsafe import Markup

from web.pages import data
from web.pages.model import GamePage, build_game_page
from web.pages.views import HistoryLine, action_photos, history_lines, score_photos

bp = Blueprint("table", __name__)
RECENT = 8


@dataclass(frozen=True)
class TablePage:
    """Template context of ``table.html`` and its live part: the game, how to join it, the latest actions, the
    photo behind each score (``score_photos``, keyed as ``views.score_photos`` says), the dice on the table now
    (``table_dice``, for the entry's holds) and whether the join link names this machine's loopback address, which
    no phone can reach (``loopback``)."""

    page: GamePage
    role: str
    can_write: bool
    join_code: str
    join_url: str
    qr_url: str
    qr_svg: Markup
    recent: tuple[HistoryLine, ...]
    score_photos: dict[str, str]
    table_dice: tuple[int, ...] = ()
    loopback: bool = False
    phones: PhonesBox | None = None
    set_to_update: bool = False  # ask "Update 'NAME' with tonight's throws?" (the game ended; this device's set)
    may_undo: bool = True  # the last action may be undone from this device (a bound phone: its own player's only)

    @property
    def waiting(self) -> bool:
        """The table is everyone's: it never waits for another player (the shared entry asks)."""
        return False


@dataclass(frozen=True)
class Phone:
    """A device that joined the game, as the owner sees it: its name (or short id) and the seat it holds."""

    device: str
    name: str
    seat: int | None
    seat_name: str
    colour: str
    number: int = 0  # in the order the phones joined, from 1: "Phone 2" for a phone that gave no name yet

    @property
    def label(self) -> str:
        """What the owner's list calls it: its name (given on joining, or its player's when it chose a seat), else
        its seat's player, else its number."""
        from web.pages.i18n import tr

        if self.name:
            return self.name
        if self.seat_name:
            return tr("%(name)s's phone", name=self.seat_name)
        return tr("Phone %(n)s", n=self.number)


@dataclass(frozen=True)
class PhonesBox:
    """The owner's controls over the phones (``table_phones.html``): whether each phone is bound to the seat it
    chose, and every joined phone with a way to free its seat or remove it (a phone that left keeps its seat
    otherwise, and in a game with bound seats nobody else could then play that seat from a phone)."""

    game_id: str
    bound_seats: bool
    phones: tuple[Phone, ...]
    finished: bool


def phones_box(game_id: str, game: dict[str, Any], page: GamePage) -> PhonesBox:
    phones: list[Phone] = []
    for m in data.store().members(game_id):
        if m["role"] == "owner":
            continue
        seat = m["seat"] if isinstance(m["seat"], int) else None
        player = page.player(seat) if seat is not None else None
        phones.append(
            Phone(
                device=str(m["device"]),
                name=str(m["name"] or ""),
                seat=seat,
                seat_name=player.name if player else "",
                colour=player.colour if player else "",
                number=len(phones) + 1,
            )
        )
    finished = game.get("status") == "finished"
    return PhonesBox(game_id, bool(game.get("bound_seats")), tuple(phones), finished)


def qr_svg(url: str) -> Markup:
    """The join link as an inline SVG QR code (inline, so it needs no request and scales with the box)."""
    import segno

    svg = segno.make(url, error="m").svg_inline(scale=4, border=2, omitsize=True)
    # the surrounding element carries the name (role img); the drawing itself is hidden from screen readers
    return Markup(svg.replace("<svg ", '<svg aria-hidden="true" focusable="false" ', 1))


def turn_dice(page: GamePage) -> tuple[int, ...]:
    """The dice of the turn on the table now: those the entry offers to keep."""
    turn = page.view.get("turn")
    return tuple(int(v) for v in (turn.get("dice") or ())) if isinstance(turn, dict) else ()


def is_loopback(url: str) -> bool:
    """Whether a join link names a loopback address (127.x, ::1, localhost): a phone would open itself there."""
    import ipaddress
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def table_context(game_id: str) -> TablePage:
    loaded = data.load(game_id)
    page = build_game_page(loaded.game)
    rows = data.history(game_id, RECENT)  # the recent lines only: a long game is cheap
    lines = history_lines(rows, page)
    may_undo = bool(rows)
    if loaded.game.get("bound_seats") and loaded.role != "owner" and loaded.can_write:
        # a bound phone on the table view gets the buttons its phone view gets (issue 61), not every seat's; a
        # viewer's page offers no buttons at all and keeps the mark of the throw to come
        from web.pages.phone import me_in, own_seat_view

        page, may_undo = own_seat_view(page, rows, me_in(game_id, len(page.players), True))
    show_join = loaded.role in data.WRITE_ROLES
    url = data.join_url(loaded.code) if show_join else ""
    return TablePage(
        page=page,
        role=loaded.role,
        can_write=loaded.can_write,
        join_code=loaded.code if show_join else "",
        join_url=url,
        qr_url=f"/api/games/{game_id}/qr.svg" if show_join else "",
        qr_svg=qr_svg(url) if show_join else Markup(""),
        recent=tuple(reversed(lines[-RECENT:])),
        score_photos=score_photos(action_photos(loaded.game), page),
        table_dice=turn_dice(page),
        loopback=is_loopback(url),
        phones=phones_box(game_id, loaded.game, page) if loaded.role == "owner" else None,
        set_to_update=set_to_update(page),
        may_undo=may_undo,
    )


def set_to_update(page: GamePage) -> bool:
    """Whether to ask this device to update the saved dice the game started from: the game has ended, it learned
    dice the set did not know, the set has not learned them yet, and the set is this device's (web/owners.py)."""
    mem = page.memory
    if mem is None or mem.set_id is None or not mem.new or mem.set_updated or not page.over:
        return False
    from web import owners

    return owners.usable_sets(data.store().conn(), owners.asker()).get(mem.set_id) is True


@bp.get("/table/<game_id>")
def show(game_id: str) -> Any:
    return render_template("table.html", ctx=table_context(game_id))


@bp.get("/table/<game_id>/part")
def part(game_id: str) -> Any:
    """The live part of the table view, fetched after each change (no page reload, focus kept)."""
    return render_template("table_part.html", ctx=table_context(game_id))


@bp.get("/table/<game_id>/phones")
def phones(game_id: str) -> Any:
    """The owner's phones box alone, fetched when a phone joins, chooses or leaves a seat (no new game revision)."""
    loaded = data.load(game_id)
    if loaded.role != "owner":
        abort(403)
    box = phones_box(game_id, loaded.game, build_game_page(loaded.game))
    return render_template("table_phones.html", box=box)


@dataclass(frozen=True)
class HistoryPage:
    """Template context of ``history.html``: every action with its words and photo, and the export link."""

    page: GamePage
    lines: tuple[HistoryLine, ...]
    can_write: bool


@bp.get("/history/<game_id>")
def history(game_id: str) -> Any:
    loaded = data.load(game_id)
    page = build_game_page(loaded.game)
    ctx = HistoryPage(page, tuple(history_lines(data.history(game_id), page)), loaded.can_write)
    return render_template("history.html", ctx=ctx)
