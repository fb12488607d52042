#!/usr/bin/env bash
# Set everything up, then run every check: ruff, mypy, the import layers
# (import-linter), and all tests (unit, Pilot, snapshot, and the integration tests on a
# real lab NAS, which need root).
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
echo "== ruff" >&2
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "== mypy" >&2
.venv/bin/mypy
echo "== import layers" >&2
.venv/bin/lint-imports --no-cache
echo "== pytest" >&2
# As root, setup.sh has installed what the integration tests need: a missing piece fails
# the run instead of skipping those tests (the CI rule in tests/conftest.py).
if [ "$(id -u)" = 0 ]; then export CI="${CI:-1}"; fi
# Three workers: the tests that need the machine on one, in order (mostly waiting on fio
# and the disks), the rest spread over two (tests/conftest.py marks them;
# docs/testing.md). "-n 0" among the arguments runs everything in one process.
exec .venv/bin/pytest -q -p no:cacheprovider -n 3 --dist loadgroup "$@"
