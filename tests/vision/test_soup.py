"""Two fine-tunes as one file (``vision.train.soup``): the weights are the weighted mean, the graph and the file size
stay, the calibration goes, and models that are not fine-tunes of one model are refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import helper, numpy_helper  # noqa: E402

from tests.vision.test_ensemble import _model, _run  # noqa: E402
from vision.train.soup import main, mix  # noqa: E402


def _weights(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    return {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}


def test_the_soup_holds_the_weighted_mean_of_both_models_weights() -> None:
    a, b = _model(1, 1, threshold="0.4"), _model(1, 2)
    soup = mix(a, b, 0.25)
    wa, wb, ws = _weights(a), _weights(b), _weights(soup)
    for name in ("w", "b"):
        np.testing.assert_allclose(ws[name], 0.75 * wa[name] + 0.25 * wb[name], rtol=1e-6, atol=1e-7)
    # a linear model: its logits are the same mean
    x = np.random.default_rng(0).normal(size=(4, 1, 16, 16)).astype(np.float32)
    np.testing.assert_allclose(_run(soup, x), 0.75 * _run(a, x) + 0.25 * _run(b, x), rtol=1e-4, atol=1e-4)
    meta = {p.key: p.value for p in soup.metadata_props}
    assert "threshold" not in meta and "temperature" not in meta  # calibrated again, not carried over
    assert meta["class_names"] == {p.key: p.value for p in a.metadata_props}["class_names"]
    np.testing.assert_array_equal(_weights(a)["w"], _weights(_model(1, 1))["w"])  # the inputs are left as they were


def test_three_fine_tunes_are_a_soup_of_a_soup_with_equal_shares() -> None:
    a, b, c = _model(1, 1), _model(1, 2), _model(1, 3)
    soup = mix(mix(a, b, 0.5), c, 1 / 3)
    wa, wb, wc, ws = _weights(a), _weights(b), _weights(c), _weights(soup)
    for name in ("w", "b"):
        np.testing.assert_allclose(ws[name], (wa[name] + wb[name] + wc[name]) / 3, rtol=1e-5, atol=1e-6)
    soups = [p.value for p in soup.metadata_props if p.key == "soup"]
    assert soups == ["0.666667 x (0.5 x A + 0.5 x B) + 0.333333 x B"]  # one key, saying what went in


def test_a_soup_of_a_model_with_itself_is_that_model(tmp_path: Path) -> None:
    a = _model(3, 5)
    onnx.save(a, str(tmp_path / "a.onnx"))
    assert main([str(tmp_path / "a.onnx"), str(tmp_path / "a.onnx"), str(tmp_path / "out" / "soup.onnx")]) == 0
    soup = onnx.load(str(tmp_path / "out" / "soup.onnx"))
    for name, w in _weights(a).items():
        np.testing.assert_array_equal(_weights(soup)[name], w)


def test_models_that_are_not_one_model_fine_tuned_twice_are_refused() -> None:
    with pytest.raises(ValueError, match="weight 'w' differs"):
        mix(_model(1, 1), _model(3, 2))  # the same nodes on other weight shapes
    other = _model(1, 2)
    other.graph.node.append(helper.make_node("Relu", ["logits"], ["more"]))
    with pytest.raises(ValueError, match="different graphs"):
        mix(_model(1, 1), other)
    with pytest.raises(ValueError, match="between 0 and 1"):
        mix(_model(1, 1), _model(1, 2), 1.5)


def test_integer_constants_must_agree() -> None:
    a, b = _model(1, 1), _model(1, 2)
    for model, value in ((a, 1), (b, 2)):
        model.graph.initializer.append(numpy_helper.from_array(np.array([value], np.int64), "k"))
    with pytest.raises(ValueError, match="integer constant 'k'"):
        mix(a, b)
