#!/usr/bin/env bash
# mypy needs the installed layout (tierdeck.core, tierdeck.app ...) to follow imports
# across folders; editable installs hide it behind an import hook mypy cannot see.
# So we mirror the layout with symlinks in .typecheck/ and check that.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .typecheck && mkdir -p .typecheck/tierdeck
cp tierdeck_pkg/__init__.py .typecheck/tierdeck/__init__.py
for d in app core backends screens widgets; do ln -s "../../$d" ".typecheck/tierdeck/$d"; done
cd .typecheck
exec ../.venv/bin/mypy --config-file ../pyproject.toml -p tierdeck "$@"
