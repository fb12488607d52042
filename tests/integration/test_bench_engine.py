"""The benchmark engine on the lab NAS with real fio: presets, a stonewall step,
cancel, a mergerfs create policy seen in /proc/diskstats, O_DIRECT through FUSE,
a full target, raw mode and one run per target.

Every fio run is short (2-3 s, 16-64 MiB). Mounts made here (ramfs, mergerfs, tmpfs)
live in tmp_path and are unmounted in ``finally``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import pytest
from tierdeck.app.bench.claims import running_request
from tierdeck.app.bench.events import (
    BenchEvent,
    DevicesReady,
    Notice,
    Progress,
    RunEnded,
    RunStarted,
    SampleReady,
)
from tierdeck.app.bench.preflight import plan_run
from tierdeck.app.bench.service import BenchService
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.fio.jobfile import parse_jobfile
from tierdeck.backends.host import LiveHost
from tierdeck.core.bench_models import BenchRefused, RunRequest, RunResult, RunStatus, WarningKind
from tierdeck.core.jobspec import JobSpec
from tierdeck.core.models import Inventory
from tierdeck.core.presets import PRESETS
from tierdeck.core.relations import disks_under

from tests.conftest import MountDir
from tests.waiting import wait_until, wait_until_sync

pytestmark = pytest.mark.integration

MiB = 1024 * 1024
E = TypeVar("E")
HOST = LiveHost()
# The service as the CLI and the TUI use it, keeping no history (each test looks at
# the result it returns).
SERVICE = BenchService(HOST)

STONEWALL_JOBFILE = """\
; job 1 capped far below job 2, which waits for it (stonewall)
[global]
ioengine=psync
rw=write
bs=64k
size=32M
direct=1
time_based
runtime=4

[limited]
rate=5m

[unlimited]
stonewall
"""


# --------------------------------------------------------------------------- helpers


def inventory() -> Inventory:
    return collect_inventory(HOST)


class Recorder:
    """Collects events; optionally acts on the first fio sample (cancel, probe)."""

    def __init__(self, on_first_sample: Callable[[], None] | None = None) -> None:
        self.events: list[BenchEvent] = []
        self.on_first_sample = on_first_sample

    def __call__(self, event: BenchEvent) -> None:
        self.events.append(event)
        if isinstance(event, SampleReady) and self.on_first_sample is not None:
            action, self.on_first_sample = self.on_first_sample, None
            action()

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def notices(self) -> list[str]:
        return [e.text for e in self.events if isinstance(e, Notice)]


def bench_files(*dirs: Path) -> list[Path]:
    return [p for d in dirs for p in d.glob(".tierdeck-bench.*")]


def fio_processes(marker: str) -> list[str]:
    """Live processes whose command line mentions ``marker``, and fio children or
    zombies of this test process: what a cancelled run must not leave behind."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        state, ppid = stat.rpartition(")")[2].split()[:2]
        if marker in cmdline and "pytest" not in cmdline:
            found.append(f"{entry.name} {state} {cmdline}")
        elif comm == "fio" and int(ppid) == os.getpid():
            found.append(f"{entry.name} {state} (child of the test) {cmdline}")
    return found


def mounted(path: Path) -> bool:
    return any(line.split()[1] == str(path) for line in Path("/proc/self/mounts").open())


def unmount(path: Path) -> None:
    def unmounted() -> bool:  # umount again while it is busy (fio's files closing)
        if mounted(path):
            subprocess.run(["umount", str(path)], capture_output=True, timeout=30)
        return not mounted(path)

    with contextlib.suppress(AssertionError):
        wait_until_sync(unmounted, f"{path} to unmount", 5)
    if mounted(path):
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30)


@contextmanager
def mounts(*steps: tuple[list[str], Path]) -> Iterator[None]:
    """Mount in order, unmount in reverse order, always."""
    done: list[Path] = []
    try:
        for argv, point in steps:
            point.mkdir(parents=True, exist_ok=True)
            subprocess.run(argv, check=True, capture_output=True, timeout=30)
            done.append(point)
            wait_until_sync(functools.partial(mounted, point), f"{point} to mount", 10)
        yield
    finally:
        for point in reversed(done):
            unmount(point)


def short(job: JobSpec, **changes: object) -> JobSpec:
    from dataclasses import replace

    return replace(job, **changes)  # type: ignore[arg-type]


async def run(
    request: RunRequest, recorder: Recorder, cancel: asyncio.Event | None = None
) -> RunResult:
    result = await asyncio.wait_for(
        SERVICE.run(inventory(), request, recorder, cancel), timeout=120
    )
    assert isinstance(recorder.events[0], RunStarted)
    assert isinstance(recorder.events[-1], RunEnded) and recorder.events[-1].result == result
    return result


# --------------------------------------------------------------------------- presets


@pytest.mark.parametrize("preset", PRESETS, ids=[p.name for p in PRESETS])
async def test_each_preset_runs_shortened(lab_nas: Path, preset: object) -> None:
    from tierdeck.core.presets import Preset

    assert isinstance(preset, Preset)
    cache = lab_nas / "mnt" / "cache"
    inv = inventory()
    # 8 clones x 8M, rewritten for 2 s on copy-on-write btrfs: 128 MiB of 215 MiB free.
    # A suite of 4 or 8 stonewalled jobs gets 1 s a job (its series still spans seconds):
    # the suite's time stays in budget.
    seconds = 1 if len(preset.jobs) >= 4 else 2
    request = plan_run(
        HOST, inv, str(cache), preset.jobs, preset=preset.name, size="8M", runtime=seconds
    )
    assert all((j.size, j.runtime) == ("8M", seconds) for j in request.jobs)
    assert request.drop_caches is preset.drop_caches  # we are root
    recorder = Recorder()
    result = await run(request, recorder)

    assert result.status is RunStatus.OK, result.error
    assert result.error is None and result.fio_json is not None
    assert result.fio_json["fio version"] == "fio-3.33"
    assert [j["jobname"] for j in result.fio_json["jobs"]] == [
        j.name for j in preset.jobs for _ in range(1 if j.group_reporting else j.numjobs)
    ]
    # One summary per job, its clones added up: a suite's jobs are the headline.
    assert [j.name for j in result.job_summaries] == [j.name for j in preset.jobs]
    assert all(j.directions and not j.error for j in result.job_summaries)
    assert result.mixed_jobs is (len({(j.rw, j.bs) for j in preset.jobs}) > 1)
    writes = any("write" in j.rw for j in preset.jobs)
    reads = any("read" in j.rw for j in preset.jobs)
    assert ("write" in result.summary, "read" in result.summary) == (writes, reads)
    for summary in result.summary.values():
        assert summary.bw_bytes > 0 and summary.iops > 0 and summary.lat_mean_ns
    assert result.series and all(s.interval_s > 0 for s in result.series)
    assert result.target.disks == tuple(sorted(disks_under(inv, str(cache))))
    assert result.env.fio_version == "fio-3.33" and result.env.fs_type == "btrfs"
    assert set(result.env.disk_models) == set(result.target.disks)
    assert ("dropping caches" in " ".join(recorder.notices)) is preset.drop_caches
    assert ("laying out" in " ".join(recorder.notices)) is preset.lay_out_first
    phases = [e.phase for e in recorder.of(Progress)]
    assert phases[0] == "preparing" and phases[-1] == "done" and "measuring" in phases
    assert bench_files(cache) == []


async def test_device_panel_and_progress_on_a_timed_preset(lab_nas: Path) -> None:
    cache = lab_nas / "mnt" / "cache"
    jobs = [
        JobSpec(name="seqwrite", rw="write", bs="1M", ioengine="libaio", iodepth=8, direct=True,
                size="48M", runtime=3, time_based=True, rate="30m"),
    ]  # fmt: skip
    request = plan_run(HOST, inventory(), str(cache), jobs)
    recorder = Recorder()
    result = await run(request, recorder)
    assert result.status is RunStatus.OK, result.error
    disks = set(result.target.disks)
    assert len(disks) == 2  # btrfs raid1: both cache loops
    per_second = recorder.of(DevicesReady)
    assert len(per_second) >= 2
    for event in per_second:
        assert {s.device for s in event.samples} == disks
    # raid1 writes every byte to both disks: each moves about fio's 30 MiB/s
    full = [s for s in result.device_series if 1.5 <= s.t <= 3.0]
    assert full and all(20 * MiB < s.write_bytes_per_s < 45 * MiB for s in full), full
    fio_rates = [s.write.bw_bytes_per_s for s in result.series if s.interval_s > 0.9]
    # rate=30m shows in every second (a shared VM may slow one second: btrfs committing
    # the files earlier tests deleted, and fio catches up in the next), and in their
    # median; with two full seconds a slow one and its catch-up gave 28.2 MiB/s in CI
    assert fio_rates and all(15 * MiB < r < 45 * MiB for r in fio_rates), fio_rates
    assert 26 * MiB < statistics.median(fio_rates) < 34 * MiB, fio_rates
    progress = [e for e in recorder.of(Progress) if e.phase == "measuring"]
    fractions = [e.fraction for e in progress]
    assert fractions == sorted(fractions) and 0.5 < fractions[-1] <= 1.0
    assert any(e.eta_s is not None and 0 < e.eta_s < 4 for e in progress)
    assert not any(w.kind is WarningKind.CACHE for w in result.warnings)


READ_BACK_JOBFILE = """\
; write a file, then read it back while it is still in the page cache
[global]
ioengine=psync
bs=64k
size=16M
filename=readback.dat

[write]
rw=write

[read]
stonewall
rw=randread
invalidate=0
runtime=3
time_based
"""


async def test_reads_served_by_the_page_cache_are_flagged_per_second(lab_nas: Path) -> None:
    """On a throttled HDD loop (200 IOPS), reads of a file still in the page cache run
    at memory speed while the disk delivers nothing: flagged per second, live and in
    the result. (The buffered writes before them are flagged too: the page cache took
    them faster than the disk could.)"""
    hdd = lab_nas / "mnt" / "hdd0"
    request = plan_run(HOST, inventory(), str(hdd), parse_jobfile(READ_BACK_JOBFILE))
    assert [f.name for f in request.files] == ["readback.dat"]
    recorder = Recorder()
    result = await run(request, recorder)
    assert result.status is RunStatus.OK, result.error
    live = [n for n in recorder.notices if n.startswith("cache warning: at t=")]
    assert live and "fio read" in live[0], recorder.notices
    [warning] = [
        w.text
        for w in result.warnings
        if w.text.startswith("cache warning: in ") and "fio read" in w.text
    ]
    assert "page cache" in warning
    assert not (hdd / "readback.dat").exists()  # tierdeck created it, tierdeck removed it


async def test_the_uncached_preset_reads_from_the_disk_for_its_whole_runtime(
    lab_nas: Path,
) -> None:
    """seed001 with a runtime: time_based (runtime means runtime), caches dropped, and
    fio invalidates the file's pages: every second comes from the disk, no warning."""
    hdd = lab_nas / "mnt" / "hdd0"
    seed001 = next(p for p in PRESETS if "seed001-uncached-randread" in p.names)
    request = plan_run(HOST, inventory(), str(hdd), seed001.jobs, preset=seed001.name,
                       size="8M", runtime=4)  # fmt: skip
    assert request.drop_caches and request.jobs[0].time_based
    recorder = Recorder()
    result = await run(request, recorder)
    assert result.status is RunStatus.OK, result.error
    assert result.series[-1].t > 3.5  # it ran for the runtime, not until 8M were read
    assert any("dropping caches" in n for n in recorder.notices)
    assert not any(w.kind is WarningKind.CACHE for w in result.warnings), result.warnings


# --------------------------------------------------------------------------- stonewall


async def test_stonewall_jobfile_shows_a_step_not_a_ramp(lab_nas: Path) -> None:
    cache = lab_nas / "mnt" / "cache"
    jobs = parse_jobfile(STONEWALL_JOBFILE)
    assert [j.name for j in jobs] == ["limited", "unlimited"] and jobs[1].stonewall
    request = plan_run(HOST, inventory(), str(cache), jobs)
    result = await run(request, Recorder())
    assert result.status is RunStatus.OK, result.error

    # Whole status intervals of one job each. fio prints them about every second, but on a
    # loaded 2-core VM one arrives at 0.88 s and the next at 1.12 s: rates are per
    # interval, so anything from 0.75 s on is a full sample.
    limited = [s for s in result.series if s.active_jobs == ("limited",) and s.interval_s > 0.75]
    unlimited = [
        s for s in result.series if s.active_jobs == ("unlimited",) and s.interval_s > 0.75
    ]
    assert len(limited) >= 2 and len(unlimited) >= 2, result.series
    for s in limited:  # rate=5m: 5 MiB/s each second, not a running average
        assert 4 * MiB < s.write.bw_bytes_per_s < 6 * MiB, s
    # The step: job 2's first full second is far above job 1.
    assert unlimited[0].write.bw_bytes_per_s > 4 * max(s.write.bw_bytes_per_s for s in limited)
    # Per-interval rates add up to what fio wrote; averages since the start would not
    # (they would lag job 2 by its first seconds). Not "the first second is near the
    # fastest": on a shared VM btrfs writeback makes one second half of the next.
    assert result.fio_json is not None
    written = sum(job["write"]["io_bytes"] for job in result.fio_json["jobs"])
    sampled = sum(s.write.bw_bytes_per_s * s.interval_s for s in result.series)
    assert 0.8 * written < sampled < 1.1 * written, (sampled, written)
    assert [s.t for s in result.series] == sorted(s.t for s in result.series)


# --------------------------------------------------------------------------- cancel


async def test_cancel_stops_fio_and_removes_the_files(lab_nas: Path) -> None:
    cache = lab_nas / "mnt" / "cache"
    job = JobSpec(name="cancelme", rw="randwrite", bs="4k", ioengine="psync", numjobs=2,
                  direct=True, size="32M", runtime=30, time_based=True, rate="2m")  # fmt: skip
    request = plan_run(HOST, inventory(), str(cache), [job])
    cancel = asyncio.Event()
    seen: list[list[Path]] = []

    def first_sample() -> None:
        seen.append(sorted(bench_files(cache)))
        assert fio_processes(f"--directory={cache}")  # fio is running
        cancel.set()

    recorder = Recorder(first_sample)
    started = time.monotonic()
    result = await run(request, recorder, cancel)
    elapsed = time.monotonic() - started
    assert result.status is RunStatus.CANCELLED and result.error is None
    # one file per clone, as plain fio lays them out
    assert seen == [[cache / f".tierdeck-bench.cancelme.{n}.0" for n in (0, 1)]]
    assert elapsed < 10, elapsed  # TERM ends fio at once; KILL would come after 3 s
    assert fio_processes(f"--directory={cache}") == []
    assert bench_files(cache) == []
    assert any("cancelling" in n for n in recorder.notices)
    assert result.series  # what was measured before the cancel is kept


async def test_cancelling_the_task_also_stops_fio(lab_nas: Path) -> None:
    cache = lab_nas / "mnt" / "cache"
    job = JobSpec(name="taskcancel", rw="write", bs="64k", ioengine="psync", direct=True,
                  size="16M", runtime=30, time_based=True, rate="2m")  # fmt: skip
    request = plan_run(HOST, inventory(), str(cache), [job])
    sampled = asyncio.Event()
    task = asyncio.create_task(SERVICE.run(inventory(), request, Recorder(sampled.set)))
    await asyncio.wait_for(sampled.wait(), timeout=20)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert fio_processes(f"--directory={cache}") == []
    assert bench_files(cache) == []
    plan_run(HOST, inventory(), str(cache), [job])  # the target is free again


async def test_a_failing_event_handler_stops_fio(lab_nas: Path) -> None:
    cache = lab_nas / "mnt" / "cache"
    job = JobSpec(name="handlerbug", rw="write", bs="64k", ioengine="psync", direct=True,
                  size="16M", runtime=30, time_based=True, rate="2m")  # fmt: skip
    request = plan_run(HOST, inventory(), str(cache), [job])

    def broken() -> None:
        raise RuntimeError("bug in the screen")

    with pytest.raises(RuntimeError, match="bug in the screen"):
        await asyncio.wait_for(SERVICE.run(inventory(), request, Recorder(broken)), timeout=20)
    assert fio_processes(f"--directory={cache}") == []
    assert bench_files(cache) == []


# --------------------------------------------------------------------------- mergerfs


async def test_mergerfs_pool_io_lands_on_the_branch_mfs_picked(lab_nas: Path) -> None:
    pool = lab_nas / "pool" / "slow"
    branches = [lab_nas / "mnt" / "hdd0", lab_nas / "mnt" / "hdd1"]
    inv = inventory()
    loop_of = {b: disks_under(inv, str(b)) for b in branches}
    assert all(len(disks) == 1 for disks in loop_of.values()), loop_of
    job = JobSpec(name="mfs", rw="write", bs="1M", ioengine="psync", size="48M", fsync=1,
                  rate="16m", runtime=5)  # fmt: skip
    # mergerfs 2.33 over ext4/xfs answers EINVAL to O_DIRECT writes: buffered, with an
    # fsync after every write so that the data reaches the disk while fio runs.
    request = plan_run(HOST, inv, str(pool), [job], direct=False)
    assert request.target.disks == tuple(sorted(d for v in loop_of.values() for d in v))
    picked: list[Path] = []
    result = await run(
        request, Recorder(lambda: picked.extend(b for b in branches if bench_files(b)))
    )
    assert result.status is RunStatus.OK, result.error
    assert len(picked) == 1, picked
    (chosen,) = loop_of[picked[0]]
    (other,) = loop_of[branches[1] if picked[0] == branches[0] else branches[0]]
    written = {d: sum(s.write_bytes_per_s for s in result.device_series if s.device == d)
               for d in (chosen, other)}  # fmt: skip
    assert written[chosen] > 20 * MiB, written  # ~16 MiB/s for ~3 s, in 1 s samples
    assert written[other] < 1 * MiB, written
    busy = [s for s in result.device_series if s.device == chosen and s.write_bytes_per_s > 8 * MiB]
    assert len(busy) >= 2
    assert bench_files(pool, *branches) == []
    assert not any(w.kind is WarningKind.CACHE for w in result.warnings), result.warnings
    assert result.env.mergerfs_version and result.env.mergerfs_options["category.create"] == "mfs"


# --------------------------------------------------------------------------- O_DIRECT


async def test_odirect_through_fuse_and_on_ramfs_is_refused_with_the_offer(tmp_path: Path) -> None:
    ram, pool = tmp_path / "ram", tmp_path / "pool"
    fsname = f"tdbench{os.getpid()}"
    job = JobSpec(name="od", rw="write", bs="1M", ioengine="psync", direct=True, size="8M",
                  runtime=2)  # fmt: skip
    with mounts(
        (["mount", "-t", "ramfs", "ramfs", str(ram)], ram),
        (["mergerfs", "-o", f"minfreespace=0,fsname={fsname}", str(ram), str(pool)], pool),
    ):
        inv = inventory()
        for target, label in ((pool, f"mergerfs {pool}"), (ram, f"branch {ram}")):
            with pytest.raises(BenchRefused) as refused:
                plan_run(HOST, inv, str(target), [job])
            assert refused.value.offer_buffered, refused.value.reason
            reason = refused.value.reason
            assert reason.startswith(f"{label} does not support O_DIRECT")
            assert "FUSE" in reason and "ramfs" in reason and "page cache" in reason
            assert bench_files(ram) == []  # the probe file is gone

        # Accepting the offer: buffered through FUSE, with the warning.
        request = plan_run(HOST, inv, str(pool), [job], direct=False)
        assert any(w.kind is WarningKind.BUFFERED for w in request.warnings)
        result = await run(request, Recorder())
        assert result.status is RunStatus.OK, result.error
        assert any(w.kind is WarningKind.BUFFERED for w in result.warnings)
        assert any(w.kind is WarningKind.NO_DISKS for w in result.warnings)
        assert bench_files(ram) == []

        # Bypassing the preflight, fio's own words come back as the error.
        forced = RunRequest(target=request.target, jobs=(job,), name="forced")
        failed = await run(forced, Recorder())
        assert failed.status is RunStatus.FAILED
        assert failed.error is not None
        assert failed.error.startswith("fio job failed: od (err=22: Invalid argument)")
        assert "fio: pid=" in failed.error and "err=22" in failed.error
        assert bench_files(ram) == []


async def test_fio_failure_comes_back_in_fios_words(lab_nas: Path) -> None:
    cache = lab_nas / "mnt" / "cache"
    request = plan_run(HOST, inventory(), str(cache), [JobSpec(name="ok", rw="read", size="16M")])
    bad = JobSpec(name="bad", rw="read", size="16M", ioengine="nosuchengine")
    result = await run(RunRequest(target=request.target, jobs=(bad,), name="broken"), Recorder())
    assert result.status is RunStatus.FAILED and result.summary == {}
    assert result.error is not None
    assert result.error.startswith("fio exited with status 1\n")
    assert "nosuchengine" in result.error
    assert bench_files(cache) == []


# --------------------------------------------------------------------------- refusals


def test_full_target_refused_before_starting(tmpfs_dir: MountDir) -> None:
    job = JobSpec(name="big", rw="write", bs="1M", size="64M")
    with tmpfs_dir("small", size="8M") as small:
        with pytest.raises(BenchRefused) as refused:
            plan_run(HOST, inventory(), str(small), [job])
        reason = refused.value.reason
        assert reason.startswith(f"not enough free space on tmpfs {small}: the 1 test file needs")
        assert "64M (67108864 bytes)" in reason and "8.0M (8388608 bytes)" in reason
        assert not refused.value.offer_buffered
        assert bench_files(small) == []


def test_raw_device_with_a_filesystem_refused(lab_nas: Path) -> None:
    inv = inventory()
    (loop,) = disks_under(inv, str(lab_nas / "mnt" / "hdd0"))
    job = JobSpec(name="raw", rw="randread", bs="4k", size="16M", runtime=2)
    with pytest.raises(BenchRefused, match="raw mode"):
        plan_run(HOST, inv, f"/dev/{loop}", [job])
    with pytest.raises(BenchRefused) as refused:
        plan_run(HOST, inv, f"/dev/{loop}", [job], raw_confirm=loop)
    reason = refused.value.reason
    assert reason.startswith(f"refusing raw mode on /dev/{loop}:")
    assert f"{loop} is mounted on {lab_nas / 'mnt' / 'hdd0'}" in reason
    assert "ext4" in reason  # blkid -p finds the signature


async def test_second_run_on_the_same_target_refused(lab_nas: Path) -> None:
    cache = lab_nas / "mnt" / "cache"
    job = JobSpec(name="first", rw="write", bs="64k", ioengine="psync", direct=True,
                  size="16M", runtime=20, time_based=True, rate="2m")  # fmt: skip
    inv = inventory()
    request = plan_run(HOST, inv, str(cache), [job])
    cancel = asyncio.Event()
    refusals: list[str] = []
    second_run: list[BenchRefused] = []

    def while_running() -> None:
        try:
            plan_run(HOST, inv, str(cache) + "/", [job])
        except BenchRefused as exc:
            refusals.append(exc.reason)
        cancel.set()

    task = asyncio.create_task(run(request, Recorder(while_running), cancel))
    await wait_until(
        None,
        lambda: task.done() or running_request(request.target.path) is not None,
        "the first run to hold the target",
    )
    try:
        await SERVICE.run(inventory(), request, Recorder())
    except BenchRefused as exc:
        second_run.append(exc)
    result = await task
    assert result.status is RunStatus.CANCELLED
    assert refusals == [
        f"a benchmark is already running on branch {cache} ({request.name}): "
        "one run per target at a time"
    ]
    assert len(second_run) == 1 and "already running" in second_run[0].reason
    assert bench_files(cache) == []
