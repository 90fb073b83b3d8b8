"""End to end: generated scenes shaken then still, read by the real dice reader through the settle logic."""

import numpy as np
import pytest

from vision.camera import CameraSession, reader_for
from vision.settle import SettleConfig

reader_mod = pytest.importorskip("vision.reader")
synth = pytest.importorskip("vision.synth")
MODELS = [reader_mod.MODEL_DIR / reader_mod.DETECTOR_FILE, reader_mod.MODEL_DIR / reader_mod.CLASSIFIER_FILE]
pytestmark = pytest.mark.skipif(
    not all(p.is_file() for p in MODELS), reason="the dice reader's model files are not in models/ yet"
)


def shaken_then_still(image: np.ndarray, seed: int, fps: float = 30.0) -> list[tuple[np.ndarray, float]]:
    """A few frames of the dice moving (the scene jolted about), then a second of stillness with sensor noise."""
    rng = np.random.default_rng(seed)
    frames = []
    for _ in range(6):
        dx, dy = (int(v) for v in rng.integers(-40, 40, 2))
        frames.append(np.roll(image, (dy, dx), axis=(0, 1)))
    for _ in range(round(fps)):
        noisy = image.astype(np.int16) + rng.normal(0, 1.5, image.shape).astype(np.int16)
        frames.append(np.clip(noisy, 0, 255).astype(np.uint8))
    return [(f, i / fps) for i, f in enumerate(frames)]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [11, 12])
def test_real_reader_proposes_the_scene_dice(seed: int) -> None:
    scene = synth.render_scene(seed, kind="pip", n_dice=5, size=(640, 480), split="test")
    session = CameraSession(reader_for("pip"), config=SettleConfig(expected_dice=5))
    proposals = [p for f, t in shaken_then_still(scene.image, seed) if (p := session.feed(f, t)) is not None]
    assert len(proposals) == 1, session.status()
    proposal = proposals[0]
    # The pipeline hands the reader's evidence through: what the reader says of the still picture, die by die
    # (a die the noisy frames disagreed on may only be marked uncertain). The reader's own accuracy against the
    # scene's truth is measured by the benchmarks, not asserted here.
    direct = reader_for("pip")(scene.image)
    assert len(proposal.dice) == len(direct.dice) == 5
    for position, die in enumerate(proposal.ordered):
        cx, cy = (die.box[0] + die.box[2]) / 2, (die.box[1] + die.box[3]) / 2
        same = min(direct.dice, key=lambda d: abs((d.box[0] + d.box[2]) / 2 - cx) + abs((d.box[1] + d.box[3]) / 2 - cy))
        assert die.value == same.value or position in proposal.uncertain
