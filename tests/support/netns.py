"""Machines of their own on this one for the tests: each a network namespace joined
to this one by a veth pair (10.200.N.1 here, 10.200.N.2 there), running its own sshd.
Nothing is routed beyond the pair; ``teardown`` removes the namespace and its link.

The namespaces share this machine's filesystem, so each "host" gets a folder of its
own to benchmark in. ``ip netns add`` also mounts /run/netns onto itself (once, left
after the last namespace goes): ``release_run_netns`` removes that mount when it was
not there before, or every inventory afterwards would list it.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .sshd import SshLab

# A session's PATH on the hosts (sshd's SetEnv): Debian's tools, fio among them
SESSION_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


@dataclass
class NsHost:
    name: str  # the namespace, also the ssh alias
    address: str  # its end of the veth pair
    lab: SshLab
    folder: Path  # where its test files go

    def fio_processes(self) -> list[int]:
        """fio processes running in this host's network namespace (a server or a job
        left behind); a zombie waiting for its parent's wait() is gone already."""
        pids = subprocess.run(["ip", "netns", "pids", self.name], capture_output=True,
                              text=True, check=False).stdout.split()  # fmt: skip
        found = []
        for pid in pids:
            with contextlib.suppress(OSError):  # ended meanwhile
                stat = Path(f"/proc/{pid}/stat").read_text()
                name, state = (
                    stat[stat.index("(") + 1 : stat.rindex(")")],
                    stat.split(")")[-1].split()[0],
                )
                if name == "fio" and state != "Z":
                    found.append(int(pid))
        return found

    def kill(self) -> None:
        """As a machine that drops off the network: its sshd and every session (and
        with them the fio server of a run) killed."""
        self.lab.stop()


def start_ns_host(index: int, folder: Path, session_env: dict[str, str]) -> NsHost:
    name = f"tdc{index}"
    here, there = f"10.200.{index}.1", f"10.200.{index}.2"
    teardown(name)  # a namespace left by a crashed earlier run
    _ip("netns", "add", name)
    _ip("link", "add", f"{name}h", "type", "veth", "peer", "name", f"{name}n")
    _ip("link", "set", f"{name}n", "netns", name)
    _ip("addr", "add", f"{here}/24", "dev", f"{name}h")
    _ip("link", "set", f"{name}h", "up")
    _ip("-n", name, "addr", "add", f"{there}/24", "dev", f"{name}n")
    _ip("-n", name, "link", "set", f"{name}n", "up")
    _ip("-n", name, "link", "set", "lo", "up")
    lab = SshLab.start(folder / "sshd", alias=name, listen=there, session_env=session_env,
                       netns=name)  # fmt: skip
    target = folder / "target"
    target.mkdir(parents=True, exist_ok=True)
    return NsHost(name, there, lab, target)


def teardown(name: str) -> None:
    with contextlib.suppress(subprocess.CalledProcessError):
        _ip("netns", "pids", name)
        pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True,
                              check=False).stdout.split()  # fmt: skip
        if pids:
            subprocess.run(["kill", "-9", *pids], check=False, timeout=10)
    with contextlib.suppress(subprocess.CalledProcessError):
        _ip("link", "del", f"{name}h")
    with contextlib.suppress(subprocess.CalledProcessError):
        _ip("netns", "del", name)


def run_netns_mounted() -> bool:
    mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    return any(line.split()[4] == "/run/netns" for line in mounts)


def release_run_netns(was_mounted: bool) -> None:
    """Unmount /run/netns (every layer ``ip`` stacked) unless it was mounted before or a
    namespace is still in it."""
    if was_mounted:
        return
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    while not left.stdout.strip() and run_netns_mounted():
        if subprocess.run(["umount", "/run/netns"], check=False, timeout=30).returncode != 0:
            break


def client_config(hosts: list[NsHost]) -> str:
    """~/.ssh/config and known_hosts lines naming every host by its namespace."""
    return "".join(
        f"Host {h.name}\n  HostName {h.address}\n  Port {h.lab.port}\n  User root\n"
        f"  IdentityFile {h.lab.user_key}\n  IdentitiesOnly yes\n"
        for h in hosts
    )


def known_hosts(hosts: list[NsHost]) -> str:
    lines = []
    for h in hosts:
        kind, key, *_ = Path(f"{h.lab.host_key}.pub").read_text().split()
        lines.append(f"[{h.address}]:{h.lab.port} {kind} {key}\n")
    return "".join(lines)


@contextlib.contextmanager
def ns_hosts(
    indexes: Sequence[int], base: Path, paths: Sequence[str] | None = None
) -> Iterator[list[NsHost]]:
    """Hosts ``tdcN`` for each index, with their folders under ``base`` and one HOME
    (``base/home``, set as every host's ``lab.home``) whose ssh config and known_hosts
    name them all; ``paths``: each host's session PATH (SESSION_PATH by default). All of
    it torn down on leaving, /run/netns too when it was not mounted before."""
    made: list[NsHost] = []
    was_mounted = run_netns_mounted()
    try:
        for position, index in enumerate(indexes):
            path = paths[position] if paths else SESSION_PATH
            made.append(start_ns_host(index, base / f"host{index}", {"PATH": path}))
        home = base / "home"
        (home / ".ssh").mkdir(parents=True)
        (home / ".ssh" / "config").write_text(client_config(made))
        (home / ".ssh" / "known_hosts").write_text(known_hosts(made))
        for h in made:
            h.lab.home = home
        yield made
    finally:
        for h in made:
            h.lab.stop()
        for index in indexes:
            teardown(f"tdc{index}")
        release_run_netns(was_mounted)
