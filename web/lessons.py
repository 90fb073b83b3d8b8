"""What a confirmed throw teaches the game's memory of its dice (issue 52), kept in SQLite beside the game.

A throw confirmed with a photo teaches each die of it: the crop's embedding (``vision.memory``) with the face the
players confirmed, whether they corrected the reading, and the die's size in the photo; a box they marked "not a die"
teaches that. The dice the reader's own rule picks for exemplars (``vision.exemplars.chosen``: two of a throw, left as
read, nearest its median size) keep a small grey patch too (324 bytes), for the reader to look for a die the detector
missed by its likeness to the game's dice (issue 59). The lessons are rows of the ``lessons`` table, written in the
same transaction as the throw's action, numbered by it: an undo deletes the lessons of the actions it takes back, a
deleted game takes its lessons along (``ON DELETE CASCADE``), and what the server acknowledged is never half taught.
Lessons a game starts with (a saved dice set, or the old game's in a rematch: same dice, same table) carry numbers
before any action.

The memory read from them is cached per game and revision: a game's lessons change only with its revision.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from companion.errors import Message

if TYPE_CHECKING:
    import sqlite3

    from vision.memory import DiceMemory
    from vision.reader import DiceReader

JSON = dict[str, Any]

LIMIT = 480  # lessons kept per game (vision.memory.LIMIT): 480 x (2.8 kB + a patch of 324 bytes at most), under 1.5 MB
BEFORE = 10_000_000  # lessons a game starts with are numbered this far before its first action
NOT_A_DIE = 6  # vision.memory.NOT_A_DIE (kept here so that the server imports no numpy-heavy reader to count)
PATCH = 18  # px: a lesson's grey patch is (PATCH, PATCH) uint8 (vision.exemplars.PATCH) ...
PATCH_BYTES = PATCH * PATCH  # ... of this many bytes
SET_PATCHES = 6  # patches a saved set keeps, its newest: all a memory uses (vision.memory.EXEMPLARS), so that a set
# of LIMIT lessons stays within 2 kB of its size without them (12 of them in a device's 16 MB, web/owners.py)
SET_NAME_LIMIT = 40  # characters of a dice set's name
CACHED = 16  # games whose memory is kept built


class LessonError(ValueError):
    """A throw's dice do not fit its photo: the request is refused, nothing is kept."""

    def __init__(self, message: Message, conflict: bool = False) -> None:
        super().__init__(message.render())
        self.message = message
        self.conflict = conflict  # the request is sound, the state refuses it (nothing learned, too many sets): 409


@dataclass(frozen=True)
class Lesson:
    k: int  # the die within its throw
    face: int  # 0-5, or NOT_A_DIE
    corrected: bool
    side: float  # a share of the photo's long side (photos of one game may come at several sizes)
    kind: str  # pip or poker
    model: str  # the classifier file that saw it (a memory reads only what its own model saw)
    views: bytes  # float16 (4, width): the crop's embedding in four quarter turns
    patch: bytes | None = None  # uint8 (PATCH, PATCH) grey exemplar of the die (vision.exemplars.patch), or none kept


# ---------------------------------------------------------------------------------------------- rows


INSERT = (
    "INSERT OR REPLACE INTO lessons (game_id, n, k, face, corrected, side, kind, model, views, patch)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _row(game_id: str, n: int, x: Lesson) -> tuple[object, ...]:
    """A lesson as a row of ``INSERT``: a throw's and a game's first (numbered before its actions) alike."""
    return (game_id, n, x.k, x.face, int(x.corrected), x.side, x.kind, x.model, x.views, x.patch)


def keep_lessons(conn: sqlite3.Connection, game_id: str, n: int, lessons: Sequence[Lesson]) -> None:
    """Keep a throw's lessons; the game keeps at most ``LIMIT``, its oldest silent confirmations going first."""
    if not lessons:
        return
    conn.executemany(INSERT, [_row(game_id, n, x) for x in lessons])
    _keep_limit(conn, game_id)


def _keep_limit(conn: sqlite3.Connection, game_id: str) -> None:
    (count,) = conn.execute("SELECT COUNT(*) FROM lessons WHERE game_id = ?", (game_id,)).fetchone()
    if count > LIMIT:
        conn.execute(
            "DELETE FROM lessons WHERE rowid IN (SELECT rowid FROM lessons WHERE game_id = ?"
            " ORDER BY corrected, n, k LIMIT ?)",
            (game_id, count - LIMIT),
        )


def keep_shown(conn: sqlite3.Connection, game_id: str, lessons: Sequence[Lesson]) -> None:
    """Lessons of a photo shown outside any throw: numbered -1, -2, ... (after what a saved set gave, before the
    first action), so that an undo never takes them back."""
    (low,) = conn.execute(
        "SELECT MIN(n) FROM lessons WHERE game_id = ? AND n <= 0 AND n > ?", (game_id, -BEFORE)
    ).fetchone()
    keep_lessons(conn, game_id, min(int(low or 0), 0) - 1, lessons)


def forget_after(conn: sqlite3.Connection, game_id: str, n: int) -> None:
    """The lessons of actions after ``n`` (undone); what the game started knowing stays."""
    conn.execute("DELETE FROM lessons WHERE game_id = ? AND n > ?", (game_id, n))


def learned(conn: sqlite3.Connection, game_id: str) -> JSON:
    """What the table page says the reader knows: dice seen, corrections among them, the saved set it began with
    (``set``, ``set_id``), the dice it learned in this game beyond the set (``new``), and whether the set was updated
    with them (``set_updated``)."""
    seen, corrected, new = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(corrected), 0), COALESCE(SUM(n > ?), 0) FROM lessons"
        " WHERE game_id = ? AND face < ?",
        (-BEFORE, game_id, NOT_A_DIE),
    ).fetchone()
    row = conn.execute("SELECT set_name, set_id, taught FROM game_dice WHERE game_id = ?", (game_id,)).fetchone()
    return {
        "seen": int(seen),
        "corrected": int(corrected),
        "set": row[0] if row and row[0] else None,
        "set_id": int(row[1]) if row and row[1] is not None else None,
        "new": int(new),
        "set_updated": bool(row and row[2]),
    }


def game_lessons(conn: sqlite3.Connection, game_id: str) -> list[tuple[int, Lesson]]:
    rows = conn.execute(
        "SELECT n, k, face, corrected, side, kind, model, views, patch FROM lessons WHERE game_id = ? ORDER BY n, k",
        (game_id,),
    ).fetchall()
    return [
        (
            int(r[0]),
            Lesson(
                int(r[1]),
                int(r[2]),
                bool(r[3]),
                float(r[4]),
                r[5],
                r[6],
                bytes(r[7]),
                None if r[8] is None else bytes(r[8]),
            ),
        )
        for r in rows
    ]


@dataclass(frozen=True)
class Known:
    """What a new game starts knowing: the lessons of a saved set (``set_id``) or of the old game in a rematch, with
    the name shown for them."""

    name: str
    rows: Sequence[tuple[int, Lesson]]
    set_id: int | None = None


def start_knowing(conn: sqlite3.Connection, game_id: str, known: Known) -> None:
    """A new game's first lessons (``rows`` numbered in their own order), before any of its actions."""
    if known.name:
        conn.execute(
            "INSERT OR REPLACE INTO game_dice (game_id, set_name, set_id) VALUES (?, ?, ?)",
            (game_id, known.name, known.set_id),
        )
    if not known.rows:
        return
    last = max(n for n, _ in known.rows)
    conn.executemany(INSERT, [_row(game_id, n - last - BEFORE, x) for n, x in known.rows])
    _keep_limit(conn, game_id)


def known_of(conn: sqlite3.Connection, game_id: str) -> Known:
    """What a rematch of ``game_id`` starts knowing: its lessons, under the name of the set it began with (and that
    set, so that the rematch may update it too)."""
    row = conn.execute("SELECT set_name, set_id FROM game_dice WHERE game_id = ?", (game_id,)).fetchone()
    return Known(row[0] if row else "", game_lessons(conn, game_id), row[1] if row else None)


# ---------------------------------------------------------------------------------------------- dice sets


@dataclass(frozen=True)
class Packed:
    """A game's lessons as a saved set holds them (of the model and kind it saw last)."""

    kind: str
    model: str
    seen: int
    data: bytes


def set_name(name: str) -> str:
    """A set's name as kept (spaces collapsed); LessonError for one empty or too long."""
    name = " ".join(name.split())
    if not name:
        raise LessonError(Message("Give the dice a name."))
    if len(name) > SET_NAME_LIMIT:
        raise LessonError(Message("A name for the dice is at most {n} characters.", n=SET_NAME_LIMIT))
    return name


def pack_game(conn: sqlite3.Connection, game_id: str) -> Packed:
    """The game's lessons packed as a set; refused (409) while it has learned nothing."""
    rows = game_lessons(conn, game_id)
    dice = [x for _, x in rows if x.face != NOT_A_DIE]
    if not dice:
        raise LessonError(
            Message("The reader has not seen these dice yet; confirm a throw with a photo first."), conflict=True
        )
    model, kind = dice[-1].model, dice[-1].kind
    rows = [(n, x) for n, x in rows if x.model == model and x.kind == kind]
    return Packed(kind, model, sum(1 for _, x in rows if x.face != NOT_A_DIE), _pack(rows))


def set_named(conn: sqlite3.Connection, owner: str, name: str) -> int | None:
    """The id of the owner's set of this name (whatever its case), or None: names are unique per owner only."""
    key = name.casefold()
    for set_id, other in conn.execute("SELECT id, name FROM dice_sets WHERE owner = ?", (owner,)):
        if str(other).casefold() == key:
            return int(set_id)
    return None


def keep_set(
    conn: sqlite3.Connection, packed: Packed, name: str, owner: str, address: str, set_id: int | None
) -> JSON:
    """Keep ``packed`` as a new set of ``owner``, or as the new content of the owner's set ``set_id`` (same id, so
    games started from it keep pointing at it; its version goes up, so no unpacked copy of before is used)."""
    if set_id is None:
        cur = conn.execute(
            "INSERT INTO dice_sets (name, kind, model, owner, seen, data, created, address)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (name, packed.kind, packed.model, owner, packed.seen, packed.data, time.time(), address),
        )
        set_id = int(cur.lastrowid or 0)
    else:
        conn.execute(
            "UPDATE dice_sets SET name = ?, kind = ?, model = ?, seen = ?, data = ?, version = version + 1"
            " WHERE id = ?",
            (name, packed.kind, packed.model, packed.seen, packed.data, set_id),
        )
    return set_json(conn, set_id)


def set_json(conn: sqlite3.Connection, set_id: int, mine: bool = True) -> JSON:
    r = conn.execute("SELECT id, name, kind, seen, created FROM dice_sets WHERE id = ?", (set_id,)).fetchone()
    if r is None:
        raise LookupError(set_id)
    created = datetime.fromtimestamp(float(r[4]), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"id": int(r[0]), "name": r[1], "kind": r[2], "seen": int(r[3]), "created": created, "mine": mine}


def list_sets(conn: sqlite3.Connection, usable: dict[int, bool]) -> list[JSON]:
    """The sets ``usable`` names (id: whether the asking device may change it), by name."""
    ids = [int(r[0]) for r in conn.execute("SELECT id FROM dice_sets ORDER BY name COLLATE NOCASE, id")]
    return [set_json(conn, i, usable[i]) for i in ids if i in usable]


def set_name_of(conn: sqlite3.Connection, set_id: int) -> str:
    r = conn.execute("SELECT name FROM dice_sets WHERE id = ?", (set_id,)).fetchone()
    if r is None:
        raise LookupError(set_id)
    return str(r[0])


class Unpacked:
    """Saved sets unpacked, the last ``CACHED`` (a set of 480 lessons takes a few ms to unpack, once per version)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[int, int], tuple[str, list[tuple[int, Lesson]]]] = OrderedDict()

    def get(self, conn: sqlite3.Connection, set_id: int) -> Known:
        """A saved set's name and lessons; LookupError where there is none."""
        r = conn.execute("SELECT version FROM dice_sets WHERE id = ?", (set_id,)).fetchone()
        if r is None:
            raise LookupError(set_id)
        key = (set_id, int(r[0]))
        with self._lock:
            hit = self._kept.get(key)
            if hit is not None:
                self._kept.move_to_end(key)
                return Known(hit[0], hit[1], set_id)
        name, rows = set_rows(conn, set_id)
        with self._lock:
            self._kept[key] = (name, rows)
            while len(self._kept) > CACHED:
                self._kept.popitem(last=False)
        return Known(name, rows, set_id)


def set_rows(conn: sqlite3.Connection, set_id: int) -> tuple[str, list[tuple[int, Lesson]]]:
    """A saved set's name and lessons; LookupError where there is none."""
    r = conn.execute("SELECT name, data FROM dice_sets WHERE id = ?", (set_id,)).fetchone()
    if r is None:
        raise LookupError(set_id)
    return r[0], _unpack(bytes(r[1]))


def delete_set(conn: sqlite3.Connection, set_id: int) -> None:
    if conn.execute("DELETE FROM dice_sets WHERE id = ?", (set_id,)).rowcount == 0:
        raise LookupError(set_id)


def _pack(rows: Sequence[tuple[int, Lesson]]) -> bytes:
    """Lessons as one npz blob (a set outlives the game it came from). The newest ``SET_PATCHES`` patches of the
    lessons (of this reader's size; one of another is of no use to it) as ``patches`` (m, PATCH_BYTES) uint8, each
    the patch of lesson ``patched[j]`` (the memory built from the set keeps no more: its older ones would never be
    looked at): a set packed before issue 59 has neither, and unpacks without."""
    import io

    patched = [i for i, (_, x) in enumerate(rows) if x.patch is not None and len(x.patch) == PATCH_BYTES]
    patched = patched[-SET_PATCHES:]
    buf = io.BytesIO()
    np.savez_compressed(
        buf,
        n=np.array([n for n, _ in rows], np.int64),
        k=np.array([x.k for _, x in rows], np.int64),
        face=np.array([x.face for _, x in rows], np.int8),
        corrected=np.array([x.corrected for _, x in rows], bool),
        side=np.array([x.side for _, x in rows], np.float32),
        kind=np.array([x.kind for _, x in rows]),
        model=np.array([x.model for _, x in rows]),
        views=np.stack([np.frombuffer(x.views, np.float16) for _, x in rows]),
        patched=np.array(patched, np.int64),
        patches=np.array([np.frombuffer(rows[i][1].patch or b"", np.uint8) for i in patched], np.uint8).reshape(
            -1, PATCH_BYTES
        ),
    )
    return buf.getvalue()


def _unpack(data: bytes) -> list[tuple[int, Lesson]]:
    """Each array read from the archive once (``z[name]`` decompresses it again on every access: indexing it per
    lesson cost seconds for a set of 480). A damaged set (its archive, or a patch not of ``PATCH_BYTES``) is a
    LessonError (409): the game that would start from it is not made."""
    import io
    import zipfile

    names = ("n", "k", "face", "corrected", "side", "kind", "model", "views")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {name: z[name] for name in names}
            if "patches" in z.files:  # packed since issue 59
                arrays["patched"], arrays["patches"] = z["patched"], z["patches"]
        count = len(arrays["n"])
        if any(len(arrays[name]) != count for name in names):
            raise ValueError("arrays of different lengths")
        views = arrays["views"].astype(np.float16)
        patches: dict[int, bytes] = {}
        if "patches" in arrays:
            patched, packed = arrays["patched"], arrays["patches"]
            if packed.dtype != np.uint8 or packed.ndim != 2 or packed.shape[1] != PATCH_BYTES:
                raise ValueError(f"patches of shape {packed.shape} {packed.dtype}, not (m, {PATCH_BYTES}) uint8")
            one_each = len(set(patched.tolist())) == len(patched) == len(packed)
            if patched.dtype.kind not in "iu" or patched.ndim != 1 or not one_each:
                raise ValueError("patches not one to a lesson")
            if len(patched) and not 0 <= int(patched.min()) <= int(patched.max()) < count:
                raise ValueError("a patch of a lesson the set lacks")
            patches = {int(i): packed[j].tobytes() for j, i in enumerate(patched)}
    except (OSError, KeyError, EOFError, ValueError, zipfile.BadZipFile) as exc:
        raise LessonError(
            Message("These saved dice are damaged; forget them and save the dice again from a game."), conflict=True
        ) from exc
    return [
        (
            int(arrays["n"][i]),
            Lesson(
                int(arrays["k"][i]),
                int(arrays["face"][i]),
                bool(arrays["corrected"][i]),
                float(arrays["side"][i]),
                str(arrays["kind"][i]),
                str(arrays["model"][i]),
                views[i].tobytes(),
                patches.get(i),
            ),
        )
        for i in range(count)
    ]


# ---------------------------------------------------------------------------------------------- a throw's lessons


@dataclass(frozen=True)
class Taught:
    box: tuple[int, int, int, int]
    face: int
    corrected: bool


def what_it_teaches(reading: JSON, values: Sequence[int], photo_dice: Any, not_dice: Any) -> list[Taught]:
    """The dice a confirmed throw teaches, from its photo's reading and the values the players sent.

    ``photo_dice``: per value, the index of the die it came from in the photo's shown list (the dice proposed, then
    those left out), or None (tapped in, held); absent, the values go to the proposed dice by the likeliest
    assignment (equal values first, then the surest die takes what is left). ``not_dice``: shown dice the players said
    are none. Raises LessonError where they do not fit the photo.
    """
    shown = list(reading.get("dice") or []) + list(reading.get("extra") or [])
    taught: list[Taught] = []
    used: set[int] = set()
    if photo_dice is None:
        taught = _likeliest(list(reading.get("dice") or []), values)
        used = {-1}
    else:
        if not isinstance(photo_dice, list) or len(photo_dice) != len(values):
            raise LessonError(
                Message(
                    "'photo_dice' must list, for each of the {n} dice sent, its die in the photo or null.",
                    n=len(values),
                )
            )
        for value, index in zip(values, photo_dice, strict=True):
            if index is None:
                continue
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(shown) or index in used:
                raise LessonError(
                    Message(
                        "'photo_dice' names a die the photo does not have ({index}); it shows {n}.",
                        index=str(index)[:20],
                        n=len(shown),
                    )
                )
            used.add(index)
            die = shown[index]
            proposed = index < len(reading.get("dice") or [])
            taught.append(Taught(_box(die), value - 1, not proposed or int(die.get("value", 0)) != value))
    if not_dice is not None:
        if not isinstance(not_dice, list):
            raise LessonError(Message("'not_dice' must list the photo's dice that are not dice."))
        for index in not_dice:
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(shown) or index in used:
                raise LessonError(
                    Message(
                        "'not_dice' names a die the photo does not have, or one sent as a die ({index}).",
                        index=str(index)[:20],
                    )
                )
            used.add(index)
            taught.append(Taught(_box(shown[index]), NOT_A_DIE, True))
    return taught


def _box(die: JSON) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = (int(v) for v in die["box"])
    return x0, y0, x1, y1


def _likeliest(dice: list[JSON], values: Sequence[int]) -> list[Taught]:
    from vision.count import assign_values

    read = [(int(d.get("value", 0)), float(d.get("confidence", 0))) for d in dice]
    return [Taught(_box(dice[k]), v - 1, v != read[k][0]) for k, v in assign_values(read, values)]


def lessons_of(reader: DiceReader, jpeg: bytes, kind: str, taught: Sequence[Taught]) -> list[Lesson]:
    """What the reader keeps of each taught die of a photo: its embedding in four turns, and for the dice that
    ``DiceReader.teach`` takes exemplars of (``vision.exemplars.chosen``), their grey patch."""
    if not taught:
        return []
    import cv2

    from vision.exemplars import of_throw
    from vision.memory import VIEWS

    bgr = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if bgr is None:
        return []
    views = reader.embed_boxes(bgr, [t.box for t in taught])[:, :VIEWS].astype(np.float16)
    chosen, exemplars = of_throw(
        bgr, np.asarray([t.box for t in taught], np.float32), [t.face for t in taught], [t.corrected for t in taught]
    )
    patches = {int(k): ex.tobytes() for k, ex in zip(chosen, exemplars, strict=True)}
    model = reader.classifier.digest
    return [
        Lesson(
            k,
            t.face,
            t.corrected,
            float(max(t.box[2] - t.box[0], t.box[3] - t.box[1])) / max(bgr.shape[:2]),
            kind,
            model,
            views[k].tobytes(),
            patches.get(k),
        )
        for k, t in enumerate(taught)
    ]


# ---------------------------------------------------------------------------------------------- the memory


def build(rows: Sequence[tuple[int, Lesson]], reader: DiceReader) -> DiceMemory | None:
    """The memory of a game's lessons, as far as this reader's model saw them (of the kind taught last), with the
    patches of each throw as its exemplars (in the order of its dice; a patch of another size is left out)."""
    mine = [(n, x) for n, x in rows if x.model == reader.classifier.digest]
    if not mine:
        return None
    kind = mine[-1][1].kind
    memory = reader.memory(kind)
    width = sum(reader.classifier.embedding_parts)
    by_throw: dict[int, list[Lesson]] = {}
    for n, x in mine:
        if x.kind == kind:
            by_throw.setdefault(n, []).append(x)
    for n, group in by_throw.items():
        views = np.stack([np.frombuffer(x.views, np.float16).reshape(-1, width) for x in group]).astype(np.float32)
        kept = [x.patch for x in group if x.patch is not None and len(x.patch) == PATCH_BYTES]
        exemplars = np.frombuffer(b"".join(kept), np.uint8).reshape(-1, PATCH, PATCH) if kept else None
        memory.teach(
            n, views, [x.face for x in group], [x.corrected for x in group], [x.side for x in group], exemplars
        )
    memory.weights()  # weighed once here, not by the first photo read with it
    return memory


class Memories:
    """Each game's memory, built once per revision (its lessons change only with it), the last ``CACHED`` games."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._built: OrderedDict[str, tuple[int, DiceMemory | None]] = OrderedDict()

    def get(self, conn: sqlite3.Connection, game_id: str, revision: int, reader: DiceReader) -> DiceMemory | None:
        with self._lock:
            hit = self._built.get(game_id)
            if hit is not None and hit[0] == revision:
                self._built.move_to_end(game_id)
                return hit[1]
        memory = build(game_lessons(conn, game_id), reader)
        with self._lock:
            self._built[game_id] = (revision, memory)
            self._built.move_to_end(game_id)
            while len(self._built) > CACHED:
                self._built.popitem(last=False)
        return memory
