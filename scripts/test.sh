#!/usr/bin/env bash
# Install everything the tests need on a fresh Debian machine (root, Python 3.11), then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Browser tests drive Debian's chromium; install it when missing (needs root and the package registry).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: browser tests will be skipped" >&2
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
