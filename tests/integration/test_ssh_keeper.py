"""The kept SSH connection (backends/host/ssh/keeper.py, kept.py) against a real sshd:
a later command runs over the keeper's connection (no asyncssh imported, no new session
on the server), the keeper ends when idle or when its connection drops, a stale socket
falls back to a direct connection, another user is refused, and the socket's folder is
the user's alone. Each test has an sshd of its own (session counts are exact) and ends
every keeper it started."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.waiting import wait_until_sync

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "tierdeck.app.cli"]


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An sshd of this test's, reached as "nas" with ``ControlPersist 10m`` in the
    client's ~/.ssh/config; every keeper is stopped at the end, and none is left."""
    from tests.conftest import integration_unavailable_reason, require
    from tests.support.sshd import SshLab, sshd_missing

    require(integration_unavailable_reason() or sshd_missing())
    server = SshLab.start(tmp_path / "sshd")
    server.write_client_config("  ControlPersist 10m\n")
    monkeypatch.setenv("HOME", str(server.home))
    # a short folder: a unix socket's path holds at most 108 bytes
    cache = Path(tempfile.mkdtemp(prefix="tdk-keep-"))
    monkeypatch.setenv("TIERDECK_CACHE_DIR", str(cache))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    try:
        yield server
    finally:
        tierdeck("fleet", "keepers", "--stop")
        try:
            wait_until_sync(lambda: not keeper_pids(), "every keeper to end", timeout=20)
        finally:
            for pid in keeper_pids():
                os.kill(pid, signal.SIGKILL)
            server.stop()
            shutil.rmtree(cache, ignore_errors=True)


def tierdeck(*args: str, python_args: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *python_args, *CLI[1:], *args], env=dict(os.environ),
                          capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL)  # fmt: skip


def keepers() -> list[dict[str, Any]]:
    listed = tierdeck("fleet", "keepers", "--json")
    assert listed.returncode == 0, listed.stderr
    document = json.loads(listed.stdout)
    assert document["schema"] == "tierdeck.keepers/1"
    return list(document["keepers"])


def keeper_pids() -> list[int]:
    """Keepers started under this test's HOME (their sockets are in its cache folder)."""
    folder = os.environ["TIERDECK_CACHE_DIR"]
    found = subprocess.run(["pgrep", "-f", f"host.ssh.keeper .* {folder}/"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    return [int(p) for p in found.stdout.split()]


def inventory(*python_args: str) -> subprocess.CompletedProcess[str]:
    proc = tierdeck("--host", "nas", "inventory", "--json", python_args=python_args)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["schema"] == "tierdeck.inventory/1"
    return proc


def asyncssh_imported(proc: subprocess.CompletedProcess[str]) -> bool:
    """From ``python -X importtime``'s list of every module the command imported."""
    names = [line.rpartition("|")[2].strip() for line in proc.stderr.splitlines()]
    assert "tierdeck.backends.host.ssh.host" in names  # the list is there
    return "asyncssh" in names


def test_a_second_command_runs_over_the_kept_connection(lab: Any) -> None:
    first = inventory("-X", "importtime")
    assert not asyncssh_imported(first)  # the first started the keeper and used it
    [kept] = keepers()
    assert kept["target"] == "nas" and kept["idle_limit_s"] == 600
    sessions = lab.session_pids()
    assert len(sessions) == 1
    served = kept["requests"]
    second = inventory("-X", "importtime")
    assert not asyncssh_imported(second)
    assert lab.session_pids() == sessions  # the server saw no new connection
    [again] = keepers()
    assert again["pid"] == kept["pid"] and again["requests"] > served
    # the same command with the keeper turned off connects itself, as before
    lab.write_client_config("  ControlPersist no\n")
    direct = inventory("-X", "importtime")
    assert asyncssh_imported(direct)


def test_hosts_toml_persist_wins_and_the_keeper_ends_when_idle(lab: Any) -> None:
    config = Path(os.environ["TIERDECK_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "hosts.toml").write_text('[[host]]\nname = "nas"\nssh = "nas"\npersist = "2s"\n')
    inventory()
    [kept] = keepers()
    assert kept["idle_limit_s"] == 2
    wait_until_sync(lambda: not keeper_pids(), "the idle keeper to end", timeout=30)
    assert keepers() == []
    wait_until_sync(lambda: not lab.session_pids(), "its connection to close", timeout=10)


def test_a_dropped_connection_ends_the_keeper_and_commands_connect_again(lab: Any) -> None:
    inventory()
    [pid] = keeper_pids()
    lab.kill_sessions()  # the link drops, as a NAS's reboot would drop it
    wait_until_sync(lambda: pid not in keeper_pids(), "the keeper to end with its connection")
    inventory()  # works: a new keeper and a new connection
    assert len(keeper_pids()) == 1 and len(lab.session_pids()) == 1


def test_a_command_right_after_the_drop_reads_on_its_own_connection(lab: Any) -> None:
    inventory()
    lab.kill_sessions()
    # no wait for the keeper to notice: whatever it says (down, lost, gone), the reads
    # are made again on the command's own connection and the command succeeds
    proc = inventory()
    assert proc.stderr == ""


def test_a_stale_socket_falls_back_to_a_direct_connection(lab: Any) -> None:
    inventory()
    [kept] = keepers()
    os.kill(kept["pid"], signal.SIGKILL)  # no goodbye: its socket file stays behind
    wait_until_sync(lambda: kept["pid"] not in keeper_pids(), "the keeper to die")
    assert Path(kept["socket"]).exists()
    # the next command is not troubled by it (nothing on stderr, same answer)
    proc = inventory()
    assert proc.stderr == ""


def test_another_user_is_refused(lab: Any) -> None:
    inventory()
    [kept] = keepers()
    path = Path(kept["socket"])
    folder = path.parent
    assert folder.stat().st_mode & 0o777 == 0o700 and folder.stat().st_uid == os.geteuid()
    assert path.stat().st_mode & 0o777 == 0o600
    nobody = pwd.getpwnam("nobody").pw_uid
    folder.parent.chmod(0o755)  # the test's own cache folder (mkdtemp's 0700) lets all in

    def ask_as_nobody() -> tuple[str, str]:
        script = (
            "import os, socket, sys\n"
            f"os.setgid({nobody}); os.setuid({nobody})\n"
            "s = socket.socket(socket.AF_UNIX)\n"
            "try:\n"
            "    s.connect(sys.argv[1])\n"
            "except OSError as exc:\n"
            "    print('connect', exc.errno); sys.exit()\n"
            "try:\n"
            '    s.sendall(b\'{"op": "info"}\\n\')\n'
            "    print('answer', repr(s.makefile('rb').read()))\n"
            "except (BrokenPipeError, ConnectionResetError):\n"
            "    print('answer', 'closed')\n"
        )
        # the interpreter starts as root and drops to nobody itself, so it loads as any
        # test does (-S: site-packages, possibly in a folder root alone reads, not needed)
        done = subprocess.run([sys.executable, "-S", "-c", script, str(path)], cwd="/",
                              capture_output=True, text=True, timeout=30)  # fmt: skip
        assert done.returncode == 0, done.stderr
        kind, _, rest = done.stdout.strip().partition(" ")
        return kind, rest

    import errno

    # the folder keeps others out ...
    assert ask_as_nobody() == ("connect", str(errno.EACCES))
    # ... and were it open, the keeper itself checks who asks (SO_PEERCRED)
    folder.chmod(0o755)
    path.chmod(0o777)
    try:
        kind, answer = ask_as_nobody()
        assert kind == "answer" and answer in ("b''", "closed")  # closed: not a byte said
        # a folder others may enter is not trusted: no keeper is used through it
        proc = inventory("-X", "importtime")
        assert asyncssh_imported(proc)
    finally:
        folder.chmod(0o700)
    # the user's own peer still gets its answer
    with socket.socket(socket.AF_UNIX) as own:
        own.connect(str(path))
        own.sendall(b'{"op": "info"}\n')
        assert json.loads(own.makefile("rb").readline())["pid"] == kept["pid"]


def test_keepers_stop_ends_them(lab: Any) -> None:
    inventory()
    [kept] = keepers()
    stopped = tierdeck("fleet", "keepers", "--stop")
    assert stopped.returncode == 0 and "nas: stopped" in stopped.stdout
    wait_until_sync(lambda: kept["pid"] not in keeper_pids(), "the stopped keeper to end")
    assert not Path(kept["socket"]).exists()
    assert "No kept SSH connections." in tierdeck("fleet", "keepers").stdout


def test_a_keeper_that_cannot_connect_leaves_the_command_its_own_errors(lab: Any) -> None:
    lab.forget_host_key()
    proc = tierdeck("--host", "nas", "inventory")
    assert proc.returncode == 1
    assert "unknown host key" in proc.stderr and "SHA256:" in proc.stderr
    assert keeper_pids() == [] and keepers() == []


def test_a_host_that_wants_a_passphrase_gets_no_keeper(lab: Any, tmp_path: Path) -> None:
    locked = tmp_path / "locked_key"
    shutil.copy(lab.user_key, locked)
    locked.chmod(0o600)
    # the public half beside it: the key is offered, and its passphrase wanted, only
    # once the server accepts it (as ssh does)
    shutil.copy(f"{lab.user_key}.pub", f"{locked}.pub")
    subprocess.run(["ssh-keygen", "-q", "-p", "-P", "", "-N", "a passphrase", "-f", str(locked)],
                   check=True, capture_output=True, timeout=30)  # fmt: skip
    lab.user_key = locked
    lab.write_client_config("  ControlPersist 10m\n")
    first = tierdeck("--host", "nas", "inventory")
    assert first.returncode == 1  # no terminal to ask at: refused, as without a keeper
    assert keeper_pids() == []
    [marker] = Path(os.environ["TIERDECK_CACHE_DIR"], "keepers").glob("*.login")
    assert marker.read_bytes() == b""  # that a login wants typing, never what was typed
    # for a while no keeper is tried: the next command goes straight to its own login
    started = marker.stat().st_mtime
    second = tierdeck("--host", "nas", "inventory")
    assert second.returncode == 1 and second.stderr == first.stderr
    assert marker.stat().st_mtime == started


def test_a_host_that_does_not_answer_is_said_once_after_its_connect_timeout(
    lab: Any, tmp_path: Path
) -> None:
    """A listener that accepts and never speaks SSH: the keeper's connection times out
    (ConnectTimeout of ~/.ssh/config), and the command says so at once, without a
    second connection of its own that would wait as long again."""
    tarpit = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    config = lab.home / ".ssh" / "config"
    config.write_text(config.read_text() + f"Host silent\n  HostName 127.0.0.1\n"
                      f"  Port {tarpit.getsockname()[1]}\n  ConnectTimeout 2\n"
                      "  ControlPersist 10m\n")  # fmt: skip
    proc = subprocess.Popen([*CLI, "--host", "silent", "inventory", "--json"],
                            env=dict(os.environ), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        tarpit.settimeout(0.2)
        while proc.poll() is None:  # accept whatever comes until the command ends
            try:
                accepted.append(tarpit.accept()[0])
            except TimeoutError:
                continue
        stderr = proc.stderr.read() if proc.stderr else ""
        assert proc.returncode == 1, stderr
        assert "silent: no answer within 2 s" in stderr
        assert len(accepted) == 1, "the command connected again after its keeper's timeout"
        assert keeper_pids() == []
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
        for conn in accepted:
            conn.close()
        tarpit.close()


def test_the_fleets_rows_read_through_the_keeper(lab: Any) -> None:
    config = Path(os.environ["TIERDECK_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "hosts.toml").write_text('[[host]]\nname = "nas"\nssh = "nas"\npersist = "10m"\n')

    def fleet() -> dict[str, Any]:
        proc = tierdeck("fleet", "--json")
        assert proc.returncode == 0, proc.stderr
        [row] = json.loads(proc.stdout)["hosts"]
        assert row["reachable"] and row["error"] is None, row
        return dict(row)

    fleet()
    [kept] = keepers()
    assert kept["target"] == "nas" and kept["idle_limit_s"] == 600
    sessions = lab.session_pids()
    assert len(sessions) == 1  # the keeper's: the row made no connection of its own
    fleet()
    assert lab.session_pids() == sessions  # the second round connected to no one
    [again] = keepers()
    assert again["pid"] == kept["pid"] and again["requests"] > kept["requests"]


def test_the_machine_switcher_reads_through_the_keeper(lab: Any) -> None:
    from tierdeck.app.tui.host_switch import open_choice

    config = Path(os.environ["TIERDECK_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "hosts.toml").write_text('[[host]]\nname = "nas"\nssh = "nas"\npersist = "10m"\n')
    inventory()  # a keeper of nas, from an earlier command
    [kept] = keepers()
    sessions = lab.session_pids()
    host = open_choice("nas", lambda _question: None)
    try:
        assert host.hostname == os.uname().nodename
        assert lab.session_pids() == sessions  # its dashboard's reads: the keeper's link
    finally:
        host.close()  # type: ignore[attr-defined]
    [again] = keepers()
    assert again["pid"] == kept["pid"] and again["requests"] > kept["requests"]
