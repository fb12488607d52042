"""What an imported file says about its jobs: a pasted command line in any of the ways
people run fio, options nobody stated (unknown, never fio's default), and options
tierdeck cannot read (left out by name, the job kept)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.app.compare.render import note_lines, to_json
from tierdeck.app.history.run_json import result_to_json
from tierdeck.app.history.store import HistoryStore
from tierdeck.backends.fio.import_json import JSON_UNLISTED
from tierdeck.backends.fio.import_specs import JobOptions, imported_jobs
from tierdeck.backends.fio.imports import imported_run, jobs_of_command, parse_fio_output
from tierdeck.core.bench_models import WarningKind
from tierdeck.core.compare.comparison import DifferenceKind, compare_runs
from tierdeck.core.imports import ImportRefusalKind, ImportRefused, UnreadOption

from ....paths import FIXTURES

IMPORT = FIXTURES / "fio_import"
# fio 3.33's text report after the command that made it, "$ fio --name=seqwrite ...
# --direct=1 ..." (README.md there)
TRANSCRIPT = (IMPORT / "fio333_direct_transcript.txt").read_text()
COMMAND, REPORT = TRANSCRIPT.split("\n", 1)


def pasted(prefix: str) -> bytes:
    """The report under its command run another way ("sudo fio", "./fio")."""
    return (COMMAND.replace("$ fio", prefix, 1) + "\n" + REPORT).encode()


@pytest.mark.parametrize(
    "prefix",
    ["sudo fio", "./fio", "/usr/bin/fio", "$ sudo fio", "root@nas:~# sudo -E /usr/local/bin/fio"],
)
def test_a_command_run_through_sudo_or_a_path_gives_the_options(prefix: str) -> None:
    (job,) = parse_fio_output(pasted(prefix)).jobs
    assert job.direct is True and job.size == "16M" and job.stated is None
    assert jobs_of_command(f"{prefix} --name=x --rw=read --direct=1")[0].direct is True


def test_options_the_report_alone_does_not_state_are_unknown() -> None:
    (job,) = parse_fio_output(REPORT.encode()).jobs  # fio's (g=0) line, no command
    assert job.stated == {"rw", "bs", "ioengine", "iodepth"}
    assert not job.states("direct") and job.states("bs")
    run = imported_run(REPORT.encode(), "report.txt", now=0.0)
    (spec,) = result_to_json(run)["spec"]["jobs"]
    assert spec["direct"] is None and spec["size"] is None and spec["runtime"] is None
    assert spec["rw"] == "write" and spec["bs"] == "1M"
    assert (
        "unknown (not in the imported file, or not readable): direct,"
        in (result_to_json(run)["spec"]["jobfile"])
    )


def test_unknown_is_not_compared_as_a_difference() -> None:
    with_command = imported_run(pasted("sudo fio"), "a.txt", now=0.0)
    alone = imported_run(REPORT.encode(), "b.txt", now=0.0)
    buffered = imported_run(pasted("fio").replace(b"--direct=1", b"--direct=0"), "c.txt", now=0.0)
    comparison = compare_runs([with_command, alone])
    assert [d.key for d in comparison.differences if d.kind is DifferenceKind.JOB] == []
    # a third run that did say direct=0 differs from the one that said 1, not from "?"
    three = compare_runs([with_command, alone, buffered])
    assert [(d.key, d.values) for d in three.differences if d.kind is DifferenceKind.JOB] == [
        ("job[seqwrite].direct", ("1", None, "0"))
    ]
    (direct,) = [d for d in three.differences if d.kind is DifferenceKind.JOB]
    assert direct.shown() == ("1", "?", "0")  # unknown, not "not set"
    as_json = [d for d in to_json(three)["differences"] if d["key"].endswith(".direct")]
    assert as_json[0]["values"] == ["1", None, "0"]
    assert as_json[0]["unknown"] == [False, True, False]


def test_a_run_with_unknown_options_is_not_called_comparable() -> None:
    with_command = imported_run(pasted("sudo fio"), "a.txt", now=0.0)
    alone = imported_run(REPORT.encode(), "b.txt", now=0.0)
    comparison = compare_runs([replace(with_command, id=1), replace(alone, id=2)])
    assert not comparison.comparable
    unknown = "end_fsync, fdatasync, filename, fsync, group_reporting, numjobs, rate, runtime"
    assert note_lines(comparison) == [
        f"#2 b.txt: its file does not state direct, {unknown}, size, stonewall, time_based:"
        " not compared"
    ]
    runs = to_json(comparison)["runs"]
    assert runs[0]["unknown_options"] == [] and "direct" in runs[1]["unknown_options"]


def test_the_stored_run_keeps_what_is_unknown(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "history.sqlite3")
    run = imported_run(REPORT.encode(), "report.txt", now=0.0)
    loaded = store.get(store.save(run))
    assert loaded is not None and loaded.jobs == run.jobs
    assert result_to_json(loaded)["spec"]["jobs"][0]["direct"] is None


def test_a_json_plus_job_named_after_a_path_keeps_its_options() -> None:
    # fio 3.33: --name=/dev/shm/tdpath --size=16Mi --runtime=500ms (README.md there)
    data = (IMPORT / "fio333_path_name_jsonplus.json").read_bytes()
    parsed = parse_fio_output(data)
    (job,) = parsed.jobs
    assert (job.name, job.rw, job.bs, job.size) == ("dev_shm_tdpath", "write", "64k", "16Mi")
    assert parsed.unread == (
        UnreadOption("/dev/shm/tdpath", "name", "/dev/shm/tdpath", renamed_to="dev_shm_tdpath"),
        UnreadOption("/dev/shm/tdpath", "runtime", "500ms"),
    )
    assert not job.states("runtime") and job.states("direct")  # JSON: the rest is known
    assert parsed.job_summaries[0].name == "/dev/shm/tdpath"  # fio's figures, fio's name
    assert parsed.job_summaries[0].rw == "write"
    assert parsed.target_path == "/dev/shm"  # fio wrote /dev/shm/tdpath.0.0
    run = imported_run(data, "path.json", now=0.0)
    assert [(w.kind, w.text) for w in run.warnings] == [
        (WarningKind.IMPORT_OPTIONS, "job '/dev/shm/tdpath' kept as 'dev_shm_tdpath'"
         " (not usable as a job name)"),
        (WarningKind.IMPORT_OPTIONS,
         "kept job '/dev/shm/tdpath'; fio option runtime=500ms not understood"),
    ]  # fmt: skip


def test_an_option_that_needs_a_later_one_is_kept() -> None:
    read = imported_jobs(
        [JobOptions("j", {"time_based": None, "rw": "write", "bs": "oops", "runtime": "30"}, True)]
    )
    (job,) = read.jobs
    assert job.time_based and job.runtime == 30 and job.bs == "4k"
    assert read.unread == (UnreadOption("j", "bs", "oops"),)
    assert not job.states("bs")


def test_a_superscript_digit_is_not_a_number() -> None:
    # "²".isdigit() is True but int("²") raises: the option is left out, named, not a crash
    read = imported_jobs([JobOptions("j", {"iodepth": "²", "rw": "write"}, True)])
    (job,) = read.jobs
    assert job.rw == "write" and not job.states("iodepth")
    assert [str(u) for u in read.unread] == ["kept job 'j'; fio option iodepth=² not understood"]


def test_a_histogram_bin_of_superscript_digits_is_a_bad_report() -> None:
    doc = json.loads((IMPORT / "fio333_randrw_jsonplus.json").read_text())
    bins = doc["jobs"][0]["read"]["clat_ns"]["bins"]
    bins["²"] = bins.pop(next(iter(bins)))
    with pytest.raises(ImportRefused) as caught:
        parse_fio_output(json.dumps(doc).encode())
    assert caught.value.kind is ImportRefusalKind.BAD_REPORT


def test_a_bare_flag_fio_json_leaves_out_is_unknown_not_off() -> None:
    # fio 3.33 lists --time_based, --group_reporting, --stonewall nowhere (README.md there)
    data = (IMPORT / "fio333_bare_flags.json").read_bytes()
    (job,) = parse_fio_output(data).jobs
    for flag in ("time_based", "stonewall"):
        assert not job.states(flag), flag
    assert job.states("runtime") and job.states("end_fsync") and job.states("direct")
    assert job.group_reporting  # numjobs=2 reported as one entry: see below
    (spec,) = result_to_json(imported_run(data, "flags.json", now=0.0))["spec"]["jobs"]
    assert spec["time_based"] is None and spec["stonewall"] is None
    assert spec["runtime"] == 1 and spec["direct"] is False


def test_a_flag_fio_json_lists_is_known() -> None:
    entry = JobOptions("j", {"rw": "write", "time_based": "1", "runtime": "5"}, True, JSON_UNLISTED)
    (job,) = imported_jobs([entry]).jobs
    assert job.time_based and job.states("time_based") and not job.states("stonewall")


def test_what_fio_s_own_line_says_fills_what_the_command_left_out() -> None:
    # a real transcript whose command names no ioengine; fio's line says psync
    data = (IMPORT / "fio333_engine_unsaid_transcript.txt").read_bytes()
    (job,) = parse_fio_output(data).jobs
    assert job.ioengine == "psync" and job.iodepth == 1
    assert job.direct is True and job.time_based and job.runtime == 1  # the command's own


@pytest.mark.parametrize(
    ("fixture", "grouped"),
    [("fio333_seqwrite_group.json", True), ("fio333_clones_apart.json", False)],
)
def test_group_reporting_reads_from_how_fio_reported_the_clones(
    fixture: str, grouped: bool
) -> None:
    # numjobs=2: one entry for both clones only under --group_reporting (README.md there)
    (job,) = parse_fio_output((IMPORT / fixture).read_bytes()).jobs
    assert job.states("group_reporting") and job.group_reporting is grouped
    assert not job.states("time_based")  # nothing shows a bare --time_based
