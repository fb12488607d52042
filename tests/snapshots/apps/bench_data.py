"""Recorded benchmark runs for the TUI tests: load them, replay them, store them.

``tests/fixtures/bench_screens/*.json`` hold the event sequences of real runs on the
lab NAS (captured once by ``tests/fixtures/bench_screens/capture.py``). Replaying them
into the run screen needs no fio and no root, and gives the same screen every time:
nothing on it comes from the clock.

The JSON is a generic dump of the frozen dataclasses: ``{"__type__": "Sample", ...}``
for dataclasses, ``{"__enum__": "RunStatus", "value": "ok"}`` for enums; lists come back
as tuples (the models use tuples), except inside ``fio_json``, which stays as fio wrote it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path
from typing import Any

from textual.app import App
from tierdeck.app.bench import events as ev
from tierdeck.app.bench.service import BenchRunner
from tierdeck.app.tui.navigation import Navigator
from tierdeck.core import bench_models as bm
from tierdeck.core import fio_models as fm
from tierdeck.core import jobspec as js
from tierdeck.core.bench_models import RunRequest, RunResult
from tierdeck.core.models import Inventory, ZfsInfo
from tierdeck.core.placement import BenchFile

from tests.paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "bench_screens"

_CLASSES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        ev.RunStarted,
        ev.SampleReady,
        ev.DevicesReady,
        ev.Progress,
        ev.Notice,
        ev.RunEnded,
        bm.BenchTarget,
        bm.DeviceSample,
        bm.EnvFingerprint,
        bm.DirectionSummary,
        bm.RunWarning,
        bm.JobSummary,
        bm.RunRequest,
        bm.RunResult,
        fm.Sample,
        fm.DirectionSample,
        js.JobSpec,
        BenchFile,
    )
}
_ENUMS: dict[str, type[Enum]] = {
    e.__name__: e for e in (bm.RunStatus, bm.TargetKind, bm.FileLayout, bm.WarningKind)
}
_RAW_FIELDS = {"fio_json"}  # kept exactly as fio printed it


# -- JSON ----------------------------------------------------------------------------------


def encode(obj: Any) -> Any:
    if isinstance(obj, Enum):
        return {"__enum__": type(obj).__name__, "value": obj.value}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {"__type__": type(obj).__name__}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            out[f.name] = value if f.name in _RAW_FIELDS else encode(value)
        return out
    if isinstance(obj, list | tuple):
        return [encode(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): encode(v) for k, v in obj.items()}
    return obj


def decode(data: Any) -> Any:
    if isinstance(data, list):
        return tuple(decode(v) for v in data)
    if not isinstance(data, dict):
        return data
    if "__enum__" in data:
        return _ENUMS[data["__enum__"]](data["value"])
    if "__type__" in data:
        cls = _CLASSES[data["__type__"]]
        kwargs = {
            k: (v if k in _RAW_FIELDS else decode(v)) for k, v in data.items() if k != "__type__"
        }
        if cls is js.JobSpec:
            kwargs["extra"] = dict(kwargs.get("extra") or {})
        return cls(**kwargs)
    return {k: decode(v) for k, v in data.items()}


def save_recording(path: Path, events: Sequence[tuple[float, ev.BenchEvent]], about: str) -> None:
    doc = {
        "about": about,
        "events": [{"t": round(t, 3), "event": encode(e)} for t, e in events],
    }
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_events(name: str) -> list[ev.BenchEvent]:
    """The events of ``tests/fixtures/bench_screens/<name>.json``, in order."""
    doc = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return [_upgraded(decode(item["event"])) for item in doc["events"]]


def _typed(warnings: Sequence[Any]) -> tuple[bm.RunWarning, ...]:
    from tierdeck.app.history.schema import legacy_warning_kind

    return tuple(
        w if isinstance(w, bm.RunWarning) else bm.RunWarning(legacy_warning_kind(w), w)
        for w in warnings
    )


def _upgraded(event: Any) -> Any:
    """Recordings made by an older tierdeck, brought up to date the way the history's
    migrations bring stored runs: per-job summaries from the run's own fio JSON (v2),
    warnings with their kind (v3), phases as RunPhase."""
    from tierdeck.app.history.schema import legacy_warning_kind

    if isinstance(event, ev.Notice) and event.kind is None:
        kind = legacy_warning_kind(event.text)
        return ev.Notice(event.text, None if kind is bm.WarningKind.OTHER else kind)
    if isinstance(event, ev.Progress):
        return ev.Progress(event.fraction, event.eta_s, ev.RunPhase(event.phase))
    if isinstance(event, ev.RunStarted):
        request = dataclasses.replace(event.request, warnings=_typed(event.request.warnings))
        return ev.RunStarted(request, event.command)
    if not isinstance(event, ev.RunEnded):
        return event
    result = dataclasses.replace(event.result, warnings=_typed(event.result.warnings))
    if not result.job_summaries and result.fio_json is not None:
        from tierdeck.backends.fio.stream import job_summaries, parse_report

        summaries = job_summaries(parse_report(result.fio_json), result.jobs)
        result = dataclasses.replace(result, job_summaries=summaries)
    return ev.RunEnded(result)


def request_of(events: Sequence[ev.BenchEvent]) -> RunRequest:
    return next(e.request for e in events if isinstance(e, ev.RunStarted))


def result_of(events: Sequence[ev.BenchEvent]) -> RunResult:
    return next(e.result for e in events if isinstance(e, ev.RunEnded))


# -- replay --------------------------------------------------------------------------------


class ReplayRunner:
    """A stand-in for BenchService: emits recorded events, then stores the result in a
    MemoryStore and says so (RunStored), as the service does. With ``samples``, it
    stops after that many SampleReady (and the events up to the next one) and waits,
    like a run in progress, until cancelled; ``on_pause`` hears when it stops. A cancel
    then ends the run the way the runner does: stopping, cleaning up, status cancelled.
    """

    def __init__(
        self,
        events: Sequence[ev.BenchEvent],
        *,
        samples: int | None = None,
        on_pause: Callable[[], None] | None = None,
        store: MemoryStore | None = None,
    ) -> None:
        self.events = events
        self.samples = samples
        self.on_pause = on_pause
        self.store = store if store is not None else MemoryStore(first_id=7)

    async def run(
        self,
        inventory: Inventory,
        request: RunRequest,
        on_event: Callable[[ev.BenchEvent], None],
        cancel: asyncio.Event | None = None,
    ) -> RunResult:
        result = await self._replay(on_event, cancel)
        run_id = self.store.save(result)
        on_event(ev.RunStored(run_id))
        return dataclasses.replace(result, id=run_id)

    async def _replay(
        self, on_event: Callable[[ev.BenchEvent], None], cancel: asyncio.Event | None
    ) -> RunResult:
        seen = 0
        for event in self.events:
            if isinstance(event, ev.SampleReady):
                if self.samples is not None and seen == self.samples:
                    if self.on_pause is not None:
                        self.on_pause()
                    await (cancel or asyncio.Event()).wait()
                    return _cancelled(self.events, seen, on_event)
                seen += 1
            on_event(event)
            await asyncio.sleep(0)  # let the screen take each event, as in a real run
        return result_of(self.events)


EMPTY_INVENTORY = Inventory(
    hostname="nas", disks=(), mounts=(), mergerfs=(), zfs=ZfsInfo(available=False),
    btrfs=(), md=(),
)  # fmt: skip


def _cancelled(
    events: Sequence[ev.BenchEvent], seen: int, on_event: Callable[[ev.BenchEvent], None]
) -> RunResult:
    """The end a real cancel gives: the samples so far, status cancelled, no error."""
    done = result_of(events)
    series = tuple(e.sample for e in events if isinstance(e, ev.SampleReady))[:seen]
    result = dataclasses.replace(
        done, status=bm.RunStatus.CANCELLED, error=None, series=series, warnings=()
    )
    for event in (
        ev.Progress(0.5, None, ev.RunPhase.STOPPING),
        ev.Notice("cancelling: stopping fio"),
        ev.Progress(1.0, 0.0, ev.RunPhase.CLEANING_UP),
        ev.Progress(1.0, 0.0, ev.RunPhase.DONE),
        ev.RunEnded(result),
    ):
        on_event(event)
    return result


class MemoryStore:
    """HistoryStore's save(), numbering runs from ``first_id``, keeping them in a list."""

    def __init__(self, first_id: int = 1) -> None:
        self.saved: list[RunResult] = []
        self.next_id = first_id

    def save(self, result: RunResult) -> int:
        self.saved.append(result)
        self.next_id += 1
        return self.next_id - 1


class RunScreenApp(Navigator, App[None]):
    """Just the run screen, fed a recording: for snapshots and fast Pilot tests."""

    CSS_PATH = "../../../app/tui/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False  # as in TierdeckApp

    def __init__(
        self, name: str, *, samples: int | None = None, runner: BenchRunner | None = None
    ) -> None:
        super().__init__()
        self.events = load_events(name)
        self.samples = samples
        self.runner = runner
        self.store = MemoryStore(first_id=7)
        self.title = "tierdeck — nas"
        self.paused = False  # the replay reached ``samples`` and waits, like a live run

    def _pause(self) -> None:
        self.paused = True

    def on_mount(self) -> None:
        from tierdeck.screens.bench.run import RunScreen

        request = request_of(self.events)
        runner = self.runner or ReplayRunner(
            self.events, samples=self.samples, on_pause=self._pause, store=self.store
        )
        self.push_screen(RunScreen(runner, EMPTY_INVENTORY, request))


def fill_history(store: Any, names: Sequence[str]) -> list[int]:
    """Save the recorded runs ``names`` into ``store`` (a real HistoryStore), in order."""
    return [store.save(result_of(load_events(name))) for name in names]


def as_stored_before_0_2(result: RunResult) -> RunResult:
    """The run as a history written by tierdeck 0.1 holds it after the v2 migration:
    file_layout one-per-job (the migration's default for old rows). With numjobs=2, as
    in ``clones_write``, its clones shared one file then. The figures are this run's
    own (recorded with fio's layout): what is under test is how such a run is marked."""
    return dataclasses.replace(result, file_layout=bm.FileLayout.ONE_PER_JOB, name="old clones")


class HistoryApp(Navigator, App[None]):
    """Just the history screen over a given store (a real HistoryStore in a tmp dir)."""

    CSS_PATH = "../../../app/tui/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False  # as in TierdeckApp

    def __init__(self, store_path: Path) -> None:
        super().__init__()
        self.store_path = store_path
        self.title = "tierdeck — nas"

    def on_mount(self) -> None:
        from tierdeck.app.history.store import HistoryStore
        from tierdeck.screens.history.history import HistoryScreen

        self.push_screen(HistoryScreen(store_factory=lambda: HistoryStore(self.store_path)))
