"""Games kept in SQLite as action logs: the only place the server keeps state.

A game is its setup plus its action rows; the rules fold them (companion.core.GameLog). Every write runs in one
``BEGIN IMMEDIATE`` transaction that checks the action count the writer saw, verifies the action against the rules,
inserts it and commits before the caller may answer, so an acknowledged action survives a killed process (WAL with
``synchronous=FULL`` survives a power cut too). Folded logs are cached per game and revision so a write costs one
rules step, not a replay.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.core import Folded, GameLog, Setup, rules_for
from companion.errors import IllegalAction, MalformedInput, Message
from web.lessons import Known, Lesson, forget_after, keep_lessons, keep_shown, learned
from web.players import PLAYERS_TABLE  # one schema for a new database and the migration of an old one

JSON = dict[str, Any]

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    owner TEXT NOT NULL,
    code TEXT NOT NULL,
    public INTEGER NOT NULL DEFAULT 0,
    bound_seats INTEGER NOT NULL DEFAULT 0,
    revision INTEGER NOT NULL DEFAULT 0,
    action_count INTEGER NOT NULL DEFAULT 0,
    over INTEGER NOT NULL DEFAULT 0,
    finished REAL,
    rematch TEXT,
    next_game TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS games_code ON games(code);
CREATE TABLE IF NOT EXISTS photos (
    id TEXT PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    device TEXT NOT NULL,
    created REAL NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    data BLOB NOT NULL,
    reading TEXT,
    reading_error TEXT
);
CREATE INDEX IF NOT EXISTS photos_game ON photos(game_id);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    action TEXT NOT NULL,
    photo_id TEXT REFERENCES photos(id) ON DELETE SET NULL,
    device TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, n)
);
CREATE INDEX IF NOT EXISTS actions_photos ON actions(game_id, n) WHERE photo_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS members (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    device TEXT NOT NULL,
    role TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    joined REAL NOT NULL,
    seat INTEGER,
    PRIMARY KEY (game_id, device)
);
CREATE INDEX IF NOT EXISTS members_device ON members(device);
"""
    + PLAYERS_TABLE.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS")
    + """;
CREATE TABLE IF NOT EXISTS game_players (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS game_players_player ON game_players(player_id);
CREATE TABLE IF NOT EXISTS lessons (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    k INTEGER NOT NULL,
    face INTEGER NOT NULL,
    corrected INTEGER NOT NULL,
    side REAL NOT NULL,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    views BLOB NOT NULL,
    patch BLOB,
    PRIMARY KEY (game_id, n, k)
);
CREATE TABLE IF NOT EXISTS dice_sets (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    owner TEXT NOT NULL,
    seen INTEGER NOT NULL,
    data BLOB NOT NULL,
    created REAL NOT NULL,
    address TEXT NOT NULL DEFAULT '',
    version INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS dice_sets_owner ON dice_sets(owner);
CREATE TABLE IF NOT EXISTS game_dice (
    game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    set_name TEXT NOT NULL,
    set_id INTEGER,
    taught INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS digests (
    game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    revision INTEGER NOT NULL,
    digest TEXT NOT NULL
);
"""
)

# Columns added since the first release: an older Becher's database gets them when opened (the values older games
# had in effect: every phone acts for every seat).
ADDED_COLUMNS = {
    "games": {"bound_seats": "INTEGER NOT NULL DEFAULT 0", "rematch": "TEXT", "next_game": "TEXT"},
    "members": {"seat": "INTEGER"},
    "players": {"owner": "TEXT NOT NULL DEFAULT ''"},  # then each entry goes to its device (web/players.py)
    "dice_sets": {"address": "TEXT NOT NULL DEFAULT ''", "version": "INTEGER NOT NULL DEFAULT 0"},
    "game_dice": {"set_id": "INTEGER", "taught": "INTEGER NOT NULL DEFAULT 0"},
    "lessons": {"patch": "BLOB"},  # a die's grey exemplar (issue 59): the lessons kept before have none
}

# Letters and digits that cannot be confused when read off a tablet across the table.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
CACHED_GAMES = 64  # folded logs kept in memory; older games fold again when opened
LONG_HISTORY = 64  # settled rounds from which a view's text is joined from each round's text kept
SHOWN_ROUNDS = 40  # settled rounds a game's answer carries (a block's worth); the rest on request (``full``)
CACHED_ROUNDS = 50_000  # rounds' texts kept (a few hundred bytes each; a 1 MB log has 6,000 rounds)
ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
# SQLite's page cache per connection, in KB. The server has a connection per thread (64 under `becher serve`), each
# filling its own cache with the photos it wrote and read (SQLite's default is 2 MB: up to 128 MB in all as more
# threads take turns); the operating system caches the file anyway.
CONNECTION_CACHE_KB = 256


class StoreError(Exception):
    """A refusal by the store; ``game`` is the current game where the caller should show it."""

    code = "server"

    def __init__(self, message: str | Message, game: JSON | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.game = game


class Unusable(Exception):
    """The database file cannot serve Becher (not SQLite, damaged, another program's, no access): said at start."""


class NotFound(StoreError):
    code = "not_found"


class Stale(StoreError):
    code = "stale"


class Illegal(StoreError):
    code = "illegal"


class Finished(StoreError):
    code = "finished"


class Malformed(StoreError):
    code = "malformed"


class SeatTaken(StoreError):
    code = "seat_taken"


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def shown(key: str) -> str:
    """An id as quoted back in a message: whatever a client sent, never a page of it."""
    return repr(key if len(key) <= 24 else key[:24] + "…")


def new_id(length: int = 8, alphabet: str = ID_ALPHABET) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def normalize_code(code: str) -> str:
    return "".join(ch for ch in code.upper() if ch not in " -\t")


@dataclass(frozen=True)
class GameRow:
    id: str
    game: str
    setup: JSON
    owner: str
    code: str
    public: bool
    bound_seats: bool
    revision: int
    action_count: int
    over: bool
    finished: float | None
    created: float
    updated: float
    rematch: str | None = None  # the game started as this one's rematch: every device at the table follows it
    next_game: str | None = None  # a new game its owner started after it was over: the phones follow it too

    @property
    def status(self) -> str:
        if self.finished is not None:
            return "finished"
        return "over" if self.over else "playing"

    @staticmethod
    def from_sql(row: sqlite3.Row) -> GameRow:
        return GameRow(
            id=row["id"],
            game=row["game"],
            setup=json.loads(row["setup"]),
            owner=row["owner"],
            code=row["code"],
            public=bool(row["public"]),
            bound_seats=bool(row["bound_seats"]),
            revision=row["revision"],
            action_count=row["action_count"],
            over=bool(row["over"]),
            finished=row["finished"],
            created=row["created"],
            updated=row["updated"],
            rematch=row["rematch"],
            next_game=row["next_game"],
        )


@dataclass(frozen=True)
class Photo:
    id: str
    game_id: str
    device: str
    created: float
    width: int
    height: int
    reading: JSON | None
    reading_error: str | None

    def to_json(self) -> JSON:
        return {
            "id": self.id,
            "game": self.game_id,
            "url": f"/api/photos/{self.id}",
            "width": self.width,
            "height": self.height,
            "created": iso(self.created),
        }


def _expected_columns() -> dict[str, set[str]]:
    """Each table's columns as SCHEMA makes them (read from an empty database, so SCHEMA stays the one source)."""
    with contextlib.closing(sqlite3.connect(":memory:")) as mem:
        mem.executescript(SCHEMA)
        tables = [r[0] for r in mem.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: {r[1] for r in mem.execute(f"PRAGMA table_info({t})")} for t in tables}


def _setup_from_json(data: Mapping[str, Any]) -> Setup:
    return Setup(str(data["game"]), tuple(data["players"]), tuple(dict(data["settings"]).items()))


def extra_rounds(rounds: Sequence[Any]) -> int:
    """How many of these settled rounds were extra rounds (played again for equal totals)."""
    return sum(1 for r in rounds if isinstance(r, dict) and r.get("kind") == "extra")


def trimmed(state: JSON, count_extra: Callable[[list[Any]], int] = extra_rounds) -> JSON:
    """A game's summary with at most SHOWN_ROUNDS settled rounds in its view's ``history`` (the newest), and
    ``history_left_out``: how many older rounds were left out (``rounds``) and how many of them were extra rounds
    (``extra``, counted by ``count_extra``), which the words of the outcome count; each standing's points per round
    (``rounds``) are cut the same way. A shorter history is left as it is (and says nothing)."""
    view = state.get("view")
    history = view.get("history") if isinstance(view, dict) else None
    if not isinstance(history, list) or len(history) <= SHOWN_ROUNDS:
        return state
    assert isinstance(view, dict)
    cut = len(history) - SHOWN_ROUNDS
    left_out = {"rounds": cut, "extra": count_extra(history[:cut])}
    standings = [
        {**s, "rounds": s["rounds"][-SHOWN_ROUNDS:]}
        if isinstance(s, dict) and isinstance(s.get("rounds"), list) and len(s["rounds"]) > SHOWN_ROUNDS
        else s
        for s in state.get("standings") or []
    ]
    return {
        **state,
        "standings": standings,
        "view": {**view, "history": history[cut:], "history_left_out": left_out},
    }


ACTION_TEXT = json.JSONEncoder(ensure_ascii=False).encode  # an action row as json.dumps writes it, made faster
LOOSE_PHOTOS = 60  # photos per game that no confirmed throw uses, kept newest first


class Store:
    """One SQLite file; a connection per thread; writes serialized in-process and by SQLite's write lock."""

    def __init__(self, path: str | Path, loose_photos: int = LOOSE_PHOTOS) -> None:
        self.path = str(path)
        self.loose_photos = loose_photos
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not os.path.lexists(self.path):  # made readable by its owner only from the start (SQLite gives the
                with contextlib.suppress(OSError):  # -wal and -shm files the database's own permissions)
                    os.close(os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        self._write_lock = threading.RLock()
        self._cache_lock = threading.Lock()
        self._logs: dict[str, tuple[int, GameLog, Folded]] = {}  # the log, and what it held at that revision
        self._views: dict[str, tuple[int, JSON]] = {}
        self._texts: dict[str, tuple[JSON, str]] = {}  # a view and its JSON text
        self._rounds: dict[int, tuple[Any, str]] = {}  # a settled round's view (by identity) and its JSON text
        self._extra: dict[str, tuple[int, Any, int]] = {}  # rounds left out of an answer, the last, extra ones
        self._token = secrets.token_hex(16)  # stands in for a long history while the rest of a view is encoded
        try:
            self._open()
        except sqlite3.Error as exc:
            self.close()
            raise Unusable(self._why(exc)) from None
        except Unusable:
            self.close()
            raise
        self._private()

    def _private(self) -> None:
        """Games, names and photos are the players' business: the database and its -wal and -shm files are the
        owner's alone (an older Becher or a copied file may have left them readable by every user)."""
        if self.path == ":memory:" or os.name == "nt":
            return
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                if os.stat(self.path + suffix).st_mode & 0o077:
                    os.chmod(self.path + suffix, 0o600)

    def _open(self) -> None:
        """Check the file is Becher's (or new), undamaged, then WAL mode and the tables."""
        conn = self.conn()
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table, columns in _expected_columns().items():
            if table in tables:
                have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
                added = ADDED_COLUMNS.get(table, {})
                if columns - have and columns - have <= set(added):  # an older Becher's: add what it lacks
                    for column in sorted(columns - have):
                        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {added[column]}")
                    have = columns
                missing = sorted(columns - have)
                if missing:
                    raise Unusable(
                        f"{self.path} is a SQLite database of another program (its table {table!r} lacks "
                        f"{', '.join(missing)}); give Becher a file of its own with --db."
                    )
        if tables:
            problems = [" ".join(str(r[0]).split()) for r in conn.execute("PRAGMA quick_check(3)")]
            if problems != ["ok"]:
                raise Unusable(
                    f"The database {self.path} is damaged ({'; '.join(problems)}); restore a backup of it, "
                    "or start with another file with --db."
                )
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal" and self.path != ":memory:":
            raise Unusable(
                f"The database {self.path} cannot use write-ahead logging (journal mode {mode}), which Becher needs "
                "so no game is lost; keep it on a local disk, not a network share."
            )
        conn.executescript(SCHEMA)
        from web.players import link_unlinked, own_players

        own_players(conn)  # players were everyone's before issue 60: each goes to the device whose games it sat in
        with self._write() as wconn:  # games of an older Becher get their players remembered (web/players.py)
            link_unlinked(wconn)

    def _why(self, exc: sqlite3.Error) -> str:
        text = str(exc)
        if "not a database" in text or "malformed" in text:
            return (
                f"{self.path} is not a Becher database (not SQLite, or damaged: {text}); give another file with "
                "--db, or move this one away to start afresh."
            )
        return (
            f"Cannot use the database {self.path} ({text}); check that the path is a file Becher may read and "
            "write, or give another one with --db."
        )

    # ------------------------------------------------------------------ connections and transactions

    def conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=15, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA busy_timeout=15000")
            conn.execute(f"PRAGMA cache_size=-{CONNECTION_CACHE_KB}")
            self._local.conn = conn
            with self._all_lock:
                self._all.append(conn)
        return conn

    def close(self) -> None:
        with self._all_lock:
            for conn in self._all:
                with contextlib.suppress(sqlite3.ProgrammingError):  # closed from another thread already
                    conn.close()
            self._all.clear()
        self._local = threading.local()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; the caller's answer is sent only after this block commits."""
        with self._write_lock:
            conn = self.conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:  # SQLite rolls back by itself on some errors (a full disk among them)
                    conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except BaseException:
                self._logs.clear()
                self._views.clear()
                self._texts.clear()
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot across several SELECTs (WAL readers never wait for the writer)."""
        conn = self.conn()
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    # ------------------------------------------------------------------ reading games

    def _remember(self, game_id: str, revision: int, log: GameLog, view: JSON | None = None) -> None:
        """Cache the folded log (and view) of a game just written; the least recently written games drop out.

        Readers never touch the log itself (a writer extends it in place, before its commit): they take the
        ``Folded`` copy made here, which stays what the game was at ``revision``."""
        folded = log.folded()
        with self._cache_lock:
            self._logs.pop(game_id, None)
            self._logs[game_id] = (revision, log, folded)
            if view is not None:
                self._views.pop(game_id, None)
                self._views[game_id] = (revision, view)
            self._trim()

    def _trim(self) -> None:
        while len(self._logs) > CACHED_GAMES:
            self._logs.pop(next(iter(self._logs)))
        while len(self._views) > CACHED_GAMES:
            self._views.pop(next(iter(self._views)))
        while len(self._texts) > CACHED_GAMES:
            self._texts.pop(next(iter(self._texts)))

    def _row(self, conn: sqlite3.Connection, game_id: str) -> GameRow:
        row = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFound(
                Message(
                    "There is no game {game_id}; it may have been deleted, so pick one from the list.",
                    game_id=shown(game_id),
                )
            )
        return GameRow.from_sql(row)

    def rematch_of(self, game_id: str) -> str | None:
        """The game that ``game_id`` is the rematch of (None for a game started afresh)."""
        row = self.conn().execute("SELECT id FROM games WHERE rematch = ?", (game_id,)).fetchone()
        return None if row is None else str(row["id"])

    def started_after(self, game_id: str) -> str | None:
        """The game after which ``game_id`` was started as its owner's next game (None: started afresh)."""
        row = self.conn().execute("SELECT id FROM games WHERE next_game = ?", (game_id,)).fetchone()
        return None if row is None else str(row["id"])

    def exists(self, game_id: str) -> bool:
        return self.conn().execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None

    def row(self, game_id: str) -> GameRow:
        return self._row(self.conn(), game_id)

    def _load_log(self, conn: sqlite3.Connection, row: GameRow, cached_ok: bool = True) -> GameLog:
        """The folded log; only writers (under the write lock) may take the cached one, since they extend it."""
        cached = self._logs.get(row.id) if cached_ok else None
        if cached is not None and cached[0] == row.revision:
            return cached[1]
        return self._fold(conn, row)

    def _folded(self, conn: sqlite3.Connection, row: GameRow) -> Folded:
        """The game as of ``row.revision`` for a reader: the cached copy, else folded once from the database and
        cached (unless a writer has cached a newer revision meanwhile), so no read folds a long game twice."""
        cached = self._logs.get(row.id)
        if cached is not None and cached[0] == row.revision:
            return cached[2]
        log = self._fold(conn, row)
        folded = log.folded()
        with self._cache_lock:
            current = self._logs.get(row.id)
            if current is None or current[0] < row.revision:
                self._logs.pop(row.id, None)
                self._logs[row.id] = (row.revision, log, folded)
                self._trim()
        return folded

    def _fold(self, conn: sqlite3.Connection, row: GameRow) -> GameLog:
        rules = rules_for(row.game)
        actions = [
            json.loads(r["action"])
            for r in conn.execute("SELECT action FROM actions WHERE game_id = ? ORDER BY n", (row.id,))
        ]
        log = GameLog(rules, _setup_from_json(row.setup), actions)
        return log

    def _photo_map(self, conn: sqlite3.Connection, game_id: str) -> dict[str, str]:
        rows = conn.execute(
            "SELECT n, photo_id FROM actions WHERE game_id = ? AND photo_id IS NOT NULL ORDER BY n", (game_id,)
        )
        return {str(r["n"]): r["photo_id"] for r in rows}

    def _game_json(self, conn: sqlite3.Connection, row: GameRow, log: GameLog | Folded, full: bool = False) -> JSON:
        """The game as the API shows it: what a page shows, so a tie replayed 2,000 times answers its last
        ``SHOWN_ROUNDS`` rounds, not megabytes (``trimmed``); ``full`` for every settled round."""
        rules = log.rules
        state = log.summary()
        return {
            "id": row.id,
            "game": row.game,
            "name": rules.name_en,
            "created": iso(row.created),
            "updated": iso(row.updated),
            "status": row.status,
            "finished": iso(row.finished),
            "revision": row.revision,
            "public": row.public,
            "bound_seats": row.bound_seats,
            "rematch": row.rematch,
            "next_game": row.next_game,
            "photos": self._photo_map(conn, row.id),
            "memory": learned(conn, row.id),
            "state": state if full else trimmed(state, self._extra_counter(row.id)),
        }

    def game(self, game_id: str) -> JSON:
        """The game as the API shows it; cached per revision, so nine devices reading cost one fold."""
        with self._read() as conn:
            row = self._row(conn, game_id)
            cached = self._views.get(game_id)
            if cached is not None and cached[0] == row.revision:
                return cached[1]
            view = self._game_json(conn, row, self._folded(conn, row))
        with self._cache_lock:
            current = self._views.get(game_id)
            if current is None or current[0] < row.revision:
                self._views[game_id] = (row.revision, view)
                self._trim()
        return view

    def _extra_counter(self, game_id: str) -> Callable[[list[Any]], int]:
        """``extra_rounds`` of a game's rounds left out, counted on from the last count (a write to a tie replayed
        2,000 times adds a round at the end, so only the rounds newly left out are counted)."""

        def count(left: list[Any]) -> int:
            with self._cache_lock:
                kept = self._extra.get(game_id)
            if kept is not None and 0 < kept[0] <= len(left) and left[kept[0] - 1] is kept[1]:
                extra = kept[2] + extra_rounds(left[kept[0] :])
            else:
                extra = extra_rounds(left)
            if left:
                with self._cache_lock:
                    self._extra[game_id] = (len(left), left[-1], extra)
                    while len(self._extra) > CACHED_GAMES:
                        self._extra.pop(next(iter(self._extra)))
            return extra

        return count

    def full_game(self, game_id: str) -> JSON:
        """The game with every settled round (``GET /api/games/<id>?full=1``): made on request, never cached."""
        with self._read() as conn:
            row = self._row(conn, game_id)
            return self._game_json(conn, row, self._folded(conn, row), full=True)

    def log_rows(self, game_id: str, last: int | None = None) -> list[JSON]:
        """The game's log rows, oldest first; ``last``: only the newest that many (a page's few recent lines of a
        game of 20,000 actions read 8 rows, not 20,000)."""
        with self._read() as conn:
            self._row(conn, game_id)
            if last is None:
                rows = conn.execute(
                    "SELECT n, action, photo_id, device, at FROM actions WHERE game_id = ? ORDER BY n", (game_id,)
                ).fetchall()
            else:
                rows = conn.execute(
                    "SELECT n, action, photo_id, device, at FROM actions WHERE game_id = ? ORDER BY n DESC LIMIT ?",
                    (game_id, last),
                ).fetchall()[::-1]
        return [
            {
                "n": r["n"],
                "action": json.loads(r["action"]),
                "photo": r["photo_id"],
                "device": r["device"],
                "at": iso(r["at"]),
            }
            for r in rows
        ]

    def export(self, game_id: str) -> tuple[GameRow, str]:
        with self._read() as conn:
            row = self._row(conn, game_id)
            return row, self._folded(conn, row).to_jsonl()

    def folded(self, game_id: str) -> Folded:
        """The game's setup, state and actions as they are now (read-only): for the advisor, without a fold."""
        with self._read() as conn:
            return self._folded(conn, self._row(conn, game_id))

    def text(self, view: JSON) -> str:
        """A game view (as ``game`` returns it) as JSON text, made once per view and kept: a long game's view is
        megabytes, and every read, answer and live event of that revision sends the same text."""
        with self._cache_lock:
            kept = self._texts.get(view["id"])
        if kept is not None and kept[0] is view:
            return kept[1]
        text = self._encode(view)
        with self._cache_lock:
            self._texts.pop(view["id"], None)
            self._texts[view["id"]] = (view, text)
            self._trim()
        return text

    def list_games(self, device: str, include_public: bool = True, everything: bool = False) -> list[JSON]:
        """Games this device owns or joined (and public ones); ``everything`` for the host's own browser."""
        conn = self.conn()
        rows = conn.execute(
            """
            SELECT g.*, m.role AS role FROM games g
            LEFT JOIN members m ON m.game_id = g.id AND m.device = ?
            WHERE ? OR m.device IS NOT NULL OR (? AND g.public)
            ORDER BY g.updated DESC, g.created DESC
            """,
            (device, everything, include_public),
        ).fetchall()
        out = []
        for r in rows:
            row = GameRow.from_sql(r)
            try:
                name = rules_for(row.game).name_en
            except MalformedInput:  # a game whose rules this build lacks; still listed so it can be deleted
                name = row.game
            view = self._views.get(row.id)
            outcome = view[1]["state"]["outcome"] if view and view[0] == row.revision else None
            if outcome is None and row.over:
                outcome = self.game(row.id)["state"]["outcome"]
            out.append(
                {
                    "id": row.id,
                    "game": row.game,
                    "name": name,
                    "players": row.setup["players"],
                    "created": iso(row.created),
                    "updated": iso(row.updated),
                    "status": row.status,
                    "actions": row.action_count,
                    "role": r["role"] or ("viewer" if row.public else "none"),
                    "outcome": outcome,
                }
            )
        return out

    def _encode(self, view: JSON) -> str:
        """JSON text of a view; a long history (every settled round) is joined from each round's text, made once
        per round (the rules keep one dict per round: companion/rounds.py), so a write to a game of thousands of
        rounds encodes what changed, not megabytes."""
        state = view.get("state")
        shown = state.get("view") if isinstance(state, dict) else None
        history = shown.get("history") if isinstance(shown, dict) else None
        if not isinstance(history, list) or len(history) < LONG_HISTORY:
            return json.dumps(view, ensure_ascii=False, separators=(",", ":"))
        assert isinstance(state, dict) and isinstance(shown, dict)
        shell = {**view, "state": {**state, "view": {**shown, "history": self._token}}}
        text = json.dumps(shell, ensure_ascii=False, separators=(",", ":"))
        parts = "[" + ",".join(self._round_text(r) for r in history) + "]"
        return text.replace(f'"{self._token}"', parts, 1)

    def _round_text(self, entry: Any) -> str:
        key = id(entry)
        kept = self._rounds.get(key)
        if kept is not None and kept[0] is entry:
            return kept[1]
        text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        with self._cache_lock:
            self._rounds[key] = (entry, text)
            while len(self._rounds) > CACHED_ROUNDS:
                self._rounds.pop(next(iter(self._rounds)))
        return text

    # ------------------------------------------------------------------ creating and deleting

    def _unique_code(self, conn: sqlite3.Connection) -> str:
        while True:
            code = new_id(CODE_LENGTH, CODE_ALPHABET)
            if conn.execute("SELECT 1 FROM games WHERE code = ? AND finished IS NULL", (code,)).fetchone() is None:
                return code

    def create(
        self,
        log: GameLog,
        owner: str,
        public: bool = False,
        members: Sequence[tuple[str, str, str]] = (),
        bound_seats: bool = False,
        seats: Mapping[str, int] | None = None,
        known: Known | None = None,
    ) -> JSON:
        """Store a new game (possibly with actions, for import) owned by ``owner``; ``members`` (device, role, name);
        ``known``: the dice it starts knowing (a saved set's or the old game's in a rematch, web/lessons.py), with the
        name shown for them."""
        now = time.time()
        with self._write() as conn:
            game_id = new_id()
            while conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None:
                game_id = new_id()  # pragma: no cover - 32**8 ids
            count = len(log)
            conn.execute(
                "INSERT INTO games (id, game, setup, owner, code, public, revision, action_count, over, created,"
                " updated, bound_seats) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    log.setup.game,
                    json.dumps(log.setup.to_json(), ensure_ascii=False),
                    owner,
                    self._unique_code(conn),
                    int(public),
                    count,
                    count,
                    int(log.outcome() is not None),
                    now,
                    now,
                    int(bound_seats),
                ),
            )
            conn.executemany(
                "INSERT INTO actions (game_id, n, action, device, at) VALUES (?, ?, ?, ?, ?)",
                [(game_id, n, ACTION_TEXT(a.to_json()), owner, now) for n, a in enumerate(log.actions, start=1)],
            )
            conn.execute(
                "INSERT INTO members (game_id, device, role, name, joined) VALUES (?, ?, 'owner', '', ?)",
                (game_id, owner, now),
            )
            for device, role, name in members:
                if device != owner:
                    conn.execute(
                        "INSERT OR IGNORE INTO members (game_id, device, role, name, joined) VALUES (?, ?, ?, ?, ?)",
                        (game_id, device, role, name, now),
                    )
            for device, seat in (seats or {}).items():
                conn.execute("UPDATE members SET seat = ? WHERE game_id = ? AND device = ?", (seat, game_id, device))
            from web.players import link_game

            link_game(conn, game_id, log.setup.players, now, owner)
            if known is not None:
                from web.lessons import start_knowing

                start_knowing(conn, game_id, known)
            self._remember(game_id, count, log)
        return self.game(game_id)

    def delete(self, game_id: str) -> None:
        with self._write() as conn:
            self._row(conn, game_id)
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
            self._logs.pop(game_id, None)
            self._views.pop(game_id, None)
            self._texts.pop(game_id, None)

    # ------------------------------------------------------------------ playing

    def _check_fresh(
        self, conn: sqlite3.Connection, row: GameRow, log: GameLog, seen: int, revision: int | None
    ) -> None:
        if row.finished is not None:
            raise Finished(
                "This game has been finished and takes no more changes; start a new game or a rematch.",
                self._game_json(conn, row, log),
            )
        if seen != row.action_count or (revision is not None and revision != row.revision):
            raise Stale(
                Message(
                    "The game has changed meanwhile (it has {action_count} actions, you saw {seen}); look at the "
                    "current state and try again.",
                    action_count=row.action_count,
                    seen=seen,
                ),
                self._game_json(conn, row, log),
            )

    def _bump(self, conn: sqlite3.Connection, row: GameRow, log: GameLog) -> JSON:
        """Write the new counts, cache the folded log, and return the new game view (inside the transaction)."""
        now = time.time()
        revision = row.revision + 1
        over = log.outcome() is not None
        conn.execute(
            "UPDATE games SET revision = ?, action_count = ?, over = ?, updated = ? WHERE id = ?",
            (revision, len(log), int(over), now, row.id),
        )
        new_row = GameRow(
            **{**row.__dict__, "revision": revision, "action_count": len(log), "over": over, "updated": now}
        )
        view = self._game_json(conn, new_row, log)
        self._remember(row.id, revision, log, view)
        return view

    def play(
        self,
        game_id: str,
        device: str,
        seen: int,
        action: Mapping[str, object],
        photo_id: str | None = None,
        revision: int | None = None,
        lessons: Sequence[Lesson] = (),
    ) -> tuple[JSON, int]:
        """Verify and append one action; returns the new game and the action's number. ``lessons``: what its photo
        teaches the game's memory of its dice (web/lessons.py), kept in the same transaction, so an undo takes it
        back with the action."""
        with self._write() as conn:
            row = self._row(conn, game_id)
            log = self._load_log(conn, row)
            self._check_fresh(conn, row, log, seen, revision)
            if photo_id is not None:
                photo = conn.execute("SELECT game_id FROM photos WHERE id = ?", (photo_id,)).fetchone()
                if photo is None or photo["game_id"] != game_id:
                    raise Malformed(
                        Message(
                            "There is no photo {photo_id} in this game; upload the photo again.",
                            photo_id=shown(photo_id),
                        )
                    )
            try:
                log.play(action)
            except MalformedInput as exc:
                raise Malformed(exc.message) from None
            except IllegalAction as exc:
                raise Illegal(exc.message, self._game_json(conn, row, log)) from None
            try:
                n = len(log)
                conn.execute(
                    "INSERT INTO actions (game_id, n, action, photo_id, device, at) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        game_id,
                        n,
                        json.dumps(log.actions[-1].to_json(), ensure_ascii=False),
                        photo_id,
                        device,
                        time.time(),
                    ),
                )
                keep_lessons(conn, game_id, n, lessons)
                view = self._bump(conn, row, log)
            except BaseException:
                self._logs.pop(game_id, None)  # the cached log already holds the action; fold again next time
                self._views.pop(game_id, None)
                raise
        return view, n

    def undo(self, game_id: str, seen: int, count: int = 1, revision: int | None = None) -> tuple[JSON, list[JSON]]:
        with self._write() as conn:
            row = self._row(conn, game_id)
            log = self._load_log(conn, row)
            self._check_fresh(conn, row, log, seen, revision)
            if count > len(log):
                raise Illegal(
                    Message("Nothing can be undone: the game has no actions yet.")
                    if not log
                    else Message(
                        "Only {have} of the game's actions can be undone, not {count}; undo fewer.",
                        have=len(log),
                        count=count,
                    ),
                    self._game_json(conn, row, log),
                )
            try:
                removed = log.undo(count)
                conn.execute("DELETE FROM actions WHERE game_id = ? AND n > ?", (game_id, len(log)))
                forget_after(conn, game_id, len(log))
                view = self._bump(conn, row, log)
            except BaseException:
                self._logs.pop(game_id, None)
                self._views.pop(game_id, None)
                raise
        return view, [a.to_json() for a in removed]

    def teach_shown(self, game_id: str, lessons: Sequence[Lesson]) -> JSON:
        """Keep lessons of dice shown to the reader outside any throw ("show your dice", web/lessons.py), numbered
        before the first action so that no undo takes them back; the revision goes up so every device sees what the
        reader now knows. Nothing to keep changes nothing (no new revision)."""
        with self._write() as conn:
            row = self._row(conn, game_id)
            if row.finished is not None:
                raise Finished(Message("This game has been finished; start a new game to show the reader your dice."))
            if not lessons:
                return self._game_json(conn, row, self._folded(conn, row))
            log = self._load_log(conn, row)
            keep_shown(conn, game_id, lessons)
            return self._bump(conn, row, log)

    def learn_into_set(self, game_id: str, keep: Callable[[sqlite3.Connection, GameRow], JSON]) -> tuple[JSON, JSON]:
        """Update the saved set a game started from with what the game learned (``keep`` writes the set, inside this
        write) and mark the game so; its revision goes up, so every device's page stops asking. Returns what ``keep``
        returned and the game's new view."""
        with self._write() as conn:
            row = self._row(conn, game_id)
            log = self._load_log(conn, row)
            saved = keep(conn, row)
            conn.execute("UPDATE game_dice SET taught = 1 WHERE game_id = ?", (game_id,))
            return saved, self._bump(conn, row, log)

    def finish(self, game_id: str) -> JSON:
        with self._write() as conn:
            row = self._row(conn, game_id)
            if row.finished is None:
                log = self._load_log(conn, row)
                conn.execute("UPDATE games SET finished = ? WHERE id = ?", (time.time(), game_id))
                return self._bump(conn, self._row(conn, game_id), log)
        return self.game(game_id)

    def link_rematch(self, game_id: str, rematch_id: str) -> tuple[str, JSON | None]:
        """Make ``rematch_id`` the rematch of ``game_id``, unless it has one already: then ``rematch_id`` (made by a
        second press elsewhere at the same moment) is deleted and the first one kept, so the group stays in one game.
        Returns the rematch's id and, where it was linked now, the old game's new view (to tell its watchers)."""
        with self._write() as conn:
            row = self._row(conn, game_id)
            taken = row.rematch is not None and row.rematch != rematch_id
            if taken and conn.execute("SELECT 1 FROM games WHERE id = ?", (row.rematch,)).fetchone() is not None:
                conn.execute("DELETE FROM games WHERE id = ?", (rematch_id,))
                self._logs.pop(rematch_id, None)
                self._views.pop(rematch_id, None)
                return str(row.rematch), None
            log = self._load_log(conn, row)
            conn.execute("UPDATE games SET rematch = ? WHERE id = ?", (rematch_id, game_id))
            return rematch_id, self._bump(conn, self._row(conn, game_id), log)

    def link_next(self, game_id: str, next_id: str) -> JSON | None:
        """Make ``next_id`` the game that follows ``game_id``, where that game is over and nothing follows it yet (no
        rematch, no next game), so that its devices go where the table went. Returns the old game's new view (to
        tell its watchers), None where it was not linked."""
        with self._write() as conn:
            row = self._row(conn, game_id)
            if not (row.over or row.finished is not None) or row.rematch is not None or row.next_game is not None:
                return None
            log = self._load_log(conn, row)
            conn.execute("UPDATE games SET next_game = ? WHERE id = ?", (next_id, game_id))
            return self._bump(conn, self._row(conn, game_id), log)

    def set_public(self, game_id: str, public: bool) -> JSON:
        with self._write() as conn:
            row = self._row(conn, game_id)
            if row.public != public:
                log = self._load_log(conn, row)
                conn.execute("UPDATE games SET public = ? WHERE id = ?", (int(public), game_id))
                return self._bump(conn, self._row(conn, game_id), log)
        return self.game(game_id)

    def set_bound_seats(self, game_id: str, bound: bool) -> JSON:
        with self._write() as conn:
            row = self._row(conn, game_id)
            if row.bound_seats != bound:
                log = self._load_log(conn, row)
                conn.execute("UPDATE games SET bound_seats = ? WHERE id = ?", (int(bound), game_id))
                return self._bump(conn, self._row(conn, game_id), log)
        return self.game(game_id)

    def renew_code(self, game_id: str) -> str:
        with self._write() as conn:
            self._row(conn, game_id)
            code = self._unique_code(conn)
            conn.execute("UPDATE games SET code = ? WHERE id = ?", (code, game_id))
        return code

    # ------------------------------------------------------------------ members

    def role(self, game_id: str, device: str) -> str | None:
        row = (
            self.conn()
            .execute("SELECT role FROM members WHERE game_id = ? AND device = ?", (game_id, device))
            .fetchone()
        )
        return None if row is None else str(row["role"])

    def by_code(self, code: str) -> GameRow | None:
        row = (
            self.conn()
            .execute("SELECT * FROM games WHERE code = ? AND finished IS NULL", (normalize_code(code),))
            .fetchone()
        )
        return None if row is None else GameRow.from_sql(row)

    def join(self, game_id: str, device: str, name: str = "") -> str:
        """Make ``device`` a player (an owner stays owner); returns the role."""
        with self._write() as conn:
            self._row(conn, game_id)
            conn.execute(
                "INSERT INTO members (game_id, device, role, name, joined) VALUES (?, ?, 'player', ?, ?)"
                " ON CONFLICT (game_id, device) DO UPDATE SET name = CASE WHEN excluded.name != '' THEN excluded.name"
                " ELSE members.name END",
                (game_id, device, name, time.time()),
            )
            row = conn.execute(
                "SELECT role FROM members WHERE game_id = ? AND device = ?", (game_id, device)
            ).fetchone()
        return str(row["role"])

    def members(self, game_id: str) -> list[JSON]:
        rows = self.conn().execute(
            "SELECT device, role, name, joined, seat FROM members WHERE game_id = ? ORDER BY joined, device",
            (game_id,),
        )
        return [
            {"device": r["device"], "role": r["role"], "name": r["name"], "joined": iso(r["joined"]), "seat": r["seat"]}
            for r in rows
        ]

    def seat(self, game_id: str, device: str) -> int | None:
        row = (
            self.conn()
            .execute("SELECT seat FROM members WHERE game_id = ? AND device = ?", (game_id, device))
            .fetchone()
        )
        return None if row is None or row["seat"] is None else int(row["seat"])

    def set_seat(self, game_id: str, device: str, seat: int | None) -> None:
        """Bind a member to a seat (None: to none). A seat is one device's: taken by another, it is refused."""
        with self._write() as conn:
            row = self._row(conn, game_id)
            if seat is not None:
                players = row.setup["players"]
                if not 0 <= seat < len(players):
                    raise Malformed(
                        Message("This game has seats 0 to {last}; choose one of them.", last=len(players) - 1)
                    )
                holder = conn.execute(
                    "SELECT device FROM members WHERE game_id = ? AND seat = ? AND device != ?", (game_id, seat, device)
                ).fetchone()
                if holder is not None:
                    raise SeatTaken(
                        Message(
                            "{name}'s seat is taken by another phone; choose your own, or ask the game's owner to "
                            "free it.",
                            name=players[seat],
                        )
                    )
            cur = conn.execute("UPDATE members SET seat = ? WHERE game_id = ? AND device = ?", (seat, game_id, device))
            if cur.rowcount == 0:
                raise NotFound(Message("Device {device} has not joined this game.", device=shown(device)))

    def last_players(self, game_id: str, count: int) -> list[int]:
        """The seats that the game's last ``count`` actions were made for (what an undo would take back)."""
        rows = self.conn().execute(
            "SELECT action FROM actions WHERE game_id = ? ORDER BY n DESC LIMIT ?", (game_id, count)
        )
        out = []
        for r in rows:
            player = json.loads(r["action"]).get("player")
            out.append(player if isinstance(player, int) else -1)
        return out

    def remove_member(self, game_id: str, device: str) -> bool:
        with self._write() as conn:
            cur = conn.execute(
                "DELETE FROM members WHERE game_id = ? AND device = ? AND role != 'owner'", (game_id, device)
            )
            return cur.rowcount > 0

    def games_started_since(self, device: str, since: float) -> int:
        row = (
            self.conn()
            .execute("SELECT COUNT(*) AS n FROM games WHERE owner = ? AND created >= ?", (device, since))
            .fetchone()
        )
        return int(row["n"])

    def owns_running_game(self, device: str) -> bool:
        row = (
            self.conn()
            .execute(
                "SELECT 1 FROM members m JOIN games g ON g.id = m.game_id"
                " WHERE m.device = ? AND m.role = 'owner' AND g.finished IS NULL LIMIT 1",
                (device,),
            )
            .fetchone()
        )
        return row is not None

    def games_of(self, device: str) -> list[str]:
        return [r["game_id"] for r in self.conn().execute("SELECT game_id FROM members WHERE device = ?", (device,))]

    # ------------------------------------------------------------------ photos

    def add_photo(self, game_id: str, device: str, jpeg: bytes, width: int, height: int) -> Photo:
        photo = Photo(new_id(14), game_id, device, time.time(), width, height, None, None)
        with self._write() as conn:
            self._row(conn, game_id)
            conn.execute(
                "INSERT INTO photos (id, game_id, device, created, width, height, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (photo.id, game_id, device, photo.created, width, height, jpeg),
            )
            # retakes and throws nobody confirmed: a game keeps the latest of them, so a camera left running (or a
            # device gone wild) cannot fill the disk; photos behind confirmed throws and those still being read stay
            conn.execute(
                """DELETE FROM photos WHERE id IN (
                       SELECT p.id FROM photos p
                       WHERE p.game_id = ? AND (p.reading IS NOT NULL OR p.reading_error IS NOT NULL)
                         AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.game_id = p.game_id AND a.photo_id = p.id)
                       ORDER BY p.created DESC, p.rowid DESC LIMIT -1 OFFSET ?)""",
                (game_id, self.loose_photos),
            )
        return photo

    def set_reading(self, photo_id: str, reading: JSON | None, error: str | None) -> None:
        with self._write() as conn:
            conn.execute(
                "UPDATE photos SET reading = ?, reading_error = ? WHERE id = ?",
                (None if reading is None else json.dumps(reading), error, photo_id),
            )

    def delete_photo(self, photo_id: str) -> None:
        with self._write() as conn:
            conn.execute("DELETE FROM photos WHERE id = ?", (photo_id,))

    def photo(self, photo_id: str) -> Photo:
        row = (
            self.conn()
            .execute(
                "SELECT id, game_id, device, created, width, height, reading, reading_error FROM photos WHERE id = ?",
                (photo_id,),
            )
            .fetchone()
        )
        if row is None:
            raise NotFound(
                Message("There is no photo {photo_id}; it may belong to a deleted game.", photo_id=shown(photo_id))
            )
        return Photo(
            row["id"],
            row["game_id"],
            row["device"],
            row["created"],
            row["width"],
            row["height"],
            None if row["reading"] is None else json.loads(row["reading"]),
            row["reading_error"],
        )

    def photo_data(self, photo_id: str) -> bytes:
        row = self.conn().execute("SELECT data FROM photos WHERE id = ?", (photo_id,)).fetchone()
        if row is None:
            raise NotFound(
                Message("There is no photo {photo_id}; it may belong to a deleted game.", photo_id=shown(photo_id))
            )
        return bytes(row["data"])
