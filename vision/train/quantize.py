"""Quantise a detector to int8 (onnxruntime static quantisation): the pretrained detector's looks cost 1.5 x less.

    python -m vision.train.quantize MODELS_DIR [--out DIR] [--images 48]

Activations are calibrated on looks at the reader's scales of the shared photo sets' ``train`` rows only (never test
or unseen rows); weights per channel. The file keeps the float model's metadata, so ``vision.detect`` reads it the
same way, with ``quantised`` added. Judge the result with ``benchmarks/compare.py`` like any other model change.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import cv2
import numpy as np
import onnx
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

from vision.detect import Detector
from vision.reader import CLASSIFIER_FILE, DETECTOR_FILE
from vision.train.data import load_photos

LOOKS = (416, 208, 624)  # the normal look, a coarse and a fine one: the scales the reader runs the net at


class Looks(CalibrationDataReader):
    """The detector's input tensors of ``count`` train photos, each at one of ``LOOKS`` in turn."""

    def __init__(self, det: Detector, count: int) -> None:
        items = [it for it in load_photos(("train",)) if it.image is not None]
        step = max(1, len(items) // count)
        self.tensors: list[dict[str, np.ndarray]] = []
        for k, it in enumerate(items[::step][:count]):
            bgr = cv2.imread(str(it.image), cv2.IMREAD_COLOR)
            if bgr is None:
                continue
            t, _ = det.preprocess(bgr, LOOKS[k % len(LOOKS)])
            self.tensors.append({det.input: t})
        self.it = iter(self.tensors)

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.it, None)


def quantise(src: Path, dst: Path, images: int = 48) -> None:
    """``src`` (a float detector) as int8 at ``dst``, with ``src``'s metadata."""
    det = Detector(src)
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        quantize_static(
            str(pre),
            str(dst),
            Looks(det, images),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
    model, meta = onnx.load(str(dst)), onnx.load(str(src)).metadata_props
    del model.metadata_props[:]
    for p in meta:
        model.metadata_props.add(key=p.key, value=p.value)
    model.metadata_props.add(key="quantised", value="int8")
    onnx.save(model, str(dst))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", type=Path, help="a folder with dice-detector.onnx and dice-faces.onnx")
    ap.add_argument("--out", type=Path, default=None, help="where to write both files (default: MODELS-int8)")
    ap.add_argument("--images", type=int, default=48, help="train photos the activations are calibrated on")
    args = ap.parse_args(argv)
    out = args.out or args.models.with_name(args.models.name + "-int8")
    out.mkdir(parents=True, exist_ok=True)
    quantise(args.models / DETECTOR_FILE, out / DETECTOR_FILE, args.images)
    shutil.copy(args.models / CLASSIFIER_FILE, out / CLASSIFIER_FILE)
    print(f"{out / DETECTOR_FILE}: {(out / DETECTOR_FILE).stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
