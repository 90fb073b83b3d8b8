#!/usr/bin/env bash
# Here, before a GPU lease: put what the training reads beside the code, so it travels with the working tree.
# The device machine gets the checkout and its shared/ folder only (not ../shared), and it may lack the fonts the
# renderer draws faces with; without them Pillow's default font would render silently different training data.
set -euo pipefail
cd "$(dirname "$0")/.."

src=../shared/dice-photos
[ -f "$src/README.md" ] || { echo "no $src beside the checkout" >&2; exit 1; }
grep -qx '/shared/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info && echo '/shared/' >>.git/info/exclude; }

mkdir -p shared/fonts
rm -rf shared/dice-photos
cp -r "$src" shared/dice-photos
"${PYTHON:-.venv/bin/python}" - <<'EOF'
import shutil

from vision.synth.faces import FONT_PACKAGES, ttf_fonts

for name, path in ttf_fonts().items():
    if path is None:
        raise SystemExit(f"font {name} missing here: apt-get install {FONT_PACKAGES}")
    shutil.copy(path, f"shared/fonts/{name}")
EOF
echo "ready: $(du -sh shared | cut -f1) in shared/ travels with the tree. On the device machine run:"
echo "  bash scripts/device_train.sh            (the full recipe; extra arguments go to python -m vision.train)"
