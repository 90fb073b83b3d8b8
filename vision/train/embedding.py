"""A classifier file that also says what it saw: ``python -m vision.train.embedding MODEL.onnx [OUT.onnx]``.

The reader that learns the dice of a game (issue 52, ``vision.memory``) compares the crops of a new throw with the
crops the players confirmed. It compares them by the features each member of the classifier computes just before its
last layer: what the model has learned to look at, a few hundred numbers a crop. This adds them as a second output,
``embedding`` (the members' features side by side, in the order of their last layers), and names the width of each
member's part in the metadata (``embedding_parts``), so that each part can be weighed alike. The logits are untouched:
the same file reads exactly as before (tests/vision/test_memory.py checks it on the bundled file).

Needs ``onnx`` (the ``train`` extra); never imported at run time.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import onnx
from onnx import TensorProto, helper

OUTPUT = "embedding"


def _last_layers(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    """Each member's last layer: a Gemm whose output is that member's logits (``grey/logits``, ``colour/logits`` in
    an ensemble; the file's ``logits`` in a single classifier)."""
    layers = [n for n in model.graph.node if n.op_type == "Gemm" and n.output[0].endswith("logits")]
    if not layers:
        raise ValueError("no last layer (a Gemm giving logits) found: not a Becher classifier file.")
    return layers


def with_embedding(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with the output ``embedding`` (n, sum of parts) added; a file that has one is returned as it is."""
    if any(o.name == OUTPUT for o in model.graph.output):
        return model
    weights = {i.name: i for i in model.graph.initializer}
    # in an int8 file (vision/train/quantize.py) a layer's weight is the output of a DequantizeLinear of the initializer
    dequantised = {n.output[0]: n.input[0] for n in model.graph.node if n.op_type == "DequantizeLinear"}
    parts: list[int] = []
    features: list[str] = []
    for node in _last_layers(model):
        w = weights[dequantised.get(node.input[1], node.input[1])]
        trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
        parts.append(int(w.dims[1] if trans_b else w.dims[0]))
        features.append(node.input[0])
    out = onnx.ModelProto()
    out.CopyFrom(model)
    if len(features) == 1:
        out.graph.node.append(helper.make_node("Identity", features, [OUTPUT], name="embedding"))
    else:
        out.graph.node.append(helper.make_node("Concat", features, [OUTPUT], name="embedding", axis=1))
    out.graph.output.append(helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["n", sum(parts)]))
    meta = {p.key: p.value for p in out.metadata_props}
    meta["embedding_parts"] = json.dumps(parts)
    del out.metadata_props[:]
    for key, value in meta.items():
        out.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(out)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path, help="a classifier file (dice-faces.onnx)")
    ap.add_argument("out", type=Path, nargs="?", help="where to write it (default: in place)")
    args = ap.parse_args(argv)
    model = onnx.load(str(args.model))
    out = with_embedding(model)
    onnx.save(out, str(args.out or args.model))
    parts = json.loads({p.key: p.value for p in out.metadata_props}["embedding_parts"])
    print(f"{args.out or args.model}: embedding of {sum(parts)} ({' + '.join(map(str, parts))})")


if __name__ == "__main__":
    main()
