"""read_zfs() end to end: LiveHost runs shim `zpool`/`zfs` executables that replay
recorded outputs (tests/shims/zfs/*), so sh, PATH lookup and exit codes are real."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tierdeck.backends.host import CommandResult, LiveHost, RecordedHost
from tierdeck.backends.zfs.inventory import (
    SYSFS_VERSION,
    ZFS_LIST_JSON_ARGV,
    ZFS_LIST_TEXT_ARGV,
    ZFS_VERSION_ARGV,
    ZPOOL_LIST_JSON_ARGV,
    ZPOOL_LIST_TEXT_ARGV,
    ZPOOL_STATUS_JSON_ARGV,
    ZPOOL_STATUS_TEXT_ARGV,
    read_zfs,
)
from tierdeck.core.errors import PermissionDenied, ToolTimeout
from tierdeck.core.models import VdevKind, ZfsInfo

from tests.zfs_shims import scenarios, shim_path, use_path_without_zfs, use_zfs_scenario

from ....paths import FIXTURES

ZFS = FIXTURES / "zfs"
NOT_RECORDED = "exited 99: zfs_replay: nothing recorded for"


def test_argv_constants_are_the_agreed_ones() -> None:
    assert ZFS_VERSION_ARGV == ["zfs", "version"]
    assert ZPOOL_STATUS_JSON_ARGV == ["zpool", "status", "-j", "--json-int"]
    assert ZPOOL_STATUS_TEXT_ARGV == ["zpool", "status"]
    assert ZPOOL_LIST_JSON_ARGV == ["zpool", "list", "-j", "--json-int"]
    assert ZPOOL_LIST_TEXT_ARGV == [
        "zpool", "list", "-H", "-p", "-o", "name,size,alloc,free,frag,cap,dedup,health",
    ]  # fmt: skip
    fields = ["-o", "name,type,used,avail,refer,mountpoint"]
    assert [
        "zfs",
        "list",
        "-j",
        "--json-int",
        "-t",
        "filesystem,volume",
        *fields,
    ] == ZFS_LIST_JSON_ARGV
    assert ["zfs", "list", "-H", "-p", "-t", "filesystem,volume", *fields] == ZFS_LIST_TEXT_ARGV


def test_every_scenario_has_executable_shims() -> None:
    assert set(scenarios()) >= {"old-2.1", "json-2.3", "degraded-text", "draid-resilver-text"}
    for scenario in scenarios():
        for tool in ("zpool", "zfs"):
            assert os.access(Path(shim_path(scenario)) / tool, os.X_OK), (scenario, tool)


def test_no_zpool_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_path_without_zfs(monkeypatch, tmp_path)
    assert read_zfs(LiveHost()) == ZfsInfo(
        available=False, message="ZFS is not installed (no zpool command)"
    )


def test_old_release_rejects_json_and_text_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    use_zfs_scenario(monkeypatch, "old-2.1")
    info = read_zfs(LiveHost())
    assert (info.available, info.json_output, info.message) == (True, False, None)
    assert info.version == "zfs-2.1.4-0ubuntu0.1"
    # status knows tank; zpool list also knows rpool and the FAULTED zion
    assert [(p.name, p.state, p.health) for p in info.pools] == [
        ("tank", "ONLINE", "ONLINE"),
        ("rpool", "ONLINE", "ONLINE"),
        ("zion", "FAULTED", "FAULTED"),
    ]
    tank = info.pools[0]
    assert [v.name for v in tank.vdevs] == ["mirror-0", "mirror-1"]
    assert [v.name for v in tank.logs] == ["mirror-2"]
    assert (tank.size_bytes, tank.fragmentation_pct, tank.capacity_pct, tank.dedup_ratio) == (
        int(round(61.5 * 1024**3)), 48, 32, 1.0,
    )  # fmt: skip
    assert info.pools[2].size_bytes is None and info.pools[2].vdevs == ()
    assert [d.name for d in info.datasets] == [
        "pool",
        "pool/home",
        "pool/home/anne",
        "pool/home/bob",
    ]


def test_json_release(monkeypatch: pytest.MonkeyPatch) -> None:
    use_zfs_scenario(monkeypatch, "json-2.3")
    info = read_zfs(LiveHost())
    assert (info.available, info.json_output, info.message) == (True, True, None)
    assert info.version == "zfs-2.3.2-2~bpo12+1"
    (tank,) = info.pools
    assert (tank.name, tank.vdevs[0].name, tank.special[0].kind, tank.dedup[0].name) == (
        "tank", "raidz1-0", VdevKind.DISK, "mirror-2",
    )  # fmt: skip
    assert (tank.size_bytes, tank.capacity_pct, tank.health) == (111 * 1024**3, 27, "ONLINE")
    assert [(d.name, d.kind) for d in info.datasets][-1] == ("pool/home/bob@v1", "snapshot")


def _sysfs_version() -> str | None:
    try:
        return "zfs-kmod-" + Path(SYSFS_VERSION).read_text().strip()
    except OSError:
        return None


def test_degraded_pool_with_unrecorded_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    use_zfs_scenario(monkeypatch, "degraded-text")
    info = read_zfs(LiveHost())
    assert (info.available, info.json_output) == (True, False)
    (tank,) = info.pools
    bad = tank.vdevs[0].children[1]
    assert (bad.state, bad.note, bad.read_errors, bad.write_errors, bad.checksum_errors) == (
        "FAULTED", "too many errors", 12, 753, 83,
    )  # fmt: skip
    assert tank.size_bytes is None  # zpool list failed: status alone is kept
    assert info.datasets == ()
    assert info.message is not None and "\n" not in info.message
    assert info.message.count(NOT_RECORDED) == 2
    assert "zpool list -H -p" in info.message and "zfs list -H -p" in info.message
    # no `zfs version` recorded: the module's sysfs file is the fallback (absent here)
    assert info.version == _sysfs_version()


def test_draid_resilver(monkeypatch: pytest.MonkeyPatch) -> None:
    use_zfs_scenario(monkeypatch, "draid-resilver-text")
    (tank,) = read_zfs(LiveHost()).pools
    assert (tank.state, tank.vdevs[0].kind, tank.vdevs[0].draid_config) == (
        "DEGRADED", VdevKind.DRAID, "draid1:4d:11c:1s",
    )  # fmt: skip
    assert [(s.name, s.state, s.note) for s in tank.spares] == [
        ("draid1-0-0", "INUSE", "currently in use")
    ]
    assert tank.scan is not None and tank.scan.percent_done == 57.17


def test_kernel_module_missing_is_one_message(monkeypatch: pytest.MonkeyPatch) -> None:
    use_zfs_scenario(monkeypatch, "module-not-loaded")
    info = read_zfs(LiveHost())
    assert (info.available, info.pools, info.datasets, info.json_output) == (True, (), (), False)
    # three commands fail with the same words: said once
    assert info.message == "zpool status -j --json-int exited 1: The ZFS modules are not loaded."
    assert info.version == _sysfs_version()


# ---- RecordedHost: cases the shims do not cover (timeouts, sysfs version, bad output)


def recorded(tmp_path: Path, commands: list[dict[str, object]], **extra: object) -> RecordedHost:
    meta = {"tools": ["zpool", "zfs"], "commands": commands, **extra}
    (tmp_path / "host.json").write_text(json.dumps(meta))
    return RecordedHost(tmp_path)


REJECTED = {
    "zpool": {
        "returncode": 2,
        "stderr": (ZFS / "captured/debian-2.1.11/zpool_status_json.stderr").read_text(),
    },
    "zfs": {
        "returncode": 2,
        "stderr": (ZFS / "captured/debian-2.1.11/zfs_list_json.stderr").read_text(),
    },
}


def test_version_from_sysfs_when_zfs_version_fails(tmp_path: Path) -> None:
    captured = ZFS / "captured" / "debian-2.1.11"
    host = recorded(
        tmp_path,
        [
            {"argv": ZFS_VERSION_ARGV, "returncode": 1,
             "stdout": (captured / "nomodule_zfs_version.stdout").read_text(),
             "stderr": (captured / "nomodule_zfs_version.stderr").read_text()},
            {"argv": ZPOOL_STATUS_TEXT_ARGV, "stdout": "", "stderr": "no pools available\n"},
            {"argv": ZPOOL_LIST_TEXT_ARGV, "stdout": ""},
            {"argv": ZFS_LIST_TEXT_ARGV, "stdout": ""},
        ],
        fallback=REJECTED,
    )  # fmt: skip
    sysfs = tmp_path / "root" / "sys" / "module" / "zfs"
    sysfs.mkdir(parents=True)
    (sysfs / "version").write_text("2.1.4-0ubuntu0.1\n")
    assert read_zfs(host) == ZfsInfo(available=True, version="zfs-kmod-2.1.4-0ubuntu0.1")


def test_garbage_status_is_a_message_and_lists_still_count(tmp_path: Path) -> None:
    host = recorded(
        tmp_path,
        [
            {"argv": ZPOOL_STATUS_TEXT_ARGV, "stdout": "Segmentation fault\n"},
            {"argv": ZPOOL_LIST_TEXT_ARGV,
             "stdout_file": str(ZFS / "list" / "zpool-list-Hp-derived-netdata18359.txt")},
            {"argv": ZFS_LIST_TEXT_ARGV, "stdout": ""},
        ],
        fallback=REJECTED,
    )  # fmt: skip
    info = read_zfs(host)
    assert info.message is not None and info.message.startswith("cannot parse zpool status")
    assert [(p.name, p.state, p.size_bytes) for p in info.pools] == [
        ("store", "DEGRADED", 9981503995904)
    ]


class _TroubledHost(RecordedHost):
    """A host whose zpool hangs and whose zfs needs root."""

    def run(self, argv: object, timeout: float = 15.0) -> CommandResult:
        args = list(argv)  # type: ignore[call-overload]
        if args[0] == "zpool":
            raise ToolTimeout(args, timeout)
        raise PermissionDenied("zfs")


def test_timeouts_and_permission_errors_never_escape(tmp_path: Path) -> None:
    recorded(tmp_path, [])
    info = read_zfs(_TroubledHost(tmp_path))
    assert (info.available, info.pools, info.datasets) == (True, (), ())
    assert info.message == (
        "zpool status -j --json-int did not finish within 15s; "
        "zpool list -j --json-int did not finish within 15s; "
        "permission denied: zfs (try as root)"
    )
