"""`tierdeck layout apply` and `undo` for real (root /) on the lab NAS.

A layout of the lab's btrfs raid1 cache and its two HDD branches, both pools' mountpoints
under tmp, is applied to this machine's /etc/fstab: the pools must be mounted with the
layout's options (their live xattrs), and undo must leave fstab byte for byte as before,
the units gone, the pools it mounted unmounted and its mountpoints removed. A second
apply to the running pool changes it through its xattrs, without a remount. On this VM
PID 1 is not systemd, so systemctl is skipped and said so.

The test keeps /etc/fstab's bytes itself and puts them back in a finally, with every
file apply may have left (units, the record, backups) removed and every pool it mounted
unmounted, so a failing test cannot leave the machine altered.
"""

from __future__ import annotations

import errno
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tierdeck.core.layout.runtime import RUNTIME_READ_ONLY, RUNTIME_SETTABLE

pytestmark = pytest.mark.integration  # root, the lab NAS, mergerfs, this machine's fstab

FSTAB = Path("/etc/fstab")
UNIT_DIR = Path("/etc/systemd/system")
SYSTEMD = Path("/run/systemd/system").exists()


def _cli(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "tierdeck.app.cli", *args],
                          capture_output=True, text=True, timeout=180)  # fmt: skip
    if ok:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def _xattr(pool: Path, key: str) -> str:
    return os.getxattr(pool / ".mergerfs", f"user.mergerfs.{key}").decode()


def _mounted(path: Path) -> bool:
    return any(line.split()[4] == str(path) for line in Path("/proc/self/mountinfo").open())


def _unmount(path: Path) -> None:
    for _ in range(3):  # a mount stacked on a mount: each umount takes one off
        if not _mounted(path):
            return
        subprocess.run(["umount", str(path)], capture_output=True, timeout=30)
    if _mounted(path):
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30)


def _plan(lab: Path, pools: Path, save: Path, *extra: str, hdd1: str = "NC",
          minfree: str = "16M") -> dict[str, Any]:  # fmt: skip
    mnt = lab / "mnt"
    done = _cli("layout", "plan", "--cache", str(mnt / "cache"), "--slow", str(mnt / "hdd0"),
                "--slow", f"{mnt / 'hdd1'}={hdd1}", "--pool", str(pools / "tiered"),
                "--slow-pool", str(pools / "slow"), "--minfreespace", minfree, "--slow-minfreespace", minfree, *extra,
                "--save", str(save), "--json")  # fmt: skip
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


@pytest.fixture
def machine(tmp_path: Path) -> Iterator[Path]:
    """/etc/fstab and the unit folder as they were, whatever the test does; the pools'
    parent folder under tmp (apply creates the mountpoints in it)."""
    fstab = FSTAB.read_bytes() if FSTAB.exists() else None
    units = set(os.listdir(UNIT_DIR)) if UNIT_DIR.exists() else set()
    etc = set(os.listdir("/etc"))
    pools = tmp_path / "pools"
    pools.mkdir()
    try:
        yield pools
    finally:
        for name in ("tiered", "slow"):
            _unmount(pools / name)
        if fstab is None:
            FSTAB.unlink(missing_ok=True)
        else:
            FSTAB.write_bytes(fstab)
        for name in set(os.listdir(UNIT_DIR)) - units if UNIT_DIR.exists() else ():
            (UNIT_DIR / name).unlink()
        for name in set(os.listdir("/etc")) - etc:
            if name.startswith("fstab.tierdeck-"):
                (Path("/etc") / name).unlink()


def test_apply_mounts_the_pools_and_undo_leaves_the_machine_as_it_was(
    machine: Path, lab_nas: Path, tmp_path: Path
) -> None:
    before = FSTAB.read_bytes()
    units_before = set(os.listdir(UNIT_DIR))
    plan = _plan(lab_nas, machine, tmp_path / "layout.toml")
    tiered, slow = machine / "tiered", machine / "slow"
    done = _cli("layout", "apply", str(tmp_path / "layout.toml"), "--yes")
    assert f"create the mountpoint {tiered}" in done.stdout
    if not SYSTEMD:
        assert "systemd is not running here (/run/systemd/system is absent)" in done.stdout
    assert _mounted(tiered) and _mounted(slow)
    mnt = lab_nas / "mnt"
    assert _xattr(tiered, "branches") == f"{mnt}/cache=RW:{mnt}/hdd0=RW:{mnt}/hdd1=NC"
    assert _xattr(slow, "branches") == f"{mnt}/hdd0=RW:{mnt}/hdd1=RW"
    options = plan["layout"]["tiered_pool"]["options"]
    assert _xattr(tiered, "category.create") == options["create"]
    assert int(_xattr(tiered, "minfreespace")) == options["minfreespace"] == 16 * 1024**2
    assert _xattr(tiered, "fsname") == options["fsname"]
    text = FSTAB.read_text()
    assert text.startswith(before.decode()) and "# BEGIN tierdeck layout " in text
    assert set(plan["outputs"]["units"]) <= set(os.listdir(UNIT_DIR))

    _cli("layout", "undo", "--yes")
    assert FSTAB.read_bytes() == before
    assert set(os.listdir(UNIT_DIR)) == units_before
    assert not _mounted(tiered) and not _mounted(slow)
    assert not tiered.exists() and not slow.exists() and machine.exists()
    assert not Path("/etc/fstab.tierdeck-state.json").exists()


def test_a_running_pool_is_changed_through_its_xattrs(
    machine: Path, lab_nas: Path, tmp_path: Path
) -> None:
    tiered = machine / "tiered"
    before = FSTAB.read_bytes()
    _plan(lab_nas, machine, tmp_path / "first.toml")
    _cli("layout", "apply", str(tmp_path / "first.toml"), "--yes")
    after_first = FSTAB.read_bytes()
    pid = _xattr(tiered, "pid")
    mnt = lab_nas / "mnt"

    # minfreespace, moveonenospc and a branch's mode change at runtime: no remount
    _plan(lab_nas, machine, tmp_path / "second.toml", "--option", "moveonenospc=lfs",
          hdd1="RO", minfree="32M")  # fmt: skip
    done = _cli("layout", "apply", str(tmp_path / "second.toml"), "--yes")
    assert "set minfreespace=32M on the running pool" in done.stdout
    assert "umount" not in done.stdout
    assert int(_xattr(tiered, "minfreespace")) == 32 * 1024**2
    assert _xattr(tiered, "moveonenospc") == "lfs"
    assert _xattr(tiered, "branches") == f"{mnt}/cache=RW:{mnt}/hdd0=RW:{mnt}/hdd1=RO"
    assert _xattr(tiered, "pid") == pid  # the same mergerfs: nothing was remounted
    after_second = FSTAB.read_bytes()

    # fsname only changes at mount time: with --no-remount it waits, said so
    _plan(lab_nas, machine, tmp_path / "third.toml", "--option", "moveonenospc=lfs",
          "--option", "fsname=renamed", hdd1="RO", minfree="48M")  # fmt: skip
    done = _cli("layout", "apply", str(tmp_path / "third.toml"), "--no-remount", "--yes")
    assert "--no-remount; fsname changes at the next mount" in done.stdout
    assert int(_xattr(tiered, "minfreespace")) == 48 * 1024**2
    assert _xattr(tiered, "fsname") != "renamed" and _xattr(tiered, "pid") == pid

    # undo puts back the last apply's options and leaves the pool it did not mount
    done = _cli("layout", "undo", "--yes")
    assert int(_xattr(tiered, "minfreespace")) == 32 * 1024**2
    assert _mounted(tiered) and _xattr(tiered, "pid") == pid
    assert "umount" not in done.stdout and FSTAB.read_bytes() == after_second

    # applies stack: the next undo takes back the second apply, the last the first
    _cli("layout", "undo", "--yes")
    assert int(_xattr(tiered, "minfreespace")) == 16 * 1024**2
    assert _xattr(tiered, "branches") == f"{mnt}/cache=RW:{mnt}/hdd0=RW:{mnt}/hdd1=NC"
    assert FSTAB.read_bytes() == after_first and _xattr(tiered, "pid") == pid
    _cli("layout", "undo", "--yes")
    assert FSTAB.read_bytes() == before and not _mounted(tiered)
    assert _cli("layout", "undo", "--yes", ok=False).returncode == 2  # nothing left


def test_runtime_settable_keys_match_the_installed_mergerfs(
    machine: Path, lab_nas: Path, tmp_path: Path
) -> None:
    """core/layout/runtime's sets, checked against the real mount: each key's own value
    written back is accepted (settable) or refused with EROFS (read-only)."""
    _plan(lab_nas, machine, tmp_path / "layout.toml")
    _cli("layout", "apply", str(tmp_path / "layout.toml"), "--yes")
    ctrl = machine / "tiered" / ".mergerfs"
    keys = [k for k in os.listxattr(ctrl) if k.startswith("user.mergerfs.")]
    taken, refused = set(), set()
    for name in keys:
        try:
            os.setxattr(ctrl, name, os.getxattr(ctrl, name))
            taken.add(name.removeprefix("user.mergerfs."))
        except OSError as exc:
            assert exc.errno == errno.EROFS, (name, exc)
            refused.add(name.removeprefix("user.mergerfs."))
    assert taken == RUNTIME_SETTABLE
    assert refused == RUNTIME_READ_ONLY
    _cli("layout", "undo", "--yes")


def test_undo_of_a_busy_pool_names_who_holds_it_and_refuses_at_once(
    machine: Path, lab_nas: Path, tmp_path: Path
) -> None:
    """Undo with a file open in the pool it mounted: refused before any step (exit 2),
    naming the pid and program, fstab still the applied one; once the file is closed
    the same undo goes through."""
    from ..waiting import wait_until_sync

    _plan(lab_nas, machine, tmp_path / "layout.toml")
    tiered = machine / "tiered"
    _cli("layout", "apply", str(tmp_path / "layout.toml"), "--yes")
    applied = FSTAB.read_bytes()
    (tiered / "busy.bin").write_bytes(b"x")
    holder = subprocess.Popen(["sh", "-c", 'exec 3<"$1"; exec sleep 600', "sh",
                               str(tiered / "busy.bin")], cwd="/")  # fmt: skip
    try:
        wait_until_sync(lambda: Path(f"/proc/{holder.pid}/comm").read_text().strip() == "sleep",
                        "the holder to exec sleep")  # fmt: skip
        done = _cli("layout", "undo", "--yes", ok=False)
        assert done.returncode == 2, done.stdout + done.stderr
        assert (f"pid {holder.pid} (sleep) has files open under {tiered}"
                in done.stderr), done.stderr  # fmt: skip
        assert "nothing was changed" in done.stderr
        assert FSTAB.read_bytes() == applied and _mounted(tiered)
        assert Path("/etc/fstab.tierdeck-state.json").exists()
    finally:
        holder.kill()
        holder.wait()
    (tiered / "busy.bin").unlink()
    _cli("layout", "undo", "--yes")
    assert not _mounted(tiered)


def test_the_health_timer_is_applied_runs_and_is_undone(
    machine: Path, lab_nas: Path, tmp_path: Path
) -> None:
    """A layout with a health timer: apply writes its service and timer with the rest
    (systemctl enables it, or says it is skipped), the service's own command line checks
    this machine and writes a textfile Prometheus's parser reads, and undo removes the
    units again."""
    from prometheus_client.parser import text_string_to_metric_families
    from tierdeck.core.layout.model import DEFAULT_PROMETHEUS_FILE

    units_before = set(os.listdir(UNIT_DIR))
    layout = tmp_path / "layout.toml"
    plan = _plan(lab_nas, machine, layout, "--health-timer")
    health = plan["outputs"]["health"]
    assert health is not None
    textfile = tmp_path / "textfile" / "tierdeck.prom"
    textfile.parent.mkdir()
    layout.write_text(layout.read_text().replace(DEFAULT_PROMETHEUS_FILE, str(textfile)))
    done = _cli("layout", "apply", str(layout), "--yes")
    service = (UNIT_DIR / health["service"]).read_text()
    assert (UNIT_DIR / health["timer"]).read_text() == plan["outputs"]["units"][health["timer"]]
    step = f"start the health check's timer {health['timer']}"
    assert step in done.stdout
    if not SYSTEMD:
        assert done.stdout.split(step)[1].splitlines()[1].strip().startswith("(skipped: systemd")

    # what systemd would run, run here (its readings into a history of the test's own)
    line = next(x for x in service.splitlines() if x.startswith("ExecStart="))
    words = shlex.split(line.removeprefix("ExecStart="))
    assert words[1:] == ["check", "--layout", str(layout), "--keep-readings",
                         "--prometheus", str(textfile)]  # fmt: skip
    env = {**os.environ, "TIERDECK_DATA_DIR": str(tmp_path / "data")}
    run = subprocess.run(words, capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode in (0, 1, 2), run.stdout + run.stderr  # SuccessExitStatus=1 2
    assert run.stdout.startswith("TIERDECK ")
    families = {f.name for f in text_string_to_metric_families(textfile.read_text())}
    assert "tierdeck_check_status" in families

    _cli("layout", "undo", "--yes")
    assert set(os.listdir(UNIT_DIR)) == units_before
