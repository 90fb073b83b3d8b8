"""The history of every game: one line each (date, game, players, winner), newest first, and CSV exports of it and
of every game's throws.

The lines come from the statistics' digests (web/stats.py), so listing a thousand games folds only those that
changed since. CSV is what spreadsheets open without asking: UTF-8 with a byte-order mark (Excel reads UTF-8 only
with it), comma-separated, CRLF line ends, names as typed at the table. A cell that a spreadsheet would run as a
formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets a leading apostrophe, the
spreadsheets' own sign for "this is text": a player called ``=1+1`` stays a name, never a formula. A score is
written as the number it is (``-200`` stays a number to sum).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

from companion.dice import DiceKind, faces

JSON = dict[str, Any]
BOM = "\ufeff"

__all__ = ["Line", "block_csv", "csv_text", "history_csv", "lines", "throws_csv"]


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
    scores: tuple[int | None, ...] = ()  # per seat, as the standings count them (points, strikes, round wins)
    places: tuple[int | None, ...] = ()  # per seat, 1 the best; shared places share a number

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
                tuple(dig["scores"]),
                tuple(dig.get("places") or (None,) * len(dig["names"])),
            )
        )
    out.sort(key=lambda line: (line.created, line.id), reverse=True)
    return out


def _cell(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)  # a number, negative ones too: a spreadsheet may sum it
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
    """One row per game: date (UTC), game, players and winners as typed, status, id; then per seat its player, final
    score (the game's own count: points, strikes in classic, round wins in Poker Dice; so far, for a game still
    played) and place, as many seats as the largest game has (``player_1``, ``score_1``, ``place_1``, ...), so a
    spreadsheet sums a player's scores without reading the score block."""
    seats = max((len(line.names) for line in history), default=0)
    head = ["date_utc", "game", "game_name", "players", "winners", "status", "id"]
    for seat in range(1, seats + 1):
        head += [f"player_{seat}", f"score_{seat}", f"place_{seat}"]

    def per_seat(line: Line) -> list[object]:
        cells: list[object] = []
        for seat in range(seats):
            if seat < len(line.names):
                score = line.scores[seat] if seat < len(line.scores) else None
                place = line.places[seat] if seat < len(line.places) else None
                cells += [line.names[seat], score, place]
            else:
                cells += ["", "", ""]
        return cells

    return csv_text(
        head,
        (
            [
                line.date,
                line.game,
                game_name(line.game),
                ", ".join(line.names),
                ", ".join(line.winner_names),
                line.status,
                line.id,
                *per_seat(line),
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


class _BlockTables(HTMLParser):
    """The tables of a rendered score block as rows of cell texts: what a cell shows (a die as its face, a sign
    alone, such as ✕ or ★, in the words the table gives a screen reader for it), without captions, photo links,
    what is hidden from everyone (``aria-hidden``) or the board's placing order. A cell spanning columns is
    followed by empty cells, one spanning rows leaves its column empty below, so every column stays one player's
    or one field's."""

    VOID = frozenset({"img", "br", "input", "hr", "meta", "source", "wbr"})
    SKIP = frozenset({"caption", "script", "style"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self._open = 0  # elements open now
        self._table = self._row = self._cell = self._skip = 0  # the depth each was opened at (0: none open)
        self._cells: list[str] = []
        self._parts: list[tuple[str, str]] = []
        self._span = (1, 1)
        self._down: dict[int, int] = {}  # column -> rows below still covered by a cell spanning rows
        self._named: list[tuple[int, str, int]] = []  # open elements with an aria-label: depth, label, first part

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in self.VOID:
            if tag == "img" and a.get("alt") and self._cell and not self._skip:
                self._parts.append(("die", a["alt"]))
            return
        self._open += 1
        if self._skip:
            return
        role, classes = a.get("role", ""), a.get("class", "").split()
        if tag in self.SKIP or a.get("aria-hidden") == "true" or {"photo-link", "order"} & set(classes):
            self._skip = self._open
        elif (tag == "table" or role == "table") and not self._table:
            self._table = self._open
            self.tables.append([])
            self._down = {}
        elif self._table and not self._row and (tag == "tr" or role == "row"):
            self._row = self._open
            self._cells = []
        elif self._row and not self._cell and (tag in ("th", "td") or role in ("cell", "rowheader", "columnheader")):
            self._cell = self._open
            self._parts = []
            self._span = (int(a.get("colspan") or 1), int(a.get("rowspan") or 1))
        elif self._cell and role == "img" and a.get("aria-label"):
            self._parts.append(("die", a["aria-label"]))
            self._skip = self._open
        elif self._cell and a.get("aria-label"):
            self._named.append((self._open, a["aria-label"], len(self._parts)))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID or not self._open:
            return
        depth = self._open
        self._open -= 1
        if self._skip:
            if depth == self._skip:
                self._skip = 0
            return
        if self._named and depth == self._named[-1][0]:
            _, label, start = self._named.pop()
            shown = " ".join(text for _, text in self._parts[start:])
            if not any(c.isalnum() for c in shown):  # a sign alone (✕, ★, —): the table's own words for it
                self._parts[start:] = [("text", label)]
        if depth == self._cell:
            self._close_cell()
        elif depth == self._row:
            self._close_row()
        elif depth == self._table:
            self._table = 0

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if text and self._cell and not self._skip:
            self._parts.append(("text", text))

    def _fill(self) -> None:
        """Empty cells where a cell of a row above still reaches down."""
        while self._down.get(len(self._cells), 0) > 0:
            self._cells.append("")

    def _close_cell(self) -> None:
        out = ""
        for i, (kind, text) in enumerate(self._parts):
            joint = " " if i and kind == "die" and self._parts[i - 1][0] == "die" else " · "
            out = out + joint + text if out else text
        self._fill()
        columns, rows = self._span
        start = len(self._cells)
        self._cells += [out] + [""] * (columns - 1)
        for col in range(start, start + columns):
            if rows > 1:
                self._down[col] = rows  # this row and rows - 1 below
        self._cell = 0
        self._named = []

    def _close_row(self) -> None:
        self._fill()
        self.tables[-1].append(self._cells)
        self._down = {c: n - 1 for c, n in self._down.items() if n > 1}
        self._row = 0


def block_csv(html: str) -> str:
    """A game's score block as CSV, from the block as the table page renders it (``html``): each table of it in
    turn, an empty row between; a cell that is a number is written as one."""
    parser = _BlockTables()
    parser.feed(html)
    parser.close()
    rows: list[list[object]] = []
    for table in parser.tables:
        if not table:
            continue
        if rows:
            rows.append([])
        width = max(len(r) for r in table)
        for r in table:
            rows.append([_number(c) for c in r] + [""] * (width - len(r)))
    if not rows:
        return csv_text([], [])
    return csv_text([str(c) for c in rows[0]], rows[1:])


def _number(text: str) -> object:
    try:
        return int(text)
    except ValueError:
        return text
