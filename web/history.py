"""The history of every game: one line each (date, game, players, winner), newest first, and CSV exports of it and
of every game's throws.

The lines come from the statistics' digests (web/stats.py), so listing a thousand games folds only those that
changed since. CSV is what spreadsheets open without asking: UTF-8 with a byte-order mark (Excel reads UTF-8 only
with it), comma-separated, CRLF line ends, names as typed at the table. A cell that a spreadsheet would run as a
formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets a leading apostrophe, the
spreadsheets' own sign for "this is text": a player called ``=1+1`` stays a name, never a formula.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from companion.dice import DiceKind, faces

JSON = dict[str, Any]
BOM = "\ufeff"

__all__ = ["Line", "csv_text", "history_csv", "lines", "throws_csv"]


@dataclass(frozen=True)
class Line:
    """One game in the history: who played (entry id and name as typed per seat), who won, and its state."""

    id: str
    game: str
    created: float
    status: str
    names: tuple[str, ...]
    players: tuple[int | None, ...]
    winners: tuple[int, ...] | None

    @property
    def date(self) -> str:
        return datetime.fromtimestamp(self.created, UTC).strftime("%Y-%m-%d %H:%M")

    @property
    def winner_names(self) -> tuple[str, ...]:
        return tuple(self.names[w] for w in self.winners or () if 0 <= w < len(self.names))

    def to_json(self) -> JSON:
        from web.store import iso

        return {
            "id": self.id,
            "game": self.game,
            "created": iso(self.created),
            "status": self.status,
            "players": [{"id": p, "name": n} for p, n in zip(self.players, self.names, strict=True)],
            "winners": list(self.winners) if self.winners is not None else None,
        }


def lines(store: Any, game_ids: Iterable[str], player: int | None = None, game: str | None = None) -> list[Line]:
    """The history of these games, newest first; only those ``player`` sat in and of kind ``game`` when given."""
    from web.stats import digests

    out = []
    for dig in digests(store, game_ids).values():
        if player is not None and player not in dig["players"]:
            continue
        if game and dig["game"] != game:
            continue
        winners = tuple(dig["winners"]) if dig["winners"] is not None else None
        out.append(
            Line(
                dig["id"],
                dig["game"],
                dig["created"],
                dig["status"],
                tuple(dig["names"]),
                tuple(dig["players"]),
                winners,
            )
        )
    out.sort(key=lambda line: (line.created, line.id), reverse=True)
    return out


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A CSV file as spreadsheets open it (see the module docstring)."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return BOM + buf.getvalue()


def history_csv(history: Sequence[Line], game_name: Any) -> str:
    """One row per game: date (UTC), game, players and winners as typed, status, id."""
    return csv_text(
        ["date_utc", "game", "game_name", "players", "winners", "status", "id"],
        (
            [
                line.date,
                line.game,
                game_name(line.game),
                ", ".join(line.names),
                ", ".join(line.winner_names),
                line.status,
                line.id,
            ]
            for line in history
        ),
    )


def throws_csv(store: Any, game_ids: Sequence[str]) -> str:
    """One row per die-throwing action of these games, oldest game first: the faces shown, the dice held (1-5) and
    the faces that were thrown (the ones the fairness test counts)."""
    from web.stats import _faces_of

    conn = store.conn()
    rows: list[list[object]] = []
    wanted = set(game_ids)
    games = conn.execute("SELECT id, game, setup, created FROM games ORDER BY created, id").fetchall()
    for g in games:
        if g["id"] not in wanted:
            continue
        setup = json.loads(g["setup"])
        names = list(setup.get("players") or [])
        kind = DiceKind.POKER if (setup.get("settings") or {}).get("dice") == "poker" else DiceKind.PIP
        previous = None
        for a in conn.execute(
            "SELECT n, action, photo_id, at FROM actions WHERE game_id = ? ORDER BY n", (g["id"],)
        ).fetchall():
            action = json.loads(a["action"])
            dice = action.get("dice")
            if dice and action.get("type") in ("throw", "roll_off", "enter", "reveal"):
                seat = action.get("player")
                held = action.get("held") or []
                rows.append(
                    [
                        g["id"],
                        g["game"],
                        datetime.fromtimestamp(a["at"], UTC).strftime("%Y-%m-%d %H:%M:%S"),
                        a["n"],
                        names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "",
                        action.get("type"),
                        " ".join(faces(dice, kind)),
                        " ".join(str(p + 1) for p in held),
                        " ".join(faces(_faces_of(action, previous), kind)),
                        a["photo_id"] or "",
                    ]
                )
            previous = action
    return csv_text(
        ["game_id", "game", "time_utc", "action", "player", "type", "dice", "held", "thrown", "photo"], rows
    )
