"""Where fio's files go (core.placement), the per-second cache check (core.cache_check)
and fio's repeated error lines (core.fio_models.collapse_repeats)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tierdeck.core.bench_models import DeviceSample
from tierdeck.core.cache_check import cached_intervals, disk_bytes_between, findings
from tierdeck.core.fio_models import Direction, DirectionSample, Sample, collapse_repeats
from tierdeck.core.jobspec import JobSpec, JobSpecError, placement_args
from tierdeck.core.placement import (
    BenchFile,
    PlacementRefused,
    expand_format,
    place_jobs,
    planned_files,
)

MiB = 1 << 20


# --------------------------------------------------------------------------- files


def names(jobs: list[JobSpec], **kw: bool) -> list[str]:
    return [f.name for f in planned_files(jobs, **kw)]


def test_every_clone_and_every_nrfiles_file_gets_its_own_file() -> None:
    job = JobSpec(name="j", rw="write", size="1M", numjobs=2, extra={"nrfiles": "2"})
    files = planned_files([job])
    assert [f.name for f in files] == [
        ".tierdeck-bench.j.0.0",
        ".tierdeck-bench.j.0.1",
        ".tierdeck-bench.j.1.0",
        ".tierdeck-bench.j.1.1",
    ]
    assert {f.size_bytes for f in files} == {MiB // 2}  # size is divided among nrfiles
    sized = JobSpec(name="j", rw="write", size="1M", extra={"nrfiles": "2", "filesize": "1M-3M"})
    assert {f.size_bytes for f in planned_files([sized])} == {3 * MiB}


def test_named_files_are_shared_by_clones_and_jobs() -> None:
    jobs = [
        JobSpec(name="w", rw="write", size="2M", numjobs=4, filename="shared"),
        JobSpec(name="r", rw="read", size="1M", filename="shared", stonewall=True),
        JobSpec(name="t", rw="read", size="3M", file_tag="tag"),
    ]
    files = planned_files(jobs)
    assert files == (
        BenchFile("shared", 2 * MiB, overwritten=True),  # four clones write the same file
        BenchFile(".tierdeck-bench.tag", 3 * MiB),
    )


def test_overwrites_are_known() -> None:
    once = JobSpec(name="a", rw="write", size="1M")
    looped = JobSpec(name="a", rw="write", size="1M", runtime=5, time_based=True)
    reader = JobSpec(name="a", rw="read", size="1M", runtime=5, time_based=True)
    assert [f.overwritten for f in planned_files([once])] == [False]
    assert [f.overwritten for f in planned_files([once], laid_out=True)] == [True]
    assert [f.overwritten for f in planned_files([looped])] == [True]
    assert [f.overwritten for f in planned_files([reader])] == [False]
    then_write = [JobSpec(name="a", rw="read", size="1M", file_tag="x"),
                  JobSpec(name="b", rw="write", size="1M", file_tag="x")]  # fmt: skip
    assert [f.overwritten for f in planned_files(then_write)] == [True]


def test_a_percent_size_is_left_to_fio() -> None:
    assert planned_files([JobSpec(name="p", rw="read", size="50%")])[0].size_bytes is None


def test_place_jobs_keeps_names_inside_and_refuses_the_rest() -> None:
    top = "/mnt/t"
    placed = place_jobs([JobSpec(name="a", rw="read", size="1M", filename="/mnt/t/x:y\\:z")], top)
    assert placed.jobs[0].filename == "x:y\\:z"
    assert placed.jobs[0].file_names() == ("x", "y:z")
    for bad in ("/mnt/other", "../escape", "/mnt/t", "/mnt/t2/x", "a/../../b"):
        with pytest.raises(PlacementRefused):
            place_jobs([JobSpec(name="a", rw="read", size="1M", filename=bad)], top)
    fmt = JobSpec(name="a", rw="read", size="1M", extra={"filename_format": "$jobname.$jobnum"})
    [placed_fmt] = place_jobs([fmt], top).jobs
    assert placed_fmt.extra["filename_format"] == ".tierdeck-bench.$jobname.$jobnum"
    assert names([placed_fmt]) == [".tierdeck-bench.a.0"]
    with pytest.raises(PlacementRefused, match="subdirectory"):
        place_jobs([JobSpec(name="a", rw="read", size="1M",
                            extra={"filename_format": "d/$jobname"})], top)  # fmt: skip


def test_expand_format_follows_fios_keywords() -> None:
    assert expand_format("p.$jobname.$jobnum.$filenum", "seq", 3, 1) == "p.seq.3.1"


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")
def test_planned_files_are_exactly_what_fio_creates(tmp_path: Path) -> None:
    """The cleanup relies on it: fio 3.33 itself lays the files out (--create_only)."""
    jobs = [
        JobSpec(name="clones", rw="write", size="256k", numjobs=3),
        JobSpec(name="many", rw="write", size="256k", numjobs=2, extra={"nrfiles": "3"}),
        JobSpec(name="named", rw="write", size="256k", numjobs=2, filename="shared.dat"),
        JobSpec(name="tagged", rw="read", size="256k", file_tag="t", stonewall=True),
    ]
    argv = ["fio", "--create_only=1", "--output-format=json", *placement_args(str(tmp_path))]
    for job in jobs:
        argv += job.to_fio_args()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    made = {p.name: p.stat().st_size for p in tmp_path.iterdir()}
    planned = {f.name: f.size_bytes for f in planned_files(jobs)}
    assert made == planned


# --------------------------------------------------------------------------- cache check


def sample(t: float, read_mib: float = 0.0, write_mib: float = 0.0) -> Sample:
    return Sample(
        t=t,
        interval_s=1.0,
        read=DirectionSample(read_mib * MiB, 1.0, None, None),
        write=DirectionSample(write_mib * MiB, 1.0, None, None),
    )


def device(
    t: float, read_mib: float = 0.0, write_mib: float = 0.0, name: str = "sdb"
) -> DeviceSample:
    return DeviceSample(t, name, read_mib * MiB, write_mib * MiB, 0.0, 0.0, 50.0)


def test_readahead_then_cache_is_flagged_second_by_second() -> None:
    # The seed001-style trap: in the first seconds the disk reads more than fio asked
    # (readahead), so the totals balance, but every later second comes from memory.
    fio = [sample(t, read_mib=90) for t in range(1, 9)]
    disks = [device(t, read_mib=240 if t <= 3 else 0.2) for t in range(1, 9)]
    total_fio = sum(s.read.bw_bytes_per_s for s in fio)
    total_disk = sum(d.read_bytes_per_s for d in disks)
    assert total_disk > total_fio / 1.5  # a whole-run check sees nothing wrong
    flagged = cached_intervals(fio, disks + [device(9)])
    # t=4 gets a quarter second of t=3's readahead (the jitter margin): not flagged
    assert [c.t for c in flagged] == [5, 6, 7, 8]
    assert {c.direction for c in flagged} == {Direction.READ}
    [found] = findings(fio, flagged)
    assert (found.intervals, found.of_intervals, found.first_t, found.last_t) == (4, 8, 5, 8)


def test_disks_that_keep_up_are_not_flagged_and_clocks_are_aligned() -> None:
    # fio's first I/O 0.5 s after the process started: device t = fio t + 0.5
    fio = [sample(t, write_mib=100) for t in range(1, 6)]
    disks = [device(t + 0.5, write_mib=100) for t in range(0, 7)]
    assert cached_intervals(fio, disks, offset_s=0.5) == []
    # Intervals the device data does not cover yet are skipped, not guessed
    assert cached_intervals(fio, disks[:3], offset_s=0.5) == []
    # A disk sampler that woke up 0.2 s late does not make a second look cached
    late = [device(t + 0.7, write_mib=100) for t in range(0, 7)]
    assert cached_intervals(fio, late, offset_s=0.5) == []


def test_small_intervals_are_noise_and_a_mirror_counts_both_disks() -> None:
    fio = [sample(1, write_mib=2)]
    assert cached_intervals(fio, [device(1), device(2)]) == []  # 2 MiB: below the threshold
    # a two-way mirror: each disk writes what fio wrote
    fio = [sample(1, write_mib=100)]
    both = [device(t, write_mib=100, name=n) for t in (1, 2) for n in ("sdb", "sdc")]
    assert cached_intervals(fio, both) == []
    assert disk_bytes_between(both, 0.0, 1.0, Direction.WRITE) == 200 * MiB
    assert disk_bytes_between(both, 0.0, 0.5, Direction.WRITE, {"sdb"}) == 50 * MiB


def test_one_cached_second_in_a_long_run_is_not_a_warning() -> None:
    fio = [sample(t, read_mib=100) for t in range(1, 21)]
    disks = [device(t, read_mib=100 if t != 1 else 0) for t in range(1, 22)]
    flagged = cached_intervals(fio, disks)
    assert len(flagged) == 1 and findings(fio, flagged) == []


# --------------------------------------------------------------------------- messages


def test_repeated_io_u_errors_become_one_line_with_a_count() -> None:
    lines = [
        f"fio: io_u error on file ./t.0.0: No space left on device: write offset={o}, buflen=4096"
        for o in (4456448, 9228288, 125440000)
    ] + ["fio: pid=42, err=28/file:io_u.c:1889, func=io_u error, error=No space left on device"]
    assert collapse_repeats(lines) == [
        lines[0] + " (repeated 3 times)",
        lines[3],
    ]


@given(st.lists(st.text(max_size=40), max_size=30))
def test_collapse_keeps_one_line_per_shape_in_order(lines: list[str]) -> None:
    out = collapse_repeats(lines)
    assert len(out) <= len(lines)
    assert (not lines) == (not out)


def test_placement_refusal_is_a_job_error() -> None:
    assert issubclass(PlacementRefused, JobSpecError)
