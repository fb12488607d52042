"""Where the history file is: light on purpose, so that a command needing only the
folder (the mover's journal and its own records) does not load the run store."""

from __future__ import annotations

import os
from pathlib import Path

DB_NAME = "history.sqlite3"
ENV_DATA_DIR = "TIERDECK_DATA_DIR"


def default_history_path() -> Path:
    """``$TIERDECK_DATA_DIR/history.sqlite3``, else under platformdirs' data folder."""
    folder = os.environ.get(ENV_DATA_DIR)
    if folder:
        return Path(folder) / DB_NAME
    from platformdirs import user_data_dir

    return Path(user_data_dir("tierdeck")) / DB_NAME
