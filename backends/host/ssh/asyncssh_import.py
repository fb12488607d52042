"""asyncssh's import without the C compiler it would start.

asyncssh looks for liboqs (the sntrup761 key exchange) with ``ctypes.util.find_library``
for "oqs" and for "liboqs". On Linux that asks ldconfig's cache and, when the library is
not there (most machines), compiles a test program with gcc and links one with ld to
look further: 20-110 ms of every ``--host`` command on this VM, a third of asyncssh's
import on a quiet run. During the import the search is ldconfig's cache (asked only
when its file names the library at all: no ``ldconfig -p`` run otherwise) and the
folders of LD_LIBRARY_PATH: where the dynamic loader itself looks for a library it is
given by name, so liboqs is found whenever asyncssh could load it.
Imported by ``link.py`` before asyncssh, so every module of it finds asyncssh ready
(``shells.py`` and ``process.py`` are imported only through it).
"""

from __future__ import annotations

import ctypes.util
import os
import sys
from collections.abc import Callable


def _in_library_path(name: str) -> str | None:
    """A shared library ``lib<name>.so*`` in LD_LIBRARY_PATH's folders, as ld finds it."""
    prefix = name if name.startswith("lib") else f"lib{name}"
    for folder in filter(None, os.environ.get("LD_LIBRARY_PATH", "").split(":")):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for found in names:
            if found == f"{prefix}.so" or found.startswith(f"{prefix}.so."):
                return os.path.join(folder, found)
    return None


LD_CACHE = "/etc/ld.so.cache"


def _quick_finder(ldconfig: Callable[[str], str | None]) -> Callable[[str], str | None]:
    try:
        with open(LD_CACHE, "rb") as cache:
            cached: bytes | None = cache.read()
    except OSError:
        cached = None  # no cache to look in: ldconfig says what it says

    def find_library(name: str) -> str | None:
        # ldconfig -p lists the cache's entries, each "lib<name>.so..." in its file
        named = cached is None or f"lib{name}.".encode() in cached
        return (ldconfig(name) if named else None) or _in_library_path(name)

    return find_library


def _import() -> None:
    ldconfig = getattr(ctypes.util, "_findSoname_ldconfig", None)
    if "asyncssh" in sys.modules or ldconfig is None:  # not Linux's ctypes: as it is
        return
    original = ctypes.util.find_library
    setattr(ctypes.util, "find_library", _quick_finder(ldconfig))  # noqa: B010
    try:
        import asyncssh  # noqa: F401 - the import this module is for
    finally:
        setattr(ctypes.util, "find_library", original)  # noqa: B010


_import()
