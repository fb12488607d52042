"""The demo NAS behind ``tierdeck --demo``: the machine of seed 000, recorded.

The folder ``demo_host/`` next to this module is written by ``scripts/make_demo_host.py``
(see ``demo_host/SOURCES.md`` for which parts are the seed's own text) and ships as
package data, so the demo works from an installed wheel too.
"""

from __future__ import annotations

from pathlib import Path

from ...backends.host import RecordedHost


def demo_host_path() -> Path:
    """The recorded-host folder of the demo NAS."""
    return Path(__file__).resolve().parent / "demo_host"


def load_demo_host() -> RecordedHost:
    """The demo NAS as a Host: hostname "nas", Ubuntu 5.15, OpenZFS 2.1.4, mergerfs 2.33.5."""
    return RecordedHost(demo_host_path())
