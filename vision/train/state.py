# mypy: disable-error-code="no-untyped-call"
"""Training that outlives a session: checkpoints, exact resume, progress lines, and a compact copy to commit.

A phase (the detector's steps, the classifier's) is a fixed list of batches: item ``k`` of its data set is drawn and
augmented from its own seed, so the data order position is the step alone. A checkpoint holds the model, the
optimiser, the learning-rate schedule, the step and the random states of python, numpy and torch (dropout draws from
torch's); resuming at step ``s`` reads the items from ``s * batch`` on and gives the weights an uninterrupted run gives
(a test compares them).

The full checkpoints live in a git-ignored folder (``--state``, default ``.train-state/``). ``pack`` writes the
compact copy a session commits before it ends (``models/train-state/state.pt``: fp16 weights, the optimiser's moments
in bfloat16, whose range holds Adam's squared gradients, at most 25 MB) and ``unpack`` turns it back into a state
folder; a run resumed from it continues closely, not bit for bit.

    python -m vision.train.state pack [--state .train-state] [--to models/train-state/state.pt]
    python -m vision.train.state unpack [--from models/train-state/state.pt] [--state .train-state]
    python -m vision.train.state show [--state .train-state]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[2]
STATE_DIR = ROOT / ".train-state"
PACKED = ROOT / "models" / "train-state" / "state.pt"
PACK_LIMIT = 25_000_000  # bytes: what the repository takes for a run in progress
EVERY_S = 900.0  # a checkpoint at least this often (seconds)
ARGS = "args.json"
INIT = "init.weights"  # a stage's starting weights, unpacked (not a phase: no .pt)
FINAL = ".weights"  # a finished phase's own weights, unpacked as classifier.weights: what a later stage starts from


class StateError(ValueError):
    """A state folder or packed file that cannot be resumed from, with what to do about it."""


def rng_states() -> dict[str, Any]:
    return {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}


def set_rng_states(s: dict[str, Any]) -> None:
    random.setstate(s["python"])
    np.random.set_state(s["numpy"])
    torch.set_rng_state(s["torch"])


def _atomic_save(obj: Any, path: Path) -> None:
    """Written beside and renamed: a run killed mid-write leaves the previous checkpoint whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        torch.save(obj, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


@dataclass
class Phase:
    """One phase's checkpoints in a state folder: ``<folder>/<name>.pt``, and ``<name>.done`` once it has ended."""

    folder: Path | None
    name: str
    every_s: float = EVERY_S
    stop_after: int | None = None  # stop (with a checkpoint) once this many steps are done: for tests and staged runs

    @property
    def path(self) -> Path | None:
        return None if self.folder is None else self.folder / f"{self.name}.pt"

    def load(self) -> dict[str, Any] | None:
        if self.path is None or not self.path.is_file():
            return None
        ck: dict[str, Any] = torch.load(self.path, map_location="cpu", weights_only=False)
        return ck

    def save(self, step: int, total: int, model: torch.nn.Module, opt: Any, sched: Any, extra: dict[str, Any]) -> None:
        if self.path is None:
            return
        ck = {
            "phase": self.name,
            "step": step,
            "total": total,
            "model": model.state_dict(),
            "opt": opt.state_dict(),
            "sched": sched.state_dict(),
            "rng": rng_states(),
            "saved": time.time(),
            **extra,
        }
        _atomic_save(ck, self.path)

    def mark_done(self, info: dict[str, Any]) -> None:
        if self.folder is not None:
            (self.folder / f"{self.name}.done").write_text(json.dumps(info), encoding="utf-8")

    def done(self) -> dict[str, Any] | None:
        if self.folder is None or not (self.folder / f"{self.name}.done").is_file():
            return None
        out: dict[str, Any] = json.loads((self.folder / f"{self.name}.done").read_text(encoding="utf-8"))
        return out


class Stopped(Exception):
    """A phase stopped at ``Phase.stop_after`` with its checkpoint written; ``--resume`` continues it."""


@dataclass
class Progress:
    """Progress lines: step, running loss, the latest validation figure, speed and time left."""

    name: str
    total: int
    start: int
    log: bool = True
    t0: float = field(default_factory=time.time)
    loss: float = 0.0
    acc: float | None = None
    val: str = ""

    def update(self, step: int, loss: float, acc: float | None) -> None:
        first = step == self.start
        self.loss = loss if first else 0.98 * self.loss + 0.02 * loss
        if acc is not None:
            self.acc = acc if first or self.acc is None else 0.98 * self.acc + 0.02 * acc

    def line(self, step: int) -> str:
        done = step + 1 - self.start
        per = (time.time() - self.t0) / max(done, 1)
        left = per * (self.total - step - 1)
        acc = f" acc {self.acc:.3f}" if self.acc is not None else ""
        val = f" val {self.val}" if self.val else ""
        return (
            f"{self.name} step {step + 1}/{self.total} loss {self.loss:.3f}{acc}{val} "
            f"{per:.2f}s/step, {(time.time() - self.t0) / 60:.1f} min, left {left / 60:.1f} min"
        )

    def print(self, step: int) -> None:
        if self.log:
            print(self.line(step), flush=True)


def run_phase(
    phase: Phase,
    model: torch.nn.Module,
    opt: torch.optim.Optimizer,
    sched: Any,
    data: torch.utils.data.Dataset[Any],
    batch: int,
    total: int,
    step_fn: Callable[[Any], tuple[torch.Tensor, float | None]],
    workers: int = 0,
    device: str = "cpu",
    log: bool = True,
    log_every: int = 100,
    validate: Callable[[], str] | None = None,
) -> None:
    """``total`` steps of ``batch`` items of ``data`` through ``step_fn`` (a batch -> loss, accuracy or None),
    resumed from ``phase``'s checkpoint when it has one, checkpointed every ``phase.every_s`` seconds and at the end.

    ``validate`` gives the validation figure of the progress lines; it runs at each checkpoint and at the end.
    Raises ``Stopped`` at ``phase.stop_after``.
    """
    start = 0
    ck = phase.load()
    if ck is not None:
        if ck["total"] != total:
            raise StateError(
                f"{phase.path}: a run of {ck['total']} {phase.name} steps, not {total}; resume with its own arguments."
            )
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        set_rng_states(ck["rng"])
        start = int(ck["step"])
        if log:
            print(f"{phase.name}: resumed at step {start}/{total} from {phase.path}", flush=True)
    if start >= total:
        return
    loader = torch.utils.data.DataLoader(
        torch.utils.data.Subset(cast(Any, data), range(start * batch, min(total * batch, len(cast(Any, data))))),
        batch_size=batch,
        shuffle=False,
        num_workers=workers,
        prefetch_factor=4 if workers else None,
        pin_memory=device != "cpu",
        # its own generator: a loader draws a seed when it starts, which from torch's global one would shift the
        # dropout of a resumed run by one draw against an uninterrupted one
        generator=torch.Generator().manual_seed(0),
    )
    prog = Progress(phase.name, total, start, log)
    last_save = time.time()
    # a polite kill (SIGTERM, Ctrl-C) ends the step in progress and writes a checkpoint: nothing done is lost
    asked: list[int] = []
    old_handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    if threading.current_thread() is threading.main_thread() and phase.path is not None:
        for sig in old_handlers:
            signal.signal(sig, lambda signum, _frame: asked.append(signum))
    try:
        _steps(phase, model, opt, sched, loader, start, total, step_fn, prog, last_save, log_every, validate, asked)
    finally:
        if threading.current_thread() is threading.main_thread():
            for sig, handler in old_handlers.items():
                signal.signal(sig, handler)


def _steps(
    phase: Phase,
    model: torch.nn.Module,
    opt: torch.optim.Optimizer,
    sched: Any,
    loader: torch.utils.data.DataLoader[Any],
    start: int,
    total: int,
    step_fn: Callable[[Any], tuple[torch.Tensor, float | None]],
    prog: Progress,
    last_save: float,
    log_every: int,
    validate: Callable[[], str] | None,
    asked: list[int],
) -> None:
    model.train()
    step = start
    batches: Iterator[Any] = iter(loader)
    for step in range(start, total):
        loss, acc = step_fn(next(batches))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        prog.update(step, float(loss.detach()), acc)
        end = step + 1 == total
        stop = (bool(asked) or (phase.stop_after is not None and step + 1 >= phase.stop_after)) and not end
        due = time.time() - last_save >= phase.every_s
        if (due or end) and validate is not None:
            model.eval()
            prog.val = validate()
            model.train()
        if step % log_every == 0 or end or due:
            prog.print(step)
        if due or stop:
            phase.save(step + 1, total, model, opt, sched, {})
            last_save = time.time()
        if stop:
            del batches
            why = f" (signal {asked[0]})" if asked else ""
            raise Stopped(f"{phase.name} stopped after step {step + 1}/{total}{why}; --resume continues it.")
    phase.save(total, total, model, opt, sched, {})


# --- the compact copy -------------------------------------------------------------------------------------------


def _squeeze(obj: Any) -> Any:
    """Float tensors to fp16 (weights) or bfloat16 (optimiser moments, whose squares fp16 would flush to zero)."""
    if isinstance(obj, torch.Tensor):
        return obj.to(torch.float16) if obj.is_floating_point() else obj
    if isinstance(obj, dict):
        return {k: _squeeze(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_squeeze(v) for v in obj]
    return obj


def _squeeze_opt(opt: dict[str, Any]) -> dict[str, Any]:
    state = {
        k: {n: (t.to(torch.bfloat16) if isinstance(t, torch.Tensor) and t.is_floating_point() and t.dim() else t)
            for n, t in v.items()}
        for k, v in opt["state"].items()
    }  # fmt: skip
    return {**opt, "state": state}


def _widen(obj: Any) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.float() if obj.is_floating_point() else obj
    if isinstance(obj, dict):
        return {k: _widen(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_widen(v) for v in obj]
    return obj


def pack(folder: Path, to: Path) -> int:
    """The state folder's run in one file: args, finished phases (with their weights, fp16), the phase in progress at
    reduced precision, and the detector file in the run's ``--out`` (the classifier's patches are labelled by it).
    Returns the size in bytes."""
    args_file = folder / ARGS
    if not args_file.is_file():
        raise StateError(f"{folder} holds no run ({ARGS} missing): nothing to pack.")
    out: dict[str, Any] = {"args": json.loads(args_file.read_text(encoding="utf-8")), "done": {}, "phases": {}}
    for done in sorted(folder.glob("*.done")):
        text = done.read_text(encoding="utf-8")
        try:
            out["done"][done.stem] = json.loads(text)
        except ValueError:  # the run's own end marker holds a date, not JSON
            out["done"][done.stem] = text
    for ck_file in sorted(folder.glob("*.pt")):
        ck = torch.load(ck_file, map_location="cpu", weights_only=False)
        if ck_file.stem in out["done"]:
            # a finished phase's weights without its optimiser: its exported model is not committed, and a Lite0
            # stage starts from weights, not from an export (issue 59's stage 16 was lost for want of them)
            out.setdefault("final", {})[ck_file.stem] = _squeeze(ck["model"])
            continue
        ck["model"] = _squeeze(ck["model"])
        ck["opt"] = _squeeze_opt(ck["opt"])
        out["phases"][ck_file.stem] = ck
    init = out["args"].get("cls_init")
    if init and not str(init).endswith(".onnx") and Path(init).is_file():
        # the weights a later Lite0 stage started from: a resume builds the net from them before its checkpoint
        first = torch.load(init, map_location="cpu", weights_only=False)
        out["init"] = _squeeze(first.get("model", first))
    for name in ("dice-detector.onnx",):
        f = Path(out["args"].get("out", "")) / name
        if f.is_file():  # trained by this run or kept (--keep-detector): the classifier's patches are labelled by it
            out.setdefault("files", {})[name] = f.read_bytes()
    buf = io.BytesIO()
    torch.save(out, buf)
    size = len(buf.getvalue())
    if size > PACK_LIMIT:
        raise StateError(f"the packed state is {size / 1e6:.1f} MB, over the {PACK_LIMIT / 1e6:.0f} MB allowed.")
    to.parent.mkdir(parents=True, exist_ok=True)
    tmp = to.with_name(to.name + ".tmp")
    tmp.write_bytes(buf.getvalue())
    os.replace(tmp, to)
    return size


def unpack(src: Path, folder: Path, out_dir: Path | None = None) -> dict[str, Any]:
    """A packed run back as a state folder (``--resume`` then continues it); its files go to ``out_dir`` (default:
    the run's own ``--out``). Returns the run's arguments."""
    if not src.is_file():
        raise StateError(f"{src} not found: pack a run first (python -m vision.train.state pack).")
    if folder.is_dir() and any(folder.iterdir()):
        raise StateError(f"{folder} is not empty: unpack into an empty folder, or move that one aside.")
    packed = torch.load(src, map_location="cpu", weights_only=False)
    folder.mkdir(parents=True, exist_ok=True)
    args = dict(packed["args"])
    if out_dir is not None:
        args["out"] = str(out_dir)
    (folder / ARGS).write_text(json.dumps(args, indent=1), encoding="utf-8")
    for name, info in packed["done"].items():
        (folder / f"{name}.done").write_text(json.dumps(info), encoding="utf-8")
    for name, ck in packed["phases"].items():
        ck["model"] = _widen(ck["model"])
        ck["opt"] = _widen(ck["opt"])
        _atomic_save(ck, folder / f"{name}.pt")
    if "init" in packed:
        _atomic_save({"model": _widen(packed["init"])}, folder / INIT)
        args["cls_init"] = str(folder / INIT)
        (folder / ARGS).write_text(json.dumps(args, indent=1), encoding="utf-8")
    for name, model in packed.get("final", {}).items():
        _atomic_save({"model": _widen(model)}, folder / f"{name}{FINAL}")
    for name, data in packed.get("files", {}).items():
        Path(args["out"]).mkdir(parents=True, exist_ok=True)
        (Path(args["out"]) / name).write_bytes(data)
    return args


def show(folder: Path) -> str:
    lines = [f"{folder}:"]
    for done in sorted(folder.glob("*.done")):
        lines.append(f"  {done.stem}: done {done.read_text(encoding='utf-8')}")
    for ck_file in sorted(folder.glob("*.pt")):
        ck = torch.load(ck_file, map_location="cpu", weights_only=False)
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ck["saved"]))
        lines.append(f"  {ck_file.stem}: step {ck['step']}/{ck['total']}, saved {when}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train.state")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="write the compact copy to commit")
    p.add_argument("--state", type=Path, default=STATE_DIR)
    p.add_argument("--to", type=Path, default=PACKED)
    u = sub.add_parser("unpack", help="a packed run back as a state folder, for --resume")
    u.add_argument("--from", dest="src", type=Path, default=PACKED)
    u.add_argument("--state", type=Path, default=STATE_DIR)
    u.add_argument("--out", type=Path, default=None, help="where the run's files go (default: its own --out)")
    s = sub.add_parser("show", help="where a run stands")
    s.add_argument("--state", type=Path, default=STATE_DIR)
    a = ap.parse_args(argv)
    try:
        if a.cmd == "pack":
            print(f"{a.to}: {pack(a.state, a.to) / 1e6:.1f} MB")
        elif a.cmd == "unpack":
            args = unpack(a.src, a.state, a.out)
            print(f"unpacked into {a.state}; its models go to {args['out']}. Continue: python -m vision.train --resume")
        else:
            print(show(a.state))
    except StateError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
