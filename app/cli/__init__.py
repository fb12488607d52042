"""tierdeck's command line: the TUI by default, and scriptable subcommands.

The root group is ``main`` in root.py; launcher.py starts it (the ``tierdeck`` script,
``python -m tierdeck``). This module imports nothing, not even click, so that the
launcher can print ``tierdeck --help`` without click's ~20 ms of imports: ``main`` is
looked up from root.py when first asked for (``from tierdeck.app.cli import main``)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own flag, without importing typing (~2 ms) to read it
if TYPE_CHECKING:
    from typing import Any

    from .root import main as main


def __getattr__(name: str) -> Any:
    if name == "main":
        from .root import main

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
