"""A recording that runs smartctl for real: every other read is answered from the
recording's files, each smartctl call (alone, or in an ``sh -c`` line) goes through
the live host's subprocess path to the ``smartctl`` first on PATH (a shim).

A recording runs nothing; a test or a benchmark that needs the real processes (their
start, their delay, run in parallel) hands smartctl, and only it, to a LiveHost. Kept
to these imports: bench/_health_harness.py counts its own CPU, imports included."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tierdeck.backends.host import LiveHost, RecordedHost
from tierdeck.backends.host.seam import DEFAULT_TIMEOUT, CommandResult, HostCapabilities

_LIVE = LiveHost()


class LiveSmartctl(RecordedHost):
    """The recording, but live for smartctl: its calls run as on a live host, as root."""

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
