"""Run `tierdeck health --json --recorded DIR` in this process, with smartctl run for
real: the recording answers every other read, and each smartctl call goes through the
live host's subprocess path to the `smartctl` first on PATH (bench/health.py's shim).

The recording is tests/support/live_smartctl.py's: smartctl, and only it, handed to a
LiveHost, for the real processes (their start, their delay, run in parallel). Prints
nothing of its own: the JSON goes to stdout."""

from __future__ import annotations

import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/support is not installed

from tierdeck.app.cli import common, main  # noqa: E402

from tests.support.live_smartctl import LiveSmartctl  # noqa: E402


def _host(demo: bool, recorded: Path | None) -> LiveSmartctl:
    assert recorded is not None
    return LiveSmartctl(recorded)


common.make_host = _host  # type: ignore[assignment]
try:
    main(["health", "--json", "--recorded", sys.argv[1]])
finally:
    # this process's own CPU (not smartctl's): what the machine's load does not change
    own = resource.getrusage(resource.RUSAGE_SELF)
    print(f"cpu {own.ru_utime + own.ru_stime:.3f}", file=sys.stderr)
