"""One command, seeded: ``python -m vision.train [--out models] [--quick]``.

Trains the detector and the face classifier on the ``train`` rows of ../shared/dice-photos (less a validation hash
split) plus scenes from vision.synth, exports both to ONNX with their metadata, then calibrates on the validation split:
temperature, detector threshold and the confidence under which a die is flagged uncertain.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import math
import os
import shutil
import time
import warnings
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np
import onnx
import torch

from vision.classify import confidence, fit_confidence, is_die, keep_fit, operating_point
from vision.reader import CLASSIFIER_FILE, DETECTOR_FILE, MODEL_DIR, DiceReader
from vision.synth.faces import FONT_PACKAGES, missing_fonts
from vision.train import augment, state
from vision.train import classifier as cls_train
from vision.train import detector as det_train
from vision.train.candidates import detector_patches, match
from vision.train.data import (
    BACKGROUND,
    CLASS_NAMES,
    VAL_SYNTH_SEED,
    Sample,
    load_photos,
    phantom_samples,
    release_freed_images,
    scene_samples,
    synth_samples,
    to_sample,
)
from vision.train.embedding import with_embedding
from vision.train.lite0 import LiteDetector
from vision.train.models import Detector as TinyDetector


def export(
    model: torch.nn.Module,
    example: torch.Tensor,
    path: Path,
    names: tuple[str, str],
    axes: dict[str, dict[int, str]],
    meta: dict[str, Any],
) -> None:
    model.eval()
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (example,),
            cast(Any, buf),
            input_names=[names[0]],
            output_names=[names[1]],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
    proto = onnx.load_from_string(buf.getvalue())
    set_meta(proto, meta)
    onnx.save(proto, str(path))


def set_meta(proto: onnx.ModelProto, meta: dict[str, Any]) -> None:
    existing = {p.key: p for p in proto.metadata_props}
    for k, v in meta.items():
        if k in existing:
            existing[k].value = str(v)
        else:
            proto.metadata_props.add(key=k, value=str(v))


SYNTH_SEED_MAX = 800_000  # the large test frames' seeds begin here, the validation scenes' above them
DET_GRID = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)  # detector thresholds the calibration weighs


def calibrate(
    out_dir: Path,
    val: list[Sample],
    turns: int,
    det_threshold: float | None = None,
    max_background: float | None = None,
) -> dict[str, Any]:
    """``det_threshold``: read at this detector threshold instead of the one validation F1 picks (its grid's steps
    are often within a die of each other; a pinned one keeps a recalibration comparable with the reader before).
    ``max_background``: the cut on a candidate's background probability, pinned instead of chosen: validation holds
    no photos without dice, so its F1 does not price the phantoms, which follow the cut (issue 59, tenth session)."""
    if max_background is not None and not 0.0 < max_background <= 1.0:
        raise ValueError(f"the cut on background is a probability over 0 and at most 1, not {max_background}.")
    path = out_dir / CLASSIFIER_FILE
    proto = onnx.load(str(path))
    set_meta(proto, {"turns": turns})  # the reader averages this many quarter turns: calibrate what it will do
    onnx.save(proto, str(path))
    reader = DiceReader(out_dir)
    rows = []  # per candidate: image idx, kind, score, logits, label
    printings = []  # per candidate on a court face: (printing taught, printing read)
    for n, s in enumerate(val):
        c = reader.detector.detect(s.img, 0.05)
        full = reader.classifier.model_logits(s.img, c)
        logits = reader.classifier.merge(full)
        lab = match(s, c.centres)
        taught = match(s, c.centres, s.taught)
        for k in range(len(c)):
            rows.append((n, s.kind, float(c.scores[k]), logits[k], int(lab[k])))
            if s.kind == "poker" and CLASS_NAMES[lab[k]] in ("J", "Q", "K") and int(logits[k].argmax()) == lab[k]:
                read = reader.classifier.printing(full[k : k + 1], int(lab[k]))[0]
                printings.append((CLASS_NAMES[taught[k]], str(read)))
    kinds = np.array([r[1] for r in rows])
    scores = np.array([r[2] for r in rows])
    logits = np.stack([r[3] for r in rows])
    labels = np.array([r[4] for r in rows])
    img_idx = np.array([r[0] for r in rows])
    offset = np.where(kinds == "pip", 0, 6)
    idx = np.stack([np.r_[0:6, BACKGROUND] if k == "pip" else np.r_[6:12, BACKGROUND] for k in kinds])
    z_all = np.take_along_axis(logits, idx, axis=1)
    y = np.where(labels == BACKGROUND, 6, labels - offset)

    def probs(t: float) -> np.ndarray:
        z = z_all / t
        z = z - z.max(1, keepdims=True)
        e = np.exp(z)
        out: np.ndarray = e / e.sum(1, keepdims=True)
        return out

    nll = {t: -np.log(probs(t)[np.arange(len(y)), y] + 1e-12).mean() for t in np.round(np.arange(0.5, 3.01, 0.05), 2)}
    temperature = float(min(nll, key=nll.__getitem__))
    p = probs(temperature)
    pred = p.argmax(1)
    conf = p.max(1)

    def kept(det_thr: float, max_bg: float) -> np.ndarray:
        keep: np.ndarray = (scores >= det_thr) & is_die(p, max_bg)
        return keep

    def figures(det_thr: float, max_bg: float) -> tuple[float, float, float]:
        keep = kept(det_thr, max_bg)
        labelled = sum(len(s.classes) for s in val)
        tp = 0
        for n, s in enumerate(val):
            sel = keep & (img_idx == n)
            got = np.bincount(pred[sel] + offset[sel], minlength=12)
            want = np.bincount(s.classes, minlength=12)
            tp += int(np.minimum(got, want).sum())
        prec = tp / max(int(keep.sum()), 1)
        rec = tp / max(labelled, 1)
        return prec, rec, 2 * prec * rec / max(prec + rec, 1e-9)

    cuts = sorted({0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3, 1.0, 1.0 if max_background is None else max_background})
    grid = {(t, b): figures(t, b) for t in DET_GRID for b in cuts}
    det_thr, max_bg = operating_point(
        {
            k: v[2]
            for k, v in grid.items()
            if (det_threshold is None or k[0] == det_threshold) and (max_background is None or k[1] == max_background)
        }
    )
    keep = kept(det_thr, max_bg)
    right = (pred == y)[keep]
    face_p, det_s = conf[keep], scores[keep]

    def flag_threshold(c_keep: np.ndarray) -> tuple[float, float, float]:
        """The loosest threshold giving 99.8 % precision on unflagged dice, capped to flag at most 3 %."""
        order = np.argsort(-c_keep)
        cum_prec = np.cumsum(right[order]) / np.arange(1, len(order) + 1)
        threshold = 0.5
        for k in range(len(order) - 1, -1, -1):
            if cum_prec[k] >= 0.998:
                threshold = float(c_keep[order[k]])
                break
        if len(c_keep) and float((c_keep < threshold).mean()) > 0.03:
            threshold = float(np.quantile(c_keep, 0.03))
        unflagged = c_keep >= threshold
        flagged = float((~unflagged).mean()) if len(c_keep) else 0.0
        precision = float(right[unflagged].mean()) if unflagged.any() else 1.0
        return threshold, flagged, precision

    # the reported confidence: face probability alone, or a fit with the detector's score when that separates better
    model: list[float] | None = fit_confidence(face_p, det_s, right) if len(right) > 20 else None
    plain = flag_threshold(face_p)
    mixed = flag_threshold(confidence(face_p, det_s, model)) if model else plain
    if model is None or not keep_fit(mixed[2], plain[2]):
        model, (threshold, flagged, unflagged_precision) = None, plain
    else:
        threshold, flagged, unflagged_precision = mixed
    c_keep = confidence(face_p, det_s, model)
    result = {
        "temperature": temperature,
        "det_threshold": det_thr,
        "max_background": max_bg,
        "threshold": round(threshold, 4),
        "conf_model": json.dumps(model) if model else "",
        "val_images": len(val),
        "val_precision_recall_f1": [round(v, 4) for v in grid[det_thr, max_bg]],
        # the best F1 when only a candidate whose likeliest class is background is dropped: what the cut gains
        "val_f1_without_background_cut": round(max(v[2] for k, v in grid.items() if k[1] == 1.0), 4),
        "val_flagged": round(flagged, 4),
        "val_unflagged_precision": round(unflagged_precision, 4),
        "val_unflagged_precision_face_only": round(plain[2], 4),
        "val_mean_confidence_vs_right": [round(float(c_keep.mean()), 4), round(float(right.mean()), 4)],
        # of court faces read as the right face, how often the printing (J or B or V...) was read right too
        "val_printing_right": round(sum(a == b for a, b in printings) / max(len(printings), 1), 4),
    }
    path = out_dir / CLASSIFIER_FILE
    proto = onnx.load(str(path))
    kept_meta = ("temperature", "det_threshold", "max_background", "threshold", "conf_model")
    set_meta(proto, {k: result[k] for k in kept_meta})
    with contextlib.suppress(ValueError):  # the features for the memory of a game (issue 52), where a Gemm ends it
        proto = with_embedding(proto)
    onnx.save(proto, str(path))
    return result


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.train")
    ap.add_argument("--out", type=Path, default=MODEL_DIR)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--det-iters", type=int, default=5000)
    ap.add_argument("--det-crop", type=int, default=160, help="detector training patch side (px)")
    ap.add_argument("--det-batch", type=int, default=12)
    ap.add_argument("--cls-epochs", type=int, default=24)
    ap.add_argument("--synth", type=int, default=600, help="rendered poker scenes, half as many pip (0: photos only)")
    ap.add_argument(
        "--turns", type=int, default=1, choices=(1, 2, 4), help="quarter turns per crop (in doubt: eight views)"
    )
    ap.add_argument(
        "--det-threshold",
        type=float,
        default=None,
        choices=DET_GRID,
        help="calibrate at this detector threshold instead of the one validation F1 picks",
    )
    ap.add_argument(
        "--max-background",
        type=float,
        default=None,
        help="calibrate at this cut on the background probability instead of the one validation F1 picks",
    )
    ap.add_argument(
        "--photo-weight", type=float, default=1.0, help="weight of photo crops against renders (classifier)"
    )
    ap.add_argument(
        "--det-photo-weight",
        type=float,
        default=1.0,
        help="how much more often the detector draws a photo than a render",
    )
    ap.add_argument(
        "--steep",
        type=float,
        default=0.0,
        help="share of training renders seen by a steep camera (30-60 degrees; validation renders keep their own)",
    )
    ap.add_argument(
        "--stretch",
        type=float,
        default=0.0,
        help="share of training items stretched to another aspect (up to 1.4:1), as a 4:3 photo exported to a square",
    )
    ap.add_argument(
        "--small",
        type=float,
        default=0.0,
        help="share of classifier training crops whose die is first shrunk to 9-28 px, as a far camera sees it",
    )
    ap.add_argument(
        "--scenes",
        type=Path,
        nargs="*",
        default=[],
        help="folders of labelled scenes to train on as well (labels.csv as the photos'; the Blender renders of "
        "python -m vision.synth.photoreal)",
    )
    ap.add_argument(
        "--scenes-weight", type=float, default=1.0, help="weight of --scenes crops against the flat renders'"
    )
    ap.add_argument(
        "--phantoms",
        type=int,
        default=0,
        help="photos with no dice (vision.synth.phantoms, split train) added to training: their spots and the "
        "detector's candidates on them are taught as background",
    )
    ap.add_argument(
        "--phantoms-weight", type=float, default=1.0, help="weight of --phantoms crops against the flat renders'"
    )
    ap.add_argument("--cls-batch", type=int, default=128)
    ap.add_argument("--cls-width", default="16,32,64,96", help="classifier channels per stage")
    ap.add_argument("--cls-colour", action="store_true", help="colour crops instead of grey (--cls-init: widened)")
    ap.add_argument("--device", default="auto", help="torch device: auto (cuda when there is one), cpu, cuda")
    ap.add_argument("--workers", type=int, default=-1, help="augmentation processes (-1: 0 on cpu, all cores on cuda)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: tiny training, same steps")
    ap.add_argument("--calibrate-only", action="store_true")
    ap.add_argument("--no-calibrate", action="store_true", help="leave the calibration to a later --calibrate-only")
    ap.add_argument("--keep-detector", action="store_true", help="train only the classifier; keep --out's detector")
    ap.add_argument("--keep-classifier", action="store_true", help="train only the detector; keep --out's classifier")
    ap.add_argument(
        "--cls-init",
        type=Path,
        default=None,
        help="fine-tune this classifier: exported .onnx (small), checkpoint .pt (lite0)",
    )
    ap.add_argument("--det-init", type=Path, default=None, help="fine-tune this exported detector instead")
    ap.add_argument("--det-lr", type=float, default=3e-3, help="detector peak learning rate")
    ap.add_argument(
        "--det-arch",
        default="tiny",
        choices=("tiny", "lite0"),
        help="the detector network: tiny (from scratch) or lite0 (Lite0's first blocks from ImageNet, issue 59)",
    )
    ap.add_argument(
        "--det-close",
        default="0,0",
        help="shares of detector patches that show a close-up die and a crop of one die on a canvas (e.g. 0.1,0.1)",
    )
    ap.add_argument(
        "--det-scale",
        default="0.55,1.7",
        help="the range of scales a detector patch is drawn at, times the normal look's (lite0 runs: 0.35,2.8)",
    )
    ap.add_argument("--cls-lr", type=float, default=4e-3, help="classifier peak learning rate")
    ap.add_argument(
        "--det-side-weight",
        type=float,
        default=1.0,
        help="how much more a detection on a rendered side face costs the detector than one elsewhere (1: as before)",
    )
    ap.add_argument(
        "--board-games",
        type=float,
        default=0.0,
        help="share of rendered training scenes on a table strewn with a board game's tokens and pieces (0: as before)",
    )
    ap.add_argument(
        "--touching",
        type=float,
        default=0.0,
        help="share of rendered training scenes whose dice lie against each other most of the time (0: as before)",
    )
    ap.add_argument(
        "--det-half-weight",
        type=float,
        default=1.0,
        help="how much more a detection half a die off its centre costs the detector (1: as before; one die, one box)",
    )
    ap.add_argument(
        "--det-size-per-die",
        action="store_true",
        help="teach each die's side with one weight, not one per cell (small dice sized as well as big ones)",
    )
    ap.add_argument(
        "--cls-teacher",
        type=Path,
        default=None,
        help="an ONNX classifier (models/float/dice-faces.onnx: the bundled pair) whose softened logits the classifier "
        "learns too, where it reads the label's face (distillation; None: labels alone)",
    )
    ap.add_argument("--distill", type=float, default=0.5, help="the teacher's share of the classifier's loss")
    ap.add_argument(
        "--cls-partner",
        type=Path,
        default=None,
        help="an ONNX classifier this one will be joined with (the grey member): the loss is taken of the joined "
        "logits, as vision.train.ensemble joins them (None: of this classifier's own)",
    )
    ap.add_argument(
        "--partner-share", type=float, default=0.4, help="the partner's share of the joined logits (ensemble: 1 - W)"
    )
    ap.add_argument(
        "--partner-mix",
        type=float,
        default=1.0,
        help="with --cls-partner: the joined logits' share of the loss, the rest the classifier's own logits'",
    )
    ap.add_argument("--cls-epoch-size", type=int, default=0, help="crops per classifier epoch (0: one per patch)")
    ap.add_argument(
        "--bodies",
        default="rich",
        choices=("rich", "plain", "bold"),
        help="rendered die bodies: rich (marbled, glitter, translucent, pearl, metallic, carved), bold (rich with "
        "1.6, 1.7 and 3 times the marbled, translucent and metallic sets, for a detector) or plain, as before",
    )
    ap.add_argument(
        "--synth-seed",
        type=int,
        default=1,
        help="first seed of the training renders (poker scenes from 10000 on): a later stage sees new scenes",
    )
    ap.add_argument("--cls-arch", default="small", choices=("small", "lite0"), help="the classifier network")
    ap.add_argument("--cls-blocks", type=int, default=16, help="lite0: how many of its 16 blocks to keep")
    ap.add_argument("--no-pretrained", action="store_true", help="lite0: start from random weights, not ImageNet's")
    ap.add_argument("--state", type=Path, default=state.STATE_DIR, help="checkpoint folder (git-ignored)")
    ap.add_argument("--resume", action="store_true", help="continue the run in --state with its own arguments")
    ap.add_argument(
        "--peek", type=Path, default=None, help="with --resume: export the run's classifier as it stands to this folder"
    )
    ap.add_argument(
        "--checkpoint-every", type=float, default=state.EVERY_S, help="seconds between checkpoints (at most 900)"
    )
    ap.add_argument(
        "--stop-after", type=int, default=None, help="stop the phase in progress after this many of its steps"
    )
    args = ap.parse_args()
    if not 0.0 < args.partner_share < 1.0:
        ap.error(f"--partner-share is the partner's share of the joined logits, 0 to 1, not {args.partner_share}")
    if not 0.0 <= args.partner_mix <= 1.0:
        ap.error(f"--partner-mix is the joined logits' share of the loss, 0 to 1, not {args.partner_mix}")
    if not 1 <= args.cls_blocks <= 16:  # refused now, not after minutes of rendering
        ap.error(f"--cls-blocks is 1 to 16 (Lite0's blocks), not {args.cls_blocks}")
    if not 0 <= args.synth_seed <= SYNTH_SEED_MAX - args.synth - 10_000:
        # the validation scenes start at VAL_SYNTH_SEED and the large test frames at 800000: never train on them
        ap.error(f"--synth-seed with --synth {args.synth} is 0 to {SYNTH_SEED_MAX - args.synth - 10_000}")
    if args.cls_init is not None and (args.cls_init.suffix == ".onnx") == (args.cls_arch == "lite0"):
        ap.error(
            "--cls-init takes an exported .onnx for the small classifier, a checkpoint .pt (a finished run's "
            "classifier.pt) for Lite0"
        )
    try:
        if args.peek is not None:
            if not args.resume:
                ap.error("--peek reads the run in --state: give --resume with it")
            peek(run_args(args, ap.parse_args([])), args.peek)
            return
        args = run_args(args, ap.parse_args([]))
        run(args)
    except state.Stopped as e:
        print(e, flush=True)
    except state.StateError as e:
        raise SystemExit(f"error: {e}") from None


# options that steer this invocation, not the run: they are not stored with it, and --resume takes them from the
# command line
RUN_CONTROL = ("state", "resume", "checkpoint_every", "stop_after", "peek")
RUN_DONE = "run.done"  # written when a run has ended: a fresh one may then reuse its state folder


def run_args(args: argparse.Namespace, defaults: argparse.Namespace) -> argparse.Namespace:
    """The run's arguments: stored in the state folder on a fresh start, read back from it by ``--resume``."""
    if args.calibrate_only:
        args.state = None  # nothing to checkpoint: a calibration takes minutes and leaves any run in --state alone
        return args
    folder: Path = args.state
    stored = folder / state.ARGS
    if args.checkpoint_every > state.EVERY_S:
        raise state.StateError(f"--checkpoint-every is at most {state.EVERY_S:.0f} s, not {args.checkpoint_every}.")
    if args.resume:
        if not stored.is_file():
            raise state.StateError(f"{folder} holds no run to resume ({state.ARGS} missing).")
        ignored = [k for k, v in vars(args).items() if k not in RUN_CONTROL and v != getattr(defaults, k)]
        if ignored:
            print(f"resuming with the run's own arguments; ignored: {', '.join('--' + k for k in ignored)}")
        saved = json.loads(stored.read_text(encoding="utf-8"))
        # a run started before the renderer drew rich bodies (stop 33) goes on with the bodies it started on
        saved.setdefault("bodies", "plain")
        saved.setdefault("synth_seed", 1)  # and on the scenes it started on (before stop 34)
        saved["scenes"] = [Path(p) for p in saved.get("scenes", [])]  # and with no Blender scenes (before stop 38)
        for k, v in saved.items():
            paths = ("out", "cls_init", "det_init", "cls_teacher", "cls_partner")
            setattr(args, k, Path(v) if k in paths and v is not None else v)
        return args
    if stored.is_file() and any(folder.glob("*.pt")) and not (folder / RUN_DONE).is_file():
        raise state.StateError(
            f"{folder} holds an unfinished run: continue it with --resume, or pass another --state (or delete that "
            "folder)."
        )
    folder.mkdir(parents=True, exist_ok=True)
    for old in (*folder.glob("*.pt"), *folder.glob("*.done")):
        old.unlink()  # a finished run's: its models are exported
    keep = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k not in RUN_CONTROL}
    keep["scenes"] = [str(p) for p in args.scenes]
    stored.write_text(json.dumps(keep, indent=1), encoding="utf-8")
    return args


def export_classifier(net: torch.nn.Module, path: Path, args: argparse.Namespace) -> None:
    colour = cls_train.in_channels(net) == 3
    export(
        net,
        torch.zeros(1, 3 if colour else 1, cls_train.CROP, cls_train.CROP),
        path,
        ("crops", "logits"),
        {"crops": {0: "n"}, "logits": {0: "n"}},
        {
            "model": "dice-faces",
            "class_names": json.dumps(CLASS_NAMES),
            "input_size": cls_train.CROP,
            "context": cls_train.CONTEXT,
            "context_px": cls_train.CONTEXT_PX,
            "channels": 3 if colour else 1,
            "arch": args.cls_arch if args.cls_arch == "small" else f"lite0-{args.cls_blocks}",
            "input": f"{'BGR' if colour else 'grey'} crops standardised by their grey level, N x C x S x S",
            "seed": args.seed,
        },
    )


LITE_SWEET = 62.0
# the pretrained net's normal look: at 320 px its finer look comes sooner and sees small dice nearer the size it reads
# best; against 416 with the same net (compare.py, run 5), F1 phone-tray 91.6 -> 92.8, fisheye 95.5 -> 96.5, small-far
# 73.9 -> 79.1, chase 89.7 -> 90.6, phantoms 0.445 -> 0.320 a photo, poker renders 93.8 -> 93.6, and 1.1-1.9 x faster
# (256: fisheye, small-far and the phantoms worse)
LITE_LONG_SIDE = 320


def export_detector(det: torch.nn.Module, path: Path, args: argparse.Namespace) -> None:
    export(
        det_train.Exportable(det),
        torch.zeros(1, 3, 256, 320),
        path,
        ("image", "maps"),
        {"image": {2: "h", 3: "w"}, "maps": {2: "gh", 3: "gw"}},
        {
            "model": "dice-detector",
            "arch": args.det_arch,
            "stride": det_train.STRIDE,
            "long_side": LITE_LONG_SIDE if args.det_arch == "lite0" else det_train.LONG_SIDE,
            "input": "BGR float32 0..255, NCHW, H and W multiples of 32",
            "outputs": json.dumps(["centre_logit", "log_side", "offset_x", "offset_y"]),
            "seed": args.seed,
            # the pretrained net finds 99 % of the validation rows' dice from 30 to 130 input px and more: of two
            # looks at one die, the one nearer 62 px is kept (vision/detect.py, sweet). It also finds 95 % from 20 px,
            # but sizes dice under 20 px up to 2-3 x too big (skovy's 15 px dice as 40): so the finer look stays
            # where the dice look small
            **({"sweet": LITE_SWEET} if args.det_arch == "lite0" else {}),
        },
    )


def peek_detector(args: argparse.Namespace, to: Path) -> bool:
    """The detector of a run still training it, as it stands at its last checkpoint, exported to ``to`` with the
    run's classifier; False where no detector is in progress. A pretrained detector's run takes hours on two cores
    (issue 59): measured half-way with ``benchmarks/compare.py --cand-models`` that folder."""
    ck_file = args.state / "detector.pt"
    if not ck_file.is_file() or (args.state / "detector.done").is_file():
        return False
    ck = torch.load(ck_file, map_location="cpu", weights_only=False)
    net: torch.nn.Module = LiteDetector() if args.det_arch == "lite0" else TinyDetector()
    det_train.Exportable(net).load_state_dict(ck["model"])
    net.eval()
    to.mkdir(parents=True, exist_ok=True)
    export_detector(net, to / DETECTOR_FILE, args)
    classifier = args.out / CLASSIFIER_FILE
    if classifier.is_file() and classifier.resolve() != (to / CLASSIFIER_FILE).resolve():
        shutil.copyfile(classifier, to / CLASSIFIER_FILE)
    print(f"step {ck['step']}/{ck['total']} of the detector exported to {to}", flush=True)
    return True


def peek(args: argparse.Namespace, to: Path) -> None:
    """The classifier of the run in progress (or its detector, while that trains: ``peek_detector``), as it stands
    at its last checkpoint, exported to ``to`` with the run's other model: to measure a run of hours half-way
    (calibrate it with ``--calibrate-only --out`` that folder)."""
    if peek_detector(args, to):
        return
    ck_file = args.state / "classifier.pt"
    if not ck_file.is_file():
        raise state.StateError(f"{args.state} holds no classifier checkpoint to peek at.")
    ck = torch.load(ck_file, map_location="cpu", weights_only=False)
    width = cast(tuple[int, int, int, int], tuple(int(v) for v in args.cls_width.split(",")))
    channels = 3 if args.cls_colour else None
    # a small classifier fine-tuned from an export has that export's layers (batch norms folded): built from it
    init = args.cls_init if args.cls_arch == "small" else None
    net = cls_train.build(args.cls_arch, width, channels, init, blocks=args.cls_blocks, pretrained=False)
    net.load_state_dict(ck["model"])  # copies cast a packed run's fp16 weights back to the module's float32
    to.mkdir(parents=True, exist_ok=True)
    export_classifier(net, to / CLASSIFIER_FILE, args)
    detector = args.out / DETECTOR_FILE
    if detector.is_file() and detector.resolve() != (to / DETECTOR_FILE).resolve():
        shutil.copyfile(detector, to / DETECTOR_FILE)
    print(f"step {ck['step']}/{ck['total']} of the classifier exported to {to}", flush=True)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(args: argparse.Namespace) -> None:
    if args.keep_detector and not (args.out / DETECTOR_FILE).is_file():
        raise state.StateError(f"--keep-detector keeps {args.out / DETECTOR_FILE}, which is not there: copy one in.")
    release_freed_images()
    augment.STRETCH_P = args.stretch  # read by every item's augmentation, in the loader processes too (forked)
    det_train.SIDE_WEIGHT = args.det_side_weight  # likewise
    det_train.HALF_WEIGHT = args.det_half_weight  # likewise
    det_train.SIZE_PER_DIE = args.det_size_per_die  # likewise
    augment.SMALL_P = args.small  # likewise
    lo, hi = (float(v) for v in args.det_scale.split(","))
    det_train.SCALES = (lo, hi)  # likewise
    det_train.CLOSE_P, det_train.CROP_P = (float(v) for v in args.det_close.split(","))  # likewise
    if args.quick:
        args.det_iters, args.cls_epochs, args.synth = 30, 1, min(args.synth, 4)
    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    # rendering and labelling keep every core busy (the main process only waits); loading leaves one to the trainer
    jobs = os.cpu_count() or 1
    workers = args.workers if args.workers >= 0 else (0 if device == "cpu" else max(1, jobs - 1))
    width = cast(tuple[int, int, int, int], tuple(int(v) for v in args.cls_width.split(",")))
    torch.set_num_threads(2 if device == "cpu" else 4)
    cv2.setNumThreads(1)  # before any fork: a forked OpenCV thread pool can hang the loader and pool processes
    print(f"device {device}, {workers} loader workers, {jobs} processes for rendering", flush=True)
    if args.synth and (fonts := missing_fonts()):
        # the run still works, but learns other letters than a machine with the fonts would: say so, loudly
        warnings.warn(
            f"fonts missing ({', '.join(fonts)}): renders draw Pillow's font instead (apt-get install {FONT_PACKAGES})",
            stacklevel=1,
        )
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    photos = load_photos(("train", "val"))
    train = [to_sample(it) for it in photos if it.split == "train"]
    for folder in args.scenes:
        train += scene_samples(folder, weight=args.scenes_weight)
    val = [to_sample(it) for it in photos if it.split == "val"]
    for kind in ("pip", "poker"):
        n = args.synth if kind == "poker" else args.synth // 2
        if not args.calibrate_only:  # calibration reads the validation scenes only
            train += synth_samples(
                n,
                kind,
                seed0=10_000 * (kind == "poker") + args.synth_seed,
                jobs=jobs,
                steep=args.steep,
                bodies=args.bodies,
                board=args.board_games,
                touching=args.touching,
            )
        val += synth_samples(
            max(n // 6, 2 if n else 0),
            kind,
            seed0=VAL_SYNTH_SEED + 10_000 * (kind == "poker"),
            jobs=jobs,
            bodies=args.bodies,
        )
    if args.phantoms and not args.calibrate_only:
        train += phantom_samples(args.phantoms, weight=args.phantoms_weight)
    print(f"{len(train)} training images, {len(val)} validation images ({time.time() - t0:.0f}s)", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    det_phase = state.Phase(args.state, "detector", args.checkpoint_every, args.stop_after)
    cls_phase = state.Phase(args.state, "classifier", args.checkpoint_every, args.stop_after)
    det_done = det_phase.done()
    if det_done and (args.out / DETECTOR_FILE).is_file() and sha256(args.out / DETECTOR_FILE) == det_done["sha256"]:
        print(f"detector: done in an earlier session ({args.out / DETECTOR_FILE})", flush=True)
    elif not args.calibrate_only and not args.keep_detector:
        det = det_train.train(
            train,
            args.det_iters,
            args.seed,
            batch=args.det_batch,
            out=args.det_crop,
            device=device,
            workers=workers,
            lr=args.det_lr,
            init=args.det_init,
            photo_weight=args.det_photo_weight,
            phase=det_phase,
            val=val,
            arch=args.det_arch,
        )
        export_detector(det, args.out / DETECTOR_FILE, args)
        det_phase.mark_done({"sha256": sha256(args.out / DETECTOR_FILE)})
    if cls_phase.done() and (args.out / CLASSIFIER_FILE).is_file():
        print(f"classifier: done in an earlier session ({args.out / CLASSIFIER_FILE})", flush=True)
    elif not args.calibrate_only and not args.keep_classifier:
        patches = cls_train.patches_from(train, rng, photo_weight=args.photo_weight)
        found = detector_patches(args.out, train, jobs, args.photo_weight)
        n_bg = sum(p.cls == BACKGROUND for p in found)
        n_printing = sum(p.cls > BACKGROUND for p in patches)
        print(
            f"{len(patches)} classifier patches from the labels ({n_printing} court printings other than J Q K), "
            f"{len(found)} from the detector ({n_bg} false alarms)",
            flush=True,
        )
        patches += found
        train.clear()  # the images are cut into patches now: free them (gigabytes) before the crops are stacked
        net = cls_train.train(
            patches,
            args.cls_epochs,
            args.seed,
            batch=args.cls_batch,
            width=width,
            device=device,
            workers=workers,
            lr=args.cls_lr,
            init=args.cls_init,
            epoch_size=args.cls_epoch_size,
            channels=3 if args.cls_colour else None,
            arch=args.cls_arch,
            blocks=args.cls_blocks,
            phase=cls_phase,
            val=cls_train.val_crops(cls_train.patches_from(val, np.random.default_rng(args.seed + 1))),
            pretrained=not args.no_pretrained,
            teacher=args.cls_teacher,
            distill=args.distill,
            partner=args.cls_partner,
            partner_share=args.partner_share,
            partner_mix=args.partner_mix,
        )
        export_classifier(net, args.out / CLASSIFIER_FILE, args)
        cls_phase.mark_done({"file": str(args.out / CLASSIFIER_FILE)})
    if not args.no_calibrate:
        print(json.dumps(calibrate(args.out, val, args.turns, args.det_threshold, args.max_background)), flush=True)
    if args.state is not None:
        (args.state / RUN_DONE).write_text(time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), encoding="utf-8")
    print(
        f"done in {time.time() - t0:.0f}s; {math.fsum(p.stat().st_size for p in args.out.glob('*.onnx')) / 1e6:.2f} MB"
    )


if __name__ == "__main__":
    main()
