"""`tierdeck layout plan` on the lab NAS, its fstab lines mounted for real.

The plan takes the lab's btrfs raid1 cache and its two HDD branches, with both pools
under a tmp folder; each generated fstab line is mounted with ``mount --fstab FILE
MOUNTPOINT``, and the mounted pool's own xattrs (what mergerfs 2.33 parsed) must say
what the layout says: branches in order with their modes, the create policy and
minfreespace. A file written through the tiered pool must land on the cache branch.
Every pool is unmounted, even when an assertion fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tierdeck.core.units import parse_size

from tests.waiting import wait_until_sync

pytestmark = pytest.mark.integration  # root, the lab NAS, mergerfs


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tierdeck.app.cli", *args],
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def _xattr(mnt: Path, key: str) -> str:
    done = subprocess.run(
        ["getfattr", "--only-values", "-n", f"user.mergerfs.{key}", str(mnt / ".mergerfs")],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def _unmount(mnt: Path) -> None:
    subprocess.run(["umount", str(mnt)], capture_output=True, timeout=30)
    if os.path.ismount(mnt):
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True, timeout=30)


@contextlib.contextmanager
def _mounted(line: str, work: Path) -> Iterator[Path]:
    """Mount one generated fstab line, as `mount` reads it from /etc/fstab."""
    mnt = Path(line.split()[1])
    mnt.mkdir(parents=True, exist_ok=True)
    fstab = work / f"fstab-{mnt.name}"
    fstab.write_text(line + "\n")
    try:
        subprocess.run(["mount", "--fstab", str(fstab), str(mnt)], check=True,
                       capture_output=True, timeout=30)  # fmt: skip
        wait_until_sync(lambda: os.path.ismount(mnt), f"{mnt} to mount", 10)
        yield mnt
    finally:
        _unmount(mnt)


def _plan(lab_nas: Path, pools: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    mnt = lab_nas / "mnt"
    return _cli("layout", "plan", "--cache", str(mnt / "cache"), "--slow", str(mnt / "hdd0"),
                "--slow", f"{mnt / 'hdd1'}=NC", "--pool", str(pools / "tiered"),
                "--slow-pool", str(pools / "slow"), "--minfreespace", "16M", *extra, "--json")  # fmt: skip


@pytest.fixture(scope="module")
def plan(lab_nas: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    pools = tmp_path_factory.mktemp("layout-pools")
    proc = _plan(lab_nas, pools, "--slow-minfreespace", "16M")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def test_the_slow_pools_default_minfreespace_is_refused_on_the_lab(
    lab_nas: Path, tmp_path: Path
) -> None:
    """The lab's slow branches have less than mergerfs's 4G free: with the slow pool's
    minfreespace left at 4G the mover could place nothing, and the plan says so."""
    proc = _plan(lab_nas, tmp_path)
    assert proc.returncode == 2
    rules = json.loads(proc.stdout)["rules"]
    slow = [r for r in rules if r["rule"] == "pool-free-space" and str(tmp_path / "slow") in
            r["message"]]  # fmt: skip
    assert [r["severity"] for r in slow] == ["error"], slow
    assert "minfreespace 4.0G" in slow[0]["message"]


def test_plan_of_the_lab_passes_every_rule(plan: dict[str, Any]) -> None:
    assert plan["schema"] == "tierdeck.layout-plan/1"
    assert not [r for r in plan["rules"] if r["severity"] == "error"]
    mounted = [r for r in plan["rules"] if r["rule"] == "branch-mounted"]
    assert mounted and all(r["severity"] == "ok" for r in mounted)


def test_each_fstab_line_mounts_as_the_layout_says(
    plan: dict[str, Any], lab_nas: Path, tmp_path: Path
) -> None:
    layout = plan["layout"]
    mnt = lab_nas / "mnt"
    want = {
        layout["tiered_pool"]["mountpoint"]: (
            f"{mnt}/cache=RW:{mnt}/hdd0=RW:{mnt}/hdd1=NC", layout["tiered_pool"]["options"]),
        layout["slow_pool"]["mountpoint"]: (
            f"{mnt}/hdd0=RW:{mnt}/hdd1=RW", layout["slow_pool"]["options"]),
    }  # fmt: skip
    assert len(plan["outputs"]["fstab"]) == 2
    for line in plan["outputs"]["fstab"]:
        with _mounted(line, tmp_path) as pool:
            branches, options = want[str(pool)]
            assert _xattr(pool, "branches") == branches
            assert _xattr(pool, "category.create") == options["create"]
            assert int(_xattr(pool, "minfreespace")) == options["minfreespace"]
            assert _xattr(pool, "fsname") == options["fsname"]
            assert _xattr(pool, "cache.files") == options["cache_files"]
            assert _xattr(pool, "dropcacheonclose") == "true"
    assert layout["tiered_pool"]["options"]["minfreespace"] == parse_size("16M")
    assert layout["slow_pool"]["options"]["minfreespace"] == parse_size("16M")


def test_a_file_through_the_tiered_pool_lands_on_the_cache(
    plan: dict[str, Any], lab_nas: Path, tmp_path: Path
) -> None:
    tiered_line = plan["outputs"]["fstab"][0]
    name = f"layout-lab-{os.getpid()}.bin"
    mnt = lab_nas / "mnt"
    try:
        with _mounted(tiered_line, tmp_path) as pool:
            (pool / name).write_bytes(b"\0" * 1024 * 1024)
            assert (mnt / "cache" / name).stat().st_size == 1024 * 1024
            assert not (mnt / "hdd0" / name).exists()
            assert not (mnt / "hdd1" / name).exists()
    finally:
        for branch in ("cache", "hdd0", "hdd1"):
            (mnt / branch / name).unlink(missing_ok=True)


def test_a_slow_branch_mounted_read_only_is_warned(lab_nas: Path, tmp_path: Path) -> None:
    """hdd1 remounted ro: the mover would meet EROFS there; the plan warns, naming it."""
    hdd1 = lab_nas / "mnt" / "hdd1"
    subprocess.run(["mount", "-o", "remount,ro", str(hdd1)], check=True, capture_output=True,
                   timeout=30)  # fmt: skip
    try:
        proc = _plan(lab_nas, tmp_path, "--slow-minfreespace", "16M")
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(hdd1)], check=True,
                       capture_output=True, timeout=30)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    found = [r for r in json.loads(proc.stdout)["rules"] if r["rule"] == "slow-writable"]
    assert [(r["severity"], r["message"]) for r in found] == [
        ("warning", f"the slow branch {hdd1} is on a filesystem mounted read-only")
    ]
