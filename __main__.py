"""``python -m tierdeck``: what a unit file runs when no tierdeck script is installed."""

from .app.cli import main

main()
