"""End to end: generated scenes shaken then still, read by the real dice reader through the settle logic."""

import numpy as np
import pytest

from vision.camera import CameraSession, reader_for
from vision.reading import Reading
from vision.settle import SettleConfig, combine_readings

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
def test_real_reader_reads_only_at_rest_and_its_readings_make_the_proposal(seed: int) -> None:
    scene = synth.render_scene(seed, kind="pip", n_dice=5, size=(640, 480), split="test")
    real = reader_for("pip")
    readings: list[Reading] = []

    def reader(bgr: np.ndarray) -> Reading:
        readings.append(real(bgr))
        return readings[-1]

    # Any number of dice: what is asserted is the pipeline, not the reader's accuracy (benchmarks measure that).
    config = SettleConfig(expected_dice=None)
    session = CameraSession(reader, config=config)
    proposals = [p for f, t in shaken_then_still(scene.image, seed) if (p := session.feed(f, t)) is not None]
    assert len(proposals) == 1, session.status()
    assert len(readings) == config.read_frames  # nothing is read while the dice move
    proposal = proposals[0]
    combined = combine_readings(readings, config.match)
    assert sorted(proposal.dice) == sorted(d.value for d in combined.dice)
    assert len(proposal.uncertain) == sum(d.uncertain for d in combined.dice)
    assert proposal.reading.kind == "pip" and proposal.reading.width == 640
