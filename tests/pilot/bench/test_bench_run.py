"""Benchmarks driven from the dashboard by keyboard, with the REAL runner and real fio.

Each test mounts its own tmpfs (or ramfs) under tmp_path, keeps its history in
tmp_path (TIERDECK_DATA_DIR), runs tiny jobs (16M, 2 s), and unmounts in ``finally``.
Root and fio are needed: integration tests (tests/conftest.py skips them without, or
fails them under CI).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, TextArea
from tierdeck.app.history.store import HistoryStore
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import LiveHost
from tierdeck.core.bench_models import RunStatus, WarningKind
from tierdeck.core.compare.series import drawn
from tierdeck.core.presets import find_preset
from tierdeck.screens.bench.run import RunScreen
from tierdeck.screens.bench.setup import CUSTOM, BenchSetupScreen
from tierdeck.screens.modals.confirm import ConfirmScreen
from tierdeck.widgets.charts.series_chart import SeriesChart

from tests.conftest import MountDir
from tests.pilot.waiting import (
    open_history,
    paste_text,
    screen_text,
    shown_text,
    wait_for_inventory,
)
from tests.processes import fio_processes_using
from tests.waiting import wait_until

pytestmark = pytest.mark.integration  # root (to mount tmpfs) and fio

SIZE = (80, 24)
MiB = 1024 * 1024
RUN_TIMEOUT = 60.0

STEP_JOB = """\
[global]
rw=write
bs=64k
size=16M
runtime=2
time_based

[capped]
rate=4m

[uncapped]
stonewall
"""


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(path))
    return path


@pytest.fixture
def tmpfs(tmpfs_dir: MountDir) -> Iterator[Path]:
    with tmpfs_dir(size="256M") as where:
        yield where


@pytest.fixture
def ramfs(ramfs_dir: MountDir) -> Iterator[Path]:
    """ramfs refuses O_DIRECT every time (EINVAL): the refusal path, for real."""
    with ramfs_dir() as where:
        yield where


def bench_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".tierdeck-bench."))


async def type_text(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*("enter" if c == "\n" else c for c in text))


async def open_setup(pilot: Pilot[None], app: TierdeckApp, path: Path) -> BenchSetupScreen:
    """Dashboard -> b -> the setup screen, with ``path`` typed as the target."""
    await wait_for_inventory(pilot, app)
    await pilot.press("b")
    await wait_until(pilot, lambda: isinstance(app.screen, BenchSetupScreen), "the setup screen")
    setup = app.screen
    assert isinstance(setup, BenchSetupScreen)
    setup.query_one("#path", Input).focus()
    await pilot.pause()
    await pilot.press("ctrl+u")  # clear what the dashboard suggested
    await paste_text(pilot, str(path))
    assert setup.path == str(path)
    return setup


async def choose_preset(pilot: Pilot[None], setup: BenchSetupScreen, name: str) -> None:
    select = setup.query_one("#preset", Select)
    select.focus()
    await pilot.press("enter")  # opens the list
    await pilot.pause()
    options = [value for _, value in select._options]  # noqa: SLF001 - its order
    current = options.index(select.value)
    wanted = options.index(name)
    for _ in range(abs(wanted - current)):
        await pilot.press("down" if wanted > current else "up")
    await pilot.press("enter")
    await wait_until(pilot, lambda: select.value == name, f"preset {name}")


async def set_field(pilot: Pilot[None], setup: BenchSetupScreen, selector: str, text: str) -> None:
    setup.query_one(selector, Input).focus()
    await pilot.pause()
    await pilot.press("ctrl+u")
    await type_text(pilot, text)


async def start(pilot: Pilot[None], app: TierdeckApp, setup: BenchSetupScreen) -> RunScreen:
    await pilot.press("ctrl+r")

    def started() -> bool:
        assert not setup.message.startswith("Refused"), setup.message
        return isinstance(app.screen, RunScreen)

    await wait_until(pilot, started, "the run screen", RUN_TIMEOUT)
    return run_screen(app)


def run_screen(app: TierdeckApp) -> RunScreen:
    return next(s for s in app.screen_stack if isinstance(s, RunScreen))


async def test_custom_job_from_dashboard_to_result_and_history(tmpfs: Path, data_dir: Path) -> None:
    """b -> setup -> a custom two-job .fio (stonewall, the first capped) -> start -> live
    samples -> the result -> h -> the run is in the history."""
    app = TierdeckApp(LiveHost(), hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, app, tmpfs)
        await choose_preset(pilot, setup, CUSTOM)
        area = setup.query_one("#jobfile", TextArea)
        assert not area.read_only
        area.focus()
        await pilot.press("f7", "delete")  # select all, delete: start from nothing
        await paste_text(pilot, STEP_JOB)
        assert area.text == STEP_JOB
        assert not setup.query_one("#job-error").display
        screen = await start(pilot, app, setup)
        await wait_until(pilot, lambda: screen.samples_seen >= 1, "a live sample", RUN_TIMEOUT)
        assert screen.running  # samples arrive while fio runs, not after
        assert "measuring" in screen_text(app)
        await wait_until(
            pilot, lambda: screen.saved_id is not None, "the saved result", RUN_TIMEOUT
        )
        result = screen.result
        assert result is not None and result.status is RunStatus.OK, result
        assert result.target.path == str(tmpfs)
        assert [j.name for j in result.jobs] == ["capped", "uncapped"]
        # Per-second samples, not a cumulative average: the capped seconds stay near
        # 4 MiB/s and the uncapped ones are far above.
        writes = screen.query_one("#chart-bw", SeriesChart).values("write")
        # every full second (a partial last one is not drawn: core/compare/series)
        assert len(writes) == len([s for s in result.series if drawn(s)]) >= 3
        assert min(w or 0 for w in writes[:1]) < 8 * MiB
        assert max(w or 0 for w in writes) > 40 * MiB
        text = screen_text(app)
        assert "✔ ok" in text and f"saved as run #{screen.saved_id}" in text
        assert "memory-backed" in text  # tmpfs: the runner's warning is on screen
        assert bench_files(tmpfs) == []
        stored = HistoryStore().get(screen.saved_id)  # the TIERDECK_DATA_DIR store
        assert stored is not None and stored.series == result.series
        history = await open_history(pilot, app)
        assert [r.id for r in history.runs] == [screen.saved_id]
        assert history.selected_id == screen.saved_id
        await pilot.press("escape", "escape")  # history -> run screen -> setup
        await wait_until(pilot, lambda: isinstance(app.screen, BenchSetupScreen), "back at setup")


async def test_preset_with_overrides_runs_and_is_stored(tmpfs: Path, data_dir: Path) -> None:
    """A field preset (seed 002's suite, 4 stonewalled jobs) shortened to 16M / 1 s."""
    app = TierdeckApp(LiveHost(), hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, app, tmpfs)
        await choose_preset(pilot, setup, "suite-seq1m-rand4k-qd64")
        await set_field(pilot, setup, "#size", "16M")
        await set_field(pilot, setup, "#runtime", "1")
        text = setup.query_one("#jobfile", TextArea).text
        preset = find_preset("suite-seq1m-rand4k-qd64")
        assert preset is not None and f"; source: {preset.source}\n" in text
        assert "seeds/" not in text  # the origin in words, no seed file
        assert f"[global]\ndirectory={tmpfs}\nfilename_format=.tierdeck-bench." in text
        assert text.count("size=16M") == 4 and text.count("runtime=1\n") == 4
        screen = await start(pilot, app, setup)
        await wait_until(
            pilot, lambda: screen.saved_id is not None, "the saved result", RUN_TIMEOUT
        )
        result = screen.result
        assert result is not None and result.status is RunStatus.OK, result
        assert result.preset == "suite-seq1m-rand4k-qd64"
        assert {j.size for j in result.jobs} == {"16M"} and {j.runtime for j in result.jobs} == {1}
        assert set(result.summary) == {"read", "write"}
        runs = HistoryStore().list(preset="seed002-suite")
        assert [r.id for r in runs] == [screen.saved_id]


async def test_cancel_with_confirmation_leaves_no_fio(tmpfs: Path, data_dir: Path) -> None:
    app = TierdeckApp(LiveHost(), hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, app, tmpfs)
        await choose_preset(pilot, setup, "suite-seq1m-rand4k-qd64")  # 4 x 30 s: long enough
        await set_field(pilot, setup, "#size", "16M")
        await set_field(pilot, setup, "#runtime", "30")
        screen = await start(pilot, app, setup)
        await wait_until(pilot, lambda: screen.samples_seen >= 1, "a live sample", RUN_TIMEOUT)
        assert fio_processes_using(tmpfs)  # fio really runs
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        await pilot.press("n")  # changed my mind: keeps running
        await wait_until(pilot, lambda: app.screen is screen, "back on the run screen")
        seen = screen.samples_seen
        await wait_until(pilot, lambda: screen.samples_seen > seen, "more samples", RUN_TIMEOUT)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        await pilot.press("y")
        await wait_until(
            pilot, lambda: screen.saved_id is not None, "the cancelled run", RUN_TIMEOUT
        )
        result = screen.result
        assert result is not None and result.status is RunStatus.CANCELLED
        assert fio_processes_using(tmpfs) == []
        assert bench_files(tmpfs) == []
        assert "■ cancelled" in screen_text(app)
        assert HistoryStore().list() == []  # never among the good runs
        cancelled = HistoryStore().list(status=RunStatus.CANCELLED)
        assert [r.id for r in cancelled] == [screen.saved_id]


async def test_refused_target_shows_the_reason(tmp_path: Path, data_dir: Path) -> None:
    app = TierdeckApp(LiveHost(), hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        missing = tmp_path / "no-such-dir"
        setup = await open_setup(pilot, app, missing)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: setup.message.startswith("Refused"), "the refusal")
        assert setup.message == f"Refused: {missing} does not exist"
        # On screen, whole: read unwrapped, since where the line breaks depends on the
        # length of pytest's tmp path.
        shown = shown_text(setup.query_one("#setup-message"))
        assert shown == f"Refused: {missing} does not exist"
        assert isinstance(app.screen, BenchSetupScreen)  # nothing started


async def test_no_o_direct_offers_buffered_run(ramfs: Path, data_dir: Path) -> None:
    """ramfs refuses O_DIRECT: the reason, then an explicit offer of direct=0 with its
    warning; accepting runs buffered and the result carries the warning."""
    app = TierdeckApp(LiveHost(), hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, app, ramfs)
        await choose_preset(pilot, setup, "nas-seqwrite-1m-qd8x8")  # direct=1
        await set_field(pilot, setup, "#size", "16M")
        await set_field(pilot, setup, "#runtime", "1")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the direct=0 offer")
        question = " ".join(shown_text(app.screen.query_one(".modal-question")).split())
        assert "does not support O_DIRECT" in question
        assert "Run with direct=0" in question and "page cache will inflate" in question
        assert setup.message.startswith("Refused: ")
        await pilot.press("y")
        await wait_until(
            pilot, lambda: isinstance(app.screen, RunScreen), "the run screen", RUN_TIMEOUT
        )
        screen = run_screen(app)
        await wait_until(pilot, lambda: screen.saved_id is not None, "the result", RUN_TIMEOUT)
        result = screen.result
        assert result is not None and result.status is RunStatus.OK, result
        assert not any(job.direct for job in result.jobs)
        assert any(w.kind is WarningKind.BUFFERED and "inflate" in w.text for w in result.warnings)
        assert screen.query_one("#cache-warning").display
