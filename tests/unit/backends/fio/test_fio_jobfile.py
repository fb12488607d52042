"""parse_jobfile: real job files in, JobSpecs out, and back again."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.backends.fio.jobfile import parse_jobfile
from tierdeck.core.errors import ParseError
from tierdeck.core.jobspec import RW_MODES, JobSpec
from tierdeck.core.presets import PRESETS

from ....paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "fio"


def test_seed003_job_file() -> None:
    [job] = parse_jobfile((FIXTURES / "seed003_write_test.fio").read_text(encoding="utf-8"))
    assert job.name == "test1"
    assert (job.rw, job.bs, job.size, job.runtime, job.iodepth, job.numjobs) == (
        "write", "128k", "2m", 180, 1, 1)  # fmt: skip
    assert job.end_fsync  # "end_fsync=true": fio 3.8 took it; tierdeck writes it as 1
    assert job.group_reporting
    assert job.extra == {
        "kb_base": "1024",
        "directory": "/sec_stor/backup/fiotest/",
        "buffer_compress_percentage": "100",
        "refill_buffers": None,
        "buffer_compress_chunk": "131072",
        "buffer_pattern": "0xdeadbeef",
    }
    assert "end_fsync=1" in job.to_jobfile()


def test_seed003_commented_out_option() -> None:
    # The seed's second version of the file: "buffer_compress_percentage=0" and
    # ";buffer_pattern=0xdeadbeef ; this is commented out."
    text = (FIXTURES / "seed003_write_test.fio").read_text(encoding="utf-8")
    text = text.replace("buffer_compress_percentage=100", "buffer_compress_percentage=0")
    text = text.replace("buffer_pattern=0xdeadbeef",
                        ";buffer_pattern=0xdeadbeef ; this is commented out.")  # fmt: skip
    [job] = parse_jobfile(text)
    assert "buffer_pattern" not in job.extra
    assert job.extra["buffer_compress_percentage"] == "0"


def test_stonewall_file_merges_global_into_each_job() -> None:
    jobs = parse_jobfile((FIXTURES / "stonewall_rate_limited.fio").read_text(encoding="utf-8"))
    assert [(j.name, j.rate, j.stonewall) for j in jobs] == [
        ("limited", "20m", False),
        ("unlimited", None, True),
    ]
    for job in jobs:
        assert (job.rw, job.bs, job.size, job.runtime, job.time_based, job.ioengine) == (
            "write", "64k", "256M", 3, True, "psync")  # fmt: skip
        assert job.extra == {"directory": "/tmp/tdfio/tmpfs"}


def test_later_global_applies_to_later_jobs_and_jobs_override() -> None:
    text = """
# comment
[global]
bs = 4k     ; spaces and a trailing comment
ioengine=libaio
[a]
rw=randread
[global]
iodepth=32
[b]
readwrite=randwrite
blocksize=8k
wait_for_previous
runtime=2m
"""
    a, b = parse_jobfile(text)
    assert (a.name, a.rw, a.bs, a.iodepth, a.ioengine) == ("a", "randread", "4k", 1, "libaio")
    assert (b.rw, b.bs, b.iodepth, b.stonewall, b.runtime) == ("randwrite", "8k", 32, True, 120)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("rw=read\n[a]\n", 1),
        ("[a]\nrw read\n", 2),
        ("[a\nrw=read\n", 1),
        ("[]\n", 1),
        ("[a]\n\niodepth=deep\n", 3),
        ("[a]\ndirect=maybe\n", 2),
        ("[a]\nruntime=500ms\n", 2),
        ("[a]\nbs=\n", 2),
        ("[a]\ninclude other.fio\n", 2),
    ],
)
def test_garbage_raises_parse_error_with_line_number(text: str, line: int) -> None:
    with pytest.raises(ParseError, match=f"line {line}:"):
        parse_jobfile(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="[]=;#\n abc_019gmk", max_size=80))
def test_random_text_parses_or_raises_parse_error(text: str) -> None:
    try:
        jobs = parse_jobfile(text)
    except ParseError:
        return
    assert all(isinstance(job, JobSpec) for job in jobs)


_names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,11}", fullmatch=True).filter(
    lambda n: n != "global"
)
_sizes = st.sampled_from(["4k", "512", "1M", "16K", "128k", "2g", "1024m"])
_specs = st.builds(
    JobSpec,
    name=_names,
    rw=st.sampled_from(sorted(RW_MODES)),
    bs=_sizes,
    iodepth=st.integers(1, 256),
    numjobs=st.integers(1, 64),
    ioengine=st.none() | st.sampled_from(["libaio", "sync", "psync", "io_uring"]),
    direct=st.booleans(),
    size=st.none() | _sizes,
    runtime=st.none() | st.integers(1, 3600),
    fsync=st.integers(0, 8),
    fdatasync=st.integers(0, 8),
    end_fsync=st.booleans(),
    group_reporting=st.booleans(),
    rate=st.none() | st.sampled_from(["20m", ",10m", "1m,2m"]),
    stonewall=st.booleans(),
    extra=st.dictionaries(
        st.sampled_from(["randrepeat", "refill_buffers", "ramp_time", "zero_buffers"]),
        st.none() | st.sampled_from(["0", "1", "2s"]),
        max_size=3,
    ),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_specs, min_size=1, max_size=4, unique_by=lambda s: s.name))
def test_round_trip_through_jobfile(specs: list[JobSpec]) -> None:
    text = "\n".join(spec.to_jobfile() for spec in specs)
    assert parse_jobfile(text) == specs


def test_presets_round_trip_except_file_sharing() -> None:
    # file_tag is tierdeck's (which jobs share a file); fio files carry it as filename=
    for p in PRESETS:
        back = parse_jobfile(p.to_jobfile())
        assert [j.name for j in back] == [j.name for j in p.jobs]
        assert back == [
            JobSpec(
                **{
                    **{k: getattr(j, k) for k in JobSpec.__dataclass_fields__},
                    "file_tag": None,
                    "filename": j.file_names()[0] if j.file_tag else None,
                }
            )  # fmt: skip
            for j in p.jobs
        ]
        assert [b.file_names() for b in back] == [j.file_names() for j in p.jobs]
