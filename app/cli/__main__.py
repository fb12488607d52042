"""``python -m tierdeck.app.cli``: the same command line as ``tierdeck``."""

from . import main

main()
