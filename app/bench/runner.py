"""Run a planned benchmark: fio as an asyncio subprocess, /proc/diskstats beside it.

One event loop does everything, without threads or busy loops: fio's stdout is drained
as it comes (one JSON document per second, cut by ``JsonDocumentSplitter``), its stderr
is kept apart for the error message, and a 1 Hz ticker samples the disks under the
target. The caller hears about it through ``on_event`` (app.bench_events) and gets a
:class:`RunResult` back; fio failures become ``status=FAILED`` with fio's own words,
never an exception.

Cancelling (``cancel.set()``, or cancelling the task) sends SIGTERM to fio's process
group, SIGKILL after a grace period, and removes the ``.tierdeck-bench.*`` files
(after every run, except an ok one whose request keeps them for a sweep's next cell).
fio forks one process per job, so signals go to the whole group (fio is started in a
session of its own), and the run waits until none of them is left.

``claims.claim`` holds the target for the whole run (one run per target at a time);
the fio command lines are ``fio_commands``', progress ``progress``' and fio's verdict
``fio_outcome``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import posixpath
import signal
import time
from collections.abc import Callable, Sequence

from ...backends.diskstats import DiskstatsSampler
from ...backends.fio.json_documents import JsonDocumentSplitter
from ...backends.fio.sampling import IntervalSampler
from ...backends.fio.stream import job_summaries, parse_report
from ...backends.host import Host, HostProcess
from ...core import cache_check
from ...core.bench_models import (
    DeviceSample,
    EnvFingerprint,
    RunHost,
    RunRequest,
    RunResult,
    RunStatus,
    RunWarning,
    TargetKind,
    WarningKind,
)
from ...core.errors import HostUnreachable, ParseError, TierdeckError
from ...core.fio_models import Direction, FioReport, Sample
from ...core.models import Inventory
from ...core.units import fmt_bytes
from .claims import claim
from .events import (
    BenchEvent,
    DevicesReady,
    Notice,
    Progress,
    RunEnded,
    RunPhase,
    RunStarted,
    SampleReady,
)
from .fingerprint import fingerprint
from .fio_commands import bench_entries, layout_command, measure_command, test_files
from .fio_outcome import FioOutcome, fio_failure, run_summary
from .progress import ProgressModel

GRACE_S = 3.0  # SIGTERM -> SIGKILL
REAP_TIMEOUT_S = 10.0  # how long to wait for fio's job processes after SIGKILL
DROP_CACHES = "/proc/sys/vm/drop_caches"
# Cache warning: fio moved much more than the disks under the target, and enough that
# it is not noise (fs metadata, a few MB still dirty).
CACHE_RATIO = 1.5
CACHE_MIN_BYTES = 8 * 1024 * 1024
_READ_CHUNK = 64 * 1024
_STDERR_LIMIT = 64 * 1024
_MEMORY_FS = frozenset({"tmpfs", "ramfs"})
_MIN_FINAL_INTERVAL_S = 0.25
_READ_CACHE_WHY = (
    "the reads were served from the page cache (or the ZFS ARC), so they measure "
    "memory, not disks. Use direct=1, a size larger than RAM, or drop caches first "
    "(ZFS: export and import the pool)"
)
_WRITE_CACHE_WHY = (
    "the page cache (or ZFS) absorbed the writes, or compression shrank them. Use "
    "direct=1, or end_fsync=1 / fsync to count the flush"
)

EventSink = Callable[[BenchEvent], None]


# --------------------------------------------------------------------------- the run


class _Run:
    def __init__(
        self,
        host: Host,
        inventory: Inventory,
        request: RunRequest,
        emit: EventSink,
        cancel: asyncio.Event,
        env: EnvFingerprint | None = None,
    ) -> None:
        self.host = host
        self.known_env = env
        self.inventory = inventory
        self.request = request
        self.emit = emit
        self.cancel = cancel
        self.cancelled = False
        self.series: list[Sample] = []
        self.device_series: list[DeviceSample] = []
        self.warnings: list[RunWarning] = list(request.warnings)
        self.disks = DiskstatsSampler(host, request.target.disks)
        self.disks_ok = bool(request.target.disks)
        self.progress = ProgressModel(request.jobs)
        self.latest: FioReport | None = None
        self.last_disk_t = 0.0
        # Cache check: device t = fio t + offset_s, once fio's first I/O is known.
        self.fio_wall_start = 0.0
        self.interval: IntervalSampler | None = None
        self.cache_noticed: set[Direction] = set()

    # -- helpers -----------------------------------------------------------------------

    def notice(self, text: str) -> None:
        self.emit(Notice(text))

    def warn(self, kind: WarningKind, text: str) -> None:
        self.warnings.append(RunWarning(kind, text))
        self.emit(Notice(text, kind))

    def run_host(self) -> RunHost:
        """The machine fio ran on: the history may keep runs of several (SshHost)."""
        return RunHost(name=self.host.hostname, id=self.host.identity)

    def _env(self) -> tuple[EnvFingerprint, str | None]:
        """Runs in a worker thread: returns the problem instead of emitting it, so that
        ``on_event`` is only ever called from the event loop's thread."""
        try:
            env = fingerprint(self.host, self.inventory, self.request.target)
        except (TierdeckError, OSError) as exc:
            return EnvFingerprint(kernel=self.host.kernel), str(exc)
        return env, None

    # -- fio as a subprocess ---------------------------------------------------------

    async def run_fio(self, command: Sequence[str], *, measuring: bool) -> FioOutcome:
        loop = asyncio.get_running_loop()
        try:
            # its own session: signals reach every job fio forks
            proc = await self.host.spawn(command)
        except OSError as exc:
            return FioOutcome(returncode=None, messages=[f"cannot start fio: {exc}"])
        started = loop.time()
        outcome = FioOutcome(returncode=None)
        splitter = JsonDocumentSplitter()
        stderr = bytearray()
        interval = IntervalSampler()
        if measuring:
            self.interval, self.fio_wall_start = interval, time.time()
        assert proc.stdout is not None and proc.stderr is not None

        async def drain_stdout() -> None:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(_READ_CHUNK):
                for doc in splitter.feed_bytes(chunk):
                    self._take_document(doc, outcome, interval if measuring else None)

        async def drain_stderr() -> None:
            assert proc.stderr is not None
            while chunk := await proc.stderr.read(_READ_CHUNK):
                stderr.extend(chunk)
                del stderr[:-_STDERR_LIMIT]  # keep the end: fio's verdict comes last

        readers = [asyncio.create_task(drain_stdout()), asyncio.create_task(drain_stderr())]
        ticker = asyncio.create_task(self._tick(started)) if measuring else None
        exited = asyncio.create_task(proc.wait())
        cancelled = asyncio.create_task(self.cancel.wait())
        # The stdout reader and the ticker call on_event: if that raises (a bug in the
        # caller), fio is stopped and the error raised, rather than fio blocking on a
        # pipe nobody reads any more.
        watched = {exited, cancelled, readers[0], *([ticker] if ticker else [])}
        try:
            while not exited.done():
                done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
                for task in done - {exited, cancelled}:
                    watched.discard(task)
                    error = task.exception()
                    if error is not None:
                        await stop_process(self.host, proc)
                        raise error
                if cancelled in done and not exited.done():
                    watched.discard(cancelled)
                    self.cancelled = True
                    self.emit(
                        Progress(self.progress.fraction(self.latest), None, RunPhase.STOPPING)
                    )
                    self.notice("cancelling: stopping fio")
                    await stop_process(self.host, proc)
            try:
                outcome.returncode = await exited
            except HostUnreachable as exc:  # a remote host's link died under fio
                outcome.interrupted = f"{exc}; fio was stopped on the host"
            # The pipes close once every process of the group is gone.
            await asyncio.wait(readers, timeout=REAP_TIMEOUT_S)
        finally:
            cancelled.cancel()
            if ticker is not None:
                ticker.cancel()
            if proc.returncode is None:  # an exception or a cancelled task got us here
                await stop_process(self.host, proc)
            else:
                self.host.signal_group(proc.pid, signal.SIGKILL)  # stragglers of a dead leader
            for task in readers:
                task.cancel()
        leftover = splitter.close()
        if measuring and self.disks_ok:
            self._sample_disks(loop.time() - started, final=True)
        outcome.messages = [
            *splitter.messages,
            *outcome.messages,  # tierdeck's own remarks (an unreadable document)
            *stderr.decode("utf-8", "replace").splitlines(),
        ]
        if leftover.strip():
            outcome.messages.append("(fio stopped in the middle of a report)")
        return outcome

    def _take_document(
        self, doc: str, outcome: FioOutcome, interval: IntervalSampler | None
    ) -> None:
        try:
            data = json.loads(doc)
            report = parse_report(data)
        except (ValueError, RecursionError, ParseError) as exc:
            outcome.messages.append(f"unreadable fio output: {exc}")
            return
        outcome.reports += 1
        outcome.last_doc, outcome.last_report = data, report
        self.latest = report
        if interval is None:
            return
        try:
            sample = interval.add(report)
        except ParseError as exc:
            outcome.messages.append(str(exc))
            return
        if sample is not None:
            self.series.append(sample)
            self.emit(SampleReady(sample))

    async def _tick(self, started: float) -> None:
        """1 Hz: the disks' rates and the progress, on the loop's clock (no drift)."""
        loop = asyncio.get_running_loop()
        beat = 1
        if self.disks_ok:
            self._sample_disks(0.0)  # baseline
        while True:
            await asyncio.sleep(max(0.0, started + beat - loop.time()))
            elapsed = loop.time() - started
            beat = max(beat, math.floor(elapsed)) + 1  # skip beats missed under load
            if self.disks_ok:
                self._sample_disks(elapsed)
                self._check_cache_live()
            fraction = self.progress.fraction(self.latest)
            eta = elapsed * (1.0 - fraction) / fraction if fraction >= 0.02 else None
            self.emit(Progress(fraction, eta, RunPhase.MEASURING))

    def _sample_disks(self, t: float, *, final: bool = False) -> None:
        short = final and t - self.last_disk_t < _MIN_FINAL_INTERVAL_S
        try:
            samples = self.disks.sample(t)
        except (TierdeckError, OSError) as exc:
            self.disks_ok = False
            self.notice(f"device panel stopped: cannot read /proc/diskstats: {exc}")
            return
        self.last_disk_t = t
        # The last, partial interval still counts in the totals (the cache check), but
        # a few milliseconds are too short for a meaningful rate: not drawn.
        if samples and not short:
            self.device_series.extend(samples)
            self.emit(DevicesReady(samples))

    # -- phases ------------------------------------------------------------------------

    async def drop_caches(self) -> None:
        self.emit(Progress(0.0, None, RunPhase.DROPPING_CACHES))
        self.notice("dropping caches: sync, then echo 3 > /proc/sys/vm/drop_caches")
        try:
            sync = await self.host.spawn(["sync"])
            await sync.wait()
            await asyncio.to_thread(self.host.write_text, DROP_CACHES, "3\n")
        except (OSError, TierdeckError) as exc:
            self.warn(
                WarningKind.CACHES_KEPT,
                f"could not drop caches ({exc}): cached data may inflate reads",
            )

    async def lay_out(self) -> FioOutcome:
        self.emit(Progress(0.0, None, RunPhase.LAYING_OUT))
        self.notice("laying out the test files (fio --create_only=1)")
        return await self.run_fio(layout_command(self.request), measuring=False)

    def _offset_s(self) -> float:
        start_ms = self.interval.start_ms if self.interval is not None else None
        return 0.0 if start_ms is None else start_ms / 1000.0 - self.fio_wall_start

    def _check_cache_live(self) -> None:
        """Say it as soon as a second shows the cache answering (once per direction);
        the run's warning with the whole picture comes at the end."""
        if len(self.cache_noticed) == 2 or not self.series:
            return
        flagged = cache_check.cached_intervals(
            self.series[-3:], self.device_series, offset_s=self._offset_s()
        )
        for item in flagged:
            if item.direction in self.cache_noticed:
                continue
            self.cache_noticed.add(item.direction)
            verb = "read" if item.direction is Direction.READ else "wrote"
            moved = "delivered" if item.direction is Direction.READ else "absorbed"
            text = (
                f"cache warning: at t={item.t:.0f} s fio {verb} "
                f"{fmt_bytes(round(item.fio_bytes))} in {item.interval_s:.1f} s but the "
                f"disks {moved} only {fmt_bytes(round(item.disk_bytes))}"
            )
            # Live only: the run's warning with the whole picture comes at the end.
            self.emit(Notice(text, WarningKind.CACHE))

    def cache_warnings(self, report: FioReport) -> None:
        target = self.request.target
        if not target.disks:
            if target.fs_type in _MEMORY_FS:
                self.warn(
                    WarningKind.MEMORY_TARGET,
                    f"{target.label} is memory-backed ({target.fs_type}): these results "
                    "measure RAM, not disks",
                )
            else:
                self.warn(
                    WarningKind.NO_DISKS,
                    f"no local disk found under {target.label}: fio's numbers could not "
                    "be checked against disk traffic",
                )
            return
        if not self.disks_ok:
            return
        disks = ", ".join(target.disks)
        flagged = cache_check.cached_intervals(
            self.series, self.device_series, offset_s=self._offset_s()
        )
        warned: set[Direction] = set()
        for found in cache_check.findings(self.series, flagged):
            warned.add(found.direction)
            reading = found.direction is Direction.READ
            self.warn(
                WarningKind.CACHE,
                f"cache warning: in {found.intervals} of {found.of_intervals} seconds "
                f"(t={found.first_t:.0f}-{found.last_t:.0f} s) fio "
                f"{'read' if reading else 'wrote'} {fmt_bytes(round(found.fio_bytes))} "
                f"but the disks under {target.label} ({disks}) "
                f"{'delivered' if reading else 'absorbed'} only "
                f"{fmt_bytes(round(found.disk_bytes))}: "
                f"{_READ_CACHE_WHY if reading else _WRITE_CACHE_WHY}.",
            )
        # Whole-run totals as well: writes still in the page cache when fio ended.
        totals = self.disks.totals
        for direction, fio_bytes, disk_bytes in (
            (Direction.READ, report.read.io_bytes, sum(r for r, _ in totals.values())),
            (Direction.WRITE, report.write.io_bytes, sum(w for _, w in totals.values())),
        ):
            if direction in warned:
                continue
            if fio_bytes >= CACHE_MIN_BYTES and fio_bytes > CACHE_RATIO * disk_bytes:
                reading = direction is Direction.READ
                self.warn(
                    WarningKind.CACHE,
                    f"cache warning: fio {'read' if reading else 'wrote'} "
                    f"{fmt_bytes(fio_bytes)} but the disks under {target.label} "
                    f"({disks}) moved only {fmt_bytes(disk_bytes)}: "
                    f"{_READ_CACHE_WHY if reading else _WRITE_CACHE_WHY}.",
                )

    # -- the whole run -----------------------------------------------------------------

    def _refused_by_spec(self, started_at: float, error: str) -> RunResult:
        result = RunResult(
            id=None,
            name=self.request.name,
            status=RunStatus.FAILED,
            target=self.request.target,
            jobs=self.request.jobs,
            started_at=started_at,
            finished_at=time.time(),
            preset=self.request.preset,
            error=error,
            warnings=self.request.warnings,
            tags=self.request.tags,
            host=self.run_host(),
        )
        self.emit(RunEnded(result))
        return result

    async def execute(self) -> RunResult:
        request = self.request
        started_at = time.time()
        try:
            command = measure_command(request)
        except TierdeckError as exc:  # a request that did not come through plan_run
            return self._refused_by_spec(started_at, str(exc))
        self.emit(RunStarted(request, command))
        for warning in request.warnings:
            self.emit(Notice(warning.text, warning.kind))
        self.emit(Progress(0.0, None, RunPhase.PREPARING))
        env = EnvFingerprint(kernel=self.host.kernel)
        outcome: FioOutcome | None = None
        failure: str | None = None
        raw = request.target.kind is TargetKind.RAW
        before = set() if raw else bench_entries(self.host, request.target.path)
        try:
            if self.known_env is not None:
                env = self.known_env
            else:
                env, problem = await asyncio.to_thread(self._env)
                if problem is not None:
                    self.notice(f"environment fingerprint incomplete: {problem}")
            if request.lay_out_first and not self.cancel.is_set():
                layout = await self.lay_out()
                failure = None if self.cancelled else fio_failure(layout)
            if failure is None and request.drop_caches and not self.cancel.is_set():
                await self.drop_caches()
            if failure is None and not self.cancel.is_set():
                self.latest = None
                self.emit(Progress(0.0, None, RunPhase.MEASURING))
                outcome = await self.run_fio(command, measuring=True)
                failure = None if self.cancelled else fio_failure(outcome)
            # Cancelled before fio measured anything (while preparing or dropping caches)
            if failure is None and outcome is None and self.cancel.is_set():
                self.cancelled = True
        finally:
            ok = failure is None and outcome is not None and not self.cancelled
            # A sweep keeps an ok cell's files for its next cell (fio reuses them);
            # anything else, and what fio made unplanned, goes now.
            keep = set(test_files(request)) if request.keep_files and ok else set()
            files = [f for f in test_files(request) if f not in keep]
            if not raw:
                # What fio made that the plan did not foresee (an option tierdeck does
                # not model): new names with our prefix, never what was there before.
                top = request.target.path.rstrip("/") or "/"
                new = bench_entries(self.host, request.target.path) - before
                files += [posixpath.join(top, n) for n in sorted(new)]
                files = [f for f in files if f not in keep]
            if files:
                self.emit(Progress(1.0, 0.0, RunPhase.CLEANING_UP))
                await asyncio.to_thread(remove_files, self.host, list(dict.fromkeys(files)))

        report = outcome.last_report if outcome is not None else None
        status = RunStatus.OK
        if self.cancelled:
            status = RunStatus.CANCELLED
        elif failure is not None:
            status = RunStatus.FAILED
        if status is RunStatus.OK and report is not None:
            self.cache_warnings(report)
        result = RunResult(
            id=None,
            name=request.name,
            status=status,
            target=request.target,
            jobs=request.jobs,
            started_at=started_at,
            finished_at=time.time(),
            preset=request.preset,
            error=failure if status is RunStatus.FAILED else None,
            fio_json=outcome.last_doc if outcome is not None else None,
            summary=run_summary(report) if report is not None else {},
            job_summaries=job_summaries(report, request.jobs) if report is not None else (),
            series=tuple(self.series),
            device_series=tuple(self.device_series),
            env=env,
            tags=request.tags,
            warnings=tuple(dict.fromkeys(self.warnings)),
            host=self.run_host(),
        )
        self.emit(Progress(1.0, 0.0, RunPhase.DONE))
        self.emit(RunEnded(result))
        return result


# --------------------------------------------------------------------------- helpers


def remove_files(host: Host, paths: Sequence[str]) -> None:
    for path in paths:
        # A symlink under our name is removed, never followed. Read-only or gone with
        # its filesystem: nothing more we can do, and nothing to report.
        with contextlib.suppress(OSError, TierdeckError):
            host.remove(path)


async def stop_process(host: Host, proc: HostProcess) -> None:
    """TERM, then KILL after GRACE_S, then wait until no process of the group runs."""
    pgid = proc.pid
    try:
        if proc.returncode is None and host.signal_group(pgid, signal.SIGTERM):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), GRACE_S)
    finally:
        # Also on a second cancellation: never leave fio running.
        host.signal_group(pgid, signal.SIGKILL)
    deadline = time.monotonic() + REAP_TIMEOUT_S
    if proc.returncode is None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), REAP_TIMEOUT_S)
    # Job processes in uninterruptible I/O die when their I/O completes.
    while host.group_alive(pgid) and time.monotonic() < deadline:
        host.signal_group(pgid, signal.SIGKILL)
        await asyncio.sleep(0.05)


# --------------------------------------------------------------------------- entry


async def run_benchmark(
    host: Host,
    inventory: Inventory,
    request: RunRequest,
    on_event: Callable[[BenchEvent], None],
    cancel: asyncio.Event | None = None,
    *,
    env: EnvFingerprint | None = None,
) -> RunResult:
    """Run ``request`` (from bench_preflight.plan_run) to the end, or until ``cancel``
    is set; ``inventory`` is the caller's (for the environment fingerprint). ``env``:
    the fingerprint read already (a sweep reads it once per target), else read now. Raises
    BenchRefused only when the target is busy; every fio failure comes back as
    ``RunResult(status=FAILED, error=<fio's message>)``. Callers use
    ``app.bench_service.BenchService``, which also stores the result."""
    with claim(host, request):
        run = _Run(host, inventory, request, on_event, cancel or asyncio.Event(), env)
        return await run.execute()
