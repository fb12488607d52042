"""Sweeps: the file (core/sweep/model.py), the plan and the run (app/sweep/run.py) with the
real fio's --parse-only and a run that stores without starting fio, and resume."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.app.bench.events import RunStored
from tierdeck.app.bench.service import BenchService
from tierdeck.app.history.run_sets import RunSetKind, RunSetStore
from tierdeck.app.sweep.cells import SWEEP_JOB_NAME, cell_jobs
from tierdeck.app.sweep.events import SweepCellDone, SweepCellStarted
from tierdeck.app.sweep.run import SweepRefusalKind, SweepRefused, plan_sweep, run_sweep
from tierdeck.app.sweep.run import with_targets as with_targets_
from tierdeck.app.sweep.store import load_result
from tierdeck.backends.host import LiveHost
from tierdeck.core.bench_models import DirectionSummary, RunRequest, RunResult, RunStatus
from tierdeck.core.models import Inventory, ZfsInfo
from tierdeck.core.sweep.model import MAX_CELLS, SweepError, SweepErrorKind, parse_sweep

MiB = 1 << 20
INV = Inventory(hostname="t", disks=(), mounts=(), mergerfs=(), zfs=ZfsInfo(available=False),
                btrfs=(), md=())  # fmt: skip

SMALL = """
schema = "tierdeck.sweep/1"
name = "small"
[base]
rw = "write"
bs = "128k"
size = "4m"
refill_buffers = true
[axes]
numjobs = [1, 2]
buffer_compress_percentage = [0, 50, 100]
"""


def spec_of(text: str = SMALL) -> Any:
    return parse_sweep(text)


# --------------------------------------------------------------------------- the file


def test_cells_in_nested_loop_order_last_axis_fastest() -> None:
    cells = spec_of().cells()
    assert len(cells) == 6 == spec_of().cell_count
    assert [c.as_dict for c in cells[:4]] == [
        {"numjobs": 1, "buffer_compress_percentage": 0},
        {"numjobs": 1, "buffer_compress_percentage": 50},
        {"numjobs": 1, "buffer_compress_percentage": 100},
        {"numjobs": 2, "buffer_compress_percentage": 0},
    ]
    assert [c.index for c in cells] == list(range(6))
    assert cells[1].label == "numjobs=1 buffer_compress_percentage=50"
    assert len({c.key for c in cells}) == 6


@pytest.mark.parametrize(
    ("text", "kind", "key"),
    [
        ("schema = 1", SweepErrorKind.FORMAT, "schema"),
        ('schema = "tierdeck.sweep/1"\n[base]\nrw="write"', SweepErrorKind.MISSING, "axes"),
        ('schema = "tierdeck.sweep/1"\n[base]\nrw="write"\n[axes]\nnumjobs = []',
         SweepErrorKind.WRONG_TYPE, "axes.numjobs"),
        ('schema = "tierdeck.sweep/1"\n[base]\nrw="write"\n[axes]\nnumjobs = 3',
         SweepErrorKind.WRONG_TYPE, "axes.numjobs"),
        ('schema = "tierdeck.sweep/1"\n[base]\nrw="write"\n[axes]\nnumjobs = [1, 1]',
         SweepErrorKind.BAD_VALUE, "axes.numjobs"),
        ('schema = "tierdeck.sweep/1"\n[base]\nrw="write"\n[axes]\nnumjobs = [[1]]',
         SweepErrorKind.WRONG_TYPE, "axes.numjobs"),
        ('schema = "tierdeck.sweep/1"\n[base]\nrw="write"\n[axes]\ndirectory = ["/a"]',
         SweepErrorKind.BAD_VALUE, "axes.directory"),
        ('schema = "tierdeck.sweep/1"\n[base]\nrw="write"\n[axes]\n"Bad-Name" = [1]',
         SweepErrorKind.BAD_VALUE, "axes.Bad-Name"),
        ('schema = "tierdeck.sweep/1"\n[base]\nrw="write"\n[axes]\ntargets = ["rel"]',
         SweepErrorKind.BAD_VALUE, "axes.targets"),
        ('schema = "tierdeck.sweep/1"\n[base]\nrw="write"\nbs="4k"\n[axes]\nbs = ["1m"]',
         SweepErrorKind.BAD_VALUE, "axes.bs"),
        ('schema = "tierdeck.sweep/1"\n[base]\nbs="4k"\n[axes]\nnumjobs = [1]',
         SweepErrorKind.MISSING, "base.rw"),
        ('schema = "tierdeck.sweep/1"\nextra = 1\n[base]\nrw="write"\n[axes]\nnumjobs = [1]',
         SweepErrorKind.UNKNOWN_KEY, "extra"),
        ('schema = "tierdeck.sweep/1"\n[base]\nrw="write"\n[axes]\n'
         'a=[1,2,3,4,5,6,7,8]\nb=[1,2,3,4,5,6,7,8]\nc=[1,2,3,4,5,6,7,8,9]',
         SweepErrorKind.TOO_BIG, "axes"),
        ("schema = [", SweepErrorKind.SYNTAX, None),
    ],
)  # fmt: skip
def test_every_invalid_file_is_refused_with_its_key(
    text: str, kind: SweepErrorKind, key: str | None
) -> None:
    with pytest.raises(SweepError) as refused:
        parse_sweep(text)
    assert (refused.value.kind, refused.value.key) == (kind, key)
    assert key is None or key in str(refused.value)


def test_too_big_is_refused_above_the_limit_only() -> None:
    axes = "a = [" + ", ".join(str(i) for i in range(MAX_CELLS)) + "]"
    assert parse_sweep(f'schema = "tierdeck.sweep/1"\n[base]\nrw="read"\n[axes]\n{axes}')


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_garbage_text_is_a_spec_or_a_sweep_error(text: str) -> None:
    try:
        parse_sweep(text)
    except SweepError:
        pass


_value = st.one_of(st.integers(-5, 5), st.booleans(), st.text(max_size=6),
                   st.floats(allow_nan=False, allow_infinity=False))  # fmt: skip
_tables = st.dictionaries(
    st.sampled_from(["rw", "bs", "numjobs", "targets", "preset", "size", "directory", "x y"]),
    st.one_of(_value, st.lists(_value, max_size=4), st.dictionaries(st.text(max_size=3), _value)),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({"schema": st.sampled_from(["tierdeck.sweep/1", "x"])},
                             optional={"base": _tables, "axes": _tables, "name": _value,
                                       "target": _value}))  # fmt: skip
def test_garbage_sweep_files_are_a_spec_or_a_sweep_error(doc: dict[str, Any]) -> None:
    try:
        spec = parse_sweep(tomli_w.dumps(doc))
    except SweepError:
        return
    assert spec.cell_count == len(spec.cells()) >= 1


def test_a_cells_jobs_are_the_base_with_its_values_over_them() -> None:
    spec = spec_of()
    [job] = cell_jobs(spec, spec.cells()[4])
    assert (job.name, job.rw, job.bs, job.numjobs, job.size) == (SWEEP_JOB_NAME, "write", "128k",
                                                                 2, "4m")  # fmt: skip
    assert job.extra == {"refill_buffers": None, "buffer_compress_percentage": "50"}
    preset = parse_sweep('schema = "tierdeck.sweep/1"\n[base]\npreset = "seed002-suite"\n'
                         'size = "8m"\n[axes]\niodepth = [1, 8]')  # fmt: skip
    jobs = cell_jobs(preset, preset.cells()[1])
    assert len(jobs) == 4 and {(j.iodepth, j.size) for j in jobs} == {(8, "8m")}


# --------------------------------------------------------------------------- the plan


@pytest.fixture
def store(tmp_path: Path) -> RunSetStore:
    return RunSetStore(tmp_path / "history.sqlite")


@pytest.fixture
def target(tmp_path: Path) -> str:
    path = tmp_path / "target"
    path.mkdir()
    return str(path)


def test_plan_creates_the_set_and_plans_every_cell(store: RunSetStore, target: str) -> None:
    plan = plan_sweep(LiveHost(), INV, spec_of(), target=target, store=store)
    assert plan.set_id is not None and len(plan.to_run) == len(plan.cells) == 6
    found = store.get_set(plan.set_id)
    assert found is not None and found.kind is RunSetKind.SWEEP and found.name == "small"
    assert plan.planned[3].ask.name == "small [numjobs=2 buffer_compress_percentage=0]"
    assert [Path(p).name for p, _ in plan.planned[3].files] == [
        ".tierdeck-bench.sweep.0.0", ".tierdeck-bench.sweep.1.0"]  # fmt: skip
    dry = plan_sweep(LiveHost(), INV, spec_of(), target=target, store=store, dry_run=True)
    assert dry.set_id is None and len(store.list_sets()) == 1


@pytest.mark.parametrize(
    ("axes", "options", "kind", "words"),
    [
        ("numjobs = [1, 0]", {}, SweepRefusalKind.CELL, "numjobs=0"),
        ("no_such_option = [1]", {}, SweepRefusalKind.FIO, "no_such_option"),
        ("buffer_compress_percentage = [50, 500]", {}, SweepRefusalKind.FIO,
         "buffer_compress_percentage=500"),
        ("numjobs = [1]", {"target": None}, SweepRefusalKind.TARGET, "--target"),
        ("runtime = [1, 2]", {"runtime": 2}, SweepRefusalKind.FILE, "runtime axis"),
        ("targets = ['/nonexistent/a']", {}, SweepRefusalKind.PLAN, "does not exist"),
    ],
)  # fmt: skip
def test_refusals_before_anything_runs(
    store: RunSetStore, target: str, axes: str, options: dict[str, Any],
    kind: SweepRefusalKind, words: str,
) -> None:  # fmt: skip
    spec = parse_sweep(
        f'schema = "tierdeck.sweep/1"\n[base]\nrw="write"\nsize="1m"\n[axes]\n{axes}'
    )
    given = {"target": None if "targets" in axes else target, **options}
    with pytest.raises(SweepRefused) as refused:
        plan_sweep(LiveHost(), INV, spec, store=store, **given)
    assert refused.value.kind is kind
    assert words in refused.value.reason
    assert store.list_sets() == []  # nothing created


def test_several_targets_become_the_first_axis(tmp_path: Path) -> None:
    spec = with_targets_(spec_of(), ["/a", "/b", "/a"])
    assert [a.name for a in spec.axes] == ["targets", "numjobs", "buffer_compress_percentage"]
    assert spec.axes[0].values == ("/a", "/b") and spec.cell_count == 12


# --------------------------------------------------------------------------- the run


class StoringService(BenchService):
    """Plans for real; "measures" by making a result at once (run_sweep stores it),
    failing the cells asked."""

    def __init__(self, store: RunSetStore, fail: set[str] = frozenset(),  # type: ignore[assignment]
                 cancel_after: int | None = None, cancel: asyncio.Event | None = None,
                 host: LiveHost | None = None) -> None:  # fmt: skip
        super().__init__(host or LiveHost(), store=lambda: store)
        self.fail, self.ran = fail, []  # type: list[str]
        self.envs: list[Any] = []
        self.cancel_after, self.cancel = cancel_after, cancel

    async def measure(self, inventory: Inventory, request: RunRequest, on_event: Any,
                      cancel: asyncio.Event | None = None, *, env: Any = None) -> RunResult:  # fmt: skip
        label = request.name.split("[", 1)[1].rstrip("]")
        self.ran.append(label)
        failed = label in self.fail
        now = time.time()
        result = RunResult(
            id=None, name=request.name, status=RunStatus.FAILED if failed else RunStatus.OK,
            target=request.target, jobs=request.jobs, started_at=now - 1, finished_at=now,
            summary={} if failed else {"write": DirectionSummary(len(self.ran) * MiB, 8.0, 1e5, 200000)},
            tags=request.tags,
        )  # fmt: skip
        self.envs.append(env)
        if self.cancel_after is not None and len(self.ran) == self.cancel_after:
            assert self.cancel is not None
            self.cancel.set()
        return result


def test_run_stores_tagged_runs_and_fills_every_cell(store: RunSetStore, target: str) -> None:
    plan = plan_sweep(LiveHost(), INV, spec_of(), target=target, store=store)
    service, events = StoringService(store), []  # type: ignore[var-annotated]
    result = asyncio.run(run_sweep(service, INV, plan, events.append))
    assert [c.status for c in result.cells] == ["ok"] * 6 and result.complete
    started = [e for e in events if isinstance(e, SweepCellStarted)]
    assert [(e.position, e.total, e.index) for e in started] == [(k + 1, 6, k) for k in range(6)]
    assert started[0].eta_s is None  # size-bound jobs: unknown until a cell is done
    assert started[1].eta_s == pytest.approx(5.0, abs=0.1)  # the median cell (1 s) x 5
    assert sum(isinstance(e, RunStored) for e in events) == 6  # inner events passed through
    assert [e.result.run_id for e in events if isinstance(e, SweepCellDone)] == [
        c.run_id for c in result.cells]  # fmt: skip
    run = store.get(result.cells[2].run_id or 0)
    assert run is not None and run.tags == (f"sweep:{plan.set_id}",)
    assert load_result(store, plan.set_id or 0) == result


def test_resume_runs_only_the_missing_cells(store: RunSetStore, target: str) -> None:
    cancel = asyncio.Event()
    first = StoringService(store, fail={"numjobs=1 buffer_compress_percentage=50"},
                           cancel_after=4, cancel=cancel)  # fmt: skip
    plan = plan_sweep(LiveHost(), INV, spec_of(), target=target, store=store)
    partial = asyncio.run(run_sweep(first, INV, plan, lambda e: None, cancel))
    assert len(first.ran) == 4 and len(partial.missing) == 3  # one failed, two never ran
    store.delete(partial.cells[0].run_id or 0)  # a deleted run empties its cell
    again = plan_sweep(LiveHost(), INV, spec_of(), target=target, store=store,
                       resume=plan.set_id)  # fmt: skip
    assert again.set_id == plan.set_id and again.resumed
    assert [c.index for c in again.to_run] == [0, 1, 4, 5]
    second = StoringService(store)
    whole = asyncio.run(run_sweep(second, INV, again, lambda e: None))
    assert second.ran == [c.label for c in again.to_run]
    assert whole.complete and len(whole.cells) == 6  # old cells and new together


def test_resume_refuses_another_definition_or_an_unknown_id(
    store: RunSetStore, target: str
) -> None:
    plan = plan_sweep(LiveHost(), INV, spec_of(), target=target, store=store)
    other = spec_of(SMALL.replace('"4m"', '"8m"'))
    with pytest.raises(SweepRefused, match="base differ") as refused:
        plan_sweep(LiveHost(), INV, other, target=target, store=store, resume=plan.set_id)
    assert refused.value.kind is SweepRefusalKind.RESUME
    with pytest.raises(SweepRefused, match="--runtime differ"):
        plan_sweep(LiveHost(), INV, spec_of(), target=target, store=store, resume=plan.set_id,
                   runtime=2)  # fmt: skip
    with pytest.raises(SweepRefused, match="no sweep #99"):
        plan_sweep(LiveHost(), INV, spec_of(), target=target, store=store, resume=99)


# --------------------------------------------------------------------------- what a sweep reads once


class CountingHost(LiveHost):
    """The live machine, counting commands; ``full`` makes every filesystem report no
    room left (space running out in the middle of a sweep)."""

    def __init__(self) -> None:
        super().__init__()
        self.commands: list[tuple[str, ...]] = []
        self.full = False

    def run(self, argv: Any, timeout: float = 30.0) -> Any:
        self.commands.append(tuple(argv))
        return super().run(argv, timeout)

    def statvfs(self, path: str) -> Any:
        usage = super().statvfs(path)
        return replace(usage, free_bytes=0, avail_bytes=0) if self.full else usage


def test_the_fingerprint_is_read_once_per_target_while_planning(
    store: RunSetStore, tmp_path: Path
) -> None:
    paths = [tmp_path / "a", tmp_path / "b"]
    for path in paths:
        path.mkdir()
    spec = with_targets_(spec_of(), [str(p) for p in paths])
    host = CountingHost()
    plan = plan_sweep(host, INV, spec, store=store)
    assert sorted(t.path for t in plan.envs) == [str(p) for p in paths]
    assert all(e.fio_version and e.fio_version.startswith("fio-") for e in plan.envs.values())
    assert host.commands.count(("fio", "--version")) == 2  # once per target, not per cell
    service = StoringService(store, host=host)
    asyncio.run(run_sweep(service, INV, plan, lambda e: None))
    by_path = {t.path: e for t, e in plan.envs.items()}
    # every cell measured with its own target's fingerprint, none read again
    assert service.envs == [by_path[str(paths[0])]] * 6 + [by_path[str(paths[1])]] * 6
    assert host.commands.count(("fio", "--version")) == 2


def test_a_dry_run_reads_no_fingerprint(store: RunSetStore, target: str) -> None:
    host = CountingHost()
    plan = plan_sweep(host, INV, spec_of(), target=target, store=store, dry_run=True)
    assert plan.envs == {} and ("fio", "--version") not in host.commands


def test_a_target_that_changed_since_planning_reads_its_own_fingerprint(
    store: RunSetStore, tmp_path: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    link = tmp_path / "target"
    link.symlink_to(first)
    plan = plan_sweep(LiveHost(), INV, spec_of(), target=str(link), store=store)
    assert [t.path for t in plan.envs] == [str(first)]
    link.unlink()
    link.symlink_to(second)  # the same path now leads elsewhere: another target
    service = StoringService(store)
    asyncio.run(run_sweep(service, INV, plan, lambda e: None))
    assert service.envs == [None] * 6  # the runner reads the new target's fingerprint


def test_each_cell_is_still_checked_for_space_before_it_runs(
    store: RunSetStore, target: str
) -> None:
    host = CountingHost()
    plan = plan_sweep(host, INV, spec_of(), target=target, store=store)
    events: list[Any] = []

    def on_event(event: Any) -> None:
        events.append(event)
        if isinstance(event, SweepCellStarted) and event.position == 3:
            host.full = True  # the disk filled up while cell 2 ran

    service = StoringService(store, host=host)
    result = asyncio.run(run_sweep(service, INV, plan, on_event))
    assert len(service.ran) == 2  # cells 3 to 6 never reached fio
    refused = [e for e in events if isinstance(e, SweepCellDone) and e.refusal]
    assert len(refused) == 4 and all("not enough free space" in e.refusal for e in refused)
    assert [c.status for c in result.cells] == ["ok", "ok", None, None, None, None]


def test_saves_follow_the_cells_in_order_and_all_finish_before_the_end(
    store: RunSetStore, target: str
) -> None:
    plan = plan_sweep(LiveHost(), INV, spec_of(), target=target, store=store)
    events: list[Any] = []
    cancel = asyncio.Event()
    service = StoringService(store, cancel_after=3, cancel=cancel)
    result = asyncio.run(run_sweep(service, INV, plan, events.append, cancel))
    done = [e.result for e in events if isinstance(e, SweepCellDone)]
    assert [d.cell.index for d in done] == [0, 1, 2]  # the cancelled sweep's saves too
    assert [d.run_id for d in done] == [c.run_id for c in result.cells[:3]]
    assert all(d.run_id is not None for d in done)
    # a cell's Done may come after the next cell's start, never before its own
    order = [(type(e).__name__, getattr(e, "index", None) if isinstance(e, SweepCellStarted)
              else e.result.cell.index) for e in events
             if isinstance(e, (SweepCellStarted, SweepCellDone))]  # fmt: skip
    for index in range(3):
        assert order.index(("SweepCellStarted", index)) < order.index(("SweepCellDone", index))


async def test_a_given_fingerprint_is_not_read_again(tmp_path: Path, monkeypatch: Any) -> None:
    from tierdeck.app.bench import runner as bench_runner
    from tierdeck.app.bench.preflight import plan_run
    from tierdeck.core.bench_models import EnvFingerprint

    def unread(*args: Any) -> Any:
        raise AssertionError("the runner read the fingerprint again")

    monkeypatch.setattr(bench_runner, "fingerprint", unread)
    host = LiveHost()
    jobs = cell_jobs(spec_of(), spec_of().cells()[0])
    request = plan_run(host, INV, str(tmp_path), jobs, size="1m")
    given = EnvFingerprint(kernel="given", fio_version="fio-given")
    result = await BenchService(host).measure(INV, request, lambda e: None, env=given)
    assert result.status is RunStatus.OK and result.env == given
    assert list(tmp_path.iterdir()) == []  # cleaned up as ever
