"""Two classifiers as one file (``vision.train.ensemble``): the reader gets the weighted mean of both models' logits,
the grey one fed the grey crop of the very same colour crop, and files that would need different crops are refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.classify import BACKGROUND, FACES, Classifier, to_input

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vision.train.ensemble import combine, combine_many, main, part  # noqa: E402

N_OUT = BACKGROUND + 1


def _model(channels: int, seed: int, *, size: int = 16, **meta: str) -> onnx.ModelProto:
    """A small random classifier over the flattened crop (every pixel counts, so a wrong grey input shows)."""
    rng = np.random.default_rng(seed)
    w = rng.normal(0, 0.05, (N_OUT, channels * size * size)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Flatten", ["crops"], ["flat"]),
            helper.make_node("Gemm", ["flat", "w", "b"], ["logits"], transB=1),
        ],
        f"random{seed}",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", channels, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", N_OUT])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(rng.normal(0, 1, N_OUT).astype(np.float32), "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    props = {
        "class_names": json.dumps([*FACES, "background"]),
        "input_size": str(size),
        "channels": str(channels),
        "context": "1.2",
        "context_px": "8",
        "temperature": "0.85",
        **meta,
    }
    for k, v in props.items():
        model.metadata_props.add(key=k, value=v)
    return model


def _run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return np.asarray(sess.run(None, {sess.get_inputs()[0].name: x})[0])


def test_the_ensemble_gives_the_weighted_mean_of_both_models_on_the_same_crops() -> None:
    grey, colour = _model(1, 1), _model(3, 2)
    crops = np.random.default_rng(3).integers(0, 256, (6, 16, 16, 3), dtype=np.uint8)
    both = combine(grey, colour, 0.7)
    want = 0.3 * _run(grey, to_input(crops, 1)) + 0.7 * _run(colour, to_input(crops, 3))
    np.testing.assert_allclose(_run(both, to_input(crops, 3)), want, atol=1e-4)


def test_the_ensemble_reads_as_a_colour_classifier_and_must_be_calibrated_again(tmp_path: Path) -> None:
    grey_dir = tmp_path / "grey"
    grey_dir.mkdir()
    onnx.save(_model(1, 1, threshold="0.55"), str(grey_dir / "dice-faces.onnx"))
    (grey_dir / "dice-detector.onnx").write_bytes(b"detector")
    onnx.save(_model(3, 2, arch="lite0-11", threshold="0.28"), str(tmp_path / "colour.onnx"))
    assert main([str(grey_dir / "dice-faces.onnx"), str(tmp_path / "colour.onnx"), str(tmp_path / "out")]) == 0
    clf = Classifier(tmp_path / "out" / "dice-faces.onnx")
    assert (clf.channels, clf.size) == (3, 16)
    assert clf.temperature == 1.0 and clf.threshold == 0.9  # the defaults: neither model's calibration carried over
    assert (tmp_path / "out" / "dice-detector.onnx").read_bytes() == b"detector"


def test_each_part_of_an_ensemble_comes_back_reading_as_the_file_it_was_made_from() -> None:
    grey, colour = _model(1, 1), _model(3, 2)
    both = combine(grey, colour, 0.6)
    crops = np.random.default_rng(4).integers(0, 256, (4, 16, 16, 3), dtype=np.uint8)
    for which, original, x in (("grey", grey, to_input(crops, 1)), ("colour", colour, to_input(crops, 3))):
        np.testing.assert_allclose(_run(part(both, which), x), _run(original, x), atol=1e-5)
    with pytest.raises(ValueError, match="not an ensemble"):
        part(grey, "grey")


@pytest.mark.parametrize(
    ("grey_meta", "colour_channels", "weight", "message"),
    [
        ({"context": "1.25"}, 3, 0.5, "differ in context"),
        ({"class_names": json.dumps(FACES)}, 3, 0.5, "differ in class_names"),
        ({}, 1, 0.5, r"need a grey \(n, 1, s, s\) and a colour"),
        ({}, 3, 1.0, "between 0 and 1"),
    ],
)
def test_classifiers_that_would_need_different_crops_are_refused(
    grey_meta: dict[str, str], colour_channels: int, weight: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        combine(_model(1, 1, **grey_meta), _model(colour_channels, 2), weight)


def test_more_than_two_classifiers_give_the_weighted_sum_and_their_first_parts_come_back(tmp_path: Path) -> None:
    grey, colour, colour2 = _model(1, 1), _model(3, 2), _model(3, 4)
    crops = np.random.default_rng(5).integers(0, 256, (6, 16, 16, 3), dtype=np.uint8)
    three = combine_many([(grey, 0.2), (colour, 0.5), (colour2, 0.3)])
    want = (
        0.2 * _run(grey, to_input(crops, 1))
        + 0.5 * _run(colour, to_input(crops, 3))
        + 0.3 * _run(colour2, to_input(crops, 3))
    )
    np.testing.assert_allclose(_run(three, to_input(crops, 3)), want, atol=1e-4)
    for which, model, channels in (("colour", colour, 3), ("grey", grey, 1)):
        x = to_input(crops, channels)
        np.testing.assert_allclose(_run(part(three, which), x), _run(model, x), atol=1e-5)
    paths = []
    for i, m in enumerate((grey, colour, colour2)):
        paths.append(str(tmp_path / f"m{i}.onnx"))
        onnx.save(m, paths[-1])
    assert main([*paths, str(tmp_path / "out"), "--weights", "0.2", "0.5", "0.3"]) == 0
    written = onnx.load(str(tmp_path / "out" / "dice-faces.onnx"))
    np.testing.assert_allclose(_run(written, to_input(crops, 3)), want, atol=1e-4)
    with pytest.raises(SystemExit):
        main([*paths, str(tmp_path / "out2")])  # three models and no weights


@pytest.mark.parametrize(
    ("channels", "weights", "message"),
    [
        ((1, 3, 3), (0.2, 0.5, 0.5), "add up to 1"),
        ((1, 3, 3), (-0.2, 0.7, 0.5), "positive"),
        ((1, 1), (0.5, 0.5), "at least one colour"),
        ((3,), (1.0,), "two classifiers or more"),
    ],
)
def test_ensembles_with_wrong_weights_or_no_colour_model_are_refused(
    channels: tuple[int, ...], weights: tuple[float, ...], message: str
) -> None:
    members = [(_model(c, i), w) for i, (c, w) in enumerate(zip(channels, weights, strict=True))]
    with pytest.raises(ValueError, match=message):
        combine_many(members)
