"""The lab NAS, reported by the real CLI (`tierdeck inventory --json`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

MiB = 1024 * 1024


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tierdeck.app.cli", *args],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip


@pytest.fixture(scope="module")
def report(lab_nas: Path) -> dict[str, Any]:
    proc = _cli("inventory", "--json")
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def _loops(lab: Path) -> dict[str, str]:
    """image name -> loop name, read from the kernel, not from tierdeck."""
    found = {}
    for block in Path("/sys/block").glob("loop*"):
        try:
            backing = (block / "loop" / "backing_file").read_text().strip()
        except OSError:
            continue
        if backing.startswith(str(lab / "images")):
            found[Path(backing).stem] = block.name
    return found


def test_schema_and_loop_disks(report: dict[str, Any], lab_nas: Path) -> None:
    assert report["schema"] == "tierdeck.inventory/1"
    loops = _loops(lab_nas)
    assert set(loops) == {"cache0", "cache1", "hdd0", "hdd1"}
    disks = {d["name"]: d for d in report["disks"]}
    for image, loop in loops.items():
        disk = disks[loop]
        assert disk["kind"] == "virtual" and disk["virtual"] is True
        assert disk["backing_file"] == str(lab_nas / "images" / f"{image}.img")
        expected_mb = 256 if image.startswith("cache") else 320
        assert disk["size_bytes"] == expected_mb * MiB


def test_btrfs_raid1_with_both_devices(report: dict[str, Any], lab_nas: Path) -> None:
    loops = _loops(lab_nas)
    # Select by this lab's mountpoint: another lab on the machine has the same label.
    (fs,) = [f for f in report["btrfs"] if str(lab_nas / "mnt" / "cache") in f["mountpoints"]]
    assert fs["label"] == "tierdeck-cache"
    assert sorted(d["path"] for d in fs["devices"]) == sorted(
        [f"/dev/{loops['cache0']}", f"/dev/{loops['cache1']}"]
    )
    profiles = {(a["kind"], a["profile"].upper()) for a in fs["allocations"]}
    assert ("data", "RAID1") in profiles and ("metadata", "RAID1") in profiles
    assert str(lab_nas / "mnt" / "cache") in fs["mountpoints"]


def test_mergerfs_pools_exact(report: dict[str, Any], lab_nas: Path) -> None:
    pools = {p["mountpoint"]: p for p in report["mergerfs"]}
    mnt = lab_nas / "mnt"
    slow = pools[str(lab_nas / "pool" / "slow")]
    assert [(b["path"], b["mode"]) for b in slow["branches"]] == [
        (f"{mnt}/hdd0", "RW"), (f"{mnt}/hdd1", "RW"),
    ]  # fmt: skip
    assert slow["create_policy"] == "mfs"
    assert slow["minfreespace_bytes"] == 32 * MiB
    assert slow["fsname"] == "lab-slow"
    assert slow["version"] and slow["version"].startswith("2.")
    cached = pools[str(lab_nas / "pool" / "cached")]
    assert [b["path"] for b in cached["branches"]] == [f"{mnt}/cache", f"{mnt}/hdd0", f"{mnt}/hdd1"]
    assert cached["create_policy"] == "ff"
    assert cached["minfreespace_bytes"] == 64 * MiB
    assert cached["options"]["category.create"] == "ff"
    for branch in cached["branches"]:
        assert branch["avail_bytes"] is not None and branch["size_bytes"] > 0


def test_relations_down_to_loops(report: dict[str, Any], lab_nas: Path) -> None:
    loops = _loops(lab_nas)
    rel = report["relations"]
    assert rel["mergerfs"][str(lab_nas / "pool" / "slow")] == sorted([loops["hdd0"], loops["hdd1"]])
    assert rel["mergerfs"][str(lab_nas / "pool" / "cached")] == sorted(loops.values())
    assert rel["mergerfs_branches"][str(lab_nas / "mnt" / "cache")] == sorted(
        [loops["cache0"], loops["cache1"]]
    )
    assert rel["mounts"][str(lab_nas / "mnt" / "hdd1")] == [loops["hdd1"]]
    mounts = {m["mountpoint"]: m for m in report["mounts"]}
    assert mounts[str(lab_nas / "mnt" / "hdd0")]["fs_type"] == "ext4"
    assert mounts[str(lab_nas / "mnt" / "hdd1")]["fs_type"] == "xfs"


def test_text_inventory_mentions_pools(lab_nas: Path) -> None:
    proc = _cli("inventory")
    assert proc.returncode == 0, proc.stderr
    assert str(lab_nas / "pool" / "slow") in proc.stdout
    assert "create=mfs" in proc.stdout


def test_lab_down_after_crash_half_way(tmp_path: Path) -> None:
    """A `lab up` killed after the first mount leaves loops and a mount behind;
    `lab down` must remove all of it."""
    directory = tmp_path / "crashlab"
    env = {**os.environ, "TIERDECK_LAB_CRASH_AFTER": "mount-hdd0"}
    proc = _cli("lab", "up", "--dir", str(directory), "--no-throttle", env=env)
    assert proc.returncode == 137
    assert len(_loops(directory)) == 4  # the crash really left things behind
    mounted = Path("/proc/self/mountinfo").read_text()
    assert str(directory / "mnt" / "hdd0") in mounted
    try:
        down = _cli("lab", "down", "--dir", str(directory))
        assert down.returncode == 0, down.stderr
    finally:
        if _loops(directory):  # make sure this test itself never leaks
            from tierdeck.app.machine.lab import lab_down

            lab_down(directory)
    assert _loops(directory) == {}
    assert str(directory) not in Path("/proc/self/mountinfo").read_text()
    assert not directory.exists()


def test_lab_up_refuses_when_a_lab_exists(lab_nas: Path) -> None:
    proc = _cli("lab", "up", "--dir", str(lab_nas))
    assert proc.returncode != 0
    assert "already exists" in proc.stderr


def test_non_root_sees_what_it_can_and_is_told_what_it_cannot(lab_nas: Path) -> None:
    """As `nobody`, the lab's mergerfs control files (under pytest's 0700 temp dir) can't
    be read: the pools must still be listed, marked with why, and the disks still shown."""
    proc = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         sys.executable, "-m", "tierdeck.app.cli", "inventory", "--json"],
        capture_output=True, text=True, timeout=120, cwd="/",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["host"]["is_root"] is False
    loops = _loops(lab_nas)
    disks = {d["name"] for d in report["disks"]}
    assert set(loops.values()) <= disks  # sysfs is world-readable: every loop shows
    pools = {p["mountpoint"]: p for p in report["mergerfs"]}
    for name in ("slow", "cached"):
        pool = pools[str(lab_nas / "pool" / name)]  # listed, from mountinfo
        assert pool["branches"] == [] and "permission denied" in pool["error"]
    problems = " ".join(p["message"] for p in report["problems"])
    assert "permission denied" in problems  # and it stands out as a problem
    text = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         sys.executable, "-m", "tierdeck.app.cli", "inventory"],
        capture_output=True, text=True, timeout=120, cwd="/",
    ).stdout  # fmt: skip
    slow = lab_nas / "pool" / "slow"
    assert f"! cannot read {slow}/.mergerfs: permission denied" in text
    assert "NOT READ" in text  # statvfs of the lab's mounts was refused too, and said
