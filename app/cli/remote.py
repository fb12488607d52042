"""Commands that run on the ``--host`` machine's own tierdeck (the mover, layout
apply and undo): this command line sent there, its output streamed back. The option
itself and the opening of the host are in ``common.py``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...backends.host.ssh import SshHost


def exec_on_host(host: SshHost, argv: list[str]) -> Any:
    """Run ``tierdeck ARGV`` on the host itself, its output streamed here, and exit
    with its status (the mover and layout apply work on the host's own files)."""
    from .common import EXIT_FAILED, fail

    if not host.tierdeck_installed:
        fail(f"{host.target}: tierdeck is not installed there; the mover and layout "
             "apply run on the machine itself. Install it there (git clone the project "
             "and run scripts/setup.sh), then try again", EXIT_FAILED)  # fmt: skip
    from ...backends.host.ssh.passthrough import run_streamed

    sys.exit(run_streamed(host, ["tierdeck", *argv]))


def argv_without_host(argv: list[str] | None = None) -> list[str]:
    """This command line's arguments without ``--host NAME``: what the host's own
    tierdeck is asked to run."""
    args = list(sys.argv[1:] if argv is None else argv)
    kept: list[str] = []
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "--":
            kept.extend(args[index:])
            break
        if arg == "--host":
            skip = True
            continue
        if arg.startswith("--host="):
            continue
        kept.append(arg)
    return kept


def run_on_host_itself() -> None:
    """With ``--host``: run this very command line on the host and exit with its
    status; without, return (the command runs here)."""
    from .common import requested_host

    name = requested_host()
    if name is None:
        return
    from .common import open_remote_host

    exec_on_host(open_remote_host(name), argv_without_host())
