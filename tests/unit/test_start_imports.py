"""The dashboard's start loads the dashboard: no other screen, feature, chart or
storage backend until it is asked for (each costs the first paint its import time)."""

from __future__ import annotations

import json
import subprocess
import sys

LOADED_LATER = (
    "tierdeck.screens.bench", "tierdeck.screens.history", "tierdeck.screens.layout",
    "tierdeck.screens.sequence", "tierdeck.widgets.charts", "tierdeck.widgets.bench",
    "tierdeck.app.bench", "tierdeck.app.history", "tierdeck.app.sweep", "tierdeck.app.ladder",
    "tierdeck.app.mover", "tierdeck.app.layout", "tierdeck.app.export", "tierdeck.app.compare",
    "tierdeck.app.fleet", "tierdeck.screens.fleet", "tierdeck.backends.host.ssh", "asyncssh",
    "tierdeck.backends.zfs", "tierdeck.backends.fio", "tierdeck.backends.sources",
    "textual_plot", "pygal", "jinja2", "sqlite3", "sh", "pyudev", "psutil",
)  # fmt: skip
# Two small modules: the byte sniffing backends/localfiles reads a user's file with.
ALLOWED = ("tierdeck.backends.fio", "tierdeck.backends.fio.text_sniff")


def modules_after(code: str) -> list[str]:
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(out.stdout)
    return loaded


def test_importing_the_tui_loads_only_the_dashboard() -> None:
    loaded = modules_after("import tierdeck.app.tui.app")
    early = [
        m
        for m in loaded
        if any(m == p or m.startswith(p + ".") for p in LOADED_LATER) and m not in ALLOWED
    ]
    assert early == []
    assert "tierdeck.screens.dashboard.dashboard" in loaded  # the check sees what it loads
