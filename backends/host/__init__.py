"""The one seam between tierdeck and the machine it describes.

Everything that touches the machine goes through a :class:`Host`: files under ``/sys``,
``/proc`` and ``/dev``, extended attributes, ``statvfs``, external commands, and for
benchmarks processes (spawn, signal, reap), file probes and removals, kernel knobs
(drop_caches) and machine-wide locks. Callers ask :attr:`Host.capabilities` what a host
can do; they never test its type. Two implementations exist:

* :class:`LiveHost` is this machine. Commands run through ``sh`` with a timeout.
* :class:`RecordedHost` replays a folder of captured files and command outputs. It powers
  ``tierdeck --demo``, the tests, and the benchmarks (a 240-disk NAS on any laptop). It
  reads; it cannot run processes or change anything.

A remote host (ssh) implements the same protocol (docs/architecture.md, "The host
seam", says what each call must do); nothing above this changes.

The contract lives in ``seam.py``, this machine in ``live.py``, a recording in
``recorded.py`` and the udev checks in ``udev.py``; callers import them all from here.
"""

from .live import LiveHost
from .recorded import RecordedHost
from .seam import (
    DEFAULT_TIMEOUT,
    CommandResult,
    FsUsage,
    Host,
    HostCapabilities,
    HostProcess,
    NotSupported,
)
from .udev import udev_database_current, udevd_running

__all__ = [
    "DEFAULT_TIMEOUT",
    "CommandResult",
    "FsUsage",
    "Host",
    "HostCapabilities",
    "HostProcess",
    "LiveHost",
    "NotSupported",
    "RecordedHost",
    "udev_database_current",
    "udevd_running",
]
