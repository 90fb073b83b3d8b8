#!/usr/bin/env bash
# Install everything the tests need on a fresh Debian machine (root, Python 3.11), then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Browser tests drive Debian's chromium; the renderer draws poker letters in the DejaVu and Liberation fonts (without
# them it falls back to Pillow's font and renders other scenes). Install what is missing (root, package registry).
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf ] || need+=(fonts-dejavu-extra)
[ -f /usr/share/fonts/truetype/liberation/LiberationSansNarrow-Bold.ttf ] || need+=(fonts-liberation)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "missing: ${need[*]} (browser tests are skipped without chromium)" >&2
  fi
fi

python3 -m venv .venv 2>/dev/null || {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null && python3 -m venv .venv
}
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'

.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
