"""The int8 models (vision/train/quantize.py, issue 59): same metadata, read within int8's error, smaller."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

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
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    meta = {"model": "dice-detector", "arch": "lite0", "stride": "4", "long_side": "416", "sweet": "62"}
    for k, v in meta.items():
        model.metadata_props.add(key=k, value=v)
    onnx.save(model, str(path))


def test_the_int8_detector_keeps_the_metadata_and_the_maps(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime.quantization")
    import cv2

    from vision.train.data import load_photos, photo_root
    from vision.train.quantize import quantise

    try:
        photo_root()
    except FileNotFoundError:
        pytest.skip("the shared photo sets are not beside the checkout")
    src, dst = tmp_path / "f.onnx", tmp_path / "q.onnx"
    _detector(src)
    quantise(src, dst, images=3)
    q = onnx.load(str(dst))
    assert {n.op_type for n in q.graph.node} >= {"QuantizeLinear", "DequantizeLinear"}
    meta = {p.key: p.value for p in q.metadata_props}
    assert meta["arch"] == "lite0" and meta["sweet"] == "62" and meta["quantised"] == "int8"
    fdet, qdet = Detector(src), Detector(dst)
    assert qdet.arch == "lite0" and qdet.sweet == 62.0
    photo = next(it for it in load_photos(("train",)) if it.image is not None)
    tensor, _ = fdet.preprocess(cv2.imread(str(photo.image)))
    a, b = fdet.infer(tensor), qdet.infer(tensor)
    assert a.shape == b.shape
    assert float(np.abs(a - b).mean()) < 0.05 * float(np.abs(a).mean())


def test_the_int8_classifier_keeps_the_metadata_and_reads_the_crops_alike(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime.quantization")
    import cv2

    from vision.classify import Classifier, softmax
    from vision.reader import CLASSIFIER_FILE, MODEL_DIR, DiceReader
    from vision.train.data import load_photos, photo_root
    from vision.train.quantize import quantise_classifier

    try:
        photo_root()
    except FileNotFoundError:
        pytest.skip("the shared photo sets are not beside the checkout")
    dst = tmp_path / CLASSIFIER_FILE
    quantise_classifier(MODEL_DIR, dst, images=4)
    q = onnx.load(str(dst))
    assert {n.op_type for n in q.graph.node} >= {"QuantizeLinear", "DequantizeLinear"}
    meta = {p.key: p.value for p in q.metadata_props}
    assert meta["quantised"] == "int8"
    f, i8 = Classifier(MODEL_DIR / CLASSIFIER_FILE), Classifier(dst)
    assert (i8.class_names, i8.threshold, i8.embedding_parts) == (f.class_names, f.threshold, f.embedding_parts)
    assert dst.stat().st_size < 0.5 * (MODEL_DIR / CLASSIFIER_FILE).stat().st_size
    # crops of test photos, which the calibration never saw: the same best class, nearly the same probabilities
    reader = DiceReader(MODEL_DIR)
    tests = [it for it in load_photos(("test",)) if it.image is not None][::7][:6]
    a, b = [], []
    for it in tests:
        bgr = cv2.imread(str(it.image))
        c = reader.candidates(bgr)
        a.append(softmax(f.logits(bgr, c, turns=1)))
        b.append(softmax(i8.logits(bgr, c, turns=1)))
    pa, pb = np.concatenate(a), np.concatenate(b)
    assert len(pa) >= 10
    assert float((pa.argmax(1) == pb.argmax(1)).mean()) >= 0.95
    assert float(np.abs(pa - pb).max(1).mean()) < 0.03
