"""Quantise a reader's models to int8 (onnxruntime static quantisation): on these cores (VNNI) the pretrained
detector's look costs 1.7 x less, the classifier's crops 1.66 x less.

    python -m vision.train.quantize MODELS_DIR [--out DIR] [--images 48] [--which detector,classifier]

Activations are calibrated on the shared photo sets' ``train`` rows only (never test or unseen rows): the detector on
looks at the reader's scales, the classifier on the crops the reader itself cuts there (dice, and the candidates that
are none); weights per channel. A file keeps the float model's metadata, so the reader reads it the same way, with
``quantised`` added. Judge the result with ``benchmarks/compare.py`` like any other model change.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import onnx
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

from vision.classify import EMBEDDING, crop_dice, to_input, view
from vision.detect import Detector
from vision.reader import CLASSIFIER_FILE, DETECTOR_FILE, DiceReader
from vision.train.data import load_photos

LOOKS = (1.0, 0.5, 1.5)  # times the detector's normal look: the normal look, a coarse and a fine one
CROP_BATCH = 32  # crops a calibration batch of the classifier
FLOAT_DIR = "models/float"  # the bundled int8 files' float sources


def train_photos(count: int) -> Iterator[tuple[int, np.ndarray]]:
    """``count`` train photos spread over the photo sets' train rows, with their place in that draw."""
    items = [it for it in load_photos(("train",)) if it.image is not None]
    step = max(1, len(items) // count)
    for k, it in enumerate(items[::step][:count]):
        bgr = cv2.imread(str(it.image), cv2.IMREAD_COLOR)
        if bgr is not None:
            yield k, bgr


class Feeds(CalibrationDataReader):
    """Calibration inputs given once each, in order."""

    def __init__(self, feeds: list[dict[str, np.ndarray]]) -> None:
        self.feeds = feeds
        self.it = iter(feeds)

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.it, None)


def looks(det: Detector, count: int) -> Feeds:
    """The detector's input tensors of ``count`` train photos, each at one of ``LOOKS`` in turn."""
    return Feeds(
        [
            {det.input: det.preprocess(bgr, round(det.long_side * LOOKS[k % len(LOOKS)]))[0]}
            for k, bgr in train_photos(count)
        ]
    )


def crops(reader: DiceReader, count: int) -> Feeds:
    """The classifier's input batches: the crops ``reader`` cuts around its own candidates on ``count`` train photos
    (the dice and what it takes for dice), each photo's in one of the four quarter turns the reader reads."""
    cls = reader.classifier
    parts = []
    for k, bgr in train_photos(count):
        c = reader.candidates(bgr)
        if len(c):
            parts.append(view(to_input(crop_dice(bgr, c, cls.size, cls.context, cls.margin), cls.channels), k % 4))
    x = np.concatenate(parts) if parts else np.zeros((0, cls.channels, cls.size, cls.size), np.float32)
    return Feeds([{cls.input: np.ascontiguousarray(x[i : i + CROP_BATCH])} for i in range(0, len(x), CROP_BATCH)])


def quantise(src: Path, dst: Path, images: int = 48) -> None:
    """``src`` (a float detector) as int8 at ``dst``, with ``src``'s metadata."""
    refuse_int8(onnx.load(str(src)), src)
    _quantise(src, dst, looks(Detector(src), images))


def quantise_classifier(models: Path, dst: Path, images: int = 48) -> None:
    """``models``' classifier as int8 at ``dst``, calibrated on the crops ``models``' reader cuts."""
    refuse_int8(onnx.load(str(models / CLASSIFIER_FILE)), models / CLASSIFIER_FILE)
    # the embedding stays as its members give it: the memory of a game measures fine distances in it
    _quantise(models / CLASSIFIER_FILE, dst, crops(DiceReader(models), images), keep_float=[EMBEDDING])


def refuse_int8(model: onnx.ModelProto, src: Path, to: str = "quantise") -> None:
    """An int8 file (``model``, loaded from ``src``) is no start for a fine-tune nor for quantising again (it would be
    calibrated on its own rounding): the float file it was made from is (the bundled ones: ``models/float/``)."""
    if any(p.key == "quantised" for p in model.metadata_props):
        raise ValueError(f"{src} is already int8; {to} the float file it was made from ({FLOAT_DIR}).")


def _quantise(src: Path, dst: Path, data: CalibrationDataReader, keep_float: list[str] | None = None) -> None:
    """``src`` as int8 at ``dst``, activations calibrated on ``data``, with ``src``'s metadata."""
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        quantize_static(
            str(pre),
            str(dst),
            data,
            nodes_to_exclude=keep_float or [],
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
    ap.add_argument(
        "--which", default="detector,classifier", help="the models to quantise (any other is copied as it is)"
    )
    args = ap.parse_args(argv)
    which = set(args.which.split(","))
    if not which <= {"detector", "classifier"}:
        ap.error(f"--which: detector and/or classifier, not {args.which}")
    out = args.out or args.models.with_name(args.models.name + "-int8")
    out.mkdir(parents=True, exist_ok=True)
    if "detector" in which:
        quantise(args.models / DETECTOR_FILE, out / DETECTOR_FILE, args.images)
    else:
        shutil.copy(args.models / DETECTOR_FILE, out / DETECTOR_FILE)
    if "classifier" in which:
        quantise_classifier(args.models, out / CLASSIFIER_FILE, args.images)
    else:
        shutil.copy(args.models / CLASSIFIER_FILE, out / CLASSIFIER_FILE)
    for name in (DETECTOR_FILE, CLASSIFIER_FILE):
        print(f"{out / name}: {(out / name).stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
