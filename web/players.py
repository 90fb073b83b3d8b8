"""Players remembered across games: a name seen once is offered again, so a player's games can be found.

A player is a name and nothing else (no account, no contact). Every game links each seat to a player
(``game_players``) of the device that owns the game (``owner``: the table's tablet, usually; web/owners.py says who
may see and change what): names match whatever their case (``key``: NFC, casefolded) within one owner, as the rules
already refuse "Anna" and "anna" at one table, and never across devices, so a stranger's game with "anna" is not
the owner's Anna. A game keeps the names as typed at that table (its log and its score block never change); the
history and the statistics show a player by the name the player entry has now, so renaming an entry renames the
player everywhere the player is looked up, and merging two entries of one person joins their games.
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from companion.errors import Message

__all__ = ["Player", "link_game", "link_unlinked", "merge", "own_players", "player_key", "players", "rename"]


@dataclass(frozen=True)
class Player:
    """One remembered player: the name shown, and how many games (and the last one) the player sat in."""

    id: int
    name: str
    games: int
    last: float | None
    owner: str = ""

    def to_json(self, mine: bool = False) -> dict[str, Any]:
        """``mine``: the asking device may rename and merge this entry (web/owners.py)."""
        last = None if self.last is None else datetime.fromtimestamp(self.last, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return {"id": self.id, "name": self.name, "games": self.games, "last": last, "mine": mine}


def player_key(name: str) -> str:
    """What makes two typed names one player: the same letters, whatever their case or Unicode composition."""
    return unicodedata.normalize("NFC", name.strip()).casefold()


def _player_id(conn: sqlite3.Connection, owner: str, name: str, now: float) -> int:
    key = player_key(name)
    row = conn.execute("SELECT id FROM players WHERE owner = ? AND key = ?", (owner, key)).fetchone()
    if row is not None:
        return int(row[0])
    cur = conn.execute(
        "INSERT INTO players (name, key, owner, created) VALUES (?, ?, ?, ?)", (name.strip(), key, owner, now)
    )
    return int(cur.lastrowid or 0)


def link_game(conn: sqlite3.Connection, game_id: str, names: Sequence[str], now: float, owner: str) -> None:
    """Link each seat of a new game to its owner's player of that name, adding players not seen before (inside the
    store's write)."""
    conn.executemany(
        "INSERT OR REPLACE INTO game_players (game_id, seat, player_id) VALUES (?, ?, ?)",
        [(game_id, seat, _player_id(conn, owner, name, now)) for seat, name in enumerate(names)],
    )


def link_unlinked(conn: sqlite3.Connection) -> int:
    """The migration: games stored before players were remembered (or imported by hand into the file) get their
    seats linked from their setup; returns how many games were linked. Cheap when there is nothing to do."""
    rows = conn.execute(
        "SELECT id, setup, created, owner FROM games g"
        " WHERE NOT EXISTS (SELECT 1 FROM game_players p WHERE p.game_id = g.id) ORDER BY created"
    ).fetchall()
    for row in rows:
        try:
            names = [str(n) for n in json.loads(row[1]).get("players") or []]
        except (ValueError, AttributeError):
            continue  # a damaged setup: the game still opens (or fails) as before; it only lacks players here
        link_game(conn, str(row[0]), names, float(row[2]), str(row[3]))
    return len(rows)


PLAYERS_TABLE = """CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    key TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    UNIQUE (owner, key)
)"""


def own_players(conn: sqlite3.Connection) -> bool:
    """The migration of a database whose players were everyone's (one entry per name across all devices, issue 60):
    each entry goes to the owner of the earliest game it sat in, and a copy of it (same name, a new id) to each
    other device whose games it sat in, with those games; an entry in no game is nobody's but the host's. Run on a
    connection outside a transaction (foreign keys are switched off while the table is rebuilt). True if it ran."""
    unique = [
        [c[2] for c in conn.execute(f"PRAGMA index_info('{ix[1]}')")]
        for ix in conn.execute("PRAGMA index_list(players)")
        if ix[2]
    ]
    if ["owner", "key"] in unique:
        return False
    conn.execute("PRAGMA foreign_keys=OFF")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(PLAYERS_TABLE.replace("CREATE TABLE players", "CREATE TABLE players_owned"))
            conn.execute(
                "INSERT INTO players_owned (id, name, key, owner, created) SELECT id, name, key, '', created"
                " FROM players"
            )
            seen: set[int] = set()
            rows = conn.execute(
                "SELECT gp.player_id, g.owner, gp.game_id FROM game_players gp JOIN games g ON g.id = gp.game_id"
                " ORDER BY g.created, g.id"
            ).fetchall()
            copies: dict[tuple[int, str], int] = {}
            for pid, owner, game_id in rows:
                pid, owner = int(pid), str(owner)
                if pid not in seen:
                    seen.add(pid)
                    conn.execute("UPDATE players_owned SET owner = ? WHERE id = ?", (owner, pid))
                    copies[(pid, owner)] = pid
                if (pid, owner) not in copies:
                    name, key, created = conn.execute(
                        "SELECT name, key, created FROM players_owned WHERE id = ?", (pid,)
                    ).fetchone()
                    cur = conn.execute(
                        "INSERT INTO players_owned (name, key, owner, created) VALUES (?, ?, ?, ?)",
                        (name, key, owner, created),
                    )
                    copies[(pid, owner)] = int(cur.lastrowid or 0)
                if copies[(pid, owner)] != pid:
                    conn.execute(
                        "UPDATE game_players SET player_id = ? WHERE game_id = ? AND player_id = ?",
                        (copies[(pid, owner)], game_id, pid),
                    )
            conn.execute("DROP TABLE players")
            conn.execute("ALTER TABLE players_owned RENAME TO players")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    finally:
        conn.execute("PRAGMA foreign_keys=ON")
    return True


def players(conn: sqlite3.Connection, game_ids: Sequence[str] | None = None) -> list[Player]:
    """The remembered players, most recently seen first; with ``game_ids``, only those who sat in one of them, with
    only those games counted (a device learns nothing of games it may not see)."""
    allowed = None if game_ids is None else set(game_ids)
    rows_ = conn.execute("SELECT id, name, owner FROM players").fetchall()
    names = {int(r[0]): str(r[1]) for r in rows_}
    owners = {int(r[0]): str(r[2]) for r in rows_}
    games: dict[int, int] = {}
    last: dict[int, float] = {}
    rows = conn.execute(
        "SELECT gp.player_id, gp.game_id, g.created FROM game_players gp JOIN games g ON g.id = gp.game_id"
    )
    for pid, gid, created in rows:
        if allowed is not None and gid not in allowed:
            continue
        games[pid] = games.get(pid, 0) + 1
        last[pid] = max(last.get(pid, 0.0), float(created))
    ids = list(names) if allowed is None else list(games)
    ids.sort(key=lambda pid: (-last.get(pid, 0.0), names[pid].casefold()))
    return [Player(pid, names[pid], games.get(pid, 0), last.get(pid), owners[pid]) for pid in ids if pid in names]


class PlayerError(Exception):
    """A rename or merge refused: ``message`` says why and what to do; ``code`` is the API's error code."""

    def __init__(self, code: str, message: Message) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _name_of(conn: sqlite3.Connection, player_id: int) -> str:
    return _entry(conn, player_id)[0]


def _entry(conn: sqlite3.Connection, player_id: int) -> tuple[str, str]:
    """An entry's name and owner."""
    row = conn.execute("SELECT name, owner FROM players WHERE id = ?", (player_id,)).fetchone()
    if row is None:
        raise PlayerError(
            "not_found", Message("There is no player {player}; pick one from the list.", player=player_id)
        )
    return str(row[0]), str(row[1])


def rename(conn: sqlite3.Connection, player_id: int, name: str) -> None:
    """Give an entry another name; a name another entry of the same owner has is refused (merging is the way to
    join two)."""
    _, owner = _entry(conn, player_id)
    name = name.strip()
    if not name:
        raise PlayerError("malformed", Message("A player needs a name; type one."))
    other = conn.execute(
        "SELECT id, name FROM players WHERE owner = ? AND key = ? AND id != ?", (owner, player_key(name), player_id)
    ).fetchone()
    if other is not None:
        raise PlayerError(
            "malformed",
            Message(
                "There is already a player called {name}; merge the two if they are one person.", name=str(other[1])
            ),
        )
    conn.execute("UPDATE players SET name = ?, key = ? WHERE id = ?", (name, player_key(name), player_id))


def merge(conn: sqlite3.Connection, player_id: int, into: int) -> None:
    """Join entry ``player_id`` into ``into``: its games become the other's, and the entry goes. Two entries who sat
    at one table are two people, so that is refused."""
    name, owner = _entry(conn, player_id)
    into_name, into_owner = _entry(conn, into)
    if player_id == into:
        raise PlayerError("malformed", Message("Choose two different players to merge."))
    if owner != into_owner:
        raise PlayerError(
            "illegal",
            Message(
                "{name} and {other} are kept by two different devices, so they cannot be merged.",
                name=name,
                other=into_name,
            ),
        )
    shared = conn.execute(
        "SELECT 1 FROM game_players a JOIN game_players b ON a.game_id = b.game_id"
        " WHERE a.player_id = ? AND b.player_id = ? LIMIT 1",
        (player_id, into),
    ).fetchone()
    if shared is not None:
        raise PlayerError(
            "illegal",
            Message(
                "{name} and {other} played in the same game, so they are two people; they cannot be merged.",
                name=name,
                other=into_name,
            ),
        )
    conn.execute("UPDATE game_players SET player_id = ? WHERE player_id = ?", (into, player_id))
    conn.execute("DELETE FROM players WHERE id = ?", (player_id,))
