"""The int8 models (vision/train/quantize.py, issue 59): same metadata, read within int8's error, smaller."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import GraphProto, TensorProto, helper, numpy_helper  # noqa: E402

from vision.detect import Detector  # noqa: E402


def _detector(path: Path) -> None:
    """A random conv net at stride 4 with a detector's input, output and metadata."""
    rng = np.random.default_rng(0)
    w1 = rng.normal(0, 0.02, (8, 3, 4, 4)).astype(np.float32)
    w2 = rng.normal(0, 0.3, (4, 8, 1, 1)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["image", "w1"], ["a"], strides=[4, 4]),
            helper.make_node("Relu", ["a"], ["r"]),
            helper.make_node("Conv", ["r", "w2"], ["maps"]),
        ],
        "det",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, "h", "w"])],
        [helper.make_tensor_value_info("maps", TensorProto.FLOAT, [1, 4, "gh", "gw"])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")],
    )
    _save(graph, {"model": "dice-detector", "arch": "lite0", "stride": "4", "long_side": "416", "sweet": "62"}, path)


def _save(graph: GraphProto, meta: dict[str, str], path: Path) -> None:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for k, v in meta.items():
        model.metadata_props.add(key=k, value=v)
    onnx.save(model, str(path))


@pytest.fixture
def photos() -> None:
    """The quantiser and the shared photo sets it calibrates on, or a skip."""
    pytest.importorskip("onnxruntime.quantization")
    from vision.train.data import photo_root

    try:
        photo_root()
    except FileNotFoundError:
        pytest.skip("the shared photo sets are not beside the checkout")


@pytest.mark.usefixtures("photos")
def test_the_int8_detector_keeps_the_metadata_and_the_maps(tmp_path: Path) -> None:
    import cv2

    from vision.train.data import load_photos
    from vision.train.quantize import quantise

    src, dst = tmp_path / "f.onnx", tmp_path / "q.onnx"
    _detector(src)
    quantise(src, dst, images=3)
    q = onnx.load(str(dst))
    assert {n.op_type for n in q.graph.node} >= {"QuantizeLinear", "DequantizeLinear"}
    meta = {p.key: p.value for p in q.metadata_props}
    assert meta["arch"] == "lite0" and meta["sweet"] == "62" and meta["quantised"] == "int8"
    fdet, qdet = Detector(src), Detector(dst)
    assert (qdet.long_side, qdet.sweet) == (416, 62.0)  # as the float file says
    photo = next(it for it in load_photos(("train",)) if it.image is not None)
    tensor, _ = fdet.preprocess(cv2.imread(str(photo.image)))
    a, b = fdet.infer(tensor), qdet.infer(tensor)
    assert a.shape == b.shape
    assert float(np.abs(a - b).mean()) < 0.05 * float(np.abs(a).mean())


def _classifier(path: Path) -> None:
    """A random conv net with a classifier's input, outputs (logits, embedding) and metadata."""
    from vision.classify import FACES
    from vision.reading import PRINTINGS

    rng = np.random.default_rng(1)
    w1 = rng.normal(0, 0.1, (8, 3, 4, 4)).astype(np.float32)
    w2 = rng.normal(0, 0.5, (17, 8)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["crops", "w1"], ["a"], strides=[4, 4]),
            helper.make_node("Relu", ["a"], ["r"]),
            helper.make_node("GlobalAveragePool", ["r"], ["g"]),
            helper.make_node("Flatten", ["g"], ["feat"]),
            helper.make_node("Gemm", ["feat", "w2"], ["logits"], transB=1),
            helper.make_node("Identity", ["feat"], ["embedding"], name="embedding"),
        ],
        "cls",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 64, 64])],
        [
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 17]),
            helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", 8]),
        ],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")],
    )
    names = [*FACES, "background", *sorted(PRINTINGS)]
    meta = {"class_names": json.dumps(names), "input_size": "64", "channels": "3", "context": "1.2",
            "context_px": "8.0", "temperature": "0.8", "embedding_parts": "[8]"}
    _save(graph, meta, path)


@pytest.mark.usefixtures("photos")
def test_the_int8_classifier_keeps_the_metadata_its_embedding_float_and_reads_the_crops_alike(tmp_path: Path) -> None:
    import shutil

    import cv2

    from vision.classify import Classifier
    from vision.reader import CLASSIFIER_FILE, DETECTOR_FILE, MODEL_DIR, DiceReader
    from vision.train.data import load_photos
    from vision.train.quantize import quantise_classifier

    models = tmp_path / "float"
    models.mkdir()
    shutil.copy(MODEL_DIR / DETECTOR_FILE, models / DETECTOR_FILE)
    _classifier(models / CLASSIFIER_FILE)
    dst = tmp_path / CLASSIFIER_FILE
    quantise_classifier(models, dst, images=4)
    q = onnx.load(str(dst))
    assert {n.op_type for n in q.graph.node} >= {"QuantizeLinear", "DequantizeLinear"}
    # the embedding comes from its own node, not from a DequantizeLinear: left float
    assert next(n for n in q.graph.node if "embedding" in n.output).op_type == "Identity"
    meta = {p.key: p.value for p in q.metadata_props}
    assert meta["quantised"] == "int8" and meta["embedding_parts"] == "[8]"
    f, i8 = Classifier(models / CLASSIFIER_FILE), Classifier(dst)
    assert (i8.class_names, i8.temperature, i8.embedding_parts) == (f.class_names, f.temperature, f.embedding_parts)
    # crops of test photos, which the calibration never saw: the logits within int8's error
    reader = DiceReader(models)
    photo = next(it for it in load_photos(("test",)) if it.image is not None)
    bgr = cv2.imread(str(photo.image))
    c = reader.candidates(bgr)
    a, b = f.model_logits(bgr, c, turns=1), i8.model_logits(bgr, c, turns=1)
    assert len(a) and a.shape == b.shape
    assert float(np.abs(a - b).mean()) < 0.05 * float(np.abs(a).mean())
    with pytest.raises(ValueError, match="already int8"):
        quantise_classifier(tmp_path, tmp_path / "again.onnx", images=1)


def test_the_bundled_int8_files_are_made_from_their_float_sources() -> None:
    """models/float holds what each bundled file was quantised from (a fine-tune starts there): one changed alone
    would start the next fine-tune from another model than the one players read with."""
    from vision.reader import CLASSIFIER_FILE, DETECTOR_FILE, MODEL_DIR

    for name in (DETECTOR_FILE, CLASSIFIER_FILE):
        q = {p.key: p.value for p in onnx.load(str(MODEL_DIR / name)).metadata_props}
        f = {p.key: p.value for p in onnx.load(str(MODEL_DIR / "float" / name)).metadata_props}
        assert q.pop("quantised") == "int8" and "quantised" not in f
        assert q == f
