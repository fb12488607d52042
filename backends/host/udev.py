"""Whether udev's database describes this machine as it is now.

Apart from ``live.py``: a question about udevd's socket and database files, not a
host call; the live host asks it before trusting udev's properties and events.
"""

from __future__ import annotations

from pathlib import Path

UDEV_DATA = "/run/udev/data"
UDEV_CONTROL = "/run/udev/control"


def udev_database_current(data: str = UDEV_DATA, control: str = UDEV_CONTROL) -> bool:
    """udevd runs and has filled its database: its properties and events are real."""
    folder = Path(data)
    try:
        populated = folder.is_dir() and any(folder.iterdir())
    except OSError:
        return False
    return populated and udevd_running(control)


def udevd_running(control: str = UDEV_CONTROL) -> bool:
    """Is udevd listening on its control socket? Its database (/run/udev/data) outlives
    it, and then describes devices as they were: a loop device reused since would still
    show the filesystem of its previous backing file."""
    # The C module alone: socket.py adds selectors, select, array and builds its enums
    # (~4-9 ms of every mover run, which asks the live host's capabilities once).
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_SEQPACKET)
    try:
        sock.settimeout(0.5)
        sock.connect(control)
    except OSError:
        return False
    finally:
        sock.close()
    return True
