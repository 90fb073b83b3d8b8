"""What a model folder weighs against the 20 MB budget, as stored and as fp16 or int8 would store it, and what its
classifier costs: ``python benchmarks/model_size.py [--models DIR ...]``.

For each ONNX file: MB as it is, with its weights in fp16 (onnxruntime's float16 converter, inputs and outputs kept
float32) and in int8 (onnxruntime's dynamic quantisation). For the classifier: median ms for 25 crops at its own size
and channels (a ten-dice frame's one view plus rereads), and how far the fp16 and int8 copies' logits move from the
file's on those crops (random, standardised as crops are: a check of the conversion, not of accuracy).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.classify import Classifier  # noqa: E402
from vision.detect import session  # noqa: E402
from vision.reader import CLASSIFIER_FILE, MODEL_DIR  # noqa: E402

BUDGET_MB = 20.0


def fp16_copy(src: Path, dst: Path) -> None:
    import onnx
    from onnxruntime.transformers.float16 import convert_float_to_float16

    onnx.save(convert_float_to_float16(onnx.load(str(src)), keep_io_types=True), str(dst))


def int8_copy(src: Path, dst: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8)


def ms_per_batch(path: Path, x: np.ndarray, runs: int = 30) -> tuple[float, np.ndarray]:
    sess = session(path)
    name = sess.get_inputs()[0].name
    out = np.asarray(sess.run(None, {name: x})[0])
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        sess.run(None, {name: x})
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), out


def report(folder: Path) -> None:
    print(f"{folder}:")
    total = {"as stored": 0.0, "fp16": 0.0, "int8": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        for f in sorted(folder.glob("*.onnx")):
            half, q8 = Path(tmp) / f"{f.stem}.fp16.onnx", Path(tmp) / f"{f.stem}.int8.onnx"
            fp16_copy(f, half)
            int8_copy(f, q8)
            sizes = {"as stored": f.stat().st_size / 1e6, "fp16": half.stat().st_size / 1e6,
                     "int8": q8.stat().st_size / 1e6}  # fmt: skip
            for k, v in sizes.items():
                total[k] += v
            line = f"  {f.name:22s} " + "  ".join(f"{k} {v:5.2f} MB" for k, v in sizes.items())
            if f.name == CLASSIFIER_FILE:
                clf = Classifier(f)
                x = np.random.default_rng(0).normal(size=(25, clf.channels, clf.size, clf.size)).astype(np.float32)
                ms, ref = ms_per_batch(f, x)
                ms16, out16 = ms_per_batch(half, x)
                ms8, out8 = ms_per_batch(q8, x)
                moved16, moved8 = np.abs(out16 - ref).max(), np.abs(out8 - ref).max()
                line += (
                    f"\n    {clf.channels} x {clf.size} px crops, 25 per batch: {ms:.1f} ms (fp16 {ms16:.1f}, int8 "
                    f"{ms8:.1f}); logits moved by fp16 {moved16:.3f}, int8 {moved8:.3f} (their spread {ref.std():.2f})"
                )
            print(line)
    print("  all: " + "  ".join(f"{k} {v:.2f} MB" for k, v in total.items()) + f" (budget {BUDGET_MB:.0f} MB)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, nargs="*", default=[MODEL_DIR])
    for folder in ap.parse_args().models:
        report(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
