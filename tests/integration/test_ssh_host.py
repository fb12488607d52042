"""SshHost against a real OpenSSH server on the loopback: the same machine seen
through SSH answers as this machine does, and every way to fail says why."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.host import LiveHost
from tierdeck.backends.host.ssh import SshHost
from tierdeck.backends.host.ssh.link import SshLink
from tierdeck.backends.host.ssh.target import SshTarget
from tierdeck.backends.locks import LockHeld
from tierdeck.core.errors import HostKeyRefused, HostUnreachable
from tierdeck.core.serialize import inventory_to_dict

from tests.processes import fio_jobs_of
from tests.support.steady_inventory import assert_same_inventory
from tests.waiting import wait_until, wait_until_sync

pytestmark = pytest.mark.integration


@pytest.fixture
def nas(ssh_lab: Any) -> Any:
    host = SshHost(ssh_lab.alias)
    yield host
    host.close()


def test_this_machine_over_ssh_is_this_machine(nas: SshHost, lab_nas: Path) -> None:
    local = inventory_to_dict(collect_inventory(LiveHost()))
    before = nas.link.round_trips
    remote = inventory_to_dict(collect_inventory(nas))
    assert_same_inventory(remote, local, lab_nas)
    assert remote["host"]["hostname"] == os.uname().nodename
    # one gathering and the few commands the sources run, not a request per file
    assert nas.link.round_trips - before <= 10


def test_an_unknown_host_key_is_refused_with_its_fingerprint(ssh_lab: Any) -> None:
    ssh_lab.forget_host_key()
    fingerprint = subprocess.run(["ssh-keygen", "-lf", f"{ssh_lab.host_key}.pub"],
                                 capture_output=True, text=True, check=True).stdout.split()[1]  # fmt: skip
    with pytest.raises(HostKeyRefused) as refused:
        SshHost(ssh_lab.alias).facts  # noqa: B018
    assert not refused.value.changed
    assert fingerprint in str(refused.value)
    assert f"ssh {ssh_lab.alias}" in str(refused.value)  # the command that accepts it


def test_a_changed_host_key_is_refused_loudly(ssh_lab: Any, tmp_path: Path) -> None:
    other = tmp_path / "other"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    kind, key, *_ = Path(f"{other}.pub").read_text().split()
    (ssh_lab.home / ".ssh" / "known_hosts").write_text(f"[127.0.0.1]:{ssh_lab.port} {kind} {key}\n")
    with pytest.raises(HostKeyRefused) as refused:
        SshHost(ssh_lab.alias).facts  # noqa: B018
    assert refused.value.changed
    assert "HOST KEY CHANGED" in str(refused.value)


def test_a_key_the_server_does_not_know_is_refused_clearly(ssh_lab: Any, tmp_path: Path) -> None:
    stranger = tmp_path / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)], check=True)
    ssh_lab.write_client_config()
    config = ssh_lab.home / ".ssh" / "config"
    config.write_text(config.read_text().replace(str(ssh_lab.user_key), str(stranger)))
    with pytest.raises(HostUnreachable) as refused:
        SshHost(ssh_lab.alias).facts  # noqa: B018
    assert "refused every key" in str(refused.value)


def test_a_host_that_never_answers_times_out() -> None:
    # A socket that accepts connections and never speaks: the banner never comes.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        link = SshLink(SshTarget("127.0.0.1", "root", port), connect_timeout=1.5)
        with pytest.raises(HostUnreachable, match="no answer within 1.5 s"):
            SshHost(link.target, link=link).facts  # noqa: B018
        link.close()


def test_connecting_soon_hands_its_connection_or_its_error_to_the_first_use(
    ssh_lab: Any,
) -> None:
    host = SshHost(ssh_lab.alias)
    try:
        host.connect_soon()
        host.connect_soon()  # one connection, however often it is asked
        assert host.facts.hostname == os.uname().nodename
        assert host.link.round_trips == 2  # the connection and the facts' line, once
    finally:
        host.close()
    # A refusal made in the background is raised to the first use, once; the next use
    # connects again (as after any failure), here to the same refusal.
    ssh_lab.forget_host_key()
    host = SshHost(ssh_lab.alias)
    try:
        host.connect_soon()
        with pytest.raises(HostKeyRefused):
            host.facts  # noqa: B018
        trips = host.link.round_trips
        with pytest.raises(HostKeyRefused):
            host.facts  # noqa: B018
        assert host.link.round_trips == trips + 1
    finally:
        host.close()


_NAMES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
    min_size=1, max_size=40,
).filter(lambda n: n not in (".", ".."))  # fmt: skip


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=_NAMES, text=st.text(max_size=200))
def test_any_file_name_reaches_the_host_as_one_word(nas: SshHost, tmp_path: Path,
                                                   name: str, text: str) -> None:  # fmt: skip
    folder = tmp_path / "names"
    folder.mkdir(exist_ok=True)
    path = folder / name
    try:
        path.write_text(text, encoding="utf-8", newline="")
    except OSError:  # a name too long in bytes for ext4: nothing to check
        return
    try:
        assert nas.exists(str(path)) and not nas.is_dir(str(path))
        assert nas.read_text(str(path)) == text
        assert name in nas.listdir(str(folder))
        nas.write_atomically(str(path), text + "!")
        with open(path, encoding="utf-8", newline="") as written:
            assert written.read() == text + "!"
        assert nas.remove(str(path)) is True
        assert not path.exists() and nas.remove(str(path)) is False
    finally:
        path.unlink(missing_ok=True)


def test_errors_are_this_machines_errors(nas: SshHost, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        nas.read_text(str(tmp_path / "absent"))
    with pytest.raises(FileNotFoundError):
        nas.listdir(str(tmp_path / "absent"))
    nas.make_dirs(str(tmp_path / "a" / "b"))
    assert (tmp_path / "a" / "b").is_dir()
    (tmp_path / "a" / "b" / "f").write_text("x")
    with pytest.raises(OSError):
        nas.remove_dir(str(tmp_path / "a" / "b"))
    assert nas.statvfs(str(tmp_path)).size_bytes == LiveHost().statvfs(str(tmp_path)).size_bytes


def test_a_command_runs_with_its_status_and_a_missing_tool_is_named(nas: SshHost) -> None:
    from tierdeck.core.errors import ToolMissing, ToolTimeout

    result = nas.run(["sh", "-c", "printf 'a b'; echo oops >&2; exit 3"])
    assert (result.returncode, result.stdout, result.stderr) == (3, "a b", "oops\n")
    with pytest.raises(ToolMissing):
        nas.run(["no-such-tool-tierdeck"])
    with pytest.raises(ToolTimeout):
        nas.run(["sleep", "30"], timeout=1)


def _group_alive(pgid: int) -> bool:
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


async def test_a_spawned_command_dies_with_its_connection(nas: SshHost, ssh_lab: Any) -> None:
    process = await nas.spawn(["sleep", "300"])
    assert process.pid > 0 and _group_alive(process.pid)
    assert nas.group_alive(process.pid)
    assert ssh_lab.session_pids()
    ssh_lab.kill_sessions()
    await wait_until(None, lambda: not _group_alive(process.pid), "the remote sleep to stop", 8)
    with pytest.raises(HostUnreachable):
        await asyncio.wait_for(process.wait(), 10)


async def _fio_with_jobs(nas: SshHost, folder: Path) -> tuple[Any, list[int]]:
    process = await nas.spawn(["fio", "--name=t", f"--filename={folder / 'f'}", "--size=1M",
                               "--rw=read", "--time_based", "--runtime=60", "--numjobs=2",
                               "--output=/dev/null"])  # fmt: skip
    await wait_until(None, lambda: len(fio_jobs_of(process.pid)) == 2, "fio's two jobs", 30)
    return process, fio_jobs_of(process.pid)


def _all_gone(pids: list[int]) -> Any:
    return lambda: not any(Path(f"/proc/{pid}").exists() for pid in pids)


@pytest.mark.parametrize("stopped_by", ["signal", "lost link"])
async def test_fio_jobs_of_a_frozen_leader_are_stopped_on_the_host(
    nas: SshHost, ssh_lab: Any, tmp_path: Path, stopped_by: str
) -> None:
    # fio's jobs leave the leader's process group (setsid): a signal to the group alone
    # reaches the leader, never them. The host is this machine.
    process, jobs = await _fio_with_jobs(nas, tmp_path)
    os.kill(process.pid, signal.SIGSTOP)  # the leader can pass nothing on
    try:
        if stopped_by == "signal":
            assert nas.signal_group(process.pid, signal.SIGKILL)
        else:
            ssh_lab.kill_sessions()  # the host's watcher: TERM, then KILL 5 s later
        await wait_until(None, _all_gone(jobs), "fio's jobs to stop on the host", 12)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)


async def test_fio_jobs_left_by_a_killed_leader_do_not_hold_the_channel(
    nas: SshHost, tmp_path: Path
) -> None:
    process, jobs = await _fio_with_jobs(nas, tmp_path)
    os.kill(process.pid, signal.SIGKILL)  # the leader alone: its jobs run on
    await wait_until(None, _all_gone(jobs), "fio's jobs to stop on the host", 10)
    assert await asyncio.wait_for(process.wait(), 10) == -signal.SIGKILL
    assert not nas.group_alive(process.pid)


async def test_closing_the_link_ends_a_spawned_command_and_its_reader(nas: SshHost) -> None:
    process = await nas.spawn(["sleep", "300"])
    assert _group_alive(process.pid)
    await asyncio.to_thread(nas.close)  # as the app does when it closes
    assert process.stdout is not None
    assert await asyncio.wait_for(process.stdout.read(), 10) == b""  # the reader is told
    with pytest.raises(HostUnreachable):
        await asyncio.wait_for(process.wait(), 10)
    await wait_until(None, lambda: not _group_alive(process.pid), "the remote sleep to stop", 8)
    with pytest.raises(HostUnreachable):  # closed for good: no new connection
        nas.link.shell("true")


def test_a_lock_over_ssh_is_the_hosts_lock_and_dies_with_the_link(
    nas: SshHost, ssh_lab: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierdeck.backends import locks

    # the host's own lock folder, as its sessions see it (not this worker's own)
    monkeypatch.delenv(locks.ENV_LOCK_DIR, raising=False)

    with nas.exclusive("ssh-test-key"):
        with pytest.raises(LockHeld), locks.exclusive("ssh-test-key"):
            pass
        ssh_lab.kill_sessions()
        wait_until_sync(lambda: _lock_free("ssh-test-key"), "the lock to be released", timeout=8)


def _lock_free(key: str) -> bool:
    from tierdeck.backends import locks

    try:
        with locks.exclusive(key):
            return True
    except LockHeld:
        return False


async def test_the_dashboard_of_a_remote_host_shows_its_disks(nas: SshHost, lab_nas: Path) -> None:
    from textual.widgets import DataTable
    from tierdeck.app.tui.app import TierdeckApp

    from tests.pilot.waiting import wait_for_inventory

    app = TierdeckApp(nas)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_inventory(pilot, app)
        table = app.screen.query_one(DataTable)
        shown = {str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)}
        local = {d.name for d in collect_inventory(LiveHost()).disks}
        assert local and local <= {name.lstrip("* ") for name in shown}
        assert app.last_error is None


_WORDS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=30,
) | st.sampled_from(["$(touch /tmp/tierdeck-pwned)", "`id`", "-rf", "--", "a b", "'\"", "\n", "*"])


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(_WORDS, min_size=1, max_size=4))
def test_every_argument_reaches_the_command_as_it_was_given(nas: SshHost, words: list[str]) -> None:
    result = nas.run(["printf", "%s\\0", *words])
    assert result.returncode == 0
    assert result.stdout.split("\0")[:-1] == words
    assert not Path("/tmp/tierdeck-pwned").exists()


def test_a_host_behind_a_jump_host_is_reached_through_it(ssh_lab: Any) -> None:
    ssh_lab.write_client_config(
        f"Host behind\n  HostName 127.0.0.1\n  Port {ssh_lab.port}\n  User root\n"
        f"  IdentityFile {ssh_lab.user_key}\n  ProxyJump {ssh_lab.alias}\n"
    )
    host = SshHost("behind")
    try:
        assert host.hostname == os.uname().nodename
        # two connections to the server while connected: to the jump host, and through it
        assert len(ssh_lab.session_pids()) >= 2
    finally:
        host.close()


async def test_a_benchmark_over_ssh_is_kept_here_with_the_host_it_ran_on(
    nas: SshHost, lab_nas: Path, tmp_path: Path
) -> None:
    """The history stays on the admin's machine and names the machine fio ran on: the
    same machine reached locally and over SSH is one host to compare."""
    from tierdeck.app.bench.preflight import plan_run
    from tierdeck.app.bench.service import BenchService
    from tierdeck.app.history.store import HistoryStore
    from tierdeck.core.bench_models import RunHost, RunStatus
    from tierdeck.core.jobspec import JobSpec

    store = HistoryStore(tmp_path / "history.sqlite3")
    job = JobSpec(name="over-ssh", rw="write", bs="64k", ioengine="psync", direct=True,
                  size="4M", runtime=1, time_based=True)  # fmt: skip
    cache = str(lab_nas / "mnt" / "cache")
    inventory = collect_inventory(nas)
    request = plan_run(nas, inventory, cache, [job])
    service = BenchService(nas, store=lambda: store)
    result = await asyncio.wait_for(service.run(inventory, request, lambda _: None), 60)
    assert result.status is RunStatus.OK, result.error
    assert result.id is not None
    stored = store.get(result.id)
    assert stored is not None
    assert stored.host == RunHost(os.uname().nodename, nas.identity)
    assert stored.host.id.startswith("ssh:") and stored.host.id != "ssh:"
    local = LiveHost()
    here = RunHost(local.hostname, local.identity)
    assert here.same_machine(stored.host) is True  # the loopback's sshd is this machine
    assert [r.id for r in store.list(host=nas.identity, series=False)] == [result.id]
