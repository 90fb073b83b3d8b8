"""The JSON API under /api (contract: docs/api.md). Views parse, check access, call the store, publish, answer.

No rule lives here: actions are the game's own JSON and go to companion through the store; what may be done now
reaches the client as the rules engine's ``options`` inside every game answer.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import io
import json
import re
import sqlite3
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import Any, NoReturn

import segno
from flask import Blueprint, Flask, Response, current_app, request

from companion import numbers
from companion.core import GameLog, all_rules, rules_for
from companion.dice import parse_dice
from companion.errors import N_, BecherError, IllegalAction, MalformedInput
from web import access, lessons, live, memory, owners, photos
from web.access import Denied, current_device
from web.say import Message, message_of, say
from web.store import GameRow, NotFound, Store, shown

JSON = dict[str, Any]

bp = Blueprint("api", __name__, url_prefix="/api")

BODY_LIMIT = 1024 * 1024
PHOTO_LIMIT = 20 * 1024 * 1024
MULTIPART_SLACK = 64 * 1024


class ApiError(Exception):
    """An error answer in the one shape: ``{"ok": false, "error", "status", "code", **extra}``."""

    def __init__(self, status: int, code: str, message: str | Message, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.extra = extra

    def response(self) -> Response:
        return error_response(self.status, self.code, self.message, **self.extra)


def error_response(status: int, code: str, message: str | Message, **extra: Any) -> Response:
    body = {"ok": False, "error": say(message), "status": status, "code": code, **extra}
    return Response(json.dumps(body, ensure_ascii=False), status=status, mimetype="application/json")


def fail(status: int, code: str, message: str | Message, **extra: Any) -> NoReturn:
    raise ApiError(status, code, message, **extra)


class Encoded(str):
    """JSON text made already (a game view: ``Store.text``), put into an answer as it is."""


def ok(status: int = 200, **body: Any) -> Response:
    """The answer ``{"ok": true, **body}``; values that are ``Encoded`` go in as the text they are."""
    if not any(isinstance(v, Encoded) for v in body.values()):
        text = json.dumps({"ok": True, **body}, ensure_ascii=False)
    else:
        parts = ['"ok": true'] + [
            f"{json.dumps(k)}: {v if isinstance(v, Encoded) else json.dumps(v, ensure_ascii=False)}"
            for k, v in body.items()
        ]
        text = "{" + ", ".join(parts) + "}"
    return Response(text, status=status, mimetype="application/json")


def encoded(view: JSON) -> Encoded:
    """A game view as its JSON text, made once per revision however many answers and live events send it."""
    return Encoded(store_of().text(view))


def store_of() -> Store:
    store: Store = current_app.extensions["becher.store"]
    return store


def hub_of() -> live.Hub:
    hub: live.Hub = current_app.extensions["becher.hub"]
    return hub


# ---------------------------------------------------------------------------------------------- request parsing


@bp.before_request
def _limit_body() -> None:
    """1 MB for JSON and logs; photos get their own limit (413 beyond either)."""
    if request.endpoint == "api.upload_photo":
        request.max_content_length = PHOTO_LIMIT + MULTIPART_SLACK
    else:
        request.max_content_length = BODY_LIMIT


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
JSON_DEPTH = 16  # deeper than any action or setting; stops bodies built to exhaust the parser or the stack
NAME_LIMIT = 40  # characters of a player's name: a score block column, not a letter


def body(example: str | None = None) -> JSON:
    """The request's JSON object; {} for an empty body, unless ``example`` (a route where an empty body would still
    change something, such as clearing a seat: refused with 400 and the example). Refused: another content type (415),
    more than the body limit (413), what is not JSON, nested too deep or holds text that is not Unicode (400)."""
    raw = raw_body()
    if not raw.strip():
        if example is not None:
            fail(400, "malformed", Message("The body is empty; send a JSON object such as {example}.", example=example))
        return {}
    if not request.is_json:
        fail(415, "not_json", "Send the body as JSON with the header 'Content-Type: application/json'.")
    try:
        data = numbers.loads(raw)
    except numbers.TooLarge:
        name = numbers.field_too_large(raw)
        fail(
            400,
            "malformed",
            Message("The body holds a number larger than Becher takes (at most {largest}).", largest=numbers.LARGEST)
            if name is None
            else Message(
                "The field '{name}' holds a number larger than Becher takes (at most {largest}).",
                name=name[:24],
                largest=numbers.LARGEST,
            ),
        )
    except (ValueError, RecursionError):
        fail(400, "malformed", "The body is not valid JSON; send a JSON object.")
    if not isinstance(data, dict):
        fail(400, "malformed", "The body must be a JSON object.")
    check_json(data, "The body")
    return data


def raw_body() -> bytes:
    """The body, 413 beyond the limit. Werkzeug raises for a Content-Length over it, but a chunked body (no length)
    is silently cut at the limit, which would then read as broken JSON or a broken image."""
    raw = request.get_data(cache=True)
    limit = request.max_content_length
    if limit is not None and request.content_length is None and len(raw) >= limit:
        fail(413, "too_large", "What was sent is too large (photos up to 20 MB, other data up to 1 MB); send less.")
    return raw


def check_json(value: Any, what: str) -> None:
    """Refuse JSON nested deeper than JSON_DEPTH or holding lone surrogates (which cannot be stored as UTF-8)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not _encodable(item):
                fail(
                    400,
                    "malformed",
                    Message("{what} holds text that is not valid Unicode; send UTF-8 text.", what=what),
                )
            continue
        if not isinstance(item, (dict, list)):
            continue
        if depth > JSON_DEPTH:
            fail(
                400,
                "malformed",
                Message("{what} is nested too deeply; send the flat objects docs/api.md shows.", what=what),
            )
        children = list(item.items()) if isinstance(item, dict) else [(None, v) for v in item]
        for key, child in children:
            if key is not None and not _encodable(key):
                fail(
                    400,
                    "malformed",
                    Message("{what} holds text that is not valid Unicode; send UTF-8 text.", what=what),
                )
            stack.append((child, depth + 1))


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_names(names: Any) -> None:
    """Player names the score block can show: at most NAME_LIMIT characters, no control characters."""
    for name in names:
        if not isinstance(name, str):
            continue  # the rules engine names this refusal
        if len(name) > NAME_LIMIT:
            fail(
                400,
                "malformed",
                Message(
                    "A player's name may have at most {NAME_LIMIT} characters; shorten {name}.",
                    NAME_LIMIT=NAME_LIMIT,
                    name=quoted_name(name),
                ),
            )
        if not _encodable(name):
            fail(400, "malformed", "A player's name holds text that is not valid Unicode; type it again.")
        if any(unicodedata.category(ch) == "Cc" for ch in name):
            fail(400, "malformed", "Player names may not hold control characters or line breaks; type them again.")
        if hidden_characters(name):
            fail(400, "malformed", "Player names may not hold invisible or text-direction characters; type them again.")


def check_set_name(name: str) -> None:
    """A dice set's name, checked as a player's is, in words about the dice (its length: ``lessons.set_name``)."""
    if not _encodable(name):
        fail(400, "malformed", "A name for the dice holds text that is not valid Unicode; type it again.")
    if any(unicodedata.category(ch) == "Cc" for ch in name):
        fail(400, "malformed", "A name for the dice may not hold control characters or line breaks; type it again.")
    if hidden_characters(name):
        fail(
            400, "malformed", "A name for the dice may not hold invisible or text-direction characters; type it again."
        )


def quoted_name(name: str, room: int = 60) -> str:
    """A refused name as its message quotes it: whole where it fits ``room``, else cut after its last whole word
    that fits, with an ellipsis, so the person recognises the name they typed (never "Dorothea-Wil")."""
    name = "".join("\ufffd" if unicodedata.category(ch) in ("Cc", "Cf") else ch for ch in name)  # shown, never run
    if len(name) <= room:
        return f"“{name}”"
    cut = name[:room]
    words = re.split(r"(?<=[\s\-])", cut)
    kept = "".join(words[:-1]).rstrip() if len(words) > 1 and name[room] not in " -" else cut.rstrip()
    return f"“{kept or cut}…”"


def hidden_characters(text: str) -> bool:
    """Whether a name holds characters that show nothing but change what is around them: text-direction overrides
    (a name that turns the rest of a score line around) and zero-width ones (two names that look the same). Kept:
    the joiners that build emoji (👨‍👩‍👧) and that Persian and Indic names need between letters, and the tags
    of subdivision flags."""
    for i, ch in enumerate(text):
        if unicodedata.category(ch) != "Cf":
            continue
        before = text[i - 1] if i > 0 else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        emoji_join = before and after and unicodedata.category(before) in ("So", "Mn", "Sk")
        if ch == "\u200d" and emoji_join and unicodedata.category(after) == "So":
            continue
        if ch == "\u200c" and before.isalpha() and after.isalpha() and ord(before) > 0x24F and ord(after) > 0x24F:
            continue
        if 0xE0020 <= ord(ch) <= 0xE007F and "\U0001f3f4" in text:
            continue
        return True
    return False


def whole(data: JSON, name: str, default: int | None = None, minimum: int = 0, maximum: int = numbers.LARGEST) -> int:
    """A whole number field of a JSON body within its range (companion/numbers.py: the one reading of numbers)."""
    value = data.get(name, default)
    if value is None:
        fail(400, "malformed", Message("The field '{name}' is missing; send it as a whole number.", name=name))
    if isinstance(value, bool) or not isinstance(value, int):
        fail(400, "malformed", Message("The field '{name}' must be a whole number.", name=name))
    number = numbers.whole(value, minimum, maximum)
    if number is None:
        fail(
            400,
            "malformed",
            Message(
                "The field '{name}' must be a whole number from {minimum} to {maximum}.",
                name=name,
                minimum=minimum,
                maximum=maximum,
            ),
        )
    return number


def flag(data: JSON, name: str, default: bool = False) -> bool:
    value = data.get(name, default)
    if not isinstance(value, bool):
        fail(400, "malformed", Message("The field '{name}' must be true or false.", name=name))
    return value


def optional_revision(data: JSON) -> int | None:
    return None if data.get("revision") is None else whole(data, "revision")


def game_row(game_id: str) -> GameRow:
    return store_of().row(game_id)


def join_info(row: GameRow) -> JSON:
    return {"code": row.code, "url": access.join_url(row.code), "qr": f"/api/games/{row.id}/qr.svg"}


def publish_game(game: JSON) -> None:
    hub_of().publish(game["id"], "game", '{"game":' + encoded(game) + "}", game["revision"])


def publish_members(game_id: str) -> None:
    """A phone joined, chose or lost a seat, or was removed: no new revision of the game, but the owner's list of
    phones on the table page changes. The event names no device (every watcher of the game hears it)."""
    hub_of().publish(game_id, "members", {})


# ---------------------------------------------------------------------------------------------- rules


@bp.get("/rules")
def rules_list() -> Response:
    return ok(games=[r.describe() for r in all_rules()])


@bp.get("/rules/<game>")
def rules_one(game: str) -> Response:
    return ok(rules=rules_or_404(game).describe())


def rules_or_404(game: str) -> Any:
    try:
        return rules_for(game)
    except MalformedInput as exc:
        fail(404, "not_found", message_of(exc))


@bp.get("/rules/<game>/hand")
def rules_hand(game: str) -> Response:
    rules = rules_or_404(game)
    tokens = [t for t in request.args.get("dice", "").replace(" ", ",").split(",") if t]
    settings: JSON = {}
    kind = request.args.get("dice_kind")
    if kind is not None:
        settings["dice"] = kind
    all_five = request.args.get("all_five", "0").lower() in ("1", "true", "yes")
    try:
        names = [f"P{i + 1}" for i in range(max(rules.min_players, 1))]
        setup = rules.make_setup(names, settings)
        dice = parse_dice(tokens, setup.dice_kind)
        return ok(hand=rules.hand(dice, setup, all_five))
    except BecherError as exc:
        fail(400, "malformed", message_of(exc))


# ---------------------------------------------------------------------------------------------- games


@bp.get("/me")
def me() -> Response:
    store = store_of()
    return ok(device=current_device(), games=store.list_games(current_device(), include_public=False))


@bp.get("/games")
def games_list() -> Response:
    local = access.is_local()
    games = store_of().list_games(current_device(), everything=local)
    if local:
        for entry in games:
            if entry["role"] in ("none", "viewer"):
                entry["role"] = "owner"
    return ok(games=games)


class Creations:
    """Games started (or imported) per network address in the last hour, and the actions imported: a request
    without a cookie is a new device each time, so the device's own count (``GAMES_PER_HOUR``, from the database)
    alone never stops a script; and an import of a long log costs the server a second or so to fold. Kept in memory:
    a restart forgets it."""

    WINDOW_S = 3600.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: dict[str, deque[tuple[float, int]]] = {}

    def take(self, address: str, actions: int, games_limit: int, actions_limit: int) -> None:
        """Count one game of ``actions`` imported actions for ``address``, or refuse it (429) and count nothing."""
        now = time.monotonic()
        with self._lock:
            if len(self._made) > 1000:  # addresses gone quiet for an hour are forgotten
                for key in [k for k, q in self._made.items() if not q or now - q[-1][0] > self.WINDOW_S]:
                    del self._made[key]
            made = self._made.setdefault(address, deque())
            while made and now - made[0][0] > self.WINDOW_S:
                made.popleft()
            if len(made) >= games_limit:
                fail(
                    429,
                    "too_many",
                    Message(
                        "This network address has started {limit} games in the last hour; continue one of them or "
                        "wait.",
                        limit=games_limit,
                    ),
                )
            if actions and sum(n for _, n in made) + actions > actions_limit:
                fail(
                    429,
                    "too_many",
                    Message(
                        "This network address has imported {limit} actions in the last hour; continue one of the "
                        "games or wait.",
                        limit=actions_limit,
                    ),
                )
            made.append((now, actions))

    def give_back(self, address: str, actions: int) -> None:
        """A game counted by ``take`` that was not made after all (a bad log)."""
        with self._lock:
            made = self._made.get(address)
            if made:
                for i in range(len(made) - 1, -1, -1):
                    if made[i][1] == actions:
                        del made[i]
                        break


def check_game_rate(store: Store, actions: int = 0) -> None:
    """A device, or a network address, that starts games by the dozen is a runaway script: refused before anything
    is stored (and before an imported log is folded: ``actions`` is what it claims to hold). Counts the game for the
    address; ``give_back_game`` where it is not made after all."""
    limit = int(current_app.config["GAMES_PER_HOUR"])
    if store.games_started_since(current_device(), time.time() - 3600) >= limit:
        fail(
            429,
            "too_many",
            Message(
                "This device has started {limit} games in the last hour; continue one of them or wait.", limit=limit
            ),
        )
    creations(current_app).take(
        str(request.remote_addr),
        actions,
        int(current_app.config["GAMES_PER_HOUR_ADDRESS"]),
        int(current_app.config["IMPORT_ACTIONS_PER_HOUR"]),
    )


def give_back_game(actions: int) -> None:
    creations(current_app).give_back(str(request.remote_addr), actions)


def creations(app: Flask) -> Creations:
    made: Creations = app.extensions.setdefault("becher.creations", Creations())
    return made


@bp.post("/games")
def games_create() -> Response:
    data = body()
    game = data.get("game")
    players = data.get("players")
    settings = data.get("settings")
    if settings is None:
        settings = {}
    if not isinstance(game, str):
        fail(400, "malformed", "Name the game to play in the field 'game' (for example \"bone\").")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        fail(400, "malformed", "List the players' names in the field 'players'.")
    if not isinstance(settings, dict):
        fail(400, "malformed", "The field 'settings' must be an object of setting names and values.")
    public = flag(data, "public")
    bound_seats = flag(data, "bound_seats", True)
    check_names(players)
    set_id = dice_set_id(data)
    try:
        log = GameLog.new(game, players, settings)
    except BecherError as exc:
        fail(400, "malformed", message_of(exc))
    store = store_of()
    before = game_before(store, data.get("after"))
    members, seats = followers(store, before, log.setup.players) if before is not None else ([], {})
    check_game_rate(store)  # before the saved set is looked at or unpacked: a refused request costs nothing
    try:  # (an unbound game keeps no seats: each phone's own choice, remembered by the phone, says who it is)
        known = dice_set_of(set_id)
        view = store.create(log, current_device(), public, members, bound_seats, seats if bound_seats else {}, known)
    except BaseException:
        give_back_game(0)
        raise
    if before is not None:
        old_view = store.link_next(before.id, view["id"])
        if old_view is not None:
            publish_game(old_view)
    row = store.row(view["id"])
    return ok(201, game=encoded(view), you=access.you(store, row), join=join_info(row))


def game_before(store: Store, after: Any) -> GameRow | None:
    """The over game that a new game is started after (``after``: its id, as the table's "New game" sends it), where
    this device owns it and nothing follows it yet; None otherwise: the new game is then an ordinary one, since a
    stale or foreign ``after`` must not stop anyone from starting a game."""
    if after is None:
        return None
    if not isinstance(after, str):
        fail(400, "malformed", "The field 'after' must be the id of the game this one follows.")
    try:
        row = store.row(after)
    except NotFound:
        return None
    if row.owner != current_device() or not (row.over or row.finished is not None):
        return None
    if row.rematch is not None or row.next_game is not None:
        return None
    return row


def followers(
    store: Store, before: GameRow, players: Sequence[str]
) -> tuple[list[tuple[str, str, str]], dict[str, int]]:
    """The devices of the game before that come along to the new game (as they were: players or viewers), and the
    seats of those whose player plays again under the same name (a bound phone's seat, or the name a phone chose):
    a phone keeps its player where the names match and is asked again where they do not."""
    old_players = [str(p) for p in before.setup.get("players") or []]
    new_seat: dict[str, int] = {}
    for i, name in enumerate(players):
        new_seat.setdefault(name.strip().casefold(), i)
    members: list[tuple[str, str, str]] = []
    seats: dict[str, int] = {}
    for m in store.members(before.id):
        if m["role"] == "owner":
            continue
        old_seat = m["seat"]
        name = old_players[old_seat] if isinstance(old_seat, int) and 0 <= old_seat < len(old_players) else m["name"]
        seat = new_seat.get(str(name).strip().casefold()) if name else None
        members.append((m["device"], m["role"], players[seat] if seat is not None else ""))
        if seat is not None and seat not in seats.values():
            seats[m["device"]] = seat
    return members, seats


@bp.post("/games/import")
def games_import() -> Response:
    if request.mimetype.startswith("multipart/"):
        upload = request.files.get("log")
        if upload is None:
            fail(400, "malformed", "Send the log file in the form field 'log'.")
        raw = upload.read()
    else:  # the file as the body, whatever type the client named (curl sends form-urlencoded by default)
        raw = raw_body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        fail(400, "malformed", "The log is not UTF-8 text; send the .jsonl file Becher exported.")
    if not text.strip():
        fail(400, "malformed", "The log is empty; send the .jsonl file Becher exported.")
    store = store_of()
    claimed = max(0, sum(1 for line in text.splitlines() if line.strip()) - 1)  # counted before the costly fold
    check_game_rate(store, claimed)
    try:
        view = import_log(store, text)
    except BaseException:
        give_back_game(claimed)
        raise
    row = store.row(view["id"])
    return ok(201, game=encoded(view), you=access.you(store, row), join=join_info(row))


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a log is folded: a fold of 20,000 actions keeps every object it makes
    (the game's states), so each collection would only walk the growing heap again (a fifth of the fold's time).
    Reference counting still frees what a fold drops; the collector runs again right after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def import_log(store: Store, text: str) -> JSON:
    """Fold the log once (the store keeps it folded) and store it as a new game of this device."""
    try:
        with gc_paused():
            log = GameLog.from_jsonl(text)
    except BecherError as exc:
        fail(400, "malformed", message_of(exc))
    except RecursionError:
        fail(400, "malformed", "The log holds JSON nested too deeply; send the .jsonl file Becher exported.")
    check_names(log.setup.players)
    check_json(log.setup.to_json(), "The log")
    if SURROGATE_ESCAPE.search(text):  # only an escape (\ud800) makes a lone surrogate; actions are flat records
        check_json([a.to_json() for a in log.actions], "The log")
    return store.create(log, current_device(), bound_seats=True)


@bp.get("/games/<game_id>")
def games_get(game_id: str) -> Response:
    store = store_of()
    row = game_row(game_id)
    access.require_read(store, row)
    extra: JSON = {}
    if request.args.get("log") in ("1", "true"):
        extra["log"] = store.log_rows(game_id)
    if request.args.get("full") in ("1", "true"):  # every settled round, not only the last SHOWN_ROUNDS
        return ok(game=store.full_game(game_id), you=access.you(store, row), **extra)
    return ok(game=encoded(store.game(game_id)), you=access.you(store, row), **extra)


@bp.get("/games/<game_id>/advice")
def games_advice(game_id: str) -> Response:
    """The hold advisor for the player to move (companion.advice); ``?beat=`` names a hand to beat where none is."""
    from companion.advice import advice_view

    store = store_of()
    row = game_row(game_id)
    access.require_read(store, row)
    if row.status == "finished":
        fail(409, "illegal", "The game is finished; there is nothing to advise.")
    raw = request.args.get("beat")
    beat = [t for t in raw.replace(" ", ",").split(",") if t] if raw is not None else None
    advice = advice_view(store.folded(game_id), beat)
    for part in [advice["beat"] or {}, *advice.get("rows", [])]:
        if "label_en" in part:
            part["said"] = say(Message(part["label_en"]))
    return ok(advice=advice)


@bp.get("/games/<game_id>/log")
def games_log(game_id: str) -> Response:
    store = store_of()
    access.require_read(store, game_row(game_id))
    return ok(log=store.log_rows(game_id))


@bp.post("/games/<game_id>/actions")
def games_play(game_id: str) -> Response:
    store = store_of()
    row = game_row(game_id)
    access.require_write(store, row)
    data = body()
    seen = whole(data, "seen")
    action = data.get("action")
    if not isinstance(action, dict):
        fail(400, "malformed", "Send the action as a JSON object in the field 'action'.")
    access.require_seat(store, row, [(str(action.get("type")), action.get("player"))])
    photo = data.get("photo")
    if photo is not None and not isinstance(photo, str):
        fail(400, "malformed", "The field 'photo' must be the id of an uploaded photo.")
    taught = taught_lessons(store, game_id, action, photo, data.get("photo_dice"), data.get("not_dice"))
    view, n = store.play(game_id, current_device(), seen, action, photo, optional_revision(data), taught)
    publish_game(view)
    if taught:
        warm_memory(game_id)
    return ok(201, game=encoded(view), n=n)


def warm_memory(game_id: str) -> None:
    """Build the game's memory with what it just learned, on a reader worker, so that the next photo is read at once
    (building and weighing 480 dice takes a few tens of ms)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    store = store_of()
    readers: photos.Readers = current_app.extensions["becher.readers"]
    with contextlib.suppress(photos.ReadersBusy):
        readers.run(lambda: game_memory(app, store, game_id))


def dice_reader() -> Any:
    """The process's dice reader where it can learn (its classifier gives embeddings), else None: a server without
    the reader's models still keeps the score."""
    try:
        from vision.reader import get_reader

        reader = get_reader()
    except Exception:
        return None
    return reader if reader.classifier.embedding_parts else None


def taught_lessons(
    store: Store, game_id: str, action: JSON, photo_id: str | None, photo_dice: Any, not_dice: Any
) -> list[lessons.Lesson]:
    """What a throw sent with its photo teaches the game's memory of its dice (web/lessons.py): each die of the
    photo with the value sent for it (``photo_dice`` says which, else the likeliest), the dice said to be none
    (``not_dice``). A bad ``photo_dice`` or ``not_dice`` is refused (400) before anything is kept."""
    if photo_id is None:
        if photo_dice is not None or not_dice is not None:
            fail(400, "malformed", "The fields 'photo_dice' and 'not_dice' go with a 'photo'.")
        return []
    values = action.get("dice")
    if not isinstance(values, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in values
    ):
        if photo_dice is not None:
            fail(400, "malformed", "The field 'photo_dice' goes with an action that sends its dice.")
        values = []
    try:
        photo = store.photo(photo_id)
    except NotFound:
        return []  # the store refuses the action itself
    if photo.game_id != game_id or photo.reading is None:
        return []
    try:
        taught = lessons.what_it_teaches(photo.reading, values, photo_dice, not_dice)
    except lessons.LessonError as exc:
        fail(400, "malformed", exc.message)
    reader = dice_reader()
    if reader is None or not taught:
        return []
    try:
        return lessons.lessons_of(reader, store.photo_data(photo_id), str(photo.reading.get("kind", "pip")), taught)
    except Exception:  # the throw counts whatever the reader makes of its photo
        current_app.logger.exception("could not learn the dice of photo %s", photo_id)
        return []


def game_memory(app: Flask, store: Store, game_id: str) -> Any:
    """The game's memory of its dice for the reader (None where it knows nothing or cannot learn)."""
    reader = dice_reader()
    if reader is None:
        return None
    memories: lessons.Memories = app.extensions["becher.memories"]
    try:
        return memories.get(store.conn(), game_id, store.row(game_id).revision, reader)
    except NotFound:
        return None


@bp.post("/games/<game_id>/dice-shown")
def dice_shown(game_id: str) -> Response:
    """Show your dice: a photo of the game's dice, their values tapped in as for a throw, teaches the reader without
    being a throw (before the first throw, dice it reads badly: an unusual printing, an emblem for the six)."""
    store = store_of()
    access.require_write(store, game_row(game_id))
    data = body()
    photo_id = data.get("photo")
    values = data.get("dice")
    if not isinstance(photo_id, str):
        fail(400, "malformed", "Send the id of the photo of your dice in the field 'photo'.")
    if (
        not isinstance(values, list)
        or not values
        or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in values)
    ):
        fail(400, "malformed", "Send the dice' values (1-6) in the field 'dice'.")
    if data.get("photo_dice") is None:
        fail(400, "malformed", "Say which die of the photo each value is in the field 'photo_dice'.")
    try:
        photo = store.photo(photo_id)
    except NotFound:
        photo = None
    if photo is None or photo.game_id != game_id or photo.reading is None:
        fail(400, "malformed", Message("There is no read photo {photo_id} in this game.", photo_id=shown(photo_id)))
    try:
        taught = lessons.what_it_teaches(photo.reading, values, data["photo_dice"], data.get("not_dice"))
    except lessons.LessonError as exc:
        fail(400, "malformed", exc.message)
    if not taught:  # [null, null]: nothing to learn, so nothing changes (no new revision for every device)
        fail(400, "malformed", "The field 'photo_dice' names no die of the photo, so there is nothing to learn.")
    reader = dice_reader()
    if reader is None:
        fail(503, "busy", "The dice reader is not available on this server; the dice cannot be learned.")
    taught_lessons_ = lessons.lessons_of(
        reader, store.photo_data(photo_id), str(photo.reading.get("kind", "pip")), taught
    )
    view = store.teach_shown(game_id, taught_lessons_)
    publish_game(view)
    warm_memory(game_id)
    return ok(201, game=encoded(view))


@bp.get("/dice-sets")
def dice_sets_list() -> Response:
    """The saved sets this device may start a game with (web/owners.py), each with whether it may change it."""
    conn = store_of().conn()
    return ok(sets=lessons.list_sets(conn, owners.usable_sets(conn, owners.asker())))


def set_error(exc: lessons.LessonError) -> NoReturn:
    fail(409 if exc.conflict else 400, "malformed", exc.message)


@bp.post("/games/<game_id>/dice-set")
def dice_set_save(game_id: str) -> Response:
    """The dice this game's reader has learned, saved under a name to start another game with. A name this device
    has saved already is refused (409 ``exists``) unless ``replace`` is true: then that set, this device's own, is
    replaced; another device's set of the same name is never touched (names are unique per owner)."""
    store = store_of()
    access.require_write(store, game_row(game_id))
    data = body(example='{"name": "the red casino dice"}')
    name = data.get("name")
    if not isinstance(name, str):
        fail(400, "malformed", "Name the dice in the field 'name' (for example \"the red casino dice\").")
    replace = flag(data, "replace")
    check_set_name(name)
    device, address = current_device(), str(request.remote_addr)
    try:
        name = lessons.set_name(name)
        with store._write() as conn:
            existing = lessons.set_named(conn, device, name)
            if existing is not None and not replace:
                fail(
                    409,
                    "exists",
                    Message(
                        "Dice called {name} are saved already; replace them, or choose another name.",
                        name=repr(lessons.set_name_of(conn, existing)),
                    ),
                )
            packed = lessons.pack_game(conn, game_id)
            owners.check_room(conn, device, address, len(packed.data), existing)
            saved = lessons.keep_set(conn, packed, name, device, address, existing)
    except lessons.LessonError as exc:
        set_error(exc)
    return ok(200 if existing is not None else 201, set=saved)


@bp.post("/games/<game_id>/dice-set/update")
def dice_set_update(game_id: str) -> Response:
    """Saved dice that keep learning: the set this game started from takes what the game learned (the set's own
    lessons and tonight's, the game's memory as it is now), once the game has ended; by the set's owner only."""
    store = store_of()
    row = game_row(game_id)
    access.require_read(store, row)
    body()  # nothing to say, but a body that is sent must be JSON
    conn = store.conn()
    memory_now = lessons.learned(conn, game_id)
    set_id = memory_now["set_id"]
    if set_id is None:
        fail(409, "illegal", "This game did not start from saved dice; save its dice under a name instead.")
    who = owners.asker()
    owners.set_to_change(conn, who, set_id)
    if row.status == "playing":
        fail(409, "illegal", "This game is still being played; update the saved dice when it has ended.")
    if memory_now["set_updated"]:
        fail(409, "illegal", "The saved dice have learned this game's throws already.")

    def keep(wconn: sqlite3.Connection, _row: GameRow) -> JSON:
        """Inside the write: asked twice at once (two tablets' taps), the second finds it done and changes nothing."""
        if lessons.learned(wconn, game_id)["set_updated"]:
            fail(409, "illegal", "The saved dice have learned this game's throws already.")
        try:
            name = lessons.set_name_of(wconn, set_id)
        except LookupError:
            fail(404, "not_found", Message("There is no saved set of dice {id}.", id=set_id))
        packed = lessons.pack_game(wconn, game_id)
        owner = wconn.execute("SELECT owner, address FROM dice_sets WHERE id = ?", (set_id,)).fetchone()
        owners.check_room(wconn, str(owner[0]), str(owner[1]), len(packed.data), set_id)
        return lessons.keep_set(wconn, packed, name, str(owner[0]), str(owner[1]), set_id)

    try:
        saved, view = store.learn_into_set(game_id, keep)
    except lessons.LessonError as exc:
        set_error(exc)
    publish_game(view)
    return ok(set=saved, game=encoded(view))


@bp.delete("/dice-sets/<whole:set_id>")
def dice_set_delete(set_id: int) -> Response:
    store = store_of()
    owners.set_to_change(store.conn(), owners.asker(), set_id)
    try:
        with store._write() as conn:
            lessons.delete_set(conn, set_id)
    except LookupError:
        fail(404, "not_found", Message("There is no saved set of dice {id}.", id=set_id))
    return ok(deleted=set_id)


def dice_set_id(data: JSON) -> int | None:
    """The saved dice a new game asks to start knowing (``dice_set``: a set's id), None where none is asked; its
    range is checked here, the set itself only after the rate limits (``dice_set_of``)."""
    if data.get("dice_set") is None:
        return None
    if isinstance(data["dice_set"], bool) or not isinstance(data["dice_set"], int):
        fail(400, "malformed", "The field 'dice_set' must be the id of a saved set of dice.")
    return whole(data, "dice_set")


def dice_set_of(set_id: int | None) -> lessons.Known | None:
    """The saved set's lessons, for a device that may use it (web/owners.py; 404 for any other), unpacked once per
    version of the set (``lessons.Unpacked``); 409 for a damaged one."""
    if set_id is None:
        return None
    conn = store_of().conn()
    owners.set_to_use(conn, owners.asker(), set_id)
    unpacked: lessons.Unpacked = current_app.extensions["becher.sets"]
    try:
        return unpacked.get(conn, set_id)
    except LookupError:
        fail(404, "not_found", Message("There is no saved set of dice {id}.", id=set_id))
    except lessons.LessonError as exc:  # damaged (web/lessons.py ``_unpack``): no game is made from it
        current_app.logger.warning("saved dice set %s is damaged: %s", set_id, exc.__cause__)
        set_error(exc)


@bp.post("/games/<game_id>/undo")
def games_undo(game_id: str) -> Response:
    store = store_of()
    row = game_row(game_id)
    access.require_write(store, row)
    data = body()
    seen = whole(data, "seen")
    count = whole(data, "count", 1, minimum=1)
    access.require_seat(store, row, [("undo", p) for p in store.last_players(game_id, count)])
    view, undone = store.undo(game_id, seen, count, optional_revision(data))
    publish_game(view)
    return ok(game=encoded(view), undone=undone)


@bp.post("/games/<game_id>/finish")
def games_finish(game_id: str) -> Response:
    store = store_of()
    access.require_owner(store, game_row(game_id))
    before = store.row(game_id).revision
    view = store.finish(game_id)
    if view["revision"] != before:
        publish_game(view)
    return ok(game=encoded(view))


@bp.delete("/games/<game_id>")
def games_delete(game_id: str) -> Response:
    store = store_of()
    access.require_owner(store, game_row(game_id))
    store.delete(game_id)
    hub_of().end_game(game_id)
    return ok(deleted=game_id)


@bp.post("/games/<game_id>/rematch")
def games_rematch(game_id: str) -> Response:
    """The same players and settings again. One rematch per game: a second press (on any device) answers the first
    one's game, and the old game's watchers are told (its ``rematch`` field) so every device follows. The owner of
    the old game owns the rematch, whichever device pressed."""
    store = store_of()
    row = game_row(game_id)
    access.require_write(store, row)
    if row.rematch is None or not store.exists(row.rematch):
        rules = rules_for(row.game)
        log = GameLog(rules, rules.make_setup(row.setup["players"], row.setup["settings"]))
        old_members = store.members(game_id)
        members = [(m["device"], "player", m["name"]) for m in old_members]
        seats = {m["device"]: m["seat"] for m in old_members if m["seat"] is not None}
        check_game_rate(store)  # before the old game's lessons are read
        try:
            known = lessons.known_of(store.conn(), game_id)  # the same dice on the same table: the reader knows them
            made = store.create(log, row.owner, row.public, members, row.bound_seats, seats, known)
        except BaseException:
            give_back_game(0)
            raise
        rematch_id, old_view = store.link_rematch(game_id, made["id"])
        if old_view is not None:
            publish_game(old_view)
    else:
        rematch_id = row.rematch
    new_row = store.row(rematch_id)
    return ok(201, game=encoded(store.game(rematch_id)), you=access.you(store, new_row), join=join_info(new_row))


@bp.get("/games/<game_id>/export")
def games_export(game_id: str) -> Response:
    store = store_of()
    access.require_read(store, game_row(game_id))
    row, text = store.export(game_id)
    return Response(
        text,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="becher-{row.game}-{row.id}.jsonl"'},
    )


# ---------------------------------------------------------------------------------------------- access


def access_answer(store: Store, game_id: str) -> Response:
    row = store.row(game_id)
    return ok(join=join_info(row), public=row.public, members=store.members(game_id))


@bp.get("/games/<game_id>/access")
def access_get(game_id: str) -> Response:
    store = store_of()
    access.require_write(store, game_row(game_id))
    return access_answer(store, game_id)


@bp.post("/games/<game_id>/access")
def access_set(game_id: str) -> Response:
    store = store_of()
    access.require_owner(store, game_row(game_id))
    data = body()
    if not {"public", "renew_code", "bound_seats"} & set(data):
        fail(400, "malformed", "Send 'public' or 'bound_seats' (true or false), and/or 'renew_code': true.")
    public = flag(data, "public") if "public" in data else None
    bound = flag(data, "bound_seats") if "bound_seats" in data else None
    renew = flag(data, "renew_code")  # all checked before any is applied
    if public is not None:
        before = store.row(game_id).revision
        view = store.set_public(game_id, public)
        if view["revision"] != before:
            publish_game(view)
    if bound is not None:
        before = store.row(game_id).revision
        view = store.set_bound_seats(game_id, bound)
        if view["revision"] != before:
            publish_game(view)
    if renew:
        store.renew_code(game_id)
    return access_answer(store, game_id)


@bp.post("/games/<game_id>/seat")
def seat_set(game_id: str) -> Response:
    """This phone's seat (``{"seat": 1}``, or null for none); the owner may also set another member's (``device``)."""
    store = store_of()
    row = game_row(game_id)
    access.require_write(store, row)
    data = body(example='{"seat": 1}')
    if "seat" not in data:  # {} would free the seat: a body must say which seat (null for none)
        fail(400, "malformed", "Send the field 'seat': a seat of the game, or null for none.")
    device = data.get("device", current_device())
    if not isinstance(device, str):
        fail(400, "malformed", "The field 'device' must be a device id from the game's members.")
    if device != current_device():
        access.require_owner(store, row)
    seat = data.get("seat")
    if seat is not None:
        seat = whole(data, "seat")
    store.set_seat(game_id, device, seat)
    publish_members(game_id)
    return ok(you=access.you(store, row), members=store.members(game_id))


@bp.delete("/games/<game_id>/members/<device>")
def access_remove(game_id: str, device: str) -> Response:
    store = store_of()
    row = game_row(game_id)
    access.require_owner(store, row)
    if device == row.owner:
        fail(400, "malformed", "The owner cannot be removed from their own game; delete the game instead.")
    if not store.remove_member(game_id, device):
        fail(404, "not_found", Message("Device {device} has not joined this game.", device=shown(device)))
    publish_members(game_id)
    return access_answer(store, game_id)


@bp.get("/games/<game_id>/qr.svg")
def access_qr(game_id: str) -> Response:
    store = store_of()
    row = game_row(game_id)
    access.require_write(store, row)
    out = io.BytesIO()  # a standalone file with xmlns: browsers show it as an <img>, unlike svg_inline()
    segno.make(access.join_url(row.code), error="m").save(out, kind="svg", scale=8, border=2, light="#fff")
    return Response(out.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


@bp.post("/join")
def join() -> Response:
    data = body()
    code = data.get("code")
    name = data.get("name", "")
    if not isinstance(code, str) or not code.strip():
        fail(400, "malformed", "Enter the game's code shown on the table in the field 'code'.")
    if not isinstance(name, str) or len(name) > 60:
        fail(400, "malformed", "The field 'name' must be text of at most 60 characters.")
    if any(unicodedata.category(ch) == "Cc" for ch in name):
        fail(400, "malformed", "The field 'name' may not hold control characters or line breaks.")
    if hidden_characters(name):
        fail(400, "malformed", "The field 'name' may not hold invisible or text-direction characters; type it again.")
    throttle: access.JoinThrottle = current_app.extensions["becher.join_throttle"]
    throttle.check()
    store = store_of()
    row = store.by_code(code)
    if row is None:
        throttle.failed()
        fail(403, "forbidden", "No running game has this code; check the code shown on the table and try again.")
    store.join(row.id, current_device(), name.strip())
    publish_members(row.id)
    return ok(game=encoded(store.game(row.id)), you=access.you(store, row))


# ---------------------------------------------------------------------------------------------- photos


def photo_payload(photo: Any) -> JSON:
    # kept in English, as devices of other languages see the same photo; said in the asking device's language
    error = photo.reading_error
    return {"photo": photo.to_json(), "reading": photo.reading, "reading_error": say(error) if error else error}


@bp.post("/games/<game_id>/photos")
def upload_photo(game_id: str) -> Response:
    store = store_of()
    row = game_row(game_id)
    access.require_write(store, row)
    if row.finished is not None:
        fail(409, "finished", "This game has been finished and takes no more photos; start a new game.")
    kind = request.args.get("kind") or str(row.setup["settings"].get("dice", "auto"))
    if kind not in ("auto", "pip", "poker"):
        fail(400, "malformed", "The parameter 'kind' must be auto, pip or poker.")
    count, on_table = photo_count(store.game(game_id)["state"])
    upload = request.files.get("photo")
    if upload is not None:
        data = upload.read()
    elif request.mimetype.startswith("image/") or request.mimetype == "application/octet-stream":
        data = raw_body()
    elif request.mimetype.startswith("multipart/"):
        fail(400, "malformed", "Send the image in the form field 'photo'.")
    else:
        fail(415, "not_image", "Send a photo (a JPEG or PNG image), not other data.")
    if len(data) > PHOTO_LIMIT:
        fail(413, "too_large", "This photo is larger than 20 MB; take it at a lower resolution.")
    try:
        prepared = photos.prepare(data, int(current_app.config["PHOTO_MAX_SIDE"]), decode_slots(current_app))
    except photos.NotAnImage as exc:
        fail(415, "not_image", message_of(exc))
    except photos.TooManyPixels as exc:
        fail(413, "too_large", message_of(exc))
    except photos.DecodeBusy:
        fail(503, "busy", "The server is busy with other large photos; send this one again in a moment.")
    photo = store.add_photo(game_id, current_device(), prepared.jpeg, prepared.width, prepared.height)
    readers: photos.Readers = current_app.extensions["becher.readers"]
    hub = hub_of()
    device = current_device()
    logger = current_app.logger
    app = current_app._get_current_object()  # type: ignore[attr-defined]

    def job() -> tuple[JSON, bool]:
        """Runs on a reader worker: read, store the outcome, tell the watchers; the request may have stopped waiting."""
        reading: JSON | None = None
        error: str | None = None
        try:
            source = data if prepared.for_reader is None else prepared.for_reader
            learned = game_memory(app, store, game_id)
            read = photos.propose(photos.read_image(source, kind, learned, count), count, on_table)
            reading = photos.scale_reading(read, prepared.width, prepared.height)
        except ImportError:
            error = photos.READER_MISSING
        except FileNotFoundError:
            error = photos.MODELS_MISSING
        except photos.NotAnImage as exc:
            store.delete_photo(photo.id)
            return {"error": message_of(exc)}, True
        except Exception:  # a reader bug must not lose the photo; the person enters the dice instead
            logger.exception("dice reader failed on photo %s", photo.id)
            error = N_("The dice reader failed on this photo; enter the dice by hand or take another photo.")
        finally:
            memory.trim()  # the photo's buffers are freed: hand what malloc keeps back (web/memory.py)
        store.set_reading(photo.id, reading, error)
        payload = photo_payload(store.photo(photo.id))
        hub.publish(game_id, "photo", {**payload, "device": device})
        return payload, False

    try:
        future = readers.run(job)
    except photos.ReadersBusy:
        store.set_reading(photo.id, None, photos.READER_BUSY)
        return ok(201, **photo_payload(store.photo(photo.id)))
    try:
        payload, refused = future.result(timeout=float(current_app.config["READ_TIMEOUT"]))
    except FutureTimeout:
        message = N_("Reading the dice takes long; enter them by hand or wait, the reading will appear when done.")
        return ok(201, photo=photo.to_json(), reading=None, reading_error=say(message))
    if refused:
        fail(415, "not_image", payload["error"])
    if payload.get("reading_error"):  # the worker said it in English: say it in this device's language
        payload = {**payload, "reading_error": say(payload["reading_error"])}
    return ok(201, **payload)


MAX_COUNT = 30  # dice in one throw the reader is asked to propose; no game throws more


def photo_count(state: JSON) -> tuple[int | None, int | None]:
    """The dice a photo for this game's next throw shows (vision/count.py): ``?count=`` (the dice thrown, sent by the
    device, which knows what is kept) and ``?on_table=`` (all the dice in play), each by default what the game knows
    (``photos.expected_count``)."""
    count, on_table = photos.expected_count(state)
    asked: dict[str, int] = {}
    for name in ("count", "on_table"):
        raw = request.args.get(name)
        if raw is None or raw == "":
            continue
        number = numbers.whole_text(raw, 1, MAX_COUNT)
        if number is None:
            fail(
                400,
                "malformed",
                Message(
                    "The parameter '{name}' must be a number of dice from 1 to {number}.", name=name, number=MAX_COUNT
                ),
            )
        asked[name] = number
    if "count" in asked:
        count = asked["count"]
        on_table = asked.get("on_table", on_table if on_table is not None and on_table > count else None)
    elif "on_table" in asked:
        on_table = asked["on_table"]
    if count is not None and on_table is not None and on_table < count:
        fail(400, "malformed", "The dice thrown ('count') cannot be more than the dice on the table ('on_table').")
    return count, on_table


def record_photo(app: Flask, game_id: str, data: bytes, reading: JSON | None, device: str = "camera") -> JSON:
    """For readers on the host (the camera): store a frame as the game's photo with its reading and tell the watchers,
    exactly as an upload would; returns the ``photo`` event's payload. Raises photos.NotAnImage for a bad frame."""
    store: Store = app.extensions["becher.store"]
    hub: live.Hub = app.extensions["becher.hub"]
    prepared = photos.prepare(data, int(app.config["PHOTO_MAX_SIDE"]), decode_slots(app))
    photo = store.add_photo(game_id, device, prepared.jpeg, prepared.width, prepared.height)
    scaled = None if reading is None else photos.scale_reading(reading, prepared.width, prepared.height)
    store.set_reading(photo.id, scaled, None)
    payload = {**photo_payload(store.photo(photo.id)), "device": device}
    hub.publish(game_id, "photo", payload)
    return payload


def decode_slots(app: Flask) -> photos.DecodeSlots:
    slots: photos.DecodeSlots = app.extensions["becher.decode"]
    return slots


def photo_or_404(photo_id: str) -> Any:
    store = store_of()
    photo = store.photo(photo_id)
    access.require_read(store, store.row(photo.game_id))
    return photo


@bp.get("/photos/<photo_id>")
def photo_image(photo_id: str) -> Response:
    photo = photo_or_404(photo_id)
    return Response(
        store_of().photo_data(photo.id), mimetype="image/jpeg", headers={"Cache-Control": "private, max-age=86400"}
    )


@bp.get("/photos/<photo_id>/reading")
def photo_reading(photo_id: str) -> Response:
    return ok(**photo_payload(photo_or_404(photo_id)))


# ---------------------------------------------------------------------------------------------- live


@bp.get("/games/<game_id>/events")
def games_events(game_id: str) -> Response:
    store = store_of()
    access.require_read(store, game_row(game_id))
    raw = request.headers.get("Last-Event-ID") or request.args.get("last")
    last = numbers.whole_text(raw)  # anything else: the device gets the current game, as a new one would

    hub = hub_of()
    if hub.watchers() >= int(current_app.config["LIVE_MAX_STREAMS"]):
        fail(503, "busy", "This server follows too many live connections now; close other Becher tabs and reload.")
    device = current_device()
    local = access.is_local()

    def current() -> tuple[int, Any]:
        view = store.game(game_id)
        return int(view["revision"]), store.text(view)

    def allowed() -> bool:
        try:
            now = store.row(game_id)
        except NotFound:
            return False
        return access.role_of(store, now, device, local) in access.READ_ROLES

    heartbeat = float(current_app.config["LIVE_HEARTBEAT"])
    sock = request.environ.get("becher.socket")  # set by `becher serve`: a closed connection frees its slot at once
    gone = (lambda: live.client_gone(sock)) if sock is not None else None
    body_iter = live.stream(
        hub, game_id, last, current, heartbeat, device, allowed, address=request.remote_addr, gone=gone
    )
    return Response(
        body_iter,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


# ---------------------------------------------------------------------------------------------- errors


def to_api_error(exc: Exception) -> ApiError | None:
    """Map the store's and rules' refusals to the error shape; None for what is not ours."""
    from web import store as st

    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, Denied):
        return ApiError(exc.status, exc.code, message_of(exc))
    if isinstance(exc, st.NotFound):
        return ApiError(404, "not_found", message_of(exc))
    if isinstance(exc, st.Malformed):
        return ApiError(400, "malformed", message_of(exc))
    if isinstance(exc, st.StoreError):
        return ApiError(409, exc.code, message_of(exc), game=exc.game)
    if isinstance(exc, MalformedInput):
        return ApiError(400, "malformed", message_of(exc))
    if isinstance(exc, IllegalAction):
        return ApiError(409, "illegal", message_of(exc))
    if disk_full(exc):
        return ApiError(
            507,
            "disk_full",
            "The server's disk is full, so nothing more can be saved; free space on the host and try again.",
        )
    return None


DISK_FULL = N_("The server's disk is full, so nothing more can be saved; free space on the host and try again.")


def disk_full(exc: BaseException) -> bool:
    """SQLite's "database or disk is full" (the write was rolled back, nothing half-saved), or the system's ENOSPC."""
    if isinstance(exc, sqlite3.OperationalError):
        return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc)
    return isinstance(exc, OSError) and exc.errno == errno.ENOSPC
