"""The host seam: typed errors from LiveHost, faithful replay from RecordedHost."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tierdeck.backends.host import LiveHost, RecordedHost
from tierdeck.core.errors import HostError, PermissionDenied, ToolFailed, ToolMissing, ToolTimeout


def test_live_run_returns_output_and_status() -> None:
    result = LiveHost().run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (result.returncode, result.stdout, result.stderr) == (3, "out\n", "err\n")
    with pytest.raises(ToolFailed, match="exited 3: err"):
        result.check()


def test_live_run_missing_tool_and_timeout() -> None:
    with pytest.raises(ToolMissing, match="no-such-tool-xyz: not installed"):
        LiveHost().run(["no-such-tool-xyz", "--help"])
    with pytest.raises(ToolTimeout, match="did not finish within 0.5s"):
        LiveHost().run(["sleep", "5"], timeout=0.5)


def test_live_run_uses_c_locale() -> None:
    assert LiveHost().run(["sh", "-c", "echo $LC_ALL"]).stdout == "C\n"


def test_live_xattrs_and_statvfs(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("x")
    try:
        os.setxattr(target, "user.tierdeck.test", b"value")
    except OSError:
        pytest.skip("filesystem without user xattrs")
    host = LiveHost()
    assert "user.tierdeck.test" in host.listxattr(str(target))
    assert host.getxattr(str(target), "user.tierdeck.test") == "value"
    with pytest.raises(KeyError):
        host.getxattr(str(target), "user.absent")
    usage = host.statvfs(str(tmp_path))
    assert usage.size_bytes >= usage.free_bytes >= usage.avail_bytes >= 0


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_live_permission_denied_is_typed() -> None:
    with pytest.raises(PermissionDenied):
        LiveHost().read_text("/etc/shadow")


def _recording(tmp_path: Path) -> RecordedHost:
    root = tmp_path / "root"
    (root / "sys/devices/pci0/ata1/block/sda").mkdir(parents=True)
    (root / "sys/devices/pci0/ata1/block/sda/size").write_text("2048\n")
    (root / "sys/block").mkdir(parents=True)
    os.symlink("../devices/pci0/ata1/block/sda", root / "sys/block/sda")
    (root / "dev/disk/by-id").mkdir(parents=True)
    os.symlink("../../sda", root / "dev/disk/by-id/ata-DISK_1")
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands/zpool-status.txt").write_text("  pool: cache\n")
    meta = {
        "hostname": "nas", "kernel": "5.15.0-52-generic", "is_root": False,
        "tools": ["zpool"],
        "commands": [{"argv": ["zpool", "status"], "stdout_file": "commands/zpool-status.txt"}],
        "fallback": {"zpool": {"stderr": "invalid option 'j'\n", "returncode": 2}},
        "xattrs": {"/mnt/pool/.mergerfs": {"user.mergerfs.version": "2.33.5"}},
        "xattr_denied": ["/mnt/secret/.mergerfs"],
        "statvfs": {"/mnt/pool": {"size": 100, "free": 40, "avail": 30}},
        "udev": {"sda": {"ID_SERIAL_SHORT": "S1"}},
    }  # fmt: skip
    (tmp_path / "host.json").write_text(json.dumps(meta))
    return RecordedHost(tmp_path)


def test_recorded_files_and_symlinks(tmp_path: Path) -> None:
    host = _recording(tmp_path)
    assert (host.hostname, host.kernel, host.is_root) == ("nas", "5.15.0-52-generic", False)
    assert host.read_text("/sys/block/sda/size") == "2048\n"
    assert host.realpath("/sys/block/sda") == "/sys/devices/pci0/ata1/block/sda"
    assert host.realpath("/dev/disk/by-id/ata-DISK_1") == "/dev/sda"
    assert host.listdir("/sys/block") == ["sda"]
    assert host.is_dir("/sys/block/sda")
    with pytest.raises(FileNotFoundError):
        host.read_text("/sys/block/sdz/size")


def test_recorded_commands_fallback_and_missing_tools(tmp_path: Path) -> None:
    host = _recording(tmp_path)
    assert host.run(["zpool", "status"]).stdout == "  pool: cache\n"
    rejected = host.run(["zpool", "status", "-j"])
    assert (rejected.returncode, rejected.stderr) == (2, "invalid option 'j'\n")
    with pytest.raises(ToolMissing):
        host.run(["zfs", "list"])


def test_recorded_xattrs_statvfs_udev(tmp_path: Path) -> None:
    host = _recording(tmp_path)
    assert host.getxattr("/mnt/pool/.mergerfs", "user.mergerfs.version") == "2.33.5"
    with pytest.raises(PermissionDenied):
        host.listxattr("/mnt/secret/.mergerfs")
    assert host.statvfs("/mnt/pool").used_bytes == 60
    assert host.udev_properties("sda") == {"ID_SERIAL_SHORT": "S1"}
    assert host.udev_properties("sdb") is None


def test_not_a_recording_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(HostError, match="not a recorded host"):
        RecordedHost(tmp_path)


def test_udevd_is_running_only_while_its_control_socket_listens(tmp_path: Path) -> None:
    import socket

    from tierdeck.backends.host import udevd_running

    control = tmp_path / "control"
    assert not udevd_running(str(control))  # no socket at all
    server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    server.bind(str(control))
    server.listen(1)
    try:
        assert udevd_running(str(control))
    finally:
        server.close()
    # The socket file outlives a stopped udevd, as its database does: not running.
    assert control.exists() and not udevd_running(str(control))


def test_live_run_timeout_stops_the_whole_command_and_a_signal_is_one_line() -> None:
    # A hung tool's children go too (a zpool waiting on a dead pool forks helpers).
    import time

    import psutil

    with pytest.raises(ToolTimeout):
        LiveHost().run(["sh", "-c", "sleep 31.7 & sleep 30"], timeout=0.3)

    def child_alive() -> bool:
        for proc in psutil.process_iter(["cmdline", "status"]):
            if proc.info["cmdline"] == ["sleep", "31.7"]:
                return proc.info["status"] != psutil.STATUS_ZOMBIE
        return False

    deadline = time.monotonic() + 5.0
    while child_alive():  # SIGKILL is sent before run() returns; allow the reaping
        assert time.monotonic() < deadline, "the command's child outlived its timeout"
        time.sleep(0.05)
    with pytest.raises(HostError, match=r"^sh -c kill -9 \$\$: killed by SIGKILL$"):
        LiveHost().run(["sh", "-c", "kill -9 $$"])
