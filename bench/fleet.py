"""How long until the fleet screen has every row? Ten loopback hosts against one.

Starts ten OpenSSH servers on loopback ports (tests/support/sshd.py: Debian's sshd, a
throwaway host key and user key each) and an admin's HOME naming them nas0..nas9 in
~/.ssh/config, then opens the TUI headless at 80x24 on a fleet of them
(``TierdeckApp(None, fleet=Fleet(...))``, the start screen of ``tierdeck`` with more
than one host) and times from the app's start to the moment every row is filled
(each host connected, what its row shows collected over SSH, its row drawn). The
reference is the same with one host alone, paired round by round: the ratio says what
the other nine cost when they are asked at once. A third run per round reads each host
as its dashboard does (every source, the sources with commands in threads, a link that
opens two shells): what a row would cost without ``app/fleet/collect.row_sources``
and its one-shell link. Each of those runs makes new connections. A fourth run per
round is the fleet with its connections kept (``persist = "10m"`` for every host,
the keepers started once before the rounds): a glance at a fleet whose keepers are up,
paired with the run that connects to every host.

The ten servers are this machine: their sessions' login shells (root's ~/.bashrc runs
on every session sshd starts) share the two cores with the client. The floor of that
is timed too: as many login shells as hosts, started at once as sshd starts them.

``--plain-bashrc``: as on NASes, whose root has no pyenv: each sshd runs in a mount
namespace of its own with an empty file bind-mounted over root's ~/.bashrc
(tests/support/sshd.py ``binds``; the machine's file is never touched), and the floor's
login shells read an empty one too. The first line says which.

Needs root (sshd) and openssh-server. Prints the lines and appends them, dated, to
docs/performance.md (--no-append: not).

Usage: .venv/bin/python bench/fleet.py [--runs N] [--hosts N] [--plain-bashrc] [--no-append]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import pwd
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/support is not installed

from tierdeck.app.fleet.collect import Fleet  # noqa: E402
from tierdeck.app.fleet.config import FleetHost  # noqa: E402
from tierdeck.app.machine.inventory import collect_inventory  # noqa: E402
from tierdeck.app.tui.app import TierdeckApp  # noqa: E402
from tierdeck.backends.host import Host  # noqa: E402
from tierdeck.backends.host.ssh import SshHost, SshTarget  # noqa: E402
from tierdeck.backends.host.ssh.kept import keepers, stop_keeper  # noqa: E402
from tierdeck.backends.host.ssh.link import SshLink  # noqa: E402
from tierdeck.screens.fleet.fleet import FleetScreen  # noqa: E402

from bench._report import append_run  # noqa: E402
from tests.support.sshd import SshLab, sshd_missing  # noqa: E402

GOAL_S = 2.0


def admin_home(folder: Path, labs: list[SshLab]) -> Path:
    """One HOME whose ssh config names every server (nasN) and trusts its key."""
    home = folder / "admin"
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    config, known = [], []
    for i, lab in enumerate(labs):
        config.append(f"Host nas{i}\n  HostName 127.0.0.1\n  Port {lab.port}\n  User root\n"
                      f"  IdentityFile {lab.user_key}\n  IdentitiesOnly yes\n")  # fmt: skip
        kind, key, *_ = Path(f"{lab.host_key}.pub").read_text().split()
        known.append(f"[127.0.0.1]:{lab.port} {kind} {key}\n")
    (home / ".ssh" / "config").write_text("".join(config))
    (home / ".ssh" / "known_hosts").write_text("".join(known))
    return home


def dashboard_link(entry: FleetHost, timeout: float) -> Host:
    target = SshTarget.parse(entry.ssh)
    return SshHost(target, link=SshLink(target, connect_timeout=timeout))


async def until_filled(entries: tuple[FleetHost, ...], *, whole: bool = False) -> tuple[float, int]:
    """Seconds from the app's start to every row filled, and the rows up. ``whole``:
    each host read as its dashboard reads it."""
    started = time.perf_counter()
    if whole:
        fleet = Fleet(entries, timeout=10.0, connect=dashboard_link, collect=collect_inventory)
    else:
        fleet = Fleet(entries, timeout=10.0)
    app = TierdeckApp(None, fleet=fleet, hotplug=False)
    async with app.run_test(size=(80, 24)) as pilot:
        while not (isinstance(app.screen, FleetScreen) and app.screen.collected):
            await asyncio.sleep(0.005)
        await pilot.pause()  # the last row drawn
        took = time.perf_counter() - started
        screen = app.screen
        assert isinstance(screen, FleetScreen)
        up = sum(s.reachable for s in screen.statuses.values())
    return took, up


def login_shells(count: int, home: str | None = None) -> float:
    """Seconds for ``count`` login shells of this user started at once, as sshd starts
    a session's (bash reads ~/.bashrc when SSH_CLIENT is set), each running sh.
    ``home``: a HOME whose ~/.bashrc to read instead of the user's."""
    shell = pwd.getpwuid(os.getuid()).pw_shell or "/bin/sh"
    env = {"HOME": home or pwd.getpwuid(os.getuid()).pw_dir, "PATH": "/usr/bin:/bin",
           "SSH_CLIENT": "127.0.0.1 40000 22", "USER": "root"}  # fmt: skip
    started = time.perf_counter()
    procs = [subprocess.Popen([shell, "-c", "exec sh -c :"], env=env, stderr=subprocess.DEVNULL)
             for _ in range(count)]  # fmt: skip
    for proc in procs:
        proc.wait()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hosts", type=int, default=10)
    parser.add_argument("--plain-bashrc", action="store_true",
                        help="the servers' root with an empty ~/.bashrc (a NAS's)")  # fmt: skip
    parser.add_argument("--no-append", action="store_true", help="print only")
    args = parser.parse_args()
    if os.geteuid() != 0 or sshd_missing():
        raise SystemExit(f"needs root and sshd: {sshd_missing() or 'run as root'}")
    with tempfile.TemporaryDirectory(prefix="tierdeck-fleet-bench-") as tmp:
        folder = Path(tmp)
        plain_home = folder / "plain-home"
        plain_home.mkdir()
        (plain_home / ".bashrc").write_text("")
        bashrc = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".bashrc"
        binds = {bashrc: plain_home / ".bashrc"} if args.plain_bashrc and bashrc.exists() else {}
        floor_home = str(plain_home) if args.plain_bashrc else None
        labs: list[SshLab] = []
        try:
            for i in range(args.hosts):
                labs.append(SshLab.start(folder / f"sshd{i}", alias=f"nas{i}", binds=binds))
            os.environ["HOME"] = str(admin_home(folder, labs))
            os.environ.pop("SSH_AUTH_SOCK", None)
            os.environ["TIERDECK_CACHE_DIR"] = str(folder / "cache")
            os.environ.pop("XDG_RUNTIME_DIR", None)  # the keepers' sockets in that cache
            fleet = tuple(FleetHost(f"nas{i}", f"nas{i}") for i in range(args.hosts))
            asyncio.run(until_filled(fleet[:1]))  # warm-up: imports, first connection
            kept_fleet = tuple(dataclasses.replace(e, persist="10m") for e in fleet)
            asyncio.run(until_filled(kept_fleet))  # starts every host's keeper
            alone, many, whole, ratios, savings, shells = [], [], [], [], [], []
            with_kept, kept_ratios = [], []
            for _ in range(args.runs):
                shells.append(login_shells(args.hosts, floor_home))
                one, up_one = asyncio.run(until_filled(fleet[:1]))
                all_, up_all = asyncio.run(until_filled(fleet))
                read_whole, up_whole = asyncio.run(until_filled(fleet, whole=True))
                kept, up_kept = asyncio.run(until_filled(kept_fleet))
                if (up_one, up_all, up_whole, up_kept) != (1, *[args.hosts] * 3):
                    raise SystemExit(f"hosts down: {up_one}/1, {up_all}/{args.hosts}")
                with_kept.append(kept)
                kept_ratios.append(all_ / kept)
                alone.append(one)
                many.append(all_)
                whole.append(read_whole)
                ratios.append(all_ / one)
                savings.append(all_ / read_whole)
        finally:
            for info in keepers():
                stop_keeper(info)
            for lab in labs:
                lab.stop()
    median = statistics.median(many)
    shell = "a plain ~/.bashrc" if args.plain_bashrc else "this VM's ~/.bashrc (pyenv)"
    lines = [
        f"fleet of {args.hosts} loopback hosts, every row filled (80x24, {args.runs} rounds; "
        f"the servers' root with {shell}):",
        f"  {args.hosts} hosts: median {median:.2f} s (min {min(many):.2f}, max {max(many):.2f})"
        f" [goal < {GOAL_S:g} s: {'met' if median < GOAL_S else 'NOT met'}]",
        f"  1 host alone: median {statistics.median(alone):.2f} s",
        f"  ratio {args.hosts} hosts / 1 host, paired: median {statistics.median(ratios):.2f}"
        f" (spread {min(ratios):.2f}-{max(ratios):.2f})",
        f"  {args.hosts} hosts read as their dashboards read them: median"
        f" {statistics.median(whole):.2f} s; rows / that, paired: median"
        f" {statistics.median(savings):.2f} (spread {min(savings):.2f}-{max(savings):.2f})",
        f"  {args.hosts} hosts with their connections kept (keepers up): median"
        f" {statistics.median(with_kept):.2f} s; connecting / kept, paired: median"
        f" {statistics.median(kept_ratios):.2f}x (spread {min(kept_ratios):.2f}-"
        f"{max(kept_ratios):.2f}; above 1: kept is faster)",
        f"  {args.hosts} login shells of the servers' user started at once (their floor):"
        f" median {statistics.median(shells):.2f} s",
    ]
    print("\n".join(lines))
    if not args.no_append:
        append_run("Fleet: `bench/fleet.py`", "Measured", lines)


if __name__ == "__main__":
    main()
