"""JobSpec validation and rendering, and the presets' parameters against their sources."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.core.jobspec import (
    JobSpec,
    JobSpecError,
    fio_size_bytes,
    jobfile_text,
    placement_args,
    stonewall_groups,
)
from tierdeck.core.presets import PRESETS, find_preset, preset

GOOD = JobSpec(name="seq", rw="write", bs="1M", size="1G")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"name": ""}, "empty"),
        ({"name": "global"}, "section"),
        ({"name": "a]b"}, "section"),
        ({"rw": "sideways"}, "rw='sideways' is not one of"),
        ({"bs": "big"}, "bs='big'"),
        ({"bs": "0"}, "bs='0'"),
        ({"bs": "4k,8k,1m,2m"}, "bs="),
        ({"iodepth": 0}, "iodepth=0 must be a whole number >= 1"),
        ({"numjobs": -1}, "numjobs=-1"),
        ({"fsync": -1}, "fsync=-1 must be a whole number >= 0"),
        ({"ioengine": "lib aio"}, "ioengine"),
        ({"size": "lots"}, "size='lots'"),
        ({"size": "150%"}, "size='150%'"),
        ({"runtime": 0}, "runtime=0"),
        ({"time_based": True}, "never stop"),
        ({"rate": "fast"}, "rate='fast'"),
        ({"file_tag": "a/b"}, "file_tag"),
        ({"name": "a/b"}, "section"),
        ({"file_tag": "t", "filename": "x"}, "both name the file"),
        ({"filename": "a;b"}, "not a file name"),
        ({"extra": {"Bad Key": "1"}}, "not a fio option name"),
        ({"extra": {"bs": "4k"}}, "own field"),
        ({"extra": {"buffer_pattern": "0xdead ; beef"}}, "cannot be written"),
    ],
)
def test_validate_rejects_bad_values_with_reason(change: dict[str, object], words: str) -> None:
    bad = replace(GOOD, **change)  # type: ignore[arg-type]
    with pytest.raises(JobSpecError, match=words.replace("[", r"\[").replace("(", r"\(")):
        bad.validate()
    with pytest.raises(ValueError):  # JobSpecError is a ValueError too
        bad.to_fio_args()


@pytest.mark.parametrize(
    "good",
    [
        GOOD,
        replace(GOOD, rw="randread:8", bs="4k,8k", size="50%", rate=",20m"),
        replace(GOOD, bs="512", size="16Gb", runtime=60, time_based=True, ioengine="io_uring"),
    ],
)
def test_validate_accepts_fio_syntax(good: JobSpec) -> None:
    assert good.validate() is good


def test_fio_size_bytes_reads_fio_units() -> None:
    assert fio_size_bytes("16Gb") == 16 * 1024**3  # seed 000's --size=16Gb
    assert fio_size_bytes("0x10") == 16
    assert fio_size_bytes("512") == 512
    assert fio_size_bytes("1.5G") is None


# What fio 3.33 wrote for --size=X (--ioengine=null --bs=1 --output-format=json, its
# write io_bytes), default kb_base=1024 and kb_base=1000: fio's "compatibility mode"
# reads the bare prefix as binary and only the full IEC spelling as decimal.
@pytest.mark.parametrize(
    ("text", "kb_base", "fio_wrote"),
    [
        ("16Mi", 1024, 16 * 1024**2),
        ("16MI", 1024, 16 * 1024**2),
        ("16Ki", 1024, 16 * 1024),
        ("16M", 1024, 16 * 1024**2),
        ("16mb", 1024, 16 * 1024**2),
        ("16MiB", 1024, 16_000_000),
        ("16Mib", 1024, 16_000_000),
        ("4KiB", 1024, 4000),
        ("16KiB", 1000, 16 * 1024),
        ("16k", 1000, 16_000),
        ("16Ki", 1000, 16_000),
        ("16kb", 1000, 16_000),
    ],
)
def test_fio_size_bytes_follows_fio_kb_base(text: str, kb_base: int, fio_wrote: int) -> None:
    assert fio_size_bytes(text, kb_base) == fio_wrote


def test_sizes_fio_reads_otherwise_than_they_look_are_not_read() -> None:
    # fio 3.33 wrote 16 bytes for "0x10k" and "16 M", 1 byte for "1.5M": never a guess
    assert fio_size_bytes("0x10k") is None
    assert fio_size_bytes("16 M") is None
    assert fio_size_bytes("1.5M") is None


def test_seed000_preset_renders_the_seed_command() -> None:
    [job] = preset("seed000-seqwrite").jobs
    assert job.to_fio_args() == [
        "--name=fiotest",
        "--rw=write",
        "--bs=1M",
        "--ioengine=libaio",
        "--iodepth=8",
        "--numjobs=8",
        "--direct=1",
        "--size=16G",
        "--runtime=60",
        "--group_reporting",
    ]


def test_files_go_where_fio_puts_them_with_tierdecks_prefix() -> None:
    # fio's own default naming behind the prefix: one file per clone and per nrfiles
    assert placement_args("/mnt/a:b") == [
        "--directory=/mnt/a\\:b",  # ':' separates directories in fio: escaped
        "--filename_format=.tierdeck-bench.$jobname.$jobnum.$filenum",
    ]
    with pytest.raises(JobSpecError):
        placement_args("relative/dir")


def test_extra_never_chooses_the_directory_and_shared_files_are_named() -> None:
    spec = replace(GOOD, extra={"directory": "/", "opendir": "/etc", "norandommap": None})
    args = spec.to_fio_args()
    assert "--norandommap" in args
    assert not any(a.startswith(("--directory", "--opendir", "--filename=")) for a in args)
    tagged = replace(GOOD, file_tag="dd-1M")
    assert tagged.to_fio_args()[1] == "--filename=.tierdeck-bench.dd-1M"
    named = replace(GOOD, filename="a\\:b:c")
    assert named.file_names() == ("a:b", "c")
    assert named.to_fio_args()[1] == "--filename=a\\:b:c"


def test_jobfile_text_places_files_like_the_command_line() -> None:
    text = jobfile_text([GOOD], "/mnt/pool")
    assert text.startswith(
        "[global]\ndirectory=/mnt/pool\n"
        "filename_format=.tierdeck-bench.$jobname.$jobnum.$filenum\n\n[seq]\n"
    )
    assert jobfile_text([GOOD]).startswith("[seq]\n")
    with pytest.raises(JobSpecError):  # fio would cut the line at '#'
        jobfile_text([GOOD], "/mnt/a#b")


def test_to_jobfile_shows_exact_parameters() -> None:
    spec = replace(GOOD, time_based=True, runtime=30, end_fsync=True, stonewall=True,
                   extra={"refill_buffers": None, "randrepeat": "0"})  # fmt: skip
    assert spec.to_jobfile() == (
        "[seq]\nrw=write\nbs=1M\niodepth=1\nnumjobs=1\nsize=1G\nruntime=30\ntime_based\n"
        "end_fsync=1\nstonewall\nrefill_buffers\nrandrepeat=0\n"
    )


def test_kdiskmark_profiles_match_kdiskmark_source() -> None:
    # appsettings.cpp defaultBenchmarkParams: {pattern, block KiB, queues, threads}
    expected = {
        "kdiskmark-standard": [("read", "1024k", 8, 1), ("read", "1024k", 1, 1),
                               ("randread", "4k", 32, 1), ("randread", "4k", 1, 1)],
        "kdiskmark-nvme": [("read", "1024k", 8, 1), ("read", "128k", 32, 1),
                           ("randread", "4k", 32, 16), ("randread", "4k", 1, 1)],
    }  # fmt: skip
    for name, tests in expected.items():
        jobs = preset(name).jobs
        assert [(j.rw, j.bs, j.iodepth, j.numjobs) for j in jobs[:4]] == tests
        writes = [(j.rw, j.bs, j.iodepth, j.numjobs) for j in jobs[4:]]
        assert writes == [(rw.replace("read", "write"), b, q, t) for rw, b, q, t in tests]
        for job in jobs:  # benchmark.cpp startTest() arguments
            assert (job.ioengine, job.direct, job.end_fsync, job.size, job.runtime) == (
                "libaio", True, True, "1024m", 5)  # fmt: skip
            assert job.extra == {"randrepeat": "0", "refill_buffers": None, "zero_buffers": "0"}
            assert job.file_tag == "kdiskmark"
        assert [j.stonewall for j in jobs] == [False] + [True] * 7


def test_seed_presets_keep_the_seed_parameters() -> None:
    suite = preset("seed002-suite").jobs
    assert [(j.name, j.rw, j.bs, j.iodepth, j.ioengine) for j in suite] == [
        ("write_throughput", "write", "1M", 64, "libaio"),
        ("write_iops", "randwrite", "4K", 64, "libaio"),
        ("read_throughput", "read", "1M", 64, "libaio"),
        ("read_iops", "randread", "4K", 64, "libaio"),
    ]
    [read] = preset("seed001-uncached-randread").jobs
    assert (read.ioengine, read.rw, read.bs, read.size, read.numjobs, read.end_fsync) == (
        "sync", "randread", "16K", "1G", 1, True)  # fmt: skip
    assert preset("seed001-uncached-randread").drop_caches
    assert preset("seed001-uncached-randread").lay_out_first
    dd = preset("seed004-dd").jobs
    assert [(j.rw, j.bs) for j in dd] == [("write", "1M"), ("read", "1M"),
                                          ("write", "512"), ("read", "512")]  # fmt: skip
    assert dd[0].end_fsync  # dd conv=fdatasync


def test_every_preset_is_valid_and_cites_a_source() -> None:
    assert len({p.name for p in PRESETS}) == len(PRESETS) == 6
    for p in PRESETS:
        assert p.source.startswith(("a ", "Jim Salter", "mergerfs", "https://")), p.source
        for job in p.jobs:
            job.validate()
        assert p.to_jobfile().startswith(f"; {p.title}\n; source: {p.source}\n\n[")
    with pytest.raises(KeyError):
        preset("nope")
    assert find_preset("nope") is None and find_preset(None) is None
    assert find_preset("seed000-seqwrite") is PRESETS[0]


def test_stonewall_starts_a_group_and_groups_run_in_turn() -> None:
    a, b, c = (JobSpec(name=n, rw="read", size="1M") for n in "abc")
    walled = JobSpec(name="d", rw="read", size="1M", stonewall=True)
    assert stonewall_groups([a, b, walled, c]) == [[a, b], [walled, c]]
    assert stonewall_groups([]) == []


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")
@pytest.mark.parametrize("name", [p.name for p in PRESETS])
def test_fio_itself_accepts_every_preset(name: str, tmp_path: Path) -> None:
    p = preset(name)
    jobfile = tmp_path / "preset.fio"
    jobfile.write_text(p.to_jobfile(str(tmp_path)), encoding="utf-8")
    args = placement_args(str(tmp_path)) + [a for job in p.jobs for a in job.to_fio_args()]
    for argv in (["fio", "--parse-only", str(jobfile)],
                 ["fio", "--parse-only", *args]):  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == [jobfile]  # parse-only created no data files


def test_with_overrides_applies_to_every_job_and_validates() -> None:
    from tierdeck.core.jobspec import JobSpec, JobSpecError, with_overrides

    jobs = (JobSpec(name="a", rw="write", size="1G"), JobSpec(name="b", rw="read", runtime=9))
    out = with_overrides(jobs, size="64M", runtime=2, direct=True)
    assert [(j.size, j.runtime, j.direct) for j in out] == [("64M", 2, True)] * 2
    # A runtime the user asks for is a duration: the jobs run that long (time_based)
    # instead of stopping when their size is written.
    assert all(j.time_based for j in out)
    assert "time_based" in out[0].to_jobfile()
    assert with_overrides(jobs) == jobs  # nothing asked, nothing changed
    assert not with_overrides(jobs, size="64M")[0].time_based  # a preset keeps its method
    for bad in ({"size": "lots"}, {"runtime": 0}):
        with pytest.raises(JobSpecError):
            with_overrides(jobs, **bad)  # type: ignore[arg-type]
