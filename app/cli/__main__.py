"""``python -m tierdeck.app.cli``: the same command line as ``tierdeck``."""

from .launcher import run

run()
