"""Lab NASes left by a test run that was killed (kill -9, a lost terminal, a timeout).

The lab fixture tears its lab down in a ``finally``; a killed run never gets there, and
its loop devices and mergerfs pools stay until someone removes them by hand (and they
show up in every later inventory of this machine). pytest keeps a ``.lock`` file with
its pid in each numbered run folder while the run lives, so a lab under a run folder
whose pid is gone (or whose lock is missing) belongs to no one: it is torn down with
``lab_down`` before a new lab is built. A live run's lab is never touched.
"""

from __future__ import annotations

import re
from pathlib import Path

from tierdeck.backends.host import Host
from tierdeck.backends.mounts import MOUNTINFO, parse_mountinfo
from tierdeck.core.errors import HostError

# /tmp/pytest-of-root/pytest-612/popen-gw0/lab0/nas/... (xdist) or .../pytest-612/lab0/nas
_LAB = re.compile(r"^(?P<lab>(?P<run>/.+/pytest-of-[^/]+/pytest-\d+)(?:/[^/]+)?/lab\d+/nas)(?:/|$)")


def _run_alive(host: Host, run: str) -> bool:
    try:
        pid = int(host.read_text(f"{run}/.lock").strip())
    except (OSError, HostError, ValueError):
        return False  # a run that ended removed its lock; a missing one holds nothing
    return host.exists(f"/proc/{pid}")


def _lab_paths(host: Host) -> set[tuple[str, str]]:
    """(lab folder, run folder) of every lab mount and loop device on this machine."""
    from tierdeck.app.machine.lab import backing_file

    paths = [m.mountpoint for m in parse_mountinfo(host.read_text(MOUNTINFO))]
    for name in host.listdir("/sys/block"):
        backing = backing_file(host, name) if name.startswith("loop") else None
        if backing is not None:  # attached
            paths.append(backing)
    return {lab for lab in map(lab_of, paths) if lab is not None}


def lab_of(path: str) -> tuple[str, str] | None:
    """(lab folder, run folder) of a path inside a test run's lab, else None."""
    match = _LAB.match(path)
    return (match["lab"], match["run"]) if match else None


def clear_labs_of_dead_runs(host: Host) -> list[Path]:
    """Tear down every lab left by a test run that no longer runs; the labs cleared."""
    from tierdeck.app.machine.lab import lab_down

    cleared = []
    for lab, run in sorted(_lab_paths(host)):
        if not _run_alive(host, run):
            lab_down(Path(lab), host=host)
            cleared.append(Path(lab))
    return cleared
