"""Run `tierdeck health --json --recorded DIR` in this process, with smartctl run for
real: the recording answers every other read, and each smartctl call goes through the
live host's subprocess path to the `smartctl` first on PATH (bench/health.py's shim).

A recording answers commands from its file and runs nothing; the benchmark needs the
real processes (their start, their delay, run in parallel), so smartctl, and only it,
is handed to a LiveHost. Prints nothing of its own: the JSON goes to stdout."""

from __future__ import annotations

import resource
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tierdeck.app.cli import common, main
from tierdeck.backends.host import LiveHost, RecordedHost
from tierdeck.backends.host.seam import DEFAULT_TIMEOUT, CommandResult, HostCapabilities

_LIVE = LiveHost()


class ShimmedRecording(RecordedHost):
    """The recording, but live for smartctl: its calls run as on a live host."""

    @property
    def capabilities(self) -> HostCapabilities:
        return replace(super().capabilities, live=True)

    @property
    def is_root(self) -> bool:
        return True

    def has_tool(self, tool: str) -> bool:
        return tool == "smartctl" or super().has_tool(tool)

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        if argv and (argv[0] == "smartctl" or (argv[0] == "sh" and "smartctl" in argv[-1])):
            return _LIVE.run(argv, timeout)
        return super().run(argv, timeout)


def _host(demo: bool, recorded: Path | None) -> ShimmedRecording:
    assert recorded is not None
    return ShimmedRecording(recorded)


common.make_host = _host  # type: ignore[assignment]
try:
    main(["health", "--json", "--recorded", sys.argv[1]])
finally:
    # this process's own CPU (not smartctl's): what the machine's load does not change
    own = resource.getrusage(resource.RUSAGE_SELF)
    print(f"cpu {own.ru_utime + own.ru_stime:.3f}", file=sys.stderr)
