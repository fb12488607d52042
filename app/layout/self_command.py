"""How a systemd unit starts this very tierdeck: by absolute path, because systemd
looks a bare ``tierdeck`` up in its own PATH, which never holds a virtualenv's bin/
(nor, under sudo, the user's ~/.local/bin)."""

from __future__ import annotations

import os
import shutil
import sys

NAME = "tierdeck"


def tierdeck_command() -> tuple[str, ...]:
    """The words that start the running tierdeck, the first an absolute path: the
    script that runs now, else the one installed beside this Python (a venv's bin/),
    else the one on PATH, else this Python with ``-m tierdeck``."""
    script = sys.argv[0] if sys.argv else ""
    if os.path.basename(script) == NAME and os.path.isfile(script):
        return (os.path.abspath(script),)
    # Not resolved: a venv's python is a link whose target lacks the venv's packages.
    beside = os.path.join(os.path.dirname(sys.executable), NAME)
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return (beside,)
    found = shutil.which(NAME)
    if found:
        return (os.path.abspath(found),)
    return (sys.executable, "-m", NAME)
