"""The classifier's crops come from its own file: the bundled grey 64 px model and a colour model of another size both
read, and a file that contradicts itself is refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.classify import BACKGROUND, FACES, Classifier, crop_format
from vision.detect import Candidates

MODELS = Path(__file__).resolve().parents[2] / "models"


def test_crop_format_comes_from_the_metadata_or_else_the_graph() -> None:
    assert crop_format({"input_size": "64"}, ["n", 1, 64, 64], "grey") == (1, 64)
    assert crop_format({"channels": "3", "input_size": "96"}, ["n", 3, 96, 96], "colour") == (3, 96)
    assert crop_format({}, ["n", 3, 48, 48], "no metadata") == (3, 48)
    assert crop_format({"channels": "3", "input_size": "64"}, ["n", "c", "s", "s"], "dynamic") == (3, 64)
    with pytest.raises(ValueError, match="metadata says 1 x 64 px crops, its input is"):
        crop_format({"channels": "1", "input_size": "64"}, ["n", 3, 64, 64], "liar.onnx")
    with pytest.raises(ValueError, match="not 4 channels"):
        crop_format({"channels": "4"}, ["n", "c", 64, 64], "rgba.onnx")


def test_the_bundled_model_reads_colour_64_px_crops() -> None:
    """Since stop 36 the bundled classifier is the grey one and the colour Lite0 in one file (vision.train.ensemble)."""
    clf = Classifier(MODELS / "dice-faces.onnx")
    assert (clf.channels, clf.size) == (3, 64)


def _colour_model(path: Path, size: int, channels_meta: int = 3) -> Path:
    """A tiny colour classifier: class "1" for a blue crop, "2" for a red one (mean of B minus mean of R)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    n_out = BACKGROUND + 1
    w = np.zeros((n_out, 3), np.float32)
    w[0] = [4.0, 0.0, -4.0]  # B - R
    w[1] = [-4.0, 0.0, 4.0]  # R - B
    graph = helper.make_graph(
        [
            helper.make_node("GlobalAveragePool", ["crops"], ["pooled"]),
            helper.make_node("Flatten", ["pooled"], ["flat"]),
            helper.make_node("Gemm", ["flat", "w", "b"], ["logits"], transB=1),
        ],
        "colour",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", n_out])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.zeros(n_out, np.float32), "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    meta = {"class_names": json.dumps([*FACES, "background"]), "input_size": str(size), "channels": str(channels_meta)}
    for k, v in meta.items():
        model.metadata_props.add(key=k, value=v)
    onnx.save(model, str(path))
    return path


def test_a_colour_model_of_another_size_reads_colour_crops_of_its_size(tmp_path: Path) -> None:
    clf = Classifier(_colour_model(tmp_path / "colour.onnx", 48))
    assert (clf.channels, clf.size) == (3, 48)
    img = np.full((200, 300, 3), 128, np.uint8)
    img[60:140, 40:120] = (200, 60, 40)  # a blue die (BGR)
    img[60:140, 180:260] = (40, 60, 200)  # a red one, the same grey as near as can be
    c = Candidates(np.array([[80.0, 100.0], [220.0, 100.0]], np.float32), np.array([60.0, 60.0], np.float32),
                   np.ones(2, np.float32))  # fmt: skip
    logits = clf.logits(img, c, turns=1)
    assert list(logits.argmax(1)) == [0, 1]  # colour told them apart; grey crops could not


def test_a_model_whose_metadata_contradicts_its_input_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"liar\.onnx: its metadata says 1 x 48 px crops"):
        Classifier(_colour_model(tmp_path / "liar.onnx", 48, channels_meta=1))
