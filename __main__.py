"""``python -m tierdeck``: what a unit file runs when no tierdeck script is installed."""

from .app.cli.launcher import run

run()
