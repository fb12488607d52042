"""fio JSON: splitting the live stream, parsing every fio generation, per-second samples.

Every number asserted below is read off the recorded outputs in tests/fixtures/fio
(see SOURCES.md there): real fio 3.33 runs, plus public fio 3.1 and 2.2.10 output.
"""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tierdeck.backends.fio.histograms import merge_bins, percentile_from_bins, subtract_bins
from tierdeck.backends.fio.json_documents import JsonDocumentSplitter, split_documents
from tierdeck.backends.fio.sampling import IntervalSampler
from tierdeck.backends.fio.stream import STREAM_ARGS, parse_report
from tierdeck.core.errors import ParseError
from tierdeck.core.fio_models import Direction, FioError, FioReport, Sample

from ....paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "fio"
MiB = 1024 * 1024


def text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def reports(name: str) -> list[FioReport]:
    docs, messages = split_documents(text(name))
    assert messages == []
    return [parse_report(doc) for doc in docs]


def samples(name: str) -> list[Sample]:
    sampler = IntervalSampler()
    out = [sampler.add(report) for report in reports(name)]
    return [s for s in out if s is not None]


# --------------------------------------------------------------------------- splitting

STREAMS = [
    "fio333_status_randrw.json",
    "fio333_status_ramp.json",
    "fio333_status_group.json",
    "fio333_status_stonewall.json",
    "fio333_status_jsonplus_randread.json",
    "fio333_odirect_ramfs.stdout",
]


def test_splitter_finds_every_status_document() -> None:
    docs, _ = split_documents(text("fio333_status_stonewall.json"))
    assert len(docs) == 7
    assert all(json.loads(d)["fio version"] == "fio-3.33" for d in docs)
    assert [json.loads(d)["timestamp_ms"] for d in docs][-1] == 1795311569019


def test_splitter_keeps_fio_error_line_apart_from_json() -> None:
    splitter = JsonDocumentSplitter()
    docs = splitter.feed(text("fio333_odirect_ramfs.stdout"))
    assert splitter.close() == ""
    assert len(docs) == 1
    assert json.loads(docs[0])["jobs"][0]["error"] == 22
    assert splitter.messages == [
        "fio: pid=10255, err=22/file:filesetup.c:805, "
        "func=open(/tmp/tdfio/ramfs/od.bin), error=Invalid argument"
    ]


def test_splitter_ignores_braces_inside_strings_and_escapes() -> None:
    doc = '{\n  "jobname" : "we}ird\\"{name",\n  "x" : {"y" : "\\\\"}\n}'
    splitter = JsonDocumentSplitter()
    out = [d for ch in doc + "\nfio: done\n" for d in splitter.feed(ch)]
    assert out == [doc]
    assert json.loads(out[0])["jobname"] == 'we}ird"{name'
    assert splitter.messages == ["fio: done"]


def test_splitter_decodes_utf8_split_across_reads() -> None:
    raw = '{"jobname" : "caf\u00e9"}\n'.encode()
    splitter = JsonDocumentSplitter()
    docs = [d for i in range(len(raw)) for d in splitter.feed_bytes(raw[i : i + 1])]
    assert json.loads(docs[0])["jobname"] == "café"


def test_unfinished_document_is_returned_by_close() -> None:
    splitter = JsonDocumentSplitter()
    assert splitter.feed('{\n  "fio version" : "fio-3.33",\n  "jobs" : [') == []
    assert splitter.in_document
    assert splitter.close().startswith('{\n  "fio version"')


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(STREAMS))
def test_random_chunking_gives_identical_documents(data: st.DataObject, name: str) -> None:
    whole = text(name)
    expected_docs, expected_messages = split_documents(whole)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(whole)), max_size=40)))
    splitter = JsonDocumentSplitter()
    docs: list[str] = []
    for start, end in zip([0, *cuts], [*cuts, len(whole)], strict=True):
        docs += splitter.feed(whole[start:end])
    assert splitter.close() == ""
    assert docs == expected_docs
    assert splitter.messages == expected_messages


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet='{}[]"\\: \nfio0,a', max_size=30), max_size=20))
def test_garbage_never_crashes_the_splitter_or_parser(chunks: list[str]) -> None:
    splitter = JsonDocumentSplitter()
    for chunk in chunks:
        for doc in splitter.feed(chunk):
            with contextlib.suppress(ParseError):
                parse_report(doc)
    splitter.close()


# --------------------------------------------------------------------------- parsing


def test_fio333_two_jobs_are_summed() -> None:
    [report] = reports("fio333_randrw_2jobs.json")
    assert report.fio_version == "fio-3.33"
    assert report.version_tuple == (3, 33)
    assert report.timestamp_ms == 1795311550457
    assert [j.name for j in report.jobs] == ["mixed", "mixed"]
    first = report.jobs[0]
    assert first.read.io_bytes == 11567104
    assert first.read.total_ios == 2824
    assert first.read.bw_bytes == 1156710400
    assert first.read.lat_mean_ns == 1213.013456
    assert first.read.lat_p99_ns == 6432
    assert first.job_runtime_ms == 9
    assert report.read.io_bytes == 11567104 + 11620352
    assert report.read.total_ios == 2824 + 2837
    assert report.read.runtime_ms == 10  # parallel jobs: the longest
    assert report.read.bw_bytes == 1000 * (11567104 + 11620352) // 10
    assert report.read.lat_mean_ns == pytest.approx(
        (1213.013456 * 2824 + 2216.342615 * 2837) / (2824 + 2837)
    )
    assert report.read.lat_p99_ns is None  # two jobs, no histograms: not combinable
    assert report.write.io_bytes == 5210112 + 5156864
    assert report.trim.io_bytes == 0 and not report.trim.has_io
    assert report.failed_jobs == ()


def test_stonewalled_groups_add_their_durations() -> None:
    final = reports("fio333_status_stonewall.json")[-1]
    assert [(j.name, j.groupid, j.write.runtime_ms) for j in final.jobs] == [
        ("limited", 0, 3001),
        ("unlimited", 1, 3001),
    ]  # stonewall started a new group
    assert final.write.io_bytes == 62914560 + 18745327616
    assert final.write.runtime_ms == 6002  # one after the other, not side by side
    assert final.write.bw_bytes == 1000 * (62914560 + 18745327616) // 6002


def test_fio333_group_reporting_matches_fio_own_totals() -> None:
    [report] = reports("fio333_seqwrite_group.json")
    [job] = report.jobs
    assert job.name == "fiotest"
    assert job.options is not None and job.options["numjobs"] == "8"
    assert report.write.io_bytes == 2147483648
    assert report.write.total_ios == 2048
    assert report.write.bw_bytes == 4569114144 == job.write.bw_bytes
    assert report.write.runtime_ms == 470
    assert report.write.lat_mean_ns == 13494686.269043
    assert report.write.lat_p99_ns == 52690944
    assert not report.read.has_io


def test_fio333_jsonplus_bins_reproduce_fio_percentiles() -> None:
    [report] = reports("fio333_jsonplus_randread.json")
    read = report.read
    assert read.total_ios == 4096
    assert len(read.bins) == 128
    assert sum(count for _, count in read.bins) == 4096
    assert read.lat_p99_ns == 9024
    assert percentile_from_bins(read.bins, 99.0) == 9024
    assert read.bins[0] == (948, 1) and read.bins[-1] == (75264, 1)


def test_fio31_has_no_bw_bytes_so_it_is_derived() -> None:
    [report] = reports("fio31_gvisor_sample.json")
    assert report.fio_version == "fio-3.1"
    [job] = report.jobs
    assert job.job_runtime_ms is None
    write = report.write
    assert write.io_bytes == 1073741824
    assert write.total_ios == 262144
    assert write.runtime_ms == 598
    assert write.bw_bytes == 1000 * 1073741824 // 598 == 1795554889  # bw=1753471 KiB/s
    assert write.iops == 438367.892977
    assert write.lat_mean_ns == 2117.878979
    assert write.lat_count == 262144  # no "N" in 3.1: every I/O counted
    assert write.lat_p99_ns == 6176  # despite the duplicate "0.00" percentile keys
    assert report.timestamp_ms == 1554837456621


def test_fio2_kib_and_microseconds_become_bytes_and_nanoseconds() -> None:
    [report] = reports("fio2210_powersj_perfkit.json")
    assert report.version_tuple == (2, 2, 10)
    assert report.timestamp == 1510963172 and report.timestamp_ms is None
    write = report.write
    assert write.io_bytes == 37500272 * 1024
    assert write.total_ios == 9374944
    assert write.runtime_ms == 600008
    assert write.bw_bytes == 1000 * 37500272 * 1024 // 600008
    assert write.bw_bytes // 1024 == 62499  # fio's own "bw" in KiB/s
    assert write.iops == 15624.70
    assert write.lat_mean_ns == pytest.approx(8182260.0)
    assert write.lat_p99_ns == 8640000
    assert not report.read.has_io


def test_failed_job_becomes_fio_error_with_its_reason() -> None:
    docs, messages = split_documents(text("fio333_odirect_ramfs.stdout"))
    report = parse_report(docs[0])
    assert [(j.name, j.error) for j in report.failed_jobs] == [("odirect", 22)]
    stderr = text("fio333_odirect_ramfs.stderr").splitlines()
    error = FioError.from_report(report, messages + stderr)
    assert error.jobs == (("odirect", 22),)
    assert str(error) == (
        "fio job failed: odirect (err=22: Invalid argument); "
        "fio: destination does not support O_DIRECT"
    )


@pytest.mark.parametrize(
    "doc",
    [
        "",
        "not json",
        "[]",
        '{"jobs": []}',
        '{"fio version": "fio-3.33"}',
        '{"fio version": "fio-3.33", "jobs": [1]}',
        '{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "read": []}]}',
        '{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "read": {"io_bytes": "x"}}]}',
        '{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "read": {"runtime": 1}}]}',
        '{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "error": 1.5}]}',
    ],
)
def test_garbage_documents_raise_parse_error(doc: str) -> None:
    with pytest.raises(ParseError):
        parse_report(doc)


def _json_values() -> st.SearchStrategy[object]:
    scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
        ),
        max_leaves=8,
    )


def _paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += _paths(child, (*prefix, index))
    return out


_REAL = json.loads(text("fio333_jsonplus_randread.json"))
_REAL_PATHS = _paths(_REAL)[1:]


@settings(max_examples=300, deadline=None)
@given(path=st.sampled_from(_REAL_PATHS), value=_json_values())
def test_mutated_real_report_parses_or_raises_parse_error(
    path: tuple[object, ...], value: object
) -> None:
    doc = json.loads(json.dumps(_REAL))
    target = doc
    for key in path[:-1]:
        target = target[key]  # type: ignore[index]
    target[path[-1]] = value  # type: ignore[index]
    with contextlib.suppress(ParseError):
        parse_report(doc)


# --------------------------------------------------------------------------- sampling


def test_status_stream_gives_per_interval_rates_not_averages() -> None:
    got = samples("fio333_status_randrw.json")
    assert len(got) == 5
    first, second, last = got[0], got[1], got[-1]
    # first interval: I/O began job_runtime (703 ms) before the first document
    assert first.t == pytest.approx(0.703) and first.interval_s == pytest.approx(0.703)
    assert first.read.bw_bytes_per_s == pytest.approx(29495296 / 0.703)
    assert first.read.lat_mean_ns == pytest.approx(3263.960011)
    # later intervals: deltas between documents, timed by timestamp_ms
    assert second.interval_s == pytest.approx(1.001)
    assert second.read.bw_bytes_per_s == pytest.approx((71454720 - 29495296) / 1.001)
    assert second.write.iops == pytest.approx((8724 - 3601) / 1.001)
    assert second.read.lat_mean_ns == pytest.approx(
        (3209.827191 * 17447 - 3263.960011 * 7202) / (17447 - 7202)
    )
    assert second.read.lat_p99_ns is None  # plain json: no histogram
    assert last.t == pytest.approx(4.014)  # the final report closes the run
    for sample in got[:4]:  # rate=40m,20m: fio held both caps every second
        assert sample.read.bw_bytes_per_s / MiB == pytest.approx(40, rel=0.01)
        assert sample.write.bw_bytes_per_s / MiB == pytest.approx(20, rel=0.01)
        assert sample.active_jobs == ("stream",)


def test_stonewall_shows_a_step_not_a_ramp() -> None:
    got = samples("fio333_status_stonewall.json")
    write_mib = [s.write.bw_bytes_per_s / MiB for s in got]
    assert [s.active_jobs for s in got] == [
        ("limited",), ("limited",), ("limited",),
        ("limited", "unlimited"),
        ("unlimited",), ("unlimited",), ("unlimited",),
    ]  # fmt: skip
    # the unstarted job's bogus job_runtime (587337) must not stretch the first interval
    assert got[0].interval_s == pytest.approx(0.750)
    assert got[0].write.bw_bytes_per_s == pytest.approx(15794176 / 0.750)
    for mib in write_mib[:3]:  # rate=20m
        assert mib == pytest.approx(20, rel=0.01)
    assert got[3].write.bw_bytes_per_s == pytest.approx((62914560 - 57737216 + 3122397184) / 0.998)
    assert min(write_mib[4:]) > 100 * 20  # the unlimited job alone: a step up
    assert got[4].write.bw_bytes_per_s == pytest.approx((9585623040 - 3122397184) / 1.000)
    assert got[4].write.lat_mean_ns == pytest.approx(
        (10331.621814 * 146272 - 11144.463439 * 47687) / (146272 - 47687)
    )


def test_group_reporting_stream_is_timed_by_runtime_not_summed_job_runtime() -> None:
    docs = reports("fio333_status_group.json")
    assert docs[0].jobs[0].job_runtime_ms == 3287  # 4 jobs x ~825 ms, summed by fio
    got = samples("fio333_status_group.json")
    assert got[0].interval_s == pytest.approx(0.825)
    assert got[0].write.bw_bytes_per_s == pytest.approx(37748736 / 0.825)
    assert got[1].write.bw_bytes_per_s / MiB == pytest.approx(40.0)  # rate=10m x 4 jobs
    assert got[1].write.lat_mean_ns == pytest.approx((231019.8375 * 80 - 225461.15 * 40) / 40)


def test_jsonplus_stream_gives_p99_per_interval() -> None:
    got = samples("fio333_status_jsonplus_randread.json")
    docs = reports("fio333_status_jsonplus_randread.json")
    # the first interval's histogram is the cumulative one: fio's own p99
    assert got[0].read.lat_p99_ns == docs[0].read.lat_p99_ns == 18048
    delta = subtract_bins(docs[1].read.bins, docs[0].read.bins)
    assert delta is not None and sum(c for _, c in delta) == 12524 - 4847
    assert got[1].read.lat_p99_ns == percentile_from_bins(delta, 99.0) == 17280
    assert [s.read.lat_p99_ns for s in got] == [18048, 17280, 14400, 4576]
    assert all(s.read.bw_bytes_per_s / MiB == pytest.approx(30, rel=0.05) for s in got[:3])


def test_ramp_time_reset_restarts_the_delta_and_final_repeat_is_skipped() -> None:
    docs = reports("fio333_status_ramp.json")
    assert docs[2].read.io_bytes < docs[1].read.io_bytes  # fio reset after ramp_time
    got = samples("fio333_status_ramp.json")
    # 6 documents, the last one a repeat 15 ms after the fifth: 5 samples, no 0 MiB/s dip
    assert len(got) == 5
    assert got[0].read.lat_mean_ns is None  # fio records no latency during the ramp
    assert got[1].read.bw_bytes_per_s == pytest.approx((55353344 - 23928832) / 0.999)
    after = got[2]  # counted from zero again, not from the pre-reset total
    assert after.interval_s == pytest.approx(1.240)
    assert after.read.bw_bytes_per_s == pytest.approx(31440896 / 1.240)
    assert after.read.lat_mean_ns == pytest.approx(3050.372184)
    assert got[3].read.bw_bytes_per_s / MiB == pytest.approx(30, rel=0.01)


def test_first_report_without_io_gives_no_sample() -> None:
    docs, _ = split_documents(text("fio333_odirect_ramfs.stdout"))
    assert IntervalSampler().add(parse_report(docs[0])) is None


def test_bins_helpers() -> None:
    assert merge_bins([((1, 2), (5, 1)), ((5, 3),)]) == ((1, 2), (5, 4))
    assert subtract_bins(((1, 2), (5, 4)), ((1, 2), (5, 1))) == ((5, 3),)
    assert subtract_bins(((1, 1),), ((1, 2),)) is None
    assert percentile_from_bins((), 99.0) is None
    assert percentile_from_bins(((10, 99), (20, 1)), 99.0) == 10
    assert percentile_from_bins(((10, 98), (20, 2)), 99.0) == 20


_POOL = reports("fio333_status_randrw.json") + reports("fio333_status_stonewall.json")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(range(len(_POOL))), max_size=15))
def test_sampler_survives_any_order_of_real_reports(order: list[int]) -> None:
    sampler = IntervalSampler()
    for index in order:
        sample = sampler.add(_POOL[index])
        if sample is not None:
            for direction in Direction:
                part = sample.direction(direction)
                assert part.bw_bytes_per_s >= 0 and part.iops >= 0
                assert part.lat_mean_ns is None or part.lat_mean_ns >= 0


def test_stream_args_ask_for_histograms() -> None:
    assert STREAM_ARGS == ("--output-format=json+", "--status-interval=1", "--eta=never")
