"""An inventory over SSH against the same inventory read here, paired.

    .venv/bin/python bench/remote.py [--rounds 15] [--no-append]

Starts Debian's sshd on a loopback port (tests/support/sshd.py: a throwaway host key and
user key, a client HOME of its own), so the "remote" host is this machine seen through
SSH. Two pairs, round after round, each round one ratio:

1. the collection on an open connection (what the dashboard's refresh pays):
   ``collect_inventory(SshHost)`` against ``collect_inventory(LiveHost())``, with the
   requests each remote collection sent (round trips);
2. whole commands as a user types them: ``tierdeck --host nas inventory --json`` against
   ``tierdeck inventory --json`` (Python's start, asyncssh's import, the connection and
   its key exchange included), then the same with a kept connection (``ControlPersist
   10m`` for nas: a keeper holds the connection, the command sends its requests over
   the keeper's socket and imports no asyncssh), and OpenSSH's ``ssh nas true`` against the local command:
   the floor of any remote command, with OpenSSH's default key exchange and with the
   one asyncssh agrees on (OpenSSH 9.2's default, sntrup761x25519, is not asyncssh's
   without liboqs, and costs this VM's client about half a local inventory).

Whole commands are timed twice: with the host's login shell as this machine has it (root's
~/.bashrc here starts pyenv, ~0.1-0.25 s per SSH session: bash run by sshd reads it) and
with a plain one, as a NAS's root has: that sshd runs in a mount namespace of its own
with an empty file bind-mounted over ~/.bashrc (tests/support/sshd.py ``binds``; the
machine's file is never touched). Each line says which. asyncssh's import is timed
against the local command too (``python -c "import asyncssh"`` / ``python -c pass``).

With ``--lab`` the lab NAS (btrfs raid1 cache, two throttled "HDDs", two mergerfs pools
on loop devices) is built first and torn down after, so both sides read a NAS's worth
of storage rather than a bare VM's.

Run as root (sshd). No bare times: the machine is shared; medians of ratios are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests.support, as bench/inventory.py does

from bench._report import append_run  # noqa: E402
from tests.support.sshd import SshLab  # noqa: E402


def in_process(lab: SshLab, rounds: int) -> list[str]:
    from tierdeck.app.machine.inventory import collect_inventory
    from tierdeck.backends.host import LiveHost
    from tierdeck.backends.host.ssh import SshHost

    local, remote = LiveHost(), SshHost(lab.alias)
    # what a whole command sends: the connection, the facts' line, the inventory
    collect_inventory(remote)
    first = remote.link.round_trips
    for _ in range(2):
        collect_inventory(local)
        collect_inventory(remote)
    ratios, trips, here, there = [], [], [], []
    for _ in range(rounds):
        start = time.perf_counter()
        collect_inventory(local)
        a = time.perf_counter() - start
        before = remote.link.round_trips
        start = time.perf_counter()
        collect_inventory(remote)
        b = time.perf_counter() - start
        trips.append(remote.link.round_trips - before)
        ratios.append(b / a)
        here.append(a)
        there.append(b)
    remote.close()
    return [
        f"inventory on an open connection: ssh/local {statistics.median(ratios):.2f}x "
        f"(spread {min(ratios):.2f}-{max(ratios):.2f}, {rounds} rounds); "
        f"requests per remote inventory: {statistics.median(trips):.0f} "
        f"(min {min(trips)}, max {max(trips)}); a first inventory on a new connection: "
        f"{first} (the connection and the host's facts included)",
    ]


def whole_commands(lab: SshLab, rounds: int, shell: str) -> list[str]:
    env = {**os.environ, "HOME": str(lab.home)}
    env.pop("SSH_AUTH_SOCK", None)
    # keepers (if any) in a runtime folder of this run's, as a login's /run/user/UID
    env["XDG_RUNTIME_DIR"] = str(lab.folder / "run")
    (lab.folder / "run").mkdir(mode=0o700, exist_ok=True)
    cli = [sys.executable, "-m", "tierdeck.app.cli"]

    def timed(argv: list[str]) -> float:
        start = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True, stdin=subprocess.DEVNULL)  # fmt: skip
        return time.perf_counter() - start

    local = [*cli, "inventory", "--json"]
    remote = [*cli, "--host", lab.alias, "inventory", "--json"]
    # OpenSSH's own client running nothing: a connection and the server's login shell
    # (bash reads ~/.bashrc for every ssh command), the floor of any remote command; with
    # its own default key exchange, and with the one asyncssh agrees on with this server
    ssh = ["ssh", "-F", str(lab.home / ".ssh" / "config"), "-o",
           f"UserKnownHostsFile={lab.home / '.ssh' / 'known_hosts'}"]  # fmt: skip
    kex = asyncssh_kex()
    floor = [*ssh, lab.alias, "true"]
    same_kex = [*ssh, "-o", f"KexAlgorithms={kex}", lab.alias, "true"]
    for _ in range(2):
        for argv in (local, remote, floor, same_kex):
            timed(argv)
    ratios, over_floor, floors, same_floors = [], [], [], []
    for _ in range(rounds):
        a, b, f, g = timed(remote), timed(local), timed(floor), timed(same_kex)
        ratios.append(a / b)
        over_floor.append(a / (b + g))
        floors.append(f / b)
        same_floors.append(g / b)
    kept = kept_commands(lab, rounds, shell, env, timed, (local, remote))
    return [
        f"{shell}: ssh nas true / tierdeck inventory --json: {_spread(floors)}; with "
        f"asyncssh's key exchange ({kex}): {_spread(same_floors)}: OpenSSH's own "
        "connection and session, the floor any remote command adds to the local one",
        f"{shell}: tierdeck --host nas inventory --json / tierdeck inventory --json: "
        f"{_spread(ratios)}, {rounds} rounds (connection, key exchange and asyncssh's "
        "import included)",
        f"{shell}: the same / (tierdeck inventory --json + ssh -o KexAlgorithms={kex} nas "
        f"true): {_spread(over_floor)}: what tierdeck adds beyond the local run and "
        "OpenSSH's own connection and login shell",
        kept,
    ]


def kept_commands(lab: SshLab, rounds: int, shell: str, env: dict[str, str],
                  timed: Callable[[list[str]], float],
                  pair: tuple[list[str], list[str]]) -> str:  # fmt: skip
    """The same pair with ``ControlPersist 10m`` for nas in ~/.ssh/config: the first
    command leaves a keeper holding the connection, the timed ones send their commands
    over its socket (no asyncssh import, no key exchange, no login shell)."""
    local, remote = pair
    lab.write_client_config("  ControlPersist 10m\n")
    keepers = [*local[:-2], "fleet", "keepers"]
    try:
        for _ in range(2):
            timed(remote)
            timed(local)
        ratios = []
        for _ in range(rounds):
            a, b = timed(remote), timed(local)
            ratios.append(a / b)
        listed = subprocess.run([*keepers, "--json"], env=env,
                                capture_output=True, text=True, check=True)  # fmt: skip
        served = json.loads(listed.stdout)["keepers"]
        if len(served) != 1:
            raise RuntimeError(f"expected one keeper, found {len(served)}")
    finally:
        subprocess.run([*keepers, "--stop"], env=env,
                       capture_output=True, check=False)  # fmt: skip
        lab.write_client_config()
    return (
        f"{shell}: tierdeck --host nas inventory --json / tierdeck inventory --json with a "
        f"kept connection (ControlPersist 10m): {_spread(ratios)}, {rounds} rounds "
        f"({served[0]['requests']} requests served by one keeper, its connection made once)"
    )


def _spread(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):.2f}x (spread {min(ratios):.2f}-{max(ratios):.2f})"


def asyncssh_kex() -> str:
    """The key exchange asyncssh agrees on with this machine's OpenSSH: the first of its
    own list that OpenSSH knows (OpenSSH's own first, sntrup761x25519, needs liboqs in
    asyncssh; its mlkem768x25519 came with OpenSSH 9.9)."""
    from asyncssh.kex import get_default_kex_algs

    known = subprocess.run(["ssh", "-Q", "kex"], capture_output=True, text=True, check=True)
    offered = set(known.stdout.split())
    return next(a.decode() for a in get_default_kex_algs() if a.decode() in offered)


def import_cost(rounds: int) -> list[str]:
    """asyncssh's import (a Python start with it, less one without), against the local
    command: the part of a --host command no server can save."""

    def timed(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, stdin=subprocess.DEVNULL)
        return time.perf_counter() - start

    def local() -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tierdeck.app.cli", "inventory", "--json"],
                       stdout=subprocess.DEVNULL, check=True, stdin=subprocess.DEVNULL)  # fmt: skip
        return time.perf_counter() - start

    shares = []
    for _ in range(rounds):
        shares.append((timed("import asyncssh") - timed("pass")) / local())
    return [
        f"asyncssh's import / tierdeck inventory --json: {statistics.median(shares):.2f} "
        f"(spread {min(shares):.2f}-{max(shares):.2f}, {rounds} rounds)"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--no-append", action="store_true", help="print only")
    parser.add_argument("--lab", action="store_true", help="with the lab NAS up (loop devices)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench/remote.py starts sshd: run it as root")
    with tempfile.TemporaryDirectory(prefix="tierdeck-remote-bench-") as tmp:
        if args.lab:
            from tierdeck.app.machine.lab import lab_down, lab_up

            nas = Path(tmp) / "nas"
            try:
                lab_up(nas)
                lines = _measure(Path(tmp) / "sshd", args.rounds)
            finally:
                lab_down(nas)
            lines = [f"with the lab NAS up: {line}" for line in lines]
        else:
            lines = _measure(Path(tmp) / "sshd", args.rounds)
    for line in lines:
        print(line)
    if not args.no_append:
        append_run("Remote hosts: `bench/remote.py`", "bench/remote.py", lines)


THIS_VM = "this VM's ~/.bashrc (pyenv)"
PLAIN = "a plain ~/.bashrc (a NAS's)"


def _measure(folder: Path, rounds: int) -> list[str]:
    lines = import_cost(rounds)
    plain = folder / "plain-bashrc"
    folder.mkdir(parents=True, exist_ok=True)
    plain.write_text("")
    bashrc = Path(os.path.expanduser("~root/.bashrc"))
    for shell, is_plain in ((PLAIN, True), (THIS_VM, False)):
        binds = {bashrc: plain} if is_plain and bashrc.exists() else {}
        lab = SshLab.start(folder / ("plain" if is_plain else "vm"), binds=binds)
        old_home = os.environ.get("HOME")
        os.environ["HOME"] = str(lab.home)
        try:
            if is_plain:  # an open connection pays no login shell: measured once
                lines += in_process(lab, rounds)
            lines += whole_commands(lab, rounds, shell)
        finally:
            if old_home is not None:
                os.environ["HOME"] = old_home
            lab.stop()
    return lines


if __name__ == "__main__":
    main()
