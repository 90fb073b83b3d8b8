"""Whose players and saved dice sets they are, decided in one place (issue 60; the model is in docs/api.md,
"Owners").

A player entry and a saved set of dice belong to the device that made them: the owner of the game a name was typed
at (a table's tablet, usually), the device that saved the dice. The host machine's own browser (``access.is_local``)
may do everything its owners may. Another device sees them only through the games it may read (joined, or public:
read-only) and uses a saved set only where it joined a game started from it; changing one (rename, merge, replace,
update, forget) is its owner's alone. Whatever a device may not see is answered as if it did not exist (404), so ids
cannot be tried for names. Saved sets are bounded per device, per network address (cookies cost nothing) and for
the whole server, each refusal a sentence.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from web import access
from web.access import Denied
from web.players import Player, players
from web.say import Message

SETS_PER_DEVICE = 12  # saved sets of one device (a household's few kinds of dice, with room to spare)
BYTES_PER_DEVICE = 16 * 1024 * 1024  # their bytes (a set of 480 lessons is about 1.1 MB)
SETS_PER_ADDRESS = 24  # saved sets of one network address: a script with a fresh cookie each time stops here
SETS_IN_ALL = 100  # saved sets the whole server keeps ...
BYTES_IN_ALL = 96 * 1024 * 1024  # ... and their bytes: the disk is the host's, not one device's
STATS_PLAYERS = 50  # players one statistics query may name


@dataclass(frozen=True)
class Asker:
    """The device asking, and whether it is the host machine's own browser (which may do what any owner may)."""

    device: str
    host: bool = False


def asker() -> Asker:
    return Asker(access.current_device(), access.is_local())


# ---------------------------------------------------------------------------------------------- games and players


def visible_games(conn: sqlite3.Connection, who: Asker) -> list[str]:
    """The games a device may read: owned, joined, public; every game for the host."""
    rows = conn.execute(
        "SELECT g.id FROM games g LEFT JOIN members m ON m.game_id = g.id AND m.device = ?"
        " WHERE ? OR m.device IS NOT NULL OR g.public",
        (who.device, who.host),
    ).fetchall()
    return [str(r[0]) for r in rows]


def visible_players(conn: sqlite3.Connection, who: Asker, game_ids: Sequence[str] | None = None) -> list[Player]:
    """The players a device may see: those who sat in a game it may read (only those games counted)."""
    return players(conn, visible_games(conn, who) if game_ids is None else game_ids)


def may_change(who: Asker, player: Player) -> bool:
    """Whether this device may rename or merge the entry: its owner's, or the host's."""
    return who.host or player.owner == who.device


def player_to_change(conn: sqlite3.Connection, who: Asker, player_id: int) -> Player:
    """The entry this device may rename or merge; 404 for one it does not see, 403 for another device's."""
    for player in visible_players(conn, who):
        if player.id == player_id:
            if not may_change(who, player):
                raise Denied(
                    Message(
                        "{name} is kept by the device whose games they played (the table's tablet, usually); rename "
                        "or merge them there.",
                        name=player.name,
                    )
                )
            return player
    raise Denied(Message("There is no player {player}; pick one from the list.", player=player_id), 404, "not_found")


def players_to_show(conn: sqlite3.Connection, who: Asker, ids: Sequence[int]) -> dict[int, str]:
    """The names of the players a statistics query names, each one the device may see; 404 for any other (as if
    there were none: ids cannot be tried for names), 400 for more than STATS_PLAYERS."""
    if len(ids) > STATS_PLAYERS:
        raise Denied(
            Message("The parameter 'players' names at most {n} players; choose fewer.", n=STATS_PLAYERS),
            400,
            "malformed",
        )
    names = {p.id: p.name for p in visible_players(conn, who)}
    for pid in ids:
        if pid not in names:
            raise Denied(Message("There is no player {player}; pick one from the list.", player=pid), 404, "not_found")
    return names


# ---------------------------------------------------------------------------------------------- saved dice sets


def usable_sets(conn: sqlite3.Connection, who: Asker) -> dict[int, bool]:
    """The saved sets a device may start a game with, each with whether it is the device's own (may change it):
    its own, and those of games it joined as owner or player; every set for the host."""
    if who.host:
        return {int(r[0]): True for r in conn.execute("SELECT id FROM dice_sets")}
    out = {int(r[0]): True for r in conn.execute("SELECT id FROM dice_sets WHERE owner = ?", (who.device,))}
    for (set_id,) in conn.execute(
        "SELECT DISTINCT d.set_id FROM game_dice d JOIN members m ON m.game_id = d.game_id"
        " JOIN dice_sets s ON s.id = d.set_id WHERE m.device = ? AND m.role IN ('owner', 'player')",
        (who.device,),
    ):
        out.setdefault(int(set_id), False)
    return out


def set_to_use(conn: sqlite3.Connection, who: Asker, set_id: int) -> None:
    """A set this device may start a game with; 404 for any other (as for none)."""
    if set_id not in usable_sets(conn, who):
        raise Denied(Message("There is no saved set of dice {id}.", id=set_id), 404, "not_found")


def set_to_change(conn: sqlite3.Connection, who: Asker, set_id: int) -> None:
    """A set this device may replace, update or forget: 404 where it does not see it, 403 where it is another's."""
    mine = usable_sets(conn, who).get(set_id)
    if mine is None:
        raise Denied(Message("There is no saved set of dice {id}.", id=set_id), 404, "not_found")
    if not mine:
        raise Denied("Only the device that saved these dice may change or forget them.")


def check_room(conn: sqlite3.Connection, device: str, address: str, size: int, replacing: int | None) -> None:
    """Refuse a set of ``size`` bytes (replacing set ``replacing``, or a new one) past a bound: the device's sets and
    bytes, its network address's sets, the server's sets and bytes (409 ``full``, said in a sentence)."""

    def count(where: str, *args: object) -> tuple[int, int]:
        query = f"SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0) FROM dice_sets WHERE id != ? AND {where}"
        n, total = conn.execute(query, (-1 if replacing is None else replacing, *args)).fetchone()
        return int(n), int(total)

    def full(message: Message) -> Denied:
        return Denied(message, 409, "full")

    sets, total = count("owner = ?", device)
    if sets + 1 > SETS_PER_DEVICE:
        raise full(Message("This device keeps {n} sets of dice, as many as it may; forget one first.", n=sets))
    if total + size > BYTES_PER_DEVICE:
        raise full(
            Message("This device's saved dice take {mb} MB, as much as it may; forget a set first.", mb=total >> 20)
        )
    if count("address = ?", address)[0] + 1 > SETS_PER_ADDRESS:
        raise full(
            Message(
                "{n} sets of dice were saved from this network address, as many as it may; forget one first.",
                n=SETS_PER_ADDRESS,
            )
        )
    sets, total = count("1")
    if sets + 1 > SETS_IN_ALL or total + size > BYTES_IN_ALL:
        raise full(
            Message(
                "This server keeps as many saved dice as it may ({n} sets); ask the host to forget some.",
                n=sets,
            )
        )
