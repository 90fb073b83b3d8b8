"""The phone view: the current player's controls (photo, tapping faces, holds, choices, undo)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from flask import Blueprint, Flask, redirect, render_template, request, url_for
from flask_babel import ngettext
from werkzeug.wrappers import Response

from companion import numbers
from web.access import AGREEMENTS
from web.pages import data
from web.pages.i18n import tr
from web.pages.model import ChoiceView, GamePage, build_game_page
from web.pages.table import turn_dice
from web.pages.views import HistoryLine, history_lines

bp = Blueprint("phone", __name__)
ME_COOKIE = "becher_me"
ME_GAMES = 30  # games remembered per device; the oldest choice is dropped first


SHARED = -1  # "shared by all", as the cookie remembers it (a choice made, of no seat)
MAX_SEAT = 7  # no game has more than eight seats


def _me_pairs() -> list[tuple[str, int]]:
    """This device's "which seat is me" choices, as (game id, seat or SHARED), oldest first, from one cookie."""
    out = []
    for item in request.cookies.get(ME_COOKIE, "").split("."):
        game, _, seat = item.partition("-")
        number = numbers.whole_text(seat, 0, MAX_SEAT)
        if game.isascii() and game.isalnum() and (number is not None or seat == "s"):
            out.append((game, SHARED if number is None else number))
    return out


def _my_choice(game_id: str) -> int | None:
    """This device's choice for the game, or for the game it follows: the game it is the rematch of (the group sits
    where it sat), or the over game after which the table started it (the same player where the name is the same;
    asked again where it is not). None where it never chose."""
    return _choice_in(dict(_me_pairs()), game_id, ME_GAMES)


def _choice_in(pairs: dict[str, int], game_id: str, depth: int) -> int | None:
    if game_id in pairs:
        return pairs[game_id]
    store = data.store()
    if depth <= 0:
        return None
    before = store.rematch_of(game_id)
    if before is not None:
        return _choice_in(pairs, before, depth - 1)
    before = store.started_after(game_id)
    if before is None:
        return None
    seat = _choice_in(pairs, before, depth - 1)
    if seat is None or seat == SHARED:
        return seat
    old = [str(p) for p in store.row(before).setup.get("players") or []]
    new = [str(p).strip().casefold() for p in store.row(game_id).setup.get("players") or []]
    name = old[seat].strip().casefold() if 0 <= seat < len(old) else None
    return new.index(name) if name in new else None


def me_in(game_id: str, players: int, bound: bool = False) -> int | None:
    """The seat this device said it is in this game, if it still names a seat. Where the game binds phones to seats
    the server's binding is the truth (the cookie may be another browser's memory of it)."""
    seat = data.store().seat(game_id, data.device()) if bound else _my_choice(game_id)
    return seat if seat is not None and 0 <= seat < players else None


def has_chosen(game_id: str, bound: bool) -> bool:
    """Whether this device has said whose phone it is (a seat, or shared by all where that may be chosen)."""
    if bound:
        return data.store().seat(game_id, data.device()) is not None
    return _my_choice(game_id) is not None


@dataclass(frozen=True)
class PhonePage:
    """Template context of ``phone.html`` and its live part.

    ``table_dice`` are the dice on the table now (the current turn's, for holds), ``last`` the latest action,
    ``me`` the seat this device said it is (remembered per device and game, see ``/phone/<id>/me``).
    """

    page: GamePage
    role: str
    can_write: bool
    join_code: str
    table_dice: tuple[int, ...]
    last: HistoryLine | None
    me: int | None = None
    own_seat_only: bool = False  # the game binds this phone to its seat: it gets no controls for other seats
    chosen: bool = True  # this phone has said whose it is; until then it is asked first, and shows no entry
    may_undo: bool = True  # the last action may be undone here (a bound phone: only its own player's)

    @property
    def ask_seat(self) -> bool:
        """A phone that may play and has not said whose it is: the seat picker comes first, the entry after it."""
        return self.can_write and not self.chosen and not self.page.over and len(self.page.players) > 1

    @property
    def waiting(self) -> bool:
        """This phone is someone's, and that player has nothing to do now: it shows whom it waits for."""
        if self.me is None or self.page.over:
            return False
        return self.page.to_move != self.me and not any(c.player == self.me for c in self.page.choices)


def own_seat_view(page: GamePage, rows: list[dict[str, Any]], me: int | None) -> tuple[GamePage, bool]:
    """What a phone bound to seat ``me`` may do, as the server allows it (web/access.require_seat): its own seat's
    choices and the agreements, and undo of its own last action (the second value); another player's buttons would
    only be refused. ``me`` None: a bound phone that has not chosen, which may do nothing but agree."""
    page = replace(page, choices=tuple(c for c in page.choices if c.player == me or c.kind in AGREEMENTS))
    last_action = (rows[-1].get("action") or {}) if rows else {}
    mine = me is not None and last_action.get("player") == me
    return page, bool(rows) and (mine or last_action.get("type") in AGREEMENTS)


RECENT_ROWS = 8  # log rows a phone's page reads: a long game's whole log is never read for one line


def phone_context(game_id: str) -> PhonePage:
    loaded = data.load(game_id)
    bound = bool(loaded.game.get("bound_seats")) and loaded.role != "owner"
    page = build_game_page(loaded.game)
    # the last action's line (and whose it was), told from the recent rows: a stand names the hand thrown before it
    rows = data.history(game_id, RECENT_ROWS)
    lines = history_lines(rows, page)
    me = me_in(game_id, len(page.players), bound)
    may_undo = bool(lines)
    if bound and me is not None:
        page, may_undo = own_seat_view(page, rows, me)
    return PhonePage(
        page=page,
        role=loaded.role,
        can_write=loaded.can_write,
        join_code=loaded.code if loaded.role in data.WRITE_ROLES else "",
        table_dice=turn_dice(page),
        last=lines[-1] if lines else None,
        me=me,
        own_seat_only=bound,
        chosen=loaded.role == "owner" or has_chosen(game_id, bound),  # the owner's device is the table's own
        may_undo=may_undo,
    )


@dataclass(frozen=True)
class ChoiceGroup:
    """Choices shown together on the phone; a ``folded`` group sits behind its title (strikes, agreements)."""

    title: str
    choices: tuple[ChoiceView, ...]
    folded: bool = False
    compact: bool = False  # a sheet's fields: small buttons side by side, each naming its field only (issue 61)


def losing(choice: ChoiceView) -> bool:
    """An entry that scores nothing: a Schule's zero (minus 200) or a combination entered without being made."""
    return choice.detail.get("result") == "zero" or bool(choice.detail.get("not_made"))


def count_label(choice: ChoiceView, n: int) -> str:
    """A choice that takes a number of dice, with its number: "Rethrow 2 dice once"."""
    if choice.kind == "rethrow":
        return str(ngettext("Rethrow %(num)s die once", "Rethrow %(num)s dice once", n))
    return tr("%(label)s: %(n)s", label=choice.label, n=n)


def phone_choices(page: GamePage) -> list[ChoiceGroup]:
    """The choices that need no dice, grouped: hands to stand on, rows to enter, dice to place, strikes."""
    rest = [c for c in page.choices if "dice" not in c.needs]
    places: dict[tuple[Any, ...], ChoiceView] = {}
    for c in rest:
        if c.kind == "place":
            key = (c.detail.get("die"), c.detail.get("row"), c.detail.get("side"))
            if key not in places or int(c.detail.get("slot") or 0) < int(places[key].detail.get("slot") or 0):
                places[key] = c
    groups = []
    main = [c for c in rest if c.kind in ("stand", "enter") and not losing(c)]
    if main:
        sheet = all(c.kind == "enter" for c in main)
        title = tr("Enter") if any(c.kind == "enter" for c in main) else ""
        groups.append(ChoiceGroup(title, tuple(main), compact=sheet))
    # entries that score nothing come after those that score: a combination not made, then a Schule's zero; the
    # group's title says what entering does, so each button names its field only (a page of four-line buttons was
    # the phone's sheet before)
    losses = [c for c in rest if c.kind == "enter" and losing(c)]
    not_made = [c for c in losses if c.detail.get("result") != "zero"]
    zeros = [c for c in losses if c.detail.get("result") == "zero"]
    if not_made:
        groups.append(ChoiceGroup(tr("Not made: entered as a strike (0)"), tuple(not_made), False, True))
    if zeros:
        groups.append(ChoiceGroup(tr("A zero (−200 at the end)"), tuple(zeros), False, True))
    if places:
        groups.append(ChoiceGroup(tr("Place a die"), tuple(places.values())))
    strikes = [c for c in rest if c.kind == "strike"]
    if strikes:
        groups.append(ChoiceGroup(tr("Strike a row instead"), tuple(strikes), folded=True, compact=True))
    starters = [
        replace(c, label=tr("%(name)s starts", name=p.name if (p := page.player(c.player)) else c.player))
        for c in rest
        if c.kind == "choose_starter"
    ]
    if starters:
        groups.append(ChoiceGroup(tr("Or agree who starts"), tuple(starters), folded=True))
    known = {"stand", "enter", "place", "strike", "choose_starter"}
    others: list[ChoiceView] = []
    for c in rest:
        if c.kind in known:
            continue
        if "count" in c.needs:
            # a number of dice to rethrow: one button per count (a throw has five dice), said as a sentence
            others.extend(
                replace(c, label=count_label(c, n), action={**c.action, "count": n}, needs=()) for n in range(1, 6)
            )
        else:
            others.append(c)
    if others:
        groups.append(ChoiceGroup("", tuple(others)))
    return groups


@bp.get("/phone/<game_id>")
def show(game_id: str) -> Any:
    return render_template("phone.html", ctx=phone_context(game_id))


@bp.get("/phone/<game_id>/part")
def part(game_id: str) -> Any:
    return render_template("phone_part.html", ctx=phone_context(game_id))


@bp.post("/phone/<game_id>/me")
def set_me(game_id: str) -> Response:
    """Remember which seat this phone is in this game (``seat`` empty: a shared phone), then back to the phone.

    Where the game binds phones to seats this choice is also the server's binding of this phone (a seat another
    phone holds is refused, and the page says so); elsewhere only the device's own view changes."""
    loaded = data.load(game_id)
    players = len(loaded.game["state"].get("players") or [])
    pairs = [(g, s) for g, s in _me_pairs() if g != game_id]
    seat = request.form.get("seat", "")
    chosen = None if seat == "" else numbers.whole_text(seat, 0, players - 1)
    if seat != "" and chosen is None:  # "²", 5,000 digits, a seat the game lacks: said, and nothing changes
        return Response(
            tr("Choose one of the game's players, or a phone shared by all."), status=400, mimetype="text/plain"
        )
    target = url_for("phone.show", game_id=game_id)
    from web.api import publish_members

    if loaded.game.get("bound_seats") and loaded.role in data.WRITE_ROLES:
        from web.store import SeatTaken

        try:
            data.store().set_seat(game_id, data.device(), chosen)
        except SeatTaken:
            return redirect(url_for("phone.show", game_id=game_id, seat_taken=1), code=303)
    if chosen is not None and loaded.role == "player":
        # the owner's list of phones names this phone after its player ("Anna's phone"), not by a number
        data.store().join(game_id, data.device(), str(loaded.game["state"]["players"][chosen]))
    if loaded.role in data.WRITE_ROLES:
        publish_members(game_id)
    if game_id.isascii() and game_id.isalnum():
        pairs.append((game_id, chosen if chosen is not None else SHARED))
    response = redirect(target, code=303)
    value = ".".join(f"{g}-{'s' if s == SHARED else s}" for g, s in pairs[-ME_GAMES:])
    response.set_cookie(ME_COOKIE, value, max_age=365 * 24 * 3600, samesite="Lax")
    return response


def install(app: Flask) -> None:
    app.jinja_env.globals["phone_choices"] = phone_choices
