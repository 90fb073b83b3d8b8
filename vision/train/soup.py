"""Two fine-tunes of one model as one file of the same size: ``python -m vision.train.soup A.onnx B.onnx OUT.onnx
[--weight W]``.

Two runs fine-tuned from the same start (the bundled detector, say, once with more renders and once with fewer) sit
close together in weight space; the weighted mean of their weights (a "model soup") often keeps much of what each
learnt, at no cost when reading: one network, not two (model card, "Real photos weighed more"). Runs from different
starts do not average to anything useful, so only files with the same graph are taken. A classifier soup must be
calibrated again (``python -m vision.train --calibrate-only``); the file carries A's metadata without its calibration.

Needs ``onnx`` (the ``train`` extra); never imported at run time.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from vision.train.ensemble import CALIBRATION_META


def _structure(model: onnx.ModelProto) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    return [(n.op_type, tuple(n.input), tuple(n.output)) for n in model.graph.node]


def mix(a: onnx.ModelProto, b: onnx.ModelProto, weight: float = 0.5) -> onnx.ModelProto:
    """A copy of ``a`` whose float weights are ``(1 - weight) x a + weight x b``."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"the second model's weight must lie between 0 and 1, not {weight}.")
    if _structure(a) != _structure(b):
        raise ValueError("the two models have different graphs: only fine-tunes of one model can be averaged.")
    theirs = {i.name: numpy_helper.to_array(i) for i in b.graph.initializer}
    out = onnx.ModelProto()
    out.CopyFrom(a)
    for init in out.graph.initializer:
        mine = numpy_helper.to_array(init)
        other = theirs.get(init.name)
        if other is None or other.shape != mine.shape or other.dtype != mine.dtype:
            raise ValueError(f"weight {init.name!r} differs in name, shape or type between the two models.")
        if np.issubdtype(mine.dtype, np.floating):
            mean = (1.0 - weight) * mine.astype(np.float64) + weight * other.astype(np.float64)
            init.CopyFrom(numpy_helper.from_array(mean.astype(mine.dtype), init.name))
        elif not np.array_equal(mine, other):
            raise ValueError(f"integer constant {init.name!r} differs between the two models.")
    kept = [(p.key, p.value) for p in a.metadata_props if p.key not in (*CALIBRATION_META, "soup")]
    # a soup of a soup says what A was made of: a metadata key may appear once only
    was = next((f"({p.value})" for p in a.metadata_props if p.key == "soup"), "A")
    del out.metadata_props[:]
    for key, value in kept:
        out.metadata_props.add(key=key, value=value)
    out.metadata_props.add(key="soup", value=f"{1 - weight:g} x {was} + {weight:g} x B")
    onnx.checker.check_model(out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path, help="an ONNX file")
    ap.add_argument("b", type=Path, help="a fine-tune of the same model")
    ap.add_argument("out", type=Path, help="the averaged file")
    ap.add_argument("--weight", type=float, default=0.5, help="B's share of the weights")
    args = ap.parse_args(argv)
    model = mix(onnx.load(str(args.a)), onnx.load(str(args.b)), args.weight)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(args.out))
    print(f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB (a classifier must be calibrated again)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
