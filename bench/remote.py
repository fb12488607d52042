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
   its key exchange included).

With ``--lab`` the lab NAS (btrfs raid1 cache, two throttled "HDDs", two mergerfs pools
on loop devices) is built first and torn down after, so both sides read a NAS's worth
of storage rather than a bare VM's.

Run as root (sshd). No bare times: the machine is shared; medians of ratios are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
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
    remote.facts  # noqa: B018 - connected before the rounds, as on a refresh
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
        f"(min {min(trips)}, max {max(trips)})",
    ]


def whole_commands(lab: SshLab, rounds: int) -> list[str]:
    env = {**os.environ, "HOME": str(lab.home)}
    env.pop("SSH_AUTH_SOCK", None)
    cli = [sys.executable, "-m", "tierdeck.app.cli"]

    def timed(argv: list[str]) -> float:
        start = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True, stdin=subprocess.DEVNULL)  # fmt: skip
        return time.perf_counter() - start

    local = [*cli, "inventory", "--json"]
    remote = [*cli, "--host", lab.alias, "inventory", "--json"]
    # OpenSSH's own client running nothing: a connection and the server's login shell
    # (bash reads ~/.bashrc for every ssh command), the floor of any remote command
    floor = ["ssh", "-F", str(lab.home / ".ssh" / "config"), "-o",
             f"UserKnownHostsFile={lab.home / '.ssh' / 'known_hosts'}", lab.alias, "true"]  # fmt: skip
    for _ in range(2):
        timed(local)
        timed(remote)
        timed(floor)
    ratios, over_floor = [], []
    for _ in range(rounds):
        a, b, f = timed(remote), timed(local), timed(floor)
        ratios.append(a / b)
        over_floor.append(a / (b + f))
    return [
        f"tierdeck --host nas inventory --json / tierdeck inventory --json: "
        f"{statistics.median(ratios):.2f}x (spread {min(ratios):.2f}-{max(ratios):.2f}, "
        f"{rounds} rounds; connection, key exchange and asyncssh's import included)",
        f"the same / (tierdeck inventory --json + ssh nas true): "
        f"{statistics.median(over_floor):.2f}x (spread {min(over_floor):.2f}-"
        f"{max(over_floor):.2f}): what tierdeck adds beyond the local run and OpenSSH's own "
        "connection and login shell",
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


def _measure(folder: Path, rounds: int) -> list[str]:
    lab = SshLab.start(folder)
    old_home = os.environ.get("HOME")
    os.environ["HOME"] = str(lab.home)
    try:
        return in_process(lab, rounds) + whole_commands(lab, rounds)
    finally:
        if old_home is not None:
            os.environ["HOME"] = old_home
        lab.stop()


if __name__ == "__main__":
    main()
