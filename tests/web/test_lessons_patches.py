"""The server keeps a grey patch of the dice a confirmed throw gives exemplars of (issue 59): with the lesson, by the
reader's own rule, in the game's memory, in a saved set (only its newest few), in an older database (migrated) and
in a set saved before (without them); a damaged patch in a set is refused and nothing changes."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask

from tests.web.conftest import BONE_ROUND, Device
from tests.web.test_lessons import throw_with_photo
from tests.web.test_photos import dice_photo, reader_problem, upload
from web import lessons
from web.lessons import PATCH, PATCH_BYTES, SET_PATCHES, Lesson, LessonError

pytestmark = pytest.mark.skipif(reader_problem() is not None, reason=str(reader_problem()))


def test_the_servers_patch_is_the_readers() -> None:
    from vision.exemplars import PATCH as VISION_PATCH
    from vision.memory import EXEMPLARS

    assert PATCH == VISION_PATCH and PATCH_BYTES == VISION_PATCH**2
    assert SET_PATCHES == EXEMPLARS  # a saved set carries all the patches its memory keeps


def memory(app: Flask, game_id: str) -> Any:
    from vision.reader import get_reader

    store = app.extensions["becher.store"]
    return app.extensions["becher.memories"].get(store.conn(), game_id, store.row(game_id).revision, get_reader())


def rows(app: Flask, game_id: str) -> list[tuple[int, Lesson]]:
    return lessons.game_lessons(app.extensions["becher.store"].conn(), game_id)


def sorted_patches(patches: Sequence[bytes] | np.ndarray) -> list[bytes]:
    return sorted(bytes(p) if isinstance(p, bytes) else np.asarray(p, np.uint8).tobytes() for p in patches)


def two_throws(client: Device) -> str:
    """A game whose first two throws were confirmed with the five-dice photo (a stand between them): its id."""
    game = client.create()
    r, _ = throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, 4])
    assert r.status_code == 201
    assert client.play(game["id"], BONE_ROUND[1]).status_code == 201
    answer = upload(client, game["id"], dice_photo(800, 600)).json
    second = client.play(game["id"], BONE_ROUND[2], photo=answer["photo"]["id"], photo_dice=[0, 1, 2, 3, 4])
    assert second.status_code == 201, second.json
    return str(game["id"])


def test_two_confirmed_throws_give_the_games_memory_exemplars_by_the_readers_own_rule(
    app: Flask, client: Device
) -> None:
    import cv2

    from vision.reader import get_reader

    game_id = two_throws(client)
    kept = rows(app, game_id)
    throws = sorted({n for n, _ in kept})
    assert len(throws) == 2
    store = app.extensions["becher.store"]
    conn = store.conn()
    reader = get_reader()
    expected: list[bytes] = []
    for n in throws:
        mine = [x for m, x in kept if m == n]
        left_as_read = [x for x in mine if not x.corrected and x.face != lessons.NOT_A_DIE]
        patched = [x for x in mine if x.patch is not None]
        assert len(patched) == min(2, len(left_as_read)) and len(patched) > 0
        assert all(len(x.patch or b"") == PATCH_BYTES and not x.corrected for x in patched)
        # what DiceReader.teach keeps of the same photo, boxes, faces and corrections: the same patches
        (photo_id,) = conn.execute("SELECT photo_id FROM actions WHERE game_id = ? AND n = ?", (game_id, n)).fetchone()
        photo = store.photo(photo_id)
        shown = list(photo.reading["dice"]) + list(photo.reading.get("extra") or [])
        bgr = cv2.imdecode(np.frombuffer(store.photo_data(photo_id), np.uint8), cv2.IMREAD_COLOR)
        assert bgr is not None
        boxes = [lessons._box(d) for d in shown[: len(mine)]]
        own = reader.memory("pip")
        reader.teach(own, bgr, n, boxes, [x.face for x in mine], [x.corrected for x in mine])
        assert sorted_patches(own.exemplars) == sorted_patches([x.patch or b"" for x in patched])
        expected += [x.patch or b"" for x in patched]
    got = memory(app, game_id)
    assert got is not None and got.exemplars.shape[1:] == (PATCH, PATCH)
    assert sorted_patches(got.exemplars) == sorted_patches(expected)
    # the second throw undone takes its patches along; the first throw's stay
    assert client.post(f"/api/games/{game_id}/undo", json={"seen": 3}).status_code == 200
    first = [x.patch or b"" for n, x in rows(app, game_id) if x.patch is not None]
    assert sorted_patches(memory(app, game_id).exemplars) == sorted_patches(first) and len(first) < len(expected)


def test_a_saved_set_and_a_rematch_carry_the_patches_into_the_next_games_memory(app: Flask, client: Device) -> None:
    game_id = two_throws(client)
    before = memory(app, game_id).exemplars
    assert len(before) > 0
    saved = client.post(f"/api/games/{game_id}/dice-set", json={"name": "red casino dice"})
    assert saved.status_code == 201
    started = client.post(
        "/api/games", json={"game": "bone", "players": ["A", "B"], "dice_set": saved.json["set"]["id"]}
    )
    assert started.status_code == 201
    assert sorted_patches(memory(app, started.json["game"]["id"]).exemplars) == sorted_patches(before)
    rematch = client.post(f"/api/games/{game_id}/rematch").json["game"]
    assert sorted_patches(memory(app, rematch["id"]).exemplars) == sorted_patches(before)


def lesson(k: int, patch: bytes | None, face: int = 0) -> Lesson:
    return Lesson(k, face, False, 0.5, "pip", "m", np.arange(8, dtype=np.float16).tobytes(), patch)


def some_patch(seed: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, PATCH_BYTES, np.uint8).tobytes()


def test_a_set_packs_its_newest_patches_and_unpacks_them_with_their_lessons() -> None:
    kept = [(n, lesson(k, some_patch(10 * n + k) if k < 2 else None)) for n in range(5) for k in range(3)]
    back = lessons._unpack(lessons._pack(kept))
    assert [x.patch for _, x in back] == [
        x.patch if i >= 6 else None  # 10 patches: the newest SET_PATCHES (of lessons 6 on) kept, the views all
        for i, (_, x) in enumerate(kept)
    ]
    assert [(n, x.views, x.face) for n, x in back] == [(n, x.views, x.face) for n, x in kept]
    few = kept[:6]  # three patches: all kept, a lesson without one stays without
    assert lessons._unpack(lessons._pack(few)) == few


def old_pack(rows: Sequence[tuple[int, Lesson]]) -> bytes:
    """A set as packed before issue 59: no patches."""
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
    )
    return buf.getvalue()


def test_a_set_packed_before_patches_unpacks_without_them() -> None:
    kept = [(n, lesson(k, None)) for n in range(3) for k in range(5)]
    assert lessons._unpack(old_pack(kept)) == kept


def damaged(rows: Sequence[tuple[int, Lesson]], patches: np.ndarray, patched: Sequence[int]) -> bytes:
    """A set packed with these ``patches`` of lessons ``patched``."""
    buf = io.BytesIO()
    with np.load(io.BytesIO(lessons._pack(rows)), allow_pickle=False) as z:
        arrays = {name: z[name] for name in z.files}
    arrays.update(patches=patches, patched=np.asarray(patched, np.int64))
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("patches", "patched"),
    [
        (np.zeros((1, PATCH_BYTES - 24), np.uint8), [0]),  # a patch of the wrong length
        (np.zeros((1, PATCH_BYTES), np.float32), [0]),
        (np.zeros((2, PATCH_BYTES), np.uint8), [0]),  # two patches, one lesson named
        (np.zeros((2, PATCH_BYTES), np.uint8), [1, 1]),
        (np.zeros((1, PATCH_BYTES), np.uint8), [7]),  # a lesson the set lacks
        (np.zeros((1, PATCH_BYTES), np.uint8), [-1]),
    ],
)
def test_a_damaged_patch_is_a_clear_error(patches: np.ndarray, patched: list[int]) -> None:
    kept = [(0, lesson(k, None)) for k in range(5)]
    with pytest.raises(LessonError, match="damaged") as caught:
        lessons._unpack(damaged(kept, patches, patched))
    assert caught.value.conflict


def test_a_set_that_is_no_archive_is_a_clear_error_too() -> None:
    with pytest.raises(LessonError, match="damaged"):
        lessons._unpack(b"not an archive")


def set_blob(app: Flask, set_id: int) -> tuple[bytes, int]:
    with sqlite3.connect(app.config["DATABASE"]) as db:
        data, version = db.execute("SELECT data, version FROM dice_sets WHERE id = ?", (set_id,)).fetchone()
    return bytes(data), int(version)


def put_blob(app: Flask, set_id: int, data: bytes) -> None:
    with sqlite3.connect(app.config["DATABASE"]) as db:
        db.execute("UPDATE dice_sets SET data = ?, version = version + 1 WHERE id = ?", (data, set_id))


def test_a_set_saved_before_starts_a_game_and_a_damaged_one_is_refused_changing_nothing(
    app: Flask, client: Device
) -> None:
    game = client.create()
    throw_with_photo(client, game["id"], photo_dice=[0, 1, 2, 3, 4])
    set_id = client.post(f"/api/games/{game['id']}/dice-set", json={"name": "bone dice"}).json["set"]["id"]
    data, _ = set_blob(app, set_id)
    kept = lessons._unpack(data)
    assert any(x.patch is not None for _, x in kept)
    body = {"game": "bone", "players": ["A", "B"], "dice_set": set_id}
    # saved before issue 59: the game starts knowing its dice, without exemplars
    put_blob(app, set_id, old_pack(kept))
    older = client.post("/api/games", json=body)
    assert older.status_code == 201 and older.json["game"]["memory"]["seen"] == 5
    assert all(x.patch is None for _, x in rows(app, older.json["game"]["id"]))
    assert len(memory(app, older.json["game"]["id"]).exemplars) == 0
    # a patch of the wrong length: refused, no game made, the set as it was
    bad = damaged(kept, np.zeros((1, PATCH_BYTES - 1), np.uint8), [0])
    put_blob(app, set_id, bad)
    games = len(client.get("/api/games").json["games"])
    refused = client.post("/api/games", json=body)
    assert refused.status_code == 409 and "damaged" in refused.json["error"], refused.json
    assert len(client.get("/api/games").json["games"]) == games
    assert set_blob(app, set_id)[0] == bad
    # the throw acknowledged before stays as it was
    first = client.get(f"/api/games/{game['id']}").json["game"]
    assert first["state"]["actions"] == 1 and first["memory"]["seen"] == 5


def test_an_older_database_gets_the_patch_column_and_its_lessons_stay(tmp_path: Path) -> None:
    from web.store import SCHEMA, Store

    path = tmp_path / "old.sqlite3"
    old_schema = SCHEMA.replace("    patch BLOB,\n", "")
    assert old_schema != SCHEMA
    views = np.arange(8, dtype=np.float16).tobytes()
    with sqlite3.connect(path) as db:
        db.executescript(old_schema)
        setup = '{"game": "bone", "players": ["A", "B"], "settings": {}}'
        db.execute(
            "INSERT INTO games (id, game, setup, owner, code, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?)",
            ("g1", "bone", setup, "o", "ABCDEF", 1, 1),
        )
        db.execute(
            "INSERT INTO lessons (game_id, n, k, face, corrected, side, kind, model, views)"
            " VALUES ('g1', 1, 0, 2, 0, 0.1, 'pip', 'm', ?)",
            (views,),
        )
    store = Store(path)
    try:
        conn = store.conn()
        assert "patch" in {r[1] for r in conn.execute("PRAGMA table_info(lessons)")}
        assert lessons.game_lessons(conn, "g1") == [(1, Lesson(0, 2, False, 0.1, "pip", "m", views))]
        with store._write() as w:
            lessons.keep_lessons(w, "g1", 2, [lesson(0, some_patch(1))])
        assert [x.patch for _, x in lessons.game_lessons(conn, "g1")] == [None, some_patch(1)]
    finally:
        store.close()
    Store(path).close()  # opened again: nothing more to add


def test_a_full_set_with_a_patch_on_every_lesson_still_fits_a_devices_twelve() -> None:
    """The bound of saved dice per device (web/owners.py) holds 12 sets of ``LIMIT`` lessons of incompressible
    embeddings at the reader's width, every lesson with a patch: a set keeps only its newest ``SET_PATCHES``."""
    from vision.reader import get_reader
    from web.owners import BYTES_PER_DEVICE, SETS_PER_DEVICE

    width = sum(get_reader().classifier.embedding_parts)
    rng = np.random.default_rng(0)
    full = [
        (
            n // 5,
            Lesson(
                n % 5,
                n % 6,
                False,
                0.5,
                "pip",
                "m",
                rng.standard_normal((4, width)).astype(np.float16).tobytes(),
                some_patch(n),
            ),
        )
        for n in range(lessons.LIMIT)
    ]
    bare = [(n, Lesson(x.k, x.face, x.corrected, x.side, x.kind, x.model, x.views)) for n, x in full]
    size = len(lessons._pack(full))
    assert size - len(lessons._pack(bare)) < SET_PATCHES * PATCH_BYTES + 1024
    assert SETS_PER_DEVICE * size <= BYTES_PER_DEVICE


def test_a_patch_of_another_size_in_a_games_lessons_is_left_out_of_its_memory() -> None:
    from vision.reader import get_reader

    reader = get_reader()
    width = sum(reader.classifier.embedding_parts)
    views = np.zeros((4, width), np.float16).tobytes()
    model = reader.classifier.digest
    kept = [
        (1, Lesson(0, 0, False, 0.1, "pip", model, views, some_patch(1))),
        (1, Lesson(1, 1, False, 0.1, "pip", model, views, b"\x00" * 100)),  # of another version of the reader
        (2, Lesson(0, 2, False, 0.1, "pip", model, views, None)),
    ]
    built = lessons.build(kept, reader)
    assert built is not None and len(built) == 3
    assert sorted_patches(built.exemplars) == [some_patch(1)]
