"""The game's memory of its dice (vision/memory.py), on hand-made embeddings: what it adds, poisoning, undo, a change
of dice, a restart, its bounds; then the reader with it on a real photo: a correction teaches at once."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageDraw

from vision.memory import EXEMPLARS, HALF_LIFE, NOT_A_DIE, RECENT, DiceMemory
from vision.reader import DiceReader

PARTS = [96, 256]
WIDTH = sum(PARTS)


def prototypes(seed: int) -> np.ndarray:
    """Six faces (and not-a-die) of one dice set: a random direction each."""
    return np.random.default_rng(seed).normal(size=(7, WIDTH)).astype(np.float32)


def crops(proto: np.ndarray, faces: list[int], seed: int, noise: float = 0.25) -> np.ndarray:
    """Embeddings (k, 4 views, width) of dice showing ``faces``: the face's direction, a little noise per view."""
    rng = np.random.default_rng(seed)
    base = proto[faces][:, None, :]
    return (base + noise * rng.normal(size=(len(faces), 4, WIDTH)) * np.abs(base).mean()).astype(np.float32)


def teach_throws(memory: DiceMemory, proto: np.ndarray, first: int, count: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for t in range(first, first + count):
        faces = [int(f) for f in rng.integers(0, 6, 5)]
        memory.teach(t, crops(proto, faces, seed * 1000 + t), faces, [False] * 5, [60.0] * 5)


def read_face(memory: DiceMemory, proto: np.ndarray, face: int, seed: int = 99) -> int:
    """The face a crop of ``face`` reads as where the classifier has no idea (all faces alike)."""
    return int(memory.mixed(np.full((1, 7), 1 / 7), crops(proto, [face], seed)[:, 0]).argmax(axis=1)[0])


def test_an_empty_memory_adds_nothing() -> None:
    memory = DiceMemory("pip", PARTS)
    probs = np.random.default_rng(0).dirichlet(np.ones(7), size=2)
    assert np.allclose(memory.mixed(probs, crops(prototypes(1), [0, 3], 2)[:, 0]), probs, atol=1e-6)


def test_taught_dice_read_as_their_confirmed_faces_and_unlike_crops_get_nothing() -> None:
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS)
    teach_throws(memory, proto, 0, 6, seed=3)
    for face in range(6):
        assert read_face(memory, proto, face) == face
    # a crop like nothing the memory holds: the memory says nothing either way
    stranger = np.random.default_rng(5).normal(size=(1, WIDTH)).astype(np.float32)
    assert memory.knows(stranger)[1][0] < 0.01
    assert memory.knowledge().seen == 30


def test_likeness_is_the_nearest_confirmed_die_not_a_box_said_to_be_none() -> None:
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS)
    assert memory.likeness(crops(proto, [2], 4)[:, 0])[0] == -1.0  # nothing confirmed yet
    teach_throws(memory, proto, 0, 6, seed=3)
    speck = crops(proto, [NOT_A_DIE], 8)
    memory.teach(6, speck, [NOT_A_DIE], [True], [0.1])
    like = memory.likeness(np.concatenate([crops(proto, [2], 4)[:, 0], speck[:, 0]]))
    assert like[0] > 0.8  # a die of this set, seen from another throw
    assert like[1] < 0.3  # a speck tapped away is like no die, though the memory holds its very crop


def test_a_candidate_less_like_the_dice_than_they_are_alike_is_unlike_them() -> None:
    """Issue 59: the floor is the game's own: dice of a set alike to 0.9 make a crop alike to 0.7 a stranger, where a
    fixed cosine would call both dice."""
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS)
    teach_throws(memory, proto, 0, 3, seed=3)
    assert memory.like_floor() is None and not memory.unlike(crops(proto, [0], 5)[:, 0]).any()  # 15 dice: too few
    teach_throws(memory, proto, 3, 5, seed=4)
    floor = memory.like_floor()
    assert floor is not None and 0.8 < floor < 1.0
    die = crops(proto, [3], 6)[:, 0]
    # a crop between this set's 3 and something else: alike, but less than the set's dice are to each other
    speck = (0.55 * proto[3] + 0.45 * np.random.default_rng(9).normal(size=WIDTH) * np.abs(proto[3]).mean())[None]
    like = memory.likeness(np.concatenate([die, speck.astype(np.float32)]))
    assert like[1] > 0.5  # no fixed floor of 0.5 would call it unlike
    assert list(memory.unlike(np.concatenate([die, speck.astype(np.float32)]))) == [False, True]


def test_a_correction_teaches_at_once() -> None:
    """Dice whose six the classifier cannot know: one corrected six, and the next six reads as six."""
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS)
    memory.teach(0, crops(proto, [5], 7), [5], [True], [60.0])
    sure_one = np.array([[0.96, 0.01, 0.01, 0.005, 0.006, 0.004, 0.005]])  # the classifier is sure it is a one
    mixed = memory.mixed(sure_one, crops(proto, [5], 8)[:, 0])[0]
    assert mixed.argmax() == 5 and mixed[5] > 0.5


def test_a_wrong_confirmation_does_not_poison_the_memory() -> None:
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS)
    teach_throws(memory, proto, 0, 10, seed=3)
    # a five confirmed as a three, silently (the player did not look)
    memory.teach(10, crops(proto, [4], 11), [2], [False], [60.0])
    weights = memory.weights()
    assert weights[-1] < 0.3 * np.median(weights[:-1])
    assert read_face(memory, proto, 4) == 4


def test_undo_takes_back_what_the_throw_taught() -> None:
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS)
    teach_throws(memory, proto, 0, 3, seed=3)
    before = memory.knows(crops(proto, [0, 5], 9)[:, 0])
    memory.teach(3, crops(proto, [0, 5], 10), [3, 2], [True, True], [60.0, 60.0])  # a wrong correction ...
    memory.forget(3)  # ... undone
    assert len(memory) == 15
    after = memory.knows(crops(proto, [0, 5], 9)[:, 0])
    assert np.allclose(after[0], before[0]) and np.allclose(after[1], before[1])
    memory.forget_after(0)
    assert set(memory.throws.tolist()) == {0}


def test_dice_changed_midway_are_learned_within_five_throws_and_the_old_ones_fade() -> None:
    old, new = prototypes(1), prototypes(2)
    new[1] = old[5]  # the new dice' two looks like the old dice' six
    memory = DiceMemory("pip", PARTS)
    teach_throws(memory, old, 0, 40, seed=3)
    assert read_face(memory, new, 1) == 5  # before the change is learned, the old six wins
    memory.teach(40, crops(new, [1, 1, 1, 3, 4], 41), [1, 1, 1, 3, 4], [True, True, True, False, False], [60.0] * 5)
    memory.teach(41, crops(new, [1, 0, 2], 42), [1, 0, 2], [False] * 3, [60.0] * 3)
    assert read_face(memory, new, 1) == 1
    old_weight = memory.weights()[memory.throws == 0].max()
    assert old_weight <= 0.5 ** (40 / HALF_LIFE) + 1e-6


def test_a_memory_kept_and_read_back_reads_the_same() -> None:
    proto = prototypes(1)
    memory = DiceMemory("poker", PARTS)
    teach_throws(memory, proto, 0, 4, seed=3)
    memory.teach(4, crops(proto, [NOT_A_DIE], 5), [NOT_A_DIE], [True], [20.0])
    again = DiceMemory.from_bytes(memory.to_bytes())
    q = crops(proto, [0, 1, 2, 3, 4, 5, NOT_A_DIE], 6)[:, 0]
    assert again.kind == "poker" and again.knowledge() == memory.knowledge()
    assert np.allclose(again.knows(q)[0], memory.knows(q)[0], atol=2e-2)
    with pytest.raises(ValueError):
        DiceMemory.from_bytes(memory.to_bytes()[:-20])


def test_the_memory_is_bounded_and_keeps_corrections_longest() -> None:
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS, limit=20)
    memory.teach(0, crops(proto, [5], 1), [5], [True], [60.0])
    teach_throws(memory, proto, 1, 10, seed=3)
    assert len(memory) == 20 and memory.corrected[0] and memory.throws[0] == 0
    assert len(memory.to_bytes()) < 20 * 4 * WIDTH * 2 + 4096


def test_the_size_of_the_dice_in_play_rules_out_other_sizes_once_it_is_known() -> None:
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS)
    sides = np.array([15.0, 45.0, 60.0, 75.0, 95.0, 150.0])
    teach_throws(memory, proto, 0, RECENT - 1, seed=3)
    assert not memory.off_size(sides).any()  # too few throws to know the size
    teach_throws(memory, proto, RECENT - 1, 1, seed=4)
    assert memory.off_size(sides).tolist() == [True, False, False, False, False, True]


def test_bad_lessons_are_refused() -> None:
    memory = DiceMemory("pip", PARTS)
    with pytest.raises(ValueError):
        memory.teach(0, np.zeros((2, 4, WIDTH), np.float32), [1], [False], [60.0])
    with pytest.raises(ValueError):
        memory.teach(0, np.zeros((1, 4, WIDTH), np.float32), [7], [False], [60.0])
    with pytest.raises(ValueError):
        DiceMemory("dominoes", PARTS)


# ---------------------------------------------------------------------------------------------- with the reader


def five_dice() -> bytes:
    """Five light dice showing 1-5 on a dark table."""
    width, height = 800, 600
    img = Image.new("RGB", (width, height), (30, 70, 40))
    draw = ImageDraw.Draw(img)
    side = width // 10
    spots = {1: [(2, 2)], 2: [(1, 1), (3, 3)], 3: [(1, 1), (2, 2), (3, 3)], 4: [(1, 1), (1, 3), (3, 1), (3, 3)]}
    spots[5] = [*spots[4], (2, 2)]
    for i, pips in enumerate([1, 2, 3, 4, 5]):
        x0, y0 = width // 12 + i * (side + side // 2), height // 3
        draw.rounded_rectangle((x0, y0, x0 + side, y0 + side), radius=side // 8, fill=(240, 240, 235))
        r = side // 12
        for gx, gy in spots[pips]:
            cx, cy = x0 + gx * side // 4, y0 + gy * side // 4
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(20, 20, 20))
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


def test_an_empty_memory_reads_exactly_as_the_bundled_reader(reader: DiceReader) -> None:
    data = five_dice()
    plain = reader.read_bytes(data, "auto")
    with_empty = reader.read_bytes(data, "auto", reader.memory("pip"))
    assert [(d.face, d.box, round(d.confidence, 6)) for d in plain.dice] == [
        (d.face, d.box, round(d.confidence, 6)) for d in with_empty.dice
    ]


def test_a_correction_on_a_real_photo_changes_the_next_reading(reader: DiceReader) -> None:
    """Players at this table call the die with two pips a six (say, a printing the model does not know): one
    corrected throw, and the reader proposes it so; the other dice stay as they were."""
    import cv2

    data = five_dice()
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    first = reader.read_bytes(data, "pip")
    assert [d.value for d in first.dice] == [1, 2, 3, 4, 5]
    memory = reader.memory("pip")
    faces = [0, 5, 2, 3, 4]
    reader.teach(
        memory,
        bgr,
        1,
        [d.box for d in first.dice],
        faces,
        [f != d.value - 1 for f, d in zip(faces, first.dice, strict=True)],
    )
    assert memory.knowledge().seen == 5 and memory.knowledge().corrected == 1
    second = reader.read_bytes(data, "pip", memory)
    assert [d.value for d in second.dice] == [1, 6, 3, 4, 5]


def test_a_classifier_file_with_its_embedding_reads_as_before() -> None:
    """vision/train/embedding.py adds an output and leaves the logits as they were."""
    onnx = pytest.importorskip("onnx")
    import onnxruntime as ort

    from vision.reader import CLASSIFIER_FILE, MODEL_DIR
    from vision.train.embedding import OUTPUT, with_embedding

    model = onnx.load(str(MODEL_DIR / CLASSIFIER_FILE))
    assert any(o.name == OUTPUT for o in model.graph.output)  # the bundled file has it
    plain = onnx.ModelProto()
    plain.CopyFrom(model)
    keep = [o for o in plain.graph.output if o.name != OUTPUT]
    del plain.graph.output[:]
    plain.graph.output.extend(keep)
    plain.graph.node.remove(next(n for n in plain.graph.node if n.output[0] == OUTPUT))
    again = with_embedding(plain)
    x = np.random.default_rng(0).normal(size=(3, 3, 64, 64)).astype(np.float32)
    a = ort.InferenceSession(plain.SerializeToString()).run(None, {"crops": x})
    b = ort.InferenceSession(again.SerializeToString()).run(None, {"crops": x})
    assert len(a) == 1 and len(b) == 2 and np.array_equal(a[0], b[0]) and b[1].shape == (3, 352)
    assert with_embedding(again) is again


def test_the_most_dice_of_a_recent_throw_is_a_full_throw_not_a_rethrow() -> None:
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS)
    assert memory.most() == 0
    teach_throws(memory, proto, 0, 1, seed=3)  # five dice
    memory.teach(1, crops(proto, [1, 2], 4), [1, 2], [False, False], [60.0, 60.0])  # a rethrow of two
    memory.teach(2, crops(proto, [1, NOT_A_DIE], 5), [1, NOT_A_DIE], [False, True], [60.0, 20.0])
    assert memory.most() == 5


def _patches(throw: int, k: int = 2) -> np.ndarray:
    """Grey patches standing for a throw's exemplars: each filled with its throw's number."""
    return np.full((k, 18, 18), throw, np.uint8)


def test_exemplars_are_the_newest_few_and_go_with_their_throw() -> None:
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS)
    for t in range(5):
        memory.teach(t, crops(proto, [0, 1], t), [0, 1], [False, False], [0.1, 0.1], _patches(t))
    assert len(memory.exemplars) == EXEMPLARS and memory.exemplar_throws.tolist() == [2, 2, 3, 3, 4, 4]
    assert memory.exemplars[-1, 0, 0] == 4
    memory.forget(4)  # undone: its patches go with its dice
    assert memory.exemplar_throws.tolist() == [2, 2, 3, 3]
    memory.forget_after(2)
    assert memory.exemplar_throws.tolist() == [2, 2]
    # a saved set's exemplars come before the game's own
    saved = DiceMemory("pip", PARTS)
    saved.teach(0, crops(proto, [2], 9), [2], [False], [0.1], _patches(99, 1))
    memory.merge(saved)
    assert memory.exemplars[:, 0, 0].tolist() == [99, 2, 2]


def test_a_memory_kept_with_its_exemplars_reads_back_with_them_and_old_bytes_without() -> None:
    proto = prototypes(1)
    memory = DiceMemory("pip", PARTS)
    teach_throws(memory, proto, 0, 3, seed=3)
    memory.teach(3, crops(proto, [1, 2], 4), [1, 2], [False, False], [0.1, 0.1], _patches(3))
    again = DiceMemory.from_bytes(memory.to_bytes())
    assert np.array_equal(again.exemplars, memory.exemplars)
    assert again.exemplar_throws.tolist() == [3, 3]
    # bytes kept before exemplars existed
    buf = io.BytesIO()
    with np.load(io.BytesIO(memory.to_bytes())) as z:
        np.savez_compressed(buf, **{k: z[k] for k in z.files if not k.startswith("exemplar")})
    old = DiceMemory.from_bytes(buf.getvalue())
    assert len(old) == len(memory) and len(old.exemplars) == 0
    old.teach(4, crops(proto, [3], 5), [3], [False], [0.1], _patches(4, 1))  # and learns them from then on
    assert old.exemplar_throws.tolist() == [4]


def test_exemplars_stay_a_few_kilobytes() -> None:
    proto = prototypes(1)
    rng = np.random.default_rng(0)
    with_ex, without = DiceMemory("pip", PARTS), DiceMemory("pip", PARTS)
    for t in range(8):
        faces = [0, 1, 2, 3, 4]
        views = crops(proto, faces, t)
        noise = rng.integers(0, 256, (2, 18, 18), dtype=np.uint8)  # as incompressible as patches get
        with_ex.teach(t, views, faces, [False] * 5, [0.1] * 5, noise)
        without.teach(t, views, faces, [False] * 5, [0.1] * 5)
    assert len(with_ex.to_bytes()) - len(without.to_bytes()) < 3 * 1024
