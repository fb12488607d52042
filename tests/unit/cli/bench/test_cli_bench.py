"""``tierdeck bench`` through click's CliRunner.

``bench run`` is driven with a stand-in engine (the service's plan_run / run_benchmark) that
replays a recorded fio run, so these tests check the CLI's own job: options handed on,
exit statuses, JSON on stdout only, saving, refusal messages, raw-mode confirmation,
cancel on SIGINT. The real engine runs in tests/integration/test_cli_bench.py; history
commands are in test_cli_history.py, pipes and terminals in test_cli_pipes.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
import pytest
from tierdeck.app.bench import events as ev
from tierdeck.app.cli.bench import run as cli_bench
from tierdeck.app.history.store import HistoryStore
from tierdeck.backends.fio.jobfile import parse_jobfile
from tierdeck.core.bench_models import (
    BenchRefused,
    DirectionSummary,
    JobSummary,
    RefusalKind,
    RunRequest,
    RunResult,
    RunStatus,
    RunWarning,
    WarningKind,
)
from tierdeck.core.models import Disk, DiskKind, Inventory, ZfsInfo
from tierdeck.core.presets import PRESETS, preset

from tests.unit.cli_support import run
from tests.unit.history.test_history import recorded_result

# Every test keeps its history in its own folder (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("data_dir")

# ------------------------------------------------------------------ presets


def test_presets_text_shows_source_and_exact_parameters() -> None:
    result = run("bench", "presets")
    assert result.exit_code == 0
    for p in PRESETS:
        assert f"{p.name}: {p.title}" in result.stdout
        assert f"  source: {p.source}" in result.stdout
    # seed 000's fio command, option by option
    block = result.stdout.split("nas-seqwrite-1m-qd8x8:")[1].split("suite-seq1m-rand4k-qd64:")[0]
    assert "  formerly: seed000-seqwrite (still accepted)\n" in block
    for line in ("[fiotest]", "rw=write", "bs=1M", "ioengine=libaio", "iodepth=8",
                 "numjobs=8", "direct=1", "runtime=60", "group_reporting"):  # fmt: skip
        assert f"\n    {line}\n" in block


def test_presets_json() -> None:
    result = run("bench", "presets", "--json")
    doc = json.loads(result.stdout)
    assert doc["schema"] == "tierdeck.presets/1"
    assert [p["name"] for p in doc["presets"]] == [p.name for p in PRESETS]
    seed001 = next(p for p in doc["presets"] if p["name"] == "uncached-randread-16k-sync")
    assert seed001["aliases"] == ["seed001-uncached-randread"]
    assert seed001["jobfile"] == preset("seed001-uncached-randread").to_jobfile()
    assert (seed001["lay_out_first"], seed001["drop_caches"]) == (True, True)
    assert seed001["jobs"][0]["ioengine"] == "sync"
    assert seed001["jobs"][0]["bs"] == "16K"


def test_presets_save_writes_a_job_file_that_parses_back(tmp_path: Path) -> None:
    path = tmp_path / "suite.fio"
    result = run("bench", "presets", "--save", "seed002-suite", str(path))
    assert result.exit_code == 0, result.output
    jobs = parse_jobfile(path.read_text())
    assert tuple(jobs) == preset("seed002-suite").jobs
    assert path.read_text().startswith("; tierdeck ")


def test_presets_save_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    path = tmp_path / "mine.fio"
    path.write_text("[mine]\nrw=read\n")
    result = run("bench", "presets", "--save", "seed000-seqwrite", str(path))
    assert result.exit_code == 1
    assert "exists; add --force" in result.stderr
    assert path.read_text() == "[mine]\nrw=read\n"
    assert (
        run("bench", "presets", "--save", "seed000-seqwrite", str(path), "--force").exit_code == 0
    )
    assert parse_jobfile(path.read_text())[0].name == "fiotest"


def test_presets_save_unknown_preset_lists_the_names(tmp_path: Path) -> None:
    result = run("bench", "presets", "--save", "nope", str(tmp_path / "x.fio"))
    assert result.exit_code == 2
    assert "no preset 'nope'" in result.stderr and "dd-1m-and-512b-sync" in result.stderr
    assert not (tmp_path / "x.fio").exists()


# ------------------------------------------------------------------ bench run (stand-in engine)


RAW_DEVICE = "loop9"

LOOP9 = Disk(
    name=RAW_DEVICE,
    path=f"/dev/{RAW_DEVICE}",
    major_minor="7:9",
    kind=DiskKind.VIRTUAL,
    size_bytes=64 << 20,
    rotational=False,
    model="Loopback device",
)
INVENTORY = Inventory(
    hostname="nas", disks=(LOOP9,), mounts=(), mergerfs=(), zfs=ZfsInfo(False), btrfs=(), md=()
)


class FakeEngine:
    """Records what plan_run got; run_benchmark replays ``result`` with events.

    A /dev/ target behaves like plan_run's raw rules: refused until the name of
    RAW_DEVICE is given as raw_confirm."""

    def __init__(self, result: RunResult) -> None:
        self.result = result
        self.plan_kwargs: dict[str, Any] = {}
        self.plan_args: tuple[Any, ...] = ()
        self.plan_calls = 0
        self.refuse: BenchRefused | None = None
        self.refuse_run: BenchRefused | None = None
        self.repeat_warnings = True  # the real runner repeats request.warnings as notices
        self.during_run: Callable[[], None] | None = None

    def plan_run(self, host: Any, inv: Any, target: str, jobs: Any, **kw: Any) -> RunRequest:
        self.plan_args = (target, tuple(jobs))
        self.plan_kwargs = kw
        self.plan_calls += 1
        if self.refuse:
            raise self.refuse
        if target.startswith("/dev/"):
            assert inv is INVENTORY
            confirm = kw.get("raw_confirm")
            if confirm is None:
                raise BenchRefused(
                    f"{target} is a block device: ... typed to confirm.",
                    kind=RefusalKind.RAW_CONFIRMATION,
                )
            if confirm != RAW_DEVICE:
                raise BenchRefused(f"raw mode: the confirmation {confirm!r} does not match")
        return RunRequest(
            target=self.result.target,
            jobs=tuple(jobs),
            name=kw.get("name") or "planned",
            preset=kw.get("preset"),
            warnings=(
                RunWarning(WarningKind.BUFFERED, "direct=0: the page cache may inflate results"),
            ),
        )

    async def run_benchmark(
        self,
        host: Any,
        inventory: Any,
        request: RunRequest,
        on_event: Any,
        cancel: asyncio.Event | None = None,
    ) -> RunResult:
        if self.refuse_run:
            raise self.refuse_run
        on_event(ev.RunStarted(request, ("fio", "--name=fiotest")))
        if self.repeat_warnings:
            for warning in request.warnings:
                on_event(ev.Notice(warning.text, warning.kind))
        on_event(ev.Notice("laying out files"))
        on_event(ev.Progress(0.5, 2.0, ev.RunPhase.MEASURING))
        for sample in self.result.series:
            on_event(ev.SampleReady(sample))
        on_event(ev.DevicesReady(self.result.device_series[:2]))
        if self.during_run is not None:
            self.during_run()
            assert cancel is not None
            await asyncio.wait_for(cancel.wait(), 5)
            self.result = replace(self.result, status=RunStatus.CANCELLED)
        result = replace(self.result, name=request.name)
        on_event(ev.RunEnded(result))
        return result


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> FakeEngine:
    from tierdeck.app.bench import service as bench_service

    fake = FakeEngine(recorded_result(tags=()))
    # The service's steps: what it plans and runs with, stands in for the engine.
    monkeypatch.setattr(bench_service, "plan_run", fake.plan_run)
    monkeypatch.setattr(bench_service, "run_benchmark", fake.run_benchmark)
    monkeypatch.setattr("tierdeck.app.machine.inventory.collect_inventory", lambda host: INVENTORY)
    return fake


def test_run_json_prints_one_object_and_saves_it(engine: FakeEngine, data_dir: Path) -> None:
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/srv/x/",
                 "--size", "32M", "--runtime", "2", "--direct", "0", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert (doc["schema"], doc["id"], doc["status"]) == ("tierdeck.run/1", 1, "ok")
    assert len(doc["series"]) == 5
    assert engine.plan_args == ("/srv/x", preset("seed000-seqwrite").jobs)
    assert engine.plan_kwargs == {
        "preset": "nas-seqwrite-1m-qd8x8",  # a former name stores the preset's name
        "size": "32M",
        "runtime": 2,
        "direct": False,
        "drop_caches": False,
        "raw_confirm": None,
        "name": None,
        "tags": (),
        "keep_files": False,
    }
    # warnings and notices go to stderr, never into the JSON stream
    assert "tierdeck: direct=0: the page cache" in result.stderr
    assert "tierdeck: laying out files" in result.stderr
    stored = HistoryStore(data_dir / "history.sqlite3").get(1)
    assert stored is not None and stored.series == engine.result.series


def test_run_text_prints_tables_and_the_saved_id(engine: FakeEngine) -> None:
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/srv/x",
                 "--name", "cache baseline")  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "#1 cache baseline: ok" in out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("job "))
    assert header.split() == ["job", "rw", "bs", "dir", "MiB/s", "IOPS", "mean", "lat", "p99",
                              "lat"]  # fmt: skip
    # the recorded run: read 41932556 B/s = 40.0 MiB/s, 10237 IOPS, mean 2.9 us, p99 14.9 us
    rows = [line.split() for line in lines if line.startswith("stream ")]
    assert rows == [
        ["stream", "-", "-", "read", "40.0", "10,237", "2.9", "µs", "14.9", "µs"],
        ["stream", "-", "-", "write", "20.0", "5,119", "3.7", "µs", "16.1", "µs"],
    ]
    assert "all jobs" not in out  # one job: its row is the result
    assert "disks under btrfs /srv/lab/mnt/cache" in out
    disk_header = next(line for line in lines if line.startswith("disk "))
    assert disk_header.split()[1:5] == ["read", "MiB/s", "write", "MiB/s"]
    # 40e6 and 20e6 B/s as MiB/s
    assert next(line for line in lines if line.startswith("loop3")).split()[1:3] == ["38.1", "19.1"]
    assert "MB/s" not in out
    assert "saved as run #1" in out


def test_run_on_a_terminal_draws_live_progress(
    engine: FakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_bench, "stderr_is_terminal", lambda: True)
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/srv/x")
    assert result.exit_code == 0, result.output
    assert "running: fio --name=fiotest" in result.stderr
    assert "#1 planned: ok" in result.stdout


def test_drop_caches_flag_is_passed_on(engine: FakeEngine, tmp_path: Path) -> None:
    run("bench", "run", "--preset", "seed001-uncached-randread", "--target", "/x", "--no-save")
    # the preset's own drop-caches / lay-out flags are plan_run's business (preset=)
    assert engine.plan_kwargs["drop_caches"] is False
    assert engine.plan_kwargs["preset"] == "uncached-randread-16k-sync"
    job = tmp_path / "j.fio"
    job.write_text("[j]\nrw=read\nsize=8M\n")
    result = run("bench", "run", "--job", str(job), "--target", "/x", "--drop-caches")
    assert result.exit_code == 0, result.output
    assert engine.plan_kwargs["drop_caches"] is True


def test_failed_run_exits_1_with_fios_message_and_is_stored_as_failed(
    engine: FakeEngine, data_dir: Path
) -> None:
    message = "fio job failed: odirect (err=22: Invalid argument); fio: looks like your file system does not support direct=1/buffered=0"
    engine.result = replace(engine.result, status=RunStatus.FAILED, error=message, summary={})
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/srv/x", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["status"] == "failed"
    assert message in result.stderr
    store = HistoryStore(data_dir / "history.sqlite3")
    assert store.list() == []
    assert [r.error for r in store.list(status=RunStatus.FAILED)] == [message]


def test_refused_run_exits_2_and_offers_buffered_io(engine: FakeEngine, data_dir: Path) -> None:
    engine.refuse = BenchRefused(
        "/mnt/pool is mergerfs (FUSE): O_DIRECT is not supported there",
        kind=RefusalKind.DIRECT_UNSUPPORTED,
    )
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/mnt/pool")
    assert result.exit_code == 2
    assert "refused: /mnt/pool is mergerfs (FUSE): O_DIRECT" in result.stderr
    assert "re-run with --direct 0" in result.stderr and "page cache" in result.stderr
    assert result.stdout == ""
    assert HistoryStore(data_dir / "history.sqlite3").list(status=tuple(RunStatus)) == []


def test_refusal_without_the_offer_does_not_suggest_direct_0(engine: FakeEngine) -> None:
    engine.refuse = BenchRefused("only 1.0G free on /x, the run needs 16G")
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/x")
    assert result.exit_code == 2
    assert "refused: only 1.0G free" in result.stderr and "--direct 0" not in result.stderr


def test_sigint_cancels_the_run_and_exits_130(engine: FakeEngine, data_dir: Path) -> None:
    engine.during_run = lambda: os.kill(os.getpid(), signal.SIGINT)
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/x", "--json")
    assert result.exit_code == 130
    assert "cancelling: stopping fio" in result.stderr
    assert json.loads(result.stdout)["status"] == "cancelled"
    store = HistoryStore(data_dir / "history.sqlite3")
    assert store.list() == [] and len(store.list(status=RunStatus.CANCELLED)) == 1
    # the handler is gone again: SIGINT is Python's default once the run is over
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_no_save_keeps_history_empty(engine: FakeEngine, data_dir: Path) -> None:
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/x", "--json",
                 "--no-save")  # fmt: skip
    assert result.exit_code == 0
    assert json.loads(result.stdout)["id"] is None
    assert not (data_dir / "history.sqlite3").exists()


def test_job_file_is_parsed_and_passed_on(engine: FakeEngine, tmp_path: Path) -> None:
    job = tmp_path / "two.fio"
    job.write_text("[global]\nbs=64k\nsize=8M\n[a]\nrw=write\nrate=1m\n[b]\nrw=write\nstonewall\n")
    result = run("bench", "run", "--job", str(job), "--target", "/x", "--json")
    assert result.exit_code == 0, result.output
    target, jobs = engine.plan_args
    assert [(j.name, j.bs, j.rate, j.stonewall) for j in jobs] == [
        ("a", "64k", "1m", False),
        ("b", "64k", None, True),
    ]
    assert engine.plan_kwargs["preset"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--target", "/x"], "exactly one of --preset"),
        (["--preset", "seed000-seqwrite", "--job", __file__, "--target", "/x"], "exactly one"),
        (["--preset", "nope", "--target", "/x"], "no preset 'nope'"),
        (["--preset", "seed000-seqwrite", "--target", "/x", "--direct", "2"], "'2' is not one"),
        (["--preset", "seed000-seqwrite", "--target", "/x", "--runtime", "0"], "--runtime"),
    ],
)
def test_bad_options_exit_2(engine: FakeEngine, args: list[str], message: str) -> None:
    result = run("bench", "run", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert engine.plan_args == ()


def test_bad_job_file_exits_2_with_the_line(engine: FakeEngine, tmp_path: Path) -> None:
    job = tmp_path / "bad.fio"
    job.write_text("rw=read\n[job]\n")
    result = run("bench", "run", "--job", str(job), "--target", "/x")
    assert result.exit_code == 2
    assert "line 1: option outside a [job] section" in result.stderr


# ------------------------------------------------------------------ per-job results


def _direction(mib: float) -> DirectionSummary:
    return DirectionSummary(int(mib * (1 << 20)), mib * 256, 4_000_000.0, 8_000_000)


def _suite(*jobs: tuple[str, str, str, str, float]) -> RunResult:
    """A finished run whose fio report had these (name, rw, bs, direction, MiB/s) jobs."""
    summaries = tuple(
        JobSummary(name, rw, bs, {direction: _direction(mib)})
        for name, rw, bs, direction, mib in jobs
    )
    base = recorded_result(tags=())
    total = {
        d: _direction(sum(m for *_, direction, m in jobs if direction == d))
        for d in {j[3] for j in jobs}
    }
    return replace(base, job_summaries=summaries, summary=total)


def table_rows(out: str, first: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines() if line.startswith(first)]


def test_mixed_jobs_print_one_row_each_and_no_whole_run_figure(engine: FakeEngine) -> None:
    engine.result = _suite(
        ("seq-read", "read", "1M", "read", 900.0),
        ("seq-write", "write", "1M", "write", 800.0),
        ("rand-read", "randread", "4k", "read", 30.0),
        ("rand-write", "randwrite", "4k", "write", 20.0),
    )
    result = run("bench", "run", "--preset", "seed002-suite", "--target", "/x", "--no-save")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert [r[:5] for r in table_rows(out, "seq-") + table_rows(out, "rand-")] == [
        ["seq-read", "read", "1M", "read", "900.0"],
        ["seq-write", "write", "1M", "write", "800.0"],
        ["rand-read", "randread", "4k", "read", "30.0"],
        ["rand-write", "randwrite", "4k", "write", "20.0"],
    ]
    assert "all jobs" not in out
    assert "jobs differ in rw/bs: no whole-run figure" in out
    assert "930.0" not in out and "820.0" not in out  # the mixed sums


def test_jobs_of_one_kind_get_an_all_jobs_row(engine: FakeEngine) -> None:
    engine.result = _suite(
        ("disk1", "randread", "4k", "read", 30.0),
        ("disk2", "randread", "4k", "read", 20.0),
    )
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/x", "--no-save")
    assert result.exit_code == 0, result.output
    assert [r[:5] for r in table_rows(result.stdout, "disk") if r[0] in ("disk1", "disk2")] == [
        ["disk1", "randread", "4k", "read", "30.0"],
        ["disk2", "randread", "4k", "read", "20.0"],
    ]
    assert table_rows(result.stdout, "all jobs")[0][:6] == [
        "all", "jobs", "randread", "4k", "read", "50.0"
    ]  # fmt: skip
    assert "no whole-run figure" not in result.stdout


# ------------------------------------------------------------------ warnings, refusals


@pytest.mark.parametrize("runner_repeats_them", [True, False])
def test_plan_warnings_are_printed_once_before_the_run(
    engine: FakeEngine, runner_repeats_them: bool
) -> None:
    engine.repeat_warnings = runner_repeats_them
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/x", "--json")
    assert result.exit_code == 0, result.output
    warning = "tierdeck: direct=0: the page cache may inflate results"
    assert result.stderr.count(warning) == 1
    assert result.stderr.index(warning) < result.stderr.index("laying out files")


def test_busy_target_found_by_the_runner_exits_2(engine: FakeEngine, data_dir: Path) -> None:
    # Another process's run holds the target's lock: only run_benchmark finds out.
    engine.refuse_run = BenchRefused(
        "a benchmark is already running on btrfs /srv/x (nightly): one run per target at a time",
        kind=RefusalKind.BUSY,
    )
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/srv/x", "--json")
    assert result.exit_code == 2
    assert "tierdeck: refused: a benchmark is already running on btrfs /srv/x" in result.stderr
    assert result.stdout == ""
    assert HistoryStore(data_dir / "history.sqlite3").list(status=tuple(RunStatus)) == []


def test_file_outside_the_target_is_refused_with_the_reason(engine: FakeEngine) -> None:
    engine.refuse = BenchRefused(
        "j: filename=/etc/passwd is outside the target /x; tierdeck only writes inside"
    )
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/x")
    assert result.exit_code == 2
    assert "refused: j: filename=/etc/passwd is outside the target /x" in result.stderr


# ------------------------------------------------------------------ conflicting options

RUN = ["bench", "run", "--preset", "seed000-seqwrite", "--target", "/x"]
TWICE = [
    (RUN + ["--preset", "seed001-uncached-randread"], "--preset given twice"),
    (RUN + ["--target", "/y"], "--target given twice (/x, /y)"),
    (RUN + ["--size", "1G", "--size", "2G"], "--size given twice (1G, 2G)"),
    (RUN + ["--runtime", "5", "--runtime", "6"], "--runtime given twice"),
    (RUN + ["--direct", "0", "--direct", "1"], "--direct given twice"),
    (RUN + ["--name", "a", "--name", "b", "--name", "c"], "--name given 3 times (a, b, c)"),
    (RUN + ["--raw", "--confirm-device", "a", "--confirm-device=b"], "--confirm-device given"),
    (["bench", "run", "--job", __file__, "--job", __file__, "--target", "/x"], "--job given"),
    (
        [
            "bench",
            "presets",
            "--save",
            "seed000-seqwrite",
            "a.fio",
            "--save",
            "seed002-suite",
            "b.fio",
        ],
        "--save given twice (seed000-seqwrite a.fio, seed002-suite b.fio)",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("args", "message"), TWICE)
def test_an_option_given_twice_is_refused(
    engine: FakeEngine,
    args: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.stderr and "give it once" in result.stderr
    assert engine.plan_args == ()
    assert list(tmp_path.iterdir()) == []  # --save wrote nothing


def test_every_value_option_of_bench_is_checked_for_repeats() -> None:
    # A new option added without once() would silently take its last value again.
    from tierdeck.app.cli.bench.presets import presets_cmd
    from tierdeck.app.cli.bench.run import run_cmd

    for command in (run_cmd, presets_cmd):
        for param in command.params:
            if isinstance(param, click.Option) and not param.is_flag:
                assert param.multiple and param.callback is not None, param.name


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--confirm-device", "loop9"], "--confirm-device confirms raw mode: add --raw"),
        (["--raw"], "--raw is for a block device"),
    ],
)
def test_raw_options_that_do_not_fit_are_refused(
    engine: FakeEngine, tmp_path: Path, extra: list[str], message: str
) -> None:
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", str(tmp_path), *extra)
    assert result.exit_code == 2
    assert message in result.stderr
    assert engine.plan_args == ()


# ------------------------------------------------------------------ raw mode


def test_a_device_without_raw_is_refused_with_the_way_to_raw(engine: FakeEngine) -> None:
    result = run("bench", "run", "--preset", "seed004-dd", "--target", f"/dev/{RAW_DEVICE}")
    assert result.exit_code == 2
    assert "refused: /dev/loop9 is a block device" in result.stderr
    assert "add --raw" in result.stderr and "--confirm-device NAME" in result.stderr
    assert engine.plan_kwargs["raw_confirm"] is None


def test_raw_with_confirm_device_runs_without_asking(engine: FakeEngine) -> None:
    result = run("bench", "run", "--preset", "seed004-dd", "--target", f"/dev/{RAW_DEVICE}",
                 "--raw", "--confirm-device", RAW_DEVICE, "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert engine.plan_kwargs["raw_confirm"] == RAW_DEVICE
    assert "Type the device name" not in result.stderr


def test_raw_with_a_wrong_confirm_device_is_refused(engine: FakeEngine) -> None:
    result = run("bench", "run", "--preset", "seed004-dd", "--target", f"/dev/{RAW_DEVICE}",
                 "--raw", "--confirm-device", "sda")  # fmt: skip
    assert result.exit_code == 2
    assert "refused: raw mode: the confirmation 'sda' does not match" in result.stderr


def test_raw_on_a_terminal_asks_for_the_name(
    engine: FakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_bench, "_stdin_is_terminal", lambda: True)
    result = run("bench", "run", "--preset", "seed004-dd", "--target", f"/dev/{RAW_DEVICE}",
                 "--raw", "--json", input=f"{RAW_DEVICE}\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "/dev/loop9 (loop9, 64M, Loopback device)" in result.stderr
    assert "destroyed" in result.stderr and "Type the device name to confirm" in result.stderr
    assert (engine.plan_calls, engine.plan_kwargs["raw_confirm"]) == (2, RAW_DEVICE)
    assert json.loads(result.stdout)["status"] == "ok"  # the prompt stayed off stdout


def test_raw_on_a_terminal_with_a_wrong_name_is_refused(
    engine: FakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_bench, "_stdin_is_terminal", lambda: True)
    result = run("bench", "run", "--preset", "seed004-dd", "--target", f"/dev/{RAW_DEVICE}",
                 "--raw", input="loop1\n")  # fmt: skip
    assert result.exit_code == 2
    assert "does not match" in result.stderr and result.stdout == ""


def test_raw_without_a_terminal_or_confirm_device_is_a_usage_error(engine: FakeEngine) -> None:
    result = run("bench", "run", "--preset", "seed004-dd", "--target", f"/dev/{RAW_DEVICE}",
                 "--raw")  # fmt: skip
    assert result.exit_code == 2
    assert "no terminal to type the device name on; add --confirm-device NAME" in result.stderr
