#!/usr/bin/env bash
# Install Becher into .venv (once) and start the server with working defaults (SQLite in the data folder).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv 2>/dev/null || {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null && python3 -m venv .venv
}
.venv/bin/python -m pip install -q -e .
exec .venv/bin/becher serve "$@"
