"""Two classifiers as one ONNX file: ``python -m vision.train.ensemble GREY.onnx COLOUR.onnx OUT_DIR [--weight W]``.

Two models trained differently make different mistakes: the small grey classifier trained on plain dice and the
ImageNet-started colour one trained on rich bodies each win on sets where the other loses (model card, "Two
classifiers as one"). Their logits, averaged, are one classifier to the reader: the file takes the colour crops, turns
them to grey for the grey model (the luma-weighted sum of the standardised colour channels is exactly the standardised
grey crop, ``vision.classify.to_input``), and gives ``(1 - W) x grey + W x colour`` logits. The reader needs no change;
calibrate the result as any classifier (``python -m vision.train --calibrate-only --out OUT_DIR``).

Needs ``onnx`` (the ``train`` extra); never imported at run time.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

from vision.classify import GREY
from vision.reader import CLASSIFIER_FILE, DETECTOR_FILE

# what both files must agree on for one crop to serve both
SHARED_META = ("class_names", "input_size", "context", "context_px")
# the reader's calibration: the ensemble must be calibrated again, so none is carried over
CALIBRATION_META = ("temperature", "det_threshold", "max_background", "threshold", "conf_model", "turns")


def _meta(model: onnx.ModelProto) -> dict[str, str]:
    return {p.key: p.value for p in model.metadata_props}


def input_shape(model: onnx.ModelProto) -> list[int | str]:
    """The graph input's dimensions: a size where fixed, its name where not."""
    return [d.dim_value or d.dim_param for d in model.graph.input[0].type.tensor_type.shape.dim]


def _same(a: str, b: str) -> bool:
    try:
        return bool(json.loads(a) == json.loads(b))
    except ValueError:
        return a == b


def combine(grey: onnx.ModelProto, colour: onnx.ModelProto, weight: float) -> onnx.ModelProto:
    """One graph: colour crops in, the weighted mean of both models' logits out."""
    if not 0.0 < weight < 1.0:
        raise ValueError(f"the colour model's weight must lie between 0 and 1, not {weight}.")
    ga, gb = _meta(grey), _meta(colour)
    for key in SHARED_META:
        if not _same(ga.get(key, ""), gb.get(key, "")):
            raise ValueError(f"the two classifiers differ in {key}: {ga.get(key)!r} against {gb.get(key)!r}.")
    shape_a, shape_b = input_shape(grey), input_shape(colour)
    if len(shape_a) != 4 or len(shape_b) != 4 or shape_a[1] != 1 or shape_b[1] != 3 or shape_a[2:] != shape_b[2:]:
        raise ValueError(f"need a grey (n, 1, s, s) and a colour (n, 3, s, s) classifier, got {shape_a} and {shape_b}.")
    opsets = {(o.domain, o.version) for m in (grey, colour) for o in m.opset_import}
    if len(opsets) != 1:
        raise ValueError(f"the two classifiers use different opsets: {sorted(opsets)}.")
    n_classes = len(json.loads(ga["class_names"]))
    a = onnx.compose.add_prefix(grey, "grey/")
    b = onnx.compose.add_prefix(colour, "colour/")
    crops = "crops"
    nodes = [
        helper.make_node("Conv", [crops, "to_grey"], [a.graph.input[0].name]),
        helper.make_node("Identity", [crops], [b.graph.input[0].name]),
        *a.graph.node,
        *b.graph.node,
        helper.make_node("Mul", [a.graph.output[0].name, "w_grey"], ["grey_part"]),
        helper.make_node("Mul", [b.graph.output[0].name, "w_colour"], ["colour_part"]),
        helper.make_node("Add", ["grey_part", "colour_part"], ["logits"]),
    ]
    consts = [
        numpy_helper.from_array(GREY.reshape(1, 3, 1, 1).astype(np.float32), "to_grey"),
        numpy_helper.from_array(np.array(1.0 - weight, np.float32), "w_grey"),
        numpy_helper.from_array(np.array(weight, np.float32), "w_colour"),
    ]
    graph = helper.make_graph(
        nodes,
        "dice-faces-ensemble",
        [helper.make_tensor_value_info(crops, onnx.TensorProto.FLOAT, shape_b)],
        [helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, [shape_b[0], n_classes])],
        [*a.graph.initializer, *b.graph.initializer, *consts],
    )
    model = helper.make_model(graph, opset_imports=list(colour.opset_import))
    model.ir_version = max(grey.ir_version, colour.ir_version)
    meta = {k: v for k, v in gb.items() if k not in CALIBRATION_META}
    meta.update(
        {
            "arch": f"ensemble: {1 - weight:g} x {ga.get('arch', 'grey')} + {weight:g} x {gb.get('arch', 'colour')}",
            "channels": "3",
            "input": "BGR crops standardised by their grey level, N x C x S x S",
        }
    )
    for k, v in meta.items():
        model.metadata_props.add(key=k, value=v)
    onnx.checker.check_model(model)
    return model


def is_ensemble(model: onnx.ModelProto) -> bool:
    return _meta(model).get("arch", "").startswith("ensemble")


def part(model: onnx.ModelProto, which: str) -> onnx.ModelProto:
    """The ``grey`` or ``colour`` classifier inside an ensemble, as a file of its own (uncalibrated): what fine-tuning
    from the bundled models starts from (``vision.train.classifier.from_onnx`` takes the grey one)."""
    if which not in ("grey", "colour"):
        raise ValueError(f"an ensemble holds a grey and a colour classifier, not {which!r}.")
    if not is_ensemble(model):
        raise ValueError("not an ensemble of two classifiers (its metadata names no ensemble arch).")
    prefix = which + "/"

    def strip(name: str) -> str:
        return name[len(prefix) :] if name.startswith(prefix) else name

    outer_input = model.graph.input[0].name
    nodes = []
    for node in model.graph.node:
        if outer_input in node.input or not all(o.startswith(prefix) for o in node.output):
            continue  # the ensemble's own nodes: the grey conversion, the pass-through, the weighted sum
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        copy.name = strip(copy.name)
        copy.input[:] = [strip(i) for i in copy.input]
        copy.output[:] = [strip(o) for o in copy.output]
        nodes.append(copy)
    inits = []
    for init in model.graph.initializer:
        if init.name.startswith(prefix):
            copy_init = onnx.TensorProto()
            copy_init.CopyFrom(init)
            copy_init.name = strip(init.name)
            inits.append(copy_init)
    # the part's own input and output: what the ensemble's conversion feeds, what its weighted sum takes
    graph_nodes = model.graph.node
    in_name = next(strip(o) for n in graph_nodes if outer_input in n.input for o in n.output if o.startswith(prefix))
    out_name = next(strip(i) for n in graph_nodes if n.op_type == "Mul" for i in n.input if i.startswith(prefix))
    meta = {k: v for k, v in _meta(model).items() if k not in (*CALIBRATION_META, "arch", "input")}
    channels = 1 if which == "grey" else 3
    meta["channels"] = str(channels)
    size = int(meta["input_size"])
    n_classes = len(json.loads(meta["class_names"]))
    graph = helper.make_graph(
        nodes,
        f"dice-faces-{which}",
        [helper.make_tensor_value_info(in_name, onnx.TensorProto.FLOAT, ["n", channels, size, size])],
        [helper.make_tensor_value_info(out_name, onnx.TensorProto.FLOAT, ["n", n_classes])],
        inits,
    )
    out = helper.make_model(graph, opset_imports=list(model.opset_import))
    out.ir_version = model.ir_version
    for k, v in meta.items():
        out.metadata_props.add(key=k, value=v)
    onnx.checker.check_model(out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("grey", type=Path, help="the grey classifier's ONNX file")
    ap.add_argument("colour", type=Path, help="the colour classifier's ONNX file")
    ap.add_argument("out", type=Path, help="folder for the ensemble (with the grey file's detector beside it)")
    ap.add_argument("--weight", type=float, default=0.5, help="the colour model's share of the logits")
    args = ap.parse_args(argv)
    model = combine(onnx.load(str(args.grey)), onnx.load(str(args.colour)), args.weight)
    args.out.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(args.out / CLASSIFIER_FILE))
    detector = args.grey.parent / DETECTOR_FILE
    if detector.is_file() and not (args.out / DETECTOR_FILE).exists():
        shutil.copyfile(detector, args.out / DETECTOR_FILE)
    print(f"{args.out / CLASSIFIER_FILE}: {(args.out / CLASSIFIER_FILE).stat().st_size / 1e6:.1f} MB, not calibrated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
