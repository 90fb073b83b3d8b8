"""Who may do what: devices known by a cookie, games owned by their creator, joined by code, cross-site writes refused.

There are no accounts at a dice table. A device gets a random token in an HttpOnly cookie on its first request; its
public id is a hash of that token, so ids shown to other devices cannot be replayed as cookies. Writes need both a
same-origin request (Origin / Sec-Fetch-Site) and, under /api, the custom header ``X-Becher`` that no cross-site
page can send without a CORS preflight (which this server never grants).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections import defaultdict, deque
from urllib.parse import urlsplit

from flask import Flask, current_app, g, redirect, request
from werkzeug.wrappers import Response

from web.say import Message
from web.store import GameRow, Store

COOKIE = "becher_device"
HEADER = "X-Becher"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{32,64}$")
LOOPBACK = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
LOOPBACK_NAMES = frozenset({"127.0.0.1", "::1", "localhost"})

WRITE_ROLES = frozenset({"owner", "player"})
READ_ROLES = frozenset({"owner", "player", "viewer"})

JOIN_ATTEMPTS = 10
JOIN_ATTEMPTS_ADDR = 30
ADDRESS_SHARE = 3  # wrong codes of one device that count towards its address's limit
JOIN_WINDOW_S = 60.0


class Denied(Exception):
    """A request refused for access reasons; ``status`` 403 or 429, ``code`` for the error shape."""

    def __init__(self, message: str | Message, status: int = 403, code: str = "forbidden") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code


def device_of(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()[:16]


def current_device() -> str:
    device: str = g.device
    return device


def is_local() -> bool:
    """The host's own browser (loopback), which may be trusted as owner of every game where configured.

    The address it asked for must be a loopback name too: a foreign page whose own name was re-pointed at
    127.0.0.1 (DNS rebinding) reaches this server from loopback with same-origin requests, but under its name.
    """
    if not current_app.config.get("LOCAL_IS_OWNER") or request.remote_addr not in LOOPBACK:
        return False
    return (urlsplit("//" + request.host).hostname or "").lower() in LOOPBACK_NAMES


def role_in(store: Store, row: GameRow, device: str) -> str:
    return role_of(store, row, device, is_local())


def role_of(store: Store, row: GameRow, device: str, local: bool) -> str:
    """The role outside a request too (live streams ask again before each event)."""
    role = store.role(row.id, device)
    if role is not None:
        return role
    if local:
        return "owner"
    return "viewer" if row.public else "none"


def you(store: Store, row: GameRow) -> dict[str, object]:
    role = role_in(store, row, current_device())
    return {
        "device": current_device(),
        "role": role,
        "can_write": role in WRITE_ROLES and row.finished is None,
        "seat": store.seat(row.id, current_device()),
        "all_seats": role == "owner" or not row.bound_seats,
    }


AGREEMENTS = frozenset({"choose_starter"})  # actions the players agree on: any of them may enter it


def require_seat(store: Store, row: GameRow, kinds_and_players: list[tuple[str, object]]) -> None:
    """Where the game binds phones to seats, a player's phone acts only for the seat it chose (its throws, and undo
    of its own actions); the owner (and the host) act for all. ``kinds_and_players``: the actions' type and seat."""
    if not row.bound_seats or role_in(store, row, current_device()) == "owner":
        return
    seat = store.seat(row.id, current_device())
    if seat is None:
        raise Denied(
            "This game binds each phone to one player: choose whose phone this is first (on the phone page).",
            403,
            "no_seat",
        )
    players = row.setup.get("players") or []
    for kind, player in kinds_and_players:
        if kind in AGREEMENTS or player == seat or not isinstance(player, int) or isinstance(player, bool):
            continue  # (a seat that is not a whole number is the rules' refusal: 400, said by them)
        other = players[player] if isinstance(player, int) and 0 <= player < len(players) else "another player"
        raise Denied(
            Message(
                "This phone plays for {name} only; {other}'s turn is entered on their phone or at the table.",
                name=players[seat] if seat < len(players) else seat,
                other=other,
            ),
            403,
            "not_your_seat",
        )


def require_read(store: Store, row: GameRow) -> str:
    role = role_in(store, row, current_device())
    if role not in READ_ROLES:
        raise Denied("This device has not joined this game; scan the QR code on the table or enter its code.")
    return role


def require_write(store: Store, row: GameRow) -> str:
    role = role_in(store, row, current_device())
    if role not in WRITE_ROLES:
        if role == "viewer":
            raise Denied("This device may only watch this game; join it with the code on the table to play.")
        raise Denied("This device has not joined this game; scan the QR code on the table or enter its code.")
    return role


def require_owner(store: Store, row: GameRow) -> None:
    if role_in(store, row, current_device()) != "owner":
        raise Denied("Only the device that started this game may do this; ask at the table.")


class JoinThrottle:
    """Few wrong codes a minute, so six-letter codes cannot be guessed in bulk, without one guesser locking out
    everyone else on its network address.

    A device (its cookie) may try JOIN_ATTEMPTS wrong codes a minute. Requests without a cookie get a new one each
    time, so those from one address count as one device. And since cookies cost nothing, a network address may
    try JOIN_ATTEMPTS_ADDR a minute, to which each device adds at most ADDRESS_SHARE: a script with a fresh cookie
    per try is stopped there, while one device's own wrong codes lock out only itself, never the right code typed
    on the phone beside it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fails: dict[str, deque[float]] = defaultdict(deque)

    @staticmethod
    def _device_key() -> str:
        address = str(request.remote_addr)
        return f"fresh:{address}" if g.get("new_token") else f"device:{current_device()}"

    @staticmethod
    def _address_key() -> str:
        return f"addr:{request.remote_addr}"

    def _recent(self, key: str, now: float) -> deque[float]:
        fails = self._fails[key]
        while fails and now - fails[0] > JOIN_WINDOW_S:
            fails.popleft()
        return fails

    def check(self) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._fails) > 1000:  # fresh cookies each try leave a key each: forget those gone quiet
                for key in [k for k, f in self._fails.items() if not f or now - f[-1] > JOIN_WINDOW_S]:
                    del self._fails[key]
            if len(self._recent(self._device_key(), now)) >= JOIN_ATTEMPTS:
                raise Denied("Too many wrong codes from this device; wait a minute and try again.", 429, "too_many")
            if len(self._recent(self._address_key(), now)) >= JOIN_ATTEMPTS_ADDR:
                raise Denied(
                    "Too many wrong codes from this network address; wait a minute and try again.", 429, "too_many"
                )

    def failed(self) -> None:
        now = time.monotonic()
        with self._lock:
            mine = self._recent(self._device_key(), now)
            mine.append(now)
            if len(mine) <= ADDRESS_SHARE:
                self._recent(self._address_key(), now).append(now)
            if g.get("new_token"):  # the cookie it was just given: its next tries (if it keeps it) count on from here
                self._recent(f"device:{current_device()}", now).append(now)


def _same_origin() -> bool:
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("Origin")
    if origin is not None:
        if origin == "null":
            return False
        # the scheme too: an https page of this host name is another origin than this plain-http server (a proxy or
        # another server under the same name), as the browser's own same-origin rule says
        parts = urlsplit(origin)
        return parts.scheme.lower() == request.scheme and parts.netloc.lower() == request.host.lower()
    return True


def _identify() -> None:
    token = request.cookies.get(COOKIE, "")
    if not TOKEN_RE.match(token):
        token = secrets.token_urlsafe(32)
        g.new_token = token
    g.device = device_of(token)


def _guard_writes() -> None:
    if request.method == "OPTIONS" and (request.path == "/api" or request.path.startswith("/api/")):
        # no CORS preflight is ever granted, and Flask's automatic empty 200 would look like one
        raise Denied("The API answers no OPTIONS requests (no other site may call it); use GET or POST.", 405, "method")
    if request.method in SAFE_METHODS:
        return
    if not _same_origin():
        raise Denied("Requests from other sites may not change anything here; open Becher's own page to play.")
    if request.path.startswith("/api/") and request.headers.get(HEADER, "").strip() != "1":
        raise Denied(
            Message(
                "Writes to the API need the header '{HEADER}: 1'; use Becher's own pages or add the header.",
                HEADER=HEADER,
            )
        )


def _set_cookie(response: Response) -> Response:
    # No page of Becher may be framed by another site (clicks lured onto "delete game"), and no answer (photos,
    # exported logs) may be sniffed into another type than the one it is sent as.
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if response.mimetype == "text/html":
        response.headers.setdefault("Content-Security-Policy", content_policy(g.get("csp_nonce")))
    if current_app.config.get("HTTPS") and request.is_secure:  # browsers then never try plain http here again
        response.headers.setdefault("Strict-Transport-Security", f"max-age={HSTS_MAX_AGE}")
    token = g.get("new_token")
    if token:
        response.set_cookie(
            COOKIE,
            token,
            max_age=400 * 24 * 3600,
            httponly=True,
            samesite="Lax",
            secure=request.is_secure,
            path="/",
        )
    return response


HSTS_MAX_AGE = 365 * 24 * 3600


def csp_nonce() -> str:
    """The nonce of this page's own inline scripts (templates write ``nonce="{{ csp_nonce() }}"``)."""
    nonce: str | None = g.get("csp_nonce")
    if nonce is None:
        nonce = g.csp_nonce = secrets.token_urlsafe(16)
    return nonce


def content_policy(nonce: str | None) -> str:
    """The pages load everything from this server (the table may have no internet) and keep it that way: scripts
    only from its files and its own inline ones, no plugins, no framing, forms and fetches only to itself. Inline
    style attributes are allowed (the templates use them; styles cannot run code)."""
    scripts = f"'self' 'nonce-{nonce}'" if nonce else "'self'"
    return (
        f"default-src 'self'; script-src {scripts}; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
        "media-src 'self' blob: mediastream:; connect-src 'self'; font-src 'self'; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


def join_landing(game_id: str) -> str:
    pattern: str = current_app.config.get("JOIN_LANDING", "/phone/{id}")
    return pattern.format(id=game_id)


def join_url(code: str) -> str:
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    return f"{str(base).rstrip('/')}/join/{code}"


def _join_by_link(code: str) -> Response:
    """What the QR code opens: join and go to the phone page (never for a request started by another site)."""
    if request.headers.get("Sec-Fetch-Site") in ("cross-site", "same-site"):
        return redirect("/", 303)
    store: Store = current_app.extensions["becher.store"]
    throttle: JoinThrottle = current_app.extensions["becher.join_throttle"]
    try:
        throttle.check()
    except Denied:
        return redirect("/?join_error=1", 303)
    row = store.by_code(code)
    if row is None:
        throttle.failed()
        return redirect("/?join_error=1", 303)
    store.join(row.id, current_device())
    hub = current_app.extensions.get("becher.hub")
    if hub is not None:  # the owner's list of phones on the table page (web.api.publish_members, without the import)
        hub.publish(row.id, "members", {})
    return redirect(join_landing(row.id), 303)


def init_app(app: Flask) -> None:
    app.extensions["becher.join_throttle"] = JoinThrottle()
    app.before_request(_identify)
    app.before_request(_guard_writes)
    app.after_request(_set_cookie)
    app.jinja_env.globals["csp_nonce"] = csp_nonce
    app.add_url_rule("/join/<code>", "join_link", _join_by_link, methods=["GET"])
