"""Importing fio output: recorded real files of fio 2.0.8, 2.2.10, 3.1, 3.8, 3.16 and
3.33, in JSON, json+ and text (tests/fixtures/fio_import/README.md says where each comes from)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tierdeck.backends.fio.imports import (
    content_hash,
    imported_run,
    imported_runs,
    parse_fio_output,
    parse_fio_outputs,
)
from tierdeck.core.bench_models import RunStatus
from tierdeck.core.imports import ImportFormat, ImportNotice, ImportRefusalKind, ImportRefused

from ....paths import DEMO_RUNS, FIXTURES

IMPORT = FIXTURES / "fio_import"
FIO = FIXTURES / "fio"
DEMO = DEMO_RUNS
MIB = 1024**2


def parse(path: Path):  # noqa: ANN201 - ParsedImport
    return parse_fio_output(path.read_bytes())


# --------------------------------------------------------------------------- JSON


def test_fio_2_json_in_microseconds_and_kib() -> None:
    parsed = parse(FIO / "fio2210_powersj_perfkit.json")
    assert parsed.format is ImportFormat.FIO_JSON and parsed.fio_version == "fio-2.2.10"
    write = parsed.summary["write"]
    # io_bytes 37500272 KiB over 600008 ms, clat/lat in usec (x1000 to ns)
    assert write.bw_bytes == 1000 * 37500272 * 1024 // 600008
    assert write.lat_mean_ns == pytest.approx(8182.26 * 1000)
    assert parsed.jobs == ()  # fio 2.2.10 printed no job options
    assert [j.name for j in parsed.job_summaries] == ["test"]


def test_fio_3_1_json_without_bw_bytes_keeps_its_job_options() -> None:
    parsed = parse(FIO / "fio31_gvisor_sample.json")
    assert parsed.fio_version == "fio-3.1"
    (job,) = parsed.jobs
    assert (job.name, job.rw, job.bs, job.iodepth, job.ioengine) == (
        "test",
        "write",
        "4096",
        4,
        "sync",
    )
    assert parsed.target_path == "/disk/file.dat"
    assert parsed.job_summaries[0].rw == "write"
    assert parsed.summary["write"].bw_bytes > 0


def test_fio_333_json_group_reporting() -> None:
    data = (IMPORT / "fio333_seqwrite_group.json").read_bytes()
    run = imported_run(data, "seq.json", now=0.0, tags=("old",))
    doc = json.loads(data)
    write = doc["jobs"][0]["write"]
    assert run.summary["write"].bw_bytes == write["bw_bytes"]
    assert run.summary["write"].iops == pytest.approx(write["iops"])
    assert run.summary["write"].lat_mean_ns == pytest.approx(write["lat_ns"]["mean"])
    assert run.jobs[0].numjobs == 2 and run.jobs[0].bs == "1M"
    assert run.env.fio_version == "fio-3.33"
    assert run.fio_json == doc
    assert run.series == () and run.device_series == ()
    assert run.imported is not None and run.imported.content_hash == content_hash(data)
    assert run.imported.format is ImportFormat.FIO_JSON
    assert (run.name, run.tags, run.status) == ("seq.json", ("old",), RunStatus.OK)
    assert run.started_at == pytest.approx(doc["timestamp"] - write["runtime"] / 1000)


def test_json_plus_is_recognised_and_gives_p99() -> None:
    parsed = parse(IMPORT / "fio333_randrw_jsonplus.json")
    assert parsed.format is ImportFormat.FIO_JSON_PLUS
    doc = json.loads((IMPORT / "fio333_randrw_jsonplus.json").read_text())
    p99 = doc["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"]
    assert parsed.summary["read"].lat_p99_ns == p99
    assert set(parsed.summary) == {"read", "write"}


def test_leading_fio_signal_line_is_a_notice() -> None:
    text = (IMPORT / "fio333_sigint.json").read_text()
    assert "fio: terminating on signal 2" in text.split("{", 1)[0]
    parsed = parse(IMPORT / "fio333_sigint.json")
    assert ImportNotice.FIO_MESSAGES in parsed.notices
    assert parsed.summary["read"].bw_bytes > 0


def test_several_documents_the_last_complete_one_wins() -> None:
    data = (FIO / "fio333_status_randrw.json").read_text()
    last = json.loads("{" + data.rsplit("\n{", 1)[1])
    parsed = parse_fio_output(data.encode())
    assert ImportNotice.LAST_OF_SEVERAL in parsed.notices
    assert parsed.summary["read"].bw_bytes == last["jobs"][0]["read"]["bw_bytes"]
    # a document cut short after the last one: the complete one before it wins
    tail = "{" + data.rsplit("\n{", 1)[1]
    cut = data + tail[: len(tail) // 2]
    again = parse_fio_output(cut.encode())
    assert ImportNotice.TRUNCATED_TAIL in again.notices
    assert again.summary == parsed.summary


def test_failed_fio_json_is_imported_as_failed() -> None:
    run = imported_run((FIO / "fio333_odirect_ramfs.stdout").read_bytes(), "od.json", now=0.0)
    assert run.status is RunStatus.FAILED
    assert run.error is not None and "err=22" in run.error


# --------------------------------------------------------------------------- text


def test_fio_333_text_with_both_directions_in_nanoseconds() -> None:
    parsed = parse(IMPORT / "fio333_randrw.txt")
    assert parsed.format is ImportFormat.FIO_TEXT and parsed.fio_version == "fio-3.33"
    read, write = parsed.summary["read"], parsed.summary["write"]
    assert read.bw_bytes == 599 * MIB and read.iops == 153_000
    assert read.lat_mean_ns == pytest.approx(2090.51)  # "lat (nsec): ... avg=2090.51"
    assert read.lat_p99_ns == 11840 and write.lat_p99_ns == 12352
    (job,) = parsed.jobs
    assert (job.rw, job.bs, job.ioengine) == ("randrw", "4k", "psync")


def test_text_jobs_in_two_groups() -> None:
    parsed = parse(IMPORT / "fio333_two_jobs.txt")
    assert [(j.name, j.rw, j.bs) for j in parsed.job_summaries] == [
        ("w1", "write", "64k"),
        ("r4k", "randread", "4k"),
    ]
    assert set(parsed.job_summaries[0].directions) == {"write"}
    assert parsed.runtime_s == pytest.approx(0.005 + 0.011)  # w1's group, then r4k's


def test_text_status_interval_reports_are_one_run_the_last_report_kept() -> None:
    (parsed,) = parse_fio_outputs((IMPORT / "fio333_status_interval.txt").read_bytes())
    assert parsed.notices == (ImportNotice.LAST_OF_SEVERAL,)
    read = parsed.summary["read"]
    assert read.bw_bytes == 3103 * MIB and read.iops == 794_000  # the fourth report's
    assert parsed.runtime_s == pytest.approx(3.003)
    assert [(j.name, j.rw, j.bs) for j in parsed.jobs] == [("statusint", "randread", "4k")]


def test_seed_000_full_report_in_msec() -> None:
    parsed = parse(DEMO / "raw-zfs-pool.txt")
    write = parsed.summary["write"]
    assert write.bw_bytes == 1240 * MIB and write.iops == 1240
    assert write.lat_mean_ns == pytest.approx(51596.52 * 1000)  # lat (usec) avg
    assert write.lat_p99_ns == 380 * 1_000_000  # percentiles (msec): 99.00th=[380]
    assert parsed.runtime_s == pytest.approx(60.017)
    assert parsed.notices == ()


def test_seed_000_values_with_k_suffix() -> None:
    # "slat (usec): min=10, max=1081.4k": the suffix must not stop the line being read
    parsed = parse(DEMO / "mergerfs-zfs-0.8.txt")
    assert parsed.summary["write"].lat_mean_ns == pytest.approx(171082.91 * 1000)


def test_seed_000_header_line_gives_the_job() -> None:
    (job,) = parse(DEMO / "slow-pool.txt").jobs
    assert (job.rw, job.bs, job.iodepth, job.ioengine) == ("write", "1M", 8, "libaio")
    assert job.numjobs == 8 and job.group_reporting  # "(groupid=0, jobs=8)"


def test_seed_000_pasted_command_line_gives_the_job_and_target() -> None:
    parsed = parse(DEMO / "mergerfs-zfs-2.1.txt")
    (job,) = parsed.jobs
    assert (job.rw, job.bs, job.numjobs, job.direct, job.size) == ("write", "1M", 8, True, "16Gb")
    assert parsed.target_path == "/mnt/cached/speed"


def test_seed_003_fio_3_8_text() -> None:
    parsed = parse(IMPORT / "seed003_fio38_write.txt")
    assert parsed.fio_version == "fio-3.8"
    assert parsed.summary["write"].lat_p99_ns == 123_000
    assert parsed.jobs[0].bs == "128k"


def test_group_status_line_alone_gives_bandwidth_and_runtime_and_says_so() -> None:
    parsed = parse(DEMO / "btrfs-raid1-mergerfs.txt")
    assert parsed.notices == (ImportNotice.GROUP_STATUS_ONLY,)
    write = parsed.summary["write"]
    assert write.bw_bytes == 296 * MIB
    assert write.iops is None and write.lat_mean_ns is None and write.lat_p99_ns is None
    assert parsed.runtime_s == pytest.approx(60.172)


def test_seed_002_script_of_four_fio_runs_gives_four_runs_one_job_each() -> None:
    # the script runs fio four times: four runs, not one adding unrelated groups up
    runs = parse_fio_outputs((IMPORT / "seed002_ext4_md3.txt").read_bytes())
    assert [[(j.name, j.rw, j.bs, list(j.directions)) for j in p.job_summaries] for p in runs] == [
        [("SEQUENTIAL WRITE", None, None, ["write"])],
        [("write_iops", "randwrite", "4k", ["write"])],
        [("read_throughput", "read", "1M", ["read"])],
        [("read_iops", "randread", "4k", ["read"])],
    ]
    assert runs[1].summary["write"].bw_bytes == 782 * MIB
    assert [p.runtime_s for p in runs] == [60.108, 60.001, 60.054, 60.001]


def test_seed_002_labelled_lines_alone_are_one_run_per_label() -> None:
    runs = parse_fio_outputs((IMPORT / "seed002_btrfs_four_tests.txt").read_bytes())
    assert [[(j.name, list(j.directions)) for j in p.job_summaries] for p in runs] == [
        [("SEQUENTIAL WRITE", ["write"])],
        [("RANDOM WRITE", ["write"])],
        [("SEQUENTIAL READ", ["read"])],
        [("RANDOM READ", ["read"])],
    ]
    assert runs[1].summary["write"].bw_bytes == 314 * MIB


def test_seed_000_snippet_cut_before_run_gives_bandwidth_without_runtime() -> None:
    snippet = (
        b"WRITE: bw=374MiB/s (392MB/s), 374MiB/s-374MiB/s (392MB/s-392MB/s), io=21.9GiB (23.6GB),\n"
    )
    parsed = parse_fio_output(snippet)  # seed 000, line 192, verbatim
    assert parsed.summary["write"].bw_bytes == 374 * MIB and parsed.runtime_s is None


def test_fio_3_1_text_bandwidth_is_io_over_runtime_not_its_truncated_figure() -> None:
    # "BW=11.0MiB/s (12.6MB/s)(4096MiB/341704msec)": fio 3.1 truncated 11.99 to 11.0
    parsed = parse(IMPORT / "fio31_dyu_write.txt")
    write = parsed.summary["write"]
    assert write.bw_bytes == round(4096 * MIB * 1000 / 341704)
    assert write.bw_bytes / MIB == pytest.approx(11.99, abs=0.005)
    assert write.bw_bytes == pytest.approx(3068 * 4096, rel=0.001)  # IOPS x bs agrees
    assert parsed.job_summaries[0].directions["write"].bw_bytes == write.bw_bytes


def test_fio_3_1_group_line_alone_gives_io_over_runtime_too() -> None:
    lines = (IMPORT / "fio31_dyu_write.txt").read_text().splitlines()
    start = lines.index("Run status group 0 (all jobs):")
    parsed = parse_fio_output("\n".join(lines[start : start + 2]).encode())
    assert parsed.notices == (ImportNotice.GROUP_STATUS_ONLY,)
    assert parsed.summary["write"].bw_bytes == round(4096 * MIB * 1000 / 341704)


def test_fio_3_x_text_keeps_the_binary_figure_when_it_is_the_most_precise() -> None:
    # "BW=1240MiB/s (1300MB/s)(72.7GiB/60017msec)": 4 digits against 3
    assert parse(DEMO / "raw-zfs-pool.txt").summary["write"].bw_bytes == 1240 * MIB


def test_fio_2_0_text_four_groups_in_kib_with_their_latency_units() -> None:
    parsed = parse(IMPORT / "fio208_cnm_four_groups.txt")
    assert parsed.format is ImportFormat.FIO_TEXT and parsed.fio_version == "fio-2.0.8"
    assert parsed.notices == ()
    jobs = {j.name: j for j in parsed.job_summaries}
    assert [(j.name, j.rw, j.bs) for j in parsed.job_summaries] == [
        ("seq-read", "read", "4k"),
        ("rand-read", "randread", "4k"),
        ("seq-write", "write", "4k"),
        ("rand-write", "randwrite", "4k"),
    ]
    seq = jobs["seq-read"].directions["read"]
    assert seq.bw_bytes == 316360 * 1024  # "bw=316360KB/s": fio 2.x's KB is KiB
    assert seq.iops == 79090  # "iops=79090 ,"
    assert seq.lat_mean_ns == pytest.approx(403.48 * 1000)  # "lat (usec): min=33 , ..."
    assert seq.lat_p99_ns == 1160 * 1000  # percentiles (usec): 99.00th=[ 1160]
    rand = jobs["rand-read"].directions["read"]
    assert rand.bw_bytes == round(4494.5 * 1024)
    assert rand.lat_p99_ns == 143 * 1_000_000  # percentiles (msec): 99.00th=[  143]
    assert rand.lat_mean_ns == pytest.approx(28474.46 * 1000)
    assert jobs["rand-write"].directions["write"].lat_mean_ns == pytest.approx(53102.23 * 1000)
    (job,) = [j for j in parsed.jobs if j.name == "seq-read"]
    assert (job.ioengine, job.iodepth) == ("libaio", 32)
    # four groups, one after the other: their runtimes add up, reads and writes
    assert parsed.runtime_s == pytest.approx(53.032 + 60.047 + 45.729 + 60.072)


def test_fio_2_1_text_pasted_with_the_prompt_and_fios_warning() -> None:
    parsed = parse(IMPORT / "fio219_dragonfly_randread.txt")
    assert parsed.fio_version == "fio-2.1.9" and parsed.notices == ()
    read = parsed.summary["read"]
    assert read.bw_bytes == 179628 * 1024 and read.iops == 44906
    assert read.lat_mean_ns == pytest.approx(21.39 * 1000) and read.lat_p99_ns == 28 * 1000
    (job,) = parsed.jobs
    assert (job.rw, job.bs, job.ioengine, job.iodepth) == ("randread", "4k", "sync", 1)
    assert parsed.runtime_s == pytest.approx(11.675)
    assert parsed.ended_at == time.mktime((2015, 9, 20, 11, 20, 29, 0, 0, -1))  # local time


def test_fio_2_x_text_issued_counts_replace_iops_times_runtime() -> None:
    found = parse(IMPORT / "fio208_cnm_four_groups.txt").fio_json
    totals = [
        (job["jobname"], job.get("read", job.get("write"))["total_ios"]) for job in found["jobs"]
    ]
    assert totals == [
        ("seq-read", 4194304), ("rand-read", 67469), ("seq-write", 4194304), ("rand-write", 36196)
    ]  # fmt: skip


def test_fio_2_x_group_lines_alone_give_bandwidth_in_kib_and_runtime() -> None:
    lines = (IMPORT / "fio208_cnm_four_groups.txt").read_text().splitlines()
    start = lines.index("Run status group 0 (all jobs):")
    parsed = parse_fio_output("\n".join(lines[start : start + 2]).encode())
    assert parsed.notices == (ImportNotice.GROUP_STATUS_ONLY,)
    assert parsed.summary["read"].bw_bytes == 316360 * 1024  # "aggrb=316360KB/s"
    assert parsed.runtime_s == pytest.approx(53.032)  # "maxt=53032msec"
    # "io=269876KB, aggrb=4494KB/s, ..., maxt=60047msec": io / maxt has more digits
    rand = parse_fio_output("\n".join(lines[start + 3 : start + 5]).encode())
    assert rand.summary["read"].bw_bytes == round(269876 * 1024 * 1000 / 60047)


def test_two_fio_runs_in_a_notes_file_are_two_runs_each_with_its_options() -> None:
    data = (IMPORT / "fio31_dyu_write_read_notes.txt").read_bytes()
    write, read = parse_fio_outputs(data)
    # each run's own "./fio ... --blocksize=4K" line gives its options, all stated
    assert [(j.name, j.rw, j.bs) for j in write.jobs] == [("myjob", "write", "4K")]
    assert [(j.name, j.rw, j.bs) for j in read.jobs] == [("myjob", "read", "4K")]
    assert all(j.direct and j.stated is None for j in (*write.jobs, *read.jobs))
    assert (write.jobs[0].size, read.jobs[0].size) == ("4G", None)
    assert set(write.summary) == {"write"} and set(read.summary) == {"read"}
    assert write.fio_version == read.fio_version == "fio-3.1"
    assert read.summary["read"].bw_bytes == round(3598 * MIB * 1000 / 300002)
    assert write.runtime_s == pytest.approx(341.704) and read.runtime_s == pytest.approx(300.002)
    with pytest.raises(ImportRefused) as caught:
        parse_fio_output(data)
    assert caught.value.kind is ImportRefusalKind.SEVERAL_RUNS


@pytest.mark.parametrize(
    "verror",
    [
        "file:io_u.c:1756, func=io_u error, offset=4096, length=4096, error=Input/output error",
        "file:filesetup.c:805, func=open(/mnt/pool/myjob.0.0), error=Input/output error",
    ],
)
def test_a_text_job_fio_reported_as_failed_is_a_failed_run(verror: str) -> None:
    # fio's job line of a failed job: 'err=%2d (%s): pid=%d: %s' with its verror, whose
    # func may hold parentheses; the failure must not be read as err=0 (an ok run)
    text = (IMPORT / "fio31_dyu_write.txt").read_text()
    ok_line = "myjob: (groupid=0, jobs=1): err= 0: pid=21461:"
    failed = text.replace(ok_line, f"myjob: (groupid=0, jobs=1): err= 5 ({verror}): pid=21461:")
    assert failed != text
    run = imported_run(failed.encode(), "eio.txt", now=0.0)
    assert run.status is RunStatus.FAILED
    assert [(j.name, j.error) for j in run.job_summaries] == [("myjob", 5)]
    parsed, ok = parse_fio_output(failed.encode()), parse_fio_output(text.encode())
    assert parsed.summary == ok.summary  # the figures it printed are kept
    assert parsed.ended_at == ok.ended_at is not None  # and its date after the pid


def test_a_failed_run_among_several_in_a_notes_file_is_failed_alone(tmp_path: Path) -> None:
    from tests.support.fio_notes import notes_with_a_failed_run

    first, second = imported_runs(notes_with_a_failed_run(tmp_path).read_bytes(), "n", now=0.0)
    assert (first.status, second.status) == (RunStatus.OK, RunStatus.FAILED)
    assert [j.error for j in second.job_summaries] == [5]


def test_several_runs_are_named_apart_and_only_the_first_holds_the_file_hash() -> None:
    data = (IMPORT / "fio31_dyu_write_read_notes.txt").read_bytes()
    first, second = imported_runs(data, "notes.txt", now=0.0)
    assert (first.name, second.name) == ("notes.txt (1 of 2)", "notes.txt (2 of 2)")
    assert first.imported is not None and second.imported is not None
    assert first.imported.content_hash == content_hash(data)
    assert second.imported.content_hash == content_hash(data) + "#2"


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"", ImportRefusalKind.EMPTY),
        (b"  \n\t\n", ImportRefusalKind.EMPTY),
        (b"hello world\n", ImportRefusalKind.NOT_FIO),
        (b'{"name": "not fio"}\n', ImportRefusalKind.NOT_FIO),
        (b'{\n  "fio version" : "fio-3.33",\n  "jobs" : [\n', ImportRefusalKind.TRUNCATED),
        (b'{\n  "fio version" : "fio-3.33",\n  "jobs" : 3\n}\n', ImportRefusalKind.BAD_REPORT),
        (
            b"fio-3.33\nStarting 1 process\n\nRun status group 0 (all jobs):\n",
            ImportRefusalKind.NO_RESULTS,
        ),
        (b"  WRITE: bw=" + b"9" * 400 + b"MiB/s\n", ImportRefusalKind.BAD_REPORT),
    ],
)
def test_refusals_have_a_kind_and_a_reason(data: bytes, kind: ImportRefusalKind) -> None:
    with pytest.raises(ImportRefused) as caught:
        parse_fio_output(data)
    assert caught.value.kind is kind
    assert caught.value.reason and "\n" not in caught.value.reason


def test_a_job_file_is_not_fio_output() -> None:
    with pytest.raises(ImportRefused) as caught:
        parse(FIO / "seed003_write_test.fio")
    assert caught.value.kind is ImportRefusalKind.NOT_FIO


def test_binary_data_in_a_notes_file_is_refused_before_it_is_split_into_runs() -> None:
    notes = (IMPORT / "fio31_dyu_write_read_notes.txt").read_bytes()
    cut = notes.index(b"*reads*")
    with pytest.raises(ImportRefused) as caught:
        parse_fio_outputs(notes[:cut] + bytes(range(256)) * 4 + notes[cut:])
    assert caught.value.kind is ImportRefusalKind.BINARY
