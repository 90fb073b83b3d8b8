#!/usr/bin/env bash
# On a lent GPU machine (after scripts/device_prepare.sh here): check, then train both models from scratch with the
# model card's recipe and leave them and the log in $OUT. Epochs are held at 100,000 crops, as many as the bundled
# run had (7.5 minutes in all), since the patches have grown since. Arguments go on to python -m vision.train and win
# over the recipe's. A lease has 15 minutes of device time in all, so the run stops itself at $BUDGET_S seconds
# (default 540) and keeps what it finished: the detector is written before the classifier trains.
# Nothing is installed: the machine's python3 has torch, OpenCV, onnx and onnxruntime, and nothing can be fetched.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/device-out}
mkdir -p "$out"
py=${PYTHON:-python3}
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1

# The renderer looks for its fonts in the system's folders; the carried copies go where it looks.
if [ -d shared/fonts ]; then
  mkdir -p /usr/share/fonts/truetype && cp -n shared/fonts/*.ttf /usr/share/fonts/truetype/ || true
fi

"$py" - "${REQUIRE_CUDA:-1}" <<'EOF' 2>&1 | tee "$out/preflight.log"
import sys

import cv2, numpy, onnx, onnxruntime, PIL, torch  # noqa: E401  everything the training imports

from vision.synth.faces import ttf_fonts
from vision.train.data import photo_root

missing = [name for name, path in ttf_fonts().items() if path is None]
if missing:
    sys.exit(f"fonts missing (run scripts/device_prepare.sh before the lease): {missing}")
print("photos", photo_root())
print("torch", torch.__version__, "cuda", torch.cuda.is_available(), "opencv", cv2.__version__,
      "onnxruntime", onnxruntime.__version__, "numpy", numpy.__version__)
if sys.argv[1] == "1" and not torch.cuda.is_available():
    sys.exit("no CUDA device: this script is for the GPU lease (REQUIRE_CUDA=0 to try it on a CPU)")
EOF

models=/tmp/device-models
rm -rf "$models"
set +e
timeout "${BUDGET_S:-540}" "$py" -m vision.train --out "$models" --device cuda --synth 3000 --det-iters 12000 \
  --det-batch 32 --cls-epochs 50 --cls-batch 256 --cls-epoch-size 100000 "$@" 2>&1 | tee "$out/train.log"
rc=${PIPESTATUS[0]}
set -e
cp "$models"/*.onnx "$out"/ 2>/dev/null || true
echo "vision.train exit $rc; in $out: $(cd "$out" && ls)"
exit "$rc"
