"""Layout files on disk: the TOML of core/layout/toml_format.py, written atomically.

A layout file is one the user names (``--save FILE.toml``, ``layout check FILE.toml``),
so it is read and written here directly, as other user-named files are
(backends/localfiles), not through the Host: it lives where tierdeck runs, even when the
inventory comes from a recording. One exception: the mover of a remote machine runs a
layout file of that machine (``load_host_layout`` reads it through the host).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...backends.localfiles import FileTooLarge, read_user_file, write_atomically
from ...core.layout.model import Layout, LayoutError, LayoutErrorKind
from ...core.layout.toml_format import layout_from_toml, layout_to_toml

if TYPE_CHECKING:
    from ...backends.host import Host

# A layout is a few KiB; a larger file is something else named by mistake.
MAX_LAYOUT_BYTES = 1024 * 1024


def save_layout(path: Path, layout: Layout) -> None:
    """Write ``layout`` to ``path``: the old file or the new one, never half of one."""
    write_atomically(path, layout_to_toml(layout))


def load_layout(path: Path) -> Layout:
    """The layout in ``path``. LayoutError for a file that is not one; OSError (missing,
    unreadable) as the system says it."""
    try:
        data = read_user_file(path, MAX_LAYOUT_BYTES)
    except FileTooLarge as exc:
        raise LayoutError(LayoutErrorKind.SYNTAX, None, str(exc)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LayoutError(
            LayoutErrorKind.SYNTAX, None, f"{path}: not UTF-8 text ({exc.reason})"
        ) from None
    return layout_from_toml(text)


def load_host_layout(host: Host, path: Path) -> Layout:
    """The layout in the file ``path`` *of the host*: the mover of a remote machine
    runs that machine's layout file, by that machine's tierdeck. Errors as
    ``load_layout``'s (the host's OSError)."""
    text = host.read_text(str(path))
    if len(text) > MAX_LAYOUT_BYTES:
        raise LayoutError(LayoutErrorKind.SYNTAX, None, f"{path}: larger than a layout")
    return layout_from_toml(text)
