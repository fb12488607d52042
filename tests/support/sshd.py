"""A real OpenSSH server for the tests: Debian's sshd on a loopback port, with a
throwaway host key and user key, and a client side (~/.ssh/config, known_hosts, the
key) in a HOME of its own, as an admin's machine would have them.

``SshLab.start(folder)`` starts it; ``stop()`` ends it and every session it had.
Nothing listens outside 127.0.0.1. ``binds`` puts files of the test's over the machine's
own (a plain ~/.bashrc, an /etc/passwd and /etc/shadow with a throwaway user) for sshd
and its sessions only: sshd runs in a mount namespace of its own, which ends with it,
so the machine's files are never touched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

SSHD = "/usr/sbin/sshd"


def sshd_missing() -> str | None:
    """Why the sshd tests cannot run here, or None."""
    if not Path(SSHD).exists():
        return "needs OpenSSH's sshd (scripts/setup.sh --test installs openssh-server)"
    if shutil.which("ssh-keygen") is None:
        return "needs ssh-keygen (openssh-client)"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tierdeck-test",
                    "-f", str(path)], check=True, timeout=30)  # fmt: skip


def _bound(binds: Mapping[Path, Path]) -> list[str]:
    """The command's prefix that runs it in a mount namespace of its own with ``binds``
    mounted (each file of the test's over the machine's): the mounts are private to that
    namespace and end with its last process, sshd's sessions included. unshare and sh
    both exec, so the command keeps the pid the caller holds."""
    if not binds:
        return []
    mounts = "".join(
        f'mount --bind -- "${{{2 * i + 2}}}" "${{{2 * i + 1}}}"; ' for i in range(len(binds))
    )
    pairs = [str(path) for pair in binds.items() for path in pair]
    return ["unshare", "--mount", "--propagation", "private", "sh", "-ec",
            f'{mounts}shift {len(pairs)}; exec "$@"', "sh", *pairs]  # fmt: skip


@dataclass
class SshLab:
    folder: Path
    port: int
    home: Path  # the client's HOME: .ssh/config names the server "nas"
    user_key: Path
    host_key: Path
    alias: str = "nas"
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @classmethod
    def start(cls, folder: Path, *, alias: str = "nas", port: int | None = None,
              listen: str = "127.0.0.1", session_env: dict[str, str] | None = None,
              netns: str | None = None, binds: Mapping[Path, Path] | None = None,
              passwords: bool = False) -> SshLab:  # fmt: skip
        """``session_env``: what every session on the server has (sshd's SetEnv), e.g.
        a PATH with this checkout's tierdeck, and its data folders in the test's.
        ``netns``: the network namespace sshd runs in (tests/support/netns.py).
        ``binds``: {the machine's file: the test's file seen in its place} by sshd and
        its sessions. ``passwords``: sshd also takes a password (from /etc/shadow)."""
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        host_key, user_key = folder / "host_key", folder / "user_key"
        if not host_key.exists():
            _keygen(host_key)
        if not user_key.exists():
            _keygen(user_key)
        (folder / "authorized_keys").write_text(Path(f"{user_key}.pub").read_text())
        port = port or free_port()
        config = folder / "sshd_config"
        config.write_text(
            f"ListenAddress {listen}\nPort {port}\nHostKey {host_key}\n"
            f"AuthorizedKeysFile {folder}/authorized_keys\n"
            "PermitRootLogin prohibit-password\n"
            f"PasswordAuthentication {'yes' if passwords else 'no'}\n"
            "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
            f"PidFile {folder}/sshd.pid\nLogLevel ERROR\nMaxSessions 64\nMaxStartups 64\n"
            # SFTP in sshd itself: a client's sshfs mount of a share (the ladder's network rung)
            "Subsystem sftp internal-sftp\n"
            + "".join(f"SetEnv {k}={v}\n" for k, v in (session_env or {}).items())
        )
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation folder
        home = folder / "home"
        (home / ".ssh").mkdir(parents=True, exist_ok=True)
        lab = cls(folder, port, home, user_key, host_key, alias)
        lab.write_client_config()
        lab.trust_host_key()
        # -D: stays in the foreground as our child, so stop() ends it for sure
        inside = ["ip", "netns", "exec", netns] if netns else []
        lab.process = subprocess.Popen([*inside, *_bound(binds or {}), SSHD, "-D", "-e",
                                        "-f", str(config)], stderr=subprocess.DEVNULL)  # fmt: skip
        lab.wait_listening(listen)
        return lab

    def write_client_config(self, extra: str = "") -> None:
        (self.home / ".ssh" / "config").write_text(
            f"Host {self.alias}\n  HostName 127.0.0.1\n  Port {self.port}\n  User root\n"
            f"  IdentityFile {self.user_key}\n  IdentitiesOnly yes\n{extra}"
        )

    def trust_host_key(self) -> None:
        kind, key, *_ = Path(f"{self.host_key}.pub").read_text().split()
        (self.home / ".ssh" / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {kind} {key}\n")

    def forget_host_key(self) -> None:
        (self.home / ".ssh" / "known_hosts").write_text("")

    def wait_listening(self, address: str = "127.0.0.1", timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection((address, self.port), 0.5):
                return
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"sshd exited {self.process.returncode}")
            time.sleep(0.02)  # polling a port: nothing to wait on but the socket
        raise RuntimeError(f"sshd did not listen on {address}:{self.port}")

    def session_pids(self) -> list[int]:
        """The sshd processes serving connections (children of the listener)."""
        if self.process is None:
            return []
        found = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True,
                               text=True, check=False)  # fmt: skip
        return [int(p) for p in found.stdout.split()]

    def kill_sessions(self) -> None:
        """Cut every connection as a dropped link would: the session processes die."""
        for pid in self.session_pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        self.kill_sessions()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
