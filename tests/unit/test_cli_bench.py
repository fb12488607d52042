"""``tierdeck bench`` and ``tierdeck history`` through click's CliRunner.

``bench run`` is driven with a stand-in engine (plan_run / run_benchmark replaced) that
replays a recorded fio run, so these tests check the CLI's own job: options handed on,
exit statuses, JSON on stdout only, saving, refusal messages, cancel on SIGINT. The real
engine runs in tests/integration/test_cli_bench.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import types
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from tierdeck.app import bench_events as ev
from tierdeck.app import cli_bench
from tierdeck.app.cli import main
from tierdeck.app.history import HistoryStore
from tierdeck.backends.fio_jobfile import parse_jobfile
from tierdeck.core.bench_models import BenchRefused, RefusalKind, RunRequest, RunResult, RunStatus
from tierdeck.core.jobspec import PRESETS, preset

from tests.unit.test_history import recorded_result


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(folder))
    return folder


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


# ------------------------------------------------------------------ presets


def test_presets_text_shows_source_and_exact_parameters() -> None:
    result = run("bench", "presets")
    assert result.exit_code == 0
    for p in PRESETS:
        assert f"{p.name}: {p.title}" in result.stdout
        assert f"  source: {p.source}" in result.stdout
    # seed 000's fio command, option by option
    block = result.stdout.split("seed000-seqwrite:")[1].split("seed002-suite:")[0]
    for line in ("[fiotest]", "rw=write", "bs=1M", "ioengine=libaio", "iodepth=8",
                 "numjobs=8", "direct=1", "runtime=60", "group_reporting"):  # fmt: skip
        assert f"\n    {line}\n" in block


def test_presets_json() -> None:
    result = run("bench", "presets", "--json")
    doc = json.loads(result.stdout)
    assert doc["schema"] == "tierdeck.presets/1"
    assert [p["name"] for p in doc["presets"]] == [p.name for p in PRESETS]
    seed001 = next(p for p in doc["presets"] if p["name"] == "seed001-uncached-randread")
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
    assert "no preset 'nope'" in result.stderr and "seed004-dd" in result.stderr
    assert not (tmp_path / "x.fio").exists()


# ------------------------------------------------------------------ bench run (stand-in engine)


class FakeEngine:
    """Records what plan_run got; run_benchmark replays ``result`` with events."""

    def __init__(self, result: RunResult) -> None:
        self.result = result
        self.plan_kwargs: dict[str, Any] = {}
        self.plan_args: tuple[Any, ...] = ()
        self.refuse: BenchRefused | None = None
        self.during_run: Callable[[], None] | None = None

    def plan_run(self, host: Any, inv: Any, target: str, jobs: Any, **kw: Any) -> RunRequest:
        self.plan_args = (target, tuple(jobs))
        self.plan_kwargs = kw
        if self.refuse:
            raise self.refuse
        return RunRequest(
            target=self.result.target,
            jobs=tuple(jobs),
            name=kw.get("name") or "planned",
            preset=kw.get("preset"),
            warnings=("direct=0: the page cache may inflate results",),
        )

    async def run_benchmark(
        self, host: Any, request: RunRequest, on_event: Any, cancel: asyncio.Event | None = None
    ) -> RunResult:
        on_event(ev.RunStarted(request, ("fio", "--name=fiotest")))
        for warning in request.warnings:  # as the real runner does
            on_event(ev.Notice(warning))
        on_event(ev.Notice("laying out files"))
        on_event(ev.Progress(0.5, 2.0, ev.PHASE_MEASURING))
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
    fake = FakeEngine(recorded_result(tags=()))
    preflight = types.ModuleType("tierdeck.app.bench_preflight")
    preflight.plan_run = fake.plan_run  # type: ignore[attr-defined]
    runner = types.ModuleType("tierdeck.app.bench_runner")
    runner.run_benchmark = fake.run_benchmark  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tierdeck.app.bench_preflight", preflight)
    monkeypatch.setitem(sys.modules, "tierdeck.app.bench_runner", runner)
    monkeypatch.setattr("tierdeck.app.inventory.collect_inventory", lambda host: "inventory")
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
        "preset": "seed000-seqwrite",
        "size": "32M",
        "runtime": 2,
        "direct": False,
        "drop_caches": False,
        "name": None,
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
    # the recorded run: read 41932556 B/s, 10237 IOPS, mean 2.9 us, p99 14.9 us
    assert "stream" in out and "41.9" in out and "10,237" in out
    assert "2.9 µs" in out and "14.9 µs" in out
    assert "disks under btrfs /srv/lab/mnt/cache" in out
    assert "loop3" in out and "40.0" in out and "20.0" in out
    assert "saved as run #1" in out


def test_run_on_a_terminal_draws_live_progress(
    engine: FakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_bench, "_stderr_is_terminal", lambda: True)
    result = run("bench", "run", "--preset", "seed000-seqwrite", "--target", "/srv/x")
    assert result.exit_code == 0, result.output
    assert "running: fio --name=fiotest" in result.stderr
    assert "#1 planned: ok" in result.stdout


def test_drop_caches_flag_is_passed_on(engine: FakeEngine, tmp_path: Path) -> None:
    run("bench", "run", "--preset", "seed001-uncached-randread", "--target", "/x", "--no-save")
    # the preset's own drop-caches / lay-out flags are plan_run's business (preset=)
    assert engine.plan_kwargs["drop_caches"] is False
    assert engine.plan_kwargs["preset"] == "seed001-uncached-randread"
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


# ------------------------------------------------------------------ history


@pytest.fixture
def stored(data_dir: Path) -> HistoryStore:
    store = HistoryStore(data_dir / "history.sqlite3")
    store.save(recorded_result(started_at=1_000.0))
    store.save(recorded_result(started_at=2_000.0, status=RunStatus.FAILED, error="boom"))
    store.save(recorded_result(started_at=3_000.0, preset=None, name="custom job", tags=()))
    return store


def test_history_list_shows_ok_runs_only_by_default(stored: HistoryStore) -> None:
    result = run("history", "list", "--json")
    assert [r["id"] for r in json.loads(result.stdout)] == [3, 1]
    every = json.loads(run("history", "list", "--json", "--status", "all").stdout)
    assert [r["id"] for r in every] == [3, 2, 1]
    failed = json.loads(run("history", "list", "--json", "--status", "failed").stdout)
    assert [(r["id"], r["error"]) for r in failed] == [(2, "boom")]


def test_history_list_filters(stored: HistoryStore) -> None:
    ids = lambda *a: [r["id"] for r in json.loads(run("history", "list", "--json", *a).stdout)]  # noqa: E731
    assert ids("--preset", "seed000-seqwrite") == [1]
    assert ids("--target", "/srv/lab/mnt/cache/") == [3, 1]
    assert ids("--target", "/elsewhere") == []
    assert ids("--tag", "baseline") == [1]


def test_history_list_text(stored: HistoryStore) -> None:
    out = run("history", "list").stdout
    assert [line.split()[0] for line in out.splitlines()] == ["id", "3", "1"]
    assert "custom job" in out and "seed000-seqwrite" in out
    assert "21.0" in out and "41.9" in out  # write and read MB/s of the recorded run


def test_history_list_empty_says_so(data_dir: Path) -> None:
    result = run("history", "list", "--status", "cancelled")
    assert result.exit_code == 0 and "no cancelled runs stored" in result.stderr


def test_history_show(stored: HistoryStore) -> None:
    doc = json.loads(run("history", "show", "1", "--json").stdout)
    assert doc["id"] == 1 and "fio" not in doc
    assert json.loads(run("history", "show", "1", "--json", "--fio").stdout)["fio"]["jobs"]
    text = run("history", "show", "1", "--series").stdout
    assert "target:   btrfs /srv/lab/mnt/cache (mount) /srv/lab/mnt/cache" in text
    assert "kernel 6.18.0, fio-3.33, btrfs (rw,relatime,space_cache=v2), mergerfs 2.33.5" in text
    assert "per second" in text and "warning: direct=0" in text
    missing = run("history", "show", "99")
    assert missing.exit_code == 1 and "no run #99" in missing.stderr


def test_history_rename_and_tag(stored: HistoryStore) -> None:
    assert run("history", "rename", "1", "after fw update").exit_code == 0
    assert run("history", "tag", "1", "fw", "baseline").stdout.strip() == "baseline btrfs fw"
    assert run("history", "tag", "1", "btrfs", "--remove").stdout.strip() == "baseline fw"
    assert run("history", "tag", "1", "--clear", "new").stdout.strip() == "new"
    run1 = stored.get(1)
    assert run1 is not None and (run1.name, run1.tags) == ("after fw update", ("new",))
    assert run("history", "rename", "42", "x").exit_code == 1


def test_history_delete_asks_on_a_terminal(
    stored: HistoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_bench, "_stdin_is_terminal", lambda: True)
    declined = run("history", "delete", "1", input="n\n")
    assert declined.exit_code == 1 and "Delete run #1" in declined.output
    assert stored.get(1) is not None
    assert run("history", "delete", "1", input="y\n").exit_code == 0
    assert stored.get(1) is None
    assert run("history", "delete", "3", "--yes").exit_code == 0
    assert stored.get(3) is None


def test_history_delete_off_a_terminal_does_not_ask(stored: HistoryStore) -> None:
    result = run("history", "delete", "2")
    assert result.exit_code == 0 and "deleted run #2" in result.stderr
    assert stored.get(2) is None


def test_history_refuses_a_newer_database(data_dir: Path) -> None:
    import sqlite3

    data_dir.mkdir()
    with sqlite3.connect(data_dir / "history.sqlite3") as conn:
        conn.execute("PRAGMA user_version = 99")
    result = run("history", "list")
    assert result.exit_code == 1
    assert "newer tierdeck (history schema version 99" in result.stderr
