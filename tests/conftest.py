"""Fixtures shared by every test folder."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Hypothesis's 200 ms deadline per example is a timed test in disguise: on a loaded
# 2-core machine running three workers it fails examples that are merely slow.
settings.register_profile("tierdeck", deadline=None)
settings.load_profile("tierdeck")

# ------------------------------------------------------------------ integration tests
#
# Tests that need root and the machine's tools (the lab NAS on loop devices, mergerfs,
# fio, udevd, tmpfs/ramfs mounts) are marked ``integration``. Before each of them,
# ``pytest_runtest_setup`` below checks this machine once: without what they need they
# are skipped with the reason on a developer's machine, and FAIL under CI (the ``CI``
# environment variable set), so that CI never passes by skipping them.

INTEGRATION_TOOLS = ("fio", "mergerfs", "losetup", "mkfs.btrfs", "mkfs.ext4", "mkfs.xfs", "udevadm")
# Fixtures that touch the machine as root: a test using one must be marked integration.
ROOT_FIXTURES = frozenset({"lab_nas", "udevd", "tmpfs_dir", "ramfs_dir", "ssh_lab", "sshd_server"})


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


@functools.cache
def integration_unavailable_reason() -> str | None:
    """What this machine lacks for the integration tests ("needs root; ..."), or None."""
    needs = []
    if os.geteuid() != 0:
        needs.append("root")
    missing = [t for t in INTEGRATION_TOOLS if shutil.which(t) is None]
    if _udevd_binary() is None:
        missing.append("systemd-udevd")
    if missing:
        needs.append(f"{', '.join(missing)} (scripts/setup.sh installs them)")
    if not Path("/dev/loop-control").exists():
        needs.append("loop devices (/dev/loop-control)")
    if not Path("/dev/fuse").exists():
        needs.append("FUSE (/dev/fuse)")
    return f"needs {'; '.join(needs)}" if needs else None


def require(reason: str | None) -> None:
    """Skip the integration test for ``reason`` ("needs ..."), or fail it under CI."""
    if reason is None:
        return
    if in_ci():
        pytest.fail(f"integration tests must run in CI, and this one {reason}", pytrace=False)
    pytest.skip(f"integration test {reason}")


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist each worker is a machine of its own for tierdeck's machine-wide
    locks: the mover's and layout apply's keys are fixed names, which two workers'
    tests would otherwise take from each other. The processes a test starts inherit it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and not os.environ.get("TIERDECK_LOCK_DIR"):
        folder = Path(tempfile.mkdtemp(prefix=f"tierdeck-locks-{worker}-"))
        os.environ["TIERDECK_LOCK_DIR"] = str(folder)
        config.add_cleanup(functools.partial(shutil.rmtree, folder, ignore_errors=True))


@pytest.fixture(scope="session")
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def _own_cache(_session_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test starts with no kept inventory (the dashboard opens as on a first
    start) and never reads or writes the user's cache; the demo history built in it is
    kept for the session."""
    monkeypatch.setenv("TIERDECK_CACHE_DIR", str(_session_cache))
    yield _session_cache
    shutil.rmtree(_session_cache / "inventory", ignore_errors=True)


@pytest.fixture(autouse=True)
def _own_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test has a config folder of its own, empty (no hosts.toml: `tierdeck`
    alone opens this machine's dashboard), never the user's."""
    folder = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("TIERDECK_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Dates on screen and in text in UTC, whatever the machine's zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(autouse=True)
def _own_data(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test has a data folder of its own (the history, the mover's records and
    journal), never the user's: a test that reaches the default history (a mover run's
    forecast reads it) would otherwise migrate the user's file to this tree's schema,
    which an older tierdeck then refuses. Tests that name one (``data_dir``) override
    it."""
    folder = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(folder))
    return folder


# tryfirst: xdist's loadgroup reads the xdist_group mark in this same hook.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    unmarked = [
        item.nodeid
        for item in items
        if ROOT_FIXTURES & set(getattr(item, "fixturenames", ()))
        and item.get_closest_marker("integration") is None
    ]
    if unmarked:
        raise pytest.UsageError(
            "tests using a root fixture must be marked integration: " + ", ".join(unmarked)
        )
    # Under pytest-xdist (scripts/test.sh: -n 3 --dist loadgroup) every test that needs
    # the machine runs on one worker, in file order: they share one lab NAS (a session
    # fixture), udevd, loop devices and the blkio cgroup, which two workers would each
    # build and fight over. Everything else spreads over both workers.
    for item in items:
        if item.get_closest_marker("integration") is not None:
            item.add_marker(pytest.mark.xdist_group("machine"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("integration") is not None:
        require(integration_unavailable_reason())


# ------------------------------------------------------------------ the lab NAS


@pytest.fixture(scope="session")
def lab_nas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A real lab NAS (loops, btrfs raid1, ext4, xfs, two mergerfs pools) for the whole
    session. Always torn down, even when a test fails."""
    require(integration_unavailable_reason())
    from tierdeck.app.machine.lab import lab_down, lab_up
    from tierdeck.backends.host import LiveHost

    from tests.support.stale_labs import clear_labs_of_dead_runs

    clear_labs_of_dead_runs(LiveHost())  # a killed run's lab would sit beside this one
    directory = tmp_path_factory.mktemp("lab") / "nas"
    try:
        lab_up(directory)
        yield directory
    finally:
        lab_down(directory)


def _udevd_binary() -> str | None:
    for candidate in ("/lib/systemd/systemd-udevd", "/usr/lib/systemd/systemd-udevd"):
        if Path(candidate).exists():
            return candidate
    return shutil.which("systemd-udevd")


@pytest.fixture(scope="session")
def udevd() -> Iterator[None]:
    """A running udevd with a populated database, so pyudev sees real properties.
    Started for the session when it is not running already, and stopped again after."""
    import subprocess

    require(integration_unavailable_reason())

    def udevd_pids() -> set[int]:
        found = subprocess.run(["pgrep", "-x", "systemd-udevd"], capture_output=True, text=True)
        return {int(pid) for pid in found.stdout.split()}

    before = udevd_pids()
    binary = _udevd_binary()
    started: set[int] = set()
    if not before:
        subprocess.run([binary, "--daemon"], check=True, timeout=30)  # type: ignore[list-item]
        started = udevd_pids() - before
    try:
        subprocess.run(["udevadm", "trigger", "--action=add", "--subsystem-match=block"],
                       check=True, timeout=60)  # fmt: skip
        subprocess.run(["udevadm", "settle", "--timeout=30"], check=False, timeout=60)
        yield
    finally:
        for pid in started:  # only the daemon this fixture started
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


MountDir = Callable[..., AbstractContextManager[Path]]


def _memory_mount(fs_type: str, tmp_path: Path) -> MountDir:
    import subprocess

    @contextlib.contextmanager
    def mount(name: str = fs_type, *, size: str | None = None, opts: str = "") -> Iterator[Path]:
        where = tmp_path / name
        where.mkdir(parents=True, exist_ok=True)
        given = [o for o in (f"size={size}" if size else "", opts) if o]
        options = ["-o", ",".join(given)] if given else []
        subprocess.run(["mount", "-t", fs_type, *options, f"tierdeck-{fs_type}", str(where)],
                       check=True, timeout=30)  # fmt: skip
        try:
            yield where
        finally:
            if subprocess.run(["umount", str(where)], check=False, timeout=30).returncode != 0:
                subprocess.run(["umount", "-l", str(where)], check=False, timeout=30)

    return mount


@pytest.fixture
def tmpfs_dir(tmp_path: Path) -> MountDir:
    """``with tmpfs_dir(name="tmpfs", size=None, opts="") as path:`` mounts a tmpfs at
    tmp_path/name (``size`` its -o size=, ``opts`` more -o options), and always unmounts
    it on leaving. Needs root."""
    return _memory_mount("tmpfs", tmp_path)


@pytest.fixture
def ramfs_dir(tmp_path: Path) -> MountDir:
    """``with ramfs_dir(name="ramfs") as path:`` mounts a ramfs at tmp_path/name, and
    always unmounts it on leaving. Needs root."""
    return _memory_mount("ramfs", tmp_path)


# ------------------------------------------------------------------ a real sshd


@pytest.fixture(scope="session")
def sshd_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's OpenSSH server on a loopback port for the session (tests/support/sshd.py),
    always stopped with every session it had."""
    from tests.support.sshd import SshLab, sshd_missing

    require(integration_unavailable_reason() or sshd_missing())
    import sys

    folder = tmp_path_factory.mktemp("sshd")
    # The "NAS" has this checkout's tierdeck on its PATH (the mover and layout apply run
    # there), and keeps its history and cache in the test's folders, not root's own.
    session_env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "TIERDECK_DATA_DIR": str(folder / "nas-data"),
        "TIERDECK_CACHE_DIR": str(folder / "nas-cache"),
    }
    lab = SshLab.start(folder, session_env=session_env)
    try:
        yield lab
    finally:
        lab.stop()


@pytest.fixture
def ssh_lab(sshd_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The session's sshd as the admin's machine sees it: HOME with ~/.ssh/config
    naming it "nas", its key trusted, no ssh agent. Each test starts with that."""
    sshd_server.write_client_config()
    sshd_server.trust_host_key()
    monkeypatch.setenv("HOME", str(sshd_server.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    yield sshd_server
