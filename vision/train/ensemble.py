"""Classifiers as one ONNX file: ``python -m vision.train.ensemble GREY.onnx COLOUR.onnx [MORE.onnx ...] OUT_DIR``.

Two models trained differently make different mistakes: the small grey classifier trained on plain dice and the
ImageNet-started colour one trained on rich bodies each win on sets where the other loses (model card, "Two
classifiers as one"). Their logits, averaged, are one classifier to the reader: the file takes the colour crops, turns
them to grey for the grey model (the luma-weighted sum of the standardised colour channels is exactly the standardised
grey crop, ``vision.classify.to_input``), and gives ``(1 - W) x grey + W x colour`` logits (more members: ``--weights``,
each model's share). The reader needs no change; calibrate the result as any classifier (``python -m vision.train
--calibrate-only --out OUT_DIR``).

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


def _prefix(channels: int, seen: dict[int, int]) -> str:
    """``grey/`` and ``colour/`` for the first of each kind (what ``part`` takes), ``colour2/`` and on for more."""
    seen[channels] = seen.get(channels, 0) + 1
    name = "grey" if channels == 1 else "colour"
    return f"{name}/" if seen[channels] == 1 else f"{name}{seen[channels]}/"


def combine_many(members: list[tuple[onnx.ModelProto, float]]) -> onnx.ModelProto:
    """One graph: colour crops in, the weighted sum of every member's logits out (grey members get the grey crop)."""
    if len(members) < 2:
        raise ValueError("an ensemble needs two classifiers or more.")
    weights = [w for _, w in members]
    if any(w <= 0.0 for w in weights) or abs(sum(weights) - 1.0) > 1e-6:
        raise ValueError(f"the weights must be positive and add up to 1, not {weights}.")
    metas = [_meta(m) for m, _ in members]
    shapes = [input_shape(m) for m, _ in members]
    for meta, shape in zip(metas[1:], shapes[1:], strict=True):
        for key in SHARED_META:
            if not _same(metas[0].get(key, ""), meta.get(key, "")):
                raise ValueError(f"the classifiers differ in {key}: {metas[0].get(key)!r} against {meta.get(key)!r}.")
        if len(shape) != 4 or shape[2:] != shapes[0][2:]:
            raise ValueError(f"the classifiers need crops of one size, got {shapes[0]} and {shape}.")
    if any(len(s) != 4 or s[1] not in (1, 3) for s in shapes) or all(s[1] == 1 for s in shapes):
        raise ValueError(f"need grey (n, 1, s, s) and colour (n, 3, s, s) classifiers, at least one colour: {shapes}.")
    opsets = {(o.domain, o.version) for m, _ in members for o in m.opset_import}
    if len(opsets) != 1:
        raise ValueError(f"the classifiers use different opsets: {sorted(opsets)}.")
    colour, shape_out = next((m, s) for (m, _), s in zip(members, shapes, strict=True) if s[1] == 3)
    n_classes = len(json.loads(metas[0]["class_names"]))
    crops = "crops"
    seen: dict[int, int] = {}
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = [numpy_helper.from_array(GREY.reshape(1, 3, 1, 1).astype(np.float32), "to_grey")]
    parts: list[str] = []
    arch: list[str] = []
    for (model, weight), shape, meta in zip(members, shapes, metas, strict=True):
        prefix = _prefix(int(shape[1]), seen)
        m = onnx.compose.add_prefix(model, prefix)
        op, inputs = ("Conv", [crops, "to_grey"]) if shape[1] == 1 else ("Identity", [crops])
        nodes.append(helper.make_node(op, inputs, [m.graph.input[0].name]))
        nodes.extend(m.graph.node)
        w_name, part_name = f"w_{prefix[:-1]}", f"{prefix[:-1]}_part"
        nodes.append(helper.make_node("Mul", [m.graph.output[0].name, w_name], [part_name]))
        inits.extend(m.graph.initializer)
        inits.append(numpy_helper.from_array(np.array(weight, np.float32), w_name))
        parts.append(part_name)
        arch.append(f"{weight:g} x {meta.get('arch', 'grey' if shape[1] == 1 else 'colour')}")
    nodes.append(helper.make_node("Sum", parts, ["logits"]))
    graph = helper.make_graph(
        nodes,
        "dice-faces-ensemble",
        [helper.make_tensor_value_info(crops, onnx.TensorProto.FLOAT, shape_out)],
        [helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, [shape_out[0], n_classes])],
        inits,
    )
    out = helper.make_model(graph, opset_imports=list(colour.opset_import))
    out.ir_version = max(m.ir_version for m, _ in members)
    meta_out = {k: v for k, v in _meta(colour).items() if k not in CALIBRATION_META}
    meta_out.update(
        {
            "arch": "ensemble: " + " + ".join(arch),
            "channels": "3",
            "input": "BGR crops standardised by their grey level, N x C x S x S",
        }
    )
    for k, v in meta_out.items():
        out.metadata_props.add(key=k, value=v)
    onnx.checker.check_model(out)
    return out


def combine(grey: onnx.ModelProto, colour: onnx.ModelProto, weight: float) -> onnx.ModelProto:
    """A grey and a colour classifier: ``(1 - weight) x grey + weight x colour``."""
    if not 0.0 < weight < 1.0:
        raise ValueError(f"the colour model's weight must lie between 0 and 1, not {weight}.")
    shape_a, shape_b = input_shape(grey), input_shape(colour)
    if shape_a[1:2] != [1] or shape_b[1:2] != [3]:
        raise ValueError(f"need a grey (n, 1, s, s) and a colour (n, 3, s, s) classifier, got {shape_a} and {shape_b}.")
    return combine_many([(grey, 1.0 - weight), (colour, weight)])


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
    ap.add_argument("models", type=Path, nargs="+", help="ONNX files (the first one's detector is kept)")
    ap.add_argument("out", type=Path, help="folder for the ensemble")
    ap.add_argument("--weight", type=float, default=0.5, help="of two (grey, colour): the colour model's share")
    ap.add_argument("--weights", type=float, nargs="+", default=None, help="each model's share, adding up to 1")
    args = ap.parse_args(argv)
    protos = [onnx.load(str(path)) for path in args.models]
    if args.weights is not None:
        if len(args.weights) != len(protos):
            ap.error(f"{len(protos)} models but {len(args.weights)} weights")
        model = combine_many(list(zip(protos, args.weights, strict=True)))
    elif len(protos) == 2:
        model = combine(protos[0], protos[1], args.weight)
    else:
        ap.error("more than two models need --weights")
    args.out.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(args.out / CLASSIFIER_FILE))
    detector = args.models[0].parent / DETECTOR_FILE
    if detector.is_file() and not (args.out / DETECTOR_FILE).exists():
        shutil.copyfile(detector, args.out / DETECTOR_FILE)
    print(f"{args.out / CLASSIFIER_FILE}: {(args.out / CLASSIFIER_FILE).stat().st_size / 1e6:.1f} MB, not calibrated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
