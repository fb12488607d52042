#!/usr/bin/env bash
# Set everything up, then open the tierdeck dashboard on this machine's storage.
# Arguments go to tierdeck (e.g. --demo, or "inventory --json").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/tierdeck "$@"
