"""Password login against a real sshd (integration): a throwaway user with a known
password exists only for that sshd, which runs in a mount namespace of its own with
copies of /etc/passwd and /etc/shadow bind-mounted over the machine's
(tests/support/sshd.py ``binds``; this machine's files are never touched, and the mounts
end with sshd). ``tierdeck --host`` asks the password at the terminal (a pty here),
logs in with it and keeps it nowhere; a wrong one is refused, saying so. The fleet
screen's row of that host is in the login state, and enter signs in with the masked
modal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import integration_unavailable_reason, require

if TYPE_CHECKING:
    from tests.support.sshd import SshLab

pytestmark = pytest.mark.integration

USER = "tdpass"
PASSWORD = "pw-correct-staple-91"


@pytest.fixture(scope="module")
def password_sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshLab]:
    """An sshd that takes passwords, whose machine has the user ``USER`` (home /,
    shell /bin/sh, nogroup), reached as the alias "pw" with no key to offer."""
    from tests.support.sshd import SshLab, sshd_missing

    require(integration_unavailable_reason() or sshd_missing())
    folder = tmp_path_factory.mktemp("sshd-password")
    hashed = subprocess.run(["openssl", "passwd", "-6", "-stdin"], input=PASSWORD,
                            capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    passwd, shadow = folder / "passwd", folder / "shadow"
    passwd.write_text(
        Path("/etc/passwd").read_text() + f"{USER}:x:64123:65534:tierdeck test:/:/bin/sh\n"
    )
    shadow.write_text(Path("/etc/shadow").read_text() + f"{USER}:{hashed}:20000:0:99999:7:::\n")
    shadow.chmod(0o640)
    lab = SshLab.start(folder, passwords=True, binds={Path("/etc/passwd"): passwd,
                                                      Path("/etc/shadow"): shadow})  # fmt: skip
    # no key, no agent: the password is the only way in
    (lab.home / ".ssh" / "config").write_text(
        f"Host pw\n  HostName 127.0.0.1\n  Port {lab.port}\n  User {USER}\n"
        "  IdentitiesOnly yes\n  PubkeyAuthentication no\n"
    )
    try:
        yield lab
    finally:
        lab.stop()
    assert USER not in Path("/etc/passwd").read_text()  # the machine's own, untouched


def _at_terminal(args: list[str], env: dict[str, str], answer: str) -> tuple[int, str]:
    """Run ``args`` with a pty as its terminal; type ``answer`` at its password prompt.
    Its exit status and everything it wrote (\\r\\n as \\n)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its controlling terminal (getpass reads it)
        os.execve(sys.executable, [sys.executable, *args], env)
    out, answered, deadline = b"", False, time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child has ended and closed the terminal
                break
            if not chunk:
                break
            out += chunk
            if not answered and b"Password for" in out:
                os.write(fd, answer.encode() + b"\n")
                answered = True
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace").replace("\r\n", "\n")


def _env(lab: SshLab) -> dict[str, str]:
    env = {**os.environ, "HOME": str(lab.home)}
    env.pop("SSH_AUTH_SOCK", None)
    return env


def test_the_password_is_asked_at_the_terminal_and_kept_nowhere(password_sshd: SshLab) -> None:
    env = _env(password_sshd)
    code, out = _at_terminal(
        ["-m", "tierdeck.app.cli", "--host", "pw", "inventory", "--json"], env, PASSWORD
    )
    assert code == 0, out
    assert "Password for pw: " in out
    assert PASSWORD not in out  # not echoed
    document = out[out.index("{") :]
    assert '"schema": "tierdeck.inventory/1"' in document
    assert f'"hostname": "{os.uname().nodename}"' in document
    # nothing written by the run holds it: the client's HOME, config, data and cache
    kept = ("TIERDECK_CONFIG_DIR", "TIERDECK_DATA_DIR", "TIERDECK_CACHE_DIR")
    folders = [password_sshd.home, *(Path(env[name]) for name in kept if env.get(name))]
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                assert PASSWORD.encode() not in path.read_bytes(), path


def test_a_wrong_password_is_refused_saying_so(password_sshd: SshLab) -> None:
    code, out = _at_terminal(
        ["-m", "tierdeck.app.cli", "--host", "pw", "inventory", "--json"],
        _env(password_sshd),
        "not-the-password",
    )
    assert code == 1, out
    assert "a password was given, and not accepted" in out, out
    assert "Too many authentication failures" not in out  # offered once, not six times
    assert "Traceback" not in out and "{" not in out


def test_without_a_terminal_it_says_a_password_is_needed(password_sshd: SshLab) -> None:
    done = subprocess.run([sys.executable, "-m", "tierdeck.app.cli", "--host", "pw", "inventory",
                           "--json"], env=_env(password_sshd), capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode != 0 and not done.stdout
    assert "password" in done.stderr and "Traceback" not in done.stderr, done.stderr


async def test_the_fleet_screen_signs_in_with_the_password_in_the_masked_modal(
    password_sshd: SshLab, _own_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Input
    from tierdeck.screens.dashboard.dashboard import DashboardScreen
    from tierdeck.screens.modals.secret import SecretScreen

    from tests.integration.test_ssh_secrets import fleet_answered, fleet_app
    from tests.waiting import wait_until

    monkeypatch.setenv("HOME", str(password_sshd.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    (_own_config / "hosts.toml").write_text('[[host]]\nname = "vault"\nssh = "pw"\n')
    _, app = fleet_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await fleet_answered(pilot, app)
        assert screen.statuses["vault"].needs_secret == "a password"  # the login state
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SecretScreen), "the question")
        assert "Password for pw" in app.screen.question
        secret = app.screen.query_one(Input)
        assert secret.password  # masked
        secret.value = PASSWORD
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen),
                         "the host's dashboard", timeout=60)  # fmt: skip
        await wait_until(pilot, lambda: app.refreshes >= 1, "its inventory", timeout=60)
        assert app.inventory is not None and app.inventory.hostname == os.uname().nodename
